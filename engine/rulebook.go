package engine

import (
	"context"
	"reflect"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
)

// The engine's side of the project's rulebook (package rulebook): which
// policies are loaded, the schemas of the engine's Input, and the budget
// of one evaluation.

// policySchemas are the schemas every user policy is type-checked with:
// of Input (per query) and of the spec, built on first use. Their
// descriptions are the doc comments of the Go sources of the input's
// types: a type the input carries that is declared in another file needs
// that file's source here (TestPolicySchema_EveryFieldIsDescribed says
// so). A query with
// its own request fields (claim, gate_answer) adds its Input field to
// QueryFields.
var policySchemas = rulebook.NewSchemas(rulebook.Input{
	Type:        reflect.TypeFor[input.Input](),
	Sources:     []string{input.TypesSource, trust.TypesSource},
	QueryFields: map[string]string{"permission": "permission", "claim": "claim", "answer": "gate_answer"},
})

// book is the project's rulebook.
func (e *Engine) book() rulebook.Book { return e.rules.book() }

// UserModules is Rules.UserModules of the rules in effect.
func (e *Engine) UserModules() ([]rulebook.Module, error) { return e.rules.UserModules() }

// UserPolicies is rulebook.Book.Policies of the project: the usable user
// policies and tests, and every problem of the others.
func (e *Engine) UserPolicies() ([]rulebook.Module, []rulebook.Problem, error) {
	return e.book().Policies()
}

// CheckPolicies is rulebook.Book.Check of the project: every problem of
// the user policies, compile errors and unreachable rules included.
func (e *Engine) CheckPolicies() ([]rulebook.Problem, error) { return e.book().Check() }

// TestPolicies is rulebook.Book.Test of the project: its Rego tests, with
// data.loopx.spec the spec in effect ({} when it does not load), each
// under PolicyDeadline.
func (e *Engine) TestPolicies(ctx context.Context) (rulebook.TestReport, error) {
	return e.book().Test(ctx, e.rules.specJSON(), e.rules.PolicyDeadline())
}

// PolicySchema returns the JSON schema (draft-07) that policies are
// type-checked with: the input of query name ("should_run", "permission")
// or, for SpecSchemaName, data.loopx.spec. Errors: errs.Usage
// (unknown_schema) for any other name.
func PolicySchema(name string) ([]byte, error) { return policySchemas.JSON(name) }

// PolicyErr is Rules.PolicyErr of the rules in effect.
func (e *Engine) PolicyErr() error { return e.rules.PolicyErr() }

// IsUserPolicyError reports whether err comes from the project's own
// policies (a rulebook.AsError error, or an OPA error located in
// loopx/policies/): an input error (exit 2), where a failing built-in
// policy is internal.
func IsUserPolicyError(err error) bool {
	if rulebook.AsError(err) != nil {
		return true
	}
	return err != nil && strings.Contains(err.Error(), scaffold.SpecDirName+"/"+rulebook.DirName+"/")
}

// PolicyDeadline is Rules.PolicyDeadline of the rules in effect.
func (e *Engine) PolicyDeadline() time.Duration { return e.rules.PolicyDeadline() }

// Warm starts compiling the built-in policy of queries in the background,
// as one compilation (rulebook.Warm; a round start prepares should_run and
// claim together), for a process about to decide them.
func Warm(queries ...string) {
	if refs, err := entryRules(queries); err == nil {
		rulebook.Warm(refs...)
	}
}
