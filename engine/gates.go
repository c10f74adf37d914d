package engine

import (
	"context"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// ParseDuration reads a duration as the spec writes one ("90s", "72h",
// "7d"): specs.ParseDuration. Errors: a malformed or negative duration.
func ParseDuration(s string) (time.Duration, error) { return specs.ParseDuration(s) }

// RaiseGate validates and stores a runtime gate. Errors: errs.Usage for an
// unknown goal/todo/agent, an empty question, or on_expiry not an option.
func (e *Engine) RaiseGate(in gates.Input) (records.Gate, error) {
	var g records.Gate
	if err := e.RequireGoal(in.Goal); err != nil {
		return g, err
	}
	if err := in.Validate(); err != nil {
		return g, err
	}
	err := e.update(func(tx *kernel.Tx) (err error) {
		if g, err = inputstate.RaisedGate(tx, in, func(id string) bool { return inputstate.AgentKnown(e.rules.spec, tx, id) }); err == nil {
			g, err = tx.AddGate(g)
		}
		return err
	})
	return g, err
}

// AnswerGate decides the answer (data.loopx.gate.decision, the gate_answer
// query, prepared before the store is opened) inside the transaction that
// records it, and records it only on allow: the gate's status becomes the
// option, with the answer and a gate.answered event. The decision is
// logged. Refused and never recorded (each refusal audited as
// gate.answer_refused): errs.Usage unknown_gate, unknown_option, and
// policy_error for a user policy that does not compile; errs.No
// with the decision's first reason otherwise (gate_closed, not_answerer,
// self_answer_forbidden, confirmation_required, confirmation_pending,
// confirmation_mismatch, bad_channel, demo_only, a user policy's deny).
func (e *Engine) AnswerGate(in gates.Answer) (g records.Gate, err error) {
	return e.AnswerGateContext(context.Background(), in)
}

// AnswerGateContext is AnswerGate with a context bounding the decision.
func (e *Engine) AnswerGateContext(ctx context.Context, in gates.Answer) (g records.Gate, err error) {
	defer func() { e.AuditAnswerRefusal(in.Gate, in.Actor, err) }()
	if err := inert.CheckLen("the answer note (--note)", in.Note, true); err != nil {
		return g, Usagef("too_long", "%v", err)
	}
	if err := inert.Check("the answer note", in.Note, true); err != nil {
		return g, Usagef("control_character", "%v", err)
	}
	e.rules.prepareAll(ctx, query.GateAnswer)
	var cd claimDecision
	err = e.update(func(tx *kernel.Tx) error {
		var err error
		g, cd, err = e.decideAnswer(ctx, tx, in)
		if err != nil {
			return err
		}
		if !cd.d.Allow {
			return e.Refusal(cd.d)
		}
		g.Status = in.Option
		g.Answer = &records.Answer{Option: in.Option, By: in.Actor, Note: in.Note, At: tx.Now()}
		if err := tx.PutGate(g); err != nil {
			return err
		}
		data := map[string]any{"note": in.Note, "question": g.Question, "channel": in.Channel.Kind}
		if in.Channel.Kind == "terminal" && in.Channel.Ancestry != nil {
			// Who answered, as the processes above the command showed it
			// (human answers record their ancestry).
			data["ancestry"] = in.Channel.Ancestry
		}
		if err := tx.AppendEvent(records.Event{Kind: "gate.answered", Goal: g.Goal, Actor: in.Actor, Subject: g.ID,
			Message: in.Option, Data: data}); err != nil {
			return err
		}
		if in.Option == "approve" {
			// A change between rounds approved: the files as they were
			// then are the protected set seen.
			if p, ok, err := tx.GateProtected(g.ID); err != nil {
				return err
			} else if ok {
				if err := tx.PutProtectedSeen(p); err != nil {
					return err
				}
			}
		}
		if g.Adopt != nil && in.Option == "approve" {
			return e.adoptByGate(tx, g, in.Actor)
		}
		if in.Option == "reject" {
			return e.restoreByGate(tx, g, in.Actor)
		}
		return nil
	})
	e.logClaim(cd)
	return g, err
}

// Confirmation is what a person answering a gate at a terminal is shown
// before typing the gate id back: the gate, the option chosen, and for a
// reject of a gate that restores the rules (a protected-files gate) the
// files of loopx/ it overwrites (Restores true, Paths empty when loopx/
// already holds the rules it restores).
type Confirmation struct {
	Gate     records.Gate
	Option   string
	Restores bool
	Paths    []string
}

// Confirmer asks the person at the controlling terminal to confirm c; it
// returns what they typed, or the error that kept the terminal from being
// used (no controlling terminal).
type Confirmer interface {
	Confirm(c Confirmation) (typed string, err error)
}

// AnswerGateAt answers a gate through in.Channel, asking t to confirm
// when the channel is a human's terminal: the answer is first decided in a
// read (nothing is written; the decision is logged) and refused at once,
// audited, unless only the confirmation stands between it and its record;
// the store is released (the state lock is never held while a person
// types), t is asked, and the answer with what was typed is decided again
// and recorded in one write transaction (AnswerGateContext, its errors).
// Any other channel is that one transaction alone. Errors of the read:
// errs.Usage unknown_gate; the store's.
func (e *Engine) AnswerGateAt(ctx context.Context, in gates.Answer, t Confirmer) (records.Gate, error) {
	if in.Channel.Kind == "terminal" && in.Actor == "human" {
		c, err := e.previewAnswer(ctx, in)
		if err != nil {
			return records.Gate{}, err
		}
		if err := e.Release(); err != nil {
			return records.Gate{}, err
		}
		typed, err := t.Confirm(c)
		if err != nil {
			typed, in.Channel.TTYError = "", err.Error()
		}
		in.Channel.Typed = &typed
	}
	return e.AnswerGateContext(ctx, in)
}

// previewAnswer decides in (no confirmation typed yet) in a read-only
// transaction and logs the decision; it returns what the person is to
// confirm, or the refusal (audited) when more than the missing
// confirmation refuses the answer.
func (e *Engine) previewAnswer(ctx context.Context, in gates.Answer) (Confirmation, error) {
	e.rules.prepareAll(ctx, query.GateAnswer)
	c := Confirmation{Option: in.Option}
	var cd claimDecision
	err := e.view(func(tx *kernel.Tx) (err error) {
		if c.Gate, cd, err = e.decideAnswer(ctx, tx, in); err != nil {
			return err
		}
		if in.Option == "reject" && (cd.d.Allow || cd.d.OnlyConfirmationPending()) {
			c.Paths, c.Restores, err = adopt.GateRestorePaths(tx, in.Gate, e.diskFiles())
		}
		return err
	})
	e.logClaim(cd)
	if err != nil {
		return c, err
	}
	if d := cd.d; !d.Allow && !d.OnlyConfirmationPending() {
		err := e.Refusal(d)
		e.AuditAnswerRefusal(in.Gate, in.Actor, err)
		return c, err
	}
	return c, nil
}

// DecideAnswer decides an answer without recording it (a preview: `loopx
// decide gate-answer`) in a transaction that settles the state first
// (update: nothing is written when nothing needs settling) and logs the
// decision. Errors: errs.Usage
// unknown_gate; store errors.
func (e *Engine) DecideAnswer(ctx context.Context, in gates.Answer) (decision.Decision, error) {
	e.rules.prepareAll(ctx, query.GateAnswer)
	var cd claimDecision
	err := e.update(func(tx *kernel.Tx) error {
		var err error
		_, cd, err = e.decideAnswer(ctx, tx, in)
		return err
	})
	e.logClaim(cd)
	return failClosed(cd.d, query.GateAnswer, err), err
}

// decideAnswer evaluates the gate_answer query for in inside tx.
func (e *Engine) decideAnswer(ctx context.Context, tx *kernel.Tx, in gates.Answer) (records.Gate, claimDecision, error) {
	g, err := tx.Gate(in.Gate)
	if IsNotFound(err) {
		return g, claimDecision{}, Usagef("unknown_gate", "unknown gate %q", in.Gate)
	}
	if err != nil {
		return g, claimDecision{}, err
	}
	p, err := tx.Project()
	if err != nil {
		return g, claimDecision{}, err
	}
	now := tx.Now()
	agent := strings.TrimPrefix(in.Actor, "agent:")
	if !strings.HasPrefix(in.Actor, "agent:") {
		agent = ""
	}
	af := &input.AnswerFacts{Gate: input.AnswerGate{ID: g.ID, Goal: g.Goal, Status: g.Status, Question: g.Question,
		Options: inputstate.NonNil(g.Options), Answerers: inputstate.NonNil(g.Answerers), RaisedBy: g.RaisedBy, Reason: g.Reason},
		Option: in.Option, Actor: in.Actor, Note: in.Note, Channel: in.Channel, Project: input.ProjectFacts{Demo: p.Demo}}
	req := Request{Query: query.GateAnswer, Goal: g.Goal, Agent: agent}
	input := input.Input{Query: query.GateAnswer.Name, Now: records.RFC3339(now), Goal: g.Goal, Agent: agent, Answer: af}
	if e.rules.specErr != nil {
		input.Health.Spec = errs.Summary(e.rules.specErr)
	}
	if input.State, err = e.rules.facts().Gates(tx, g.Goal, agent); err != nil {
		return g, claimDecision{}, err
	}
	d := e.evaluate(ctx, req, input)
	e.finishDecision(&d, req, input)
	return g, claimDecision{d: d, in: input, now: now}, nil
}

// RepairAllowed decides whether a human-only repair of loopx itself
// (`loopx doctor --accept-store`) may run through channel ch: the rule
// data.loopx.repair.decision, compiled with the built-in bundle only (no user
// policy takes part, so a broken one cannot lock the human out). It
// returns nil when allowed, else an errs.No refusal with the first reason.
func (e *Engine) RepairAllowed(ctx context.Context, ch input.Channel) error {
	pq, err := e.rules.compileRef(ctx, "data.loopx.repair.decision", nil)
	if err != nil {
		return err
	}
	in := input.Input{Query: query.GateAnswer.Name, Now: records.RFC3339(e.Now()), Answer: &input.AnswerFacts{Actor: "human", Channel: ch}}
	d := e.evalPrepared(ctx, pq, "data.loopx.repair.decision", query.GateAnswer, in)
	if d.Allow {
		return nil
	}
	return e.Refusal(d)
}

// DecideAcceptStore decides whether `loopx doctor --accept-store` may
// accept the store through channel ch: the rule
// data.loopx.repair.accept_store (repair's channel checks, and at a
// terminal "accept" typed back), compiled with the built-in bundle only.
// A terminal nobody was asked on yet (ch.Typed nil) denies with
// confirmation_pending alone.
func (e *Engine) DecideAcceptStore(ctx context.Context, ch input.Channel) decision.Decision {
	return e.DecideTypedRepair(ctx, "accept_store", ch)
}

// DecideTypedRepair decides whether the human-only repair rule names
// may go ahead through channel ch: the rule data.loopx.repair.<rule>
// ("accept_store", "uninstall_hooks", "mark_reviewed", "start_over": repair's channel
// checks, and at a terminal the rule's word typed back), compiled with the
// built-in bundle only. A terminal nobody was asked on yet (ch.Typed nil)
// denies with confirmation_pending alone.
func (e *Engine) DecideTypedRepair(ctx context.Context, rule string, ch input.Channel) decision.Decision {
	ref := "data.loopx.repair." + rule
	pq, err := e.rules.compileRef(ctx, ref, nil)
	if err != nil {
		return decision.Deny("policy_error", err.Error(), ref)
	}
	in := input.Input{Query: query.GateAnswer.Name, Now: records.RFC3339(e.Now()), Answer: &input.AnswerFacts{Actor: "human", Channel: ch}}
	d := e.evalPrepared(ctx, pq, ref, query.GateAnswer, in)
	d.Query = rule
	return d
}

// Gates lists gates of a goal ("" = every spec goal), optionally only those
// with status ("open", an option, "expired", "cancelled").
func (e *Engine) Gates(goal, status string) ([]records.Gate, error) {
	goals, err := e.goalsIn(goal)
	if err != nil {
		return nil, err
	}
	if err := e.settle(); err != nil { // materialise and expire
		return nil, err
	}
	return perGoal(e, goals, (*kernel.Tx).Gates, func(g records.Gate) bool { return status == "" || g.Status == status })
}

// Gate returns one gate. Errors: errs.Usage unknown_gate.
func (e *Engine) Gate(id string) (records.Gate, error) {
	var g records.Gate
	if err := e.settle(); err != nil {
		return g, err
	}
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		g, err = tx.Gate(id)
		if IsNotFound(err) {
			return Usagef("unknown_gate", "unknown gate %q", id)
		}
		return err
	})
	return g, err
}

// GatePolls returns the counted polls (records.GatePoll: agent, count,
// first and latest instant) under the gates of goal ("" = every goal in
// the store), by goal, gate and agent. Errors: errs.Usage unknown_goal; the store's.
func (e *Engine) GatePolls(goal string) (polls []records.GatePoll, err error) {
	if err := e.RequireGoal(goal); goal != "" && err != nil {
		return nil, err
	}
	return polls, e.view(func(tx *kernel.Tx) error { polls, err = tx.GatePolls(goal); return err })
}

// AuditAnswerRefusal appends a gate.answer_refused event when err is a
// refusal (errs.No) of an answer to gate by actor, in its own
// transaction: every refused attempt to answer a gate — by a peer that is
// not an answerer, by the agent that raised it, from inside a round, from
// a process descending from a round, without a terminal — stays visible
// in the audit log. Other errors are ignored.
func (e *Engine) AuditAnswerRefusal(gate, actor string, err error) {
	e.audit(err, actor+" answering gate "+gate, func(tx *kernel.Tx, re *errs.Error) error { return audit.Answer(tx, gate, actor, re) })
}

// TypedBack is the channel of a human who answers gate at a terminal and
// typed its id back: what `loopx gate answer` gathers once the person
// confirmed. Tests and embedders answering for a person use it.
func TypedBack(gate string) input.Channel {
	return input.Channel{Kind: "terminal", TTY: true, Typed: &gate}
}
