package engine

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

func TestCheckState_ReadOnlyWithoutAStore(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	st, err := e.CheckState()
	if err != nil || len(st.Goals) != 1 || st.Goals[0].ID != "g1" || len(st.Todos) != 0 {
		t.Fatalf("%+v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(e.StateDir(), kernel.DBFile)); !os.IsNotExist(err) {
		t.Fatalf("CheckState created the store: %v", err)
	}
}

func TestCheckState_TodosLeasesGatesNewestEvidence(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	ts := addTodos(t, e, "a", "b")
	if _, err := e.SetTodoStatus(ts[1].ID, records.TodoCancelled, "", "human"); err != nil {
		t.Fatal(err)
	}
	for i, s := range []string{"old run", "new run"} {
		if _, err := e.AddEvidence(records.Evidence{Goal: "g1", Kind: "test", Summary: s, Status: "pass", By: "human"}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			c.Advance(time.Hour)
		}
	}
	if _, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Deploy the branch to staging now?", Guards: []string{"deploy.staging"}, By: "human"}); err != nil {
		t.Fatal(err)
	}
	st0, err := e.StartRound(context.Background(), "g1", "a1") // claims ts[0], leaves the round open
	if err != nil || st0.Round == nil {
		t.Fatalf("start: %+v %v", st0.Decision, err)
	}
	c.Advance(48 * time.Hour)
	e.Release()
	st, err := e.CheckState()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Todos) != 2 || st.Todos[1].Status != records.TodoCancelled {
		t.Fatalf("todos %+v", st.Todos)
	}
	if l := st.Todos[0].Lease; st.Todos[0].Status != records.TodoClaimed || l == nil || l.Live || l.Holder != "a1" || l.ExpiresAt == "" {
		t.Fatalf("todo %+v lease %+v", st.Todos[0], l)
	}
	if len(st.Evidence) != 1 || st.Evidence[0].Summary != "new run" || st.Evidence[0].AgeSeconds != 48*3600 {
		t.Fatalf("evidence %+v", st.Evidence)
	}
	if len(st.Gates) != 1 || st.Gates[0].Question != "Deploy the branch to staging now?" || st.Gates[0].Status != "open" {
		t.Fatalf("gates %+v", st.Gates)
	}
}

const weekendPolicy = `package loopx.user.should_run

deny contains {"code": "weekend", "message": "no rounds on weekends"} if {
	time.weekday(time.parse_rfc3339_ns(input.now)) in {"Saturday", "Sunday"}
}
`

// Replay re-decides logged decisions under a changed policy on their
// stored inputs (unchanged: they were decided on a Monday), and over
// today's state with againstNow (flipped: it is a Sunday now); it never
// appends to the decision log.
func TestReplay_ListsFlippedVerdictsWithoutLogging(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a")
	c.Advance(24 * time.Hour) // Monday
	d1 := decide(t, e, "a1")
	d2 := decide(t, e, "a2")
	if d1.Verdict != "run" || d2.Verdict != "run" {
		t.Fatalf("%s %s", d1.Verdict, d2.Verdict)
	}
	e = reopen(t, e, c)
	rep, err := e.Replay(context.Background(), time.Time{}, false)
	if err != nil || rep.Decisions != 2 || len(rep.Changed) != 0 {
		t.Fatalf("unchanged policy: %+v %v", rep, err)
	}
	writeUserPolicy(t, e, "weekend.rego", weekendPolicy)
	c.Advance(-24 * time.Hour) // back to Sunday: the policy denies now
	e = reopen(t, e, c)
	before, _ := os.ReadFile(e.LogPath())
	// on what was known then (a Monday) the new policy decides the same
	rep, err = e.Replay(context.Background(), time.Time{}, false)
	if err != nil || rep.Decisions != 2 || len(rep.Changed) != 0 || rep.NotReplayable != 0 {
		t.Fatalf("stored inputs: %+v %v", rep, err)
	}
	// over today's state (a Sunday) it denies
	rep, err = e.Replay(context.Background(), time.Time{}, true)
	if err != nil || rep.Decisions != 2 || len(rep.Changed) != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
	ch := rep.Changed[0]
	if ch.DecisionID != d1.DecisionID || ch.Old != "run" || ch.New != "deny" || ch.Rule != "data.loopx.user.should_run.deny" || ch.Code != "weekend" {
		t.Fatalf("%+v", ch)
	}
	after, _ := os.ReadFile(e.LogPath())
	if string(before) != string(after) {
		t.Fatal("Replay appended to the decision log")
	}
	rep, err = e.Replay(context.Background(), c.Now().Add(48*time.Hour), false)
	if err != nil || rep.Decisions != 0 || rep.Since == nil {
		t.Fatalf("since in the future: %+v %v", rep, err)
	}
}

func TestEvalInput_HandWrittenAndCurrentState(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	writeUserPolicy(t, e, "weekend.rego", weekendPolicy)
	ctx := context.Background()
	// no state: the current snapshot; a Sunday now: the user policy denies
	d, in, err := e.EvalInput(ctx, "should-run", []byte(`{"now": "2026-11-29T10:00:00Z"}`), "g1", "a1")
	if err != nil || d.Verdict != "deny" || !d.HasReason("weekend") || len(in.State.Todos) != 1 {
		t.Fatalf("%+v %v", d, err)
	}
	d, _, err = e.EvalInput(ctx, "should_run", []byte(`{"now": "2026-11-30T10:00:00Z"}`), "g1", "a1")
	if err != nil || d.Verdict != "run" {
		t.Fatalf("monday: %+v %v", d, err)
	}
	// a hand-written state with no todos
	d, _, err = e.EvalInput(ctx, "should_run", []byte(`{"goal": "g1", "agent": "a1", "now": "2026-11-30T10:00:00Z",
		"state": {"goal": {"id": "g1", "in_spec": true, "status": "active"}, "agent": {"id": "a1", "known": true, "goals": [], "role": "executor", "mode": "active"}, "quota": {"min_interval_elapsed": true}, "progress": {"changed_since_last": true}}}`), "", "")
	if err != nil || d.Verdict != "skip" || !d.HasReason("no_todo") {
		t.Fatalf("hand-written: %+v %v", d, err)
	}
	// permission in the caller's form is normalised
	d, in, err = e.EvalInput(ctx, "permission", []byte(`{"permission": {"tool": "Bash", "command": "git push origin main"}}`), "g1", "a1")
	if err != nil || in.Permission == nil || !strings.Contains(strings.Join(in.Permission.Actions, ","), "git.push") || d.Verdict != "defer" {
		t.Fatalf("permission: %+v %+v %v", d, in.Permission, err)
	}
	for _, bad := range []string{`[]`, `{"stat": {}}`, `{"now": "tomorrow"}`, `{"permission": {"tool": 3}}`} {
		if _, _, err := e.EvalInput(ctx, "should_run", []byte(bad), "g1", "a1"); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if _, _, err := e.EvalInput(ctx, "shouldrun", []byte(`{}`), "g1", "a1"); err == nil || !strings.Contains(err.Error(), "known: claim, gate_answer, permission, should_run") {
		t.Errorf("unknown query: %v", err)
	}
	if fi, err := os.Stat(e.LogPath()); err == nil && fi.Size() > 0 {
		t.Error("EvalInput logged a decision")
	}
}

func TestCheckPolicies_CompileErrorsUnreachableAndUnconsultedPackage(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	writeUserPolicy(t, e, "ok.rego", `package loopx.user.should_run

import data.loopx.user.lib

deny contains "weekend" if lib.weekend

helper := 1

deny_push contains "x" if helper == 1
`)
	writeUserPolicy(t, e, "lib.rego", "package loopx.user.lib\n\nweekend if false\n\nunused := 2\n")
	writeUserPolicy(t, e, "perm.rego", "package loopx.user.permission\n\nadvice contains \"never read\" if true\n")
	writeUserPolicy(t, e, "typo.rego", "package loopx.user.shouldrun\n\ndeny contains \"x\" if true\n")
	writeUserPolicy(t, e, "sub.rego", "package loopx.user.should_run.weekend\n\ndeny contains \"x\" if true\n")
	writeUserPolicy(t, e, "typo_test.rego", "package loopx.user.shouldrun_test\n\ntest_x if true\n")
	probs, err := e.CheckPolicies()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.File+":"+itoa(p.Row)+" "+p.Code+" "+p.Rule)
	}
	want := []string{
		"loopx/policies/lib.rego:5 unreachable_rule unused",
		"loopx/policies/ok.rego:7 unreachable_rule helper",
		"loopx/policies/ok.rego:9 unreachable_rule deny_push",
		"loopx/policies/perm.rego:3 unreachable_rule advice",
		"loopx/policies/sub.rego:3 unreachable_rule deny",
		"loopx/policies/typo.rego:1 policy_unreachable ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s\n%+v", strings.Join(got, "\n"), strings.Join(want, "\n"), probs)
	}
	if !strings.Contains(probs[5].Message, "did you mean loopx.user.should_run") || !strings.Contains(probs[4].Message, "put it in package loopx.user.<query> itself") {
		t.Fatalf("%s\n%s", probs[5].Message, probs[4].Message)
	}

	e2, _ := newEngine(t, testSpec)
	writeUserPolicy(t, e2, "bad.rego", "package loopx.user.should_run\n\ndeny contains x if {\n\ty := 1\n}\n")
	writeUserPolicy(t, e2, "syntax.rego", "package loopx.user.should_run\n\ndeny contains \"x\" if {\n")
	probs, err = e2.CheckPolicies()
	if err != nil || len(probs) != 2 {
		t.Fatalf("%+v %v", probs, err)
	}
	if s := probs[0].String(); !strings.HasPrefix(s, "loopx/policies/bad.rego:3:") || !strings.Contains(s, "rego_unsafe_var_error") || !strings.HasSuffix(s, "(rule deny)") {
		t.Fatalf("compile error: %s", s)
	}
	if probs[1].File != "loopx/policies/syntax.rego" || probs[1].Code != "policy_error" {
		t.Fatalf("parse error: %+v", probs[1])
	}
}

func TestTestPolicies_PassFailAndRefusesUnconsultedPackages(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	writeUserPolicy(t, e, "weekend.rego", weekendPolicy)
	writeUserPolicy(t, e, "weekend_test.rego", `package loopx.user.should_run_test

import data.loopx.user.should_run

test_sunday_denied if {
	count(should_run.deny) == 1 with input as {"now": "2026-11-29T10:00:00Z"}
}

test_monday_allowed if {
	count(should_run.deny) == 0 with input as {"now": "2026-11-30T10:00:00Z"}
}

test_spec_is_data if {
	data.loopx.spec.goals.g1.quota.rounds == 3
}

test_wrong if {
	print("deny is", should_run.deny) with input as {"now": "2026-11-29T10:00:00Z"}
	count(should_run.deny) == 5 with input as {"now": "2026-11-29T10:00:00Z"}
}
`)
	rep, err := e.TestPolicies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pass != 3 || rep.Fail != 1 || rep.Total != 4 || rep.OK() {
		t.Fatalf("%+v", rep)
	}
	last := rep.Results[3]
	if last.Name != "test_wrong" || last.Status != "fail" || last.File != "loopx/policies/weekend_test.rego" || last.Row != 17 || !strings.Contains(last.Output, "deny is") {
		t.Fatalf("%+v", last)
	}

	// The package typo fails the run even though its test would pass.
	e2, _ := newEngine(t, testSpec)
	writeUserPolicy(t, e2, "weekend.rego", strings.Replace(weekendPolicy, "should_run", "shouldrun", 1))
	writeUserPolicy(t, e2, "weekend_test.rego", "package loopx.user.shouldrun_test\n\ntest_deny if count(data.loopx.user.shouldrun.deny) == 1 with input as {\"now\": \"2026-11-29T10:00:00Z\"}\n")
	rep, err = e2.TestPolicies(context.Background())
	if err != nil || rep.OK() || len(rep.Problems) != 1 || rep.Problems[0].Code != "policy_unreachable" || rep.Problems[0].Row != 1 {
		t.Fatalf("package typo: %+v %v", rep, err)
	}
	// No tests at all: nothing ran, nothing failed.
	e3, _ := newEngine(t, testSpec)
	rep, err = e3.TestPolicies(context.Background())
	if err != nil || rep.Total != 0 || !rep.OK() {
		t.Fatalf("empty: %+v %v", rep, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
