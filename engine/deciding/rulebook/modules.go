// Package rulebook is a project's own policies (loopx/policies/**.rego,
// package loopx.user.<query>): it reads and parses them, refuses a package no query reads,
// compiles them with every check against the JSON schemas of the input
// and the spec, runs their Rego tests, and keeps them from the built-ins
// that reach the network, a clock or randomness; it prepares a query's
// entry rule over the built-in bundle and them (Schemas.Prepare). It
// never evaluates a decision: that is the engine's.
package rulebook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
)

// maxModuleBytes bounds one user policy file.
const maxModuleBytes = 16 << 20

// DirName is the directory of the spec directory where a project keeps
// its own policies: <root>/loopx/policies/*.rego, with
// *_test.rego beside them.
const DirName = "policies"

// PackagePrefix is the package prefix user policies must use; the rest
// of data.loopx belongs to the built-in bundle.
const PackagePrefix = "loopx.user."

// Book is a project's rulebook: the user policies and tests under Dir
// (the project's loopx/policies), their paths relative to Root, compiled
// against Schemas (nil: the engine's input is not typed; Check and Test
// need it).
type Book struct {
	Root, Dir string
	Schemas   *Schemas
}

// Module is one user policy or test file.
type Module struct {
	// Path is relative to the project root ("loopx/policies/weekend.rego").
	Path   string
	Source string
	// Package is the declared package without "data." ("loopx.user.should_run").
	Package string
	// Test is true for *_test.rego files.
	Test bool
}

// policyError is the error of a user policy that cannot be used (an
// errs.Input error, exit 2, at file:row:col): it does not parse (code
// policy_error), declares a package outside loopx.user.* (policy_error),
// or one no query consults (policy_unreachable: a typo such as loopx.user.shouldrun). Decisions deny
// with code policy_error while it stands.
func policyError(file string, row, col int, code, message string) *errs.Error {
	return &errs.Error{Kind: errs.Input, Code: code, Message: message, Location: errs.Location{File: file, Line: row, Col: col}}
}

// AsError is the error of a user policy that cannot be used (a file that
// does not parse, a package outside loopx.user.* or one no query reads:
// an errs.Input error at file:row:col with code policy_error or
// policy_unreachable) in err's chain, nil when there is none.
func AsError(err error) *errs.Error {
	if pe := errs.As(err); pe != nil && pe.Kind == errs.Input && (pe.Code == "policy_error" || pe.Code == "policy_unreachable") && pe.Location.File != "" {
		return pe
	}
	return nil
}

// Load reads the user policies and tests of b (none is fine), sorted by
// path.
// Errors: an AsError error for the first file that does not parse or
// declares a package loopx does not allow; I/O errors.
func (b Book) Load() ([]Module, error) {
	var out []Module
	err := b.Walk(func(m Module, parsed *ast.Module, perr error) error {
		if perr != nil {
			return parseError(m.Path, perr)
		}
		if err := checkUserPackage(m, parsed); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// Walk reads and parses every .rego file under b.Dir (none is fine; dot
// files are skipped) and calls fn with the module (Path relative to
// b.Root, slashed; Package set when it parsed) and the parse error, if
// any. fn's error stops the walk. Errors: fn's, I/O errors.
func (b Book) Walk(fn func(m Module, parsed *ast.Module, parseErr error) error) error {
	root := b.Root
	return filepath.WalkDir(b.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".rego") || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		src, err := regularfile.ReadFile(p, maxModuleBytes)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		m := Module{Path: filepath.ToSlash(rel), Source: string(src), Test: strings.HasSuffix(d.Name(), "_test.rego")}
		parsed, err := ast.ParseModuleWithOpts(m.Path, m.Source, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err == nil {
			m.Package = strings.TrimPrefix(parsed.Package.Path.String(), "data.")
		}
		return fn(m, parsed, err)
	})
}

// parseError turns OPA's parse errors into a positioned policyError.
func parseError(path string, err error) error {
	var aerrs ast.Errors
	if errors.As(err, &aerrs) && len(aerrs) > 0 && aerrs[0].Location != nil {
		l := aerrs[0].Location
		return policyError(path, l.Row, l.Col, "policy_error", aerrs[0].Message)
	}
	return policyError(path, 1, 1, "policy_error", err.Error())
}

// checkUserPackage refuses packages outside loopx.user.* (they would merge
// rules into the built-in bundle) and, for policies (not tests), packages
// under loopx.user. that no query consults (a typo would otherwise be
// silently ignored).
func checkUserPackage(m Module, parsed *ast.Module) error {
	loc := parsed.Package.Location
	row, col := 1, 1
	if loc != nil {
		row, col = loc.Row, loc.Col
	}
	if m.Test && !strings.HasPrefix(m.Package, "loopx.") {
		return nil // tests may live in any package
	}
	if !strings.HasPrefix(m.Package, PackagePrefix) {
		return policyError(m.Path, row, col, "policy_error",
			fmt.Sprintf("package %s: user policies must declare a package under %s<query> (one of %s)", m.Package, PackagePrefix, strings.Join(query.Names(), ", ")))
	}
	if m.Test {
		return nil
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(m.Package, PackagePrefix), ".")
	// A package a query consults (query.Query.User: the built-in policy
	// of the query reads its deny and warn sets) or the helpers; any
	// other would be silently ignored, so it is refused.
	if _, ok := query.ByName(first); ok || first == "lib" {
		return nil
	}
	hint := ""
	for _, q := range query.All {
		if strings.ReplaceAll(q.Name, "_", "") == strings.ReplaceAll(first, "_", "") || strings.ReplaceAll(q.Name, "_", "-") == first {
			hint = fmt.Sprintf(" (did you mean %s?)", q.User)
		}
	}
	return policyError(m.Path, row, col, "policy_unreachable",
		fmt.Sprintf("package %s is never consulted: no query reads %s%s; use one of %s<%s>, or %slib for helpers%s",
			m.Package, PackagePrefix, first, PackagePrefix, strings.Join(query.Names(), "|"), PackagePrefix, hint))
}

// Hash is the policy revision: the built-in bundle's hash combined with
// the user policies' paths and sources (tests left out), "sha256:<hex>";
// the bundle's own hash when there are none.
func Hash(user []Module) string {
	if len(user) == 0 {
		return policies.Hash()
	}
	h := sha256.New()
	h.Write([]byte(policies.Hash()))
	for _, m := range user {
		if m.Test {
			continue
		}
		fmt.Fprintf(h, "\x00%s\x00%s", m.Path, m.Source)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Parse parses policy and test sources keyed by path (the adopted
// revision's; tests marked by their _test.rego name) the way Load parses
// files on disk, sorted by path. Errors: an AsError error
// for the first that does not parse or declares a package loopx does not
// allow.
func Parse(files map[string]string) ([]Module, error) {
	var out []Module
	for _, p := range slices.Sorted(maps.Keys(files)) {
		m := Module{Path: p, Source: files[p], Test: strings.HasSuffix(p, "_test.rego")}
		parsed, err := ast.ParseModuleWithOpts(m.Path, m.Source, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			return out, parseError(m.Path, err)
		}
		m.Package = strings.TrimPrefix(parsed.Package.Path.String(), "data.")
		if err := checkUserPackage(m, parsed); err != nil {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}
