// Package safegit runs git the way loopx may while agents work in the
// same tree: with a configuration no agent can reach (no global or system
// configuration, no hooks, fsmonitor, untracked cache, user attributes or
// excludes; no GIT_* variable of the environment; no replace objects), from
// the git executable found before any agent ran. Callers run only commands
// that never read a file's content through a filter (ls-files,
// for-each-ref, rev-parse, diff-tree --name-only, merge-base). It imports
// only the standard library.
package safegit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// lockedConfig are the settings given on every git command line: they win
// over the repository's own .git/config (which an agent outside a sandbox
// can write) for the keys that could run code or hide files.
var lockedConfig = []string{
	"core.fsmonitor=false",          // no fsmonitor hook
	"core.untrackedCache=false",     // no cache of untracked files to trust
	"core.hooksPath=/dev/null",      // no hooks
	"core.attributesFile=/dev/null", // no user attributes (filters, textconv)
	"core.excludesFile=/dev/null",   // no user excludes hiding files
}

// Path is git's executable as this process first found it in PATH
// (absolute), so that a git an agent later puts earlier in PATH is never
// the one loopx runs; "" when there is none.
var Path = sync.OnceValue(func() string {
	p, err := exec.LookPath("git")
	if err != nil || !strings.HasPrefix(p, "/") {
		return ""
	}
	return p
})

// Env is the environment git runs in: the process's without any
// GIT_* variable (GIT_DIR, GIT_EXEC_PATH, GIT_CONFIG_PARAMETERS, …),
// with no global or system configuration or attributes, no replace
// objects, no optional locks and no prompt.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1")
}

// Git runs git in a directory under the locked configuration.
type Git struct {
	// Path is git's executable (absolute; "" = Path()).
	Path string
	// Dir is the directory git runs in.
	Dir string
}

// Run runs one git command and returns its standard output. Errors: git
// is missing, or it exited non-zero (*exec.ExitError, wrapped, with its
// standard error).
func (g Git) Run(args ...string) ([]byte, error) {
	path := g.Path
	if path == "" {
		path = Path()
	}
	if path == "" {
		return nil, fmt.Errorf("git %s: git is not installed", args[0])
	}
	full := make([]string, 0, 2*len(lockedConfig)+len(args))
	for _, kv := range lockedConfig {
		full = append(full, "-c", kv)
	}
	cmd := exec.Command(path, append(full, args...)...)
	cmd.Dir = g.Dir
	cmd.Env = Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
