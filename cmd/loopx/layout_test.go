package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportsFlowOneWay enforces design §13: cmd → engine → {specs,
// policies, kernel}; lint → {specs, policies}; the kernel imports neither
// OPA nor CUE; library packages never import cmd/; the engine's pure
// rooms (the shell reader, scope globs, the decision log, the trust
// facts: process ancestry and change scan) import neither the top engine
// package, nor the kernel, nor OPA or CUE; the run loop (engine/runloop),
// the read model (engine/readmodel) and the renderers (engine/render) take
// kernel records but import neither the top engine, nor specs or
// policies, nor OPA or CUE; the scaffolding (engine/scaffold) imports
// neither the top engine nor policies nor OPA; the rulebook
// (engine/rulebook) imports neither the top engine nor the kernel; the
// input document (engine/input) imports only OPA's value types and the
// trust facts, the path facts (engine/pathfacts) only the input, and the
// tool call reader (engine/toolcall) only these and the shell reader;
// input.state (engine/snapshot), housekeeping (engine/housekeep) and
// what prompt, review and status show (engine/views) import neither the
// top engine nor policies nor OPA's evaluator; a decision and its log
// line (engine/decision) imports neither the top engine, nor specs or
// policies, nor OPA's evaluator or CUE; the lease mechanics
// (engine/lease) import neither the top engine, nor specs or policies,
// nor OPA or CUE, nor do a todo request's checks (engine/todos); a gate
// request's checks (engine/gates) import neither the top engine, nor the
// kernel or policies, nor OPA's evaluator;
// the state check's snapshot (engine/checkstate) imports neither the top
// engine nor policies nor OPA's evaluator;
// the denial spool's import (engine/spoolimport) imports neither the top
// engine, nor specs or policies, nor OPA or CUE;
// loopx run's rounds (engine/runner) import neither the top engine nor
// policies nor OPA's evaluator;
// the audit events of refused attempts (engine/audit) import neither the
// top engine nor policies nor OPA's evaluator;
// an evidence request's checks (engine/evidence) import neither the top
// engine, nor specs or policies, nor OPA or CUE;
// a round's mechanics (engine/rounds) import neither the top engine nor
// policies nor OPA's evaluator;
// adoption's mechanics (engine/adopt) import neither the top engine nor
// cmd or lint;
// internal/errs (the one error type), internal/anchor (the anchor
// directory), internal/safegit (git run with a configuration no agent
// can reach), internal/nofollow (files opened without following links)
// and internal/watchdog (a hook's kernel timer and memory cap) import only
// the standard library, golang.org/x/sys (system calls) and one another;
// the check pipeline (engine/check), the answers through a
// command line (engine/gateanswer) and the hooks (engine/hook) drive the
// top engine but never import cmd/ (nor, but for check, lint); the host
// protocols (engine/hosts) import neither the top engine nor the kernel;
// the binary does not carry the test-only SARIF validator nor the shell
// forms corpus.
func TestImportsFlowOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}: {{join .Deps " "}}`, "../../...").CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v\n%s", err, out)
	}
	const mod = "github.com/loopx-dev/loopx/"
	// A forbidden entry ending in "$" is that package alone, not the ones
	// under it (the top engine package, not engine/...).
	const engineTop = mod + "engine$"
	pure := []string{engineTop, mod + "kernel", mod + "specs", mod + "policies", mod + "cmd", mod + "lint",
		"github.com/open-policy-agent/opa", "cuelang.org/go"}
	rooms := []string{engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint",
		"github.com/open-policy-agent/opa", "cuelang.org/go"}
	forbidden := map[string][]string{
		mod + "kernel":   {"github.com/open-policy-agent/opa", "cuelang.org/go", mod + "engine", mod + "specs", mod + "policies", mod + "cmd", mod + "lint"},
		mod + "specs":    {mod + "engine", mod + "kernel", mod + "policies", mod + "cmd", mod + "lint"},
		mod + "policies": {mod + "engine", mod + "kernel", mod + "specs", mod + "cmd", mod + "lint"},
		mod + "presets":  {mod + "engine", mod + "kernel", mod + "specs", mod + "policies", mod + "cmd"},
		mod + "engine":   {mod + "cmd", mod + "lint"},
		mod + "lint":     {mod + "engine", mod + "kernel", mod + "cmd"},
		// The engine's pure rooms.
		mod + "engine/deciding/shell":           pure,
		mod + "engine/deciding/shell/shelltest": pure,
		mod + "engine/deciding/glob":            pure,
		mod + "engine/deciding/declog":          pure,
		mod + "engine/trust":                    pure,
		// The engine's rooms over kernel records: they drive the engine
		// through interfaces of their own, never the top engine package.
		mod + "engine/mutating/runloop": rooms,
		// The read model caches kernel records, never the store's owner.
		mod + "engine/deciding/readmodel": rooms,
		// The renderers take kernel records, never the store's owner.
		mod + "engine/reporting/render": rooms,
		// input.state is built from kernel records and the spec's types
		// through an interface of its own; it evaluates no policy.
		mod + "engine/deciding/snapshot": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// A gate request's checks: no state, no policy.
		mod + "engine/mutating/gates": {engineTop, mod + "kernel", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// A todo request's checks: no store, no policy.
		mod + "engine/mutating/todos": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// Lease mechanics: kernel records, no store, no policy.
		mod + "engine/mutating/lease": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// A decision and its log line: no evaluation, no state.
		mod + "engine/deciding/decision": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego", "cuelang.org/go"},
		// Adoption's mechanics: revisions, classification, write-back;
		// the store's owner records them.
		mod + "engine/mutating/adopt": {engineTop, mod + "cmd", mod + "lint"},
		// A round's mechanics write through a transaction interface of
		// their own; what decides is the caller's.
		mod + "engine/mutating/rounds": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// The state check's snapshot reads through an interface of its own.
		mod + "engine/deciding/checkstate": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// The denial spool's import writes through an interface of its own.
		mod + "engine/mutating/spoolimport": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// loopx run's rounds drive the engine through functions it hands
		// them, never the top engine package.
		mod + "engine/mutating/runner": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// The audit events of refused attempts, through an interface of
		// their own.
		mod + "engine/mutating/audit": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// An evidence request's checks: no store, no policy.
		mod + "engine/mutating/evidence": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// Housekeeping writes through a transaction interface of its own.
		mod + "engine/mutating/housekeep": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// What prompt, review and status show is gathered from kernel
		// records the same way, for the renderers.
		mod + "engine/reporting/views": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// The input document: its types and their OPA value (OPA's ast).
		mod + "engine/deciding/input": {engineTop, mod + "kernel", mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "cuelang.org/go"},
		// Path facts read the file system into the input's path facts.
		mod + "engine/deciding/pathfacts": {engineTop, mod + "kernel", mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "cuelang.org/go"},
		// A host's tool call read into the permission request.
		mod + "engine/deciding/toolcall": {engineTop, mod + "kernel", mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "cuelang.org/go"},
		// The rulebook compiles policies (OPA) against the spec's schema
		// (specs); it never reads the state.
		mod + "engine/deciding/rulebook": {engineTop, mod + "kernel", mod + "cmd", mod + "lint"},
		// Scaffolding writes a spec (specs, presets) and an empty store;
		// the first adoption is the engine's hook.
		mod + "engine/mutating/scaffold": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa"},
		// The check pipeline audits through the engine (its package doc
		// says why it imports the top engine); nothing imports it back.
		mod + "internal/frontend/check": {mod + "cmd"},
		// Answering through a command line drives the engine's mutations
		// (its package doc says why it imports the top engine).
		mod + "internal/frontend/gateanswer": {mod + "cmd", mod + "lint"},
		// Hooks (answering one, installing them) drive the engine too;
		// the host protocols (engine/hosts) stay below the engine.
		mod + "internal/frontend/hook": {mod + "cmd", mod + "lint"},
		mod + "engine/hosts":           {engineTop, mod + "kernel", mod + "cmd", mod + "lint"},
		// The official SARIF schema is for tests only (see its NOTICE), and
		// so is the shell forms corpus.
		mod + "cmd/loopx": {mod + "internal/sarifcheck", mod + "engine/deciding/shell/shelltest"},
	}
	// Leaves every package may import: the standard library, the system
	// calls of golang.org/x/sys, and one another only.
	stdOnly := map[string]bool{mod + "internal/errs": true, mod + "internal/anchor": true, mod + "internal/safegit": true,
		mod + "internal/nofollow": true, mod + "internal/watchdog": true}
	checked := 0
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		pkg, deps, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		if stdOnly[pkg] {
			checked++
			seen[pkg] = true
			for _, d := range strings.Fields(deps) {
				if stdOnly[d] || strings.HasPrefix(d, "golang.org/x/sys/") {
					continue
				}
				if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") {
					t.Errorf("%s imports %s (it may import only the standard library, golang.org/x/sys and the other leaves)", pkg, d)
				}
			}
			continue
		}
		bad, ok := forbidden[pkg]
		if !ok {
			continue
		}
		checked++
		seen[pkg] = true
		for _, d := range strings.Fields(deps) {
			for _, b := range bad {
				if only, ok := strings.CutSuffix(b, "$"); ok {
					if d == only {
						t.Errorf("%s imports %s (design §13 forbids it)", pkg, d)
					}
				} else if d == b || strings.HasPrefix(d, b+"/") {
					t.Errorf("%s imports %s (design §13 forbids it)", pkg, d)
				}
			}
		}
	}
	for pkg := range stdOnly {
		forbidden[pkg] = nil
	}
	for pkg := range forbidden {
		if !seen[pkg] {
			t.Errorf("%s is not in go list's output (renamed or gone? update this test)", pkg)
		}
	}
	if checked < 5 {
		t.Fatalf("checked only %d packages; go list output:\n%s", checked, out)
	}
}

// TestCommandLayerImportsOnlyTheEngineSide enforces issue 13: the command
// layer (cmd/loopx/internal/cli) parses flags, calls the engine and
// renders; it imports only the engine side (engine/..., internal/...,
// cmd/loopx/internal/output), cobra and the standard library — never the
// kernel, specs, policies, presets or lint, whose records and functions
// it reaches through the engine.
func TestCommandLayerImportsOnlyTheEngineSide(t *testing.T) {
	const mod = "github.com/loopx-dev/loopx/"
	const cli = mod + "cmd/loopx/internal/cli"
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, cli).CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v\n%s", err, out)
	}
	allowed := []string{mod + "engine", mod + "internal", mod + "cmd/loopx/internal/output", "github.com/spf13/cobra"}
	imports := strings.Fields(string(out))
	if len(imports) < 5 {
		t.Fatalf("go list gave only %d imports of %s:\n%s", len(imports), cli, out)
	}
	for _, imp := range imports {
		if first, _, _ := strings.Cut(imp, "/"); !strings.Contains(first, ".") {
			continue // the standard library
		}
		ok := false
		for _, a := range allowed {
			if imp == a || strings.HasPrefix(imp, a+"/") {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s imports %s (issue 13: the command layer imports only engine/..., internal/..., cmd/loopx/internal/output, cobra and the standard library)", cli, imp)
		}
	}
}

// TestEngineTopPackageSize holds the top engine package (engine/*.go, tests
// left out) to at most 4,000 lines (issue 13, design §13): what grows goes
// into the subpackage of its one purpose.
func TestEngineTopPackageSize(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "engine", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no engine files: %v", err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines > 4000 {
		t.Errorf("the top engine package has %d lines (tests left out); at most 4,000: move a concern into its subpackage", lines)
	}
}
