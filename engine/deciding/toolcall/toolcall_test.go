package toolcall

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
)

// TestRead_ActionsAndPaths: a call's actions come from its explicit
// action, its tool (and a known MCP alias) and its command, the most
// specific last (Action); its paths are made relative to the project.
func TestRead_ActionsAndPaths(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		name    string
		call    Call
		actions []string
		action  string
		paths   []string
	}{
		{"edit", Call{Tool: "Edit", Paths: []string{"api/x.go"}}, []string{"fs.write"}, "fs.write", []string{"api/x.go"}},
		{"bash push", Call{Tool: "Bash", Command: "git push origin main"}, []string{"shell.exec", "git.push"}, "git.push", nil},
		{"github merge", Call{Tool: "mcp__github__merge_pull_request"}, []string{"mcp.github.merge_pull_request", "git.merge"}, "git.merge", nil},
		{"alias only from github", Call{Tool: "mcp__other__merge_pull_request"}, []string{"mcp.other.merge_pull_request"}, "mcp.other.merge_pull_request", nil},
		{"explicit action kept", Call{Action: "npm.publish", Tool: "WebFetch"}, []string{"npm.publish"}, "npm.publish", nil},
		{"redirection in dir", Call{Tool: "Bash", Command: "echo x > out.txt", Dir: root + "/docs"}, []string{"shell.exec"}, "shell.exec", []string{"docs/out.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := Read(root, "", tc.call)
			var paths []string
			for _, p := range pr.Paths {
				paths = append(paths, p.Path)
			}
			if !reflect.DeepEqual(pr.Actions, tc.actions) || pr.Action != tc.action || !reflect.DeepEqual(paths, tc.paths) {
				t.Fatalf("actions %v action %q paths %v; want %v %q %v", pr.Actions, pr.Action, paths, tc.actions, tc.action, tc.paths)
			}
		})
	}
}

func TestReadRequest(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		call      bool
		pr        bool
	}{
		{"the caller's form", `{"tool": "Bash", "command": "go test ./..."}`, true, false},
		{"normalised", `{"tool": "Bash", "actions": ["shell.exec"]}`, false, true},
		{"neither", `{"tool": "Bash", "verb": "x"}`, false, false},
		{"not an object", `"Bash"`, false, false},
	} {
		call, pr, err := ReadRequest([]byte(tc.raw))
		if (call != nil) != tc.call || (pr != nil) != tc.pr || (err != nil) != (!tc.call && !tc.pr) {
			t.Errorf("%s: %+v %+v %v", tc.name, call, pr, err)
		}
		if err != nil && errs.CodeOf(err) != "bad_input" {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestRead_GitConfigPaths: the hooks directories and included files the
// repository's and the user's git configuration name (read from the
// files, includes followed, "~/" expanded, relative hooks paths from the
// work tree's top) are in the request for the permission policy.
func TestRead_GitConfigPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	for name, text := range map[string]string{
		".git/config":     "[core]\n\thooksPath = .Husky\n[include]\n\tpath = ../local.cfg\n",
		"local.cfg":       "[includeIf \"gitdir:/nowhere/\"]\n\tpath = ~/more.cfg\n",
		"../../more.cfg":  "",
		"sub/placeholder": "",
	} {
		p := filepath.Join(root, name)
		if name == "../../more.cfg" {
			p = filepath.Join(home, "more.cfg")
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\thooksPath = ~/hooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pr := Read(root, "", Call{Tool: "Write", Paths: []string{"x"}})
	want := []string{strings.ToLower(filepath.ToSlash(filepath.Join(home, "hooks"))) + "/**", ".husky/**", "local.cfg", strings.ToLower(filepath.ToSlash(filepath.Join(home, "more.cfg")))}
	if !slices.Equal(pr.GitConfigPaths, want) {
		t.Fatalf("git_config_paths %q, want %q", pr.GitConfigPaths, want)
	}
}
