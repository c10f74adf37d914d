package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

func (a *app) agentCmd() *cobra.Command {
	c := &cobra.Command{Use: "agent", Short: "Register and list agents"}
	c.AddCommand(a.agentRegisterCmd(), a.agentListCmd())
	return c
}

// agentRegisterOptions are the argument and flags of `loopx agent
// register`.
type agentRegisterOptions struct {
	records.Agent
}

// validate checks the flags alone (no project opened); the engine checks
// the host, role and mode.
func (o *agentRegisterOptions) validate() error { return nil }

// runAgentRegister registers the agent once the built-in repair rule says
// a human runs this (engine.RegisterAgent).
func (a *app) runAgentRegister(ctx context.Context, o *agentRegisterOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	// Registering an agent names who may act: a human's call,
	// decided by the built-in channel rule
	// (data.loopx.repair.decision), never from an agent's process.
	if err := a.humanOnly(ctx, e, "agent register", true, "agent.register_refused", o.Agent.ID); err != nil {
		return err
	}
	saved, err := e.RegisterAgent(o.Agent)
	if err != nil {
		return err
	}
	return a.print(contract.AgentOf(saved), func(w io.Writer) { fmt.Fprintf(w, "registered %s (%s, %s)\n", saved.ID, saved.Host, saved.Role) })
}

func (a *app) agentRegisterCmd() *cobra.Command {
	o := &agentRegisterOptions{}
	c := &cobra.Command{
		Use: "register ID --host H [--role R]", Short: "Register an agent and the goals it may work on (human only)", Args: cobra.ExactArgs(1),
		Long: `Register an agent. With --goal G (repeatable) it may work on G even when the
spec's goals.G.agents lists other agents (the rule data.loopx.lib.agent_on_goal:
listed, or registered for the goal by a human); without --goal it joins only
goals that list no agents. Only a registration makes an agent the spec
does not declare known: the record loopx keeps of an agent that acted
(agent list) grants nothing. Human only: refused (exit 1) inside an agent round
(LOOPX_ROUND or LOOPX_AGENT set) and from a process that descends from an
agent (a loopx run runner, a process started with LOOPX_AGENT, an agent host).`,
		Example: "  loopx agent register codex --host codex --role executor --goal g1",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runAgentRegister(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Host, "host", "shell", "claude-code, codex, cursor, shell or other")
	f.StringVar(&o.Role, "role", "executor", "executor, reviewer, …")
	f.StringVar(&o.Mode, "mode", "active", "active or monitor_only")
	f.StringSliceVar(&o.Goals, "goal", nil, "goals it may work on, even where the spec's goals.<g>.agents lists others (repeatable)")
	return c
}
