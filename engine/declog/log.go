package declog

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/policies"
	"github.com/oklog/ulid/v2"
)

// Version is loopx's version, set at build time with
// -ldflags "-X github.com/loopx-dev/loopx/engine.Version=v1.2.3". The
// decision log records it as labels.version.
var Version = "dev"

// LogMaxBytes is the size at which decisions.jsonl is rotated.
const LogMaxBytes = 16 << 20

// LogKeep is how many rotated decision logs are kept (decisions.jsonl.1 …).
const LogKeep = 3

// Names beside the decision log (in .loopx/): the evaluated inputs and the
// bundles the logged decisions name, content-addressed.
const (
	// InputsDirName holds <hex>.json: a decision's whole input as the
	// policy evaluated it, named by the SHA-256 of its bytes.
	InputsDirName = "inputs"
	// BundlesDirName holds loopx/<hex>/ (the policy bundle: built-in and
	// user modules) and spec/<hex>/ (the exported spec at data.loopx.spec),
	// OPA bundle directories named by their revision's hex.
	BundlesDirName = "bundles"
	// InstanceFileName holds the project's decision-log id (labels.id).
	InstanceFileName = "instance-id"
)

// InputsMaxBytes bounds the stored inputs: when they grow past it, the
// oldest are removed (their lines stay; explain says the input is gone).
const InputsMaxBytes = 256 << 20

// inputsCheckEvery is how often (in bytes appended to the decision log) the
// inputs directory is measured against InputsMaxBytes.
const inputsCheckEvery = 256 << 10

// Bundle names of a decision-log line's bundles map.
const (
	// PolicyBundle is the policy bundle: the built-in modules and the
	// project's user policies (loopx/policies/*.rego, tests excluded).
	PolicyBundle = "loopx"
	// SpecBundle is the data bundle holding the exported spec at
	// data.loopx.spec.
	SpecBundle = "spec"
)

// erasedState is the JSON pointer of the input the log line leaves out: the
// kernel snapshot, kept in the stored input (custom.input).
const erasedState = "/input/state"

// LogEntry is one line of .loopx/decisions.jsonl, an OPA decision-log event
// (github.com/open-policy-agent/opa/v1/plugins/logs.EventV1: every line
// decodes as one, unknown fields refused):
//
//   - labels: {"id": the project's id (.loopx/instance-id), "version": loopx's version};
//   - decision_id: the decision's ULID;
//   - revision: the policy bundle's revision (OPA's legacy single-revision field);
//   - bundles: {"loopx": {"revision": policy hash}, "spec": {"revision": spec hash}};
//   - path: the query's entry rule ("loopx/run/decision");
//   - input: the request (query, now, goal, agent, health, permission), without
//     the kernel snapshot; erased says so: ["/input/state"];
//   - result: the entry rule's value exactly as the policy gave it;
//   - timestamp: when it was decided;
//   - custom: what loopx adds (LogCustom): the stored input's hash, the store
//     revision, the quota summary.
//
// `opa eval` of data.<path> with the two bundles and the stored input
// (.loopx/inputs/<hex>.json) gives result again (README: the decision log).
type LogEntry struct {
	Labels     map[string]string         `json:"labels"`
	DecisionID string                    `json:"decision_id"`
	Revision   string                    `json:"revision,omitempty"`
	Bundles    map[string]BundleRevision `json:"bundles,omitempty"`
	Path       string                    `json:"path"`
	Input      LogInput                  `json:"input"`
	// Result is the value of data.<Path> as the policy gave it (a decision
	// object: verdict, allow, reasons, todo, next_check_at, charge), or the
	// engine's fail-closed deny in the same shape when the policy could not
	// be evaluated (Custom.DecidedBy "loopx"). Decision turns it into the
	// decision loopx answered.
	Result json.RawMessage `json:"result"`
	// Erased lists the JSON pointers left out of the line: the kernel
	// snapshot, ["/input/state"].
	Erased    []string  `json:"erased,omitempty"`
	Timestamp time.Time `json:"timestamp"`
	Custom    LogCustom `json:"custom"`
	// Legacy is true for a line in loopx's earlier format (revision an
	// object, input_hash), read for explain and replay; it has no stored
	// input. Not written.
	Legacy bool `json:"-"`
}

// BundleRevision is a bundle's entry in a decision-log line (OPA's
// logs.BundleInfoV1).
type BundleRevision struct {
	// Revision is "sha256:<hex>": the policy hash (bundle "loopx") or the
	// spec hash (bundle "spec").
	Revision string `json:"revision,omitempty"`
}

// LogInput is the request part of a decision's input: Input without the
// kernel snapshot (input.state, in the stored input); every other field of
// Input is here (TestLogInput_IsInputWithoutState).
type LogInput struct {
	Query      string             `json:"query"`
	Now        string             `json:"now"`
	Goal       string             `json:"goal"`
	Agent      string             `json:"agent"`
	Health     Health             `json:"health"`
	Permission *PermissionRequest `json:"permission,omitempty"`
	// Claim and Answer are the requests of claim and gate_answer decisions.
	Claim  *ClaimFacts  `json:"claim,omitempty"`
	Answer *AnswerFacts `json:"answer,omitempty"`
}

// LogCustom is what a decision-log line adds to OPA's fields (the event's
// custom object).
type LogCustom struct {
	// Input is "sha256:<hex>" of the stored input, the whole input the
	// policy evaluated: .loopx/inputs/<hex>.json ("" for legacy lines).
	Input string `json:"input,omitempty"`
	// State is the store's global revision the decision saw
	// (input.state.revision).
	State uint64 `json:"state"`
	// Quota is the decision's quota summary (nil when none applies).
	Quota *QuotaSummary `json:"quota,omitempty"`
	// DecidedBy is "loopx" when the policy could not be evaluated (it did
	// not compile or failed) and result is loopx's fail-closed deny; ""
	// when result is the policy's value.
	DecidedBy string `json:"decided_by,omitempty"`
}

// Decision is the decision loopx answered for this line: the result
// interpreted as at decision time (verdict checked, allow, todo) with the
// id, request, quota and revisions added.
func (le *LogEntry) Decision() Decision {
	d := decisionFromValue(le.Result, le.Input.Query)
	d.DecisionID = le.DecisionID
	d.Query, d.Goal, d.Agent = le.Input.Query, le.Input.Goal, le.Input.Agent
	if d.Verdict != "run" {
		d.Todo = nil
	}
	d.Charge = d.Verdict == "run"
	d.Quota = le.Custom.Quota
	d.Revision = Revision{Spec: le.Bundles[SpecBundle].Revision, Policy: le.Bundles[PolicyBundle].Revision, State: le.Custom.State}
	if d.NextCheckAt != nil && *d.NextCheckAt == "" {
		d.NextCheckAt = nil
	}
	return d
}

// InputPath is the stored input's file (.loopx/inputs/<hex>.json) under
// stateDir, "" when the line names none.
func (le *LogEntry) InputPath(stateDir string) string {
	h, ok := strings.CutPrefix(le.Custom.Input, "sha256:")
	if !ok || !isHex64(h) {
		return ""
	}
	return filepath.Join(stateDir, InputsDirName, h+".json")
}

// BundlePath is the directory of bundle name ("loopx" or "spec") this line
// names under stateDir (.loopx/bundles/<name>/<hex>), "" when none.
func (le *LogEntry) BundlePath(stateDir, name string) string {
	h, ok := strings.CutPrefix(le.Bundles[name].Revision, "sha256:")
	if !ok || !isHex64(h) {
		return ""
	}
	return filepath.Join(stateDir, BundlesDirName, name, h)
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// LogPath is the decision log of the project.
func (e *Engine) LogPath() string { return filepath.Join(e.StateDir(), LogFileName) }

// logDecision appends d to the decision log as one JSON line (a single
// write, so concurrent writers do not interleave lines), rotating by size.
// The whole input is stored once under .loopx/inputs/<sha256>.json (not
// rewritten when that file exists), and the policy and spec bundles the
// line names under .loopx/bundles/.
func (e *Engine) logDecision(d Decision, in Input, now time.Time) error {
	if err := os.MkdirAll(e.StateDir(), 0o755); err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	inRaw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(inRaw)
	inHex := hex.EncodeToString(sum[:])
	if err := writeOnce(filepath.Join(e.StateDir(), InputsDirName, inHex+".json"), inRaw); err != nil {
		return fmt.Errorf("decision log: storing the input: %w", err)
	}
	bundles, err := e.storeBundles(d.Revision)
	if err != nil {
		return fmt.Errorf("decision log: storing the bundles: %w", err)
	}
	result, decidedBy := d.value, ""
	if result == nil {
		decidedBy = "loopx"
		if result, err = json.Marshal(outcomeOf(d)); err != nil {
			return err
		}
	}
	entry := LogEntry{
		Labels:     map[string]string{"id": e.instanceID(), "version": Version},
		DecisionID: d.DecisionID, Revision: d.Revision.Policy, Bundles: bundles,
		Path:   "loopx/" + policyArea(d.Query) + "/decision",
		Input:  LogInput{Query: in.Query, Now: in.Now, Goal: in.Goal, Agent: in.Agent, Health: in.Health, Permission: in.Permission, Claim: in.Claim, Answer: in.Answer},
		Result: result, Erased: []string{erasedState}, Timestamp: now,
		Custom: LogCustom{Input: "sha256:" + inHex, State: in.State.Revision, Quota: d.Quota, DecidedBy: decidedBy},
	}
	line, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	path := e.LogPath()
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
		if size+int64(len(line)) > LogMaxBytes {
			rotate(path)
			e.pruneStored(inHex)
			size = 0
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("decision log %s: %w", path, werr)
	}
	if size/inputsCheckEvery != (size+int64(len(line)))/inputsCheckEvery {
		pruneInputsBySize(filepath.Join(e.StateDir(), InputsDirName), InputsMaxBytes)
	}
	return nil
}

// outcome is the shape of a query's entry-rule value (the policy's part of
// a Decision).
type outcome struct {
	Verdict     string   `json:"verdict"`
	Allow       bool     `json:"allow"`
	Reasons     []Reason `json:"reasons"`
	Todo        *TodoRef `json:"todo"`
	NextCheckAt *string  `json:"next_check_at"`
	Charge      bool     `json:"charge"`
}

func outcomeOf(d Decision) outcome {
	return outcome{Verdict: d.Verdict, Allow: d.Allow, Reasons: d.Reasons, Todo: d.Todo, NextCheckAt: d.NextCheckAt, Charge: d.Charge}
}

// writeOnce writes data to path unless path exists (content-addressed
// files never change): a temp file beside it renamed into place, so a
// reader never sees a partial file.
func writeOnce(path string, data []byte) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

// storeBundles writes the policy and spec bundles rev names, once per
// revision (an engine checks each revision once), and returns the line's
// bundles map. A decision without a spec (a broken one) names no spec
// bundle.
func (e *Engine) storeBundles(rev Revision) (map[string]BundleRevision, error) {
	out := map[string]BundleRevision{PolicyBundle: {Revision: rev.Policy}}
	if err := e.storeBundle(PolicyBundle, rev.Policy, e.policyBundleFiles); err != nil {
		return nil, err
	}
	if e.spec != nil && rev.Spec != "" {
		out[SpecBundle] = BundleRevision{Revision: rev.Spec}
		if err := e.storeBundle(SpecBundle, rev.Spec, e.specBundleFiles); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// storeBundle writes bundle name at revision rev as an OPA bundle
// directory .loopx/bundles/<name>/<hex>/ (a .manifest with the revision and
// roots, and files), built into a temp directory and renamed into place.
func (e *Engine) storeBundle(name, rev string, files func(rev string) (map[string][]byte, error)) error {
	h, ok := strings.CutPrefix(rev, "sha256:")
	if !ok || !isHex64(h) {
		return fmt.Errorf("bundle %s: revision %q is not sha256:<hex>", name, rev)
	}
	if e.bundlesStored[name] == rev {
		return nil
	}
	dir := filepath.Join(e.StateDir(), BundlesDirName, name, h)
	if _, err := os.Lstat(filepath.Join(dir, ".manifest")); err == nil {
		e.markBundle(name, rev)
		return nil
	}
	contents, err := files(rev)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+h[:12]+".*.tmp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for p, b := range contents {
		fp := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(fp), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(fp, b, 0o644); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Lstat(filepath.Join(dir, ".manifest")); serr != nil {
			return err
		} // another process stored it first
	}
	e.markBundle(name, rev)
	return nil
}

func (e *Engine) markBundle(name, rev string) {
	if e.bundlesStored == nil {
		e.bundlesStored = map[string]string{}
	}
	e.bundlesStored[name] = rev
}

// bundleManifest is an OPA bundle's .manifest.
type bundleManifest struct {
	Revision    string   `json:"revision"`
	Roots       []string `json:"roots"`
	RegoVersion int      `json:"rego_version"`
}

// policyBundleFiles is the policy bundle at revision rev: every built-in
// module (all areas) and the user policies, under roots that leave
// loopx/spec to the spec bundle.
func (e *Engine) policyBundleFiles(rev string) (map[string][]byte, error) {
	user, err := e.UserModules()
	if err != nil {
		user = nil // the decision is a policy_error deny; the bundle holds the built-in modules
	}
	if policyHash(user) != rev {
		user = nil
	}
	out := map[string][]byte{}
	roots := map[string]bool{"loopx/user": true}
	for p, src := range policies.Modules() {
		out[p] = []byte(src)
		roots[path.Dir(p)] = true
	}
	for _, m := range user {
		if !m.Test {
			out[filepath.ToSlash(m.Path)] = []byte(m.Source)
		}
	}
	man, err := json.MarshalIndent(bundleManifest{Revision: rev, Roots: slices.Sorted(maps.Keys(roots)), RegoVersion: 1}, "", "  ")
	if err != nil {
		return nil, err
	}
	out[".manifest"] = append(man, '\n')
	return out, nil
}

// specBundleFiles is the spec bundle at revision rev: the exported spec as
// loopx/spec/data.json (data.loopx.spec).
func (e *Engine) specBundleFiles(rev string) (map[string][]byte, error) {
	if e.spec == nil || e.spec.Hash != rev {
		return nil, errors.New("the spec of revision " + rev + " is not loaded")
	}
	man, err := json.MarshalIndent(bundleManifest{Revision: rev, Roots: []string{"loopx/spec"}, RegoVersion: 1}, "", "  ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{".manifest": append(man, '\n'), "loopx/spec/data.json": e.spec.JSON}, nil
}

// instanceID is the project's decision-log id (labels.id): a ULID made once
// and kept in .loopx/instance-id, the same for every process of the
// project. A failure to keep it gives "unknown", never a failed decision.
func (e *Engine) instanceID() string {
	if e.instance != "" {
		return e.instance
	}
	p := filepath.Join(e.StateDir(), InstanceFileName)
	read := func() string {
		b, err := os.ReadFile(p)
		if id := strings.TrimSpace(string(b)); err == nil && len(id) == 26 {
			if _, err := ulid.ParseStrict(id); err == nil {
				return id
			}
		}
		return ""
	}
	if id := read(); id != "" {
		e.instance = id
		return id
	}
	// Made in a temp file and linked into place: a reader never sees a
	// partial id, and of two processes making it at once one link wins.
	id := ulid.MustNew(ulid.Timestamp(time.Now()), rand.Reader).String()
	tmp, err := os.CreateTemp(e.StateDir(), "."+InstanceFileName+".*.tmp")
	if err == nil {
		_, werr := tmp.WriteString(id + "\n")
		cerr := tmp.Close()
		if werr == nil && cerr == nil {
			err = os.Link(tmp.Name(), p)
		}
		os.Remove(tmp.Name())
		if err == nil {
			e.instance = id
			return id
		}
		if errors.Is(err, fs.ErrExist) {
			if id := read(); id != "" {
				e.instance = id
				return id
			}
		}
	}
	return "unknown"
}

func rotate(path string) {
	for i := LogKeep - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", path, i), fmt.Sprintf("%s.%d", path, i+1))
	}
	_ = os.Rename(path, path+".1")
}
