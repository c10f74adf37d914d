package specs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadCounted runs LoadCached and reports whether it evaluated CUE: it
// forgets the specs this process evaluated first (evaluated), so that
// what it reports is whether the cache file was used.
func loadCounted(t *testing.T, specDir, cacheDir string) (*Loaded, error, bool) {
	t.Helper()
	evaluated.forget()
	before := evaluations.Load()
	l, err := LoadCached(specDir, cacheDir)
	return l, err, evaluations.Load() != before
}

func TestLoadCached_HitSkipsCUE(t *testing.T) {
	specDir := writeSpec(t, map[string]string{"loopx.cue": minimal})
	cacheDir := filepath.Join(t.TempDir(), ".loopx", "cache")

	first, err, evaluated := loadCounted(t, specDir, cacheDir)
	if err != nil || !evaluated {
		t.Fatalf("first load: err %v, evaluated %v", err, evaluated)
	}
	hexHash := strings.TrimPrefix(first.Hash, "sha256:")
	if files := cacheFiles(t, cacheDir); len(files) != 1 || filepath.Base(files[0]) != "spec-"+hexHash+".json" {
		t.Fatalf("cache dir = %v", files)
	}

	// A new mtime with the same content is still a hit.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(specDir, "loopx.cue"), later, later); err != nil {
		t.Fatal(err)
	}
	second, err, evaluated := loadCounted(t, specDir, cacheDir)
	if err != nil || evaluated {
		t.Fatalf("second load: err %v, evaluated %v (want a cache hit)", err, evaluated)
	}
	if second.Hash != first.Hash || !bytes.Equal(second.JSON, first.JSON) ||
		strings.Join(second.Files, ",") != strings.Join(first.Files, ",") {
		t.Errorf("cached result differs:\n%s\n%s", first.JSON, second.JSON)
	}
	if direct, err := Load(specDir); err != nil || !bytes.Equal(direct.JSON, second.JSON) || direct.Hash != second.Hash {
		t.Errorf("Load and LoadCached differ: %v", err)
	}

	// New content is a miss, and a new cache file.
	if err := os.WriteFile(filepath.Join(specDir, "loopx.cue"), []byte(minimal+"project: name: \"p\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err, evaluated := loadCounted(t, specDir, cacheDir)
	if err != nil || !evaluated || third.Hash == first.Hash || third.Spec.Project.Name != "p" {
		t.Fatalf("changed content: err %v, evaluated %v, hash %s", err, evaluated, third.Hash)
	}
	if n := len(cacheFiles(t, cacheDir)); n != 2 {
		t.Errorf("cache files = %d, want 2", n)
	}

	// A new file is a miss too.
	if err := os.WriteFile(filepath.Join(specDir, "more.cue"), []byte("agents: a: host: \"shell\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err, evaluated := loadCounted(t, specDir, cacheDir); err != nil || !evaluated {
		t.Fatalf("added file: err %v, evaluated %v", err, evaluated)
	}
}

func TestLoadCached_CorruptCacheIsRewritten(t *testing.T) {
	specDir := writeSpec(t, map[string]string{"loopx.cue": minimal})
	cacheDir := t.TempDir()
	l, err := LoadCached(specDir, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cacheDir, "spec-"+strings.TrimPrefix(l.Hash, "sha256:")+".json")
	for name, junk := range map[string]string{
		"truncated":  `{"hash":"sha256:`,
		"wrong hash": `{"hash":"sha256:00","spec":{}}`,
		"no spec":    `{"hash":"` + l.Hash + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(junk), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err, evaluated := loadCounted(t, specDir, cacheDir)
			if err != nil || !evaluated || !bytes.Equal(got.JSON, l.JSON) {
				t.Fatalf("err %v, evaluated %v", err, evaluated)
			}
			if _, _, evaluated := loadCounted(t, specDir, cacheDir); evaluated {
				t.Fatalf("the corrupt cache file was not rewritten")
			}
		})
	}
}

func TestLoadCached_ErrorsAreNotCached(t *testing.T) {
	specDir := writeSpec(t, map[string]string{"loopx.cue": "goals: g1: {}\n"})
	cacheDir := filepath.Join(t.TempDir(), "cache")
	for range 2 {
		_, err, evaluated := loadCounted(t, specDir, cacheDir)
		if err == nil || !evaluated {
			t.Fatalf("err %v, evaluated %v", err, evaluated)
		}
	}
	if _, err := os.Stat(cacheDir); !os.IsNotExist(err) {
		t.Errorf("cache dir written for a failed load: %v", cacheFiles(t, cacheDir))
	}
	if _, err := LoadCached(filepath.Join(t.TempDir(), "none"), cacheDir); err == nil {
		t.Error("missing spec dir must fail")
	}
}

func TestLoadCached_UnwritableCacheIsNotAnError(t *testing.T) {
	specDir := writeSpec(t, map[string]string{"loopx.cue": minimal})
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCached(specDir, filepath.Join(blocker, "cache")); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCached_KeepsAtMostCacheKeepFiles(t *testing.T) {
	cacheDir := t.TempDir()
	for i := range cacheKeep + 3 {
		specDir := writeSpec(t, map[string]string{"loopx.cue": minimal + "project: name: \"" + strings.Repeat("x", i) + "\"\n"})
		if _, err := LoadCached(specDir, cacheDir); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(cacheFiles(t, cacheDir)); n != cacheKeep {
		t.Errorf("cache files = %d, want %d", n, cacheKeep)
	}
}

const benchSpec = `
project: name: "bench"
agents: {
	codex:  {host: "codex"}
	claude: {host: "claude-code", role: "reviewer"}
}
goals: {
	"ship-v2": {
		objective: "Ship the v2 API with a migration guide"
		preset:    "issue-fix"
		agents: ["codex", "claude"]
		quota: {rounds: 24, tokens: 2_000_000, cost_usd: 20, min_interval: "10m"}
		scope: {
			write: ["api/**", "docs/**"]
			deny: [".loopx/**", "loopx/**", ".env", "secrets/**"]
		}
	}
	watch: {objective: "Watch the open pull requests", preset: "pr-watch"}
	triage: {
		objective: "Triage new issues"
		gates: label: {question: "Apply the proposed labels to these issues?", answerers: ["human", "agent:claude"]}
		todos: scan: {title: "Scan new issues", kind: "monitor", every: "1h"}
	}
}
`

func BenchmarkLoad(b *testing.B) {
	specDir := writeSpec(b, map[string]string{"loopx.cue": benchSpec})
	for b.Loop() {
		if _, err := Load(specDir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadCached(b *testing.B) {
	specDir := writeSpec(b, map[string]string{"loopx.cue": benchSpec})
	cacheDir := b.TempDir()
	if _, err := LoadCached(specDir, cacheDir); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := LoadCached(specDir, cacheDir); err != nil {
			b.Fatal(err)
		}
	}
}

// A process evaluates the same spec files at the same place once: Load
// again returns what the first evaluation exported, decoded afresh; the
// same files in another project (the sandbox check reads the project's
// root) are evaluated, and so is anything after SetBudget, and failures
// are never kept.
func TestLoad_EvaluatesTheSameFilesOncePerProcess(t *testing.T) {
	evaluated.forget()
	specDir := writeSpec(t, map[string]string{"loopx.cue": minimal})
	load := func(dir string) (*Loaded, error, bool) {
		t.Helper()
		before := evaluations.Load()
		l, err := Load(dir)
		return l, err, evaluations.Load() != before
	}
	first, err, ev := load(specDir)
	if err != nil || !ev {
		t.Fatalf("first load: %v, evaluated %v", err, ev)
	}
	again, err, ev := load(specDir)
	if err != nil || ev || again.Spec == first.Spec || !bytes.Equal(again.JSON, first.JSON) || again.Hash != first.Hash || again.Cached {
		t.Fatalf("second load: %v, evaluated %v, same Spec %v", err, ev, again.Spec == first.Spec)
	}
	if _, err, ev := load(writeSpec(t, map[string]string{"loopx.cue": minimal})); err != nil || !ev {
		t.Fatalf("the same files in another project: %v, evaluated %v", err, ev)
	}
	SetBudget(nil)
	if _, err, ev := load(specDir); err != nil || !ev {
		t.Fatalf("after SetBudget: %v, evaluated %v", err, ev)
	}
	bad := writeSpec(t, map[string]string{"loopx.cue": "goals: g1: {}\n"})
	for range 2 {
		if _, err, ev := load(bad); err == nil || !ev {
			t.Fatalf("a spec that fails: %v, evaluated %v", err, ev)
		}
	}
}

// LoadFiles evaluates files as the spec directory will hold them: once
// they are written there, Load finds the same hash and does not evaluate
// them again.
func TestLoadFiles_AsLoadOnceWritten(t *testing.T) {
	evaluated.forget()
	dir := filepath.Join(t.TempDir(), "loopx")
	vetted, err := LoadFiles(dir, map[string][]byte{"loopx.cue": []byte(minimal)})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "loopx.cue"), []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	before := evaluations.Load()
	l, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Hash != vetted.Hash || !bytes.Equal(l.JSON, vetted.JSON) || evaluations.Load() != before {
		t.Fatalf("load of the written files: hash %s (vetted %s), evaluated %v", l.Hash, vetted.Hash, evaluations.Load() != before)
	}
	if _, err := LoadFiles(dir, map[string][]byte{"loopx.cue": []byte("goals: g1: {}\n")}); err == nil {
		t.Fatal("a spec that does not vet loaded")
	}
}
