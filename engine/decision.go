package engine

import (
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/reporting/render"
)

// Decision is the answer to a query (decision.Decision).
type Decision = decision.Decision

// Revision identifies what a decision saw: the spec and policy content
// hashes and the store's global revision (decision.Revision).
type Revision = decision.Revision

// Reason is one reason of a decision (render.Reason: the documents
// render shows hold it too).
type Reason = render.Reason

// TodoRef names a todo in a decision (render.TodoRef).
type TodoRef = render.TodoRef

// QuotaSummary is used/limit per quota dimension; a nil Limit means
// unlimited (render.QuotaSummary).
type QuotaSummary = render.QuotaSummary

// Usage is an integer quota dimension: rounds, tokens (render.Usage).
type Usage = render.Usage

// UsageF is a fractional quota dimension: US dollars, seconds
// (render.UsageF).
type UsageF = render.UsageF
