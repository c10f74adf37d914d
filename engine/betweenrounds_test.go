package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

const betweenSpec = `agents: {
	a1: {host: "shell", role: "executor"}
}
goals: g1: {
	objective: "Test the engine"
	agents: ["a1"]
	quota: {window: "24h", rounds: 10, min_interval: "0s"}
	scope: write: ["src/**"]
}
project: sandbox: mode: "off" // the detached writer of the unconfined case: inside the sandbox it dies with the round
`

// TestRun_ProtectedChangedBetweenRounds: a process the agent detached
// writes a git hook after its round ended; the next round (any agent's)
// does not run its command: it is finished not charged, an audit event
// names the hook as changed between rounds, and a gate stops the goal
// until a human approves. A human's edit of loopx/ between rounds stays
// adoption's business.
func TestRun_ProtectedChangedBetweenRounds(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	root := t.TempDir()
	writeSpec(t, root, betweenSpec)
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitInit(t, root)
	e := New(Options{Root: root, StateHome: stateHome(root), Now: testproject.NewClock().Now})
	t.Cleanup(func() { e.Close() })
	addTodos(t, e, "a", "b", "c")
	run := func(script string) (runround.Result, error) {
		return e.Run(context.Background(), runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1,
			Cmd: []string{"sh", "-ec", script}, Stdout: os.Stderr, Stderr: os.Stderr})
	}
	// The detached writer waits for the test's signal (outside the
	// project) so that it writes after the round ended, never during it.
	signal, written := filepath.Join(t.TempDir(), "go"), filepath.Join(t.TempDir(), "written")
	res, err := run(`echo a > src/a.txt
setsid sh -c 'while [ ! -e "` + signal + `" ]; do sleep 0.05; done; echo evil >> .git/hooks/pre-commit; touch "` + written + `"' >/dev/null 2>&1 < /dev/null &`)
	if err != nil || len(res.Receipts) != 1 || res.Receipts[0].Round.Outcome != records.OutcomeProgress {
		t.Fatalf("round 1: %+v %v", res.Receipts, err)
	}
	if err := os.WriteFile(signal, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		if _, err := os.Stat(written); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the detached writer never wrote")
		}
		time.Sleep(20 * time.Millisecond)
	}

	res, err = run("echo b > src/b.txt")
	if errs.CodeOf(err) != "protected_changed_between_rounds" || !errs.IsKind(err, errs.No) {
		t.Fatalf("round 2: %v", err)
	}
	if !strings.Contains(err.Error(), ".git/hooks/pre-commit") {
		t.Fatalf("round 2's refusal does not name the hook: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "src", "b.txt")); err == nil {
		t.Fatal("round 2 ran its command")
	}
	rc := res.Receipts[0]
	if rc.Round.Outcome != records.OutcomePreflightFailed || rc.Charged || rc.Gate == nil {
		t.Fatalf("round 2: outcome %s, charged %v, gate %v", rc.Round.Outcome, rc.Charged, rc.Gate)
	}
	evs, err := e.Events(reportdata.EventFilter{Kind: "scope_violation.between_rounds"})
	if err != nil || len(evs) != 1 || !strings.Contains(evs[0].Message, ".git/hooks/pre-commit") || !strings.Contains(evs[0].Message, "by whom unknown") {
		t.Fatalf("events %+v %v", evs, err)
	}
	// The gate stops the goal until a human answers it.
	if res, err := run("echo b > src/b.txt"); err != nil || len(res.Receipts) != 0 || res.Last == nil || res.Last.Verdict != "wait_human" {
		t.Fatalf("with the gate open: %+v %v", res, err)
	}
	if _, err := e.AnswerGate(gates.Answer{Gate: rc.Gate.ID, Option: "approve", Actor: "human", Channel: TypedBack(rc.Gate.ID)}); err != nil {
		t.Fatal(err)
	}
	// Approved: the hook as it is is the one seen. A human's edit of the
	// spec between rounds is adoption's, not a change between rounds.
	spec := filepath.Join(root, scaffold.SpecDirName, "loopx.cue")
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, append(b, "// a human's note\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = run("echo b > src/b.txt")
	if err != nil || len(res.Receipts) != 1 || res.Receipts[0].Round.Outcome != records.OutcomeProgress {
		t.Fatalf("round 3, after the approval: %+v %v", res.Receipts, err)
	}
}
