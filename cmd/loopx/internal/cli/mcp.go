package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/mcpserver"
	"github.com/spf13/cobra"
)

func (a *app) mcpCmd() *cobra.Command {
	var tools []string
	c := &cobra.Command{
		Use:   "mcp [--project DIR] [--tools LIST]",
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

Every call opens the project's state and releases its lock before it
returns, so other loopx commands run alongside the server.

Host configuration (e.g. .mcp.json for Claude Code):
  {"mcpServers": {"loopx": {"command": "loopx", "args": ["mcp", "--project", "/path/to/project"]}}}

Exit codes: 0 stdin closed; 2 usage (no project, unknown tool); 130 interrupted.`,
		Example: `  claude mcp add loopx -- loopx mcp --project "$PWD"
  codex mcp add loopx -- loopx mcp --project "$PWD" --tools all
  printf '%s\n' '{bad json' | loopx mcp --project .
    {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not valid JSON"}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := a.root()
			if err != nil {
				return err
			}
			if root, err = filepath.Abs(root); err != nil {
				return err
			}
			if _, err := os.Stat(root); err != nil {
				return fmt.Errorf("project %s: %w", root, os.ErrNotExist)
			}
			now, err := a.clock()
			if err != nil {
				return err
			}
			longRunning()
			return mcpserver.Serve(cmd.Context(), mcpserver.Options{
				Engine: engine.Options{Root: root, Now: now}, Version: Version, Tools: tools, RenderError: renderToolError,
			}, a.stdin, a.rawStdout) // the protocol stream: JSON-RPC, encoded by the SDK
		},
	}
	c.Flags().StringSliceVar(&tools, "tools", nil, "the tools to serve, comma-separated, or all (default "+strings.Join(mcpserver.DefaultTools, ",")+")")
	return c
}

// renderToolError renders an MCP tool's error as the CLI renders a command's:
// the text for people and the --json error envelope.
func renderToolError(err error) (string, any) {
	items := errorItems(err, exitCode(err))
	var b bytes.Buffer
	output.ErrorText(&b, items)
	return b.String(), map[string]any{"errors": items}
}
