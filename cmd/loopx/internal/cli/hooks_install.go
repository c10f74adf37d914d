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
	Command  string         `json:"command"`
	Changes  []hosts.Change `json:"changes"`
	Wrote    bool           `json:"wrote"`
}

func (a *app) hooksCmd() *cobra.Command {
	c := &cobra.Command{Use: "hooks", Short: "Install loopx's hooks into an agent host's settings"}
	var o hooksInstallOptions
	in := &cobra.Command{
		Use:   "install --host claude-code|codex [--settings FILE] [--goal G] [--agent A]",
		Short: "Merge loopx's PreToolUse, Stop and SessionStart hooks into a host's settings",
		Long: `Merge three hook entries running ` + "`loopx hook HOST [--goal G] [--agent A]`" + ` into a
host's settings: PreToolUse (on Bash, Edit, Write, MultiEdit, NotebookEdit
and MCP tools), Stop and SessionStart, each with a 10 s timeout. Other keys
and hooks are kept, in their order; a loopx hook already present is left
in place (its arguments updated), so installing twice adds nothing.

  --host claude-code   .claude/settings.json in the project root
  --host codex         .codex/hooks.json (Claude-compatible command hooks)

The hook runs ` + "`loopx`" + ` from PATH: a hook the host cannot run lets tool calls
proceed, so install the binary (go install ./cmd/loopx) where the host finds it.

Exit codes: 0 installed (or already installed); 2 usage error, unknown
host or goal, or settings that are not a JSON object.`,
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
	f.StringVar(&o.agent, "agent", "", `the agent id the hook decides for (default: $LOOPX_AGENT at hook time, else "claude"/"codex")`)
	c.AddCommand(in)
	return c
}

func (a *app) hooksInstall(o hooksInstallOptions) error {
	if o.host == "" {
		return usagef("hooks install needs --host claude-code or --host codex")
	}
	command := "loopx hook " + o.host
	if o.goal != "" {
		command += " --goal " + shellWord(o.goal)
	}
	if o.agent != "" {
		command += " --agent " + shellWord(o.agent)
	}
	hooks, err := hosts.Hooks(o.host, command)
	if err != nil {
		return usagef("%v", err)
	}
	root, err := a.root()
	if err != nil {
		return err
	}
	if o.goal != "" {
		e, err := a.engine()
		if err != nil {
			return err
		}
		if err := e.RequireGoal(o.goal); err != nil {
			return err
		}
	}
	path := o.settings
	if path == "" {
		path = map[string]string{"claude-code": filepath.Join(".claude", "settings.json"), "codex": filepath.Join(".codex", "hooks.json")}[o.host]
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
	res := hooksInstallResult{Host: o.host, Settings: path, Command: command, Changes: changes}
	if !bytes.Equal(old, out) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return err
		}
		res.Wrote = true
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
		fmt.Fprintf(w, "%s %s (%s)\n", verb, path, command)
	})
}

// shellWord quotes s for a settings command line when it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
