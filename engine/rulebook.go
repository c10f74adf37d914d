package engine

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/specs"
)

// The engine's side of the project's rulebook (package rulebook): which
// policies are loaded, the schemas of the engine's Input, and the budget
// of one evaluation.

// policySchemas are the schemas every user policy is type-checked with:
// of Input (per query) and of the spec, built on first use. Their
// descriptions are the doc comments of the Go sources of the input's
// types: a type the input carries that is declared in another file needs
// that file's source here (TestPolicySchema_EveryFieldIsDescribed says
// so). The input's fields that only one query carries are that query's
// InputField (engine/deciding/query).
var policySchemas = rulebook.NewSchemas(rulebook.Input{
	Type:    reflect.TypeFor[input.Input](),
	Sources: []string{input.TypesSource, trust.TypesSource},
})

// book is the project's rulebook.
func (e *Engine) book() rulebook.Book {
	return rulebook.Book{Root: e.root, Dir: filepath.Join(e.SpecDir(), rulebook.DirName), Schemas: policySchemas}
}

// UserModules reads the project's user policies and tests, sorted by path,
// once per Engine. Errors: those of rulebook.Book.Load.
func (e *Engine) UserModules() ([]rulebook.Module, error) {
	if e.userLoaded {
		return e.user, e.userErr
	}
	e.userLoaded = true
	e.user, e.userErr = e.book().Load()
	return e.user, e.userErr
}

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
	return e.book().Test(ctx, e.specJSON(), e.PolicyDeadline())
}

// PolicySchema returns the JSON schema (draft-07) that policies are
// type-checked with: the input of query name ("should_run", "permission")
// or, for SpecSchemaName, data.loopx.spec. Errors: errs.Usage
// (unknown_schema) for any other name.
func PolicySchema(name string) ([]byte, error) { return policySchemas.JSON(name) }

// PolicyErr is the error preparing the policies in effect (nil when
// they compile or were not prepared yet).
func (e *Engine) PolicyErr() error { return e.prep.Err() }

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

// PolicyDeadline is how long one policy evaluation may run (spec field
// project.policy_deadline; specs.DefaultPolicyDeadline when the spec is
// unusable): past it the decision denies with policy_error.
func (e *Engine) PolicyDeadline() time.Duration {
	if e.spec == nil {
		return specs.DefaultPolicyDeadline
	}
	return e.spec.Spec.Project.Deadline()
}

// withDeadline bounds ctx by the policy deadline.
func (e *Engine) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, e.PolicyDeadline())
}

// Warm starts compiling the built-in policy of queries in the background,
// as one compilation (rulebook.Warm; a round start prepares should_run and
// claim together), for a process about to decide them; a query that is
// not prewarmed (query.Query.Prewarm) is left out.
func Warm(queries ...query.Query) {
	var refs []string
	for _, q := range queries {
		if q.Prewarm {
			refs = append(refs, q.Entry)
		}
	}
	if len(refs) > 0 {
		rulebook.Warm(refs...)
	}
}
