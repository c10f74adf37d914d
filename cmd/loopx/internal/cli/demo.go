package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/render"
	"github.com/spf13/cobra"
)

// demoSpec is the demo project's spec: one shell agent, one goal with a
// quota of 3 rounds per day.
const demoSpec = `// The loopx demo project: a shell agent works through todos.
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

// demoAgent is the shell agent: it edits files, runs a real check, records
// evidence, and on its second round asks a human a question (a gate).
const demoAgent = `#!/bin/sh
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

// demoOptions are the flags of `loopx demo`.
type demoOptions struct {
	dir string
}

// validate checks the flags alone: --dir, when given, is new or empty.
func (o *demoOptions) validate() error {
	if o.dir == "" {
		return nil
	}
	if entries, err := os.ReadDir(o.dir); err == nil && len(entries) > 0 {
		return usagef("demo --dir %s: the directory is not empty; the demo only runs in a new or empty directory", o.dir)
	}
	return nil
}

func (a *app) demoCmd() *cobra.Command {
	o := &demoOptions{}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run a governed loop end to end in a fresh temporary project",
		Long: `Demo creates a project in a new temporary directory, declares a shell agent
and a goal with a 3-round quota, adds todos, and runs a real shell agent with
'loopx run'. The agent edits files, runs a check and records evidence; on its
second round it raises a gate, and the loop stops (wait_human). The demo
answers the gate as the human, and the loop runs again until the quota stops
it (skip, quota_exhausted). It prints every decision with its reasons and,
at the end, the directory to inspect with 'loopx status --project DIR'.`,
		Example: "  loopx demo\n  go run ./cmd/loopx demo",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runDemo(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.dir, "dir", "", "use this (new or empty) directory instead of a temporary one")
	return c
}

// runDemo runs the demo in --dir or a new temporary directory: the
// narration goes to stdout (stderr under --json, whose one document is the
// final status).
func (a *app) runDemo(ctx context.Context, o *demoOptions) (err error) {
	w := a.stderr
	if !a.json {
		w = a.stdout
	}
	dir := o.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "loopx-demo-"); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	step := func(format string, args ...any) { fmt.Fprintf(w, "\n== "+format+"\n", args...) }

	now, err := a.clock()
	if err != nil {
		return err
	}
	step("loopx init in %s (not a git repository)", dir)
	// The demo's spec is in place before init, which keeps it and adopts
	// it as the rules in effect (a spec written after init would be an
	// edit that loosens, pending until a human adopts it).
	if err := os.MkdirAll(filepath.Join(dir, engine.SpecDirName), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, engine.SpecDirName, "loopx.cue"), []byte(demoSpec), 0o644); err != nil {
		return err
	}
	if _, err := engine.Init(engine.InitOptions{Dir: dir, Demo: true, Now: now}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.sh"), []byte(demoAgent), 0o755); err != nil {
		return err
	}
	fmt.Fprint(w, demoSpec)
	e := engine.New(engine.Options{Root: dir, Now: now})
	defer e.Close()
	if err := e.SpecErr(); err != nil {
		return err
	}
	if _, err := e.RegisterAgent(engine.Agent{ID: "worker", Host: "shell", Role: "executor", Mode: "active"}); err != nil {
		return err
	}
	step("four todos")
	for _, title := range []string{"Write src/greet.sh", "Check the greeting by name", "Record the check as evidence", "Polish the output"} {
		t, err := e.AddTodo(engine.TodoInput{Goal: "greet", Title: title, Priority: 2, By: "human"})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "added %s %s\n", t.ID, t.Title)
	}
	if err := os.Setenv("LOOPX_BIN", exe); err != nil {
		return err
	}
	run := func() (engine.RunResult, error) {
		return e.Run(ctx, engine.RunOptions{Goal: "greet", Agent: "worker", Cmd: []string{"sh", "agent.sh"},
			Stdout: w, Stderr: w,
			OnDecision: func(d engine.Decision) { fmt.Fprint(w, "decision → "); renderDecision(w, d, false) },
			OnReceipt: func(rc engine.Receipt) {
				fmt.Fprintf(w, "round %s finished: %s, charged %v\n", rc.Round.ID, rc.Round.Outcome, rc.Charged)
			}})
	}
	step("loopx run --goal greet --agent worker -- sh agent.sh")
	res, err := run()
	if err != nil {
		return err
	}
	if res.Last == nil || res.Last.Verdict != "wait_human" {
		return fmt.Errorf("demo: expected the loop to stop at a gate, got %+v", res.Last)
	}
	gates, err := e.Gates("greet", "open")
	if err != nil || len(gates) == 0 {
		return fmt.Errorf("demo: no open gate after wait_human: %v", err)
	}
	step("the loop stopped at gate %s; a human answers it", gates[0].ID)
	if _, err := e.AnswerGate(engine.AnswerInput{Gate: gates[0].ID, Option: "approve", Actor: "human", Note: "demo: looks good", Channel: engine.Channel{Kind: "demo"}}); err != nil {
		return err
	}
	fmt.Fprintf(w, "(at a terminal, a human runs: loopx gate answer %s --option approve, and types the gate id to confirm)\n", gates[0].ID)
	step("loopx run again: it continues until the quota stops it")
	res, err = run()
	if err != nil {
		return err
	}
	if res.Last == nil || !res.Last.HasReason("quota_exhausted") {
		return fmt.Errorf("demo: expected the loop to stop at the quota, got %+v", res.Last)
	}
	st, err := e.Status("greet")
	if err != nil {
		return err
	}
	step("status")
	render.StatusText(w, st)
	e.Close()
	step("done; inspect it with:\n  loopx status --project %s\n  loopx events --project %s", dir, dir)
	if a.json {
		return a.print(map[string]any{"dir": dir, "status": st}, nil)
	}
	fmt.Fprintln(a.stdout, dir)
	return nil
}
