// Package policies owns loopx's built-in Rego bundle: the
// embedded modules that answer the decision queries, and their Rego tests.
package policies

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
)

//go:embed loopx
var bundle embed.FS

type loaded struct {
	modules, tests map[string]string
	hash           string
}

var load = sync.OnceValue(func() loaded {
	var l loaded
	var err error
	l.modules, l.tests, err = ReadBundle(bundle, ".", "")
	if err != nil { // the bundle is compiled in: this cannot happen at run time
		panic("policies: reading the embedded bundle: " + err.Error())
	}
	h := sha256.New()
	for _, path := range slices.Sorted(maps.Keys(l.modules)) {
		h.Write([]byte(path))
		h.Write([]byte{0})
		h.Write([]byte(l.modules[path]))
		h.Write([]byte{0})
	}
	l.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return l
})

// ReadBundle reads the Rego files of fsys below root into policy modules
// and tests (*_test.rego), keyed by prefix + their slash-separated path
// relative to fsys ("lint/" + "rules/x/x.rego"). It is the one bundle
// loader: the built-in policies and loopx check's lint rules use it.
// Errors: fsys's.
func ReadBundle(fsys fs.FS, root, prefix string) (modules, tests map[string]string, err error) {
	modules, tests = map[string]string{}, map[string]string{}
	err = fs.WalkDir(fsys, root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") {
			return err
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, "_test.rego") {
			tests[prefix+path] = string(src)
		} else {
			modules[prefix+path] = string(src)
		}
		return nil
	})
	return modules, tests, err
}

// Library returns the shared library (package loopx.lib: reasons, todo
// eligibility, gate blocking, path globs) with its tests, keyed like
// Modules: other Rego bundles (loopx check's lint rules) compile with it
// instead of copying its rules.
func Library() (modules, tests map[string]string) {
	l := load()
	modules, tests = map[string]string{}, map[string]string{}
	for p, src := range l.modules {
		if strings.HasPrefix(p, "loopx/lib/") {
			modules[p] = src
		}
	}
	for p, src := range l.tests {
		if strings.HasPrefix(p, "loopx/lib/") {
			tests[p] = src
		}
	}
	return modules, tests
}

// EntryModules returns the modules that evaluate the entry rule ref (a
// rule of the bundle annotated "entrypoint: true", named by its path:
// "data.loopx.run.decision", "data.loopx.identity.acting"): the module that
// defines it and those of every rule it reaches, keyed like Modules; nil
// when ref is no entry rule. OPA's compiler found them (the rule graph,
// policies/internal/entries), once, when entries_gen.go was generated:
// preparing costs time linear in the policy compiled, so a query compiles
// only these (user policies may call any library rule: the engine then
// compiles the whole library with them). The map is a fresh copy.
//
//go:generate go run ./internal/entries/gen
func EntryModules(ref string) map[string]string {
	paths, ok := entryModules[ref]
	if !ok {
		return nil
	}
	l := load()
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		out[p] = l.modules[p]
	}
	return out
}

// Entrypoints lists the bundle's entry rules (EntryModules), sorted.
func Entrypoints() []string { return slices.Sorted(maps.Keys(entryModules)) }

// Modules returns the bundle's policy modules (tests excluded), keyed by their
// slash-separated path in the bundle ("loopx/run/decision.rego"). The map is a
// fresh copy the caller may change.
func Modules() map[string]string { return maps.Clone(load().modules) }

// TestModules returns the bundle's Rego test modules (*_test.rego), keyed like
// Modules. The map is a fresh copy the caller may change.
func TestModules() map[string]string { return maps.Clone(load().tests) }

// Hash returns "sha256:<hex>" over the sorted paths and sources of Modules: the
// policy revision recorded with every decision (decision.Revision.Policy).
func Hash() string { return load().hash }
