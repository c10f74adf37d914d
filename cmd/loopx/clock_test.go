package main

import (
	"bufio"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/testproject"
)

// TestClock_OnlyOneReader scans every non-test Go source of the module:
// the name of the test clock (LOOPX_NOW) appears as a string literal in
// exactly one place, cmd/loopx/internal/cli/clock.go, the one reader.
func TestClock_OnlyOneReader(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "LOOPX_NOW") {
				found = append(found, filepath.ToSlash(path))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"../../cmd/loopx/internal/cli/clock.go"}
	if strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Fatalf("LOOPX_NOW is named in %q; only %q may read it", found, want)
	}
}

// TestClock_ReleaseBuildIgnoresLOOPX_NOW builds loopx as a user does (`go
// build`, no test hooks) and attacks its clock: with the quota spent, an
// agent sets LOOPX_NOW a year ahead, for `decide should-run` and for the
// decision `loopx watch --exec` makes before running a round. The release
// build keeps the system clock (skip, quota_exhausted) and says on stderr
// that LOOPX_NOW is ignored.
func TestClock_ReleaseBuildIgnoresLOOPX_NOW(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	if testing.Short() {
		t.Skip("builds the loopx binary")
	}
	bin := filepath.Join(t.TempDir(), "loopx")
	// Without the symbol table and DWARF (-s -w): a third less linking,
	// and nothing the clock reads.
	build := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := testproject.New(t, "project: name: \"clock\"\nagents: a1: {host: \"shell\"}\ngoals: g1: {\n\tobjective: \"Ship the v2 API\"\n\tquota: {window: \"24h\", rounds: 1, min_interval: \"0s\"}\n}\n").Root
	run := func(env string, args ...string) (stdout, stderr string, code int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LOOPX_PROJECT="+dir, "LOOPX_AGENT=", "LOOPX_ROUND=", "LOOPX_NOW="+env)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	if _, e, code := run("", "todo", "add", "--goal", "g1", "Write the migration guide"); code != 0 {
		t.Fatalf("todo add: exit %d: %s", code, e)
	}
	if _, e, code := run("", "todo", "add", "--goal", "g1", "Add the v2 routes"); code != 0 {
		t.Fatalf("todo add: exit %d: %s", code, e)
	}
	o, e, code := run("", "round", "start", "--goal", "g1", "--agent", "a1", "--json")
	var started struct {
		Round struct {
			ID string `json:"id"`
		} `json:"round"`
	}
	if err := json.Unmarshal([]byte(o), &started); code != 0 || err != nil {
		t.Fatalf("round start: exit %d (%v): %s%s", code, err, o, e)
	}
	if _, e, code := run("", "round", "finish", started.Round.ID, "--outcome", "progress"); code != 0 {
		t.Fatalf("round finish: exit %d: %s", code, e)
	}
	future := time.Now().AddDate(1, 0, 0).UTC().Format(time.RFC3339)
	const ignored = "loopx: LOOPX_NOW is ignored: only test builds pin the clock; using the system clock\n"
	o, e, code = run(future, "decide", "should-run", "--goal", "g1", "--agent", "a1")
	if code != 1 || !strings.Contains(o, "quota_exhausted") || !strings.HasPrefix(e, ignored) {
		t.Fatalf("decide with LOOPX_NOW=%s: exit %d, want 1 quota_exhausted and the note\nstdout: %s\nstderr: %s", future, code, o, e)
	}

	// watch --exec: its first decision line is the quota skip, and no round runs.
	marker := filepath.Join(dir, "ran")
	w := exec.Command(bin, "watch", "--goal", "g1", "--agent", "a1", "--json", "--exec", "--", "touch", marker)
	w.Dir = dir
	w.Env = append(os.Environ(), "LOOPX_PROJECT="+dir, "LOOPX_AGENT=", "LOOPX_ROUND=", "LOOPX_NOW="+future)
	out, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var werr strings.Builder
	w.Stderr = &werr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	_ = w.Process.Signal(os.Interrupt)
	_ = w.Wait()
	if !strings.Contains(line, `"verdict":"skip"`) || !strings.Contains(line, "quota_exhausted") {
		t.Fatalf("watch --exec with LOOPX_NOW=%s: first line %q, want a quota skip\nstderr: %s", future, line, werr.String())
	}
	if !strings.HasPrefix(werr.String(), ignored) {
		t.Fatalf("watch stderr does not say LOOPX_NOW is ignored:\n%s", werr.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("watch --exec ran a round with the quota spent")
	}
}
