package toolcall

import (
	"reflect"
	"testing"
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
			pr := Read(root, tc.call)
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
