package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp [--project DIR]",
		Short: "Serve loopx to an agent host over MCP (stdio, 7 tools)",
		Long: `Mcp serves the Model Context Protocol on stdin/stdout, for agent hosts that
call tools: should_run, round_start, round_finish, todo_add, evidence_add,
gate_raise and status. Each result is the JSON document the matching command
prints with --json; a refusal (quota, lease, gate, unknown goal, broken spec)
is a tool error with the message. There is no tool to answer a gate: an agent
may raise one, only a human answers it.

Every call opens the project's state and releases its lock before it
returns, so other loopx commands run alongside the server.

Host configuration (e.g. .mcp.json for Claude Code):
  {"mcpServers": {"loopx": {"command": "loopx", "args": ["mcp", "--project", "/path/to/project"]}}}`,
		Example: `  loopx mcp --project .
  claude mcp add loopx -- loopx mcp --project "$PWD"`,
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
			now, err := clock()
			if err != nil {
				return err
			}
			longRunning()
			s := NewMCPServer(engine.Options{Root: root, Now: now})
			return s.Run(cmd.Context(), &mcp.IOTransport{Reader: nopReadCloser{a.stdin}, Writer: nopWriteCloser{a.stdout}})
		},
	}
}

// nopReadCloser and nopWriteCloser keep the server from closing the
// process's stdin and stdout.
type nopReadCloser struct{ r io.Reader }

func (n nopReadCloser) Read(p []byte) (int, error) { return n.r.Read(p) }
func (nopReadCloser) Close() error                 { return nil }

type nopWriteCloser struct{ w io.Writer }

func (n nopWriteCloser) Write(p []byte) (int, error) { return n.w.Write(p) }
func (nopWriteCloser) Close() error                  { return nil }

// Tool inputs. Fields without omitempty are required by the input schema.
type (
	mcpGoalAgent struct {
		Goal  string `json:"goal" jsonschema:"the goal id (from the spec)"`
		Agent string `json:"agent" jsonschema:"your agent id"`
	}
	mcpEvidence struct {
		Kind    string `json:"kind" jsonschema:"test, pr, log, metric, check or note"`
		Status  string `json:"status" jsonschema:"pass, fail or info"`
		Summary string `json:"summary" jsonschema:"what the evidence shows"`
	}
	mcpFinish struct {
		Round    string        `json:"round" jsonschema:"the round id returned by round_start"`
		Outcome  string        `json:"outcome" jsonschema:"progress or failed (charged), no_change, preflight_failed or dry_run (not charged)"`
		Agent    string        `json:"agent,omitempty" jsonschema:"your agent id; when given it must be the round's agent"`
		Summary  string        `json:"summary,omitempty" jsonschema:"what the round did"`
		Tokens   int64         `json:"tokens,omitempty" jsonschema:"model tokens the round used"`
		CostUSD  float64       `json:"cost_usd,omitempty" jsonschema:"cost of the round in US dollars"`
		Done     bool          `json:"done,omitempty" jsonschema:"mark the round's todo done"`
		Handoff  string        `json:"handoff,omitempty" jsonschema:"what the next round must know"`
		NextTodo string        `json:"next_todo,omitempty" jsonschema:"add a successor todo with this title"`
		Evidence []mcpEvidence `json:"evidence,omitempty" jsonschema:"evidence recorded with the finish"`
	}
	mcpTodo struct {
		Goal     string `json:"goal" jsonschema:"the goal id"`
		Title    string `json:"title" jsonschema:"one line saying what to do"`
		Priority string `json:"priority,omitempty" jsonschema:"P0 (most urgent) to P4; default P2"`
		Agent    string `json:"agent,omitempty" jsonschema:"your agent id (recorded as the creator)"`
	}
	mcpEvidenceAdd struct {
		Goal    string `json:"goal" jsonschema:"the goal id"`
		Summary string `json:"summary" jsonschema:"what the evidence shows"`
		Kind    string `json:"kind,omitempty" jsonschema:"test, pr, log, metric, check or note; default note"`
		Status  string `json:"status,omitempty" jsonschema:"pass, fail or info; default info"`
		Todo    string `json:"todo,omitempty" jsonschema:"the todo id it is about"`
		Agent   string `json:"agent,omitempty" jsonschema:"your agent id (recorded as the author)"`
	}
	mcpGate struct {
		Goal     string   `json:"goal" jsonschema:"the goal id"`
		Question string   `json:"question" jsonschema:"a concrete question for a human, ending in '?' (e.g. 'Merge the v2 branch into main now?')"`
		Options  []string `json:"options,omitempty" jsonschema:"the possible answers; default approve, reject"`
		Agent    string   `json:"agent,omitempty" jsonschema:"your agent id (recorded as the raiser)"`
	}
	mcpStatus struct {
		Goal string `json:"goal,omitempty" jsonschema:"only this goal (default: every goal)"`
	}
)

// NewMCPServer returns loopx's MCP server for the project at o.Root. Each
// tool call opens a new engine with o and closes it (releasing the state
// lock) before it returns.
func NewMCPServer(o engine.Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "loopx", Version: Version}, &mcp.ServerOptions{
		Instructions: "loopx keeps the goal, todos, gates, quota and handoffs of this project. Before a turn call round_start " +
			"(or should_run); work only on a run verdict, on the todo it returns; end with round_finish. Raise a gate to ask a human.",
	})
	call := func(f func(e *engine.Engine) (any, error)) (*mcp.CallToolResult, any, error) {
		e := engine.New(o)
		v, err := f(e)
		if cerr := e.Close(); err == nil && cerr != nil {
			err = cerr
		}
		return mcpResult(v, err), nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "should_run", Description: "Ask whether this agent may start a round on the goal now: " +
		"verdict run (with the selected todo), skip, wait_human or deny, with reasons and quota. Changes nothing."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpGoalAgent) (*mcp.CallToolResult, any, error) {
			return call(func(e *engine.Engine) (any, error) {
				if err := e.RequireGoal(in.Goal); err != nil {
					return nil, err
				}
				if in.Agent == "" {
					return nil, engine.Usagef("missing_agent", "should_run needs an agent")
				}
				return e.Decide(ctx, engine.Request{Query: "should_run", Goal: in.Goal, Agent: in.Agent})
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "round_start", Description: "Decide should_run and, on run, claim the selected todo (45-minute lease) " +
		"and open a round. Returns {decision, round, todo}: round is null when the verdict is not run (read decision.reasons)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpGoalAgent) (*mcp.CallToolResult, any, error) {
			return call(func(e *engine.Engine) (any, error) {
				if in.Agent == "" {
					return nil, engine.Usagef("missing_agent", "round_start needs an agent")
				}
				return e.StartRound(ctx, in.Goal, in.Agent)
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "round_finish", Description: "Settle a round in one transaction: outcome, evidence, handoff, todo status, " +
		"charge (progress and failed charge one round). Finishing a finished round returns the stored receipt and charges nothing."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpFinish) (*mcp.CallToolResult, any, error) {
			return call(func(e *engine.Engine) (any, error) {
				req := engine.FinishRequest{Agent: in.Agent, Outcome: in.Outcome, Summary: in.Summary, Tokens: in.Tokens,
					CostUSD: in.CostUSD, Done: in.Done, Handoff: in.Handoff, NextTodo: in.NextTodo}
				for _, ev := range in.Evidence {
					req.Evidence = append(req.Evidence, kernel.Evidence{Kind: ev.Kind, Status: ev.Status, Summary: ev.Summary})
				}
				return e.FinishRound(ctx, in.Round, req)
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "todo_add", Description: "Add a task todo to a goal."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpTodo) (*mcp.CallToolResult, any, error) {
			return call(func(e *engine.Engine) (any, error) {
				prio := 2
				if in.Priority != "" {
					p, err := parsePriority(in.Priority)
					if err != nil {
						return nil, err
					}
					prio = p
				}
				return e.AddTodo(engine.TodoInput{Goal: in.Goal, Title: in.Title, Priority: prio, By: mcpActor(in.Agent)})
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "evidence_add", Description: "Record evidence for a goal (a test run, a PR, a log, a check…)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpEvidenceAdd) (*mcp.CallToolResult, any, error) {
			return call(func(e *engine.Engine) (any, error) {
				return e.AddEvidence(kernel.Evidence{Goal: in.Goal, Summary: in.Summary, Kind: in.Kind, Status: in.Status, Todo: in.Todo, By: mcpActor(in.Agent)})
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "gate_raise", Description: "Raise a human gate on the goal: a concrete question that blocks the goal " +
		"until a human answers it (agents cannot answer gates)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpGate) (*mcp.CallToolResult, any, error) {
			return call(func(e *engine.Engine) (any, error) {
				return e.RaiseGate(engine.GateInput{Goal: in.Goal, Question: in.Question, Options: in.Options, By: mcpActor(in.Agent)})
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "status", Description: "Summarise the goals: status, quota, todos (with the newest open one), " +
		"open gates, last round, last handoff."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpStatus) (*mcp.CallToolResult, any, error) {
			return call(func(e *engine.Engine) (any, error) { return e.Status(in.Goal) })
		})
	return s
}

// mcpActor is who a tool call acts as: the agent when given, else "mcp".
func mcpActor(agent string) string {
	if agent != "" {
		return agent
	}
	return "mcp"
}

// mcpResult renders v as the CLI's --json document (text and structured
// content), or err as a tool error: the message as text, the CLI's JSON
// error envelope as structured content. A decision that comes with an
// error (should_run on an unusable store: a deny) is kept in the text.
func mcpResult(v any, err error) *mcp.CallToolResult {
	if err != nil {
		items := errorItems(err, exitCode(err))
		var b bytes.Buffer
		output.ErrorText(&b, items)
		if d, ok := v.(engine.Decision); ok {
			_ = output.JSON(&b, d)
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: b.String()}},
			StructuredContent: map[string]any{"errors": items}}
	}
	var b bytes.Buffer
	if err := output.JSON(&b, v); err != nil {
		return mcpResult(nil, err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: v}
}
