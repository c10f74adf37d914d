// Package gateanswer is a human's or an agent's answer through a command
// line: answering a gate (`loopx gate answer`), adopting the rules in
// loopx/ (`loopx adopt`) and restoring them (`loopx adopt --restore`). It
// gathers the facts of the channel the answer comes through (who runs the
// command: $LOOPX_AGENT, $LOOPX_ROUND, the ancestor processes, whether
// stdin is a terminal), asks the person at the controlling terminal to
// confirm, and hands the facts to the engine, whose rules
// (data.loopx.gate.decision, .adopt, .repair) judge them: no rule lives
// here.
//
// It imports the top engine package: answering, adopting and restoring are
// the engine's mutations, taken in its transactions after its decisions,
// and the engine never imports this package.
package gateanswer

import (
	"context"
	"fmt"
	"github.com/loopx-dev/loopx/internal/caller"
	"io"
	"os"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel/records"
	"golang.org/x/term"
)

// Terminal is where a person confirms an answer by typing it back.
type Terminal interface {
	// Ask writes prompt and reads one line back (trimmed; "" when
	// nothing); an error says why the terminal could not be used.
	Ask(prompt string) (typed string, err error)
}

// ControllingTerminal is the process's controlling terminal, /dev/tty:
// never stdin, so that an agent piping input cannot confirm for a human.
type ControllingTerminal struct{}

// Ask writes prompt to /dev/tty and reads one line back
// (wire.AskTerminal). Errors: the terminal cannot be opened (no
// controlling terminal).
func (ControllingTerminal) Ask(prompt string) (string, error) { return wire.AskTerminal(prompt) }

// Caller is what a command knows of who runs it.
type Caller struct {
	// Agent is $LOOPX_AGENT ("" when unset): the command runs as that agent.
	Agent string
	// Round is $LOOPX_ROUND ("" when unset): the command runs in a round.
	Round string
	// StdinTTY is true when the command's standard input is a terminal.
	StdinTTY bool
	// AncestryChecked is false when the engine does not read the
	// ancestor processes (trust.AncestryOptions.Off).
	AncestryChecked bool
	// Dashboard is true when the command comes from the dashboard page of
	// `loopx serve` with a verified session (its cookie, from a
	// single-use code only a human's `loopx dashboard` mints): the
	// channel is "dashboard" with its session, whoever started the server.
	Dashboard bool
}

// Env is the Caller of process p (nil: this process): its environment,
// and whether its standard input is a terminal (this process's: stdin's,
// the command's standard input; a server's client: as read from /proc);
// ancestry is the options the engine reads ancestor processes with.
func Env(p *caller.Process, stdin io.Reader, ancestry trust.AncestryOptions) Caller {
	c := Caller{Agent: p.Getenv("LOOPX_AGENT"), Round: p.Getenv("LOOPX_ROUND"), AncestryChecked: !ancestry.Off}
	if p.Remote() {
		c.StdinTTY = p.StdinTTY
	} else if f, ok := stdin.(*os.File); ok {
		c.StdinTTY = term.IsTerminal(int(f.Fd()))
	}
	return c
}

// Channel fills *actor's default ("human", or "agent:ID" when the caller
// runs as agent ID) and gathers the facts of the channel an answer from
// this caller comes through: "agent" when it runs as an agent ($LOOPX_AGENT,
// or an actor agent:ID), else "terminal" with whether stdin is a terminal;
// the ancestor processes and the agents they run as are e's (Acting).
func Channel(e *engine.Engine, c Caller, actor *string) input.Channel {
	if *actor == "" {
		*actor = "human"
		if c.Agent != "" {
			*actor = "agent:" + c.Agent
		}
	}
	ch := input.Channel{Kind: "terminal", RoundAgent: c.Agent, InRound: c.Round != "" || c.Agent != ""}
	if c.Agent != "" || strings.HasPrefix(*actor, "agent:") {
		ch.Kind = "agent"
	}
	acting := e.Acting()
	ch.Ancestry, ch.ActingAgents, ch.AncestryChecked = acting.Ancestry, acting.Agents, c.AncestryChecked
	ch.AgentAncestor = acting.Agentish
	if ch.Kind == "terminal" {
		ch.TTY = c.StdinTTY
	}
	if c.Dashboard && ch.Kind == "terminal" {
		ch.Kind, ch.Session = "dashboard", true
	}
	return ch
}

// Answer answers a gate for in.Actor ("" = the caller's default) through
// the caller's channel: one engine call (engine.AnswerGateAt, its errors).
// A human at a terminal confirms on t by typing the gate id back, after a
// read decided that only the confirmation stands between the answer and
// its record, and while the state lock is free; a reject of a
// protected-files gate first says which files of loopx/ it overwrites.
func Answer(ctx context.Context, e *engine.Engine, in gates.Answer, c Caller, t Terminal) (records.Gate, error) {
	in.Channel = Channel(e, c, &in.Actor)
	return e.AnswerGateAt(ctx, in, confirmer{t})
}

// confirmer shows the confirmation of a gate answer on a Terminal.
type confirmer struct{ t Terminal }

// Confirm asks for the gate id. Every value is rendered inert: a question
// raised by an agent must not reach the human's terminal as escape
// sequences (a faked prompt).
func (c confirmer) Confirm(cf engine.Confirmation) (string, error) {
	g := cf.Gate
	return c.t.Ask(fmt.Sprintf("gate %s (%s): %s\nanswer: %s\n%stype the gate id to confirm: ",
		inert.Line(g.ID), inert.Line(g.Goal), inert.Line(g.Question), inert.Line(cf.Option), rejectNote(cf)))
}

// rejectNote is what the confirmation of a reject says it restores: the
// rules in effect before the round that raised the gate, and the files of
// loopx/ it overwrites, the person's own edits there included; "" for a
// gate that restores nothing.
func rejectNote(cf engine.Confirmation) string {
	if !cf.Restores {
		return ""
	}
	if len(cf.Paths) == 0 {
		return "reject restores the rules in effect before the round (loopx/ already holds them)\n"
	}
	return fmt.Sprintf("reject restores the rules in effect before the round and overwrites %s in loopx/ (any uncommitted edit there, yours included, is lost)\n",
		inert.Line(strings.Join(cf.Paths, ", ")))
}

// Adopt makes loopx/ the rules in effect for a human at the terminal
// (data.loopx.adopt.confirm judges the channel and what was typed). The
// channel is decided before anyone is asked to type: an agent, a round or
// an agent's descendant is refused even when there is nothing to adopt.
// When loopx/ differs from the adopted revision, the person is shown the
// revision and what it loosens on t and types "adopt"; loopx/ changing
// meanwhile adopts nothing. Every refusal is audited (rules.adopt_refused).
// Errors: errs.No refusals (not a human's channel, no terminal, not
// confirmed, rules_changed); the engine's (a spec that does not load).
func Adopt(ctx context.Context, e *engine.Engine, c Caller, t Terminal) (adopt.Result, error) {
	actor, ch := rulesChannel(e, c)
	refuse := func(err error) (adopt.Result, error) {
		e.AuditRefusal("rules.adopt_refused", "loopx adopt", actor, scaffold.SpecDirName+"/", err)
		return adopt.Result{}, err
	}
	d := e.DecideAdopt(ctx, ch, false)
	if !d.Allow && !onlyConfirmation(d) {
		return refuse(e.Refusal(d))
	}
	res, err := e.AdoptPreview()
	if err != nil {
		return refuse(err)
	}
	if !res.Changed {
		return res, nil
	}
	if !d.Allow && !d.OnlyConfirmationPending() { // no terminal to confirm on
		return refuse(e.Refusal(d))
	}
	// The person is shown what the policies' problems will do before
	// confirming: a policy that does not compile makes decisions deny.
	problems, _ := e.CheckPolicies()
	res.Problems = problems
	if err := e.Release(); err != nil { // never hold the state lock while a person types
		return adopt.Result{}, err
	}
	typed, ttyErr := ask(t, adoptPrompt(res))
	ch.Typed, ch.TTYError = &typed, ttyErr
	if d := e.DecideAdopt(ctx, ch, false); !d.Allow {
		return refuse(e.Refusal(d))
	}
	if res, err = e.Adopt(ctx, adopt.Options{Expect: &res.Adopted, Ancestry: ch.Ancestry}); err != nil {
		return refuse(err)
	}
	res.Problems = problems
	return res, nil
}

// ProblemLine is how `loopx adopt` shows one problem of the user policies
// it adopts (at the prompt and after): the position, the code and the
// message (inert: they come from whoever wrote loopx/).
func ProblemLine(p rulebook.Problem) string {
	at := fmt.Sprintf("%s:%d", p.File, p.Row) // as loopx check shows it: no column the parser did not give
	if p.Col > 0 {
		at += fmt.Sprintf(":%d", p.Col)
	}
	line := fmt.Sprintf("warning: %s: %s: %s", at, p.Code, p.Message)
	if p.Rule != "" {
		line += " (rule " + p.Rule + ")"
	}
	return inert.Line(line)
}

// ChangeLine is one change of the rules as `loopx adopt` shows it: the
// message, which ends with its direction, prefixed with its ref unless
// the message names it already ("goals.g1.agents: [a1] → [] (every
// agent): loosens").
func ChangeLine(r parts.Reason) string {
	if r.Ref != "" && !strings.Contains(r.Message, r.Ref) {
		return r.Ref + ": " + r.Message
	}
	return r.Message
}

// ProblemsNote follows the problems `loopx adopt` shows.
const ProblemsNote = "a user policy that does not compile makes every decision deny (policy_error) until it is fixed"

// adoptPrompt shows what `loopx adopt` would make the rules in effect (the
// revision and what it loosens) and asks for "adopt".
func adoptPrompt(res adopt.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "loopx adopt: make loopx/ (spec %s, policies %s) the rules in effect\n",
		inert.Line(res.Adopted.Spec), inert.Line(res.Adopted.Policy))
	for _, r := range res.Loosens {
		// File names of policies come from whoever wrote loopx/: inert.
		b.WriteString(inert.Line(ChangeLine(r)) + "\n")
	}
	for _, r := range res.Tightens {
		b.WriteString(inert.Line(ChangeLine(r)) + "\n")
	}
	for _, p := range res.Problems {
		b.WriteString(ProblemLine(p) + "\n")
	}
	if len(res.Problems) > 0 {
		b.WriteString(ProblemsNote + "\n")
	}
	b.WriteString(`type "adopt" to confirm: `)
	return b.String()
}

// Restore writes the adopted revision back into loopx/ for a human
// (data.loopx.adopt.restore: it wipes the edits waiting in loopx/) and
// returns the paths it restored. As Adopt, the channel is decided before
// anyone is asked to type (an agent, a round, an agent's descendant is
// refused); when loopx/ differs from the adopted revision the person is
// shown every file it overwrites (their own uncommitted edits there
// included) on t and types "restore"; loopx/ changing meanwhile restores
// nothing. Every refusal is audited (rules.restore_refused). Errors:
// errs.No refusals (not a human's channel, no terminal, not confirmed,
// rules_changed; the message says restore is for a human); the engine's
// (nothing adopted yet).
func Restore(ctx context.Context, e *engine.Engine, c Caller, t Terminal) ([]string, error) {
	actor, ch := rulesChannel(e, c)
	refuse := func(err error) ([]string, error) {
		e.AuditRefusal("rules.restore_refused", "loopx adopt --restore", actor, scaffold.SpecDirName+"/", err)
		if re := errs.As(err); re != nil && re.Kind == errs.No && !strings.HasPrefix(re.Message, "adopt --restore") {
			re.Message = "adopt --restore is for a human: " + re.Message
		}
		return nil, err
	}
	d := e.DecideAdopt(ctx, ch, true)
	if !d.Allow && !onlyConfirmation(d) {
		return refuse(e.Refusal(d))
	}
	paths, err := e.Restore(nil, true)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return paths, nil
	}
	if !d.Allow && !d.OnlyConfirmationPending() { // no terminal to confirm on
		return refuse(e.Refusal(d))
	}
	if err := e.Release(); err != nil { // never hold the state lock while a person types
		return nil, err
	}
	typed, ttyErr := ask(t, fmt.Sprintf("loopx adopt --restore: write the adopted rules back into loopx/\nit overwrites %s (any uncommitted edit there, yours included, is lost)\ntype \"restore\" to confirm: ",
		inert.Line(strings.Join(paths, ", "))))
	ch.Typed, ch.TTYError = &typed, ttyErr
	if d := e.DecideAdopt(ctx, ch, true); !d.Allow {
		return refuse(e.Refusal(d))
	}
	restored, err := e.Restore(paths, false)
	if re := errs.As(err); re != nil && re.Kind == errs.No {
		return refuse(err)
	}
	return restored, err
}

// rulesChannel is the channel of an adoption or a restore, which the
// rules judge as a human's, and who its refusal audit names: agent:ID
// under LOOPX_AGENT, or the one agent the processes above run as, else
// human.
func rulesChannel(e *engine.Engine, c Caller) (actor string, ch input.Channel) {
	ch = Channel(e, c, &actor)
	if actor == "human" && len(ch.ActingAgents) == 1 {
		actor = "agent:" + ch.ActingAgents[0]
	}
	return actor, ch
}

// ask asks on t, returning the error as the channel's tty_error.
func ask(t Terminal, prompt string) (typed, ttyErr string) {
	typed, err := t.Ask(prompt)
	if err != nil {
		return "", err.Error()
	}
	return typed, ""
}

// onlyConfirmation reports whether d denies only for the terminal
// confirmation (none asked for yet, or no terminal to ask on): what stands
// between a human's channel and an adoption, not a refusal of the channel.
func onlyConfirmation(d decision.Decision) bool {
	for _, r := range d.Reasons {
		if r.Code != "confirmation_pending" && r.Code != "confirmation_required" {
			return false
		}
	}
	return true
}
