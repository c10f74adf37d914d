package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// projects holds each test project's state directory by its root
// (testproject.Project.StateHome), so that an engine reopened on a root
// finds the anchor directory the first one made (stateHome).
var projects sync.Map

// newProject makes a project with spec in the test's own directories, with
// its own state directory and clock (internal/testproject).
func newProject(t *testing.T, spec string) *testproject.Project {
	t.Helper()
	p := testproject.New(t, spec)
	projects.Store(p.Root, p.StateHome)
	return p
}

// stateHome is the state directory of the project newProject made at
// root; "" (the test binary's own: anchortest) for any other directory.
func stateHome(root string) string {
	if h, ok := projects.Load(root); ok {
		return h.(string)
	}
	return ""
}

// writeSpec writes src as root's loopx/loopx.cue.
func writeSpec(t *testing.T, root, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, scaffold.SpecDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, scaffold.SpecDirName, "loopx.cue"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

const testSpec = `project: sandbox: mode: "off" // what loopx run's change check sees of an unconfined agent; the sandbox is tested in cmd/loopx (TestConfine)
agents: {
	a1: {host: "shell", role: "executor"}
	a2: {host: "shell", role: "executor"}
}
goals: g1: {
	objective: "Test the engine"
	agents: ["a1", "a2"]
	quota: {window: "24h", rounds: 3, min_interval: "0s"}
	stall: max_no_progress: 2
}
`

func newEngine(t *testing.T, spec string) (*Engine, *testproject.Clock) {
	t.Helper()
	p := newProject(t, spec)
	c := p.Clock
	e := New(Options{Root: p.Root, StateHome: p.StateHome, Now: c.Now})
	if err := e.SpecErr(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, c
}

func addTodos(t *testing.T, e *Engine, titles ...string) []records.Todo {
	t.Helper()
	var out []records.Todo
	for _, title := range titles {
		td, err := e.AddTodo(todos.Input{Goal: "g1", Title: title, Priority: 2})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, td)
	}
	return out
}

func decide(t *testing.T, e *Engine, agent string) decision.Decision {
	t.Helper()
	d, err := e.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// round starts a round for agent and finishes it with outcome.
func round(t *testing.T, e *Engine, agent, outcome string) (rounds.StartResult, rounds.Receipt) {
	t.Helper()
	st, err := e.StartRound(context.Background(), "g1", agent)
	if err != nil {
		t.Fatal(err)
	}
	if st.Round == nil {
		t.Fatalf("start: verdict %s %+v", st.Decision.Verdict, st.Decision.Reasons)
	}
	rc, err := e.FinishRound(context.Background(), st.Round.ID, rounds.FinishRequest{Outcome: outcome})
	if err != nil {
		t.Fatal(err)
	}
	return st, rc
}

func TestShouldRun_QuotaWindowIsRollingOverWholeLedger(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a", "b", "c", "d", "e")
	for i := 0; i < 3; i++ {
		round(t, e, "a1", records.OutcomeProgress)
		c.Advance(time.Hour)
	}
	d := decide(t, e, "a1")
	if d.Verdict != "skip" || !d.HasReason("quota_exhausted") {
		t.Fatalf("after 3 rounds: %s %+v", d.Verdict, d.Reasons)
	}
	// The first charge was at 10:00; it ages out at 10:00 the next day.
	if d.NextCheckAt == nil || *d.NextCheckAt != "2026-11-30T10:00:00Z" {
		t.Fatalf("next_check_at = %v", d.NextCheckAt)
	}
	if d.Quota.Rounds.Used != 3 || *d.Quota.Rounds.Limit != 3 {
		t.Fatalf("quota = %+v", d.Quota.Rounds)
	}
	c.Set(time.Date(2026, 11, 30, 10, 0, 1, 0, time.UTC))
	if d := decide(t, e, "a1"); d.Verdict != "run" {
		t.Fatalf("after the oldest charge aged out: %s %+v", d.Verdict, d.Reasons)
	}
}

func TestFinish_NotChargedOutcomesWriteZeroLedgerEntries(t *testing.T) {
	t.Parallel()
	for _, outcome := range []string{records.OutcomeNoChange, records.OutcomePreflightFailed, records.OutcomeDryRun} {
		t.Run(outcome, func(t *testing.T) {
			e, _ := newEngine(t, testSpec)
			addTodos(t, e, "a")
			_, rc := round(t, e, "a1", outcome)
			if rc.Charged || rc.Ledger == nil || rc.Ledger.Rounds != 0 || rc.Ledger.Reason != outcome {
				t.Fatalf("receipt = %+v ledger %+v", rc, rc.Ledger)
			}
			if d := decide(t, e, "a1"); d.Quota.Rounds.Used != 0 {
				t.Fatalf("used = %d", d.Quota.Rounds.Used)
			}
		})
	}
}

func TestFinish_TwiceReturnsStoredReceiptWithoutSecondCharge(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a", "b")
	st, rc1 := round(t, e, "a1", records.OutcomeProgress)
	rc2, err := e.FinishRound(context.Background(), st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeFailed})
	if err != nil {
		t.Fatal(err)
	}
	if !rc2.Replayed || rc2.Round.Outcome != records.OutcomeProgress || rc2.Ledger.Seq != rc1.Ledger.Seq {
		t.Fatalf("replayed receipt = %+v", rc2)
	}
	if d := decide(t, e, "a1"); d.Quota.Rounds.Used != 1 {
		t.Fatalf("used = %d after a replayed finish", d.Quota.Rounds.Used)
	}
}

func TestShouldRun_NoStateChangeSkipsTheSameTodo(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "only")
	round(t, e, "a1", records.OutcomeNoChange)
	d := decide(t, e, "a1")
	if d.Verdict != "skip" || !d.HasReason("no_state_change") || d.Charge {
		t.Fatalf("after a no_change round: %s %+v", d.Verdict, d.Reasons)
	}
	// A change to the goal's state (a new todo) lifts it.
	addTodos(t, e, "new work")
	if d := decide(t, e, "a1"); d.Verdict != "run" {
		t.Fatalf("after a change: %s %+v", d.Verdict, d.Reasons)
	}
}

func TestStall_GateRaisedAtLimitAndNothingMoreCharged(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec) // max_no_progress: 2
	addTodos(t, e, "a", "b", "c")
	round(t, e, "a1", records.OutcomeFailed)
	_, rc := round(t, e, "a1", records.OutcomeFailed)
	if rc.Gate == nil || rc.Gate.Reason != "stall" {
		t.Fatalf("no stall gate after 2 failed rounds: %+v", rc.Gate)
	}
	d := decide(t, e, "a1")
	if d.Verdict != "wait_human" || !d.HasReason("gate_open") {
		t.Fatalf("after stall: %s %+v", d.Verdict, d.Reasons)
	}
	st, err := e.StartRound(context.Background(), "g1", "a1")
	if err != nil || st.Round != nil {
		t.Fatalf("start while stalled opened a round: %+v %v", st.Round, err)
	}
	// A human approves: the count restarts.
	if _, err := e.AnswerGate(gates.Answer{Gate: rc.Gate.ID, Option: "approve", Actor: "human", Channel: TypedBack(rc.Gate.ID)}); err != nil {
		t.Fatal(err)
	}
	if d := decide(t, e, "a1"); d.Verdict != "run" {
		t.Fatalf("after approval: %s %+v", d.Verdict, d.Reasons)
	}
}

func TestFinish_StaleHolderIsRefusedLeaseLost(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	st, err := e.StartRound(context.Background(), "g1", "a1")
	if err != nil || st.Round == nil {
		t.Fatal(err)
	}
	// The todo is released (e.g. a human reopens it) and claimed by a2.
	if _, err := e.SetTodoStatus(st.Todo.ID, records.TodoOpen, "reassign", "human"); err != nil {
		t.Fatal(err)
	}
	st2, err := e.StartRound(context.Background(), "g1", "a2")
	if err != nil || st2.Round == nil || st2.Todo.ID != st.Todo.ID {
		t.Fatalf("a2 did not claim the todo: %+v %v", st2, err)
	}
	if st2.Todo.Lease.Epoch != st.Todo.Lease.Epoch+1 || st2.Todo.Lease.Version <= st.Todo.Lease.Version {
		t.Fatalf("lease did not advance: %+v → %+v", st.Todo.Lease, st2.Todo.Lease)
	}
	_, err = e.FinishRound(context.Background(), st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeProgress})
	var re *errs.Error
	if !(errs.IsKind(err, errs.No) && errors.As(err, &re)) || re.Code != "lease_lost" {
		t.Fatalf("stale finish: %v", err)
	}
	if d := decide(t, e, "a1"); d.Quota.Rounds.Used != 0 {
		t.Fatalf("a refused finish charged: %d", d.Quota.Rounds.Used)
	}
}

func TestShouldRun_FailsClosed(t *testing.T) {
	t.Parallel()
	t.Run("broken spec", func(t *testing.T) {
		root := t.TempDir()
		writeSpec(t, root, "goals: g1: {objective: 12}\n")
		e := New(Options{Root: root, StateHome: stateHome(root)})
		defer e.Close()
		d, _ := e.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
		if d.Verdict != "deny" || !d.HasReason("spec_error") {
			t.Fatalf("%s %+v", d.Verdict, d.Reasons)
		}
	})
	t.Run("corrupt store", func(t *testing.T) {
		e, _ := newEngine(t, testSpec)
		addTodos(t, e, "a")
		e.Close()
		path := filepath.Join(e.StateDir(), kernel.DBFile)
		b, _ := os.ReadFile(path)
		copy(b, []byte("\x00garbage\x00garbage\x00garbage"))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := e.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
		if !kernel.IsStoreError(err) || d.Verdict != "deny" || !d.HasReason("store_error") {
			t.Fatalf("err %v, decision %s %+v", err, d.Verdict, d.Reasons)
		}
	})
}

func TestShouldRun_GateOutranksQuotaAndTodoGateIsScoped(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	ts := addTodos(t, e, "guarded", "free")
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "May the guarded todo touch production now?", BlocksTodo: ts[0].ID, By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	d := decide(t, e, "a1")
	if d.Verdict != "run" || d.Todo.ID != ts[1].ID || !d.HasReason("gate_open_elsewhere") {
		t.Fatalf("todo-scoped gate: %s %+v %+v", d.Verdict, d.Todo, d.Reasons)
	}
	if _, err := e.AnswerGate(gates.Answer{Gate: g.ID, Option: "approve", Actor: "human", Channel: TypedBack(g.ID)}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		addTodos(t, e, "more")
		round(t, e, "a1", records.OutcomeProgress)
	}
	if _, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Keep going after the quota is spent?", By: "human"}); err != nil {
		t.Fatal(err)
	}
	if d := decide(t, e, "a1"); d.Verdict != "wait_human" {
		t.Fatalf("gate vs quota: %s %+v", d.Verdict, d.Reasons)
	}
}

func TestAnswerGate_Refusals(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Ship the release to production now?", By: "a1", Answerers: []string{"human", "agent:a1", "agent:a2"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   gates.Answer
		code string
	}{
		{"unknown option", gates.Answer{Gate: g.ID, Option: "maybe", Actor: "human", Channel: TypedBack(g.ID)}, "unknown_option"},
		{"raiser answers", gates.Answer{Gate: g.ID, Option: "approve", Actor: "agent:a1", Channel: input.Channel{Kind: "agent"}}, "self_answer_forbidden"},
		{"human inside a round", gates.Answer{Gate: g.ID, Option: "approve", Actor: "human", Channel: input.Channel{Kind: "terminal", InRound: true, TTY: true}}, "self_answer_forbidden"},
		{"not an answerer", gates.Answer{Gate: g.ID, Option: "approve", Actor: "agent:zz", Channel: input.Channel{Kind: "agent"}}, "not_answerer"},
		{"unknown gate", gates.Answer{Gate: "g-0000", Option: "approve", Actor: "human", Channel: TypedBack("g-0000")}, "unknown_gate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.AnswerGate(c.in)
			var re *errs.Error
			var ue *errs.Error
			code := ""
			switch {
			case errs.IsKind(err, errs.No) && errors.As(err, &re):
				code = re.Code
			case errs.IsKind(err, errs.Usage) && errors.As(err, &ue):
				code = ue.Code
			}
			if code != c.code {
				t.Fatalf("err = %v, want code %s", err, c.code)
			}
		})
	}
	if _, err := e.AnswerGate(gates.Answer{Gate: g.ID, Option: "approve", Actor: "agent:a2", Channel: input.Channel{Kind: "agent"}}); err != nil {
		t.Fatalf("a peer answerer: %v", err)
	}
	_, err = e.AnswerGate(gates.Answer{Gate: g.ID, Option: "reject", Actor: "human", Channel: TypedBack(g.ID)})
	var re *errs.Error
	if !(errs.IsKind(err, errs.No) && errors.As(err, &re)) || re.Code != "gate_closed" {
		t.Fatalf("answering a closed gate: %v", err)
	}
}

func TestGate_ExpiryAppliesOnExpiry(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a")
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Deploy the build to staging today?", ExpiresAfter: time.Hour, OnExpiry: "reject", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	if d := decide(t, e, "a1"); d.Verdict != "wait_human" {
		t.Fatalf("%s", d.Verdict)
	}
	c.Advance(time.Hour)
	gs, err := e.Gates("g1", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 1 || gs[0].ID != g.ID || gs[0].Status != "reject" {
		t.Fatalf("gates after expiry = %+v", gs)
	}
	evs, _ := e.Events(reportdata.EventFilter{Kind: "gate.expired"})
	if len(evs) != 1 {
		t.Fatalf("expiry events = %+v", evs)
	}
}

// TestGate_BypassedHookStillCannotRecordProgress: an agent whose host ignores
// hook answers keeps calling loopx while a gate is open. Every mutation that
// would record progress or spend quota is refused and audited.
func TestGate_BypassedHookStillCannotRecordProgress(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	ts := addTodos(t, e, "a", "b")
	ctx := context.Background()
	st, err := e.StartRound(ctx, "g1", "a1")
	if err != nil || st.Round == nil {
		t.Fatal(err)
	}
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Is the schema migration safe to run now?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	isViolation := func(err error) bool {
		var re *errs.Error
		return errs.IsKind(err, errs.No) && errors.As(err, &re) && re.Code == "gate_violation" && func() bool { id, ok := decision.ViolatedGate(err); return ok && id == g.ID }()
	}
	if _, err := e.FinishRound(ctx, st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeProgress, Done: true}); !isViolation(err) {
		t.Fatalf("finish progress: %v", err)
	}
	if _, err := e.SetTodoStatus(ts[1].ID, records.TodoDone, "", "a1"); !isViolation(err) {
		t.Fatalf("todo done by the agent: %v", err)
	}
	if st2, err := e.StartRound(ctx, "g1", "a2"); err != nil || st2.Round != nil {
		t.Fatalf("round start: %+v %v", st2.Round, err)
	}
	if d := decide(t, e, "a1"); d.Quota.Rounds.Used != 0 {
		t.Fatalf("quota spent while gated: %d", d.Quota.Rounds.Used)
	}
	// The refused progress is a violation each time; the refused round
	// start is a wait.
	evs, err := e.Events(reportdata.EventFilter{Kind: "gate_violation"})
	if err != nil || len(evs) != 2 {
		t.Fatalf("gate_violation events = %d %v", len(evs), err)
	}
	if evs, err := e.Events(reportdata.EventFilter{Kind: "gate.waited"}); err != nil || len(evs) != 1 {
		t.Fatalf("gate.waited events = %d %v", len(evs), err)
	}
	// Finishing without progress is allowed (it frees the todo, charges nothing).
	if rc, err := e.FinishRound(ctx, st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeNoChange}); err != nil || rc.Charged {
		t.Fatalf("no_change finish: %+v %v", rc, err)
	}
	// A guarded action's evidence is refused while its gate is open.
	if _, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Push the release tag to origin now?", By: "human", Guards: []string{"git.push"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddEvidence(records.Evidence{Goal: "g1", Summary: "pushed v1.2.0", Action: "git.push", By: "a1"}); err == nil {
		t.Fatal("evidence for a guarded action was recorded")
	}
	if _, err := e.AddEvidence(records.Evidence{Goal: "g1", Summary: "tests pass", Action: "", By: "a1"}); err != nil {
		t.Fatalf("unguarded evidence: %v", err)
	}
}
