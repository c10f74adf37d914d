package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

func refusedCode(err error) string {
	var re *errs.Error
	var ue *errs.Error
	switch {
	case errs.IsKind(err, errs.No) && errors.As(err, &re):
		return re.Code
	case errs.IsKind(err, errs.Usage) && errors.As(err, &ue):
		return ue.Code
	}
	return ""
}

func TestStartRound_OneOpenRoundPerAgentAndStaleOnesAbandoned(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a", "b")
	ctx := context.Background()
	st, err := e.StartRound(ctx, "g1", "a1")
	if err != nil || st.Round == nil {
		t.Fatal(err)
	}
	if _, err := e.StartRound(ctx, "g1", "a1"); refusedCode(err) != "round_open" {
		t.Fatalf("second start while the first is open: %v", err)
	}
	// The lease expires: the next start closes the stale round as abandoned.
	c.Advance(rounds.DefaultLeaseTTL + time.Minute)
	st2, err := e.StartRound(ctx, "g1", "a1")
	if err != nil || st2.Round == nil {
		t.Fatalf("start after the lease expired: %+v %v", st2, err)
	}
	old, _ := e.Round(st.Round.ID)
	if old.Status != records.RoundAbandoned || old.Charged {
		t.Fatalf("stale round = %+v", old)
	}
	// The abandoned round cannot be charged any more, but closes uncharged.
	if _, err := e.FinishRound(ctx, st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeProgress}); refusedCode(err) != "lease_lost" {
		t.Fatalf("charging an abandoned round: %v", err)
	}
}

func TestShouldRun_RoundsInFlightCountAgainstQuota(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec) // rounds: 3
	addTodos(t, e, "a", "b", "c", "d")
	ctx := context.Background()
	round(t, e, "a1", records.OutcomeProgress)
	round(t, e, "a1", records.OutcomeProgress)
	st, err := e.StartRound(ctx, "g1", "a2") // the 3rd round, in flight
	if err != nil || st.Round == nil {
		t.Fatal(err)
	}
	d := decide(t, e, "a1")
	if d.Verdict != "skip" || !d.HasReason("quota_exhausted") || d.Quota.Rounds.Used != 2 || d.Quota.Rounds.InFlight != 1 {
		t.Fatalf("with a round in flight: %s %+v %+v", d.Verdict, d.Reasons, d.Quota.Rounds)
	}
	if _, err := e.FinishRound(ctx, st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeNoChange}); err != nil {
		t.Fatal(err)
	}
	if d := decide(t, e, "a1"); d.Verdict != "run" {
		t.Fatalf("after the in-flight round ended uncharged: %s %+v", d.Verdict, d.Reasons)
	}
}

func TestFinish_RejectsNegativeUsageAndBadOutcomeEvenOnReplay(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	st, rc := round(t, e, "a1", records.OutcomeProgress)
	_ = rc
	ctx := context.Background()
	if _, err := e.FinishRound(ctx, st.Round.ID, rounds.FinishRequest{Outcome: "bogus"}); refusedCode(err) != "bad_outcome" {
		t.Fatalf("bogus outcome on replay: %v", err)
	}
	addTodos(t, e, "b")
	st2, err := e.StartRound(ctx, "g1", "a1")
	if err != nil || st2.Round == nil {
		t.Fatal(err)
	}
	if _, err := e.FinishRound(ctx, st2.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeProgress, Tokens: -500}); refusedCode(err) != "bad_usage" {
		t.Fatalf("negative tokens: %v", err)
	}
}

func TestStore_EmptyFileIsRefusedNotReset(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	e.Close()
	if err := os.Truncate(filepath.Join(e.StateDir(), kernel.DBFile), 0); err != nil {
		t.Fatal(err)
	}
	d, err := e.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
	if !kernel.IsStoreError(err) || d.Verdict != "deny" || d.Quota != nil {
		t.Fatalf("empty store: err %v, decision %s quota %+v", err, d.Verdict, d.Quota)
	}
}

func TestReadModel_OverwriteWithRestoredMtimeIsNotTrusted(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	e.Close()
	path := filepath.Join(e.StateDir(), kernel.DBFile)
	fi, _ := os.Stat(path)
	b, _ := os.ReadFile(path)
	copy(b, []byte("garbage!"))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	d, err := e.Decide(context.Background(), Request{Query: query.ShouldRun, Goal: "g1", Agent: "a1"})
	if err == nil || d.Verdict != "deny" {
		t.Fatalf("corrupt store behind a matching size and mtime: %v %s", err, d.Verdict)
	}
}

func TestSpecGate_FollowsSpecEdits(t *testing.T) {
	t.Parallel()
	spec := testSpec[:len(testSpec)-2] + "\tgates: review: question: \"Is the design reviewed by a human?\"\n}\n"
	e, c := newEngine(t, spec)
	addTodos(t, e, "a")
	if d := decide(t, e, "a1"); d.Verdict != "wait_human" {
		t.Fatalf("goal-wide spec gate: %s", d.Verdict)
	}
	// The gate now guards an action only: unrelated work goes on.
	writeSpec(t, e.Root(), testSpec[:len(testSpec)-2]+"\tgates: review: {question: \"Is the design reviewed by a human?\", guards: [\"git.push\"]}\n}\n")
	e = reopen(t, e, c)
	if d := decide(t, e, "a1"); d.Verdict != "run" || !d.HasReason("gate_open_elsewhere") {
		t.Fatalf("after adding guards: %s %+v", d.Verdict, d.Reasons)
	}
	// Removed from the spec: cancelled with an event at the next write.
	writeSpec(t, e.Root(), testSpec)
	e = reopen(t, e, c)
	gs, err := e.Gates("g1", "")
	if err != nil || len(gs) != 1 || gs[0].Status != records.GateCancelled {
		t.Fatalf("gates after removal: %+v %v", gs, err)
	}
}

func TestInit_RefusesToWriteASpecThatDoesNotVet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Init(scaffold.Options{Dir: dir, Goal: "bad id", Objective: "x"})
	if err == nil {
		t.Fatal("init with a bad goal id succeeded")
	}
	if _, serr := os.Stat(filepath.Join(dir, scaffold.SpecDirName, "loopx.cue")); serr == nil {
		t.Fatal("init left a spec that does not vet")
	}
}

func TestRun_WritesOutsideScopeAreNotProgressAndSpecEditsRaiseAGate(t *testing.T) {
	t.Parallel()
	spec := testSpec[:len(testSpec)-2] + "\tscope: write: [\"src/**\"]\n}\n"
	e, _ := newEngine(t, spec)
	addTodos(t, e, "a", "b", "c")
	ctx := context.Background()
	run := func(script string) runround.Result {
		t.Helper()
		res, err := e.Run(ctx, runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1, Cmd: []string{"sh", "-c", script},
			Stdout: os.Stderr, Stderr: os.Stderr})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("mkdir -p src && echo ok > src/a.txt")
	if rc := res.Receipts[0]; rc.Round.Outcome != records.OutcomeProgress {
		t.Fatalf("in-scope write: %+v", rc.Round)
	}
	res = run("echo note > README.md")
	if rc := res.Receipts[0]; rc.Round.Outcome != records.OutcomeFailed || rc.Gate != nil {
		t.Fatalf("out-of-scope write: %+v gate %+v", rc.Round, rc.Gate)
	}
	res = run("sed -i 's/rounds: 3/rounds: 300/' loopx/loopx.cue")
	rc := res.Receipts[0]
	if rc.Round.Outcome != records.OutcomeFailed || rc.Gate == nil || rc.Gate.Reason != "protected_path" {
		t.Fatalf("spec edit by the agent: %+v gate %+v", rc.Round, rc.Gate)
	}
	if d := decide(t, e, "a1"); d.Verdict != "wait_human" {
		t.Fatalf("after the agent edited the spec: %s %+v", d.Verdict, d.Reasons)
	}
	evs, _ := e.Events(reportdata.EventFilter{Kind: "scope_violation"})
	if len(evs) != 2 {
		t.Fatalf("scope_violation events = %d", len(evs))
	}
}

func TestRun_TamperingWithLoopxStateIsCaught(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a", "b", "c")
	ctx := context.Background()
	// An edit of the spec that restores size and mtime is still seen.
	res, err := e.Run(ctx, runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1, Stdout: os.Stderr, Stderr: os.Stderr,
		Cmd: []string{"sh", "-c", "touch -r loopx/loopx.cue ref && sed -i 's/rounds: 3/rounds: 9/' loopx/loopx.cue && touch -r ref loopx/loopx.cue && rm ref"}})
	if err != nil {
		t.Fatal(err)
	}
	if rc := res.Receipts[0]; rc.Round.Outcome != records.OutcomeFailed || rc.Gate == nil {
		t.Fatalf("spec edit with mtime restored: %+v gate %+v", rc.Round, rc.Gate)
	}
	// An edit of the read model (the decision cache) is caught and undone.
	e2, c := newEngine(t, testSpec)
	addTodos(t, e2, "a", "b")
	_ = c
	res, err = e2.Run(ctx, runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1, Stdout: os.Stderr, Stderr: os.Stderr,
		Cmd: []string{"sh", "-c", "sed -i 's/\"title\":\"b\"/\"title\":\"B\"/' " + e2.sess.readModelPath()}})
	if err != nil {
		t.Fatal(err)
	}
	if rc := res.Receipts[0]; rc.Round.Outcome != records.OutcomeFailed {
		t.Fatalf("read model edit: %+v", rc.Round)
	}
	evs, _ := e2.Events(reportdata.EventFilter{Kind: "scope_violation"})
	if len(evs) != 1 {
		t.Fatalf("scope_violation events = %d", len(evs))
	}
}

// TestReadModel_DecidesLikeTheStore: the decision fast path (the read model)
// and the store give the same decision for the same state.
func TestReadModel_DecidesLikeTheStore(t *testing.T) {
	t.Parallel()
	spec := testSpec[:len(testSpec)-2] + "\tgates: deploy: {question: \"Deploy the build to staging today?\", guards: [\"git.push\"]}\n}\n"
	e, c := newEngine(t, spec)
	ts := addTodos(t, e, "a", "b", "c")
	round(t, e, "a1", records.OutcomeProgress)
	round(t, e, "a2", records.OutcomeNoChange)
	if _, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "May todo c touch production now?", BlocksTodo: ts[2].ID, By: "human"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddEvidence(records.Evidence{Goal: "g1", Summary: "tests pass", By: "a1"}); err != nil {
		t.Fatal(err)
	}
	strip := func(d decision.Decision) decision.Decision { d.DecisionID = ""; return d }
	for _, agent := range []string{"a1", "a2"} {
		e = reopen(t, e, c)
		if _, err := os.Stat(e.sess.readModelPath()); err != nil {
			t.Fatalf("no read model after writes: %v", err)
		}
		fast := decide(t, e, agent)
		if e.sess.store != nil {
			t.Fatal("the fast path opened the store")
		}
		e = reopen(t, e, c)
		if err := os.Remove(e.sess.readModelPath()); err != nil {
			t.Fatal(err)
		}
		slow := decide(t, e, agent)
		a, _ := json.Marshal(strip(fast))
		b, _ := json.Marshal(strip(slow))
		if string(a) != string(b) {
			t.Fatalf("agent %s:\nread model %s\nstore      %s", agent, a, b)
		}
	}
}

// TestClaim_AbandonedTodoIsTakenOverAcrossRoles: a killed agent's
// todo is picked up by the other after its lease expires, for an executor
// and a reviewer.
func TestClaim_AbandonedTodoIsTakenOverAcrossRoles(t *testing.T) {
	t.Parallel()
	spec := `agents: {
	codex: {host: "codex", role: "executor"}
	claude: {host: "claude-code", role: "reviewer"}
}
goals: g1: {objective: "Ship the reviewed change", quota: rounds: 10}
`
	e, c := newEngine(t, spec)
	ts := addTodos(t, e, "implement")
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: ts[0].ID, Agent: "codex", TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: ts[0].ID, Agent: "claude"}); refusedCode(err) == "" {
		t.Fatal("the reviewer took a live claim")
	}
	c.Advance(2 * time.Minute) // codex was killed; its lease expired
	res, err := e.ClaimTodo(lease.ClaimRequest{Todo: ts[0].ID, Agent: "claude"})
	if err != nil || res.Todo.Lease.Holder != "claude" {
		t.Fatalf("takeover by the reviewer: %+v %v", res, err)
	}
}
