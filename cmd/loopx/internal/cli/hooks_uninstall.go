package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/hosts/registry"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
	"github.com/loopx-dev/loopx/internal/frontend/hook"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/spf13/cobra"
)

// hooksUninstallOptions are `loopx hooks uninstall`'s flags.
type hooksUninstallOptions struct {
	host, settings string
}

// validate checks the flags alone (no project opened): usage errors exit 2.
func (o *hooksUninstallOptions) validate() error {
	return hook.CheckUninstall(hook.UninstallOptions{Host: o.host, Settings: o.settings})
}

// runHooksUninstall removes loopx's entries (hook.Uninstall) once the
// built-in repair rule says a human runs this, and prints what went.
func (a *app) runHooksUninstall(ctx context.Context, o *hooksUninstallOptions) error {
	// A relative --settings names a file from the caller's working
	// directory, not a server's.
	o.settings = a.abs(o.settings)
	e, err := a.engine()
	if err != nil {
		return err
	}
	// Removing loopx's hooks takes governance away, which only widens what
	// an agent may do: a human's call, decided by the
	// built-in channel rule (data.loopx.repair.decision), refused and audited
	// for an agent.
	subject := o.settings
	if subject == "" {
		if host, ok := registry.Lookup(o.host); ok {
			subject = host.SettingsFile()
		}
	}
	// The channel is decided before anything is read (an agent's attempt
	// is refused and audited even when nothing would go); a human at a
	// terminal then reads which entries go and types "uninstall".
	repair := gateanswer.Repair{Rule: "uninstall_hooks", Command: "hooks uninstall", Kind: "hooks.uninstall_refused", Subject: subject, Nothing: true}
	if err := gateanswer.ConfirmRepair(ctx, e, a.caller(), a.terminal(), repair); err != nil {
		return err
	}
	res, err := hook.Uninstall(e, hook.UninstallOptions{Host: o.host, Settings: o.settings, Confirm: func(r hook.UninstallResult) error {
		repair.Nothing, repair.Prompt = false, uninstallPrompt(r)
		return gateanswer.ConfirmRepair(ctx, e, a.caller(), a.terminal(), repair)
	}})
	if err != nil {
		return err
	}
	return a.print(res, func(w io.Writer) {
		for _, r := range res.Removed {
			if r.Matcher != "" {
				fmt.Fprintf(w, "removed %s (%s): %s\n", r.Event, r.Matcher, r.Command)
			} else {
				fmt.Fprintf(w, "removed %s: %s\n", r.Event, r.Command)
			}
		}
		if sb := res.Sandbox; sb != nil {
			fmt.Fprintf(w, "took out of %s the sandbox settings hooks install --sandbox set (the user's own stay)\n", sb.File)
		}
		if res.Wrote {
			fmt.Fprintf(w, "wrote %s (everything else kept); to put them back: %s\n", res.Settings, res.Reinstall)
		} else {
			fmt.Fprintf(w, "no loopx hook in %s: nothing removed\n", res.Settings)
		}
	})
}

// uninstallPrompt is what `loopx hooks uninstall` shows before the person
// types "uninstall": every entry that goes, the sandbox settings taken out,
// and what the host no longer does without them.
func uninstallPrompt(r hook.UninstallResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "loopx hooks uninstall: remove loopx's hooks from %s\n", r.Settings)
	for _, e := range r.Removed {
		if e.Matcher != "" {
			fmt.Fprintf(&b, "  %s (%s): %s\n", e.Event, e.Matcher, e.Command)
		} else {
			fmt.Fprintf(&b, "  %s: %s\n", e.Event, e.Command)
		}
	}
	if r.Sandbox != nil && r.Sandbox.Wrote {
		fmt.Fprintf(&b, "and the sandbox settings hooks install --sandbox set in %s\n", r.Sandbox.File)
	}
	b.WriteString("without them the host no longer asks loopx: no tool call is checked against the rules, no open gate or used-up quota stops the agent at its hook\n")
	b.WriteString(`type "uninstall" to confirm: `)
	return inert.Text(b.String())
}

func (a *app) hooksUninstallCmd() *cobra.Command {
	o := &hooksUninstallOptions{}
	c := &cobra.Command{
		Use:   "uninstall --host claude-code|codex [--settings FILE]",
		Short: "Remove loopx's hooks from a host's settings (human only)",
		Long: `Remove every hook entry that runs ` + "`loopx hook …`" + ` from a host's settings,
under every event, and nothing else: the user's own hooks (also those in a
group beside loopx's), other events and other keys stay, in their order. A
group, an event or "hooks" that only loopx's entries filled goes with them.
The file is rewritten only when something was removed; uninstalling twice
changes nothing. The install record in .loopx/hooks.json goes too, so
` + "`loopx doctor`" + ` no longer reports the entries missing. It prints each entry it
removed and the command that puts them back (loopx hooks install).

  --host claude-code   .claude/settings.json in the project root
  --host codex         .codex/hooks.json

Human only: without its hooks loopx no longer governs the host's tool calls,
so an agent must not remove them. Refused (exit 1, audited as
hooks.uninstall_refused) inside an agent round (LOOPX_ROUND or LOOPX_AGENT
set) and from a process that descends from an agent (a loopx run runner,
an agent host). A human reads on the controlling terminal every entry that
goes and confirms by typing "uninstall" there (read from /dev/tty, not
stdin: no terminal, or anything else typed, removes nothing, exit 1,
audited); there is no flag that skips it, so it does not run from a
script. With nothing to remove nobody is asked. A removal is audited as
hooks.uninstalled.

Exit codes: 0 removed (or nothing to remove); 1 refused (an agent, no
terminal, not confirmed); 2 usage error, unknown host, or settings that are
not a JSON object.`,
		Example: `  loopx hooks uninstall --host claude-code   # lists what goes; type uninstall to confirm
  loopx hooks uninstall --host codex --json
  loopx hooks uninstall --host claude-code --settings .claude/settings.local.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runHooksUninstall(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.host, "host", "", "claude-code or codex (required)")
	f.StringVar(&o.settings, "settings", "", "the settings file (default .claude/settings.json or .codex/hooks.json in the project root)")
	return c
}
