package cli

import (
	"context"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/frontend/mcpserver"
	"github.com/spf13/cobra"
)

// mcpOptions are `loopx mcp`'s flags.
type mcpOptions struct {
	tools []string
	agent string
}

// validate checks the flags alone (no project opened): an unknown tool is
// a usage error (exit 2).
func (o *mcpOptions) validate() error { return mcpserver.CheckTools(o.tools) }

// runMCP binds the session's agent on the project and serves MCP on
// stdin/stdout until stdin closes.
func (a *app) runMCP(ctx context.Context, o *mcpOptions) error {
	root, err := a.root()
	if err != nil {
		return err
	}
	if root, err = mcpserver.ProjectRoot(root); err != nil {
		return err
	}
	now, err := a.clock()
	if err != nil {
		return err
	}
	eo := engine.Options{Root: root, Now: now, StateHome: a.opts.StateHome, Ancestry: a.ancestry(), Resident: a.opts.Resident}
	bound, err := mcpserver.Bind(ctx, eo, o.agent)
	if err != nil {
		return err
	}
	longRunning()
	return mcpserver.Serve(ctx, mcpserver.Options{
		Engine: eo, Version: Version, Tools: o.tools, Agent: bound,
	}, a.stdin, a.rawStdout) // the protocol stream: JSON-RPC, encoded by the SDK
}

func (a *app) mcpCmd() *cobra.Command {
	o := &mcpOptions{}
	c := &cobra.Command{
		Use:   "mcp [--project DIR] [--agent ID] [--tools LIST]",
		Short: "Serve loopx to an agent host over MCP (stdio)",
		Long: `Mcp serves the Model Context Protocol on stdin/stdout for agent hosts that call
tools. The default tools are what one bounded turn needs:
  ` + strings.Join(mcpserver.DefaultTools, ", ") + `
--tools all adds ` + strings.Join(mcpserver.ExtraTools, ", ") + `; --tools A,B serves exactly those.
Each result is the JSON document the matching command prints with --json, as
structured content that the tool's output schema describes; a refusal (quota,
lease, gate, unknown goal, broken spec) is a tool error with the message and
the JSON error envelope. There is no tool to answer a gate: an agent may
raise one, only a human answers it.

Every frame is answered as JSON-RPC 2.0 says and the server keeps serving: a
line that is not JSON gets -32700, an invalid request -32600 (lines are
limited to 1 MiB); batches are answered on protocol 2025-03-26 and older and
refused with -32600 on newer ones. When stdin closes, every call already read
is finished and answered before the server exits (exit 0).

The session acts as one agent, bound at start: --agent ID, else the one agent
the server's ancestor processes run as (a host started with LOOPX_AGENT=ID, a
loopx run --agent ID). A call naming another agent is refused; a call naming
none acts as the bound agent; an unbound session refuses every call that names
an agent. --agent is refused (exit 1) when the processes above the server run
as another agent.

Every call opens the project's state and releases its lock before it
returns, so other loopx commands run alongside the server.

Host configuration (e.g. .mcp.json for Claude Code):
  {"mcpServers": {"loopx": {"command": "loopx", "args": ["mcp", "--project", "/path/to/project", "--agent", "claude"]}}}

Exit codes: 0 stdin closed; 1 --agent names another agent than the processes
above run as; 2 usage (no project, unknown tool); 130 interrupted.`,
		Example: `  claude mcp add loopx -- loopx mcp --project "$PWD" --agent claude
  codex mcp add loopx -- loopx mcp --project "$PWD" --agent codex --tools all
  printf '%s\n' '{bad json' | loopx mcp --project .
    {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not valid JSON"}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runMCP(cmd.Context(), o)
		},
	}
	c.Flags().StringVar(&o.agent, "agent", "", "the agent this session acts as (default: the one agent the host process was started as, LOOPX_AGENT)")
	c.Flags().StringSliceVar(&o.tools, "tools", nil, "the tools to serve, comma-separated, or all (default "+strings.Join(mcpserver.DefaultTools, ",")+")")
	return c
}
