package engine

import "github.com/loopx-dev/loopx/engine/deciding/input"

// The document policies see as `input` (package input), by the names the
// engine has always used.
type (
	// Input is the document policies see as input for every query.
	Input = input.Input
	// AnswerFacts is input.answer, the request of a gate_answer query.
	AnswerFacts = input.AnswerFacts
	// ActingFacts is input.answer.acting: how a command asks to act.
	ActingFacts = input.ActingFacts
	// AnswerGate is the answered gate in input.answer.gate.
	AnswerGate = input.AnswerGate
	// Channel is how a request reached loopx (input.answer.channel).
	Channel = input.Channel
	// ProjectFacts is what is known of the project itself.
	ProjectFacts = input.ProjectFacts
	// Health reports whether the store, spec and policy are usable.
	Health = input.Health
	// PermissionRequest is input.permission, the request of a permission
	// query.
	PermissionRequest = input.PermissionRequest
	// PathFacts is one path of a permission request.
	PathFacts = input.PathFacts
	// Snapshot is the part of kernel state a decision depends on.
	Snapshot = input.Snapshot
	// GoalFacts is a goal's runtime status.
	GoalFacts = input.GoalFacts
	// AgentFacts is what is known of the asking agent.
	AgentFacts = input.AgentFacts
	// GateFacts is one open gate of the goal.
	GateFacts = input.GateFacts
	// GateScope is what a gate blocks.
	GateScope = input.GateScope
	// TodoFacts is one todo that is not done or cancelled.
	TodoFacts = input.TodoFacts
	// LeaseFacts is a todo's claim.
	LeaseFacts = input.LeaseFacts
	// QuotaFacts is the goal's quota use and limits.
	QuotaFacts = input.QuotaFacts
	// ProgressFacts is what recent rounds say about progress.
	ProgressFacts = input.ProgressFacts
	// ClaimFacts is input.claim, the request of a claim query.
	ClaimFacts = input.ClaimFacts
	// ClaimTodo is the todo of a claim query.
	ClaimTodo = input.ClaimTodo
	// ConflictFacts is a scope overlap between a claimed and a held todo.
	ConflictFacts = input.ConflictFacts
)
