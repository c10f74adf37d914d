package cli

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/internal/frontend/hook"
	"github.com/spf13/cobra"
)

// hooksInstallOptions are `loopx hooks install`'s flags.
type hooksInstallOptions struct {
	host, settings, goal, agent string
	sandbox                     bool
	// hooks are the entries validate computed.
	hooks []hosts.Hook
}

// validate checks the flags alone (no project opened): usage errors exit 2.
func (o *hooksInstallOptions) validate() error {
	hooks, err := hook.CheckInstall(o.install())
	o.hooks = hooks
	return err
}

func (o *hooksInstallOptions) install() hook.InstallOptions {
	return hook.InstallOptions{Host: o.host, Settings: o.settings, Goal: o.goal, Agent: o.agent, Sandbox: o.sandbox}
}

// runHooksInstall installs the entries (hook.Install) and prints what
// changed and how to enable them.
func (a *app) runHooksInstall(_ context.Context, o *hooksInstallOptions) error {
	// A relative --settings names a file from the caller's working
	// directory, not a server's.
	o.settings = a.abs(o.settings)
	if _, err := a.root(); err != nil {
		return err
	}
	e, err := a.engine()
	if err != nil {
		return err
	}
	in := o.install()
	in.AgentAncestor = a.agentAncestor
	res, err := hook.Install(e, in, o.hooks)
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("loopx"); err != nil {
		fmt.Fprintln(a.stderr, "warning: loopx is not on PATH: the host cannot run the hook, and a hook that cannot run lets tool calls proceed (go install ./cmd/loopx)")
	}
	return a.print(res, func(w io.Writer) {
		for _, c := range res.Changes {
			fmt.Fprintf(w, "%s: %s\n", c.Event, c.Status)
		}
		verb := "unchanged"
		if res.Wrote {
			verb = "wrote"
		}
		fmt.Fprintf(w, "%s %s (%s)\n", verb, res.Settings, res.Commands[0])
		if sb := res.Sandbox; sb != nil {
			verb := "unchanged"
			if sb.Wrote {
				verb = "wrote"
			}
			fmt.Fprintf(w, "sandbox: %s %s (never loosening a setting already there)\n", verb, sb.File)
			for _, e := range sb.Edits {
				switch {
				case e.Kept:
					fmt.Fprintf(w, "  %s: %s (already so: kept)\n", e.Key, e.Set)
				case len(e.Items) > 0:
					fmt.Fprintf(w, "  %s: added %d entr%s\n", e.Key, len(e.Items), map[bool]string{true: "y", false: "ies"}[len(e.Items) == 1])
				case e.Set != nil && e.Old != nil:
					fmt.Fprintf(w, "  %s: %s (was %s)\n", e.Key, e.Set, strings.TrimSpace(string(e.Old)))
				case e.Set != nil:
					fmt.Fprintf(w, "  %s: %s\n", e.Key, e.Set)
				}
			}
		}
		if len(res.Granted) > 0 {
			fmt.Fprintf(w, "granted loopx's agent-channel commands (round start and finish, decide, prompt, evidence add, todo claim/renew/release, gate raise) to goal %s in %s, so the hook answers allow for them instead of the host asking you each time; a grant loosens the rules: it takes effect once a human runs `loopx adopt` (remove its line to be asked for each)\n",
				strings.Join(res.Granted, ", "), res.GrantFile)
		}
		for _, n := range res.GrantNotes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		fmt.Fprintln(w, "to enable them:")
		for _, s := range res.Enable {
			fmt.Fprintf(w, "  - %s\n", s)
		}
		if res.SandboxNote != "" {
			fmt.Fprintf(w, "note: %s\n", res.SandboxNote)
		}
	})
}

func (a *app) hooksCmd() *cobra.Command {
	c := &cobra.Command{Use: "hooks", Short: "Install or remove loopx's hooks in an agent host's settings"}
	o := &hooksInstallOptions{}
	in := &cobra.Command{
		Use:   "install --host claude-code|codex [--settings FILE] [--goal G] [--agent A] [--sandbox]",
		Short: "Merge loopx's PreToolUse, Stop and SessionStart hooks into a host's settings",
		Long: `Merge three hook entries into a host's settings, each running
` + "`loopx hook HOST --event EVENT [--goal G] [--agent A]`" + ` with a 10 s timeout:
PreToolUse (on the tools that write or run — Claude Code: Bash, Edit, Write,
MultiEdit, NotebookEdit; Codex: Bash, shell, apply_patch, Edit, Write — and
every MCP tool, mcp__.*; no process starts for Read, Grep or Glob), Stop
and SessionStart. Other keys and hooks are kept, in their order; a loopx
hook already present is updated in place (moved out of a group whose
matcher was changed), so installing twice adds nothing.

  --host claude-code   .claude/settings.json in the project root
  --host codex         .codex/hooks.json (Claude-compatible command hooks)

The agent (--agent, else "claude" / "codex") must be declared in the spec
with that host (and be on --goal when the goal lists its agents): otherwise
its hook would deny every call, so install refuses and says what to add.
Install records the entries in .loopx/hooks.json; ` + "`loopx doctor`" + ` reports
them when they go missing or change. It then prints the host's own enabling
steps (Codex runs project hooks only with its hooks feature on, the project
trusted, and each hook reviewed in /hooks).

The hook runs ` + "`loopx`" + ` from PATH: a hook the host cannot run lets tool calls
proceed, so install the binary (go install ./cmd/loopx) where the host finds it.

--sandbox also writes the host's own sandbox and permission settings, so
that a host run without ` + "`loopx run`" + ` is confined by the host itself, never
loosening a value already there (a stricter one stays, extra entries stay):

  claude-code   in the same settings file: sandbox.enabled true,
                autoAllowBashIfSandboxed false, allowUnsandboxedCommands
                false, failIfUnavailable true; loopx's protected paths in
                sandbox.filesystem.denyWrite, its anchor directory in
                denyRead; permissions.deny for Edit, Write, MultiEdit and
                NotebookEdit on the protected paths
  codex         .codex/config.toml: sandbox_mode = "workspace-write"
                (read-only, stricter, stays)

What it set is recorded in .loopx/hooks.json: ` + "`hooks uninstall`" + ` takes out
exactly that, and ` + "`loopx doctor`" + ` reports a setting changed or removed since
and a program the host's sandbox needs that is missing (Linux: bwrap, socat
for Claude Code). With the host's sandbox on, the agent's own loopx
commands that open the state work only under ` + "`loopx run`" + ` (its broker serves
them); without --sandbox, install says so.

Changing loopx entries already installed (other --goal or --agent, an
edited matcher put back) is refused (exit 1) when the command descends from
an agent host or a loopx round: an agent must not re-point its own hook.

Exit codes: 0 installed (or already installed); 1 a change of installed
entries from an agent, refused; 2 usage error, unknown host, goal or agent,
or settings that are not a JSON object.`,
		Example: `  loopx hooks install --host claude-code --goal g1 --agent claude
  loopx hooks install --host codex --goal g1 --agent codex
  loopx hooks install --host claude-code --settings .claude/settings.local.json
  loopx hooks install --host claude-code --goal g1 --sandbox`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runHooksInstall(cmd.Context(), o)
		},
	}
	f := in.Flags()
	f.StringVar(&o.host, "host", "", "claude-code or codex (required)")
	f.StringVar(&o.settings, "settings", "", "the settings file (default .claude/settings.json or .codex/hooks.json in the project root)")
	f.StringVar(&o.goal, "goal", "", "the goal the hook decides for (default: $LOOPX_GOAL at hook time, else the only goal)")
	f.StringVar(&o.agent, "agent", "", `the agent id the hook decides for (default: $LOOPX_AGENT at hook time, else the agent the processes above the hook run as, else "claude"/"codex"); must be declared in the spec`)
	f.BoolVar(&o.sandbox, "sandbox", false, "also write the host's own sandbox and permission settings (never loosening one already there)")
	c.AddCommand(in, a.hooksUninstallCmd()) // hooks_uninstall.go
	return c
}
