package cli

import (
	"errors"
	"path/filepath"

	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
)

// getenv is the caller's environment variable key (Options.Caller: this
// process's, or the client's a server runs the command for).
func (a *app) getenv(key string) string { return a.opts.Caller.Getenv(key) }

// abs is path p as the caller means it, absolute: a relative path is
// joined to the caller's working directory — the client's when a server
// runs the command (the server's own is another), else Options.Dir or
// this process's. The same command then names the same project root in
// what it prints whether a server runs it or not. Left as it is when the
// working directory cannot be read.
func (a *app) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if !a.opts.Caller.Remote() && a.opts.Dir != "" {
		return filepath.Join(a.opts.Dir, p)
	}
	wd, err := a.opts.Caller.Getwd()
	if err != nil {
		return p
	}
	return filepath.Join(wd, p)
}

// ancestry is how the engine reads the caller's ancestor processes:
// Ancestry, walking from the client's parent when a server runs the
// command (trust.AncestryOptions.From).
func (a *app) ancestry() trust.AncestryOptions {
	o := Ancestry
	if a.opts.Dashboard {
		// The page's session stands for the person: the server's own
		// ancestry is whoever started it, not who clicked.
		o.Off = true
		return o
	}
	if a.opts.Caller.Remote() {
		o.From = a.opts.Caller.PID
	}
	return o
}

// errNoTerminal is the terminal's error of a command a server runs with
// no way to prompt its client.
var errNoTerminal = errors.New("no controlling terminal")

// noTerminal is the Terminal of a command with nowhere to ask.
type noTerminal struct{}

func (noTerminal) Ask(string) (string, error) { return "", errNoTerminal }

// terminal is where a person types a confirmation: Options.Terminal (a
// server's: the client's controlling terminal, asked over the socket),
// else this process's controlling terminal, /dev/tty.
func (a *app) terminal() gateanswer.Terminal {
	switch {
	case a.opts.Terminal != nil:
		return a.opts.Terminal
	case a.opts.Caller.Remote():
		return noTerminal{}
	}
	return gateanswer.ControllingTerminal{}
}
