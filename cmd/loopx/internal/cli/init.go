package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/render"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/presets"
	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
)

func (a *app) initCmd() *cobra.Command {
	var o engine.InitOptions
	c := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Scaffold loopx/loopx.cue and .loopx/ in a project",
		Long: `Init writes loopx/loopx.cue (unless it exists; --force overwrites), creates the
local state directory .loopx/ with an empty store, and adds .loopx/ to
.gitignore when the directory is inside a git repository. No git is needed.

The store adopts loopx/ as init leaves it (the rules in effect): an edit made
after init that loosens them waits for a human's loopx adopt. A store that
exists keeps its adopted rules (what --force writes is such an edit).

Presets: ` + strings.Join(presets.Names(), ", ") + `.`,
		Example: `  loopx init --goal g1 --objective "Ship the v2 API" --agent a1 --host shell
  loopx init --preset pr-watch --goal prs --objective "Keep open PRs green"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			o.Dir = "."
			if len(args) == 1 {
				o.Dir = args[0]
			} else if a.project != "" {
				o.Dir = a.project
			}
			if spec := filepath.Join(o.Dir, engine.SpecDirName, "loopx.cue"); (o.Goal != "" || o.Agent != "") && !o.Force {
				if _, err := os.Stat(spec); err == nil {
					return usagef("%s already exists: --goal, --agent and --preset would change it; edit it, or use --force to overwrite it", spec)
				}
			}
			if o.Now, err = a.clock(); err != nil {
				return err
			}
			res, err := engine.Init(o) // creates o.Dir once the options are valid
			if err != nil {
				return err
			}
			return a.print(res, func(w io.Writer) {
				if res.Created {
					fmt.Fprintf(w, "wrote %s\n", res.Spec)
				} else {
					fmt.Fprintf(w, "kept %s (use --force to overwrite)\n", res.Spec)
				}
				fmt.Fprintf(w, "state in %s/.loopx/\n", res.Root)
				if res.GitIgnore {
					fmt.Fprintln(w, "added .loopx/ to .gitignore")
				}
			})
		},
	}
	f := c.Flags()
	f.StringVar(&o.Preset, "preset", "", "unify the goal with this preset")
	f.StringVar(&o.Goal, "goal", "", "id of a first goal")
	f.StringVar(&o.Objective, "objective", "", "the first goal's objective (needed with --goal)")
	f.StringVar(&o.Agent, "agent", "", "id of a first agent")
	f.StringVar(&o.Host, "host", "", "the agent's host: claude-code, codex, cursor, shell, other (default shell)")
	f.BoolVar(&o.Force, "force", false, "overwrite an existing loopx/loopx.cue")
	return c
}

func (a *app) vetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "vet",
		Short: "Validate the spec (loopx/*.cue) and compile the user policies",
		Long: `Vet unifies every loopx/*.cue file with the embedded schema and reports every
error with file:line:col and the field path, then compiles the user policies
(loopx/policies/*.rego) with the built-in bundle and reports their errors the
same way: syntax and compile errors, a reference to a field the query's input
or the spec does not have (input.permission.comand; see loopx policy schema),
a built-in policies may not call (http.send, time.now_ns, …). Exit 0 when
valid, 2 otherwise. (loopx check does all of this and
more: lint rules, policy tests, the publication scan.)`,
		Example: `  loopx vet
  loopx vet --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.diskEngine()
			if err != nil {
				return err
			}
			if err := e.SpecErr(); specs.IsBudget(err) {
				return err // spent once already: not again
			}
			l, err := specs.Load(e.SpecDir())
			if err != nil {
				return err
			}
			probs, err := e.CheckPolicies()
			if len(probs) > 0 {
				list := make(errs.List, 0, len(probs))
				for _, p := range probs {
					list = append(list, &errs.Error{Kind: errs.Input, Code: p.Code, Message: p.Message,
						Location: errs.Location{File: p.File, Line: p.Row, Col: p.Col, Field: p.Rule}})
				}
				return list
			}
			if err != nil {
				return err
			}
			return a.print(map[string]any{"ok": true, "files": l.Files, "hash": l.Hash, "goals": e.GoalIDs()}, func(w io.Writer) {
				fmt.Fprintf(w, "ok: %d file(s), %d goal(s)\n", len(l.Files), len(l.Spec.Goals))
			})
		},
	}
}

func (a *app) statusCmd() *cobra.Command {
	var goal string
	c := &cobra.Command{
		Use:   "status",
		Short: "Summarise goals: status, quota, todos, gates, last round",
		Example: `  loopx status
  loopx status --goal g1 --json
  loopx status --project /tmp/loopx-demo-123`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			st, err := e.Status(goal)
			if err != nil {
				return err
			}
			return a.print(st, func(w io.Writer) { render.StatusText(w, st) })
		},
	}
	c.Flags().StringVar(&goal, "goal", "", "only this goal")
	return c
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print loopx's version",
		Example: "  loopx version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.print(map[string]string{"version": Version}, func(w io.Writer) { fmt.Fprintf(w, "loopx %s\n", Version) })
		},
	}
}

func (a *app) doctorCmd() *cobra.Command {
	var accept bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the project: spec, state store, recovered torn writes, installed hooks",
		Long: `Doctor opens the store and reports its path, revision, and whether a torn
tail (an incomplete last write, e.g. after kill -9 or a power cut) was ever
dropped on open. It also compares the hook entries ` + "`loopx hooks install`" + ` wrote
(recorded in .loopx/hooks.json) with the host settings files now, and
reports each entry that is missing or changed (deleted, its matcher
narrowed, its timeout or type edited: the host then runs tool calls
without asking loopx). A system clock earlier than the store's newest
commit (moved back) is reported as a clock: line. Exit 0 when healthy, 1
when a problem was found, 3 when the store cannot be opened.

A store that is missing or behind the last revision the project committed
(restored from a backup, truncated or replaced) is refused everywhere, so
that spent quota and open gates never silently disappear; after checking
why, --accept-store continues from the store as it is (audited). It is a
human-only repair, decided by the built-in channel rule
data.loopx.gate.repair alone (no user policy takes part, so a broken one
cannot lock the human out): refused (exit 1) from inside an agent round
(LOOPX_ROUND/LOOPX_AGENT) or from a process that descends from an agent.`,
		Example: "  loopx doctor --json\n  loopx doctor --accept-store",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			rep := map[string]any{"root": e.Root(), "spec_ok": e.SpecErr() == nil}
			if e.SpecErr() != nil {
				rep["spec_error"] = e.SpecErr().Error()
			}
			open := e.Store
			if accept {
				// A human-only repair: decided by the built-in channel rule
				// (data.loopx.gate.repair), never by user policies.
				in := engine.AnswerInput{Actor: "human"}
				if err := e.RepairAllowed(cmd.Context(), answerChannel(e, &in, a.stdin)); err != nil {
					return err
				}
				open = e.AcceptStore
			}
			s, err := open()
			if err != nil {
				return err
			}
			rev, err := s.Revision()
			if err != nil {
				return err
			}
			rep["store"], rep["revision"] = s.Path(), rev
			rec, err := s.LastRecovery()
			if err != nil {
				return err
			}
			rep["recovered"] = rec
			bad, err := s.Verify()
			if err != nil {
				return err
			}
			rep["corrupt_records"] = bad
			hookProblems, err := e.CheckHooks()
			if err != nil {
				return err
			}
			if hookProblems == nil {
				hookProblems = []engine.HookProblem{}
			}
			rep["hooks"] = hookProblems
			newest, clockBehind := e.ClockBehind()
			if clockBehind {
				rep["clock_behind"] = map[string]any{"now": e.Now(), "newest_commit": newest}
			}
			if err := a.print(rep, func(w io.Writer) {
				fmt.Fprintf(w, "store %s: revision %d\n", s.Path(), rev)
				if rec != nil {
					done := "every complete transaction kept"
					if rec.Completed {
						done = "the last transaction was completed from its journal"
					}
					fmt.Fprintf(w, "recovered: a torn tail of %d bytes was dropped on open at %s (%s)\n", rec.DroppedBytes, rec.At.Format("2006-01-02T15:04:05Z"), done)
				}
				for _, k := range bad {
					fmt.Fprintf(w, "corrupt record: %s (its value does not decode; restore state.db from a backup)\n", k)
				}
				if e.SpecErr() != nil {
					fmt.Fprintf(w, "spec: %v\n", e.SpecErr())
				} else {
					fmt.Fprintln(w, "spec: ok")
				}
				if clockBehind {
					fmt.Fprintln(w, strings.TrimPrefix(clockBehindLine(e.Now(), newest), "loopx: "))
				}
				for _, p := range hookProblems {
					fmt.Fprintf(w, "hooks: %s: %s (the host no longer asks loopx there; a human re-installs them with `%s`)\n", p.Settings, p.Problem, p.Fix)
				}
			}); err != nil {
				return err
			}
			if e.SpecErr() != nil || len(bad) > 0 || len(hookProblems) > 0 || clockBehind {
				return reported(errs.No)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&accept, "accept-store", false, "accept a store behind the last committed revision (after checking why)")
	return c
}
