// Package audit is the audit events of refused attempts (an
// attempt the rules stopped stays visible in `loopx events` and `loopx
// review`): a human-only command refused, an answer to a gate refused, an
// agent acting as another refused, a mutation an open gate stopped, a
// todo change refused, a permission denial. Each is written through Tx
// in a transaction of its own after the refused one rolled back; the top
// engine package opens it, and this package never imports it.
package audit

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Tx is what an audit event reads (the goal of what was refused) and
// writes: a kernel write transaction.
type Tx interface {
	Todo(id string) (records.Todo, error)
	Round(id string) (records.Round, error)
	Gate(id string) (records.Gate, error)
	AppendEvent(e records.Event) error
	CountGatePoll(goal, gate, agent string) (records.GatePoll, error)
}

// Refusal is err as a refusal (errs.No), nil for any other error: only
// refusals are audited.
func Refusal(err error) *errs.Error {
	if re := errs.As(err); re != nil && re.Kind == errs.No {
		return re
	}
	return nil
}

// Command appends the event kind (rules.adopt_refused,
// agent.register_refused, store.accept_refused, …) of the human-only
// command what ("loopx agent register") refused with re: actor ("" is
// "human") tried it, subject names what it was about, Data {"code"}.
func Command(tx Tx, kind, what, actor, subject string, re *errs.Error) error {
	if actor == "" {
		actor = "human"
	}
	return tx.AppendEvent(records.Event{Kind: kind, Actor: actor, Subject: subject,
		Message: what + " refused: " + re.Message, Data: map[string]any{"code": re.Code}})
}

// Answer appends the gate.answer_refused event of an answer to gate by
// actor ("" is "human") refused with re, in the gate's goal.
func Answer(tx Tx, gate, actor string, re *errs.Error) error {
	if actor == "" {
		actor = "human"
	}
	goal := ""
	if g, err := tx.Gate(gate); err == nil {
		goal = g.Goal
	}
	return tx.AppendEvent(records.Event{Kind: "gate.answer_refused", Goal: goal, Actor: actor, Subject: gate,
		Message: re.Message, Data: map[string]any{"code": re.Code}})
}

// Identity appends the identity.refused event of act refused with re:
// the agent it named, what it tried, the reason and what the rule judged
// (the agents and the ancestry the caller's processes showed), in act's
// goal (else the todo's, else the round's).
func Identity(tx Tx, act trust.ActRequest, actingAgents []string, ancestry []trust.Process, re *errs.Error) error {
	actor := "agent:" + act.Agent
	if act.Agent == "" {
		actor = "unnamed"
	}
	goal := act.Goal
	if goal == "" && act.Todo != "" {
		if t, err := tx.Todo(act.Todo); err == nil {
			goal = t.Goal
		}
	}
	if goal == "" && act.Round != "" {
		if r, err := tx.Round(act.Round); err == nil {
			goal = r.Goal
		}
	}
	data := map[string]any{"code": re.Code, "mode": act.Mode, "acting_agents": actingAgents, "ancestry": ancestry}
	for k, v := range map[string]string{"bound": act.Bound, "todo": act.Todo, "round": act.Round} {
		if v != "" {
			data[k] = v
		}
	}
	return tx.AppendEvent(records.Event{Kind: "identity.refused", Goal: goal, Actor: actor, Subject: act.What,
		Message: re.Message, Data: data})
}

// PollMutation is the mutation whose refusal by an open gate is a poll:
// an agent host asking `loopx round start` again while the gate holds it
// back (data "mutation" of Violation).
const PollMutation = "round.start"

// WaitedKind is the event kind of an agent's first poll under an open
// gate: the agent stopped at the gate and waits, which breaks no rule.
const WaitedKind = "gate.waited"

// Violation appends the gate_violation event of a mutation of goal by
// actor that the open gate behind err stopped (decision.ViolatedGate),
// with data (the mutation's facts; "gate" is added); ok false, and
// nothing written, when err is no gate_violation. A poll (data
// "mutation" PollMutation) is an agent waiting as it should, not a
// violation: it is counted in the (gate, actor) poll record
// (records.GatePoll) and only the first one appends an event,
// WaitedKind with "first_poll": true; the next ones only count, so that
// an agent host polling under an open gate does not fill the audit log.
func Violation(tx Tx, goal, actor string, err error, data map[string]any) (ok bool, werr error) {
	gate, ok := decision.ViolatedGate(err)
	if !ok {
		return false, nil
	}
	if data == nil {
		data = map[string]any{}
	}
	data["gate"] = gate
	if data["mutation"] == PollMutation {
		p, cerr := tx.CountGatePoll(goal, gate, actor)
		if cerr != nil || p.Count > 1 {
			return true, cerr
		}
		data["first_poll"] = true
		return true, tx.AppendEvent(records.Event{Kind: WaitedKind, Goal: goal, Actor: actor, Subject: gate, Message: errs.As(err).Message, Data: data})
	}
	return true, tx.AppendEvent(records.Event{Kind: "gate_violation", Goal: goal, Actor: actor, Subject: gate, Message: errs.As(err).Message, Data: data})
}

// maxDenialPaths is how many of a denied call's paths its event names.
const maxDenialPaths = 8

// Denial is the spooled denial of a permission decision d (its verdict,
// reasons and id) for agent on goal: what (a command, a path or the tool)
// and the first reason in the message, every reason's code.
func Denial(goal, agent string, pr *input.PermissionRequest, d decision.Decision) hosts.Denial {
	codes := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		codes = append(codes, r.Code)
	}
	what := pr.Command
	if what == "" && len(pr.Paths) > 0 {
		// Every path, not the first: the reason may be about another one
		// (a round that wrote docs/guide.md and loopx/loopx.cue).
		names := make([]string, 0, min(len(pr.Paths), maxDenialPaths))
		for _, p := range pr.Paths[:min(len(pr.Paths), maxDenialPaths)] {
			names = append(names, p.Path)
		}
		what = strings.Join(names, ", ")
		if n := len(pr.Paths) - maxDenialPaths; n > 0 {
			what += fmt.Sprintf(" (and %d more)", n)
		}
	}
	if what == "" {
		what = pr.Tool
	}
	msg := what
	if len(d.Reasons) > 0 {
		msg += ": " + d.Reasons[0].Message
	}
	return hosts.Denial{Goal: goal, Agent: agent, DecisionID: d.DecisionID, Verdict: d.Verdict,
		Message: msg, Tool: pr.Tool, Action: pr.Action, Codes: codes}
}

// TodoChange appends the todo.change_refused event of a change of todo
// (kind its event, e.g. todo.done; status the one asked) by actor, in
// goal, refused with re (a todo another agent leases).
func TodoChange(tx Tx, goal, actor, todo, kind, status string, re *errs.Error) error {
	return tx.AppendEvent(records.Event{Kind: "todo.change_refused", Goal: goal, Actor: actor, Subject: todo,
		Message: kind + " refused: " + re.Message, Data: map[string]any{"code": re.Code, "status": status}})
}

// Logged runs write in a transaction of its own (update) when err is a
// refusal (Refusal); a refused store keeps it, saying who tried what and
// when (now), in its refusal log under stateDir instead
// (kernel.LogWhileRefused); other failures lose it.
func Logged(err error, who, stateDir string, now time.Time, update func(func(*kernel.Tx) error) error, write func(*kernel.Tx, *errs.Error) error) {
	if re := Refusal(err); re != nil {
		uerr := update(func(tx *kernel.Tx) error { return write(tx, re) })
		kernel.LogWhileRefused(stateDir, uerr, kernel.Refusal{At: now, Code: re.Code, Message: who + ": refused while the store was refused: " + re.Message})
	}
}
