package cli

import (
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/render"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
)

func (a *app) quotaCmd() *cobra.Command {
	c := &cobra.Command{Use: "quota", Short: "Show quota usage"}
	var goal string
	st := &cobra.Command{
		Use: "status", Short: "Show each goal's quota: used/limit in the rolling window and when it resets", Args: cobra.NoArgs,
		Example: "  loopx quota status --goal g1 --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			s, err := e.Status(goal)
			if err != nil {
				return err
			}
			out := map[string]*engine.QuotaSummary{}
			for _, g := range s.Goals {
				out[g.ID] = g.Quota
			}
			return a.print(out, func(w io.Writer) {
				for _, g := range s.Goals {
					fmt.Fprintf(w, "%s: %s\n", g.ID, render.QuotaLine(g.Quota))
				}
			})
		},
	}
	st.Flags().StringVar(&goal, "goal", "", "only this goal")
	c.AddCommand(st)
	return c
}

func (a *app) eventsCmd() *cobra.Command {
	var f engine.EventFilter
	var since string
	c := &cobra.Command{
		Use:   "events",
		Short: "Show the audit log: every mutation, gate violation and recovery",
		Example: `  loopx events --goal g1 --since 2h
  loopx events --kind gate --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			if f.Limit < 0 {
				return usagef("--limit %d must not be negative", f.Limit)
			}
			if since != "" {
				d, err := specs.ParseDuration(since)
				if err != nil {
					return usagef("--since %q: %v", since, err)
				}
				if d <= 0 {
					return usagef("--since %q must be a positive duration", since)
				}
				f.SinceSeconds = int64(d.Seconds())
			}
			evs, err := e.Events(f)
			if err != nil {
				return err
			}
			return a.print(evs, func(w io.Writer) {
				for _, ev := range evs {
					fmt.Fprintf(w, "%s  %-18s %-8s %-10s %s %s\n", ev.At.Format("2006-01-02T15:04:05Z"), ev.Kind, ev.Goal, ev.Actor, ev.Subject, ev.Message)
				}
			})
		},
	}
	c.Flags().StringVar(&f.Goal, "goal", "", "only this goal")
	c.Flags().StringVar(&f.Kind, "kind", "", "only this kind or family (gate, gate.answered, round, todo, …)")
	c.Flags().StringVar(&since, "since", "", "only events this recent (e.g. 2h, 7d)")
	c.Flags().IntVar(&f.Limit, "limit", 0, "only the newest N")
	return c
}

func (a *app) agentCmd() *cobra.Command {
	c := &cobra.Command{Use: "agent", Short: "Register and list agents"}
	var ag kernel.Agent
	reg := &cobra.Command{
		Use: "register ID --host H [--role R]", Short: "Register an agent (spec agents register on first use)", Args: cobra.ExactArgs(1),
		Long: `Register an agent. Human only: refused (exit 1) inside an agent round
(LOOPX_ROUND or LOOPX_AGENT set) and from a process that descends from an
agent (a loopx run runner, a process started with LOOPX_AGENT, an agent host).`,
		Example: "  loopx agent register codex --host codex --role executor --goal g1",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			// Registering an agent names who may act: a human's call
			// (design §16), decided by the built-in channel rule
			// (data.loopx.gate.repair), never from an agent's process.
			in := engine.AnswerInput{Actor: "human"}
			if err := e.RepairAllowed(cmd.Context(), answerChannel(e, &in, a.stdin)); err != nil {
				if re := errs.As(err); re != nil && re.Kind == errs.No {
					re.Message = "agent register is for a human: " + re.Message
				}
				return err
			}
			ag.ID = args[0]
			saved, err := e.RegisterAgent(ag)
			if err != nil {
				return err
			}
			return a.print(saved, func(w io.Writer) { fmt.Fprintf(w, "registered %s (%s, %s)\n", saved.ID, saved.Host, saved.Role) })
		},
	}
	reg.Flags().StringVar(&ag.Host, "host", "shell", "claude-code, codex, cursor, shell or other")
	reg.Flags().StringVar(&ag.Role, "role", "executor", "executor, reviewer, …")
	reg.Flags().StringVar(&ag.Mode, "mode", "active", "active or monitor_only")
	reg.Flags().StringSliceVar(&ag.Goals, "goal", nil, "goals it works on")
	list := &cobra.Command{
		Use: "list", Short: "List registered agents with heartbeat facts: last seen, open round, live lease", Args: cobra.NoArgs,
		Example: "  loopx agent list --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			as, err := e.AgentInfos()
			if err != nil {
				return err
			}
			return a.print(as, func(w io.Writer) {
				rows := [][]string{}
				for _, x := range as {
					seen := ""
					if !x.LastSeenAt.IsZero() {
						seen = x.LastSeenAt.Format("2006-01-02T15:04:05Z")
					}
					lease := ""
					if l := x.CurrentLease; l != nil {
						lease = fmt.Sprintf("%s v%d until %s", l.Todo, l.Version, l.ExpiresAt)
						if n := len(x.Leases); n > 1 {
							lease += fmt.Sprintf(" (+%d)", n-1)
						}
					}
					rows = append(rows, []string{x.ID, x.Host, x.Role, x.Mode, seen, x.CurrentRound, lease})
				}
				printTable(w, []string{"ID", "HOST", "ROLE", "MODE", "LAST SEEN", "ROUND", "LEASE"}, rows)
			})
		},
	}
	c.AddCommand(reg, list)
	return c
}
