package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

const adoptBase = `agents: a1: {host: "shell", role: "executor"}
goals: g1: {
	objective: "Test adoption"
	agents: ["a1"]
	quota: {window: "24h", rounds: 3}
	scope: write: ["api/**"]
	gates: merge: {question: "Merge the v2 branch into main now?", guards: ["git.merge"]}
}
project: sandbox: mode: "off" // what loopx run's change check sees of an unconfined agent; the sandbox is tested in cmd/loopx (TestConfine)
`

// adoptedProject is a project whose first write adopted adoptBase.
func adoptedProject(t *testing.T) (string, *testproject.Clock) {
	t.Helper()
	e, c := newEngine(t, adoptBase)
	if _, err := e.Gates("g1", ""); err != nil { // a first write adopts
		t.Fatal(err)
	}
	e.Close()
	return e.Root(), c
}

// newAdopting is an engine over root as a command builds one: New, then
// AdoptTightening; closed when the test ends.
func newAdopting(t *testing.T, root string, c *testproject.Clock) *Engine {
	t.Helper()
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	t.Cleanup(func() { e.Close() })
	if err := e.AdoptTightening(); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAdopt_TightenIsAdoptedLoosenIsPending(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, from, to string
		pending        bool
		ref            string
	}{
		{"quota lowered", "rounds: 3", "rounds: 2", false, ""},
		{"gate added", "gates: merge:", "gates: deploy: {question: \"Deploy the v2 API now?\"}\n\tgates: merge:", false, ""},
		{"scope narrowed", `write: ["api/**"]`, `write: ["api/v2/**"]`, false, ""},
		{"policy deadline shortened", `agents: a1:`, "project: policy_deadline: \"1s\"\nagents: a1:", false, ""},
		{"quota raised", "rounds: 3", "rounds: 30", true, "goals.g1.quota.rounds"},
		{"gate removed", `gates: merge: {question: "Merge the v2 branch into main now?", guards: ["git.merge"]}`, "", true, "goals.g1.gates.merge"},
		{"scope widened", `write: ["api/**"]`, `write: ["**"]`, true, "goals.g1.scope.write"},
		{"scope emptied (anywhere)", `write: ["api/**"]`, `write: []`, true, "goals.g1.scope.write"},
		{"agent added", `agents: a1: {host: "shell", role: "executor"}`, "agents: a1: {host: \"shell\", role: \"executor\"}\nagents: a2: {host: \"shell\", role: \"executor\"}", true, "agents.a2"},
		{"policy deadline raised", `agents: a1:`, "project: policy_deadline: \"5s\"\nagents: a1:", true, "project.policy_deadline"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, c := adoptedProject(t)
			writeSpec(t, root, strings.Replace(adoptBase, tc.from, tc.to, 1))
			e := newAdopting(t, root, c)
			p := e.Pending()
			if (p != nil) != tc.pending {
				t.Fatalf("pending = %+v, want pending %v", p, tc.pending)
			}
			d := decide(t, e, "a1")
			has := false
			for _, r := range d.Reasons {
				has = has || r.Code == "rules_pending"
			}
			if has != tc.pending {
				t.Fatalf("rules_pending reason = %v, want %v: %+v", has, tc.pending, d.Reasons)
			}
			if !tc.pending {
				if d.Revision.Spec != e.rules.disk.Hash {
					t.Fatalf("decision revision %s, want the adopted disk %s", d.Revision.Spec, e.rules.disk.Hash)
				}
				return
			}
			if p.Loosens[0].Ref != tc.ref {
				t.Fatalf("loosens %+v, want ref %s", p.Loosens, tc.ref)
			}
			if d.Revision.Spec == e.rules.disk.Hash {
				t.Fatal("a pending decision evaluated the files on disk")
			}
		})
	}
}

func TestAdopt_PendingGateRemovalWritesNothingThenAdoptCancels(t *testing.T) {
	t.Parallel()
	root, c := adoptedProject(t)
	writeSpec(t, root, strings.Replace(adoptBase, `gates: merge: {question: "Merge the v2 branch into main now?", guards: ["git.merge"]}`, "", 1))
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	defer e.Close()
	gs, err := e.Gates("g1", "open") // a write: housekeeping runs on the adopted spec
	if err != nil || len(gs) != 1 {
		t.Fatalf("open gates %v, %v: want the merge gate still open", gs, err)
	}
	res, err := e.Adopt(context.Background(), adopt.Options{})
	if err != nil || !res.Changed || len(res.Loosens) == 0 {
		t.Fatalf("adopt = %+v, %v", res, err)
	}
	if gs, err := e.Gates("g1", "open"); err != nil || len(gs) != 0 {
		t.Fatalf("after adopt open gates %v, %v: want none", gs, err)
	}
	if e.Pending() != nil {
		t.Fatal("still pending after adopt")
	}
}

func TestAdopt_PolicyChangeIsPendingAndRestoreWritesBack(t *testing.T) {
	t.Parallel()
	root, c := adoptedProject(t)
	pol := filepath.Join(root, scaffold.SpecDirName, rulebook.DirName, "deny.rego")
	if err := os.MkdirAll(filepath.Dir(pol), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pol, []byte("package loopx.user.should_run\n\ndeny contains \"no\" if true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSpec(t, root, strings.Replace(adoptBase, "rounds: 3", "rounds: 1", 1))
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	defer e.Close()
	if p := e.Pending(); p == nil || p.Loosens[len(p.Loosens)-1].Code != "policy_changed" {
		t.Fatalf("pending = %+v, want policy_changed", p)
	}
	addTodos(t, e, "Write the guide")
	if d := decide(t, e, "a1"); d.Verdict != "run" {
		t.Fatalf("the unadopted deny policy was evaluated: %+v", d)
	}
	paths, err := e.Restore(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(paths, ",") != "loopx/loopx.cue,loopx/policies/deny.rego" {
		t.Fatalf("restored %v", paths)
	}
	b, _ := os.ReadFile(filepath.Join(root, scaffold.SpecDirName, "loopx.cue"))
	if string(b) != adoptBase {
		t.Fatalf("restored spec:\n%s", b)
	}
	if _, err := os.Stat(pol); !os.IsNotExist(err) {
		t.Fatalf("the unadopted policy is still there: %v", err)
	}
	e.Close()
	e2 := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	defer e2.Close()
	if e2.Pending() != nil {
		t.Fatal("pending after restore")
	}
	var r records.Rules
	if err := e2.view(func(tx *kernel.Tx) error { r, _, err = tx.Rules(); return err }); err != nil || r.By != "loopx" {
		t.Fatalf("rules %+v, %v", r, err)
	}
}

// mustAdopt adopts loopx/ as a human would after editing it (tests that
// edit policies or loosen the spec and mean the edit to take effect).
func mustAdopt(t *testing.T, e *Engine) {
	t.Helper()
	if _, err := e.Adopt(context.Background(), adopt.Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestAdopt_AdoptionGate: an agent command run by loopx run removes a spec
// gate; the "Keep these changes?" gate becomes the adoption gate and says
// what loosens. Rejecting it keeps the adopted rules and writes loopx/
// back to them (nothing pending after); approving adopts the revision it
// names.
func TestAdopt_AdoptionGate(t *testing.T) {
	t.Parallel()
	for _, option := range []string{"reject", "approve"} {
		t.Run(option, func(t *testing.T) {
			root, c := adoptedProject(t)
			loose := strings.Replace(adoptBase, "rounds: 3", "rounds: 30", 1)
			if err := os.WriteFile(filepath.Join(root, "loose.cue"), []byte(loose), 0o644); err != nil {
				t.Fatal(err)
			}
			e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
			defer e.Close()
			addTodos(t, e, "Write the guide")
			res, err := e.Run(context.Background(), runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1,
				Cmd: []string{"cp", "loose.cue", "loopx/loopx.cue"}, Stdout: io.Discard, Stderr: io.Discard})
			if err != nil || len(res.Receipts) != 1 {
				t.Fatalf("run: %+v %v", res, err)
			}
			g := res.Receipts[0].Gate
			if g == nil || g.Adopt == nil || !strings.Contains(g.Question, "goals.g1.quota.rounds: 3 → 30: loosens") {
				t.Fatalf("adoption gate %+v", g)
			}
			e.Close()
			h := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
			defer h.Close()
			if h.Pending() == nil {
				t.Fatal("the loosening edit took effect without a human")
			}
			if _, err := h.AnswerGate(gates.Answer{Gate: g.ID, Option: option, Actor: "human", Channel: TypedBack(g.ID)}); err != nil {
				t.Fatal(err)
			}
			h.Close()
			after := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
			defer after.Close()
			if p := after.Pending(); p != nil {
				t.Fatalf("%s: pending %+v, want loopx/ restored (reject) or adopted (approve)", option, p)
			}
			b, err := os.ReadFile(filepath.Join(root, scaffold.SpecDirName, "loopx.cue"))
			if err != nil {
				t.Fatal(err)
			}
			if got, loosened := string(b), string(b) == loose; loosened != (option == "approve") {
				t.Fatalf("%s: loopx/loopx.cue is %q", option, got)
			}
		})
	}
}

// TestAdopt_InitAdoptsSoAnEditBeforeTheFirstWriteIsPending: init adopts
// loopx/ as it leaves it, stamped with the clock it is given; an edit made
// before any other command is judged against that revision.
func TestAdopt_InitAdoptsSoAnEditBeforeTheFirstWriteIsPending(t *testing.T) {
	t.Parallel()
	c := testproject.NewClock()
	dir := t.TempDir()
	if _, err := Init(scaffold.Options{Dir: dir, Goal: "g1", Objective: "Test adoption", Agent: "a1", Now: c.Now}); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, scaffold.SpecDirName, "loopx.cue")
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	raised := strings.Replace(string(b), "rounds:       24 ", "rounds:       1000 ", 1)
	if raised == string(b) {
		t.Fatal("the scaffold has no rounds: 24 to raise")
	}
	if err := os.WriteFile(spec, []byte(raised), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(Options{Root: dir, StateHome: stateHome(dir), Now: c.Now})
	defer e.Close()
	if p := e.Pending(); p == nil || p.Loosens[0].Ref != "goals.g1.quota.rounds" {
		t.Fatalf("pending = %+v, want the raised quota", p)
	}
	if lim := e.rules.facts().GoalSpec("g1").Quota.Rounds; lim == nil || *lim != 24 {
		t.Fatalf("rounds limit in effect %v, want the adopted 24", lim)
	}
	var r records.Rules
	if err := e.view(func(tx *kernel.Tx) error { r, _, err = tx.Rules(); return err }); err != nil {
		t.Fatal(err)
	}
	if r.By != "loopx" || !r.AdoptedAt.Equal(c.Now()) {
		t.Fatalf("adopted by %q at %v, want loopx at the given clock %v", r.By, r.AdoptedAt, c.Now())
	}
}

// TestAdopt_RevisionChangedWhileConfirming: the human confirms the
// revision they were shown; an edit made while the prompt waited is not
// adopted (rules_changed), and nor is one made after the engine read
// loopx/.
func TestAdopt_RevisionChangedWhileConfirming(t *testing.T) {
	t.Parallel()
	root, c := adoptedProject(t)
	writeSpec(t, root, strings.Replace(adoptBase, "rounds: 3", "rounds: 30", 1))
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	defer e.Close()
	shown, err := e.AdoptPreview()
	if err != nil || !shown.Changed || len(shown.Loosens) == 0 {
		t.Fatalf("preview = %+v, %v", shown, err)
	}
	// meanwhile an agent widens the scope too
	writeSpec(t, root, strings.Replace(strings.Replace(adoptBase, "rounds: 3", "rounds: 30", 1), `write: ["api/**"]`, `write: ["**"]`, 1))
	_, err = e.Adopt(context.Background(), adopt.Options{Expect: &shown.Adopted})
	var re *errs.Error
	if !(errs.IsKind(err, errs.No) && errors.As(err, &re)) || re.Code != "rules_changed" {
		t.Fatalf("adopt after a change = %v, want rules_changed", err)
	}
	e.Close()
	e2 := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	defer e2.Close()
	if p := e2.Pending(); p == nil || len(p.Loosens) != 2 {
		t.Fatalf("pending = %+v, want both loosenings still pending", p)
	}
	// a policy written after this engine read loopx/: not adopted either
	pol := filepath.Join(root, scaffold.SpecDirName, rulebook.DirName, "allow.rego")
	if err := os.MkdirAll(filepath.Dir(pol), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pol, []byte("package loopx.user.should_run\n\nwarn contains \"hi\" if true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e2.Adopt(context.Background(), adopt.Options{}); !errors.As(err, &re) || re.Code != "rules_changed" {
		t.Fatalf("adopt of a policy added after New = %v, want rules_changed", err)
	}
}

// TestAdopt_DecideAdopt: the built-in rule decides the channel and the
// typed confirmation; no user policy takes part.
func TestAdopt_DecideAdopt(t *testing.T) {
	t.Parallel()
	root, c := adoptedProject(t)
	pol := filepath.Join(root, scaffold.SpecDirName, rulebook.DirName, "broken.rego")
	if err := os.MkdirAll(filepath.Dir(pol), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pol, []byte("package loopx.user.gate_answer\n\ndeny contains x if { x := not_defined_anywhere }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	defer e.Close()
	word, other := "adopt", "yes"
	cases := []struct {
		name string
		ch   input.Channel
		code string // "" = allow
	}{
		{"typed adopt", input.Channel{Kind: "terminal", TTY: true, Typed: &word}, ""},
		{"not asked yet", input.Channel{Kind: "terminal", TTY: true}, "confirmation_pending"},
		{"no terminal", input.Channel{Kind: "terminal"}, "confirmation_required"},
		{"typed something else", input.Channel{Kind: "terminal", TTY: true, Typed: &other}, "confirmation_mismatch"},
		{"agent", input.Channel{Kind: "agent", TTY: true, Typed: &word}, "bad_channel"},
		{"in a round", input.Channel{Kind: "terminal", TTY: true, InRound: true, Typed: &word}, "self_answer_forbidden"},
		{"agent's descendant", input.Channel{Kind: "terminal", TTY: true, AgentAncestor: "process 7 runs as agent a1", Typed: &word}, "self_answer_forbidden"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := e.DecideAdopt(context.Background(), tc.ch, false)
			if tc.code == "" {
				if !d.Allow {
					t.Fatalf("denied: %+v", d.Reasons)
				}
				return
			}
			if d.Allow || len(d.Reasons) == 0 || d.Reasons[0].Code != tc.code {
				t.Fatalf("decision %+v, want deny %s", d, tc.code)
			}
		})
	}
}

// TestAdopt_SpecOnDiskError: a spec on disk that does not load leaves the
// adopted revision in effect (decisions carry rules_pending naming the
// file:line:col); vet and check (OnDisk) see the error; with nothing
// adopted decisions fail closed.
func TestAdopt_SpecOnDiskError(t *testing.T) {
	t.Parallel()
	broken := strings.Replace(adoptBase, "rounds: 3", `rounds: "lots"`, 1)
	cases := []struct {
		name     string
		adopted  bool
		onDisk   bool
		wantSpec bool // the adopted spec in effect (else the spec error)
	}{
		{"adopted revision", true, false, true},
		{"vet and check read the files", true, true, false},
		{"nothing adopted", false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, c := t.TempDir(), testproject.NewClock()
			if tc.adopted {
				root, c = adoptedProject(t)
			}
			writeSpec(t, root, broken)
			e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now, OnDisk: tc.onDisk})
			defer e.Close()
			if got := e.SpecErr() == nil; got != tc.wantSpec {
				t.Fatalf("spec usable = %v (err %v), want %v", got, e.SpecErr(), tc.wantSpec)
			}
			if _, err := e.DiskSpec(); err == nil {
				t.Fatal("the broken disk spec loaded")
			}
			if !tc.wantSpec {
				if e.Pending() != nil {
					t.Fatalf("pending = %+v, want none", e.Pending())
				}
				return
			}
			p := e.Pending()
			if p == nil || !strings.HasPrefix(p.DiskError, "loopx/loopx.cue:5:") || len(p.Loosens) != 0 {
				t.Fatalf("pending = %+v, want the disk error at loopx/loopx.cue:5", p)
			}
			d := decide(t, e, "a1")
			var msg string
			for _, r := range d.Reasons {
				if r.Code == "rules_pending" {
					msg = r.Message
				}
			}
			if !strings.Contains(msg, "do not load (loopx/loopx.cue:5:") {
				t.Fatalf("reasons %+v: want rules_pending naming loopx/loopx.cue:5", d.Reasons)
			}
			if d.Quota == nil || d.Quota.Rounds.Limit == nil || *d.Quota.Rounds.Limit != 3 {
				t.Fatalf("quota %+v: want the adopted 3 rounds", d.Quota)
			}
			if _, err := e.Adopt(context.Background(), adopt.Options{}); err == nil {
				t.Fatal("a spec that does not load was adopted")
			}
		})
	}
}

// TestAdopt_PolicyTestsAreInTheRevision: a _test.rego under
// loopx/policies is kept and hashed with the policies: changing or adding
// one is pending, the adopted one is never compiled into decisions, and
// Restore writes it back.
func TestAdopt_PolicyTestsAreInTheRevision(t *testing.T) {
	t.Parallel()
	root, c := t.TempDir(), testproject.NewClock()
	writeSpec(t, root, adoptBase)
	dir := filepath.Join(root, scaffold.SpecDirName, rulebook.DirName)
	const test = "package loopx.user.should_run_test\n\ntest_nothing if true\n"
	for name, src := range map[string]string{
		"warn.rego":      "package loopx.user.should_run\n\nwarn contains \"careful\" if true\n",
		"warn_test.rego": test,
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	addTodos(t, e, "Write the guide") // the first write adopts
	e.Close()

	for _, edit := range []struct{ name, file string }{
		{"a test changed", "warn_test.rego"},
		{"a test added", "more_test.rego"},
	} {
		t.Run(edit.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, edit.file), []byte(test+"\ntest_more if true\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
			defer e.Close()
			p := e.Pending()
			if p == nil || len(p.Loosens) != 1 || p.Loosens[0].Code != "policy_changed" || !strings.Contains(p.Loosens[0].Message, "loopx/policies/"+edit.file) {
				t.Fatalf("pending = %+v, want policy_changed naming %s", p, edit.file)
			}
			if d := decide(t, e, "a1"); d.Verdict != "run" || !d.HasReason("user_warning") || !d.HasReason("rules_pending") {
				t.Fatalf("decision %+v: want run with the adopted warn policy and rules_pending", d)
			}
			paths, err := e.Restore(nil, false)
			if err != nil || len(paths) != 1 || paths[0] != "loopx/policies/"+edit.file {
				t.Fatalf("restored %v, %v", paths, err)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "warn_test.rego")); err != nil || string(b) != test {
				t.Fatalf("warn_test.rego after restore: %q, %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "more_test.rego")); !os.IsNotExist(err) {
				t.Fatalf("the added test is still there: %v", err)
			}
		})
	}
}

// TestAdopt_RulesEventsInEveryReview: adoptions and refused adoptions are
// project-wide events; every goal's review shows them.
func TestAdopt_RulesEventsInEveryReview(t *testing.T) {
	t.Parallel()
	root, c := adoptedProject(t)
	writeSpec(t, root, strings.Replace(adoptBase, "rounds: 3", "rounds: 2", 1)) // tightens: adopted
	e := newAdopting(t, root, c)
	e.AuditRefusal("rules.restore_refused", "loopx adopt --restore", "agent:a1", scaffold.SpecDirName+"/", refused("self_answer_forbidden", "not a human", nil))
	rv, err := e.Review(reportdata.ReviewOptions{Goal: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, ev := range rv.Events {
		kinds[ev.Kind] = true
	}
	if !kinds["rules.adopted"] || !kinds["rules.restore_refused"] {
		t.Fatalf("review events %v: want rules.adopted and rules.restore_refused", kinds)
	}
}
