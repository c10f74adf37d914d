// Package demo is loopx demo: a governed loop end to end in a fresh
// project. A shell agent works through todos under a 3-round quota, raises
// a gate on its second round (the loop stops: wait_human), a human answers
// it, and the loop runs again until the quota stops it. It drives the
// engine as any caller does (init, register, add todos, run, answer).
package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel/records"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/engine/reporting/render"
)

// Spec is the demo project's spec (loopx/loopx.cue): one shell agent, one goal with a
// quota of 3 rounds per day.
const Spec = `// The loopx demo project: a shell agent works through todos.
project: name: "loopx-demo"

agents: worker: {host: "shell", role: "executor"}

goals: greet: {
	objective: "Build a tiny greeting tool, checked by a real test"
	agents: ["worker"]
	quota: {window: "24h", rounds: 3, min_interval: "0s"}
	stall: max_no_progress: 3
	scope: write: ["src/**"]
}
`

// AgentScript is the shell agent (agent.sh): it edits files, runs a real check, records
// evidence, and on its second round asks a human a question (a gate).
const AgentScript = `#!/bin/sh
# A shell "agent": one bounded turn on the todo loopx selected.
set -e
mkdir -p src
echo "$LOOPX_TODO" >> src/done.txt
cat > src/greet.sh <<'SH'
#!/bin/sh
echo "hello, ${1:-world}"
SH
# A real check: the tool must greet by name.
out=$(sh src/greet.sh loopx)
test "$out" = "hello, loopx"
"$LOOPX_BIN" evidence add --goal "$LOOPX_GOAL" --todo "$LOOPX_TODO" --kind test --status pass \
  --ref "sh src/greet.sh loopx" "greet.sh prints 'hello, loopx' after $LOOPX_TODO" >/dev/null
# Report the round itself (loopx run respects that) ...
"$LOOPX_BIN" round finish "$LOOPX_ROUND" --outcome progress --done \
  --summary "greet.sh written and checked" >/dev/null
# ... and on the second round, ask a human before going further.
rounds=$(wc -l < src/done.txt)
if [ "$rounds" -eq 2 ] && [ ! -f src/.asked ]; then
  touch src/.asked
  "$LOOPX_BIN" gate raise --goal "$LOOPX_GOAL" \
    --question "Publish greet.sh to the team's shared scripts folder now?" >/dev/null
fi
`

// Options are what one demo run needs: Dir, a new or empty directory;
// Now, the clock; Exe, the loopx binary the agent script calls
// ($LOOPX_BIN); Out, where the narration, the agent's output and the
// status go; OnDecision, called with each decision of the loop (the
// caller renders it after Out's "decision → ").
type Options struct {
	Dir        string
	Now        func() time.Time
	Exe        string
	Out        io.Writer
	OnDecision func(decision.Decision)
}

// Result is the demo's end: its project directory and the goal's status.
type Result struct {
	Dir    string
	Status render.Status
}

// Run runs the demo in o.Dir, narrating on o.Out. Errors: a step that
// fails, or a loop that does not stop where the demo expects it (at the
// gate, then at the quota).
func Run(ctx context.Context, o Options) (Result, error) {
	decide := o.OnDecision
	o.OnDecision = func(d decision.Decision) {
		fmt.Fprint(o.Out, "decision → ")
		if decide != nil {
			decide(d)
		}
	}
	w, dir := o.Out, o.Dir
	step := func(format string, args ...any) { fmt.Fprintf(w, "\n== "+format+"\n", args...) }
	step("loopx init in %s (not a git repository)", dir)
	// The demo's spec is in place before init, which keeps it and adopts
	// it as the rules in effect (a spec written after init would be an
	// edit that loosens, pending until a human adopts it).
	// dir is the user's (--dir, or a temporary directory): made as named;
	// every file is written below it without following a link
	// (internal/nofollow): a link placed there meanwhile is refused.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, err
	}
	if err := nofollow.WriteFile(dir, filepath.Join(scaffold.SpecDirName, "loopx.cue"), []byte(Spec), 0o644); err != nil {
		return Result{}, err
	}
	if _, err := engine.Init(scaffold.Options{Dir: dir, Demo: true, Now: o.Now}); err != nil {
		return Result{}, err
	}
	if err := nofollow.WriteFile(dir, "agent.sh", []byte(AgentScript), 0o755); err != nil {
		return Result{}, err
	}
	fmt.Fprint(w, Spec)
	e := engine.New(engine.Options{Root: dir, Now: o.Now})
	defer e.Close()
	if err := e.SpecErr(); err != nil {
		return Result{}, err
	}
	if _, err := e.RegisterAgent(records.Agent{ID: "worker", Host: "shell", Role: "executor", Mode: "active"}); err != nil {
		return Result{}, err
	}
	step("four todos")
	for _, title := range []string{"Write src/greet.sh", "Check the greeting by name", "Record the check as evidence", "Polish the output"} {
		t, err := e.AddTodo(todos.Input{Goal: "greet", Title: title, Priority: 2, By: "human"})
		if err != nil {
			return Result{}, err
		}
		fmt.Fprintf(w, "added %s %s\n", t.ID, t.Title)
	}
	if err := os.Setenv("LOOPX_BIN", o.Exe); err != nil {
		return Result{}, err
	}
	run := func() (runround.Result, error) {
		return e.Run(ctx, runround.Options{Goal: "greet", Agent: "worker", Cmd: []string{"sh", "agent.sh"},
			Stdout: w, Stderr: w,
			OnDecision: o.OnDecision,
			OnReceipt: func(rc rounds.Receipt) {
				fmt.Fprintf(w, "round %s finished: %s, charged %v\n", rc.Round.ID, rc.Round.Outcome, rc.Charged)
			}})
	}
	step("loopx run --goal greet --agent worker -- sh agent.sh")
	res, err := run()
	if err != nil {
		return Result{}, err
	}
	if res.Last == nil || res.Last.Verdict != "wait_human" {
		return Result{}, fmt.Errorf("demo: expected the loop to stop at a gate, got %+v", res.Last)
	}
	open, err := e.Gates("greet", "open")
	if err != nil || len(open) == 0 {
		return Result{}, fmt.Errorf("demo: no open gate after wait_human: %v", err)
	}
	step("the loop stopped at gate %s; a human answers it", open[0].ID)
	if _, err := e.AnswerGate(gates.Answer{Gate: open[0].ID, Option: "approve", Actor: "human", Note: "demo: looks good", Channel: input.Channel{Kind: "demo"}}); err != nil {
		return Result{}, err
	}
	fmt.Fprintf(w, "(at a terminal, a human runs: loopx gate answer %s --option approve, and types the gate id to confirm)\n", open[0].ID)
	step("loopx run again: it continues until the quota stops it")
	res, err = run()
	if err != nil {
		return Result{}, err
	}
	if res.Last == nil || !res.Last.HasReason("quota_exhausted") {
		return Result{}, fmt.Errorf("demo: expected the loop to stop at the quota, got %+v", res.Last)
	}
	st, err := e.Status("greet")
	if err != nil {
		return Result{}, err
	}
	step("status")
	render.StatusText(w, st)
	step("done; inspect it with:\n  loopx status --project %s\n  loopx events --project %s", dir, dir)
	return Result{Dir: dir, Status: st}, nil
}
