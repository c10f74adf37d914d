package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/plugins/logs"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/util"
)

// logLines returns the lines of e's current decision log.
func logLines(t *testing.T, e *Engine) [][]byte {
	t.Helper()
	b, err := os.ReadFile(e.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		out = append(out, slices.Clone(sc.Bytes()))
	}
	return out
}

// decodeEvent decodes line as OPA's own decision-log event type, refusing
// unknown fields and trailing data.
func decodeEvent(t *testing.T, line []byte) logs.EventV1 {
	t.Helper()
	var ev logs.EventV1
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("line does not decode as logs.EventV1: %v\n%s", err, line)
	}
	if dec.More() {
		t.Fatalf("trailing data after the event:\n%s", line)
	}
	return ev
}

var sha256Rev = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// checkEvents decodes every line of e's decision log as logs.EventV1 and
// checks the fields loopx promises (docs/decisions.md: the decision log), then
// evaluates each logged path with OPA's rego package on the stored bundles
// and input, as `opa eval` would, and requires the logged result. It
// returns the events.
func checkEvents(t *testing.T, e *Engine) []logs.EventV1 {
	t.Helper()
	var evs []logs.EventV1
	for _, line := range logLines(t, e) {
		ev := decodeEvent(t, line)
		evs = append(evs, ev)
		if !regexp.MustCompile(`^[0-9A-Z]{26}$`).MatchString(ev.DecisionID) || ev.Timestamp.IsZero() {
			t.Errorf("decision_id %q, timestamp %v", ev.DecisionID, ev.Timestamp)
		}
		if !regexp.MustCompile(`^[0-9A-Z]{26}$`).MatchString(ev.Labels["id"]) || ev.Labels["version"] != Version || len(ev.Labels) != 2 {
			t.Errorf("labels = %v, want {id: a ULID, version: %s}", ev.Labels, Version)
		}
		if p := ev.Bundles[decisionlog.PolicyBundle].Revision; !sha256Rev.MatchString(p) || ev.Revision != p {
			t.Errorf("bundles.loopx.revision %q, revision %q", p, ev.Revision)
		}
		if s, ok := ev.Bundles[decisionlog.SpecBundle]; ok != (e.rules.spec != nil) || ok && !sha256Rev.MatchString(s.Revision) {
			t.Errorf("bundles.spec = %+v (spec loaded: %v)", s, e.rules.spec != nil)
		}
		if !slices.Equal(ev.Erased, []string{"/input/state"}) || ev.Input == nil || ev.Result == nil {
			t.Fatalf("erased %v, input %v, result %v", ev.Erased, ev.Input, ev.Result)
		}
		if _, has := (*ev.Input).(map[string]any)["state"]; has {
			t.Errorf("the line's input keeps the erased state")
		}
		in, _ := ev.Custom["input"].(string)
		if !sha256Rev.MatchString(in) {
			t.Fatalf("custom.input = %v", ev.Custom["input"])
		}
		stored, err := os.ReadFile(filepath.Join(e.StateDir(), decisionlog.InputsDirName, strings.TrimPrefix(in, "sha256:")+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256Hex(stored); "sha256:"+got != in {
			t.Errorf("stored input hashes to %s, the line says %s", got, in)
		}
		// The line's input is the stored input without /input/state.
		var whole map[string]any
		if err := json.Unmarshal(stored, &whole); err != nil {
			t.Fatal(err)
		}
		if whole["state"] == nil {
			t.Errorf("the stored input has no state")
		}
		delete(whole, "state")
		if !reflect.DeepEqual(jsonRoundTrip(t, whole), jsonRoundTrip(t, *ev.Input)) {
			t.Errorf("line input %v is not the stored input minus /input/state %v", *ev.Input, whole)
		}
		if ev.Custom["decided_by"] == "loopx" {
			continue // the policy could not be evaluated: nothing to reproduce
		}
		got := evalStored(t, e, ev, stored)
		if !reflect.DeepEqual(got, jsonRoundTrip(t, *ev.Result)) {
			t.Errorf("decision %s: data.%s on the stored input = %v, logged result %v", ev.DecisionID, ev.Path, got, *ev.Result)
		}
	}
	return evs
}

// evalStored evaluates data.<path> with OPA's rego package on the bundles
// the event names (as `opa eval -b … -b … -i …` does) and returns the value.
func evalStored(t *testing.T, e *Engine, ev logs.EventV1, stored []byte) any {
	t.Helper()
	le, ok := decision.ParseLine(mustJSON(t, ev))
	if !ok {
		t.Fatalf("ParseLogLine refuses the event %s", ev.DecisionID)
	}
	opts := []func(*rego.Rego){rego.Query("data." + strings.ReplaceAll(ev.Path, "/", "."))}
	for _, name := range []string{decisionlog.PolicyBundle, decisionlog.SpecBundle} {
		if p := le.BundlePath(e.StateDir(), name); p != "" {
			opts = append(opts, rego.LoadBundle(p))
		}
	}
	var input any
	if err := util.UnmarshalJSON(stored, &input); err != nil {
		t.Fatal(err)
	}
	opts = append(opts, rego.Input(input))
	rs, err := rego.New(opts...).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("eval data.%s: %v (%d results)", ev.Path, err, len(rs))
	}
	return jsonRoundTrip(t, rs[0].Expressions[0].Value)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonRoundTrip(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal(mustJSON(t, v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDecisionLog_OPAEventsReproduceUnderOPAEval: should_run, claim and
// permission decisions of every verdict (and a user policy's deny) are logged as lines
// that decode as OPA's logs.EventV1 with unknown fields refused, and
// evaluating each logged path on the stored bundles and input with OPA's
// rego package gives the logged result exactly.
func TestDecisionLog_OPAEventsReproduceUnderOPAEval(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	todo := addTodos(t, e, "Write the migration guide", "Tag the release")[0]
	want := []string{decide(t, e, "a1").Verdict, decide(t, e, "nobody").Verdict}
	// Claims: a1 takes the todo (allow), a2 may not take it from a1 (deny).
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: todo.ID, Agent: "a1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: todo.ID, Agent: "a2"}); err == nil {
		t.Fatal("a2 took a1's live lease")
	}
	want = append(want, "allow", "deny")
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Merge the v2 branch into main now?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, decide(t, e, "a1").Verdict)
	if _, err := e.AnswerGate(gates.Answer{Gate: g.ID, Option: "approve", Actor: "human", Channel: TypedBack(g.ID)}); err != nil {
		t.Fatal(err)
	}
	want = append(want, "allow") // the gate_answer decision
	// A user policy's deny is part of the policy bundle.
	if err := os.MkdirAll(filepath.Join(e.Root(), scaffold.SpecDirName, rulebook.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	freeze := "package loopx.user.should_run\n\ndeny contains {\"code\": \"release_freeze\", \"message\": \"release freeze\"} if input.agent == \"a2\"\n"
	if err := os.WriteFile(filepath.Join(e.Root(), scaffold.SpecDirName, rulebook.DirName, "freeze.rego"), []byte(freeze), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Release()
	u := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	defer u.Close()
	mustAdopt(t, u)
	u.Release()
	d, err := u.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: "a2"})
	if err != nil || !d.HasReason("release_freeze") {
		t.Fatalf("user deny: %v %+v", err, d)
	}
	want = append(want, d.Verdict)
	u.Release()
	if _, err := e.SetGoalStatus("g1", "paused", "release", "human"); err != nil {
		t.Fatal(err)
	}
	want = append(want, decide(t, e, "a1").Verdict)

	p, _ := newEngine(t, permGateSpec+"goals: g1: scope: grant: commands: [\"go test*\"]\n")
	for _, in := range []toolcall.Call{
		{Tool: "Bash", Command: "go test ./..."},
		{Tool: "Edit", Paths: []string{"api/v2/handlers.go"}},
		{Tool: "Bash", Command: "npm publish"},
		{Tool: "Bash", Command: "git push origin main"}, // the gate guards it
		{Tool: "Write", Paths: []string{"loopx/loopx.cue"}},
	} {
		want = append(want, permission(t, p, "claude", in).Verdict)
	}
	if !slices.Equal(want, []string{"run", "deny", "allow", "deny", "wait_human", "allow", "deny", "skip", "allow", "defer", "ask", "deny", "deny"}) {
		t.Fatalf("verdicts %v: the scenario no longer covers every verdict", want)
	}
	var got []string
	for _, eng := range []*Engine{e, p} {
		for _, ev := range checkEvents(t, eng) {
			got = append(got, (*ev.Result).(map[string]any)["verdict"].(string))
			if wantPath := map[string]string{"should_run": "loopx/run/decision", "permission": "loopx/permission/decision", "gate_answer": "loopx/gate/decision", "claim": "loopx/claim/decision"}[(*ev.Input).(map[string]any)["query"].(string)]; ev.Path != wantPath {
				t.Errorf("path %q, want %q", ev.Path, wantPath)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("logged verdicts %v, want %v", got, want)
	}
}

// TestDecisionLog_FailClosedIsLoggedAsLoopxDecision: a user policy that
// does not compile makes a policy_error deny that no policy gave; the line
// still decodes as an OPA event, says decided_by "loopx", and reads back as
// the deny loopx answered.
func TestDecisionLog_FailClosedIsLoggedAsLoopxDecision(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	if err := os.MkdirAll(filepath.Join(e.Root(), scaffold.SpecDirName, rulebook.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Root(), scaffold.SpecDirName, rulebook.DirName, "bad.rego"), []byte("package loopx.user.should_run\n\ndeny contains x if { x := }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Release()
	b := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: testproject.NewClock().Now})
	defer b.Close()
	mustAdopt(t, b)
	d, _ := b.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
	if d.Verdict != "deny" || !d.HasReason("policy_error") {
		t.Fatalf("broken user policy: %s %+v", d.Verdict, d.Reasons)
	}
	evs := checkEvents(t, b)
	if len(evs) != 1 || evs[0].Custom["decided_by"] != "loopx" {
		t.Fatalf("custom = %v", evs[0].Custom)
	}
	le, err := b.FindDecision(d.DecisionID)
	if err != nil {
		t.Fatal(err)
	}
	if got := decision.Logged(le); !reflect.DeepEqual(got.Reasons, d.Reasons) || got.Verdict != "deny" || got.Revision != d.Revision {
		t.Fatalf("read back %+v, decided %+v", got, d)
	}
}

// TestDecisionLog_LineSizeDoesNotGrowWithTodos: the kernel snapshot goes to
// the stored input, so a line at 1,000 todos is as long as one at 10 (up
// to the digits of the selected todo's title); the stored input holds the
// todos the decision read — at 1,000 todos a window of the claim order,
// even with no read model — so it does not grow either.
//
// Not parallel: its decision at 1,000 todos runs under the spec's policy
// deadline (2 s), which a busy machine's parallel tests can push it past.
func TestDecisionLog_LineSizeDoesNotGrowWithTodos(t *testing.T) {
	size := func(todos int) (line, stored int) {
		root := benchProject(t, todos, 0)
		e := New(Options{Root: root, StateHome: stateHome(root), Now: testproject.NewClock().Now})
		defer e.Close()
		d, err := e.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
		if err != nil || d.Verdict != "run" {
			t.Fatalf("%d todos: %v %+v", todos, err, d)
		}
		lines := logLines(t, e)
		le, ok := decision.ParseLine(lines[0])
		if len(lines) != 1 || !ok {
			t.Fatalf("%d lines", len(lines))
		}
		fi, err := os.Stat(le.InputPath(e.StateDir()))
		if err != nil {
			t.Fatal(err)
		}
		return len(lines[0]), int(fi.Size())
	}
	l10, s10 := size(10)
	l1000, s1000 := size(1000)
	t.Logf("line %d / %d bytes, stored input %d / %d bytes at 10 / 1,000 todos", l10, l1000, s10, s1000)
	if d := l1000 - l10; d < -16 || d > 16 {
		t.Errorf("line at 10 todos: %d bytes, at 1,000: %d bytes", l10, l1000)
	}
	if s10 < 2*l10 || s1000 < 2*l1000 {
		t.Errorf("stored input at 10 todos %d bytes, at 1,000 %d (lines %d, %d): the snapshot is not in it", s10, s1000, l10, l1000)
	}
	if s1000 > 2*s10 {
		t.Errorf("stored input at 10 todos %d bytes, at 1,000 %d: the decision read every todo", s10, s1000)
	}
}

// TestDecisionLog_InputStoredOnce: the same input (same instant, same
// state) is stored once; a new instant stores a new input; the bundles are
// stored once per revision.
func TestDecisionLog_InputStoredOnce(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a")
	decide(t, e, "a1")
	decide(t, e, "a1")
	count := func(dir string) int {
		ents, _ := os.ReadDir(filepath.Join(e.StateDir(), dir))
		return len(ents)
	}
	if n := count(decisionlog.InputsDirName); n != 1 {
		t.Fatalf("two identical decisions stored %d inputs", n)
	}
	c.Advance(time.Second)
	decide(t, e, "a1")
	if n := count(decisionlog.InputsDirName); n != 2 {
		t.Fatalf("a new instant stored %d inputs in all, want 2", n)
	}
	if p, s := count(filepath.Join(decisionlog.BundlesDirName, decisionlog.PolicyBundle)), count(filepath.Join(decisionlog.BundlesDirName, decisionlog.SpecBundle)); p != 1 || s != 1 {
		t.Fatalf("bundles stored: %d policy, %d spec", p, s)
	}
	// Another process (a new engine, once e released the store and wrote
	// the read model) agrees on labels.id.
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	f := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	decide(t, f, "a1")
	f.Close()
	lines := logLines(t, e)
	first, last := decodeEvent(t, lines[0]), decodeEvent(t, lines[len(lines)-1])
	if first.Labels["id"] != last.Labels["id"] || len(first.Labels["id"]) != 26 {
		t.Fatalf("labels.id %q vs %q", first.Labels["id"], last.Labels["id"])
	}
}

// TestDecisionLog_RotationPrunesStoredInputs: after a rotation drops the
// oldest log, the inputs and bundles no remaining line names are removed;
// those named (and the one being logged) stay. (decisionlog's
// TestPruneInputsBySize holds the size bound of the stored inputs.)
func TestDecisionLog_RotationPrunesStoredInputs(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a")
	first := decide(t, e, "a1")
	le, _ := e.FindDecision(first.DecisionID)
	firstInput := le.InputPath(e.StateDir())
	// A stray bundle of an old revision no line names.
	stray := filepath.Join(e.StateDir(), decisionlog.BundlesDirName, decisionlog.PolicyBundle, strings.Repeat("ab", 32))
	if err := os.MkdirAll(stray, 0o755); err != nil {
		t.Fatal(err)
	}
	// Rotate decisionlog.Keep+1 times: the first decision's file is dropped.
	for i := 0; i <= decisionlog.Keep; i++ {
		pad, err := os.OpenFile(e.LogPath(), os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := pad.Stat()
		if err := pad.Truncate(decisionlog.MaxBytes - 10); err != nil || fi.Size() > decisionlog.MaxBytes {
			t.Fatal(err)
		}
		pad.Close()
		c.Advance(time.Second)
		decide(t, e, "a1")
	}
	if _, err := e.FindDecision(first.DecisionID); err == nil {
		t.Fatal("the first decision survived decisionlog.Keep+1 rotations")
	}
	if _, err := os.Stat(firstInput); err == nil {
		t.Errorf("the dropped decision's input %s is still stored", firstInput)
	}
	if _, err := os.Stat(stray); err == nil {
		t.Errorf("an unnamed bundle survived the rotation")
	}
	entries, _, err := e.ReadLog(decision.LogFilter{})
	if err != nil || len(entries) == 0 {
		t.Fatalf("ReadLog: %d, %v", len(entries), err)
	}
	for _, le := range entries {
		for _, p := range []string{le.InputPath(e.StateDir()), le.BundlePath(e.StateDir(), decisionlog.PolicyBundle), le.BundlePath(e.StateDir(), decisionlog.SpecBundle)} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("decision %s: %v", le.DecisionID, err)
			}
		}
	}

}

// TestDecisionLog_LegacyLinesAreRead: a line of loopx's earlier format
// (revision an object, input_hash, the whole decision as result) is read
// by log, explain and replay, marked Legacy, without a stored input.
func TestDecisionLog_LegacyLinesAreRead(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	legacy := `{"decision_id":"01M8S0C43MDWYWDK41R4VN89Q3","path":"loopx/run/decision","input":{"query":"should_run","now":"2026-11-29T09:00:00Z","goal":"g1","agent":"a1","health":{"store":"","spec":"","policy":""},"state":{"revision":1,"goal_revision":1,"goal":{"id":"","in_spec":false,"status":"","reason":""},"agent":{"id":"","known":false,"on_goal":false,"role":"","mode":""},"gates":null,"todos":null,"quota":{"window_start":"","rounds":0,"rounds_in_flight":0,"tokens":0,"cost_usd":0,"compute_seconds":0,"compute_limit_seconds":0,"resets_at":"","last_round_at":"","next_round_at":"","min_interval_elapsed":false},"progress":{"consecutive_no_progress":0,"last_outcome":"","last_todo":"","changed_since_last":false}}},"input_hash":"sha256:6847fb4e94df73f498f11f7e46803e3eeadfbccba0d192c3d0b2cc0068e75615","result":{"decision_id":"01M8S0C43MDWYWDK41R4VN89Q3","query":"should_run","verdict":"wait_human","allow":false,"reasons":[{"code":"gate_open","message":"gate g-1 is open","rule":"data.loopx.run.gates","ref":"gate g-1"}],"goal":"g1","agent":"a1","todo":null,"quota":null,"next_check_at":null,"charge":false,"revision":{"spec":"sha256:beba","policy":"sha256:09ae","state":1}},"timestamp":"2026-11-29T09:00:00Z","revision":{"spec":"sha256:beba","policy":"sha256:09ae","state":1}}`
	if err := os.MkdirAll(e.StateDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.LogPath(), []byte(legacy+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, skipped, err := e.ReadLog(decision.LogFilter{Verdict: "wait_human"})
	if err != nil || skipped != 0 || len(entries) != 1 || !entries[0].Legacy {
		t.Fatalf("ReadLog: %d entries, %d skipped, %v", len(entries), skipped, err)
	}
	if d := decision.Logged(entries[0]); d.Agent != "a1" || d.Revision.State != 1 || d.Revision.Policy != "sha256:09ae" || d.Reasons[0].Code != "gate_open" {
		t.Fatalf("legacy decision %+v", d)
	}
	x, err := e.Explain(context.Background(), "01M8S0C43MDWYWDK41R4VN89Q3")
	if err != nil || x.StoredInputState != "none" || x.Then.Verdict != "wait_human" || x.Rerun.Verdict != "run" {
		t.Fatalf("explain: %v, stored %q, then %s, now %s", err, x.StoredInputState, x.Then.Verdict, x.Rerun.Verdict)
	}
	// a line from before stored inputs is not replayable, never
	// re-decided over today's state; --against-now re-decides it now
	rep, err := e.Replay(context.Background(), time.Time{}, false)
	if err != nil || rep.Decisions != 0 || rep.NotReplayable != 1 || len(rep.Changed) != 0 {
		t.Fatalf("replay: %+v, %v", rep, err)
	}
	rep, err = e.Replay(context.Background(), time.Time{}, true)
	if err != nil || rep.Decisions != 1 || len(rep.Changed) != 1 || rep.Changed[0].Old != "wait_human" {
		t.Fatalf("replay against now: %+v, %v", rep, err)
	}
}

// TestInputValue_IsTheStoredInput: the value the policy evaluates (built
// directly for the todos) is the stored JSON input parsed the way opa eval
// reads it, for empty and filled lists alike.
func TestInputValue_IsTheStoredInput(t *testing.T) {
	t.Parallel()
	for _, todos := range [][]input.TodoFacts{
		nil,
		{{ID: "t-1"}},
		{{ID: "t-2", DepsOpen: []string{"t-1"}, Labels: []string{"review"}, Lease: &input.LeaseFacts{Holder: "a1", Live: true, Version: 3, Epoch: 1 << 62}}},
	} {
		in := input.Input{Query: "should_run", State: input.Snapshot{Todos: todos}}
		iv, err := input.Value(in)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := util.UnmarshalJSON(mustJSON(t, in), &doc); err != nil {
			t.Fatal(err)
		}
		want, err := ast.InterfaceToValue(doc)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Compare(want) != 0 {
			t.Errorf("todos %+v:\nevaluated %v\nstored    %v", todos, iv, want)
		}
	}
}

func sha256Hex(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestExplain_StoredInputStates: explain names the stored input and the
// opa eval command while the file is the one the line names; a changed
// file is "altered" and a removed one "pruned", both without a command;
// a line whose path is not its query's entry rule gets no command either
// (the command is for pasting into a shell).
func TestExplain_StoredInputStates(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	d := decide(t, e, "a1")
	x, err := e.Explain(context.Background(), d.DecisionID)
	want := "opa eval -f raw -b .loopx/bundles/loopx/" + strings.TrimPrefix(d.Revision.Policy, "sha256:") +
		" -b .loopx/bundles/spec/" + strings.TrimPrefix(d.Revision.Spec, "sha256:") + " -i " + x.StoredInput + " data.loopx.run.decision"
	if err != nil || x.StoredInputState != "stored" || x.OPAEval != want {
		t.Fatalf("stored: %v, %q, %q\nwant %q", err, x.StoredInputState, x.OPAEval, want)
	}
	le, _ := e.FindDecision(d.DecisionID)
	p := le.InputPath(e.StateDir())
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.Replace(b, []byte(`"status":"open"`), []byte(`"status":"done"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if x, _ := e.Explain(context.Background(), d.DecisionID); x.StoredInputState != "altered" || x.OPAEval != "" {
		t.Fatalf("altered: %q, %q", x.StoredInputState, x.OPAEval)
	}
	os.Remove(p)
	if x, _ := e.Explain(context.Background(), d.DecisionID); x.StoredInputState != "pruned" || x.OPAEval != "" {
		t.Fatalf("pruned: %q, %q", x.StoredInputState, x.OPAEval)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(e.LogPath())
	forged := bytes.Replace(log, []byte(`"path":"loopx/run/decision"`), []byte(`"path":"loopx/run/decision; rm -rf ~"`), 1)
	if err := os.WriteFile(e.LogPath(), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if x, _ := e.Explain(context.Background(), d.DecisionID); x.StoredInputState != "stored" || x.OPAEval != "" {
		t.Fatalf("forged path: %q, %q", x.StoredInputState, x.OPAEval)
	}
}

// TestLogInput_IsInputWithoutState: the line's input has every field of
// Input but the erased state, with the same JSON names, so that no part of
// a request (a permission, a claim) is lost from the line.
func TestLogInput_IsInputWithoutState(t *testing.T) {
	t.Parallel()
	names := func(typ reflect.Type) []string {
		var out []string
		for i := range typ.NumField() {
			out = append(out, typ.Field(i).Tag.Get("json")+" "+typ.Field(i).Type.String())
		}
		return out
	}
	want := slices.DeleteFunc(names(reflect.TypeFor[input.Input]()), func(s string) bool { return strings.HasPrefix(s, "state ") })
	if got := names(reflect.TypeFor[decision.LogInput]()); !slices.Equal(got, want) {
		t.Fatalf("LogInput fields %q, Input without state %q", got, want)
	}
}

// TestReplay_ClaimKeepsItsRequest: a claim decision is replayed with its
// logged claim request (input.claim), so an unchanged claim replays
// unchanged.
func TestReplay_ClaimKeepsItsRequest(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	todo := addTodos(t, e, "a")[0]
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: todo.ID, Agent: "a1"}); err != nil {
		t.Fatal(err)
	}
	entries, _, err := e.ReadLog(decision.LogFilter{Query: "claim"})
	if err != nil || len(entries) != 1 || entries[0].Input.Claim == nil || entries[0].Input.Claim.Op != "claim" {
		t.Fatalf("logged claim: %+v, %v", entries, err)
	}
	rep, err := e.Replay(context.Background(), time.Time{}, false)
	if err != nil || rep.Decisions != 1 || len(rep.Changed) != 0 {
		t.Fatalf("replay: %+v, %v", rep, err)
	}
}
