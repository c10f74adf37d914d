package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/kernel"
)

const claimFreeze = `package loopx.user.claim

deny contains {"code": "freeze", "message": "a2 holds nothing during the freeze"} if input.agent == "a2"
`

// TestUserClaimDeny_StopsEveryClaimPath: a user claim policy's deny stops
// loopx todo claim and a lease transfer, and keeps should_run from
// selecting the todo for a round start (skip); each changes nothing.
func TestUserClaimDeny_StopsEveryClaimPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		run  func(e *Engine, todo string) error
	}{
		{"claim", func(e *Engine, todo string) error {
			_, err := e.ClaimTodo(lease.ClaimRequest{Todo: todo, Agent: "a2"})
			return err
		}},
		{"transfer", func(e *Engine, todo string) error {
			res, err := e.ClaimTodo(lease.ClaimRequest{Todo: todo, Agent: "a1"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.TransferLease(lease.Request{Todo: todo, Agent: "a1", To: "a2", ExpectedVersion: res.Lease.Version})
			return err
		}},
		{"round start", func(e *Engine, todo string) error {
			res, err := e.StartRound(ctx, "g1", "a2")
			if res.Round != nil {
				t.Errorf("round %s opened", res.Round.ID)
			}
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, _ := newEngine(t, testSpec)
			writeUserPolicy(t, e, "freeze.rego", claimFreeze)
			todo := addTodos(t, e, "Write the guide")[0]
			err := c.run(e, todo.ID)
			if c.name == "round start" {
				// should_run's selection asks the claim policy: the only
				// todo is denied to a2, so nothing is selected (skip).
				d, derr := e.Decide(ctx, Request{Query: query.ShouldRun, Goal: "g1", Agent: "a2"})
				if err != nil || derr != nil || d.Verdict != "skip" || !d.HasReason("no_todo") || !strings.Contains(d.Reasons[0].Message, "1 denied by a claim policy") {
					t.Fatalf("round start: err = %v, should_run = %s %+v (%v), want a skip: no todo a2 may claim", err, d.Verdict, d.Reasons, derr)
				}
			} else if errCode(err) != "freeze" || !strings.Contains(err.Error(), "a2 holds nothing during the freeze") {
				t.Fatalf("err = %v (%s), want the user's freeze", err, errCode(err))
			}
			after, err := e.Todo(todo.ID)
			if err != nil {
				t.Fatal(err)
			}
			if after.Lease != nil && after.Lease.Holder == "a2" {
				t.Fatalf("a2 holds the todo after the refusal: %+v", after.Lease)
			}
			// a1 is not denied by the policy
			if c.name == "claim" {
				if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: todo.ID, Agent: "a1"}); err != nil {
					t.Fatalf("a1: %v", err)
				}
			}
		})
	}
}

// TestBrokenUserClaimPolicy_RefusesWithPolicyError: a user claim policy
// that does not compile refuses every claim with policy_error at its
// file:line:col (fail closed) and nothing is claimed; a human's store
// repair (AcceptStore) does not read policies and still works.
func TestBrokenUserClaimPolicy_RefusesWithPolicyError(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	writeUserPolicy(t, e, "broken.rego", "package loopx.user.claim\n\ndeny contains msg if {\n\tmsg := undefined_thing\n}\n")
	todo := addTodos(t, e, "Write the guide")[0]
	_, err := e.ClaimTodo(lease.ClaimRequest{Todo: todo.ID, Agent: "a1"})
	if errCode(err) != "usage:policy_error" || !strings.Contains(err.Error(), "loopx/policies/broken.rego:4:") {
		t.Fatalf("claim: %v (%s), want policy_error at loopx/policies/broken.rego:4:…", err, errCode(err))
	}
	res, err := e.StartRound(context.Background(), "g1", "a1")
	if err != nil || res.Round != nil || res.Decision.Verdict != "deny" || res.Decision.Reasons[0].Code != "policy_error" {
		t.Fatalf("round start: %v %+v", err, res.Decision)
	}
	if got, _ := e.Todo(todo.ID); got.Lease != nil {
		t.Fatalf("claimed despite the broken policy: %+v", got.Lease)
	}
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.AcceptStore(); err != nil {
		t.Fatalf("accept store with a broken user policy: %v", err)
	}
}

// TestClaim_UnknownGateScopeBlocksFailClosed: a gate whose scope kind loopx
// does not know blocks claims (the Go twin used to let it pass).
func TestClaim_UnknownGateScopeBlocksFailClosed(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	todo := addTodos(t, e, "Write the guide")[0]
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Is the new scope kind safe?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.update(func(tx *kernel.Tx) error {
		gg, err := tx.Gate(g.ID)
		if err != nil {
			return err
		}
		gg.ScopeKind = "team"
		return tx.PutGate(gg)
	}); err != nil {
		t.Fatal(err)
	}
	_, err = e.ClaimTodo(lease.ClaimRequest{Todo: todo.ID, Agent: "a1"})
	if errCode(err) != "gate_violation" {
		t.Fatalf("claim past a gate of scope kind team: %v", err)
	}
}

// TestUserGateAnswerDeny_StopsTheAnswer: a user gate_answer policy's deny
// stops an answer that every built-in rule allows; nothing is recorded and
// the refusal is audited.
func TestUserGateAnswerDeny_StopsTheAnswer(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	writeUserPolicy(t, e, "answers.rego", `package loopx.user.gate_answer

deny contains {"code": "two_person_rule", "message": "a second human must approve merges"} if input.answer.option == "approve"
`)
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Merge the v2 branch into main now?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.AnswerGate(gates.Answer{Gate: g.ID, Option: "approve", Actor: "human", Channel: TypedBack(g.ID)})
	if errCode(err) != "two_person_rule" {
		t.Fatalf("answer: %v (%s), want the user's deny", err, errCode(err))
	}
	if got, _ := e.Gate(g.ID); got.Status != "open" || got.Answer != nil {
		t.Fatalf("the refused answer was recorded: %+v", got)
	}
	if _, err := e.AnswerGate(gates.Answer{Gate: g.ID, Option: "reject", Actor: "human", Channel: TypedBack(g.ID)}); err != nil {
		t.Fatalf("reject: %v", err)
	}
}

// TestBrokenUserGateAnswerPolicy_RefusesButRepairsWork: a user gate_answer
// policy that does not compile refuses every answer with policy_error and
// its file:line:col; the human-only repair rule is built-in only and still
// allows a human at a terminal.
func TestBrokenUserGateAnswerPolicy_RefusesButRepairsWork(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Merge the v2 branch into main now?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	writeUserPolicy(t, e, "broken.rego", "package loopx.user.gate_answer\n\ndeny contains x if {\n\tx := nope\n}\n")
	e = New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: testproject.NewClock().Now})
	defer e.Close()
	// The broken policy does not block adopting it (built-in rules only).
	if err := e.RepairAllowed(context.Background(), input.Channel{Kind: "terminal"}); err != nil {
		t.Fatal(err)
	}
	mustAdopt(t, e)
	_, err = e.AnswerGate(gates.Answer{Gate: g.ID, Option: "approve", Actor: "human", Channel: TypedBack(g.ID)})
	if errCode(err) != "usage:policy_error" || !strings.Contains(err.Error(), "loopx/policies/broken.rego:4:") {
		t.Fatalf("answer: %v (%s)", err, errCode(err))
	}
	if err := e.RepairAllowed(context.Background(), input.Channel{Kind: "terminal"}); err != nil {
		t.Fatalf("repair at a terminal with a broken user policy: %v", err)
	}
	if err := e.RepairAllowed(context.Background(), input.Channel{Kind: "terminal", InRound: true}); errCode(err) != "self_answer_forbidden" {
		t.Fatalf("repair inside a round: %v", err)
	}
}

// TestDemoChannel_OnlyInADemoProject: loopx demo's own answer (channel
// demo) is refused in an ordinary project and accepted in one Init created
// with Demo.
func TestDemoChannel_OnlyInADemoProject(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Publish the greeting tool now?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	demo := gates.Answer{Gate: g.ID, Option: "approve", Actor: "human", Channel: input.Channel{Kind: "demo"}}
	if _, err := e.AnswerGate(demo); errCode(err) != "demo_only" {
		t.Fatalf("demo answer in an ordinary project: %v", err)
	}
	dir := t.TempDir()
	if _, err := Init(scaffold.Options{Dir: dir, Demo: true, Goal: "g1", Objective: "Show the demo", Agent: "a1"}); err != nil {
		t.Fatal(err)
	}
	d := New(Options{Root: dir, StateHome: stateHome(dir), Now: testproject.NewClock().Now})
	defer d.Close()
	dg, err := d.RaiseGate(gates.Input{Goal: "g1", Question: "Publish the greeting tool now?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.AnswerGate(gates.Answer{Gate: dg.ID, Option: "approve", Actor: "human", Channel: input.Channel{Kind: "demo"}}); err != nil {
		t.Fatalf("demo answer in a demo project: %v", err)
	}
}

// TestCheckPolicies_KnowsClaimAndGateAnswerPackages: user packages
// loopx.user.claim and loopx.user.gate_answer are consulted (no problem
// reported); a typo of one is refused as never consulted, with a hint.
func TestCheckPolicies_KnowsClaimAndGateAnswerPackages(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	writeUserPolicy(t, e, "claim.rego", claimFreeze)
	writeUserPolicy(t, e, "answers.rego", "package loopx.user.gate_answer\n\nwarn contains \"late answer\" if input.answer.option == \"approve\"\n")
	probs, err := e.CheckPolicies()
	if err != nil || len(probs) != 0 {
		t.Fatalf("problems %+v, err %v", probs, err)
	}
	writeUserPolicy(t, e, "typo.rego", "package loopx.user.gateanswer\n\ndeny contains \"x\" if false\n")
	probs, err = e.CheckPolicies()
	if err != nil || len(probs) != 1 || probs[0].Code != "policy_unreachable" || !strings.Contains(probs[0].Message, "did you mean loopx.user.gate_answer?") {
		t.Fatalf("typo: %+v %v", probs, err)
	}
}
