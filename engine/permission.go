package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine/pathfacts"
	"github.com/loopx-dev/loopx/engine/shell"
	"github.com/loopx-dev/loopx/kernel"
)

// PermissionInput is a permission question as a caller (the CLI, a host
// hook) asks it: which tool, which action, which files it writes, which
// shell command it runs. Every field may be empty, but not all of them.
type PermissionInput struct {
	// Tool is the host's tool name ("Bash", "Edit", "Write", "MultiEdit",
	// "NotebookEdit", "mcp__github__merge_pull_request", …); "" = none.
	Tool string
	// Action is an explicit action ("git.push"); "" derives it (see Permission).
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
}

// toolActions are the actions of host tools that write files.
var toolActions = map[string]string{"edit": "fs.write", "write": "fs.write", "multiedit": "fs.write",
	"notebookedit": "fs.write", "apply_patch": "fs.write", "bash": "shell.exec", "shell": "shell.exec"}

// mcpAliases maps MCP tools that do what a loopx action names to that
// action, so that a gate guarding git.merge also guards the GitHub MCP
// server's merge tool.
var mcpAliases = map[string]string{"merge_pull_request": "git.merge", "push_files": "git.push",
	"create_or_update_file": "git.push", "delete_file": "git.push"}

// Permission decides the permission query (data.loopx.permission.decision,
// design §6) for agent on goal: "allow" (a goals.<g>.scope.grant covers the
// call), "defer" (no grant, no objection: the host decides), "ask" or
// "deny", with reasons, logged like every decision. Before the policy runs it normalises req:
//
//   - each path is made relative to the project root (filepath.Clean), with
//     ".." escapes and absolute paths elsewhere flagged outside_project, and
//     symlinks resolved (EvalSymlinks on the longest existing prefix) into
//     resolved / symlink_outside;
//   - the command is read (engine/shell) into argvs and commands (sh -c, eval,
//     $(…), find -exec, xargs… read recursively; env, sudo, nice…
//     removed), the files it writes (following cd), and opaque reasons;
//     an opaque line's path-like tokens become paths with mentioned set;
//   - actions are derived: the explicit Action, the tool's ("fs.write" for
//     Edit/Write/MultiEdit/NotebookEdit/apply_patch, "shell.exec" for Bash,
//     "mcp.<server>.<tool>" for mcp__<server>__<tool>, plus a known alias
//     such as git.merge for a GitHub merge tool), and the commands' (git
//     push → git.push, git merge and gh pr merge → git.merge, git commit →
//     git.commit, git tag → git.tag, npm publish → npm.publish, loopx gate
//     answer → loopx.gate.answer).
//
// The returned error is Decide's: non-nil only for an unusable store or
// decision log, and the decision is then a valid deny.
func (e *Engine) Permission(ctx context.Context, goal, agent string, req PermissionInput) (Decision, error) {
	pr := e.permissionRequest(req)
	d, err := e.Decide(ctx, Request{Query: "permission", Goal: goal, Agent: agent, Permission: pr})
	if (d.Verdict == "deny" || (d.Verdict == "ask" && req.AskBlocks)) && err == nil && e.goalSpec(goal) != nil {
		e.auditDenial(goal, agent, pr, d)
	}
	return d, err
}

// auditDenial records a denied tool call (a deny, or an ask the host turns
// into a block) as a permission.denied event, so that an agent whose host
// ignores the answer still shows in `loopx events` (the decision log has
// the full decision). It never waits for the state lock: it appends one
// line to the denial spool (.loopx/spool/denials.jsonl), which the next
// writer imports in its transaction (spool.go). Allows, defers and asks a
// host can ask are not audited: they are the hot path of every tool call.
// When the spool cannot be written (a read-only or full disk), the event
// is written to the store directly instead, waiting for the lock.
func (e *Engine) auditDenial(goal, agent string, pr *PermissionRequest, d Decision) {
	codes := make([]string, 0, len(d.Reasons))
	for _, r := range d.Reasons {
		codes = append(codes, r.Code)
	}
	what := pr.Command
	if what == "" && len(pr.Paths) > 0 {
		what = pr.Paths[0].Path
	}
	if what == "" {
		what = pr.Tool
	}
	msg := what
	if len(d.Reasons) > 0 {
		msg += ": " + d.Reasons[0].Message
	}
	rec := spoolRecord{Goal: goal, Agent: agent, DecisionID: d.DecisionID, Verdict: d.Verdict,
		Message: msg, Tool: pr.Tool, Action: pr.Action, Codes: codes, At: e.Now()}
	if err := e.spoolDenial(rec); err != nil {
		_ = e.update(func(tx *kernel.Tx) error { return tx.AppendEvent(rec.event()) })
	}
}

// permissionRequest builds input.permission from req.
func (e *Engine) permissionRequest(req PermissionInput) *PermissionRequest {
	dir := req.Dir
	if dir == "" {
		dir = e.root
	}
	pr := &PermissionRequest{Tool: req.Tool, Action: req.Action, Paths: []PathFacts{}, Command: req.Command,
		Commands: []string{}, Actions: []string{}, CommandParsed: true, Argvs: [][]string{}, Opaque: []string{}}
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
	roots := pathfacts.Roots(e.root)
	homes, hasHome := pathfacts.HomeRoots()
	facts := func(p string) PathFacts {
		f := pathfacts.Of(roots, dir, p)
		if hasHome {
			pathfacts.Home(homes, dir, p, &f)
		}
		return f
	}
	for _, p := range req.Paths {
		pr.Paths = append(pr.Paths, facts(p))
	}
	if strings.TrimSpace(req.Command) != "" {
		cl := shell.Read(req.Command)
		pr.Commands = append(pr.Commands, cl.Commands...)
		pr.Argvs = append(pr.Argvs, cl.Argvs...)
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
