package trust

// ActRequest is a command's request to act as an agent (an
// agent acts only as itself), judged by data.loopx.identity.acting.
type ActRequest struct {
	// Agent is the agent the command names: its --agent, or $LOOPX_AGENT
	// as the flag's default ("" = none: it acts as the one agent its
	// ancestry carries, if any).
	Agent string
	// Mode is "act", "bind" or "session" (ActingFacts.Mode).
	Mode string
	// Bound is the MCP session's agent (mode "session").
	Bound string
	// What names the act for its audit event ("todo claim", "round start",
	// "mcp round_start", …).
	What string
	// Goal, Todo and Round are what the act concerns ("" when none): the
	// audit event of a refusal belongs to Goal, else to the todo's or the
	// round's goal, so that `loopx review` of that goal shows it.
	Goal, Todo, Round string
	// Fast reads the runners recorded on rounds from the read model, not
	// the store, while the store is not open: for a hook on its latency
	// budget only. The read model is a file an agent outside a sandbox can
	// rewrite (loopx run's change scan then sees it), which could hide a
	// runner; a hook's host carries its agent in its start environment
	// anyway, so what the hook decides for does not rest on the runner.
	Fast bool
	// FromEnv: Agent is $LOOPX_AGENT alone, naming who runs the command
	// for its events (no --agent flag): ActingFacts.FromEnv.
	FromEnv bool
}
