package specs

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// FuzzLoad feeds arbitrary bytes as loopx/loopx.cue: Load must not panic,
// and every error must be positioned in the user's file.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		minimal,
		benchSpec,
		"",
		"goals: g1: {\n\tquota: {\n\t\trounds: 3\n\n\t\twindw: \"24h\"\n\t}\n}\n",
		"goals: g1: {\n\tobjective: 12\n\tquota: windw: \"24h\"\n}\n",
		"goals: g1: {objective: \"x\", gates: m: {question: \"ok\", on_expiry: \"x\"}}",
		"goals: g1: {objective: \"x\", preset: \"pr-watch\", scope: commands: deny: [\"x\"]}",
		"goals: g1: {objective: \"x\", preset: \"nope\"}",
		"goals: g1: #Goal & {quota: window: \"1h\"}",
		"import \"strings\"\ngoals: g1: objective: strings.Repeat(\"a\", 3)",
		"goals: [string]: objective: \"x\"\ngoals: a: {}",
		"goals: g1: {objective: \"x\", todos: t: {title: \"t\", kind: \"monitor\", every: \"0s\"}}",
		"agents: a: {host: \"gemini\", mode: \"x\"}\ngoals: \"a b\": objective: \"x\"",
		"x: y\ngoals: {",
		"package a\n_x: 1\ngoals: g1: objective: \"\\(_x)\"",
		"extra: 1\nagents: a: {host: \"codex\", colour: 1}\ngoals: g1: {quota: {windw: 1, rounds: -3}, gates: g: {options: [\"a\", \"a\"], on_expiry: \"b\"}}",
		"for x in [\"a\", \"b\"] {goals: (x): {objective: x, preset: \"release\", gates: publish: answerers: [\"agent:x\"]}}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := filepath.Join(t.TempDir(), "loopx")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "loopx.cue"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Load(dir)
		if err == nil {
			if l.Spec == nil || len(l.JSON) == 0 {
				t.Fatalf("success without a spec")
			}
			return
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("error is not Errors: %v", err)
		}
		for _, e := range es {
			if e.Code == CodeNoSpec {
				continue
			}
			if e.Location.File != "loopx/loopx.cue" || e.Location.Line <= 0 || e.Location.Col <= 0 || e.Message == "" || e.Code == "" {
				t.Fatalf("badly positioned error %#v\nall:\n%v", e, es)
			}
			if e.Code == CodeInternal {
				t.Fatalf("internal error: %v", e)
			}
		}
	})
}

func TestLoad_ConcurrentCallsAreSafe(t *testing.T) {
	specDir := writeSpec(t, map[string]string{"loopx.cue": benchSpec})
	bad := writeSpec(t, map[string]string{"loopx.cue": "goals: g1: quota: windw: 1\n"})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 { // 80 loads: crosses an evaluator refresh
				if _, err := Load(specDir); err != nil {
					t.Error(err)
				}
				if _, err := Load(bad); err == nil {
					t.Error("bad spec loaded")
				}
				if i%2 == 0 {
					if _, err := LoadCached(specDir, filepath.Join(t.TempDir(), "c")); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

var (
	randLabels = []string{"goals", "agents", "project", "name", "g1", "g2", "objective", "preset", "quota", "window",
		"windw", "rounds", "compute", "min_interval", "gates", "m", "question", "options", "answerers", "on_expiry",
		"expires_after", "todos", "t", "kind", "every", "title", "scope", "write", "deny", "commands", "host", "role",
		"mode", "evidence", "stale_after", "stall", "max_no_progress", `"bad id"`, "_x", "[string]", "tokens",
		"cost_usd", "guards", "priority"}
	randValues = []string{`"x"`, `"Merge the branch into main?"`, `"24h"`, `"0s"`, `"1d"`, `"monitor"`, `"task"`,
		`"issue-fix"`, `"pr-watch"`, `"release"`, `"daily-triage"`, `"nope"`, `1`, `-1`, `0.5`, `2`, `[]`,
		`["human"]`, `["approve","reject"]`, `["a","a"]`, `"reject"`, `"codex"`, `string`, `int`, `_x`, `#Goal`,
		`#Gate`, `null`, `true`, `*"a" | "b"`, `"\(_x)"`, `1 & 2`, `_|_`, `[...string]`}
)

func randStruct(r *rand.Rand, depth int) string {
	var b strings.Builder
	b.WriteString("{")
	for range r.Intn(4) {
		b.WriteString(randLabels[r.Intn(len(randLabels))] + ": ")
		if depth < 5 && r.Intn(2) == 0 {
			if r.Intn(4) == 0 {
				b.WriteString(randValues[r.Intn(len(randValues))] + " & ")
			}
			b.WriteString(randStruct(r, depth+1))
		} else {
			b.WriteString(randValues[r.Intn(len(randValues))])
		}
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.String()
}

// Random specs built from the schema's own words reach deeper than byte
// fuzzing: every error they produce must be positioned and never internal.
func TestLoad_RandomSpecsErrorsArePositioned(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 300 {
		src := randStruct(r, 0)
		src = src[1 : len(src)-1]
		if r.Intn(2) == 0 {
			preset := []string{"issue-fix", "pr-watch", "release", "auto-research"}[r.Intn(4)]
			src = "goals: g1: {objective: \"x\", preset: \"" + preset + "\"}\ngoals: g1: " + randStruct(r, 2) + "\n" + src
		}
		dir := filepath.Join(t.TempDir(), "loopx")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "loopx.cue"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir)
		var es Errors
		if err != nil && !errors.As(err, &es) {
			t.Fatalf("error is not Errors: %v", err)
		}
		for _, e := range es {
			if e.Location.File != "loopx/loopx.cue" || e.Location.Line <= 0 || e.Location.Col <= 0 || e.Code == CodeInternal || e.Message == "" || len(e.Message) > maxMessage+200 {
				t.Fatalf("bad error %#v for:\n%s", e, src)
			}
		}
	}
}
