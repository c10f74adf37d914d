package shell

import "strings"

// This file models the wrappers the reader sees through (env, sudo, nice,
// timeout, flock, npx, …: they run another program unchanged) and the
// environment variables that change what programs run or where they write.

// execEnv are environment variables that make programs run other code, run
// another program for a name, or read or write another tree.
var execEnv = map[string]bool{"LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "DYLD_FRAMEWORK_PATH": true, "BASH_ENV": true,
	"ENV": true, "PROMPT_COMMAND": true, "PS4": true, "SHELLOPTS": true, "BASHOPTS": true, "PERL5OPT": true,
	"PERL5LIB": true, "NODE_OPTIONS": true, "RUBYOPT": true, "PYTHONSTARTUP": true, "PYTHONHOME": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "LESSOPEN": true, "LESSCLOSE": true,
	"BROWSER": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true, "PATH": true, "CDPATH": true, "HOME": true,
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_PAGER": true,
	"GIT_ASKPASS": true, "GIT_EXEC_PATH": true, "GIT_EXTERNAL_DIFF": true, "GIT_PROXY_COMMAND": true,
	"GIT_CONFIG": true, "GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_TEMPLATE_DIR": true,
	"GOFLAGS": true, "GOENV": true, "MAKEFLAGS": true, "MFLAGS": true, "RUSTC_WRAPPER": true, "RUSTC": true,
	"CARGO_BUILD_RUSTC_WRAPPER": true, "CC": true, "CXX": true, "LD": true, "PYTHONPATH": true, "NODE_PATH": true,
	"RUBYLIB": true, "npm_config_script_shell": true, "NPM_CONFIG_SCRIPT_SHELL": true, "TAR_OPTIONS": true,
	"RSYNC_RSH": true, "CURL_HOME": true, "WGETRC": true}

// envName marks an assignment of an environment variable in execEnv opaque.
func (r *reader) envName(name string) {
	if execEnv[name] || strings.HasPrefix(name, "GIT_CONFIG_") || strings.HasPrefix(name, "BASH_FUNC_") {
		r.opaquef("sets %s, which changes what programs run or where they write", name)
	}
}

// unwrap strips what does not change which program runs: leading NAME=value
// words and wrappers (env, sudo, doas, command, builtin, exec, nohup, time,
// nice, timeout, stdbuf, ionice, setsid, chrt, taskset, strace, flock, npx,
// unbuffer, busybox, …) with their options. It returns the command left
// (none when only wrappers) and the directories it runs in (env -C and
// sudo -D change them).
func (r *reader) unwrap(ws []word, in dirs) ([]word, dirs) {
	for len(ws) > 0 {
		w := ws[0]
		if w.dyn != 0 {
			return ws, in
		}
		if n, _, ok := strings.Cut(w.s, "="); ok && isName(n) {
			r.envName(n)
			ws = ws[1:]
			continue
		}
		name, args := base(w.s), ws[1:]
		switch name {
		case "env":
			opts, rest := scanOpts(args, "uCSP", "unset chdir split-string", false)
			for _, o := range opts {
				switch o.name {
				case "-C", "--chdir":
					in = r.cdTo(o.val, in)
				case "-S", "--split-string":
					r.opaquef("env -S splits a string into a command")
					r.readScript(joinWords(append([]word{o.val}, rest...)), in, "env -S")
					return nil, in
				}
			}
			ws = rest
		case "sudo", "doas":
			opts, rest := scanOpts(args, "ugChprtUDRTa", "user group close-from host prompt role type other-user chdir chroot command-timeout", false)
			for _, o := range opts {
				switch o.name {
				case "-e", "--edit":
					return append([]word{{s: "sudoedit"}}, rest...), in
				case "-D", "--chdir":
					in = r.cdTo(o.val, in)
				}
			}
			if len(rest) == 0 && hasOpt(opts, "-s", "--shell", "-i", "--login") {
				r.opaquef("%s opens a shell that reads commands loopx cannot see", name)
			}
			ws = rest
		case "command":
			opts, rest := scanOpts(args, "", "", false)
			if hasOpt(opts, "-v", "-V") {
				return ws, in // a lookup: nothing runs
			}
			ws = rest
		case "builtin", "nohup", "setsid", "unbuffer", "catchsegv", "proxychains", "proxychains4", "torsocks", "valgrind", "nocache":
			_, ws = scanOpts(args, "", "", false)
		case "exec":
			_, ws = scanOpts(args, "a", "", false)
		case "time":
			opts, rest := scanOpts(args, "fo", "format output", false)
			for _, f := range optVals(opts, "-o", "--output") {
				r.writeTarget(f, in, "time -o target")
			}
			ws = rest
		case "nice":
			_, ws = scanOpts(args, "n", "adjustment", false)
		case "timeout":
			_, rest := scanOpts(args, "sk", "signal kill-after", false)
			if len(rest) > 0 {
				rest = rest[1:] // the duration
			}
			ws = rest
		case "stdbuf":
			_, ws = scanOpts(args, "ioe", "input output error", false)
		case "ionice":
			opts, rest := scanOpts(args, "cnpPu", "class classdata pid pgid uid", false)
			if hasOpt(opts, "-p", "-P", "-u", "--pid", "--pgid", "--uid") {
				return nil, in
			}
			ws = rest
		case "chrt", "taskset":
			opts, rest := scanOpts(args, "TPD", "sched-runtime sched-period sched-deadline cpu-list", false)
			if hasOpt(opts, "-p", "--pid") || len(rest) == 0 {
				return nil, in
			}
			ws = rest[1:] // the priority or the CPU mask
		case "strace", "ltrace":
			opts, rest := scanOpts(args, "oepsuEPabXIOSU", "output", false)
			for _, f := range optVals(opts, "-o", "--output") {
				r.writeTarget(f, in, name+" -o target")
			}
			ws = rest
		case "flock":
			_, rest := scanOpts(args, "wEc", "timeout conflict-exit-code command", false)
			if len(rest) == 0 {
				return nil, in
			}
			opts, cmd := scanOpts(rest[1:], "c", "command", false)
			for _, c := range optVals(opts, "-c", "--command") {
				r.readScript(c, in, "flock -c")
				return nil, in
			}
			ws = cmd
		case "npx":
			opts, rest := scanOpts(args, "pc", "package call", false)
			for _, c := range optVals(opts, "-c", "--call") {
				r.readScript(c, in, "npx -c")
				return nil, in
			}
			ws = rest
		case "busybox":
			if len(args) > 0 && shells[base(args[0].s)] {
				r.opaquef("busybox runs a shell (%s)", args[0].s)
			}
			ws = args
		default:
			return ws, in
		}
	}
	return ws, in
}
