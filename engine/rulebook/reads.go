package rulebook

import "github.com/open-policy-agent/opa/v1/ast"

// Reads reports whether a policy of user (tests left out) may read the
// input document at path ("state", "todos" for input.state.todos), so that
// the engine builds that part of the input only when a policy may see it.
// It errs towards yes: a reference to input that reaches path, stops short
// of it (a bare input or input.state, which a policy can pass on or walk)
// or steps over it with a variable (input.state[k]) reads it; so does a
// module that does not parse (it fails to compile, and the query denies,
// anyway). Only a reference that names another field on the way
// (input.state.gates) does not.
func Reads(user []Module, path ...string) bool {
	for _, m := range user {
		if m.Test {
			continue
		}
		parsed, err := ast.ParseModuleWithOpts(m.Path, m.Source, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return true
		}
		found := false
		ast.WalkRefs(parsed, func(r ast.Ref) bool {
			if !found && refReaches(r, path) {
				found = true
			}
			return found
		})
		if found {
			return true
		}
	}
	return false
}

// refReaches reports whether r, a reference, may read input.<path>.
func refReaches(r ast.Ref, path []string) bool {
	if len(r) == 0 || !r[0].Equal(ast.InputRootDocument) {
		return false
	}
	for i, p := range path {
		if i+1 >= len(r) {
			return true // stops short: the whole of it may be read
		}
		switch k := r[i+1].Value.(type) {
		case ast.String:
			if string(k) != p {
				return false
			}
		default:
			if ast.IsConstant(k) {
				return false // a number or other constant names no field
			}
		}
	}
	return true
}
