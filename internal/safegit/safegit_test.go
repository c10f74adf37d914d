package safegit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRun_RepositoryConfigCannotReachIt: the settings that run code or
// hide files win over the repository's own config, and no GIT_* variable
// of the environment (GIT_DIR, GIT_CONFIG_GLOBAL) reaches git.
func TestRun_RepositoryConfigCannotReachIt(t *testing.T) {
	if Path() == "" {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	home := t.TempDir()
	if err := os.WriteFile(home+"/.gitconfig", []byte("[core]\n\texcludesFile = /tmp/agent-ignore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"config", "core.hooksPath", "/tmp/agent-hooks"}, {"config", "core.fsmonitor", "/tmp/agent-fsmonitor"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_DIR", "/nonexistent")
	t.Setenv("GIT_CONFIG_GLOBAL", home+"/.gitconfig")
	for key, want := range map[string]string{"core.hooksPath": "/dev/null", "core.fsmonitor": "false", "core.excludesFile": "/dev/null", "core.attributesFile": "/dev/null"} {
		out, err := Git{Dir: dir}.Run("config", "--get", key)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	for _, kv := range Env() {
		if strings.HasPrefix(kv, "GIT_DIR=") || kv == "GIT_CONFIG_GLOBAL="+home+"/.gitconfig" {
			t.Errorf("Env() carries %s", kv)
		}
	}
}
