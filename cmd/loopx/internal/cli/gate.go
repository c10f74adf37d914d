package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/specs"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// answerChannel fills in.Actor's default and gathers the facts of the
// channel an answer from this command comes through (the rules are the gate
// decision's): "agent" when the command runs as an agent (LOOPX_AGENT, or
// --as agent:ID), else "terminal", with whether stdin is a terminal and
// which ancestor process runs an agent.
func answerChannel(e *engine.Engine, in *engine.AnswerInput, stdin io.Reader) engine.Channel {
	ag := os.Getenv("LOOPX_AGENT")
	if in.Actor == "" {
		in.Actor = "human"
		if ag != "" {
			in.Actor = "agent:" + ag
		}
	}
	ch := engine.Channel{Kind: "terminal", RoundAgent: ag, InRound: os.Getenv("LOOPX_ROUND") != "" || ag != ""}
	if ag != "" || strings.HasPrefix(in.Actor, "agent:") {
		ch.Kind = "agent"
	}
	acting := e.Acting()
	ch.Ancestry, ch.ActingAgents, ch.AncestryChecked = acting.Ancestry, acting.Agents, !Ancestry.Off
	ch.AgentAncestor = acting.Agentish
	if ch.Kind == "terminal" {
		if f, ok := stdin.(*os.File); ok {
			ch.TTY = term.IsTerminal(int(f.Fd()))
		}
	}
	return ch
}

// onlyPending reports whether d denies only for the terminal confirmation
// nobody was asked for yet (and user warnings, or the note that the rules
// in effect have a pending change).
func onlyPending(d engine.Decision) bool {
	pending := false
	for _, r := range d.Reasons {
		switch r.Code {
		case "confirmation_pending":
			pending = true
		case "user_warning", "rules_pending": // informational: they decide nothing
		default:
			return false
		}
	}
	return pending
}

func printTable(w io.Writer, header []string, rows [][]string) { output.Table(w, header, rows) }

func (a *app) gateCmd() *cobra.Command {
	c := &cobra.Command{Use: "gate", Short: "Raise, list, show and answer human gates"}
	c.AddCommand(a.gateRaiseCmd(), a.gateListCmd(), a.gateShowCmd(), a.gateAnswerCmd())
	return c
}

func (a *app) gateRaiseCmd() *cobra.Command {
	var in engine.GateInput
	var expires string
	c := &cobra.Command{
		Use:   "raise --goal G --question TEXT",
		Short: "Raise a gate: a concrete question a named answerer must answer",
		Long: `Raise a runtime gate. With no scope flag it blocks the whole goal
(should-run answers wait_human for every agent); --blocks-todo blocks only one
todo (other todos keep running) and --blocks-agent only one agent.

The question and the options are one line of text each: a control
character, an escape sequence or a bidirectional override in them is
refused (exit 2), so that no question can act on the answering human's
terminal.`,
		Example: `  loopx gate raise --goal g1 --question "Merge the v2 branch into main?"
  loopx gate raise --goal g1 --question "Deploy to staging now?" --options yes,no --blocks-todo t-4f9a`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			if expires != "" {
				d, err := specs.ParseDuration(expires)
				if err != nil {
					return usagef("--expires-after %q: %v", expires, err)
				}
				in.ExpiresAfter = d
			}
			if in.By, err = actor(cmd.Context(), e, "gate raise", in.Goal); err != nil {
				return err
			}
			g, err := e.RaiseGate(in)
			if err != nil {
				return err
			}
			return a.print(g, func(w io.Writer) { fmt.Fprintf(w, "raised gate %s: %s %v\n", g.ID, g.Question, g.Options) })
		},
	}
	f := c.Flags()
	f.StringVar(&in.Goal, "goal", "", "the goal (required)")
	f.StringVar(&in.Question, "question", "", "the concrete question (required)")
	f.StringSliceVar(&in.Options, "options", nil, "the answers (default approve,reject)")
	f.StringSliceVar(&in.Answerers, "answerers", nil, `who may answer: human or agent:ID (default human)`)
	f.StringVar(&in.BlocksTodo, "blocks-todo", "", "block only this todo")
	f.StringVar(&in.BlocksAgent, "blocks-agent", "", "block only this agent")
	f.StringSliceVar(&in.Guards, "guards", nil, "block only these actions (e.g. git.push,git.merge)")
	f.StringVar(&expires, "expires-after", "", "close the gate after this long (e.g. 72h)")
	f.StringVar(&in.OnExpiry, "on-expiry", "", "the option applied on expiry")
	return c
}

func gateRows(gs []kernel.Gate) [][]string {
	rows := [][]string{}
	for _, g := range gs {
		scope := g.ScopeKind
		if len(g.ScopeTodos) > 0 {
			scope += ":" + strings.Join(g.ScopeTodos, ",")
		}
		if len(g.ScopeAgents) > 0 {
			scope += ":" + strings.Join(g.ScopeAgents, ",")
		}
		rows = append(rows, []string{g.ID, g.Goal, g.Status, scope, g.Question})
	}
	return rows
}

func (a *app) gateListCmd() *cobra.Command {
	var goal, status string
	c := &cobra.Command{
		Use: "list", Short: "List gates", Args: cobra.NoArgs,
		Example: "  loopx gate list --goal g1 --status open --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			gs, err := e.Gates(goal, status)
			if err != nil {
				return err
			}
			return a.print(gs, func(w io.Writer) {
				if len(gs) == 0 {
					fmt.Fprintln(w, "no gates")
					return
				}
				printTable(w, []string{"ID", "GOAL", "STATUS", "SCOPE", "QUESTION"}, gateRows(gs))
			})
		},
	}
	c.Flags().StringVar(&goal, "goal", "", "only this goal")
	c.Flags().StringVar(&status, "status", "", "only this status (open, approve, reject, expired, …)")
	return c
}

func (a *app) gateShowCmd() *cobra.Command {
	return &cobra.Command{
		Use: "show GATE", Short: "Show one gate", Args: cobra.ExactArgs(1),
		Example: "  loopx gate show g-4f9a",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			g, err := e.Gate(args[0])
			if err != nil {
				return err
			}
			return a.print(g, func(w io.Writer) {
				fmt.Fprintf(w, "gate %s (%s): %s\n  question: %s\n  options: %s\n  answerers: %s\n  raised by %s at %s\n",
					g.ID, g.Goal, g.Status, g.Question, strings.Join(g.Options, ", "), strings.Join(g.Answerers, ", "), g.RaisedBy, g.RaisedAt.Format("2006-01-02T15:04:05Z"))
				if g.Answer != nil {
					fmt.Fprintf(w, "  answered %s by %s at %s %s\n", g.Answer.Option, g.Answer.By, g.Answer.At.Format("2006-01-02T15:04:05Z"), g.Answer.Note)
				}
			})
		},
	}
}

func (a *app) gateAnswerCmd() *cobra.Command {
	var in engine.AnswerInput
	var as string
	c := &cobra.Command{
		Use:   "answer GATE --option OPTION",
		Short: "Answer a gate",
		Long: `Answer a gate. The gate decision (data.loopx.gate.decision, the
gate_answer query; preview it with loopx decide gate-answer) is taken in the
transaction that records the answer: an unknown option, a closed gate, an
actor who is not an answerer, the agent that raised the gate, or a user
gate_answer policy's deny are refused, and nothing is recorded. The channel
rule: a human answers at a terminal (this command), never from inside an
agent round (LOOPX_ROUND or LOOPX_AGENT set) or from a process that
descends from an agent, and confirms by typing the gate id back on the
controlling terminal (an agent piping input cannot answer for a human); an
agent answers as itself (--as agent:ID, or LOOPX_AGENT), never as another
agent or as a human.

Exit codes: 0 recorded; 1 refused (closed gate, not an answerer, the raiser,
inside a round, no terminal or a wrong confirmation); 2 an unknown gate or
option, or a malformed --as.`,
		Example: `  loopx gate answer g-4f9a --option approve --note "reviewed the diff"
  loopx gate answer g1/merge --option reject`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.engine()
			if err != nil {
				return err
			}
			in.Gate, in.Actor = args[0], as
			if as != "" && as != "human" && !strings.HasPrefix(as, "agent:") {
				return usagef(`--as %q: want "human" or "agent:ID"`, as)
			}
			in.Channel = answerChannel(e, &in, a.stdin)
			if in.Channel.Kind == "terminal" && in.Actor == "human" {
				// Decide before asking anyone to type: only the missing
				// confirmation may stand between this answer and its record.
				d, err := e.DecideAnswer(cmd.Context(), in)
				if err != nil {
					return err
				}
				if !d.Allow && !onlyPending(d) {
					err := e.Refusal(d)
					e.AuditAnswerRefusal(in.Gate, in.Actor, err)
					return err
				}
				g, err := e.Gate(in.Gate)
				if err != nil {
					return err
				}
				if err := e.Release(); err != nil { // never hold the state lock while a person types
					return err
				}
				typed, ttyErr := confirmHuman(g, in.Option)
				in.Channel.Typed, in.Channel.TTYError = &typed, ttyErr
			}
			g, err := e.AnswerGateContext(cmd.Context(), in)
			if err != nil {
				return err
			}
			return a.print(g, func(w io.Writer) { fmt.Fprintf(w, "gate %s: %s\n", g.ID, g.Status) })
		},
	}
	c.Flags().StringVar(&in.Option, "option", "", "the answer (one of the gate's options)")
	c.Flags().StringVar(&in.Note, "note", "", "a note kept with the answer")
	c.Flags().StringVar(&as, "as", "", `answer as "human" or "agent:ID" (default human, or $LOOPX_AGENT inside a round)`)
	_ = c.MarkFlagRequired("option")
	return c
}
