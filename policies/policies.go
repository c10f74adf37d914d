// Package policies owns loopx's built-in Rego bundle (design §6): the
// embedded modules that answer the decision queries, and their Rego tests.
package policies

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// ShouldRunQuery is the entry rule of the should_run query: its value is the
// decision object (verdict, allow, reasons, todo, next_check_at, charge) that
// engine.Decision carries. It is always defined.
const ShouldRunQuery = "data.loopx.run.decision"

// Queries maps each query name (the engine's Input.Query) to its entry rule
// (design §6): should_run, permission, claim (may an agent hold or progress
// a todo) and gate_answer (may this answer be recorded).
var Queries = map[string]string{"should_run": ShouldRunQuery, "permission": "data.loopx.permission.decision",
	"claim": "data.loopx.claim.decision", "gate_answer": "data.loopx.gate.decision"}

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

// AreaModules returns the modules that answer the queries of one policy
// area ("run", "permission", "claim", "gate": the directory under loopx/):
// the area's own modules and the library modules it calls, keyed like
// Modules. A library module is included when the area calls a rule it
// defines (lib.<name>), or when an included library module names one
// (transitively); the match is textual and errs on including more.
// Preparing costs time linear in the policy compiled, so each query
// compiles only this (user policies may call any library rule: the engine
// compiles the whole library with them). The map is a fresh copy.
func AreaModules(area string) map[string]string {
	l := load()
	out := map[string]string{}
	var calls strings.Builder
	for p, src := range l.modules {
		if strings.HasPrefix(p, "loopx/"+area+"/") {
			out[p] = src
			for _, m := range libCall().FindAllStringSubmatch(src, -1) {
				calls.WriteString(m[1] + " ")
			}
		}
	}
	lib := map[string][]string{} // library module -> the rules it defines
	for p, src := range l.modules {
		if strings.HasPrefix(p, "loopx/lib/") {
			for _, m := range ruleHead().FindAllStringSubmatch(src, -1) {
				if !slices.Contains([]string{"package", "import", "default", "else"}, m[1]) {
					lib[p] = append(lib[p], m[1])
				}
			}
		}
	}
	for added := true; added; {
		added = false
		named := " " + calls.String()
		for p, names := range lib {
			if _, ok := out[p]; ok {
				continue
			}
			for _, n := range names {
				if strings.Contains(named, " "+n+" ") {
					out[p] = l.modules[p]
					// Names this module uses unqualified (same package).
					for _, w := range word().FindAllString(l.modules[p], -1) {
						calls.WriteString(w + " ")
					}
					added = true
					break
				}
			}
		}
	}
	return out
}

var (
	libCall  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\blib\.([A-Za-z_][A-Za-z0-9_]*)`) })
	ruleHead = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_]*)\b`) })
	word     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`) })
)

// Modules returns the bundle's policy modules (tests excluded), keyed by their
// slash-separated path in the bundle ("loopx/run/decision.rego"). The map is a
// fresh copy the caller may change.
func Modules() map[string]string { return maps.Clone(load().modules) }

// TestModules returns the bundle's Rego test modules (*_test.rego), keyed like
// Modules. The map is a fresh copy the caller may change.
func TestModules() map[string]string { return maps.Clone(load().tests) }

// Hash returns "sha256:<hex>" over the sorted paths and sources of Modules: the
// policy revision recorded with every decision (engine.Revision.Policy).
func Hash() string { return load().hash }
