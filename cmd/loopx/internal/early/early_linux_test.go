package early

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/frontend/hook"
	"github.com/loopx-dev/loopx/specs"
)

// TestConstants holds early's copies to the constants of the packages
// it may not import.
func TestConstants(t *testing.T) {
	if ChildCommand != specs.ChildCommand {
		t.Errorf("ChildCommand %q, specs says %q", ChildCommand, specs.ChildCommand)
	}
	if HookDeadline != hook.Deadline {
		t.Errorf("HookDeadline %s, hook says %s", HookDeadline, hook.Deadline)
	}
	if MaxPayload != hosts.MaxPayload {
		t.Errorf("MaxPayload %d, hosts says %d", MaxPayload, hosts.MaxPayload)
	}
}

// TestAnchorDir holds early's project discovery and anchor directory to
// scaffold.FindRoot and anchor.Dir: through symbolic links (absolute,
// relative, to a parent), from a subdirectory, a project found by its
// loopx/*.cue or its .loopx/, and none at all.
func TestAnchorDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state"))
	real := filepath.Join(tmp, "real", "my proj")
	mk := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(real, "loopx"))
	mk(filepath.Join(real, "sub", "deep"))
	if err := os.WriteFile(filepath.Join(real, "loopx", "loopx.cue"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "other")
	mk(filepath.Join(other, ".loopx"))
	mk(filepath.Join(other, "a"))
	mk(filepath.Join(tmp, "none", "x"))
	links := map[string]string{
		filepath.Join(tmp, "abs"):              real,
		filepath.Join(tmp, "rel"):              "real/my proj/sub",
		filepath.Join(real, "sub", "up"):       "..",
		filepath.Join(tmp, "real", "loop"):     "loop2",
		filepath.Join(tmp, "real", "loop2"):    "loop",
		filepath.Join(tmp, "real", "dangling"): "nowhere",
	}
	for l, to := range links {
		if err := os.Symlink(to, l); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{real, filepath.Join(real, "sub", "deep"), filepath.Join(tmp, "abs"), filepath.Join(tmp, "rel"),
		filepath.Join(tmp, "rel", "deep"), filepath.Join(real, "sub", "up", "sub"), filepath.Join(other, "a"), other,
		filepath.Join(tmp, "none", "x"), filepath.Join(tmp, "real", "loop"), filepath.Join(tmp, "real", "dangling"),
		filepath.Join(tmp, "abs") + "/./sub/../sub", "/"}
	for _, d := range dirs {
		wantRoot, err := scaffold.FindRoot(d)
		gotRoot, ok := findRoot(d)
		if ok != (err == nil) || gotRoot != wantRoot {
			t.Errorf("findRoot(%s) = %q, %v; FindRoot: %q, %v", d, gotRoot, ok, wantRoot, err)
		}
		want, err := anchor.Dir(d)
		got, ok := anchorDir(d)
		if ok != (err == nil) || got != want {
			t.Errorf("anchorDir(%s) = %q, %v; anchor.Dir: %q, %v", d, got, ok, want, err)
		}
		wantReal, err := filepath.EvalSymlinks(d)
		gotReal, gerr := evalSymlinks(abs(d))
		if (gerr == nil) != (err == nil) || gotReal != wantReal {
			t.Errorf("evalSymlinks(%s) = %q, %v; filepath: %q, %v", d, gotReal, gerr, wantReal, err)
		}
	}
	// A relative --project resolves against the working directory.
	t.Chdir(filepath.Join(tmp, "real"))
	want, err := anchor.Dir("my proj")
	if got, ok := anchorDir("my proj"); err != nil || !ok || got != want {
		t.Errorf("anchorDir(relative) = %q, %v; anchor.Dir: %q, %v", got, ok, want, err)
	}
	// Without a state home nor HOME there is no anchor directory.
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "")
	if _, ok := anchorDir(real); ok {
		t.Error("anchorDir without a state home: ok")
	}
	if _, err := anchor.Dir(real); err == nil {
		t.Error("anchor.Dir without a state home: no error")
	}
}

func TestScan(t *testing.T) {
	cases := []struct {
		args []string
		want Args
	}{
		{[]string{"todo", "claim", "t-1", "--agent", "a1"}, Args{Command: "todo", Sub: "claim"}},
		{[]string{"--project", "p", "hook", "claude-code", "--event=PreToolUse"}, Args{Command: "hook", Sub: "claude-code", Project: "p", Event: "PreToolUse"}},
		{[]string{"watch", "--exec"}, Args{Command: "watch", Exec: true}},
		{[]string{"todo", "--help"}, Args{Command: "todo", Help: true}},
		{[]string{"--", "todo"}, Args{}},
	}
	for _, c := range cases {
		if got := Scan(c.args); got != c.want {
			t.Errorf("Scan(%q) = %+v, want %+v", c.args, got, c.want)
		}
	}
	if !(Args{Command: "watch", Exec: true}).Spawning() || (Args{Command: "watch"}).Spawning() || !(Args{Command: "run"}).Spawning() {
		t.Error("Spawning")
	}
	for _, c := range []string{"hook", "mcp", "watch", "run", "__complete"} {
		if (Args{Command: c}).Keyed() {
			t.Errorf("%s is keyed", c)
		}
	}
	if !(Args{Command: "todo"}).Keyed() || !(Args{Command: "serve", Sub: "status"}).ServeStatus() {
		t.Error("todo not keyed, or serve status not recognised")
	}
}

// TestNewKey: 32 lowercase hex digits, a new one each time.
func TestNewKey(t *testing.T) {
	a, ok1 := newKey()
	b, ok2 := newKey()
	if !ok1 || !ok2 || len(a) != 32 || a == b {
		t.Fatalf("newKey: %q %v, %q %v", a, ok1, b, ok2)
	}
}
