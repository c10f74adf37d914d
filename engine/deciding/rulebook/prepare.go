package rulebook

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// tested lists the compiler stages that only check a policy for mistakes
// (types, unused imports, undefined functions, recursion, deprecated or
// unsafe built-ins) and change nothing it evaluates. The built-in bundle
// passes all of them in `go test ./policies/` (OPA's tester compiles with
// every stage), so a cold decision skips them: they are a third of
// preparing. Stages that rewrite rules or build indices still run.
var tested = []ast.StageID{ast.StageCheckUnusedImports, ast.StageCheckKeywordOverrides, ast.StageCheckDuplicateImports,
	ast.StageCheckVoidCalls, ast.StageCheckUndefinedFuncs, ast.StageCheckRecursion, ast.StageCheckTypes,
	ast.StageCheckUnsafeBuiltins, ast.StageCheckDeprecatedBuiltins, ast.StageBuildRequiredCapabilities,
	// The bundle's # METADATA blocks are documentation, never read at
	// evaluation (no rego.metadata calls), and it has no print calls.
	ast.StageParseMetadataBlocks, ast.StageSetAnnotationSet, ast.StageRewriteRegoMetadataCalls, ast.StageRewritePrintCalls,
	ast.StageCheckRuleConflicts, ast.StageCheckSafetyRuleHeads, ast.StageSetGraph, ast.StageBuildComprehensionIndices,
	// The safety stage also reorders a body that uses a variable before
	// binding it; the bundle binds first everywhere, so it reorders
	// nothing (TestTested_SafetyReordersNothing) and is a third of the
	// compile.
	ast.StageCheckSafetyRuleBodies}

// Prepare compiles and prepares the rule ref (an entry rule of the
// built-in bundle) over the built-in modules it reaches
// (policies.EntryModules) and the user modules user (none: built-in only;
// their tests are left out; with them, the whole library too), with
// specJSON (the exported spec, nil for none) as data.loopx.spec. User
// modules are compiled with every check and type-checked against s; the
// built-in bundle alone skips the stages its own tests pass. Errors: a
// spec that is not JSON; a user module that does not parse or compile
// (explained as Explain does); ref no entry rule.
func (s *Schemas) Prepare(ctx context.Context, ref string, specJSON []byte, user []Module) (*rego.PreparedEvalQuery, error) {
	pqs, err := s.PrepareAll(ctx, []string{ref}, specJSON, user)
	if err != nil {
		return nil, err
	}
	return pqs[0], nil
}

// PrepareAll is Prepare for several entry rules at once, over one
// compilation of the built-in modules they reach and the user modules (a
// round start prepares should_run's and claim's rules, which share the
// library, on one compiler). It returns the prepared queries in the order
// of refs; any error fails them all.
func (s *Schemas) PrepareAll(ctx context.Context, refs []string, specJSON []byte, user []Module) ([]*rego.PreparedEvalQuery, error) {
	mods, err := builtinModules(refs)
	if err != nil {
		return nil, err
	}
	var spec map[string]any
	if specJSON != nil {
		if err := json.Unmarshal(specJSON, &spec); err != nil {
			return nil, err
		}
	}
	var compiler *ast.Compiler
	warmed := false
	if len(user) == 0 {
		// The built-in bundle alone skips the tested stages, type checking
		// among them: it needs no schemas (building them is a third of a
		// cold decision's preparing), only the capabilities.
		if compiler = takeWarm(refs); compiler != nil {
			warmed = true
		} else {
			compiler = builtinCompiler()
		}
	} else {
		var err error
		if compiler, err = s.Compiler(); err != nil {
			return nil, err
		}
	}
	// The spec is converted to AST values once, here, instead of on every
	// read of data.loopx.spec by every evaluation (the store's default,
	// which was most of a served permission's evaluation).
	store := inmem.NewFromObjectWithOpts(map[string]any{"loopx": map[string]any{"spec": spec}}, inmem.OptReturnASTValuesOnRead(true))
	opts := []func(*rego.Rego){
		rego.Compiler(compiler),
		rego.Query(refs[0]),
		// A failing built-in is an eval error (policy_error, deny), never a
		// silently dropped reason that could let a round run.
		rego.StrictBuiltinErrors(true),
		rego.Store(store),
	}
	if len(user) > 0 {
		// User policies may call any library rule: the whole library.
		lib, _ := policies.Library()
		maps.Copy(mods, lib)
	}
	if !warmed { // a warm compiler holds them compiled already
		parsed, err := parseAll(mods)
		if err != nil {
			return nil, err
		}
		for _, m := range parsed {
			opts = append(opts, rego.ParsedModule(m))
		}
	}
	if len(user) > 0 {
		// User policies are compiled with every check, their METADATA
		// processed, and type-checked against the input and spec schemas.
		mods, err := s.Modules()
		if err != nil {
			return nil, err
		}
		for _, m := range user {
			if m.Test {
				continue
			}
			pm, err := ast.ParseModuleWithOpts(m.Path, m.Source, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
			if err != nil {
				return nil, err
			}
			mods[m.Path] = pm
		}
		for _, m := range mods {
			opts = append(opts, rego.ParsedModule(m))
		}
	}
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		return nil, s.Explain(err)
	}
	out := []*rego.PreparedEvalQuery{&pq}
	for _, ref := range refs[1:] {
		// The compiler holds the compiled modules: only the query is new.
		pq, err := rego.New(rego.Compiler(compiler), rego.Query(ref), rego.StrictBuiltinErrors(true), rego.Store(store)).PrepareForEval(ctx)
		if err != nil {
			return nil, s.Explain(err)
		}
		out = append(out, &pq)
	}
	return out, nil
}

// builtinModules are the built-in modules the entry rules refs reach
// (policies.EntryModules: preparing costs time linear in the policy
// compiled). Errors: a ref that is no entry rule of the bundle.
func builtinModules(refs []string) (map[string]string, error) {
	mods := map[string]string{}
	for _, ref := range refs {
		m := policies.EntryModules(ref)
		if m == nil {
			return nil, fmt.Errorf("%s is no entry rule of the built-in bundle (# METADATA entrypoint: true)", ref)
		}
		maps.Copy(mods, m)
	}
	return mods, nil
}

// parseAll parses mods (path → Rego v1 source), each module in its own
// goroutine: parsing is a third of preparing a query, and modules parse
// independently, so a cold process parses on every core it has (the
// command's own goroutine mostly waits for the compile meanwhile).
// Errors: the first module, by path, that does not parse.
func parseAll(mods map[string]string) (map[string]*ast.Module, error) {
	paths := slices.Sorted(maps.Keys(mods))
	parsed := make([]*ast.Module, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() {
			parsed[i], errs[i] = ast.ParseModuleWithOpts(path, mods[path], ast.ParserOptions{RegoVersion: ast.RegoV1})
		})
	}
	wg.Wait()
	out := make(map[string]*ast.Module, len(paths))
	for i, path := range paths {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out[path] = parsed[i]
	}
	return out, nil
}

// builtinCompiler is the compiler of the built-in bundle alone.
func builtinCompiler() *ast.Compiler {
	return ast.NewCompiler().WithCapabilities(Capabilities()).WithSkipStages(tested...)
}

// warm is the compile Warm started: the built-in modules the entry rules
// named by key reach, compiled (c, or the error err) once done is closed; taken
// marks it used.
var warm struct {
	sync.Mutex
	key   string
	done  chan struct{}
	taken bool
	c     *ast.Compiler
	err   error
}

// Warm starts compiling, in the background, the built-in modules that
// PrepareAll compiles for the entry rules refs without user modules (parsing and
// compiling them is most of a cold decision), for the first such
// PrepareAll of this process to take: a command that knows its query
// before it has read its spec and state (loopx decide) overlaps the two.
// Only the first call of a process starts anything; a compile nobody
// takes (the project has user policies: they are compiled together) only
// costs CPU.
func Warm(refs ...string) {
	warm.Lock()
	defer warm.Unlock()
	if warm.done != nil {
		return
	}
	done := make(chan struct{})
	warm.key, warm.done = strings.Join(refs, "\x00"), done
	go func() {
		defer close(done)
		c := builtinCompiler()
		mods, err := builtinModules(refs)
		if err != nil {
			warm.err = err
			return
		}
		parsed, err := parseAll(mods)
		if err != nil {
			warm.err = err
			return
		}
		if c.Compile(parsed); c.Failed() {
			warm.err = c.Errors
			return
		}
		warm.c = c
	}()
}

// takeWarm waits for and returns the compiler Warm started for exactly
// refs, once; nil when none was started for them, it was taken already,
// or it failed (the caller compiles, and reports any error itself).
func takeWarm(refs []string) *ast.Compiler {
	warm.Lock()
	if warm.done == nil || warm.taken || warm.key != strings.Join(refs, "\x00") {
		warm.Unlock()
		return nil
	}
	warm.taken = true
	done := warm.done
	warm.Unlock()
	<-done
	if warm.err != nil {
		return nil
	}
	return warm.c
}

// PrepareBuiltin compiles the modules the entry rule ref reaches
// (policies.EntryModules) as a cold decision does (the tested stages
// skipped, modules parsed in parallel) and prepares query over them: an
// expression of ref that is not a plain reference, evaluated with the
// built-in bundle alone (no spec, no user policy). A function call's value
// is read from a variable the query assigns ("order :=
// data.loopx.lib.claim_order(input.todos)"): without the type-checking
// stage a bare call's value is not captured. Errors: ref is no entry rule;
// the query does not compile.
func PrepareBuiltin(ctx context.Context, query, ref string) (*rego.PreparedEvalQuery, error) {
	mods, err := builtinModules([]string{ref})
	if err != nil {
		return nil, err
	}
	parsed, err := parseAll(mods)
	if err != nil {
		return nil, err
	}
	c := builtinCompiler()
	if c.Compile(parsed); c.Failed() {
		return nil, c.Errors
	}
	pq, err := rego.New(rego.Compiler(c), rego.Query(query), rego.StrictBuiltinErrors(true)).PrepareForEval(ctx)
	if err != nil {
		return nil, err
	}
	return &pq, nil
}
