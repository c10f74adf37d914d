package rulebook

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/specs"
	"github.com/open-policy-agent/opa/v1/ast"
)

// The JSON schemas OPA type-checks policies with (a rule reading a field no input or spec declares is an error). They
// are generated from the Go types the engine fills (its input, specs.Spec), so
// they cannot drift from what a policy sees: a struct is a closed object
// (OPA reports a reference to a field it does not declare, e.g.
// input.permission.comand, as a type error at the reference), a map keyed
// by id (goals, agents, gates) is an open object (OPA does not type what
// is below it).

// SpecSchemaName is the name `loopx policy schema` gives the schema of
// data.loopx.spec; every other name is a query's input.
const SpecSchemaName = "spec"

// Input is the Go type of the input every query evaluates, which the
// input schemas are generated from.
type Input struct {
	// Type is the input's struct type (the engine's Input).
	Type reflect.Type
	// Sources are the Go sources declaring Type and every struct type it
	// carries: their doc comments become the schemas' descriptions.
	Sources []string
}

// Schemas are the JSON schemas of each query's input and of
// data.loopx.spec, built once on first use; the zero Schemas is not
// usable (use NewSchemas).
type Schemas struct {
	in   Input
	once func() *policySchemas
}

// NewSchemas returns the schemas of in and of specs.Spec; nothing is built
// before a method needs it (building them is a third of a cold
// decision's preparing).
func NewSchemas(in Input) *Schemas {
	s := &Schemas{in: in}
	s.once = sync.OnceValue(func() *policySchemas {
		ps := &policySchemas{json: map[string][]byte{}, set: ast.NewSchemaSet(), modules: map[string]string{}}
		ps.err = ps.build(in)
		return ps
	})
	return s
}

// schemaQueries are the queries with an input schema: those with a policy.
func schemaQueries() []string { return sortedNames() }

type policySchemas struct {
	// json maps "input.<query>", "input" (any query: the shared library)
	// and "spec" to the schema document.
	json map[string][]byte
	set  *ast.SchemaSet
	// modules are the annotation modules that bind each package to its
	// schemas, keyed by their path.
	modules map[string]string
	err     error
}

func (ps *policySchemas) build(in Input) error {
	docs, err := goDocs(append([]string{specs.TypesSource}, in.Sources...)...)
	if err != nil {
		return err
	}
	spec, err := jsonschema.For[specs.Spec](nil)
	if err != nil {
		return err
	}
	describe(spec, reflect.TypeFor[specs.Spec](), docs)
	spec.Description = "data.loopx.spec: " + docs["specs.Spec"]
	if err := ps.put("spec", spec); err != nil {
		return err
	}
	queries := schemaQueries()
	for _, q := range append([]string{""}, queries...) {
		s, err := jsonschema.ForType(in.Type, nil)
		if err != nil {
			return err
		}
		describe(s, in.Type, docs)
		name := "input"
		if q == "" {
			s.Description = "The input of any loopx query (" + strings.Join(queries, ", ") + ")."
			s.Properties["query"].Enum = stringsAny(queries)
		} else {
			name += "." + q
			qq, _ := query.ByName(q)
			s.Description = fmt.Sprintf("The input of the %s query (%s).", q, qq.Entry)
			s.Properties["query"].Const = jsonschema.Ptr[any](q)
			// The input's fields that only one query's input carries (its
			// request, query.Query.InputField): every other query's input
			// schema leaves them out, so that a should_run policy reading
			// input.permission is a type error; the query's own schema
			// requires them.
			for _, owner := range query.All {
				field := owner.InputField
				if field == "" {
					continue
				}
				if owner.Name != q {
					delete(s.Properties, field)
					s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(f string) bool { return f == field })
				} else {
					s.Required = append(s.Required, field)
					s.Properties[field].Types = nil
					s.Properties[field].Type = "object"
				}
			}
		}
		if err := ps.put(name, s); err != nil {
			return err
		}
	}
	// One subpackages annotation a package: data.loopx (the shared
	// library, user tests) sees the input of any query; each query's
	// built-in package and user package see that query's input.
	ps.modules["schemas/loopx.rego"] = annotationModule("loopx", "schema.input")
	for _, q := range queries {
		qq, _ := query.ByName(q)
		for _, pkg := range []string{qq.Package(), qq.User} {
			ps.modules["schemas/"+pkg+".rego"] = annotationModule(pkg, "schema.input."+q)
		}
	}
	return nil
}

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// put records s under name in the JSON documents and the schema set
// (schema.<name>).
func (ps *policySchemas) put(name string, s *jsonschema.Schema) error {
	s.Schema = "http://json-schema.org/draft-07/schema#"
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	ps.json[name] = append(b, '\n')
	ref, err := ast.ParseRef("schema." + name)
	if err != nil {
		return err
	}
	ps.set.Put(ref, doc)
	return nil
}

// annotationModule is a Rego module with no rules whose METADATA binds
// input and data.loopx.spec to their schemas in pkg and its subpackages.
func annotationModule(pkg, input string) string {
	return fmt.Sprintf(`# METADATA
# scope: subpackages
# schemas:
#   - input: %s
#   - data.loopx.spec: schema.spec
package %s
`, input, pkg)
}

// JSON returns the JSON schema (draft-07) that policies are type-checked
// with: the input of query name ("should_run", "permission") or, for
// SpecSchemaName, data.loopx.spec. Errors: errs.Usage (unknown_schema)
// for any other name; a schema that cannot be built.
func (s *Schemas) JSON(name string) ([]byte, error) {
	ps := s.once()
	if ps.err != nil {
		return nil, ps.err
	}
	key := "input." + name
	if name == SpecSchemaName {
		key = name
	}
	b, ok := ps.json[key]
	if !ok {
		return nil, errs.Usagef("unknown_schema", "unknown schema %q (known: %s, %s)", name, strings.Join(schemaQueries(), ", "), SpecSchemaName)
	}
	return slices.Clone(b), nil
}

// SchemaNames are the names Schemas.JSON knows: the queries, then
// SpecSchemaName.
func SchemaNames() []string { return append(schemaQueries(), SpecSchemaName) }

// Modules parses the annotation modules that bind each package to its
// schemas (data.loopx: any query's input; each query's built-in and user
// package: that query's input), keyed by path (schemas/<package>.rego).
// Errors: a schema that cannot be built.
func (s *Schemas) Modules() (map[string]*ast.Module, error) {
	ps := s.once()
	if ps.err != nil {
		return nil, ps.err
	}
	out := make(map[string]*ast.Module, len(ps.modules))
	for path, src := range ps.modules {
		m, err := ast.ParseModuleWithOpts(path, src, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			return nil, fmt.Errorf("schema module %s: %w", path, err)
		}
		out[path] = m
	}
	return out, nil
}

// Compiler is a new compiler for user policies: the schemas of each
// query's input and of data.loopx.spec (a reference to a field they do
// not declare is a type error), and Capabilities (no network, clock or
// randomness). Errors: a schema that cannot be built.
func (s *Schemas) Compiler() (*ast.Compiler, error) {
	ps := s.once()
	if ps.err != nil {
		return nil, ps.err
	}
	return ast.NewCompiler().WithSchemas(ps.set).WithUseTypeCheckAnnotations(true).
		WithCapabilities(Capabilities()), nil
}
