package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/internal/errs"
)

// TestLog_RotatesBySizeAndReadsAcrossFiles: a decision that would grow
// decisions.jsonl past decisionlog.MaxBytes rotates it to .1 (and .1 → .2 …, keeping
// decisionlog.Keep files); ReadLog and FindDecision read the rotated files too, and
// skip torn lines.
func TestLog_RotatesBySizeAndReadsAcrossFiles(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "a")
	first := decide(t, e, "a1")
	log := e.LogPath()
	// Rotated files from earlier rotations, oldest last: .3 must go.
	for i := 1; i <= decisionlog.Keep; i++ {
		if err := os.WriteFile(fmt.Sprintf("%s.%d", log, i), []byte(fmt.Sprintf("{\"torn\": %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Pad the current file (one real entry) to just under the limit.
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	pad := bytes.Repeat([]byte(strings.Repeat(" ", 1023)+"\n"), int(decisionlog.MaxBytes-fi.Size())/1024)
	if _, err := f.Write(pad); err != nil {
		t.Fatal(err)
	}
	f.Close()

	c.Advance(time.Hour)
	second := decide(t, e, "a2")
	for i, want := range map[int]string{1: first.DecisionID, 2: `"torn": 1`, 3: `"torn": 2`} {
		b, err := os.ReadFile(fmt.Sprintf("%s.%d", log, i))
		if err != nil || !strings.Contains(string(b), want) {
			t.Fatalf("%s.%d does not hold %s (err %v)", filepath.Base(log), i, want, err)
		}
	}
	if _, err := os.Stat(fmt.Sprintf("%s.%d", log, decisionlog.Keep+1)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("more than decisionlog.Keep=%d rotated files: %v", decisionlog.Keep, err)
	}
	if fi, _ := os.Stat(log); fi.Size() > 64<<10 {
		t.Fatalf("current log is %d bytes after rotation", fi.Size())
	}

	all, skipped, err := e.ReadLog(decision.LogFilter{})
	if err != nil || len(all) != 2 || all[0].DecisionID != first.DecisionID || all[1].DecisionID != second.DecisionID || skipped != 2 {
		t.Fatalf("ReadLog = %d entries (%v), %d skipped, %v", len(all), ids(all), skipped, err)
	}
	for _, tc := range []struct {
		f    decision.LogFilter
		want []string
	}{
		{decision.LogFilter{Agent: "a2"}, []string{second.DecisionID}},
		{decision.LogFilter{Verdict: "run", Goal: "g1"}, []string{first.DecisionID, second.DecisionID}},
		{decision.LogFilter{Since: e.Now().Add(-time.Minute)}, []string{second.DecisionID}},
		{decision.LogFilter{Limit: 1}, []string{second.DecisionID}},
		{decision.LogFilter{Goal: "nope"}, nil},
	} {
		got, _, _ := e.ReadLog(tc.f)
		if !slices.Equal(ids(got), tc.want) {
			t.Errorf("ReadLog(%+v) = %v, want %v", tc.f, ids(got), tc.want)
		}
	}
	le, err := e.FindDecision(first.DecisionID)
	if err != nil || decision.Logged(le).Verdict != "run" || le.Input.Agent != "a1" {
		t.Fatalf("FindDecision in the rotated file = %s, %v", le.Result, err)
	}
	var ue *errs.Error
	if _, err := e.FindDecision("01NOPE"); !(errs.IsKind(err, errs.Usage) && errors.As(err, &ue)) || ue.Code != "unknown_decision" {
		t.Fatalf("unknown id: %v", err)
	}
}

func ids(es []decision.LogEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.DecisionID)
	}
	return out
}

// TestExplain_OlderStateAndPolicy: a decision logged under an older state
// (and, forged, an older policy) is re-run on today's state with a trace,
// says what changed since, and that the verdict differs now.
func TestExplain_OlderStateAndPolicy(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, testSpec)
	addTodos(t, e, "a")
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Merge the v2 branch into main now?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	old := decide(t, e, "a1")
	if old.Verdict != "wait_human" {
		t.Fatalf("verdict %s", old.Verdict)
	}

	x, err := e.Explain(context.Background(), old.DecisionID)
	if err != nil || !x.Same || len(x.Changes) != 0 || len(x.Differences) != 0 {
		t.Fatalf("unchanged: same %v, changes %v, diffs %v, err %v", x.Same, x.Changes, x.Differences, err)
	}
	if n, _, _ := e.ReadLog(decision.LogFilter{}); len(n) != 1 {
		t.Fatalf("explain logged its re-run: %d entries", len(n))
	}

	if _, err := e.AnswerGate(gates.Answer{Gate: g.ID, Option: "approve", Actor: "human", Channel: TypedBack(g.ID)}); err != nil {
		t.Fatal(err)
	}
	forgeLoggedPolicy(t, e, old.DecisionID, "sha256:0123456789abcdef")
	x, err = e.Explain(context.Background(), old.DecisionID)
	if err != nil {
		t.Fatal(err)
	}
	now := x.Rerun.Revision.State
	wantChanges := []string{
		fmt.Sprintf("state changed since: revision %d → %d", old.Revision.State, now),
		"policy changed since: sha256:0123456789ab → " + decision.ShortHash(x.Rerun.Revision.Policy),
	}
	if x.Same || x.Rerun.Verdict != "run" || !slices.Equal(x.Changes, wantChanges) || !slices.Contains(x.Differences, "verdict: wait_human → run") {
		t.Fatalf("after the answer: same %v, rerun %s, changes %q, diffs %q", x.Same, x.Rerun.Verdict, x.Changes, x.Differences)
	}
	if x.Then.Verdict != "wait_human" || x.Logged.Input.Agent != "a1" || x.Input.State.Revision != now {
		t.Fatalf("logged %+v / input revision %d", x.Then, x.Input.State.Revision)
	}
	rules, full := strings.Join(x.RuleTrace, "\n"), strings.Join(x.Trace, "\n")
	for _, want := range []string{"loopx/run/decision.rego:", "Enter data.loopx.run.decision", "Exit data.loopx.run.selected"} {
		if !strings.Contains(rules, want) {
			t.Errorf("rule trace lacks %q:\n%s", want, rules)
		}
	}
	if strings.Contains(rules, "Redo") || len(x.Trace) <= len(x.RuleTrace) || !strings.Contains(full, "Eval") {
		t.Errorf("rule trace has redo steps, or the full trace (%d lines) is not fuller (%d)", len(x.Trace), len(x.RuleTrace))
	}
}

// forgeLoggedPolicy rewrites the logged policy revision of one decision,
// as if an older loopx (another built-in policy) had made it.
func forgeLoggedPolicy(t *testing.T, e *Engine, id, policy string) {
	t.Helper()
	b, err := os.ReadFile(e.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, id) {
			l = strings.ReplaceAll(l, `"loopx":{"revision":"`+policiesHash(e)+`"}`, `"loopx":{"revision":"`+policy+`"}`)
		}
		out = append(out, l)
	}
	if err := os.WriteFile(e.LogPath(), []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func policiesHash(e *Engine) string { _, p := e.rules.revisions(); return p }
