package shell

import "strings"

// This file models the programs that run a command they are handed or
// build: xargs, watch, parallel, script, su, sg, systemd-run, crontab,
// tmux and screen, chroot. What they run is read where loopx can read it;
// the line is opaque either way (it runs once per input, later, or as
// someone else).

// launchers reads what a launcher runs and marks it opaque; false when
// name is none.
func (r *reader) launchers(name string, args []word, here dirs, stdin stdinKind) bool {
	_, writeAll := r.writer(name, here)
	switch name {
	case "xargs":
		r.opaquef("xargs runs a command with arguments read from its input")
		_, rest := scanOpts(args, "adEILnPs", "arg-file delimiter eof max-lines max-args max-procs max-chars process-slot-var", false)
		if len(rest) > 0 {
			r.simple(rest, here, stdinNone, nil)
		}
	case "watch":
		r.opaquef("watch runs a command repeatedly")
		_, rest := scanOpts(args, "nqd", "interval equexit", false)
		if len(rest) > 0 {
			r.readScript(joinWords(rest), here, "watch")
		}
	case "parallel", "sem":
		r.opaquef("%s runs commands built from its input or arguments", name)
		_, rest := scanOpts(args, "jNnSIdEaL", "jobs sshlogin delimiter arg-file", false)
		var cmd []word
		for _, w := range rest {
			if strings.HasPrefix(w.s, ":::") {
				break
			}
			cmd = append(cmd, w)
		}
		if len(cmd) > 0 {
			r.readScript(joinWords(cmd), here, name)
		}
	case "script":
		opts, ops := scanOpts(args, "cOIBTEm", "command log-out log-in log-io log-timing echo logging-format", true)
		for _, c := range optVals(opts, "-c", "--command") {
			r.opaquef("script -c runs a command in a terminal")
			r.readScript(c, here, "script -c")
		}
		writeAll(ops)
		writeAll(optVals(opts, "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing"))
	case "su", "runuser":
		opts, rest := scanOpts(args, "csgGuw", "command shell group supp-group user whitelist-environment session-command", true)
		cs := optVals(opts, "-c", "--command", "--session-command")
		for _, c := range cs {
			r.opaquef("%s -c runs a command as another user", name)
			r.readScript(c, here, name+" -c")
		}
		if len(cs) == 0 {
			if name == "runuser" && len(rest) > 0 && hasOpt(opts, "-u", "--user") {
				r.opaquef("runuser runs a command as another user")
				r.simple(rest, here, stdinNone, nil)
			} else {
				r.opaquef("%s opens a shell that reads commands loopx cannot see", name)
			}
		}
	case "sg":
		r.opaquef("sg runs a command as another group")
		_, rest := scanOpts(args, "c", "", true)
		if len(rest) > 1 {
			r.readScript(joinWords(rest[1:]), here, "sg")
		}
	case "systemd-run":
		r.opaquef("systemd-run runs a command as a service")
		_, rest := scanOpts(args, "pEuMH", "unit property setenv description slice uid gid working-directory on-calendar on-active machine host", false)
		if len(rest) > 0 {
			r.simple(rest, here, stdinNone, nil)
		}
	case "crontab":
		if opts, ops := scanOpts(args, "u", "", true); len(ops) > 0 || hasOpt(opts, "-e") || stdinFrom(stdin) != "" {
			r.opaquef("crontab schedules commands to run later")
		}
	case "tmux", "screen":
		for _, a := range args {
			switch a.s {
			case "send-keys", "send", "new-session", "new", "new-window", "neww", "split-window", "splitw", "run-shell", "run",
				"respawn-pane", "respawnp", "respawn-window", "respawnw", "pipe-pane", "pipep", "display-popup", "popup", "if-shell", "if",
				"-X", "-dm", "-dmS", "-Dm", "-DmS":
				r.opaquef("%s runs commands in a terminal (%s)", name, a.s)
			}
		}
	case "chroot":
		r.opaquef("chroot runs a command under another root directory")
		if _, rest := scanOpts(args, "", "userspec groups", false); len(rest) > 1 {
			r.simple(rest[1:], here, stdinNone, nil)
		}
	default:
		return false
	}
	return true
}
