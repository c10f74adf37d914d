// Package adopt is the mechanics of adopting loopx/: what a
// revision of the rules is (spec and user policy files with their hashes),
// what differs between the adopted revision and the files on disk, what a
// change loosens (the rule data.loopx.adopt.decision), what waits for a
// human (Pending), the audit events of an adoption, and writing the
// adopted revision back into loopx/. When to adopt, and the store
// transaction that records it, stay with the store's owner, the top
// engine package; this package never imports it.
package adopt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/policies"
	"github.com/loopx-dev/loopx/specs"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Query is the rule that classifies a change of loopx/:
// {"verdict": "adopt"|"pending", "loosens": [reason], "tightens": [reason]}.
const Query = "data.loopx.adopt.decision"

// Reason is one thing a change loosens (a decision's reason).
type Reason = parts.Reason

// Pending says that loopx/ on disk differs from the adopted rules in a way
// only a human may adopt (`loopx adopt`). Decisions keep evaluating the
// adopted revision and carry a rules_pending reason meanwhile.
type Pending struct {
	// Adopted is the revision in effect (spec and policy hashes).
	Adopted Revision `json:"adopted"`
	// Disk is the revision of the files on disk.
	Disk Revision `json:"disk"`
	// Loosens lists what the disk revision loosens (code "loosens", ref the
	// spec field; "policy_changed" for a changed user policy).
	Loosens []Reason `json:"loosens"`
	// DiskError is why the spec files on disk do not load
	// ("file:line:col: field: message"), "" when they load. Such files can
	// be neither classified nor adopted: decisions keep the adopted
	// revision until the files are fixed (or restored), and Loosens is
	// empty.
	DiskError string `json:"disk_error,omitempty"`
	// OnlyTightens is true, with Loosens empty, when the files only tighten
	// the adopted rules but this engine reads the files (vet, check,
	// policy) and adopts nothing: the next decision adopts them.
	OnlyTightens bool `json:"only_tightens,omitempty"`
	// Tightens lists what the disk revision tightens (code "tightens", ref
	// the spec field), beside what it loosens; omitted when nothing.
	Tightens []Reason `json:"tightens,omitempty"`
}

// Revision names one revision of loopx/: the spec's content hash and the
// hash of the user policy files (their tests included).
type Revision struct {
	Spec   string `json:"spec"`
	Policy string `json:"policy"`
}

// RevisionOf is the revision r holds.
func RevisionOf(r records.Rules) Revision { return Revision{r.SpecHash, r.PolicyHash} }

// NewPending is what waits between the adopted rules cur and the files
// on disk: loosens (never nil in the result) and, when the spec files do
// not load, their error text.
func NewPending(cur, disk records.Rules, loosens []Reason, diskError string) *Pending {
	if loosens == nil {
		loosens = []Reason{}
	}
	return &Pending{Adopted: RevisionOf(cur), Disk: RevisionOf(disk), Loosens: loosens, DiskError: diskError}
}

// Summary is Loosens' messages joined for one line of text (or that the
// files do not load, with DiskError).
func (p *Pending) Summary() string {
	if p.DiskError != "" {
		return "the spec files do not load: " + p.DiskError
	}
	if p.OnlyTightens {
		if len(p.Tightens) == 0 {
			return "it only tightens them"
		}
		return "it only tightens them: " + Messages(p.Tightens)
	}
	return Messages(p.Loosens)
}

// Line is the one line that keeps pending changes in sight (status,
// review, doctor, an agent's session context): that loopx/ holds rule
// changes no human adopted, what they loosen, and `loopx adopt`; "" when
// nothing loosens (none pending, an edit that only tightens, which the
// next decision adopts, or files that do not load, reported on their own).
func (p *Pending) Line() string {
	if p == nil || p.DiskError != "" || p.OnlyTightens || len(p.Loosens) == 0 {
		return ""
	}
	return "rules pending: loopx/ changed and is not adopted: " + Messages(p.Loosens) + "; decisions keep the adopted rules until a human runs `loopx adopt`"
}

// Messages joins reasons' messages with "; " for one line of text, each
// prefixed with its ref unless the message names it.
func Messages(rs []Reason) string {
	var ms []string
	for _, r := range rs {
		m := r.Message
		if r.Ref != "" && !strings.Contains(m, r.Ref) {
			m = r.Ref + ": " + m
		}
		ms = append(ms, m)
	}
	return strings.Join(ms, "; ")
}

// Reason is the rules_pending reason decisions carry while p stands.
func (p *Pending) Reason() Reason {
	if p.DiskError != "" {
		return Reason{Code: "rules_pending", Rule: Query, Ref: "loopx/",
			Message: fmt.Sprintf("the spec files in loopx/ do not load (%s); decisions use the adopted revision %s until they are fixed (a loosening fix waits for `loopx adopt`) or a human runs `loopx adopt --restore`", p.DiskError, decision.ShortHash(p.Adopted.Spec))}
	}
	return Reason{Code: "rules_pending", Rule: Query, Ref: "loopx/",
		Message: fmt.Sprintf("loopx/ differs from the adopted rules and loosens them (%s); decisions use the adopted revision %s until a human runs `loopx adopt` (or `loopx adopt --restore` to undo the edit)", p.Summary(), decision.ShortHash(p.Adopted.Spec))}
}

// Result is what `loopx adopt` did (or, previewed, would do).
type Result struct {
	// Adopted is the revision now in effect (the files on disk).
	Adopted Revision `json:"adopted"`
	// Changed is false when the files already were the adopted rules.
	Changed bool `json:"changed"`
	// Loosens lists what the adopted change loosened ([] when nothing).
	Loosens []Reason `json:"loosens"`
	// Tightens lists what it tightened (omitted when nothing).
	Tightens []Reason `json:"tightens,omitempty"`
	// Problems are the problems of the user policies adopted
	// (rulebook.Book.Check, what `loopx check` reports; omitted when
	// none): a policy that does not compile is adopted as it is, and
	// every decision denies (policy_error) until it is fixed.
	Problems []rulebook.Problem `json:"problems,omitempty"`
}

// Options say what the human adopting confirmed (`loopx adopt`).
type Options struct {
	// Expect is the revision the human was shown (the preview's Adopted).
	// When set and loopx/ no longer holds it (changed while the person
	// read the prompt), nothing is adopted: errs.No rules_changed.
	Expect *Revision
	// Ancestry is the adopting process's ancestry (the channel's),
	// recorded in the rules.adopted event.
	Ancestry []trust.Process
}

// DiskRules reads loopx/ as it is on disk: the spec files in specDir and
// the user policy files of book (their _test.rego files too: a test
// rewritten to pass is a policy change), with their hashes. The export
// (SpecJSON, ExportHash) is loaded's when it is the spec of these files
// (loaded may be nil). Errors: the files' I/O errors (SpecFiles empty
// then, not nil), the book's.
func DiskRules(specDir string, loaded *specs.Loaded, book rulebook.Book) (records.Rules, error) {
	r := records.Rules{SpecFiles: map[string]string{}}
	files, hash, err := specs.Sources(specDir)
	if err != nil {
		return r, err
	}
	r.SpecFiles, r.SpecHash = files, hash
	if loaded != nil && loaded.Hash == hash {
		r.SpecJSON, r.ExportHash = loaded.JSON, loaded.ExportHash()
	}
	r.Policies = map[string]string{}
	err = book.Walk(func(m rulebook.Module, _ *ast.Module, _ error) error {
		r.Policies[m.Path] = m.Source
		return nil
	})
	r.PolicyHash = PolicyFilesHash(r.Policies)
	return r, err
}

// PolicyFilesHash is "sha256:<hex>" over the sorted paths and contents.
func PolicyFilesHash(files map[string]string) string {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\x00%s\x00", p, files[p])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ChangedFiles lists the paths added, removed or changed between a and b,
// sorted.
func ChangedFiles(a, b map[string]string) []string {
	var out []string
	for p, s := range b {
		if o, ok := a[p]; !ok || o != s {
			out = append(out, p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// PolicyChanged is the reason a change of the user policies (ref policyDir,
// "loopx/policies") loosens: any change does, naming the files (the
// message ends with its direction, as the spec's changes do).
func PolicyChanged(cur, disk records.Rules, policyDir string) Reason {
	return Reason{Code: "policy_changed", Rule: Query, Ref: policyDir,
		Message: "user policies changed: " + strings.Join(ChangedFiles(cur.Policies, disk.Policies), ", ") + ": loosens"}
}

// Classify evaluates data.loopx.adopt.decision over the two exported
// specs (JSON) and returns what loosens, nil when the change permits
// nothing more, and what tightens (each reason's message says the field,
// its old and new value and the direction: "goals.g1.agents: [a1] → []
// (every agent): loosens"). Any error loosens (fail closed).
func Classify(ctx context.Context, oldJSON, newJSON []byte) (loosens, tightens []Reason) {
	fail := func(err error) ([]Reason, []Reason) {
		return []Reason{{Code: "loosens", Rule: Query, Message: "the revisions cannot be compared (" + err.Error() + "): loosens"}}, nil
	}
	var in struct {
		Old any `json:"old"`
		New any `json:"new"`
	}
	if err := json.Unmarshal(oldJSON, &in.Old); err != nil {
		return fail(err)
	}
	if err := json.Unmarshal(newJSON, &in.New); err != nil {
		return fail(err)
	}
	opts := []func(*rego.Rego){rego.Query(Query), rego.StrictBuiltinErrors(true)}
	for path, src := range policies.EntryModules(Query) {
		opts = append(opts, rego.Module(path, src))
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rs, err := rego.New(append(opts, rego.Input(in))...).Eval(ctx)
	if err != nil {
		return fail(err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return fail(errors.New("data.loopx.adopt.decision is undefined"))
	}
	b, _ := json.Marshal(rs[0].Expressions[0].Value)
	var d struct {
		Verdict  string   `json:"verdict"`
		Loosens  []Reason `json:"loosens"`
		Tightens []Reason `json:"tightens"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return fail(err)
	}
	switch {
	case d.Verdict == "adopt" && len(d.Loosens) == 0:
		return nil, d.Tightens
	case d.Verdict == "adopt":
		return fail(fmt.Errorf("verdict adopt with %d loosening reasons", len(d.Loosens)))
	case len(d.Loosens) == 0:
		return fail(fmt.Errorf("verdict %q without reasons", d.Verdict))
	}
	return d.Loosens, d.Tightens
}

// WriteBack makes the files of loopx/ under root exactly the adopted
// revision cur, given disk as read (spec files and user policies, their
// tests included; files of disk not in cur are removed), following no
// link below root (internal/nofollow: a linked loopx/ or policies/ is
// neither written into nor removed from). It returns the paths written or
// removed, sorted ([] when none). Errors: *nofollow.LinkError; I/O errors.
func WriteBack(root string, disk, cur records.Rules) ([]string, error) {
	changed := RestorePaths(disk, cur)
	want := maps.Clone(cur.SpecFiles)
	maps.Copy(want, cur.Policies)
	for _, p := range changed {
		rel := filepath.FromSlash(p)
		src, keep := want[p]
		if !keep {
			if err := nofollow.RemoveAll(root, rel); err != nil {
				return nil, err
			}
			continue
		}
		if err := nofollow.MkdirAll(root, filepath.Dir(rel), 0o755); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteBelow(root, rel, []byte(src)); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// RestorePaths are the files of loopx/ that writing the revision cur back
// over disk (WriteBack) overwrites or removes, whoever edited them:
// sorted, [] when none.
func RestorePaths(disk, cur records.Rules) []string {
	changed := append(ChangedFiles(disk.SpecFiles, cur.SpecFiles), ChangedFiles(disk.Policies, cur.Policies)...)
	sort.Strings(changed)
	if changed == nil {
		changed = []string{}
	}
	return changed
}

// GateRestoredEvent is the rules.restored event of a rejected gate g (by
// actor) that made before, the rules in effect when its round started,
// the adopted rules again and wrote them back into loopx/ (changed: the
// paths written or removed).
func GateRestoredEvent(g records.Gate, before records.Rules, changed []string, actor string) records.Event {
	files := "loopx/ already held them"
	if len(changed) > 0 {
		files = "restored " + strings.Join(changed, ", ")
	}
	return records.Event{Kind: "rules.restored", Goal: g.Goal, Actor: actor, Subject: g.ID,
		Message: fmt.Sprintf("gate %s rejected: the rules in effect before the round are the adopted rules again (spec %s, policies %s); %s",
			g.ID, decision.ShortHash(before.SpecHash), decision.ShortHash(before.PolicyHash), files),
		Data: map[string]any{"gate": g.ID, "spec": before.SpecHash, "policy": before.PolicyHash, "paths": changed}}
}

// AdoptedEvent is the rules.adopted event of r adopted by by (why says
// how), with what it loosened and tightened (the message lists each
// change and its direction; Data "loosens", "tightens") and extra data
// (such as the adopting human's ancestry).
func AdoptedEvent(r records.Rules, by, why string, loosens, tightens []Reason, extra map[string]any) records.Event {
	data := map[string]any{"spec": r.SpecHash, "policy": r.PolicyHash}
	maps.Copy(data, extra)
	if len(loosens) > 0 {
		data["loosens"] = loosens
	}
	if len(tightens) > 0 {
		data["tightens"] = tightens
	}
	msg := fmt.Sprintf("rules adopted (%s): spec %s, policies %s", why, decision.ShortHash(r.SpecHash), decision.ShortHash(r.PolicyHash))
	if changes := Messages(append(slices.Clone(loosens), tightens...)); changes != "" {
		msg += ": " + changes
	}
	return records.Event{Kind: "rules.adopted", Actor: by, Subject: r.SpecHash, Message: msg, Data: data}
}

// GateEvent is what an approved adoption gate g did: rules.adopted by
// actor when disk (the files evaluated anew, ok false when they do not
// load) is still the revision g names, else rules.not_adopted (the human
// runs `loopx adopt` after looking again).
func GateEvent(g records.Gate, disk records.Rules, ok bool, actor string) (records.Event, bool) {
	if !ok || g.Adopt == nil || disk.SpecHash != g.Adopt.Spec || disk.PolicyHash != g.Adopt.Policy || disk.SpecJSON == nil {
		return records.Event{Kind: "rules.not_adopted", Goal: g.Goal, Actor: "loopx", Subject: g.ID,
			Message: "loopx/ changed since the adoption gate was raised: nothing adopted; review it and run `loopx adopt`"}, false
	}
	return records.Event{Kind: "rules.adopted", Goal: g.Goal, Actor: actor, Subject: disk.SpecHash,
		Message: fmt.Sprintf("rules adopted (adoption gate %s approved): spec %s, policies %s", g.ID, decision.ShortHash(disk.SpecHash), decision.ShortHash(disk.PolicyHash)),
		Data:    map[string]any{"spec": disk.SpecHash, "policy": disk.PolicyHash, "gate": g.ID}}, true
}

// CacheMismatchEvent is the rules.cache_mismatch event of a cached export
// (cached) that is not what its files evaluate to (fresh): the cache file
// rel (relative to the project) was forged or damaged and is replaced.
func CacheMismatchEvent(cached, fresh *specs.Loaded, rel string) records.Event {
	return records.Event{Kind: "rules.cache_mismatch", Actor: "loopx", Subject: cached.Hash,
		Message: fmt.Sprintf("the cached export of spec %s is not what its files evaluate to (an edit of .loopx/cache/?): cache file replaced, files evaluated again", decision.ShortHash(cached.Hash)),
		Data:    map[string]any{"spec": cached.Hash, "cached_export": cached.ExportHash(), "export": fresh.ExportHash(), "path": rel}}
}

// RestoredEvent is the rules.restored event of loopx/ written back to the
// adopted revision cur (changed: the paths written or removed).
func RestoredEvent(cur records.Rules, changed []string) records.Event {
	return records.Event{Kind: "rules.restored", Actor: "loopx", Subject: cur.SpecHash,
		Message: fmt.Sprintf("loopx/ restored to the adopted rules: %s", strings.Join(changed, ", ")), Data: map[string]any{"paths": changed}}
}

// SameRules reports whether a and b (nil: none adopted) are the same
// adopted rules, field for field: the read model's copy and the store's
// (Engine.checkModelRules).
func SameRules(a, b *records.Rules) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && bytes.Equal(ja, jb)
}

// CheckModel reports whether model (nil: none adopted), the adopted rules
// a read model at the store's revision modelRev named, are the store s's.
// When they are not and s is still at that revision, the file was edited
// outside loopx: a rules.readmodel_mismatch event (ModelRulesEvent) tells
// a human. Errors: the store's (its revision or rules unreadable).
func CheckModel(s *kernel.Store, model *records.Rules, modelRev uint64) (bool, error) {
	var stored *records.Rules
	rev, err := s.Revision()
	if err == nil {
		err = s.View(func(tx *kernel.Tx) error {
			r, ok, err := tx.Rules()
			if ok {
				stored = &r
			}
			return err
		})
	}
	if err != nil || SameRules(stored, model) {
		return err == nil, err
	}
	if rev == modelRev {
		_ = s.Update(func(tx *kernel.Tx) error { return tx.AppendEvent(ModelRulesEvent(model, stored, rev)) })
	}
	return false, nil
}

// ModelRulesEvent is the rules.readmodel_mismatch event: the read model,
// claiming the store's revision rev, named adopted rules (model, nil:
// none) that are not the store's (stored): readmodel.json was edited
// outside loopx, and the store's rules are in effect.
func ModelRulesEvent(model, stored *records.Rules, rev uint64) records.Event {
	name := func(r *records.Rules) string {
		if r == nil {
			return "none"
		}
		return fmt.Sprintf("spec %s, policies %s", decision.ShortHash(r.SpecHash), decision.ShortHash(r.PolicyHash))
	}
	differ := fmt.Sprintf("other adopted rules (%s) than the store (%s)", name(model), name(stored))
	if name(model) == name(stored) {
		differ = fmt.Sprintf("adopted rules with the store's hashes (%s) but other content", name(stored))
	}
	return records.Event{Kind: "rules.readmodel_mismatch", Actor: "loopx", Subject: "readmodel.json",
		Message: fmt.Sprintf("the read model at revision %d names %s: an edit of readmodel.json outside loopx? The store's rules are in effect", rev, differ),
		Data:    map[string]any{"revision": rev, "model": name(model), "store": name(stored)}}
}

// ProtectedPaths are the paths (written by an agent's command) that the
// permission decision's reasons name as protected (code protected_path):
// loopx's own, git's hooks and config, the hosts' settings. [] when none.
func ProtectedPaths(reasons []Reason, paths []string) []string {
	protected := []string{}
	for _, r := range reasons {
		if r.Code != "protected_path" {
			continue
		}
		for _, p := range paths {
			if strings.Contains(r.Message, p) && !slices.Contains(protected, p) {
				protected = append(protected, p)
			}
		}
	}
	return protected
}

// GateQuestion is the question of the gate an agent's writes of protected
// paths in round raise, and, when they edited loopx/ (specDir) in a way
// that loosens the rules (p pending, its files loading), the revision the
// gate adopts on approve (the adoption gate; nil otherwise).
func GateQuestion(agent, round, specDir string, protected []string, p *Pending) (string, *records.GateAdopt) {
	question := fmt.Sprintf("Agent %s changed protected files (loopx's own spec, policies or state, git's hooks or config, an agent host's settings: %s) in round %s. Keep these changes and let agents continue?",
		agent, strings.Join(protected, ", "), round)
	if len(protected) == 0 {
		return question, nil
	}
	var rules, others []string
	for _, path := range protected {
		if path == specDir || strings.HasPrefix(path, specDir+"/") {
			rules = append(rules, path)
		} else {
			others = append(others, path)
		}
	}
	if p == nil || p.DiskError != "" || len(rules) == 0 {
		return question, nil
	}
	also := ""
	if len(others) > 0 {
		also = fmt.Sprintf(" and other protected files (%s)", strings.Join(others, ", "))
	}
	return fmt.Sprintf("Agent %s changed loopx's own spec or policies (%s)%s in round %s, and the change loosens the rules: %s. Adopt these changes (approve adopts them, reject restores loopx/ and the rules of before the round)?",
		agent, strings.Join(rules, ", "), also, round, p.Summary()), &records.GateAdopt{Spec: p.Disk.Spec, Policy: p.Disk.Policy}
}

// RecordViolation appends to tx the scope_violation event of agent's
// writes of paths in round (reasons: the denying decision's messages,
// decisionID its id) and, when protected names any path (ProtectedPaths),
// raises the goal's adoption gate asking question (adopt: the revision it
// adopts, GateQuestion's), which keeps before (nil: none), the rules the
// round started under, for a reject to restore (RestoreByGate). It
// returns the gate raised, nil when none. Errors: the store's.
func RecordViolation(tx *kernel.Tx, goal, agent, round string, paths, reasons []string, decisionID string,
	protected []string, question string, adopt *records.GateAdopt, before *records.Rules) (*records.Gate, error) {
	if err := tx.AppendEvent(records.Event{Kind: "scope_violation", Goal: goal, Actor: agent, Subject: round,
		Message: strings.Join(reasons, "; "), Data: map[string]any{"paths": paths, "decision_id": decisionID}}); err != nil {
		return nil, err
	}
	if len(protected) == 0 {
		return nil, nil
	}
	g, err := tx.AddGate(records.Gate{Goal: goal, ScopeKind: "goal", RaisedBy: "loopx", Reason: "protected_path",
		Question: question, Adopt: adopt, Options: []string{"approve", "reject"}, Answerers: []string{"human"}})
	if err == nil && before != nil {
		err = tx.PutGateRules(g.ID, *before)
	}
	return &g, err
}

// RestoreByGate undoes, in tx, what a rejected protected-files gate g
// was raised for: the rules in effect when its round started (kept with
// the gate, kernel.Tx.GateRules) become the adopted rules again, and the
// files of loopx/ under root (disk: as read now) are written back to them,
// every file that differs whoever edited it (the answer's confirmation
// listed them: GateRestorePaths), with a rules.restored event by actor.
// It returns the rules restored, nil when g keeps none. Errors: the
// store's; the files' I/O errors (nothing is recorded then).
func RestoreByGate(tx *kernel.Tx, root string, g records.Gate, disk records.Rules, actor string) (*records.Rules, error) {
	before, ok, err := tx.GateRules(g.ID)
	if err != nil || !ok {
		return nil, err
	}
	if cur, ok, err := tx.Rules(); err != nil {
		return nil, err
	} else if !ok || !SameRules(&cur, &before) {
		if err := tx.PutRules(before); err != nil {
			return nil, err
		}
	}
	changed, err := WriteBack(root, disk, before)
	if err != nil {
		return nil, err
	}
	return &before, tx.AppendEvent(GateRestoredEvent(g, before, changed, actor))
}

// GateRestorePaths are the files of loopx/ (disk: as read now) a reject of
// gate id overwrites or removes (RestorePaths against the rules it
// keeps), [] when loopx/ holds them; ok is false when the gate keeps no
// rules to restore. Errors: the store's.
func GateRestorePaths(tx *kernel.Tx, id string, disk records.Rules) ([]string, bool, error) {
	before, ok, err := tx.GateRules(id)
	if err != nil || !ok {
		return nil, false, err
	}
	return RestorePaths(disk, before), true, nil
}
