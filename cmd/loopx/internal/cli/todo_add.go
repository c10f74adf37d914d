package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/render"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
)

func (a *app) todoCmd() *cobra.Command {
	c := &cobra.Command{Use: "todo", Short: "Add, list, show and settle todos"}
	c.AddCommand(a.todoAddCmd(), a.todoListCmd(), a.todoShowCmd(),
		a.todoStatusCmd("done", kernel.TodoDone, "Mark a todo done"),
		a.todoStatusCmd("block", kernel.TodoBlocked, "Mark a todo blocked (it is not selected until reopened)"),
		a.todoStatusCmd("cancel", kernel.TodoCancelled, "Cancel a todo"),
		a.todoStatusCmd("reopen", kernel.TodoOpen, "Reopen a todo"))
	c.AddCommand(a.todoLeaseCmds()...) // claim.go
	return c
}

func (a *app) todoAddCmd() *cobra.Command {
	var in engine.TodoInput
	var prio, every string
	c := &cobra.Command{
		Use:   "add --goal G TITLE",
		Short: "Add a todo to a goal",
		Example: `  loopx todo add --goal g1 "Write the migration guide"
  loopx todo add --goal g1 --priority P0 --depends-on t-4f9a "Publish the guide"
  loopx todo add --goal g1 --kind monitor --every 15m "Check CI on open PRs"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			in.Title = strings.Join(args, " ")
			p, err := engine.ParsePriority(prio)
			if err != nil {
				return err
			}
			in.Priority = p
			if every != "" {
				d, err := specs.ParseDuration(every)
				if err != nil {
					return usagef("--every %q: %v", every, err)
				}
				in.EverySeconds = int64(d.Seconds())
			}
			if in.By, err = actor(cmd.Context(), e, "todo add", in.Goal); err != nil {
				return err
			}
			t, err := e.AddTodo(in)
			if err != nil {
				return err
			}
			return a.print(t, func(w io.Writer) { fmt.Fprintf(w, "added %s %s\n", t.ID, t.Title) })
		},
	}
	f := c.Flags()
	f.StringVar(&in.Goal, "goal", "", "the goal (required)")
	f.StringVar(&in.Kind, "kind", "task", "task, monitor, gate or action")
	f.StringVar(&prio, "priority", "P2", "P0 (most urgent) to P4")
	f.StringSliceVar(&in.DependsOn, "depends-on", nil, "todo ids that must be done first")
	f.StringSliceVar(&in.Labels, "label", nil, `labels ("review": for reviewers; "for:AGENT": handed to AGENT)`)
	f.StringArrayVar(&in.Scope, "scope", nil, "a glob the todo writes (repeatable, e.g. docs/**); two agents never hold overlapping scopes")
	f.StringVar(&every, "every", "", "a monitor's cadence (e.g. 15m)")
	return c
}

func todoRows(ts []kernel.Todo, now time.Time) [][]string {
	rows := make([][]string, 0, len(ts))
	for _, t := range ts {
		holder := ""
		if t.Lease != nil && !t.Lease.Released {
			holder = t.Lease.Holder
			if !t.Lease.LiveAt(now) {
				holder += " (expired)"
			}
		}
		rows = append(rows, []string{t.ID, t.Goal, kernel.PriorityString(t.Priority), t.Kind, t.Status, holder, t.Title})
	}
	return rows
}

func (a *app) todoListCmd() *cobra.Command {
	var goal, status string
	c := &cobra.Command{
		Use:     "list",
		Short:   "List todos (by priority, then age)",
		Example: "  loopx todo list --goal g1 --status open\n  loopx todo list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			ts, err := e.Todos(goal, status)
			if err != nil {
				return err
			}
			return a.print(ts, func(w io.Writer) {
				if len(ts) == 0 {
					fmt.Fprintln(w, "no todos")
					return
				}
				printTable(w, []string{"ID", "GOAL", "PRIO", "KIND", "STATUS", "HOLDER", "TITLE"}, todoRows(ts, e.Now()))
			})
		},
	}
	c.Flags().StringVar(&goal, "goal", "", "only this goal")
	c.Flags().StringVar(&status, "status", "", "only this status: open, claimed, done, blocked, cancelled")
	return c
}

func (a *app) todoShowCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "show TODO",
		Short:   "Show one todo",
		Example: "  loopx todo show t-4f9a --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			t, err := e.Todo(args[0])
			if err != nil {
				return err
			}
			return a.print(t, func(w io.Writer) {
				fmt.Fprintf(w, "%s %s\n  goal %s, %s %s, %s\n", t.ID, t.Title, t.Goal, kernel.PriorityString(t.Priority), t.Kind, t.Status)
				if len(t.DependsOn) > 0 {
					fmt.Fprintf(w, "  depends on %s\n", strings.Join(t.DependsOn, ", "))
				}
				if l := t.Lease; l != nil {
					fmt.Fprintf(w, "  lease: %s, version %d, epoch %d, expires %s, released %v\n", l.Holder, l.Version, l.Epoch, l.ExpiresAt.Format("2006-01-02T15:04:05Z"), l.Released)
				}
				if t.Note != "" {
					fmt.Fprintf(w, "  note: %s\n", t.Note)
				}
			})
		},
	}
}

func (a *app) todoStatusCmd(name, status, short string) *cobra.Command {
	var note string
	c := &cobra.Command{
		Use:     name + " TODO",
		Short:   short,
		Example: fmt.Sprintf("  loopx todo %s t-4f9a --note \"why\"", name),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			by, err := actor(cmd.Context(), e, "todo "+name, "")
			if err != nil {
				return err
			}
			t, err := e.SetTodoStatus(args[0], status, note, by)
			if err != nil {
				return err
			}
			return a.print(t, func(w io.Writer) { fmt.Fprintf(w, "%s %s: %s\n", t.ID, t.Title, t.Status) })
		},
	}
	c.Flags().StringVar(&note, "note", "", "why")
	return c
}

func (a *app) goalCmd() *cobra.Command {
	c := &cobra.Command{Use: "goal", Short: "List goals, show one, pause, resume or finish it"}
	list := &cobra.Command{
		Use: "list", Short: "List the spec's goals with their runtime status", Args: cobra.NoArgs,
		Example: "  loopx goal list --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			st, err := e.Status("")
			if err != nil {
				return err
			}
			return a.print(st.Goals, func(w io.Writer) {
				rows := [][]string{}
				for _, g := range st.Goals {
					rows = append(rows, []string{g.ID, g.Status, render.QuotaLine(g.Quota), g.Objective})
				}
				printTable(w, []string{"GOAL", "STATUS", "QUOTA", "OBJECTIVE"}, rows)
			})
		},
	}
	show := &cobra.Command{
		Use: "show GOAL", Short: "Show one goal", Args: cobra.ExactArgs(1),
		Example: "  loopx goal show g1",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			st, err := e.Status(args[0])
			if err != nil {
				return err
			}
			return a.print(st.Goals[0], func(w io.Writer) { render.StatusText(w, st) })
		},
	}
	c.AddCommand(list, show,
		a.goalStatusCmd("pause", kernel.GoalPaused, "Pause a goal: should-run answers skip until resumed"),
		a.goalStatusCmd("resume", kernel.GoalActive, "Resume a paused goal"),
		a.goalStatusCmd("done", kernel.GoalDone, "Mark a goal done"),
		a.goalStatusCmd("archive", kernel.GoalArchived, "Archive a goal"))
	return c
}

func (a *app) goalStatusCmd(name, status, short string) *cobra.Command {
	var reason string
	c := &cobra.Command{
		Use: name + " GOAL", Short: short, Args: cobra.ExactArgs(1),
		Example: fmt.Sprintf("  loopx goal %s g1 --reason \"why\"", name),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			by, err := actor(cmd.Context(), e, "goal "+name, args[0])
			if err != nil {
				return err
			}
			st, err := e.SetGoalStatus(args[0], status, reason, by)
			if err != nil {
				return err
			}
			return a.print(st, func(w io.Writer) { fmt.Fprintf(w, "goal %s: %s\n", st.ID, st.Status) })
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why")
	return c
}

func (a *app) evidenceCmd() *cobra.Command {
	c := &cobra.Command{Use: "evidence", Short: "Record and list evidence (test runs, PRs, logs, notes)"}
	var ev kernel.Evidence
	add := &cobra.Command{
		Use: "add --goal G SUMMARY", Short: "Record evidence", Args: cobra.MinimumNArgs(1),
		Example: `  loopx evidence add --goal g1 --kind test --status pass --ref "go test ./..." "all tests pass"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			ev.Summary = strings.Join(args, " ")
			if ev.By, err = actor(cmd.Context(), e, "evidence add", ev.Goal); err != nil {
				return err
			}
			saved, err := e.AddEvidence(ev)
			if err != nil {
				return err
			}
			return a.print(saved, func(w io.Writer) { fmt.Fprintf(w, "recorded %s %s\n", saved.ID, saved.Summary) })
		},
	}
	f := add.Flags()
	f.StringVar(&ev.Goal, "goal", "", "the goal (required)")
	f.StringVar(&ev.Kind, "kind", "note", "test, pr, log, metric, check or note")
	f.StringVar(&ev.Status, "status", "info", "pass, fail or info")
	f.StringVar(&ev.Ref, "ref", "", "a path, URL or command it points at")
	f.StringVar(&ev.Todo, "todo", "", "the todo it concerns")
	f.StringVar(&ev.Action, "action", "", "the guarded action it records (e.g. git.push); refused while a gate guards it")
	var goal string
	var limit int
	list := &cobra.Command{
		Use: "list --goal G", Short: "List evidence, newest first", Args: cobra.NoArgs,
		Example: "  loopx evidence list --goal g1 --limit 10",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			evs, err := e.Evidence(goal, limit)
			if err != nil {
				return err
			}
			return a.print(evs, func(w io.Writer) {
				rows := [][]string{}
				for _, x := range evs {
					rows = append(rows, []string{x.ID, x.CreatedAt.Format("2006-01-02T15:04:05Z"), x.Kind, x.Status, x.Summary})
				}
				printTable(w, []string{"ID", "AT", "KIND", "STATUS", "SUMMARY"}, rows)
			})
		},
	}
	list.Flags().StringVar(&goal, "goal", "", "the goal (required)")
	list.Flags().IntVar(&limit, "limit", 0, "at most this many (0 = all)")
	c.AddCommand(add, list)
	return c
}
