package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

// A script's `exitcode N loopx …` runs loopx inside the test process
// (cli.RunWith) when nothing the command reads differs from what the
// in-process call passes it: the project is found from the script's
// directory (cli.Options.Dir), the anchor directories are under the
// script's XDG_STATE_HOME (StateHome) and the clock is its LOOPX_NOW
// (Now). Starting the test binary again for each command costs most of
// the suite's CPU; a command run in-process costs a few milliseconds.
//
// Everything else runs loopx as its own process, as `exec loopx` always
// does: a script that sets LOOPX_TEST_EXEC (or any other variable loopx,
// git or a host reads: inProcessEnvSafe), input on stdin or a terminal,
// an argument naming a file relative to the script's directory, and the
// commands that read their process (processCommands).

// baselineKey is the testscript value holding the environment Setup gave
// the script, which in-process commands compare against.
type baselineKey struct{}

// processCommands are the commands that need a process of their own: they
// read their ancestry, environment or working directory as a process
// (hook, hooks, doctor), start or serve other processes (run, watch, mcp,
// serve, demo), write relative to the working directory (init), or print
// through cobra's completion to the process's stdout (completion).
var processCommands = map[string]bool{
	"hook": true, "hooks": true, "doctor": true, "run": true, "watch": true,
	"mcp": true, "serve": true, "demo": true, "init": true, "__spec-eval": true,
	"completion": true, "__complete": true,
}

// inProcessEnvSafe reports whether variable k, set by the script to a
// value other than Setup's, leaves an in-process command's behaviour the
// same as a process's: the variables loopx, git or an agent host reads
// are not, apart from the two passed as options.
func inProcessEnvSafe(k string) bool {
	switch k {
	case "LOOPX_NOW", "XDG_STATE_HOME", "PWD":
		return true
	case "HOME", "PATH", "TMPDIR", "SHELL", "TERM", "USER", "GOGC", "GOMEMLIMIT", "GODEBUG", "GOMAXPROCS":
		return false
	}
	for _, p := range []string{"LOOPX_", "XDG_", "GIT_", "CLAUDE_", "CODEX_", "SSH_"} {
		if strings.HasPrefix(k, p) {
			return false
		}
	}
	return true
}

// inProcess reports whether loopx args can run inside the test process
// with the same result as a process of its own; why says what stops it.
func inProcess(ts *testscript.TestScript, args []string) (ok bool, why string) {
	if os.Getenv("LOOPX_TEST_SERVED") != "" {
		return false, "the served pass"
	}
	v := reflect.ValueOf(ts).Elem()
	if v.FieldByName("stdin").String() != "" || v.FieldByName("stdinPty").Bool() {
		return false, "stdin"
	}
	base, _ := ts.Value(baselineKey{}).(map[string]string)
	env := v.FieldByName("env")
	for i := range env.Len() {
		k, _, _ := strings.Cut(env.Index(i).String(), "=")
		val := ts.Getenv(k) // the slice may hold a variable twice: the last counts
		if base[k] != val && !inProcessEnvSafe(k) {
			return false, "env " + k
		}
	}
	if now := ts.Getenv("LOOPX_NOW"); now != "" {
		if _, err := time.Parse(time.RFC3339, now); err != nil {
			return false, "LOOPX_NOW"
		}
	}
	dir := ts.MkAbs(".")
	sub := ""
	for _, a := range args {
		if strings.ContainsAny(a, "~") || strings.Contains(a, "no-home") {
			return false, "home"
		}
		_, val, hasVal := strings.Cut(a, "=")
		for _, p := range []string{a, val} {
			if (p == a || hasVal) && p != "" && !filepath.IsAbs(p) && p != "-" {
				if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
					return false, "path " + p
				}
			}
		}
		if sub == "" && !strings.HasPrefix(a, "-") {
			sub = a
		}
	}
	if processCommands[sub] {
		return false, "command " + sub
	}
	return true, ""
}

// runInProcess runs loopx args inside the test process and returns its
// exit code; its output becomes the script's stdout and stderr.
func runInProcess(ts *testscript.TestScript, args []string) (code int) {
	o := cli.Options{StateHome: ts.Getenv("XDG_STATE_HOME"), Dir: ts.MkAbs("."), Now: time.Now}
	if now := ts.Getenv("LOOPX_NOW"); now != "" {
		t, _ := time.Parse(time.RFC3339, now)
		o.Now = func() time.Time { return t }
	}
	defer func() {
		if r := recover(); r != nil {
			ts.Fatalf("loopx %s panicked: %v\n%s", strings.Join(args, " "), r, debug.Stack())
		}
	}()
	return cli.RunWith(context.Background(), o, args, strings.NewReader(""), ts.Stdout(), ts.Stderr())
}
