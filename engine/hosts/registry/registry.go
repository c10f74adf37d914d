// Package registry lists the agent hosts' adapters (hosts.Adapter), one
// package each under engine/hosts: adding a host is adding its package and
// one line here. The command layer, the hook's way in, the engine and the
// ancestry reader look a host up by name here; none branches on a host's
// name.
package registry

import (
	"fmt"
	"strings"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/hosts/claudecode"
	"github.com/loopx-dev/loopx/engine/hosts/codex"
	"github.com/loopx-dev/loopx/engine/hosts/cursor"
	"github.com/loopx-dev/loopx/engine/hosts/other"
	"github.com/loopx-dev/loopx/engine/hosts/shell"
)

// adapters are the hosts, in the order help lists them (the spec schema's
// agents.<a>.host enum, in specs, names the same).
var adapters = []hosts.Adapter{
	claudecode.Adapter{},
	codex.Adapter{},
	cursor.Adapter{},
	shell.Adapter{},
	other.Adapter{},
}

// Lookup returns the adapter of the host named name.
func Lookup(name string) (hosts.Adapter, bool) {
	for _, a := range adapters {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
}

// Names are every host's name (the hosts an agent may declare).
func Names() []string {
	out := make([]string, 0, len(adapters))
	for _, a := range adapters {
		out = append(out, a.Name())
	}
	return out
}

// HookHosts are the names of the hosts whose hooks loopx answers
// (`loopx hook HOST`, `loopx hooks install --host HOST`).
func HookHosts() []string {
	var out []string
	for _, a := range adapters {
		if a.AnswersHooks() {
			out = append(out, a.Name())
		}
	}
	return out
}

// HookHost returns the adapter of a host whose hooks loopx answers. Error:
// `unknown host "x" (want claude-code or codex)`.
func HookHost(name string) (hosts.Adapter, error) {
	if a, ok := Lookup(name); ok && a.AnswersHooks() {
		return a, nil
	}
	return nil, fmt.Errorf("unknown host %q (want %s)", name, WantHookHost())
}

// WantHookHost is the hook hosts for a message: "claude-code or codex".
func WantHookHost() string { return strings.Join(HookHosts(), " or ") }

// Programs are the base names of every host's programs (hosts.Adapter
// Programs), for the ancestry reader.
func Programs() []string {
	var out []string
	for _, a := range adapters {
		out = append(out, a.Programs()...)
	}
	return out
}
