package reportdata

import (
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Prompt is a bounded-turn prompt and what it was built from.
type Prompt struct {
	Goal  string `json:"goal"`
	Agent string `json:"agent"`
	// Verdict is the should_run verdict the prompt reflects.
	Verdict    string `json:"verdict"`
	DecisionID string `json:"decision_id"`
	// Todo is the selected todo on "run" (nil otherwise).
	Todo *records.Todo `json:"todo"`
	// Round is the open round the prompt is for ("" outside `loopx run`).
	Round string `json:"round,omitempty"`
	// Text is the prompt (Markdown); Chars its length in characters.
	Text  string `json:"text"`
	Chars int    `json:"chars"`
	// Truncated is true when items were left out to respect the bound.
	Truncated bool `json:"truncated"`
}

// Contract is p as loopx prompt prints it (contract.Prompt).
func (p Prompt) Contract() contract.Prompt {
	return contract.Prompt{Goal: p.Goal, Agent: p.Agent, Verdict: p.Verdict, DecisionID: p.DecisionID,
		Todo: contract.Ptr(p.Todo, contract.TodoOf), Round: p.Round, Text: p.Text, Chars: p.Chars, Truncated: p.Truncated}
}
