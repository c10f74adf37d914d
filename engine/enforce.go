package engine

import (
	"fmt"
	"slices"

	"github.com/loopx-dev/loopx/kernel"
)

// blockingGate returns the first open, unexpired gate of goal that blocks
// agent's work on todo (todo "" = any): a goal-scoped gate, an agent-scoped
// gate naming agent, or a todo-scoped gate naming todo. Action-scoped gates
// block only their guarded actions (see guardingGate). It is the server-side
// twin of should_run step 4: mutations re-check it so that an agent whose
// host ignores hook answers still cannot record progress or spend quota.
func blockingGate(tx *kernel.Tx, goal, agent, todo string) (*kernel.Gate, error) {
	gates, err := tx.Gates(goal)
	if err != nil {
		return nil, err
	}
	now := tx.Now()
	for _, g := range gates {
		if g.Status != kernel.GateOpen || (!g.ExpiresAt.IsZero() && !now.Before(g.ExpiresAt)) {
			continue
		}
		switch g.ScopeKind {
		case "goal", "":
			return &g, nil
		case "agent":
			if slices.Contains(g.ScopeAgents, agent) {
				return &g, nil
			}
		case "todo":
			if todo != "" && slices.Contains(g.ScopeTodos, todo) {
				return &g, nil
			}
		}
	}
	return nil, nil
}

// guardingGate returns the first open gate of goal whose guards include action.
func guardingGate(tx *kernel.Tx, goal, action string) (*kernel.Gate, error) {
	if action == "" {
		return nil, nil
	}
	gates, err := tx.Gates(goal)
	if err != nil {
		return nil, err
	}
	now := tx.Now()
	for _, g := range gates {
		if g.Status == kernel.GateOpen && (g.ExpiresAt.IsZero() || now.Before(g.ExpiresAt)) && slices.Contains(g.Guards, action) {
			return &g, nil
		}
	}
	return nil, nil
}

// gateViolation builds the refusal of a mutation blocked by g.
func gateViolation(g *kernel.Gate, what string) *RefusedError {
	return &RefusedError{Code: "gate_violation", Gate: g.ID,
		Message: fmt.Sprintf("%s refused: gate %s is open: %s (answer it with: loopx gate answer %s --option …)", what, g.ID, g.Question, g.ID)}
}

// recordViolation appends a gate_violation event in its own transaction,
// after the refused mutation rolled back, so the attempt stays visible.
func (e *Engine) recordViolation(goal, actor string, re *RefusedError, data map[string]any) {
	if re == nil || re.Code != "gate_violation" {
		return
	}
	if data == nil {
		data = map[string]any{}
	}
	data["gate"] = re.Gate
	_ = e.update(func(tx *kernel.Tx) error {
		return tx.AppendEvent(kernel.Event{Kind: "gate_violation", Goal: goal, Actor: actor, Subject: re.Gate, Message: re.Message, Data: data})
	})
}
