package inputstate

import (
	"errors"
	"strings"

	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// RaisedGate is the gate record in (validated) raises in tx, not stored
// yet: a goal gate, or scoped to its guards (an action gate), its todo or
// its agent (known says whether an agent id is known; an agent:<id>
// answerer must be known too), expiring
// in.ExpiresAfter from tx's now. Errors: errs.Usage unknown_todo (not a
// todo of in.Goal), unknown_agent; the store's.
func RaisedGate(tx *kernel.Tx, in gates.Input, known func(agent string) bool) (records.Gate, error) {
	g := records.Gate{Goal: in.Goal, Question: in.Question, Options: in.Options, Answerers: in.Answerers,
		ScopeKind: "goal", RaisedBy: in.By, OnExpiry: in.OnExpiry}
	for _, a := range in.Answerers {
		if id, ok := strings.CutPrefix(a, "agent:"); ok && !known(id) {
			return g, errs.Usagef("unknown_agent", "--answerers %q: unknown agent %q (declare it in the spec's agents or register it: loopx agent register ID --host H)", a, id)
		}
	}
	switch {
	case len(in.Guards) > 0:
		g.ScopeKind, g.Guards = "action", in.Guards
	case in.BlocksTodo != "":
		t, err := tx.Todo(in.BlocksTodo)
		if errors.Is(err, kernel.ErrNotFound) {
			return g, errs.Usagef("unknown_todo", "unknown todo %q", in.BlocksTodo)
		}
		if err != nil {
			return g, err
		}
		if t.Goal != in.Goal {
			return g, errs.Usagef("unknown_todo", "todo %s belongs to goal %s, not %s", t.ID, t.Goal, in.Goal)
		}
		g.ScopeKind, g.ScopeTodos = "todo", []string{t.ID}
	case in.BlocksAgent != "":
		if !known(in.BlocksAgent) {
			return g, errs.Usagef("unknown_agent", "unknown agent %q", in.BlocksAgent)
		}
		g.ScopeKind, g.ScopeAgents = "agent", []string{in.BlocksAgent}
	}
	if in.ExpiresAfter > 0 {
		g.ExpiresAt = tx.Now().Add(in.ExpiresAfter)
	}
	return g, nil
}

// AgentKnown reports whether agent id is known: declared in spec (nil:
// none loaded) or registered by a human (records.Agent.Registered).
func AgentKnown(spec *specs.Loaded, tx *kernel.Tx, id string) bool {
	if spec != nil && spec.Spec != nil {
		if _, ok := spec.Spec.Agents[id]; ok {
			return true
		}
	}
	a, err := tx.Agent(id)
	return err == nil && a.Registered
}
