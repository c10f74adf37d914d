package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/specs"
)

// GateInput is a runtime gate to raise (`loopx gate raise`).
type GateInput struct {
	Goal     string
	Question string
	// Options default to ["approve", "reject"].
	Options []string
	// Answerers default to ["human"].
	Answerers []string
	// Exactly one of BlocksTodo / BlocksAgent may be set; neither blocks the
	// whole goal.
	BlocksTodo  string
	BlocksAgent string
	// Guards makes it an action gate: it blocks only these actions
	// ("git.push"), checked by permission decisions and guarded evidence.
	Guards []string
	// ExpiresAfter is how long it stays open (0 = never); OnExpiry is the
	// option applied then.
	ExpiresAfter time.Duration
	OnExpiry     string
	// By is who raises it (an agent id or "human").
	By string
}

// RaiseGate validates and stores a runtime gate. Errors: *UsageError for an
// unknown goal/todo/agent, an empty question, or on_expiry not an option.
func (e *Engine) RaiseGate(in GateInput) (kernel.Gate, error) {
	var g kernel.Gate
	if err := e.RequireGoal(in.Goal); err != nil {
		return g, err
	}
	if strings.TrimSpace(in.Question) == "" {
		return g, Usagef("empty_question", "a gate needs a question")
	}
	if !specs.ConcreteQuestion(in.Question) {
		return g, Usagef("vague_question", "gate question %q is not a concrete question: end it with \"?\" and use at least 4 words (e.g. \"Merge the v2 branch into main now?\")", in.Question)
	}
	seen := map[string]bool{}
	for _, o := range in.Options {
		if strings.TrimSpace(o) == "" || seen[o] {
			return g, Usagef("bad_options", "gate options must be distinct and non-empty: %v", in.Options)
		}
		seen[o] = true
	}
	if in.ExpiresAfter < 0 {
		return g, Usagef("bad_expiry", "--expires-after must be positive")
	}
	if in.OnExpiry != "" && in.ExpiresAfter == 0 {
		return g, Usagef("bad_on_expiry", "--on-expiry needs --expires-after (when should the gate expire?)")
	}
	if n := btoi(in.BlocksTodo != "") + btoi(in.BlocksAgent != "") + btoi(len(in.Guards) > 0); n > 1 {
		return g, Usagef("bad_scope", "give at most one of --blocks-todo, --blocks-agent and --guards")
	}
	if len(in.Options) == 0 {
		in.Options = []string{"approve", "reject"}
	}
	if len(in.Answerers) == 0 {
		in.Answerers = []string{"human"}
	}
	if in.OnExpiry != "" && !slices.Contains(in.Options, in.OnExpiry) {
		return g, Usagef("bad_on_expiry", "on-expiry %q is not one of the options %v", in.OnExpiry, in.Options)
	}
	g = kernel.Gate{Goal: in.Goal, Question: in.Question, Options: in.Options, Answerers: in.Answerers,
		ScopeKind: "goal", RaisedBy: in.By, OnExpiry: in.OnExpiry}
	err := e.update(func(tx *kernel.Tx) error {
		switch {
		case len(in.Guards) > 0:
			g.ScopeKind, g.Guards = "action", in.Guards
		case in.BlocksTodo != "":
			t, err := tx.Todo(in.BlocksTodo)
			if IsNotFound(err) {
				return Usagef("unknown_todo", "unknown todo %q", in.BlocksTodo)
			}
			if err != nil {
				return err
			}
			if t.Goal != in.Goal {
				return Usagef("unknown_todo", "todo %s belongs to goal %s, not %s", t.ID, t.Goal, in.Goal)
			}
			g.ScopeKind, g.ScopeTodos = "todo", []string{t.ID}
		case in.BlocksAgent != "":
			if !e.agentKnown(tx, in.BlocksAgent) {
				return Usagef("unknown_agent", "unknown agent %q", in.BlocksAgent)
			}
			g.ScopeKind, g.ScopeAgents = "agent", []string{in.BlocksAgent}
		}
		if in.ExpiresAfter > 0 {
			g.ExpiresAt = tx.Now().Add(in.ExpiresAfter)
		}
		var err error
		g, err = tx.AddGate(g)
		return err
	})
	return g, err
}

func (e *Engine) agentKnown(tx *kernel.Tx, id string) bool {
	if e.spec != nil && e.spec.Spec != nil {
		if _, ok := e.spec.Spec.Agents[id]; ok {
			return true
		}
	}
	_, err := tx.Agent(id)
	return err == nil
}

// AnswerInput is an answer to a gate.
type AnswerInput struct {
	Gate, Option, Note string
	// Actor is "human" or "agent:<id>".
	Actor string
	// InRound is true when the caller runs inside a round (LOOPX_ROUND or
	// LOOPX_AGENT set): a human answer is then refused.
	InRound bool
}

// AnswerGate validates an answer synchronously and records it in one
// transaction. Refused and never recorded when: the gate is unknown or the
// option is not one of its options (*UsageError), the gate is closed
// (gate_closed), the actor is not an answerer (not_answerer), the actor
// raised it or a human answer comes from inside a round
// (self_answer_forbidden) — the refusals are *RefusedError.
func (e *Engine) AnswerGate(in AnswerInput) (g kernel.Gate, err error) {
	defer func() { e.AuditAnswerRefusal(in.Gate, in.Actor, err) }()
	if in.Actor == "" {
		in.Actor = "human"
	}
	err = e.update(func(tx *kernel.Tx) error {
		var err error
		g, err = tx.Gate(in.Gate)
		if IsNotFound(err) {
			return Usagef("unknown_gate", "unknown gate %q", in.Gate)
		}
		if err != nil {
			return err
		}
		if err := CheckAnswer(g, in); err != nil {
			return err
		}
		g.Status = in.Option
		g.Answer = &kernel.Answer{Option: in.Option, By: in.Actor, Note: in.Note, At: tx.Now()}
		if err := tx.PutGate(g); err != nil {
			return err
		}
		return tx.AppendEvent(kernel.Event{Kind: "gate.answered", Goal: g.Goal, Actor: in.Actor, Subject: g.ID,
			Message: in.Option, Data: map[string]any{"note": in.Note, "question": g.Question}})
	})
	return g, err
}

// Gates lists gates of a goal ("" = every spec goal), optionally only those
// with status ("open", an option, "expired", "cancelled").
func (e *Engine) Gates(goal, status string) ([]kernel.Gate, error) {
	goals, err := e.goalsIn(goal)
	if err != nil {
		return nil, err
	}
	if err := e.update(func(tx *kernel.Tx) error { return nil }); err != nil { // materialise and expire
		return nil, err
	}
	out := []kernel.Gate{}
	err = e.view(func(tx *kernel.Tx) error {
		for _, g := range goals {
			gs, err := tx.Gates(g)
			if err != nil {
				return err
			}
			for _, x := range gs {
				if status == "" || x.Status == status {
					out = append(out, x)
				}
			}
		}
		return nil
	})
	return out, err
}

// Gate returns one gate. Errors: *UsageError unknown_gate.
func (e *Engine) Gate(id string) (kernel.Gate, error) {
	var g kernel.Gate
	if err := e.update(func(tx *kernel.Tx) error { return nil }); err != nil {
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CheckAnswer validates an answer to g without recording anything: the
// refusals of AnswerGate (gate_closed, unknown_option, self_answer_forbidden,
// not_answerer). AnswerGate re-checks inside its transaction.
func CheckAnswer(g kernel.Gate, in AnswerInput) error {
	if in.Actor == "" {
		in.Actor = "human"
	}
	if g.Status != kernel.GateOpen {
		return &RefusedError{Code: "gate_closed", Message: fmt.Sprintf("gate %s is already closed (%s)", g.ID, g.Status)}
	}
	if !slices.Contains(g.Options, in.Option) {
		return Usagef("unknown_option", "option %q is not one of gate %s's options %v", in.Option, g.ID, g.Options)
	}
	if in.Actor == "human" && in.InRound {
		return &RefusedError{Code: "self_answer_forbidden", Message: fmt.Sprintf("gate %s needs a human answer, and this command runs inside an agent round (LOOPX_ROUND/LOOPX_AGENT set): answer it from your own terminal", g.ID)}
	}
	raiser := g.RaisedBy
	if raiser != "human" && raiser != "spec" && raiser != "loopx" {
		raiser = "agent:" + raiser
	}
	if raiser == in.Actor && in.Actor != "human" {
		return &RefusedError{Code: "self_answer_forbidden", Message: fmt.Sprintf("%s raised gate %s and cannot answer it", in.Actor, g.ID)}
	}
	if !slices.Contains(g.Answerers, in.Actor) {
		return &RefusedError{Code: "not_answerer", Message: fmt.Sprintf("%s may not answer gate %s (answerers: %v)", in.Actor, g.ID, g.Answerers)}
	}
	return nil
}

// AuditAnswerRefusal appends a gate.answer_refused event when err is a
// refusal (*RefusedError) of an answer to gate by actor, in its own
// transaction: every refused attempt to answer a gate — by a peer that is
// not an answerer, by the agent that raised it, from inside a round, from
// a process descending from a round, without a terminal — stays visible
// in the audit log. Other errors are ignored.
func (e *Engine) AuditAnswerRefusal(gate, actor string, err error) {
	var re *RefusedError
	if !errors.As(err, &re) {
		return
	}
	if actor == "" {
		actor = "human"
	}
	_ = e.update(func(tx *kernel.Tx) error {
		goal := ""
		if g, err := tx.Gate(gate); err == nil {
			goal = g.Goal
		}
		return tx.AppendEvent(kernel.Event{Kind: "gate.answer_refused", Goal: goal, Actor: actor, Subject: gate,
			Message: re.Message, Data: map[string]any{"code": re.Code}})
	})
}
