package engine

import (
	"io"

	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
)

// The kernel's records and names as the engine's callers see them, so
// that the command layer reads and renders them without importing the
// kernel.

// Todo is a stored todo (records.Todo).
type Todo = records.Todo

// Evidence is a recorded piece of evidence (records.Evidence).
type Evidence = records.Evidence

// Handoff is what a round left for the next one (records.Handoff).
type Handoff = records.Handoff

// Agent is a registered agent (records.Agent).
type Agent = records.Agent

// Todo statuses (records.Todo*).
const (
	TodoOpen      = records.TodoOpen
	TodoDone      = records.TodoDone
	TodoBlocked   = records.TodoBlocked
	TodoCancelled = records.TodoCancelled
)

// Goal statuses (kernel.Goal*).
const (
	GoalActive   = records.GoalActive
	GoalPaused   = records.GoalPaused
	GoalDone     = records.GoalDone
	GoalArchived = records.GoalArchived
)

// PriorityString is priority p (0..4) as written: "P0".."P4".
func PriorityString(p int) string { return records.PriorityString(p) }

// SchemaFile is the schema's file name in loopx's source tree
// (specs/schema.cue).
const SchemaFile = specs.SchemaFile

// SchemaSource is the CUE schema every spec is unified with, a copy.
func SchemaSource() []byte { return specs.SchemaSource() }

// SpecChildCommand is the hidden single argument with which the loopx
// binary runs as the budgeted spec evaluator (ServeSpecChild).
const SpecChildCommand = specs.ChildCommand

// ServeSpecChild runs this process as the spec evaluator child: it reads a
// spec from in, writes the evaluation to out, and returns the exit code
// (specs.ServeChild).
func ServeSpecChild(in io.Reader, out, errw io.Writer) int { return specs.ServeChild(in, out, errw) }

// SetSpecBudgetFromEnv makes every later evaluation of a spec not in the
// cache run in a child process under the budget of the environment
// (LOOPX_SPEC_MEMORY_MB, LOOPX_SPEC_TIMEOUT; specs.BudgetFromEnv). The
// loopx binary's main calls it once.
func SetSpecBudgetFromEnv() { specs.SetBudget(specs.BudgetFromEnv()) }
