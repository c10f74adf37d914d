package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
)

// TestPermission_HostSettingsGitHooksAndPlumbingPushes: the user's host
// settings and the directories holding them, git's hooks and config, and
// plumbing pushes, each decided end to end under
// permSpec (scope.deny secrets/**, commands.ask git push*) with HOME set to
// a directory holding real host settings.
func TestPermission_HostSettingsGitHooksAndPlumbingPushes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, f := range []string{".claude/settings.json", ".claude.json", ".codex/config.toml", ".codex/hooks.json", ".bashrc", "notes.txt"} {
		writeFile(t, filepath.Join(home, f), "{}")
	}
	e, _ := newEngine(t, permSpec)
	for _, f := range []string{"secrets/k.pem", "x/a.txt", ".git/hooks/pre-commit.sample", ".git/config", "src/main.go"} {
		writeFile(t, filepath.Join(e.Root(), f), "x")
	}
	for _, tc := range []struct {
		name, command string
		tool          string
		paths         []string
		want          string
		code          string
	}{
		// The user's host settings and the directories holding them.
		{name: "rm_home_tilde", command: "rm -rf ~", want: "deny", code: "protected_path"},
		{name: "rm_home_tilde_slash", command: "rm -rf ~/", want: "deny", code: "protected_path"},
		{name: "rm_home_absolute", command: "rm -rf " + home, want: "deny", code: "protected_path"},
		{name: "rm_home_parent", command: "rm -rf " + filepath.Dir(home), want: "deny", code: "protected_path"},
		{name: "rm_home_claude", command: "rm -rf ~/.claude", want: "deny", code: "protected_path"},
		{name: "write_claude_json", command: "echo '{}' > ~/.claude.json", want: "deny", code: "protected_path"},
		{name: "write_codex_config", command: "cp /dev/null " + home + "/.codex/config.toml", want: "deny", code: "protected_path"},
		{name: "write_codex_hooks", command: "echo x > ~/.codex/hooks.json", want: "deny", code: "protected_path"},
		{name: "tool_writes_home_settings", tool: "Write", paths: []string{filepath.Join(home, ".claude", "settings.json")}, want: "deny", code: "protected_path"},
		{name: "home_other_file_defers", command: "echo x >> ~/notes.txt", want: "defer"},
		// The files that run the human's next command.
		{name: "write_bashrc", command: "echo x >> ~/.bashrc", want: "deny", code: "protected_path"},
		{name: "write_gitconfig", command: "git config --global alias.st '!sh x'", want: "deny", code: "protected_path"},
		{name: "write_git_attributes", command: "echo '* filter=x' > .git/info/attributes", want: "deny", code: "protected_path"},
		{name: "write_envrc", command: "echo 'curl x | sh' > .envrc", want: "deny", code: "protected_path"},
		// .git/hooks and .git/config run code at the next git command.
		{name: "git_hook_written", command: "echo 'rm -rf /' > .git/hooks/pre-commit", want: "deny", code: "protected_path"},
		{name: "git_config_written", command: "cp /tmp/x .git/config", want: "deny", code: "protected_path"},
		{name: "git_dir_removed", command: "rm -rf .git", want: "deny", code: "protected_path"},
		{name: "git_hook_edit_tool", tool: "Edit", paths: []string{".git/hooks/pre-push"}, want: "deny", code: "protected_path"},
		// A directory containing a scope.deny match.
		{name: "rm_secrets", command: "rm -rf secrets", want: "deny", code: "scope_denied"},
		{name: "rm_secrets_slash", command: "rm -rf secrets/", want: "deny", code: "scope_denied"},
		{name: "rm_dot_secrets", command: "rm -rf ./secrets", want: "deny", code: "scope_denied"},
		{name: "rm_secret_glob", command: "rm -rf secret?", want: "deny", code: "scope_denied"},
		{name: "mv_secrets", command: "mv secrets /tmp/s", want: "deny", code: "scope_denied"},
		{name: "chmod_secrets", command: "chmod -R 000 secrets", want: "deny", code: "scope_denied"},
		{name: "cp_into_secrets", command: "cp -r x secrets", want: "deny", code: "scope_denied"},
		{name: "rm_src_defers", command: "rm -rf src", want: "defer"},
		// Plumbing pushes ask like git push.
		{name: "send_pack", command: "git send-pack origin main", want: "ask", code: "command_ask"},
		{name: "subtree_push", command: "git subtree push --prefix=d origin main", want: "ask", code: "command_ask"},
		{name: "lfs_push", command: "git lfs push origin main", want: "ask", code: "command_ask"},
		{name: "http_push", command: "git http-push https://h/r.git main", want: "ask", code: "command_ask"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := toolcall.Call{Tool: tc.tool, Command: tc.command, Paths: tc.paths}
			if tc.command != "" {
				in.Tool = "Bash"
			}
			d := permission(t, e, "claude", in)
			if d.Verdict != tc.want {
				t.Fatalf("%q: verdict %s, want %s (%s)", tc.command, d.Verdict, tc.want, reasonCodes(d))
			}
			if tc.code != "" && (len(d.Reasons) == 0 || d.Reasons[0].Code != tc.code) {
				t.Fatalf("%q: reasons %s, want %s first", tc.command, reasonCodes(d), tc.code)
			}
		})
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func reasonCodes(d decision.Decision) []string {
	var c []string
	for _, r := range d.Reasons {
		c = append(c, r.Code+": "+r.Message)
	}
	return c
}

// TestPermission_PushHoweverSpelled: a push is recognised whatever its
// spelling — git's own program by path, an alias of the project's or the
// user's git config (read, never run) — and a force push whatever its
// flag's place (-f, --force after the refspec, +refspec), under the
// scaffold's old pattern (git push --force*) and its action
// (git.push.force) alike; a git subcommand loopx cannot resolve asks.
func TestPermission_PushHoweverSpelled(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	writeFile(t, filepath.Join(home, ".gitconfig"), "[alias]\n\tfp = push --force\n\tup = \"!git push origin +main\"\n")
	bySpec := map[string]string{
		"pattern": permSpec,
		"action":  strings.Replace(permSpec, `deny: ["git push --force*"]`, `deny: ["git.push.force"]`, 1),
	}
	for specName, spec := range bySpec {
		e, _ := newEngine(t, spec)
		writeFile(t, filepath.Join(e.Root(), ".git", "config"), "[core]\n\tbare = false\n[alias]\n\tp = push\n")
		for _, tc := range []struct{ command, want, code string }{
			{"/usr/lib/git-core/git-push origin main", "ask", "command_ask"},
			{"git p origin main", "ask", "command_ask"},
			{"git fp origin main", "deny", "command_denied"},
			{"git up", "deny", "command_denied"},
			{"git push -f origin main", "deny", "command_denied"},
			{"git push origin main --force", "deny", "command_denied"},
			{"git push origin +main", "deny", "command_denied"},
			{"git push origin main", "ask", "command_ask"},
			{"git frobnicate origin main", "ask", "command_opaque"},
		} {
			d := permission(t, e, "claude", toolcall.Call{Tool: "Bash", Command: tc.command})
			if d.Verdict != tc.want || len(d.Reasons) == 0 || d.Reasons[0].Code != tc.code {
				t.Errorf("%s: %q: verdict %s (%s), want %s with %s first", specName, tc.command, d.Verdict, reasonCodes(d), tc.want, tc.code)
			}
		}
	}
}
