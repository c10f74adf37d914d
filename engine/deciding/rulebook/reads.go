package rulebook

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// ReadsCache remembers ReadsTodos for one revision of the user policies
// (Hash) at a time; it is safe for concurrent use, the zero value empty.
type ReadsCache struct {
	mu    sync.Mutex
	rev   string
	reads bool
}

// Todos is ReadsTodos(user), computed once per revision of user.
func (c *ReadsCache) Todos(user []Module) bool {
	if len(user) == 0 {
		return false
	}
	rev := Hash(user)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rev != rev {
		c.rev, c.reads = rev, ReadsTodos(user)
	}
	return c.reads
}

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
	return readsUnder(user, ast.InputRootDocument, path)
}

// ReadsTodos reports whether a policy of user may read the todos: the
// input's (input.state.todos) or the built-in should_run rules over them
// (data.loopx.run), by Reads and ReadsData.
func ReadsTodos(user []Module) bool {
	return Reads(user, "state", "todos") || ReadsData(user, "loopx", "run")
}

// ReadsData is Reads for the data document: whether a policy of user may
// read data.<path> ("loopx", "run" for the built-in should_run rules), by
// the same rules; a call of a function under path, or an import of it
// (import data.loopx.run as r), counts too.
func ReadsData(user []Module, path ...string) bool {
	return readsUnder(user, ast.DefaultRootDocument, path)
}

// readsUnder is Reads and ReadsData: whether a module of user (tests left
// out) has a reference or an import that may read root.<path>, or does
// not parse.
func readsUnder(user []Module, root *ast.Term, path []string) bool {
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
			if !found && refReaches(r, root, path) {
				found = true
			}
			return found
		})
		if found {
			return true
		}
		for _, imp := range parsed.Imports {
			if r, ok := imp.Path.Value.(ast.Ref); ok && refReaches(r, root, path) {
				return true
			}
		}
	}
	return false
}

// refReaches reports whether r, a reference, may read root.<path>.
func refReaches(r ast.Ref, root *ast.Term, path []string) bool {
	if len(r) == 0 || !r[0].Equal(root) {
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
