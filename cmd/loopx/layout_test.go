package main

import (
	"os/exec"
	"strings"
	"testing"
)

// layers is loopx's code, top to bottom. A package imports only packages
// of its own layer or of the layers below it (TestLayersFlowDown); the
// finer rules inside a layer are TestImportsFlowOneWay's.
//
//	command     cmd/: main and one file per command (parse, call the
//	            layers below, render); of the foundations it imports the
//	            records it renders and the spec schema, never the kernel
//	            (TestCommandLayerImportsNoStore)
//	ways in     internal/frontend/: what drives the engine for a command —
//	            loopx check's pipeline, the demo, answering a gate at a
//	            terminal, a host's hook, the MCP server, watch. A front end
//	            sits in front of the engine: it calls the engine, the engine
//	            never calls it, and only the command layer imports it.
//	use cases   engine: the Engine over the adopted rules and the store
//	roles       engine/deciding (input, state snapshot, rulebook, decision,
//	            decision log, shell reader, tool calls), engine/mutating
//	            (rounds, loopx run, leases, gates, todos, evidence, adoption,
//	            housekeeping, scaffolding, audit), engine/reporting (what
//	            prompt, review and status show), engine/hosts (one adapter
//	            per host behind one interface, and their registry),
//	            engine/trust (process ancestry, change scan)
//	foundations kernel (the store: opening, transactions, the chain, the
//	            journal, the event log, migrations), kernel/records (the
//	            records it stores and the reports of its checks: plain data
//	            that the kernel, the engine and the command layer all read,
//	            so it sits beside the kernel, not inside it or above it),
//	            specs (the CUE schema and loading), policies (the Rego
//	            bundle), presets, lint (the check rules)
//	leaves      internal/...: small helpers over the standard library
var layers = []struct {
	name     string
	packages []string // import paths below the module; "x/" is every package under x, "x" that one alone
}{
	{"command", []string{"cmd/"}},
	{"ways in", []string{"internal/frontend/"}},
	{"use cases", []string{"engine"}},
	{"roles", []string{"engine/deciding/", "engine/mutating/", "engine/reporting/", "engine/hosts", "engine/hosts/", "engine/trust"}},
	{"foundations", []string{"kernel", "kernel/records", "specs", "policies", "policies/", "presets", "lint"}},
	{"leaves", []string{"internal/"}},
}

// layerOf is the index in layers of the package at path (below the
// module), the most specific entry winning; -1 if no entry names it.
func layerOf(path string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.packages {
			match := path == p
			if dir, ok := strings.CutSuffix(p, "/"); ok {
				match = strings.HasPrefix(path, p) || path == dir
			}
			if match && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

// TestLayersFlowDown checks with go list that every package of the module
// is in one layer of the table and imports no package of a layer above
// its own.
func TestLayersFlowDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}: {{join .Imports " "}}`, "../../...").CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v\n%s", err, out)
	}
	const mod = "github.com/loopx-dev/loopx/"
	checked := 0
	for _, line := range strings.Split(string(out), "\n") {
		pkg, imports, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		rel, ok := strings.CutPrefix(pkg, mod)
		if !ok {
			continue
		}
		from := layerOf(rel)
		if from < 0 {
			t.Errorf("%s is in no layer: add it to the layers table", rel)
			continue
		}
		checked++
		for _, imp := range strings.Fields(imports) {
			irel, ok := strings.CutPrefix(imp, mod)
			if !ok {
				continue
			}
			if to := layerOf(irel); to >= 0 && to < from {
				t.Errorf("%s (%s) imports %s (%s): a package imports only its own layer and the ones below", rel, layers[from].name, irel, layers[to].name)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("checked only %d packages; go list output:\n%s", checked, out)
	}
	for _, want := range []struct {
		path  string
		layer string
	}{{"cmd/loopx/internal/cli", "command"}, {"internal/frontend/hook", "ways in"}, {"engine", "use cases"},
		{"engine/deciding/decision", "roles"}, {"engine/hosts", "roles"}, {"kernel", "foundations"}, {"kernel/records", "foundations"},
		{"policies/regotest", "foundations"}, {"internal/errs", "leaves"}} {
		if i := layerOf(want.path); i < 0 || layers[i].name != want.layer {
			t.Errorf("layerOf(%q) is not %s", want.path, want.layer)
		}
	}
}

// TestImportsFlowOneWay checks the finer rules inside the layers: the
// kernel imports neither OPA nor CUE; specs, policies and presets import
// neither the engine nor the kernel; lint reads specs and policies only;
// the engine's pure packages (the shell reader, scope globs, the decision
// log, the trust facts) import neither the top engine package, nor the
// kernel, nor OPA or CUE; each role package below says what it may not
// import and why; the leaves in internal/ import only the standard
// library, golang.org/x/sys and one another; the binary does not carry
// the test-only SARIF validator nor the shell forms corpus.
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
		// The records are plain data: no store, no other package of loopx.
		mod + "kernel/records": {mod + "kernel$", mod + "engine", mod + "specs", mod + "policies", mod + "presets", mod + "cmd", mod + "lint", mod + "internal",
			"github.com/open-policy-agent/opa", "cuelang.org/go"},
		// The engine's pure rooms.
		mod + "engine/deciding/shell":           pure,
		mod + "engine/deciding/shell/shelltest": pure,
		mod + "engine/deciding/glob":            pure,
		mod + "engine/deciding/decisionlog":     pure,
		mod + "engine/trust":                    pure,
		// The engine's rooms over kernel records: they drive the engine
		// through interfaces of their own, never the top engine package.
		mod + "engine/mutating/agentloop": rooms,
		// The read model caches kernel records, never the store's owner.
		mod + "engine/deciding/readmodel": rooms,
		// The renderers take kernel records, never the store's owner.
		mod + "engine/reporting/render": rooms,
		// input.state is built from kernel records and the spec's types
		// through an interface of its own; it evaluates no policy.
		mod + "engine/deciding/inputstate": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// A gate request's checks: no state, no policy.
		mod + "engine/mutating/gates": {engineTop, mod + "kernel", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// A todo request's checks: no store, no policy.
		mod + "engine/mutating/todos": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// Lease mechanics: kernel records, no store, no policy.
		mod + "engine/mutating/lease": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// A decision and its log line: no evaluation, no state, and
		// nothing of how it is shown (the renderers and views import it).
		mod + "engine/deciding/decision": {engineTop, mod + "engine/reporting", mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego", "cuelang.org/go"},
		// The parts of a decision the renderers show (reasons, the
		// selected todo, the quota summary): plain data.
		mod + "engine/deciding/decision/parts": pure,
		// What each query is (name, entry rule, verdicts, what it reads):
		// plain data every package that asks a query reads.
		mod + "engine/deciding/query": pure,
		// Adoption's mechanics: revisions, classification, write-back;
		// the store's owner records them.
		mod + "engine/mutating/adopt": {engineTop, mod + "cmd", mod + "lint"},
		// A round's mechanics write through a transaction interface of
		// their own; what decides is the caller's.
		mod + "engine/mutating/rounds": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// The state check's snapshot reads through an interface of its own.
		mod + "engine/deciding/lintstate": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// The denial spool's import writes through an interface of its own.
		mod + "engine/mutating/spoolimport": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// loopx run's rounds drive the engine through functions it hands
		// them, never the top engine package.
		mod + "engine/mutating/runround": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// The audit events of refused attempts, through an interface of
		// their own.
		mod + "engine/mutating/audit": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// An evidence request's checks: no store, no policy.
		mod + "engine/mutating/evidence": {engineTop, mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// Housekeeping writes through a transaction interface of its own.
		mod + "engine/mutating/housekeep": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
		// The output contract: types of its own built from the kernel's
		// records, nothing else of loopx.
		mod + "engine/reporting/contract": {mod + "kernel$", mod + "engine", mod + "specs", mod + "policies", mod + "presets", mod + "cmd", mod + "lint",
			mod + "internal", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// What prompt, review and status show is gathered from kernel
		// records the same way, for the renderers.
		mod + "engine/reporting/reportdata": {engineTop, mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa/v1/rego"},
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
		// The adapters and their registry: host protocols, no engine.
		mod + "engine/hosts/registry": {engineTop, mod + "kernel", mod + "specs", mod + "policies", mod + "cmd", mod + "lint", "github.com/open-policy-agent/opa", "cuelang.org/go"},
		// The official SARIF schema is for tests only (see its NOTICE), and
		// so is the shell forms corpus.
		mod + "cmd/loopx": {mod + "internal/sarifcheck", mod + "engine/deciding/shell/shelltest"},
	}
	// Leaves every package may import: the standard library, the system
	// calls of golang.org/x/sys, and one another only.
	stdOnly := map[string]bool{mod + "internal/errs": true, mod + "internal/anchor": true, mod + "internal/safegit": true,
		mod + "internal/nofollow": true, mod + "internal/watchdog": true, mod + "internal/fsync": true, mod + "internal/anchorname": true}
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
						t.Errorf("%s imports %s (the layer rules forbid it)", pkg, d)
					}
				} else if d == b || strings.HasPrefix(d, b+"/") {
					t.Errorf("%s imports %s (the layer rules forbid it)", pkg, d)
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

// commandMayImport reports whether the command layer
// (cmd/loopx/internal/cli) may import the module or third-party package
// imp: the engine side (engine/..., internal/..., cmd/loopx/internal/output),
// the forwarding that runs before it (cmd/loopx/internal/early, whose
// argument scan and constants it shares), the records it renders (kernel/records), the spec schema and its
// evaluator child (specs), and cobra with its flags package (pflag) —
// never the kernel (the store),
// policies, presets or lint, which it reaches through the engine.
func commandMayImport(imp string) bool {
	const mod = "github.com/loopx-dev/loopx/"
	for _, a := range []string{mod + "engine", mod + "internal", mod + "cmd/loopx/internal/output",
		mod + "cmd/loopx/internal/early", mod + "kernel/records", mod + "specs", "github.com/spf13/cobra", "github.com/spf13/pflag"} {
		if imp == a || strings.HasPrefix(imp, a+"/") {
			return true
		}
	}
	return false
}

// TestCommandLayerImportsNoStore checks that the command layer parses
// flags, calls the engine and renders: it imports only what
// commandMayImport allows and the standard library.
func TestCommandLayerImportsNoStore(t *testing.T) {
	const mod = "github.com/loopx-dev/loopx/"
	for imp, want := range map[string]bool{mod + "kernel": false, mod + "kernel/records": true, mod + "policies": false,
		mod + "presets": false, mod + "lint": false, mod + "specs": true, mod + "engine/deciding/decision": true} {
		if commandMayImport(imp) != want {
			t.Errorf("commandMayImport(%q) = %v, want %v", imp, !want, want)
		}
	}
	const cli = mod + "cmd/loopx/internal/cli"
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, cli).CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v\n%s", err, out)
	}
	imports := strings.Fields(string(out))
	if len(imports) < 5 {
		t.Fatalf("go list gave only %d imports of %s:\n%s", len(imports), cli, out)
	}
	for _, imp := range imports {
		if first, _, _ := strings.Cut(imp, "/"); !strings.Contains(first, ".") {
			continue // the standard library
		}
		if !commandMayImport(imp) {
			t.Errorf("%s imports %s (the command layer imports only engine/..., internal/..., cmd/loopx/internal/output, cmd/loopx/internal/early, kernel/records, specs, cobra, pflag and the standard library)", cli, imp)
		}
	}
}
