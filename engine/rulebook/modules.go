package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/ast"
)

// UserPolicyDir is where a project keeps its own policies (design §3):
// <root>/loopx/policies/*.rego, with *_test.rego beside them.
const UserPolicyDir = "policies"

// UserPackagePrefix is the package prefix user policies must use; the rest
// of data.loopx belongs to the built-in bundle.
const UserPackagePrefix = "loopx.user."

// UserQueries are the user packages a query consults: a user policy
// declares `package loopx.user.<query>` with `deny contains reason if …`
// and `warn contains reason if …`. Only queries whose built-in policy reads
// the user package are listed (data.loopx.run reads should_run,
// data.loopx.permission reads permission, data.loopx.claim reads claim,
// data.loopx.gate reads gate_answer): a
// package no query reads would be silently ignored, so it is refused (case
// C14).
var UserQueries = []string{"should_run", "permission", "claim", "gate_answer"}

// UserModule is one user policy file.
type UserModule struct {
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
// or one no query consults (policy_unreachable, case C14). Decisions deny
// with code policy_error while it stands.
func policyError(file string, row, col int, code, message string) *errs.Error {
	return &errs.Error{Kind: errs.Input, Code: code, Message: message, Location: errs.Location{File: file, Line: row, Col: col}}
}

// asPolicyError is the policyError in err's chain, nil when there is none.
func asPolicyError(err error) *errs.Error {
	if pe := errs.As(err); pe != nil && pe.Kind == errs.Input && (pe.Code == "policy_error" || pe.Code == "policy_unreachable") && pe.Location.File != "" {
		return pe
	}
	return nil
}

// UserModules reads the project's user policies and tests, sorted by path.
// Errors: a policyError for a file that does not parse or declares a package
// loopx does not allow; I/O errors.
func (e *Engine) UserModules() ([]UserModule, error) {
	if e.userLoaded {
		return e.user, e.userErr
	}
	e.userLoaded = true
	e.user, e.userErr = loadUserModules(e.root)
	return e.user, e.userErr
}

func loadUserModules(root string) ([]UserModule, error) {
	var out []UserModule
	err := walkUserModules(root, func(m UserModule, parsed *ast.Module, perr error) error {
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

// walkUserModules reads and parses every .rego file under
// <root>/loopx/policies (none is fine) and calls fn with the module (Package
// set when it parsed) and the parse error, if any. fn's error stops the walk.
func walkUserModules(root string, fn func(m UserModule, parsed *ast.Module, parseErr error) error) error {
	dir := filepath.Join(root, SpecDirName, UserPolicyDir)
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".rego") || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		m := UserModule{Path: filepath.ToSlash(rel), Source: string(b), Test: strings.HasSuffix(d.Name(), "_test.rego")}
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
// silently ignored: case C14).
func checkUserPackage(m UserModule, parsed *ast.Module) error {
	loc := parsed.Package.Location
	row, col := 1, 1
	if loc != nil {
		row, col = loc.Row, loc.Col
	}
	if m.Test && !strings.HasPrefix(m.Package, "loopx.") {
		return nil // tests may live in any package
	}
	if !strings.HasPrefix(m.Package, UserPackagePrefix) {
		return policyError(m.Path, row, col, "policy_error",
			fmt.Sprintf("package %s: user policies must declare a package under %s<query> (one of %s)", m.Package, UserPackagePrefix, strings.Join(UserQueries, ", ")))
	}
	if m.Test {
		return nil
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(m.Package, UserPackagePrefix), ".")
	if slices.Contains(UserQueries, first) || first == "lib" {
		return nil
	}
	hint := ""
	for _, q := range UserQueries {
		if strings.ReplaceAll(q, "_", "") == strings.ReplaceAll(first, "_", "") || strings.ReplaceAll(q, "_", "-") == first {
			hint = fmt.Sprintf(" (did you mean %s%s?)", UserPackagePrefix, q)
		}
	}
	return policyError(m.Path, row, col, "policy_unreachable",
		fmt.Sprintf("package %s is never consulted: no query reads %s%s; use one of %s<%s>, or %slib for helpers%s",
			m.Package, UserPackagePrefix, first, UserPackagePrefix, strings.Join(UserQueries, "|"), UserPackagePrefix, hint))
}

// policyHash is the built-in bundle's hash combined with the user modules'.
func policyHash(user []UserModule) string {
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

// PolicyErr is the error preparing the policies, nil when they compiled
// (or were not prepared yet).
func (e *Engine) PolicyErr() error {
	e.prepMu.Lock()
	defer e.prepMu.Unlock()
	return e.policyErr
}

// IsUserPolicyError reports whether err comes from the project's own
// policies (a policyError, or an OPA error located in loopx/policies/):
// an input error (exit 2), where a failing built-in policy is internal.
func IsUserPolicyError(err error) bool {
	if asPolicyError(err) != nil {
		return true
	}
	return err != nil && strings.Contains(err.Error(), SpecDirName+"/"+UserPolicyDir+"/")
}
