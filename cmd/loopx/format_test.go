package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cueformat "cuelang.org/go/cue/format"
	"github.com/open-policy-agent/opa/v1/ast"
	regoformat "github.com/open-policy-agent/opa/v1/format"
)

// TestSourcesAreFormatted keeps every .cue file of the repository as
// `cue fmt` writes it and every .rego file as `opa fmt` writes it, with the
// libraries' own formatters (cuelang.org/go/cue/format with cue fmt's
// defaults; OPA's v1/format for Rego v1 with this OPA's capabilities, as
// opa fmt does). Set LOOPX_FORMAT=1 to rewrite the files that are not. A
// Rego rewrite that would change a module's rules (sameRego) is refused.
func TestSourcesAreFormatted(t *testing.T) {
	rewrite := os.Getenv("LOOPX_FORMAT") != ""
	root := "../.."
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // .git, .loopx, .ci
			}
			return nil
		}
		var format func([]byte) ([]byte, error)
		switch filepath.Ext(path) {
		case ".cue":
			format = func(src []byte) ([]byte, error) { return cueformat.Source(src) }
		case ".rego":
			format = func(src []byte) ([]byte, error) {
				return regoformat.SourceWithOpts(path, src, regoformat.Opts{
					RegoVersion:  ast.RegoV1,
					Capabilities: ast.CapabilitiesForThisVersion(),
				})
			}
		default:
			return nil
		}
		n++
		rel, _ := filepath.Rel(root, path)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, err := format(src)
		if err != nil {
			t.Errorf("%s: does not format: %v", rel, err)
			return nil
		}
		if bytes.Equal(src, out) {
			return nil
		}
		if filepath.Ext(path) == ".rego" {
			if err := sameRego(path, src, out); err != nil {
				t.Errorf("%s: opa fmt would change what it means (a formatter bug; write it another way): %v", rel, err)
				return nil
			}
		}
		if rewrite {
			return os.WriteFile(path, out, 0o644)
		}
		t.Errorf("%s is not formatted: run LOOPX_FORMAT=1 go test ./cmd/loopx -run TestSourcesAreFormatted (or cue fmt / opa fmt -w)", rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 40 {
		t.Fatalf("found only %d .cue and .rego files", n)
	}
}

// sameRego checks that the formatted module out parses to the same rules as
// src: OPA's formatter has garbled valid modules (v1.22: a string literal in
// the body of a middle else; the parentheses of x == (a in b) dropped), and
// rewriting a policy must never change it.
func sameRego(path string, src, out []byte) error {
	opts := ast.ParserOptions{RegoVersion: ast.RegoV1}
	before, err := ast.ParseModuleWithOpts(path, string(src), opts)
	if err != nil {
		return err
	}
	after, err := ast.ParseModuleWithOpts(path, string(out), opts)
	if err != nil {
		return fmt.Errorf("the formatted module does not parse: %w", err)
	}
	if len(before.Rules) != len(after.Rules) {
		return fmt.Errorf("%d rules become %d", len(before.Rules), len(after.Rules))
	}
	for i, r := range before.Rules {
		if !r.Equal(after.Rules[i]) {
			return fmt.Errorf("rule %s at line %d becomes %s", r.Head.Name, r.Location.Row, after.Rules[i])
		}
	}
	return nil
}
