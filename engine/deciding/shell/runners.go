package shell

import "strings"

// This file models the build tools and package managers: what go and make
// write and run, the directory options of npm, pip, cargo and their kin
// (where they install or build), and the runners whose options may run
// another program (an argument built from an expansion may be such an
// option).

// runners records what go or make writes or runs; false when name is
// neither.
func (r *reader) runners(name string, args []word, here dirs, stdin stdinKind) bool {
	switch name {
	case "go":
		r.golang(args, here)
	case "make", "gmake":
		opts, _ := scanOpts(args, "fCIjloWE", "file makefile directory include-dir jobs load-average old-file what-if eval", true)
		if hasOpt(opts, "-E", "--eval") {
			r.opaquef("%s --eval runs make code given inline", name)
		}
		for _, d := range optVals(opts, "-C", "--directory") {
			r.writeDir(d, here, name+" -C directory")
		}
		for _, a := range args { // make SHELL=/tmp/x runs every recipe with it
			if n, _, ok := strings.Cut(a.s, "="); ok && (n == "SHELL" || n == ".SHELLFLAGS" || n == "MAKEFLAGS" || n == "MAKESHELL") {
				r.opaquef("%s %s= changes what runs every recipe", name, n)
			}
		}
		for _, f := range optVals(opts, "-f", "--file", "--makefile") {
			if isStdinFile(f.s) && stdinFrom(stdin) != "" {
				r.opaquef("%s a makefile (%s -f %s)", stdinFrom(stdin), name, f.s)
			} else {
				r.scriptFile(name, f, here)
			}
		}
	default:
		return false
	}
	return true
}

// goWrites are the go command's flags whose value is a file or directory
// it writes; goRunners those whose value is a program it runs.
var (
	goWrites  = map[string]bool{"o": true, "coverprofile": true, "cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true, "trace": true, "outputdir": true, "pkgdir": true, "modfile": true}
	goRunners = map[string]bool{"exec": true, "toolexec": true, "vettool": true}
)

// golang records what a go command writes (-o, -coverprofile, …: also as
// -test.X; -C changes the directory and counts as a write) and marks the
// flags that run another program (-exec, -toolexec, -vettool) opaque.
func (r *reader) golang(args []word, here dirs) {
	if _, ops := scanOpts(args, "C", "", false); len(ops) > 0 && ops[0].s == "env" {
		for _, a := range ops[1:] {
			if a.s == "-w" || a.s == "-u" {
				r.opaquef("go env %s changes go's settings (GOFLAGS, …) for every later go command", a.s)
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a.s, "-") || a.s == "-" {
			continue
		}
		if a.s == "--" {
			return
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a.s, "-"), "=")
		name = strings.TrimPrefix(name, "test.")
		v := word{s: val, dyn: a.dyn, pos: a.pos, end: a.end}
		if !hasVal && i+1 < len(args) {
			if goWrites[name] || goRunners[name] || name == "C" || name == "ldflags" {
				i++
				v, hasVal = args[i], true
			}
		}
		switch {
		case goRunners[name]:
			r.opaquef("go -%s runs %s", name, firstWord([]word{v}, "another program"))
		case name == "ldflags" && (strings.Contains(v.s, "extld") || strings.Contains(v.s, "extar")):
			r.opaquef("go -ldflags %s names the external linker it runs", r.snippet(v))
		case !hasVal:
		case name == "C":
			r.writeDir(v, here, "go -C directory")
			here = r.cdTo(v, here)
		case goWrites[name]:
			r.writeTarget(v, here, "go -"+name+" target")
		}
	}
}

// runnerCmds are programs with options that run other programs or code
// (go test -exec, make --eval, git -c, find -exec, tar --to-command, …):
// an argument that may yield such an option (an expansion at its start or
// unquoted) makes the command opaque.
var runnerCmds = map[string]bool{"go": true, "make": true, "gmake": true, "gdb": true, "cargo": true, "npm": true,
	"pnpm": true, "yarn": true, "npx": true, "git": true, "rsync": true, "scp": true, "ssh": true, "tar": true,
	"bsdtar": true, "gtar": true, "find": true, "sed": true, "zip": true, "docker": true, "kubectl": true, "bazel": true,
	"mvn": true, "gradle": true, "pip": true, "pip3": true, "uv": true, "pytest": true, "deno": true, "bun": true,
	"sort": true, "lldb": true}

// valueOpts are the options of runnerCmds whose value an expansion may be
// (it cannot become another option there).
var valueOpts = map[string]bool{"-m": true, "--message": true, "--author": true, "--date": true, "-b": true, "-B": true,
	"--format": true, "--pretty": true, "--grep": true, "-run": true, "-bench": true, "-count": true, "-timeout": true,
	"-tags": true, "-ldflags": true, "-gcflags": true, "-skip": true, "-p": true, "-parallel": true}

// optionArgs marks a runner command opaque when an argument built from an
// expansion may yield an option (go test $(cat pkgs) may be -toolexec=…).
func (r *reader) optionArgs(name string, ws []word) {
	if !runnerCmds[name] {
		return
	}
	for i := 1; i < len(ws); i++ {
		if w := ws[i]; w.optLike && !valueOpts[ws[i-1].s] {
			r.opaquef("%s argument built from %s may carry options that run commands", name, r.snippet(w))
			return
		}
	}
}

// dirFlag lists a command's options whose value is the directory it works
// in or installs into (npm --prefix, pip --target, cargo --target-dir):
// short option letters and long names (without dashes).
type dirFlag struct{ short, long string }

var dirFlags = map[string]dirFlag{
	"npm":      {"C", "prefix cache"},
	"pnpm":     {"C", "dir prefix modules-dir store-dir"},
	"yarn":     {"", "cwd modules-folder cache-folder"},
	"pip":      {"td", "target prefix root src dest cache-dir"},
	"pip3":     {"td", "target prefix root src dest cache-dir"},
	"uv":       {"", "target prefix directory project cache-dir"},
	"cargo":    {"", "target-dir out-dir artifact-dir root manifest-path"},
	"gem":      {"in", "install-dir bindir"},
	"composer": {"d", "working-dir"},
	"bundle":   {"", "path"},
	"mvn":      {"f", "file"},
	"gradle":   {"p", "project-dir project-cache-dir"},
	"cmake":    {"BS", ""},
	"docker":   {"o", "output"},
}
