package hook

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/internal/errs"
)

// UninstallOptions say whose entries to remove from which file.
type UninstallOptions struct {
	// Host is the host's name, one whose hooks loopx answers
	// (registry.HookHost: claude-code or codex).
	Host string
	// Settings is the settings file ("" = the host's SettingsFile under
	// the project root).
	Settings string
	// Confirm, when set, is called with what would go once it is known
	// and before anything is written (never when nothing would change);
	// an error from it writes nothing and is returned.
	Confirm func(UninstallResult) error
}

// UninstallResult is `loopx hooks uninstall --json`'s document.
type UninstallResult struct {
	Host     string `json:"host"`
	Settings string `json:"settings"`
	// Removed are the entries taken out, in the file's order (none when
	// there were none: uninstalling twice changes nothing).
	Removed []hosts.Removed `json:"removed"`
	// Wrote is true when the settings file was rewritten.
	Wrote bool `json:"wrote"`
	// Unrecorded is true when .loopx/hooks.json recorded an install in
	// this file (`loopx doctor` no longer expects the entries).
	Unrecorded bool `json:"unrecorded"`
	// Reinstall is the command that puts the entries back.
	Reinstall string `json:"reinstall"`
	// Sandbox is what was taken out of the host's own sandbox settings
	// that `hooks install --sandbox` wrote (absent when it wrote none).
	Sandbox *SandboxResult `json:"sandbox,omitempty"`
}

// CheckUninstall checks the options alone, before a project is opened.
// Errors (errs.Usage): no or an unknown host.
func CheckUninstall(o UninstallOptions) error {
	_, err := checkHost("uninstall", o.Host)
	return err
}

// Uninstall removes every `loopx hook` entry from the host's settings file
// in e's project (hosts.UnmergeSettings: the user's other keys and hooks
// stay), rewrites the file in place only when something was removed, drops the install record (engine.UnrecordHooks) and audits the
// removal (hooks.uninstalled). A missing file removes nothing. The caller
// checks first that a human runs it: removing loopx's hooks takes away
// governance, which no agent may do. Errors: errs.Usage (settings that are
// not a JSON object); the file system's; the store's.
func Uninstall(e *engine.Engine, o UninstallOptions) (UninstallResult, error) {
	host, err := checkHost("uninstall", o.Host)
	if err != nil {
		return UninstallResult{Host: o.Host, Settings: o.Settings, Removed: []hosts.Removed{}}, err
	}
	path := o.Settings
	if path == "" {
		path = filepath.Join(e.Root(), filepath.FromSlash(host.SettingsFile()))
	}
	res := UninstallResult{Host: o.Host, Settings: path, Removed: []hosts.Removed{}, Reinstall: "loopx hooks install --host " + o.Host}
	old, err := readSettings(e, e.Root(), o.Settings, path)
	if err != nil {
		return res, err
	}
	out, removed, err := host.UnmergeSettings(old)
	if err != nil {
		return res, errs.Usagef("usage", "%s: %v", path, err)
	}
	rec, sbPath, _, err := e.HooksRecord(path)
	if err != nil {
		return res, err
	}
	var sbOld, sbOut []byte
	if sbPath != "" && len(rec.Sandbox) > 0 {
		// Exactly what install --sandbox added goes; what the user set
		// or changed since stays.
		res.Sandbox = &SandboxResult{File: sbPath, Edits: rec.Sandbox}
		sbNamed := ""
		if sbPath == path {
			sbOld, sbNamed = out, o.Settings
		} else if sbOld, err = readSettings(e, e.Root(), sbNamed, sbPath); err != nil {
			return res, err
		}
		if sbOut, err = host.UnmergeSandbox(sbOld, rec.Sandbox); err != nil {
			return res, errs.Usagef("usage", "%s: %v", sbPath, err)
		}
		if sbPath == path {
			out = sbOut
		}
		res.Sandbox.Wrote = !bytes.Equal(sbOld, sbOut)
	}
	if len(removed) > 0 {
		res.Removed = removed
		res.Reinstall += hookArgs(removed[0].Command, o.Host)
	}
	// Nothing else changed since the first install: the user's own bytes
	// come back (inline arrays, their indentation), not loopx's layout.
	out = hosts.Restore(out, rec.Original)
	if o.Confirm != nil && (len(removed) > 0 || !bytes.Equal(old, out) || res.Sandbox != nil && res.Sandbox.Wrote) {
		if err := o.Confirm(res); err != nil {
			return res, err
		}
	}
	if res.Sandbox != nil && sbPath != path && res.Sandbox.Wrote {
		if err := writeSettings(e, e.Root(), "", sbPath, sbOut); err != nil {
			return res, err
		}
	}
	if !bytes.Equal(old, out) {
		// Written in place as install writes it: the file keeps its mode;
		// a link there was refused when it was read.
		if err := writeSettings(e, e.Root(), o.Settings, path, out); err != nil {
			return res, err
		}
		res.Wrote = true
	}
	if o.Settings != "" {
		res.Reinstall += " --settings " + shellWord(o.Settings)
	}
	if res.Sandbox != nil {
		res.Reinstall += " --sandbox"
	}
	if res.Unrecorded, err = e.UnrecordHooks(path); err != nil {
		return res, err
	}
	if len(removed) > 0 {
		if err := e.AuditHooksUninstalled(o.Host, path, len(removed)); err != nil {
			return res, err
		}
	}
	return res, nil
}

// hookArgs is what follows "loopx hook HOST --event EVENT" in command
// (" --goal g1 --agent claude", already quoted as install wrote it), ""
// when command is not of that form.
func hookArgs(command, host string) string {
	f := strings.Fields(command)
	if len(f) < 5 || f[2] != host || f[3] != "--event" {
		return ""
	}
	if len(f) == 5 {
		return ""
	}
	return " " + strings.Join(f[5:], " ")
}
