package specs

import (
	"fmt"
	"time"
	"errors"
	"os"
	"path/filepath"
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
		if os.Getenv("FUZZ_WATCHDOG") != "" {
			done := make(chan struct{})
			defer close(done)
			go func() {
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					os.WriteFile(fmt.Sprintf("/tmp/hang-%d.cue", time.Now().UnixNano()), src, 0o644)
					panic("hang")
				}
			}()
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
			if e.File != "loopx/loopx.cue" || e.Line <= 0 || e.Col <= 0 || e.Message == "" || e.Code == "" {
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
