// Package mcpserver serves loopx to agent hosts over the Model Context
// Protocol (`loopx mcp`): a small set of tools over the engine,
// each with input and output schemas, on a stdio transport that answers
// every frame as JSON-RPC 2.0 says (see Transport).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/evidence"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTools are the tools served unless Options.Tools says otherwise:
// what one bounded turn needs (ask, start, read the prompt, finish, ask a
// human). Every tool's description is in the model's context on every
// turn, so the rest are opt-in.
var DefaultTools = []string{"should_run", "round_start", "prompt", "round_finish", "gate_raise"}

// ExtraTools are served only when named in Options.Tools (or with "all").
var ExtraTools = []string{"todo_add", "evidence_add", "status"}

// Options configure a server.
type Options struct {
	// Engine opens the project: every tool call runs engine.New(Engine) and
	// closes it (releasing the state lock) before it answers.
	Engine engine.Options
	// Version is the server version reported to the client.
	Version string
	// Tools names the tools to serve (nil = DefaultTools); "all" is every
	// tool. An unknown name, or a non-nil list naming none, is an error of
	// New.
	Tools []string
	// MaxLineBytes bounds one inbound line for Serve (0 =
	// DefaultMaxLineBytes).
	MaxLineBytes int
	// Agent is the agent the session acts as (an agent acts
	// only as itself), bound when the server starts (`loopx mcp --agent
	// ID`, else the one agent the server's ancestor processes run as). A
	// call naming another agent is refused (agent_mismatch, a refusal); a
	// call naming none acts as it. "" binds no agent: a call naming an
	// agent is refused (unbound_session), since an agent id a client sends
	// is never taken on trust. The identity rule decides each call
	// (data.loopx.identity.acting, mode "session").
	Agent string
}

// as is the agent a call acts as: in.Agent is the agent the call names
// ("" = none), judged against the session's bound agent by the identity
// rule (engine.ActAs mode "session", data.loopx.identity.acting): the bound
// agent, or the named one when it is that agent. Errors: errs.No
// agent_mismatch (a call naming another agent) or unbound_session (a
// session bound to none, asked to act as one), audited as
// identity.refused.
func (o Options) as(ctx context.Context, e *engine.Engine, in trust.ActRequest) (string, error) {
	in.Mode, in.Bound = "session", o.Agent
	return e.ActAs(ctx, in)
}

// Serve runs the server over in (the client's frames) and out until in
// reaches EOF — every call read by then answered — or ctx ends (ctx.Err()).
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	s, err := New(o)
	if err != nil {
		return err
	}
	return s.Run(ctx, &Transport{Reader: in, Writer: out, MaxLineBytes: o.MaxLineBytes})
}

// New returns loopx's MCP server with the tools o selects. Errors:
// errs.Usage unknown_tool (an unknown name) or no_tools.
func New(o Options) (*mcp.Server, error) {
	names, err := selectTools(o.Tools)
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "loopx", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "loopx keeps the goal, todos, gates, quota and handoffs of this project. Start a turn with round_start " +
			"(or should_run to only ask); work only on a run verdict, on the todo it returns; read prompt for the turn's brief; " +
			"end with round_finish. Raise a gate to ask a human; only a human answers it.",
	})
	for _, n := range names {
		tools[n](s, o)
	}
	return s, nil
}

// selectTools resolves Options.Tools to tool names in a stable order.
func selectTools(want []string) ([]string, error) {
	if want == nil {
		return DefaultTools, nil
	}
	all := append(slices.Clone(DefaultTools), ExtraTools...)
	var out []string
	for _, w := range want {
		w = strings.TrimSpace(w)
		switch {
		case w == "":
		case w == "all":
			return all, nil
		case !slices.Contains(all, w):
			return nil, engine.Usagef("unknown_tool", "unknown MCP tool %q (tools: %s, or all)", w, strings.Join(all, ", "))
		case !slices.Contains(out, w):
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return nil, engine.Usagef("no_tools", "no MCP tool selected (tools: %s, or all)", strings.Join(all, ", "))
	}
	return out, nil
}

// Tool inputs. Fields without omitempty are required by the input schema;
// no other fields are allowed.
type (
	goalAgent struct {
		Goal  string `json:"goal" jsonschema:"the goal id (from the spec)"`
		Agent string `json:"agent,omitempty" jsonschema:"your agent id; omitted: the agent this server is bound to (loopx mcp --agent)"`
	}
	promptIn struct {
		goalAgent
		Full     bool `json:"full,omitempty" jsonschema:"no length bound: every gate, the whole handoff, more evidence"`
		MaxChars int  `json:"max_chars,omitempty" jsonschema:"the length bound in characters (default 2000)"`
	}
	evidenceIn struct {
		Kind    string `json:"kind" jsonschema:"test, pr, log, metric, check or note"`
		Status  string `json:"status" jsonschema:"pass, fail or info"`
		Summary string `json:"summary" jsonschema:"what the evidence shows"`
	}
	finishIn struct {
		Round    string       `json:"round" jsonschema:"the round id returned by round_start"`
		Outcome  string       `json:"outcome" jsonschema:"progress or failed (charged), no_change, preflight_failed or dry_run (not charged)"`
		Agent    string       `json:"agent,omitempty" jsonschema:"your agent id; when given it must be the round's agent"`
		Summary  string       `json:"summary,omitempty" jsonschema:"what the round did"`
		Tokens   int64        `json:"tokens,omitempty" jsonschema:"model tokens the round used"`
		CostUSD  float64      `json:"cost_usd,omitempty" jsonschema:"cost of the round in US dollars"`
		Done     bool         `json:"done,omitempty" jsonschema:"mark the round's todo done"`
		Handoff  string       `json:"handoff,omitempty" jsonschema:"what the next round must know"`
		NextTodo string       `json:"next_todo,omitempty" jsonschema:"add a successor todo with this title"`
		Evidence []evidenceIn `json:"evidence,omitempty" jsonschema:"evidence recorded with the finish"`
	}
	todoIn struct {
		Goal     string `json:"goal" jsonschema:"the goal id"`
		Title    string `json:"title" jsonschema:"one line saying what to do"`
		Priority string `json:"priority,omitempty" jsonschema:"P0 (most urgent) to P4; default P2"`
		Agent    string `json:"agent,omitempty" jsonschema:"your agent id (recorded as the creator)"`
	}
	evidenceAddIn struct {
		Goal    string `json:"goal" jsonschema:"the goal id"`
		Summary string `json:"summary" jsonschema:"what the evidence shows"`
		Kind    string `json:"kind,omitempty" jsonschema:"test, pr, log, metric, check or note; default note"`
		Status  string `json:"status,omitempty" jsonschema:"pass, fail or info; default info"`
		Todo    string `json:"todo,omitempty" jsonschema:"the todo id it is about"`
		Agent   string `json:"agent,omitempty" jsonschema:"your agent id (recorded as the author)"`
	}
	gateIn struct {
		Goal     string   `json:"goal" jsonschema:"the goal id"`
		Question string   `json:"question" jsonschema:"a concrete question for a human: it holds a '?' and at least 4 words (e.g. 'Merge the v2 branch into main now?'); anything else is refused (vague_question)"`
		Options  []string `json:"options,omitempty" jsonschema:"the possible answers; default approve, reject"`
		Agent    string   `json:"agent,omitempty" jsonschema:"your agent id (recorded as the raiser)"`
	}
	statusIn struct {
		Goal string `json:"goal,omitempty" jsonschema:"only this goal (default: every goal)"`
	}
)

// acting is a tool input that names who acts: the agent ("" = the
// session's) and the goal or round the call is about (trust.ActRequest).
type acting interface{ act() trust.ActRequest }

func (in goalAgent) act() trust.ActRequest { return trust.ActRequest{Agent: in.Agent, Goal: in.Goal} }
func (in finishIn) act() trust.ActRequest  { return trust.ActRequest{Agent: in.Agent, Round: in.Round} }
func (in todoIn) act() trust.ActRequest    { return trust.ActRequest{Agent: in.Agent, Goal: in.Goal} }
func (in evidenceAddIn) act() trust.ActRequest {
	return trust.ActRequest{Agent: in.Agent, Goal: in.Goal}
}
func (in gateIn) act() trust.ActRequest { return trust.ActRequest{Agent: in.Agent, Goal: in.Goal} }

// tools adds each tool by name. Each result is the JSON document the
// matching command prints with --json.
var tools = map[string]func(*mcp.Server, Options){
	"should_run": func(s *mcp.Server, o Options) {
		addActingTool(s, o, "should_run", "Ask whether this agent may start a round on the goal now: verdict run (with the selected todo), "+
			"skip, wait_human or deny, with reasons and quota. Changes nothing.",
			func(e *engine.Engine, in goalAgent) error {
				if err := e.RequireGoal(in.Goal); err != nil {
					return err
				}
				return needAgent("should_run", o, in)
			},
			func(ctx context.Context, e *engine.Engine, agent string, in goalAgent) (decision.Decision, error) {
				e.SeedSpecTodos(in.Goal)
				return e.Decide(ctx, engine.Request{Query: query.ShouldRun, Goal: in.Goal, Agent: agent})
			})
	},
	"round_start": func(s *mcp.Server, o Options) {
		addActingTool(s, o, "round_start", "Decide should_run and, on run, claim the selected todo (45-minute lease) and open a round. "+
			"Returns {decision, round, todo}: round is null when the verdict is not run (read decision.reasons).",
			func(_ *engine.Engine, in goalAgent) error { return needAgent("round_start", o, in) },
			func(ctx context.Context, e *engine.Engine, agent string, in goalAgent) (contract.RoundStart[decision.Decision], error) {
				res, err := e.StartRound(ctx, in.Goal, agent)
				return res.Contract(), err
			})
	},
	"prompt": func(s *mcp.Server, o Options) {
		addActingTool(s, o, "prompt", "The bounded-turn prompt for this agent (what `loopx prompt` prints): the objective, the selected "+
			"todo, open gates, scope, the latest handoff, fresh evidence, remaining quota and how to report back; at most "+
			"2,000 characters unless full. Decides should_run (logged); changes nothing else.",
			func(_ *engine.Engine, in promptIn) error {
				if in.MaxChars < 0 {
					return engine.Usagef("bad_max_chars", "max_chars must not be negative")
				}
				return nil
			},
			func(ctx context.Context, e *engine.Engine, agent string, in promptIn) (contract.Prompt, error) {
				p, err := e.Prompt(ctx, reportdata.PromptOptions{Goal: in.Goal, Agent: agent, Full: in.Full, MaxChars: in.MaxChars})
				return p.Contract(), err
			})
	},
	"round_finish": func(s *mcp.Server, o Options) {
		addActingTool(s, o, "round_finish", "Settle a round in one transaction: outcome, evidence, handoff, todo status, charge "+
			"(progress and failed charge one round). Finishing a finished round returns the stored receipt and charges nothing.",
			nil, func(ctx context.Context, e *engine.Engine, agent string, in finishIn) (contract.Receipt, error) {
				req := rounds.FinishRequest{Agent: agent, Outcome: in.Outcome, Summary: in.Summary, Tokens: in.Tokens,
					CostUSD: in.CostUSD, Done: in.Done, Handoff: in.Handoff, NextTodo: in.NextTodo}
				for _, ev := range in.Evidence {
					req.Evidence = append(req.Evidence, records.Evidence{Kind: ev.Kind, Status: ev.Status, Summary: ev.Summary})
				}
				rc, err := e.FinishRound(ctx, in.Round, req)
				return rc.Contract(), err
			})
	},
	"gate_raise": func(s *mcp.Server, o Options) {
		addActingTool(s, o, "gate_raise", "Raise a human gate on the goal: a concrete question that blocks the goal until a human "+
			"answers it (agents cannot answer gates).",
			nil, func(_ context.Context, e *engine.Engine, agent string, in gateIn) (contract.Gate, error) {
				g, err := e.RaiseGate(gates.Input{Goal: in.Goal, Question: in.Question, Options: in.Options, By: actor(agent)})
				return contract.GateOf(g), err
			})
	},
	"todo_add": func(s *mcp.Server, o Options) {
		addActingTool(s, o, "todo_add", "Add a task todo to a goal.",
			nil, func(_ context.Context, e *engine.Engine, agent string, in todoIn) (contract.Todo, error) {
				prio := 2
				if in.Priority != "" {
					p, err := todos.ParsePriority(in.Priority)
					if err != nil {
						return contract.Todo{}, err
					}
					prio = p
				}
				t, err := e.AddTodo(todos.Input{Goal: in.Goal, Title: in.Title, Priority: prio, By: actor(agent)})
				return contract.TodoOf(t), err
			})
	},
	"evidence_add": func(s *mcp.Server, o Options) {
		addActingTool(s, o, "evidence_add", "Record evidence for a goal (a test run, a PR, a log, a check…).",
			nil, func(_ context.Context, e *engine.Engine, agent string, in evidenceAddIn) (contract.Evidence, error) {
				ev, err := e.AddEvidence(records.Evidence{Goal: in.Goal, Summary: in.Summary, Kind: in.Kind, Status: in.Status,
					Todo: in.Todo, By: actor(agent)})
				return contract.EvidenceOf(ev), err
			})
	},
	"status": func(s *mcp.Server, o Options) {
		addTool(s, o, "status", "Summarise the goals: status, quota, todos (with the newest open one), open gates, "+
			"last round, last handoff.",
			func(ctx context.Context, e *engine.Engine, in statusIn) (render.Status, error) {
				return e.Status(in.Goal)
			})
	},
}

// needAgent refuses a call that names no agent (missing_agent): tool
// name decides for an agent, never for the session at large.
func needAgent(name string, o Options, in goalAgent) error {
	if in.Agent == "" && o.Agent == "" {
		return engine.Usagef("missing_agent", "%s needs an agent: name one, or bind the server to one (loopx mcp --agent)", name)
	}
	return nil
}

// addActingTool adds a tool whose call acts as an agent: check (nil = none)
// refuses malformed input first, then the agent the input names is judged
// against the session's by the identity rule (Options.as, "mcp NAME") and
// run is called with the agent it acts as.
func addActingTool[In acting, Out any](s *mcp.Server, o Options, name, desc string, check func(*engine.Engine, In) error,
	run func(context.Context, *engine.Engine, string, In) (Out, error)) {
	addTool(s, o, name, desc, func(ctx context.Context, e *engine.Engine, in In) (Out, error) {
		var zero Out
		if check != nil {
			if err := check(e, in); err != nil {
				return zero, err
			}
		}
		act := in.act()
		act.What = "mcp " + name
		agent, err := o.as(ctx, e, act)
		if err != nil {
			return zero, err
		}
		return run(ctx, e, agent, in)
	})
}

// actor is who a tool call acts as: the agent when given, else "mcp".
func actor(agent string) string {
	if agent != "" {
		return agent
	}
	return "mcp"
}

// addTool adds a tool whose input and output schemas are inferred from In
// and Out. A call validates its arguments against the input schema, runs
// run on a fresh engine (closed before the answer), and answers either the
// result — structured content that the output schema validates, and the
// same JSON as text — or a tool error (IsError, text only: the MCP spec
// and clients validate structured content of errors against the output
// schema too).
func addTool[In, Out any](s *mcp.Server, o Options, name, desc string, run func(context.Context, *engine.Engine, In) (Out, error)) {
	inSchema, inResolved := schemaFor[In](inputEnums)
	outSchema, outResolved := schemaFor[Out](nil)
	s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: inSchema, OutputSchema: outSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.Params.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			var in In
			if err := validate(args, inResolved); err != nil {
				return errorResult(engine.Usagef("bad_arguments", "%s: invalid arguments: %v", name, err), nil), nil
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return errorResult(engine.Usagef("bad_arguments", "%s: invalid arguments: %v", name, err), nil), nil
			}
			e := engine.New(o.Engine)
			_ = e.AdoptTightening() // as every command does first
			out, err := run(ctx, e, in)
			if cerr := e.Close(); err == nil && cerr != nil {
				err = cerr
			}
			if err != nil {
				return errorResult(err, out), nil
			}
			data, err := json.Marshal(out)
			if err == nil {
				err = validate(data, outResolved)
			}
			if err != nil {
				return errorResult(fmt.Errorf("%s: the result does not match its output schema: %w", name, err), nil), nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: indent(out)}},
				StructuredContent: json.RawMessage(data)}, nil
		})
}

// inputEnums are the values the engine accepts for a tool input's
// property, by the property's name (at any depth: round_finish's evidence
// items too): a round's outcome (rounds.Outcomes), an evidence kind and
// status (evidence.Kinds, evidence.Statuses), a todo priority
// (todos.Priorities). The input schema states them as enums, so a client
// sees what the server enforces and a value outside them is refused as
// bad_arguments before the engine is asked.
var inputEnums = map[string][]string{
	"outcome":  rounds.Outcomes,
	"kind":     evidence.Kinds,
	"status":   evidence.Statuses,
	"priority": todos.Priorities,
}

// withEnums sets the enum of every property of sc named in enums, at any
// depth (properties and array items).
func withEnums(sc *jsonschema.Schema, enums map[string][]string) {
	if sc == nil {
		return
	}
	for name, p := range sc.Properties {
		if vals, ok := enums[name]; ok && p.Type == "string" {
			p.Enum = nil
			for _, v := range vals {
				p.Enum = append(p.Enum, v)
			}
		}
		withEnums(p, enums)
	}
	withEnums(sc.Items, enums)
}

// schemaFor infers the JSON Schema of T (required = the fields without
// omitempty; no other properties), gives the properties named in enums
// their values (nil = none), and resolves it for validation.
func schemaFor[T any](enums map[string][]string) (*jsonschema.Schema, *jsonschema.Resolved) {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	withEnums(sc, enums)
	r, err := sc.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	return sc, r
}

// validate checks a JSON document against a resolved schema.
func validate(doc []byte, r *jsonschema.Resolved) error {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return err
	}
	return r.Validate(v)
}

// errorResult is a tool error as `loopx … --json` would print it: the
// lines for people (errs.Lines), the JSON error envelope {"errors":[…]}
// (errs.Envelope) and, for a decision that came with its error (should_run
// on an unusable store: a deny), that decision.
func errorResult(err error, out any) *mcp.CallToolResult {
	var b strings.Builder
	for _, line := range errs.Lines(err) {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteString(indent(map[string]any{"errors": errs.Envelope(err)}))
	if d, ok := out.(decision.Decision); ok && d.DecisionID != "" {
		b.WriteString(indent(d))
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
}

// indent renders v as the CLI's --json does: indented, HTML characters
// kept, newline-terminated.
func indent(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%q\n", err.Error())
	}
	return b.String()
}
