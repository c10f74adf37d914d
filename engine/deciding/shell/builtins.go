package shell

import "strings"

// This file models the shell builtins that move the working directory,
// run scripts, or change which program a name runs.

// builtin reads the shell builtins that change where later commands run
// (cd, pushd, popd), run a script (eval, source, trap) or change what a
// name runs (alias, hash -p, enable -f). done is false when name is none
// of them; ok and fail are where the next command runs.
func (r *reader) builtin(name string, args []word, in, here dirs, stdin stdinKind) (ok, fail dirs, done bool) {
	switch name {
	case "cd", "pushd":
		_, ops := scanOpts(args, "", "", false)
		if len(ops) == 0 || (name == "pushd" && strings.HasPrefix(ops[0].s, "+")) {
			return dirs{unknownDir}, in, true
		}
		return r.cdTo(ops[0], in), in, true
	case "popd":
		return dirs{unknownDir}, in, true
	case "eval":
		ok, fail = r.readScript(joinWords(args), in, "eval")
		return ok, fail, true
	case "source", ".":
		if len(args) > 0 {
			switch f := args[0]; {
			case f.dyn&dynProc != 0:
				r.opaquef("%s of a process substitution runs the output of a command", name)
			case (f.s == "/dev/stdin" || f.s == "-" || strings.HasPrefix(f.s, "/dev/fd/") || strings.HasPrefix(f.s, "/proc/self/fd/")) && stdinFrom(stdin) != "":
				r.opaquef("%s %s a shell (%s)", stdinFrom(stdin), name, f.s)
			default:
				r.scriptFile(name, f, here)
			}
		}
	case "trap":
		_, ops := scanOpts(args, "", "", false)
		if len(ops) > 1 && ops[0].s != "-" {
			r.readScript(ops[0], here, "trap")
		}
	case "alias":
		for _, a := range args {
			if strings.Contains(a.s, "=") {
				r.opaquef("alias %s defines a command loopx cannot follow", a.s)
			}
		}
	case "hash":
		if opts, _ := scanOpts(args, "p", "", false); hasOpt(opts, "-p") {
			r.opaquef("hash -p changes which program a name runs")
		}
	case "enable":
		if opts, _ := scanOpts(args, "f", "", false); hasOpt(opts, "-f") {
			r.opaquef("enable -f loads a shared library into the shell")
		}
	default:
		return in, in, false
	}
	return in, in, true
}
