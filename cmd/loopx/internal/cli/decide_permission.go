package cli

import (
	"context"
	"io"

	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// permissionOptions are the flags of `loopx decide permission`.
type permissionOptions struct {
	goal, agent, tool, command, action string
	paths                              []string
	explain                            bool
}

// validate checks the flags alone (no project opened): --goal, --agent
// and at least one of --tool, --command, --path, --action.
func (o *permissionOptions) validate() error {
	if o.goal == "" || o.agent == "" {
		return usagef("decide permission needs --goal and --agent")
	}
	if o.tool == "" && o.command == "" && len(o.paths) == 0 && o.action == "" {
		return usagef("decide permission needs at least one of --tool, --command, --path, --action")
	}
	return nil
}

// runPermission decides the permission query, prints the decision and
// exits on it.
func (a *app) runPermission(ctx context.Context, o *permissionOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if err := e.RequireGoal(o.goal); errs.IsKind(err, errs.Usage) {
		return err
	}
	// Who asks (the identity rule): only the agent itself asking makes a
	// denial its audited denied call; anyone else's is a question.
	asker, err := a.actor(ctx, e, "decide permission", o.goal)
	if err != nil {
		return err
	}
	d, derr := e.Permission(ctx, o.goal, o.agent, toolcall.Call{
		Tool: o.tool, Action: o.action, Paths: o.paths, Command: o.command, Question: asker != o.agent})
	if err := a.print(d, func(w io.Writer) { renderDecision(w, d, o.explain) }); err != nil {
		return err
	}
	return a.decisionExit(e, d, derr)
}

func (a *app) decidePermissionCmd() *cobra.Command {
	o := &permissionOptions{}
	c := &cobra.Command{
		Use:   "permission --goal G --agent A [--tool T] [--command CMD] [--path FILE]... [--action A]",
		Short: "May this agent use this tool, write these files, run this command?",
		Long: `Decide the permission query for an agent on a goal, with
reasons. Verdicts:

  allow  a goals.<g>.scope.grant covers the whole call (a host skips its own
         prompt on it): the tool name matches grant.tools, or the command
         line is readable and every simple command in it matches
         grant.commands, and every file written matches grant.paths
  defer  no grant matches and no rule objects: the host's own permission
         flow decides (a hook answers nothing)
  ask    a rule asks a human: scope.commands.ask, a simple command outside
         scope.commands.allow, or a command loopx cannot read (opaque:
         $(…), | sh, python -c, find -exec, xargs…)
  deny   a rule denies: scope.deny, outside scope.write, outside the project,
         scope.commands.deny, an open gate guarding the action, a user
         policy; loopx's own files (loopx/**, .loopx/**) and the hosts' hook
         and tool settings (.claude/settings*.json, .codex/hooks.json,
         .codex/config.toml, .mcp.json); loopx's human-only verbs (gate
         answer, adopt, doctor --accept-store, events --prune-before, hooks
         uninstall, agent register, dashboard) under any command name; an
         opaque command that names a protected path, or any opaque command
         with scope.commands.opaque: "deny"

deny beats ask beats allow and defer; a grant never overrides an objection.
scope.write and scope.commands.allow only restrict, they never grant.

--path is relative to the project root (or absolute) and may repeat; "..",
absolute paths outside the project and symlinks pointing out are denied.
--command is a shell command line: each simple command in it is matched
against the patterns, and git push / git merge / gh pr merge / npm publish /
git commit / git tag map to the actions git.push, git.merge, npm.publish,
git.commit and git.tag that gates guard. --action names an action directly.
Every decision is appended to .loopx/decisions.jsonl.

Exit codes: 0 allow or defer; 1 ask or deny; 2 usage error, unknown goal, or a broken
spec or user policy (the decision is a deny); 3 the state store is unusable
(deny).`,
		Example: `  loopx decide permission --goal g1 --agent claude --tool Bash --command "git push origin main"
  loopx decide permission --goal g1 --agent claude --tool Bash --command "go test ./... && git status"
  loopx decide permission --goal g1 --agent claude --tool Edit --path api/v2/handlers.go --json
  loopx decide permission --goal g1 --agent claude --action git.merge`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runPermission(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.goal, "goal", "", "the goal (required)")
	f.StringVar(&o.agent, "agent", "", "the asking agent (required)")
	f.StringVar(&o.tool, "tool", "", `the host's tool name ("Bash", "Edit", "mcp__github__merge_pull_request")`)
	f.StringVar(&o.command, "command", "", "the shell command line the tool runs")
	f.StringArrayVar(&o.paths, "path", nil, "a file the tool writes, relative to the project root (repeatable)")
	f.StringVar(&o.action, "action", "", `the action ("git.push", "git.merge", "npm.publish", …)`)
	f.BoolVar(&o.explain, "explain", false, "also show the rule and spec field behind each reason, and the revisions")
	return c
}
