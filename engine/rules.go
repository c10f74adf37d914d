package engine

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/inputstate"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/specs"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Rules are the rules in effect of one project as an Engine resolved them
// (adopt.go: resolveRules): the spec decisions evaluate and the spec the
// files on disk give, the change of loopx/ waiting for a human, the
// revision AdoptTightening would adopt, the user policies and the queries
// prepared over that spec and those policies.
//
// Resolving builds a Rules and writes nothing; nothing on a Rules changes
// once it is built: when the rules in effect change (an adoption, loopx/
// read again, the store's rules differing from the read model's) the
// Engine replaces its Rules with another (Engine.Rules says which one is
// in effect). The user policies load and the queries prepare on first
// use, each once and safely from several goroutines, so one Rules may be
// shared read-only, e.g. by the requests a long-lived process serves.
type Rules struct {
	root string
	// spec is the adopted spec decisions evaluate; disk is the spec the
	// files on disk give, the same one unless a change is pending.
	spec    *specs.Loaded
	specErr error
	disk    *specs.Loaded
	diskErr error
	// pending is the change of loopx/ waiting for a human, nil when none.
	pending *adopt.Pending
	// tightening is the revision on disk when pending only tightens (what
	// AdoptTightening adopts).
	tightening records.Rules
	// user are the user policies in effect, loaded on first use.
	user *userModules
	// prep holds the queries prepared over spec and user.
	prep *rulebook.Prepared
	// reads is whether the user policies may read the todos.
	reads *rulebook.ReadsCache
}

// userModules are a Rules' user policies and tests: given, or loaded from
// loopx/policies/ on first use (once, safe for concurrent use).
type userModules struct {
	once sync.Once
	load func() ([]rulebook.Module, error)
	mods []rulebook.Module
	err  error
}

// get returns the modules, loading them on the first call.
func (u *userModules) get() ([]rulebook.Module, error) {
	u.once.Do(func() {
		if u.load != nil {
			u.mods, u.err = u.load()
			u.load = nil
		}
	})
	return u.mods, u.err
}

// givenUser are user modules already loaded (or parsed), with their error.
func givenUser(mods []rulebook.Module, err error) *userModules {
	u := &userModules{mods: mods, err: err}
	u.once.Do(func() {})
	return u
}

// newRules are the rules of the project at root with no spec read yet and
// the user policies loaded from loopx/policies/ on first use: the start
// of resolving (resolveRules).
func newRules(root string) *Rules {
	r := &Rules{root: root, prep: new(rulebook.Prepared), reads: new(rulebook.ReadsCache)}
	r.user = &userModules{load: r.book().Load}
	return r
}

// with returns a copy of r changed by change, for an Engine replacing its
// rules; r stays as it was. The copy shares r's user policies and
// prepared queries unless change replaces them (withPolicies).
func (r *Rules) with(change func(n *Rules)) *Rules {
	n := *r
	change(&n)
	return &n
}

// withPolicies makes spec (and its error) and the user policies user (and
// their error) the rules n evaluates, with no query prepared yet.
func (n *Rules) withPolicies(spec *specs.Loaded, specErr error, user *userModules) {
	n.spec, n.specErr, n.user = spec, specErr, user
	n.prep = new(rulebook.Prepared)
}

// Spec returns the spec in effect, or the spec's error (specs.Errors for
// an invalid spec: exit 2).
func (r *Rules) Spec() (*specs.Loaded, error) { return r.spec, r.specErr }

// DiskSpec returns the spec as the files on disk say (what `vet` and
// `check` read), or its error; Spec is the adopted one decisions use.
func (r *Rules) DiskSpec() (*specs.Loaded, error) { return r.disk, r.diskErr }

// Pending returns what waits for a human's adoption, nil when the files on
// disk are the rules in effect (or no store exists yet).
func (r *Rules) Pending() *adopt.Pending { return r.pending }

// UserModules returns the user policies and tests in effect, sorted by
// path, loaded once. Errors: those of rulebook.Book.Load, or of parsing
// the adopted policies.
func (r *Rules) UserModules() ([]rulebook.Module, error) { return r.user.get() }

// PolicyErr is the error preparing the policies in effect (nil when
// they compile or were not prepared yet).
func (r *Rules) PolicyErr() error { return r.prep.Err() }

// PolicyDeadline is how long one policy evaluation may run (spec field
// project.policy_deadline; specs.DefaultPolicyDeadline when the spec is
// unusable): past it the decision denies with policy_error.
func (r *Rules) PolicyDeadline() time.Duration {
	if r.spec == nil {
		return specs.DefaultPolicyDeadline
	}
	return r.spec.Spec.Project.Deadline()
}

// withDeadline bounds ctx by the policy deadline.
func (r *Rules) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.PolicyDeadline())
}

// book is the project's rulebook (loopx/policies/).
func (r *Rules) book() rulebook.Book {
	return rulebook.Book{Root: r.root, Dir: filepath.Join(r.root, scaffold.SpecDirName, rulebook.DirName), Schemas: policySchemas}
}

// revisions returns the content hashes of the spec ("" when broken) and
// the policy bundle.
func (r *Rules) revisions() (spec, policy string) {
	if r.spec != nil {
		spec = r.spec.Hash
	}
	user, _ := r.UserModules()
	return spec, rulebook.Hash(user)
}

// specJSON is the exported spec in effect, nil when none loads.
func (r *Rules) specJSON() []byte {
	if r.spec == nil {
		return nil
	}
	return r.spec.JSON
}

// prepareAll prepares queries in parallel and waits (rulebook.Prepared).
// Mutations call it before the store is opened: they evaluate their
// decisions inside a transaction, under the state lock, and must not
// compile policies there.
func (r *Rules) prepareAll(ctx context.Context, qs ...query.Query) {
	queries := names(qs)
	user, uerr := r.UserModules() // loaded once, before any goroutine reads them
	if len(queries) > 1 && uerr == nil {
		// Several queries compile their modules together once (the
		// library they share is parsed and compiled once) and prepare
		// each entry rule on that compiler (rulebook.Schemas.PrepareAll).
		r.prep.Together(ctx, func(ctx context.Context, qs []string) ([]*rego.PreparedEvalQuery, error) {
			return r.compileQueries(ctx, qs, user)
		}, queries...)
	}
	r.prep.All(ctx, r.compile, queries...)
}

// prepared returns query prepared over these rules, once.
func (r *Rules) prepared(ctx context.Context, query string) (*rego.PreparedEvalQuery, error) {
	return r.prep.Get(ctx, query, r.compile)
}

// compile compiles and prepares query (see prepare).
func (r *Rules) compile(ctx context.Context, query string) (*rego.PreparedEvalQuery, error) {
	user, err := r.UserModules()
	if err != nil {
		return nil, err
	}
	pqs, err := r.compileQueries(ctx, []string{query}, user)
	if err != nil {
		return nil, err
	}
	return pqs[0], nil
}

// compileQueries prepares the entry rules of queries (see prepare), in
// their order, over one compilation of the modules they reach.
func (r *Rules) compileQueries(ctx context.Context, queries []string, user []rulebook.Module) ([]*rego.PreparedEvalQuery, error) {
	refs, err := entryRules(queries)
	if err != nil {
		return nil, err
	}
	return policySchemas.PrepareAll(ctx, refs, r.specJSON(), user)
}

// compileRef prepares the entry rule ref over the built-in modules it
// reaches and the user modules user (none: built-in only), with the spec
// in effect as data (rulebook.Schemas.Prepare).
func (r *Rules) compileRef(ctx context.Context, ref string, user []rulebook.Module) (*rego.PreparedEvalQuery, error) {
	return policySchemas.Prepare(ctx, ref, r.specJSON(), user)
}

// facts builds input.state under the spec in effect (package inputstate).
func (r *Rules) facts() inputstate.Builder {
	b := inputstate.Builder{Revisions: r.revisions}
	if r.spec != nil {
		b.Spec = r.spec.Spec
	}
	return b
}

// The engine's side of the project's rulebook (package rulebook) for the
// rules in effect and the project's files: which policies are loaded, the
// schemas of the engine's Input, and the budget of one evaluation.

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
