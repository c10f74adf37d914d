// Package toolcall reads an agent host's tool call (a tool name, the
// files it writes, a shell command) into the permission request policies
// judge (input.permission): facts of its paths, the shell reader's
// reading of its command, and the actions it takes.
package toolcall

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/pathfacts"
	"github.com/loopx-dev/loopx/engine/deciding/shell"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
)

// Call is a permission question as a caller (the CLI, a host hook) asks
// it: which tool, which action, which files it writes, which
// shell command it runs. Every field may be empty, but not all of them.
type Call struct {
	// Tool is the host's tool name ("Bash", "Edit", "Write", "MultiEdit",
	// "NotebookEdit", "mcp__github__merge_pull_request", …); "" = none.
	Tool string
	// Action is an explicit action ("git.push"); "" derives it (see Read).
	Action string
	// Paths are the files the tool writes: absolute, or relative to Dir.
	Paths []string
	// Command is a shell command line (Bash's tool_input.command).
	Command string
	// Dir is the directory relative Paths and the Command's redirections are
	// relative to ("" = the project root).
	Dir string
	// AskBlocks says the caller's host cannot ask its user (Codex): an
	// "ask" verdict is answered there as a block, so it is audited as a
	// denial too.
	AskBlocks bool
	// Question: someone other than the agent asks about it (loopx decide
	// permission run by a human or another agent), so a denial is an
	// answer, not the agent's denied call: it is not audited as the
	// agent's permission.denied event.
	Question bool
}

// toolActions are the actions of host tools that write files.
var toolActions = map[string]string{"edit": "fs.write", "write": "fs.write", "multiedit": "fs.write",
	"notebookedit": "fs.write", "apply_patch": "fs.write", "bash": "shell.exec", "shell": "shell.exec"}

// mcpAliases maps MCP tools that do what a loopx action names to that
// action, so that a gate guarding git.merge also guards the GitHub MCP
// server's merge tool.
var mcpAliases = map[string]string{"merge_pull_request": "git.merge", "push_files": "git.push",
	"create_or_update_file": "git.push", "delete_file": "git.push"}

// Read reads call into input.permission for the project at root (a
// permission decision's normalised request), with loopx's state
// directory stateDir ($XDG_STATE_HOME/loopx; "" for none known):
//
//   - each path is made relative to the project root (filepath.Clean;
//     relative ones in call.Dir, else in root), with ".." escapes and
//     absolute paths elsewhere flagged outside_project, and symlinks
//     resolved (EvalSymlinks on the longest existing prefix) into
//     resolved / symlink_outside (pathfacts);
//   - the command is read (engine/deciding/shell) into argvs and commands (sh -c, eval,
//     $(…), find -exec, xargs… read recursively; env, sudo, nice…
//     removed; git aliases resolved from the git configuration, read
//     without running git), the files it writes (following cd), and
//     opaque reasons;
//   - a path in stateDir, or containing it, is marked loopx_state
//     (pathfacts.State);
//   - the hooks directories and included files the git configuration
//     names (trust.ReadGitConfig) become git_config_paths;
//     an opaque line's path-like tokens become paths with mentioned set;
//   - actions are derived: the explicit Action, the tool's ("fs.write" for
//     Edit/Write/MultiEdit/NotebookEdit/apply_patch, "shell.exec" for Bash,
//     "mcp.<server>.<tool>" for mcp__<server>__<tool>, plus a known alias
//     such as git.merge for a GitHub merge tool), and the commands' (git
//     push however spelled → git.push, and git.push.force when it may
//     overwrite or delete what the remote holds; git merge and gh pr
//     merge → git.merge, git commit →
//     git.commit, git tag → git.tag, npm publish → npm.publish, loopx gate
//     answer → loopx.gate.answer); Action is the most specific of them.
func Read(root, stateDir string, req Call) *input.PermissionRequest {
	dir := req.Dir
	if dir == "" {
		dir = root
	}
	pr := &input.PermissionRequest{Tool: req.Tool, Action: req.Action, Paths: []input.PathFacts{}, Command: req.Command,
		Commands: []string{}, Actions: []string{}, CommandParsed: true, Argvs: [][]string{}, ArgvActions: [][]string{}, Opaque: []string{}}
	if req.Action != "" {
		pr.Actions = append(pr.Actions, req.Action)
	}
	if a := toolAction(req.Tool); a != "" {
		pr.Actions = appendNew(pr.Actions, a)
	}
	if server, tool, ok := mcpTool(req.Tool); ok {
		if a, ok := mcpAliases[tool]; ok && strings.Contains(server, "github") {
			pr.Actions = appendNew(pr.Actions, a)
		}
	}
	roots := pathfacts.Roots(root)
	homes, hasHome := pathfacts.HomeRoots()
	gc := trust.ReadGitConfig(root)
	pr.GitConfigPaths = gitConfigPaths(roots, gc)
	var states [2]string
	if stateDir != "" {
		states = pathfacts.Roots(stateDir)
	}
	facts := func(p string) input.PathFacts {
		f := pathfacts.Of(roots, dir, p)
		if hasHome {
			pathfacts.Home(homes, dir, p, &f)
		}
		if stateDir != "" {
			pathfacts.State(states, dir, p, &f)
		}
		return f
	}
	for _, p := range req.Paths {
		pr.Paths = append(pr.Paths, facts(p))
	}
	if strings.TrimSpace(req.Command) != "" {
		cl := shell.ReadWith(req.Command, shell.Options{Git: &gc.Config})
		pr.Commands = append(pr.Commands, cl.Commands...)
		pr.Argvs = append(pr.Argvs, cl.Argvs...)
		for _, acts := range cl.ArgvActions {
			pr.ArgvActions = append(pr.ArgvActions, append([]string{}, acts...))
		}
		pr.Opaque = append(pr.Opaque, cl.Opaque...)
		pr.CommandParsed = cl.Parsed
		for _, a := range cl.Actions {
			pr.Actions = appendNew(pr.Actions, a)
		}
		add := func(w string, mentioned bool) {
			if w == "" || strings.HasPrefix(w, "/dev/") {
				return
			}
			for _, m := range pathfacts.Expand(dir, w) {
				f := facts(m)
				f.ViaCommand, f.Mentioned = true, mentioned
				pr.Paths = append(pr.Paths, f)
			}
		}
		for _, w := range cl.Writes {
			add(w, false)
		}
		for _, w := range cl.Mentioned {
			add(w, true)
		}
		for _, n := range cl.Names { // a bare word names a path only if the file exists
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(n))); err == nil {
				add(n, true)
			}
		}
	}
	if pr.Action == "" && len(pr.Actions) > 0 {
		// The most specific action: a command's or an alias's before the tool's.
		pr.Action = pr.Actions[len(pr.Actions)-1]
	}
	return pr
}

// appendNew appends x to xs unless xs holds it already.
func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// toolAction is the action of a host tool: fs.write, shell.exec,
// mcp.<server>.<tool>, or "" for other tools.
func toolAction(tool string) string {
	if server, name, ok := mcpTool(tool); ok {
		return "mcp." + server + "." + name
	}
	return toolActions[strings.ToLower(tool)]
}

// mcpTool splits "mcp__<server>__<tool>".
func mcpTool(tool string) (server, name string, ok bool) {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return "", "", false
	}
	server, name, ok = strings.Cut(rest, "__")
	return server, name, ok && server != "" && name != ""
}

// ReadRequest reads a permission request as a hand-written input gives it
// (`loopx policy eval`): in the caller's form {tool, action, paths,
// command} (returned as a Call, for the caller to normalise with its
// project's facts), or already normalised (an input.PermissionRequest with
// actions and commands). Unknown fields are refused. Errors: errs.Usage
// bad_input when it is neither.
func ReadRequest(raw json.RawMessage) (*Call, *input.PermissionRequest, error) {
	var caller struct {
		Tool    string   `json:"tool"`
		Action  string   `json:"action"`
		Paths   []string `json:"paths"`
		Command string   `json:"command"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&caller); err == nil {
		return &Call{Tool: caller.Tool, Action: caller.Action, Paths: caller.Paths, Command: caller.Command}, nil, nil
	}
	var pr input.PermissionRequest
	dec = json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pr); err != nil {
		return nil, nil, errs.Usagef("bad_input", "input.permission is neither {tool, action, paths, command} nor a normalised request: %v", err)
	}
	return nil, &pr, nil
}
