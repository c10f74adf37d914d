package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// hooksInstallOptions are `loopx hooks install`'s flags.
type hooksInstallOptions struct {
	host, settings, goal, agent string
}

// hooksInstallResult is `loopx hooks install --json`'s document.
type hooksInstallResult struct {
	Host     string         `json:"host"`
	Settings string         `json:"settings"`
	Agent    string         `json:"agent"`
	Commands []string       `json:"commands"`
	Changes  []hosts.Change `json:"changes"`
	Wrote    bool           `json:"wrote"`
	// Enable lists what the user still has to do in the host for the hooks
	// to run.
	Enable []string `json:"enable"`
}

func (a *app) hooksCmd() *cobra.Command {
	c := &cobra.Command{Use: "hooks", Short: "Install loopx's hooks into an agent host's settings"}
	var o hooksInstallOptions
	in := &cobra.Command{
		Use:   "install --host claude-code|codex [--settings FILE] [--goal G] [--agent A]",
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

Changing loopx entries already installed (other --goal or --agent, an
edited matcher put back) is refused (exit 1) when the command descends from
an agent host or a loopx round: an agent must not re-point its own hook.

Exit codes: 0 installed (or already installed); 1 a change of installed
entries from an agent, refused; 2 usage error, unknown host, goal or agent,
or settings that are not a JSON object.`,
		Example: `  loopx hooks install --host claude-code --goal g1 --agent claude
  loopx hooks install --host codex --goal g1 --agent codex
  loopx hooks install --host claude-code --settings .claude/settings.local.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.hooksInstall(o)
		},
	}
	f := in.Flags()
	f.StringVar(&o.host, "host", "", "claude-code or codex (required)")
	f.StringVar(&o.settings, "settings", "", "the settings file (default .claude/settings.json or .codex/hooks.json in the project root)")
	f.StringVar(&o.goal, "goal", "", "the goal the hook decides for (default: $LOOPX_GOAL at hook time, else the only goal)")
	f.StringVar(&o.agent, "agent", "", `the agent id the hook decides for (default: $LOOPX_AGENT at hook time, else the agent the processes above the hook run as, else "claude"/"codex"); must be declared in the spec`)
	c.AddCommand(in)
	return c
}

func (a *app) hooksInstall(o hooksInstallOptions) error {
	if o.host == "" {
		return usagef("hooks install needs --host claude-code or --host codex")
	}
	if !hosts.KnownHost(o.host) {
		return usagef("unknown host %q (want claude-code or codex)", o.host)
	}
	var args []string
	if o.goal != "" {
		args = append(args, "--goal", shellWord(o.goal))
	}
	if o.agent != "" {
		args = append(args, "--agent", shellWord(o.agent))
	}
	hooks, err := hosts.Hooks(o.host, strings.Join(args, " "))
	if err != nil {
		return usagef("%v", err)
	}
	root, err := a.root()
	if err != nil {
		return err
	}
	e, err := a.engine()
	if err != nil {
		return err
	}
	agent := o.agent
	if agent == "" {
		agent = map[string]string{hosts.ClaudeCode: "claude", hosts.Codex: "codex"}[o.host]
	}
	if err := e.RequireHookAgent(o.host, o.goal, agent); err != nil {
		return err
	}
	path := o.settings
	if path == "" {
		path = map[string]string{hosts.ClaudeCode: filepath.Join(".claude", "settings.json"), hosts.Codex: filepath.Join(".codex", "hooks.json")}[o.host]
		path = filepath.Join(root, path)
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	out, changes, err := hosts.MergeSettings(old, hooks)
	if err != nil {
		return usagef("%s: %v", path, err)
	}
	for _, c := range changes {
		if c.Status != "updated" {
			continue
		}
		// Changing loopx's existing entries (another goal or agent, a
		// restored matcher) is a human's call: an agent could re-point
		// its own hook at an agent with more grants.
		if who := a.agentAncestor(); who != "" {
			return errs.New(errs.No, "hooks_change_refused", fmt.Sprintf(
				"%s: this would change loopx's installed %s hook, and this command descends from an agent (%s): run it in your own terminal", path, c.Event, who))
		}
	}
	res := hooksInstallResult{Host: o.host, Settings: path, Agent: agent, Changes: changes, Enable: enableSteps(o.host, root)}
	for _, h := range hooks {
		res.Commands = append(res.Commands, h.Command)
	}
	if !bytes.Equal(old, out) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return err
		}
		res.Wrote = true
	}
	if err := e.RecordHooks(o.host, path, hooks); err != nil {
		return err
	}
	if _, err := exec.LookPath("loopx"); err != nil {
		fmt.Fprintln(a.stderr, "warning: loopx is not on PATH: the host cannot run the hook, and a hook that cannot run lets tool calls proceed (go install ./cmd/loopx)")
	}
	return a.print(res, func(w io.Writer) {
		for _, c := range changes {
			fmt.Fprintf(w, "%s: %s\n", c.Event, c.Status)
		}
		verb := "unchanged"
		if res.Wrote {
			verb = "wrote"
		}
		fmt.Fprintf(w, "%s %s (%s)\n", verb, path, hooks[0].Command)
		fmt.Fprintln(w, "to enable them:")
		for _, s := range res.Enable {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	})
}

// enableSteps are what a user still does in host for installed project
// hooks to run.
func enableSteps(host, root string) []string {
	if host == hosts.Codex {
		return []string{
			"turn Codex's hooks feature on: `[features]` `hooks = true` in ~/.codex/config.toml (Codex before 0.130: `codex_hooks = true`), or start it with `codex --enable hooks`",
			fmt.Sprintf("trust this project, or Codex ignores its .codex/: `[projects.%q]` `trust_level = \"trusted\"` in ~/.codex/config.toml (or accept Codex's trust prompt here)", root),
			"review and trust loopx's hooks in Codex's /hooks menu (Codex pins each hook by hash: trust them again after an install that changed them)",
		}
	}
	return []string{
		"start a new Claude Code session in this project (Claude Code reads hooks when a session starts; a running session asks to review changed hooks in /hooks)",
	}
}

// shellWord quotes s for a settings command line when it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
