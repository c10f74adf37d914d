// Package early forwards a loopx command to the project's running server
// (`loopx serve`) before the rest of the program is initialised: its
// init runs once the few light packages it imports are, ahead of OPA,
// CUE and the rest (Go initialises a package as soon as its imports are),
// and a command the server ran exits there. Whatever it does not handle
// (no server, a command that never goes through one, a hook, a person's
// terminal, the socket not answering) it leaves untouched for the
// program's own forwarding (cmd/loopx/internal/cli), which decides the
// same way and says the same in every case: nothing reached the server
// before early steps aside. It imports only light packages of the
// standard library, internal/broker/wire and internal/serveclient.
package early

import "strings"

// Args is what forwarding needs of the arguments before they are parsed:
// the command's name (the first argument that is not a flag) and the next
// one (Sub), --project's value, --event's (a hook's), whether help is
// asked and whether --exec is given.
type Args struct {
	Command, Sub, Project, Event string
	Help, Exec                   bool
}

// NotServed are the commands that never go through a server: they open
// no project's store (help, version, completion, init, preset, schema,
// demo) or manage the server itself (serve). loopx dashboard goes through
// a running server, which checks that a human asks (from the caller's
// ancestry) before it mints a code.
var NotServed = map[string]bool{
	"help": true, "version": true, "completion": true,
	"init": true, "preset": true, "schema": true, "demo": true, "serve": true,
}

// Completing are cobra's completion requests: they go through a server
// (the todo and gate ids are in the server's kept read model, not in the
// file while it runs) within a short timeout, else they run in process
// and offer what the spec files say: a shell waiting on completion never
// hangs on a server.
var Completing = map[string]bool{"__complete": true, "__completeNoDesc": true}

// Streaming are the commands that run as long as their caller wants (an
// MCP session, a watch): no timeout bounds them.
var Streaming = map[string]bool{"mcp": true, "watch": true, "run": true}

// ServeStatus reports whether the arguments are `loopx serve status`: it
// goes through a running server (which checks that a human asks, on the
// store only it may open), and never starts one.
func (f Args) ServeStatus() bool { return f.Command == "serve" && f.Sub == "status" }

// Spawning reports whether the command's client starts the agent's
// processes for the server (loopx run, watch --exec).
func (f Args) Spawning() bool { return f.Command == "run" || (f.Command == "watch" && f.Exec) }

// Keyed reports whether a forwarded command carries an idempotency key
// (it may change state, and is run once): all but a long session (mcp,
// watch), which must end with its client, a hook and a completion.
func (f Args) Keyed() bool {
	return !Streaming[f.Command] && !Completing[f.Command] && f.Command != "hook"
}

// Scan reads Args from loopx's arguments (without the program name).
func Scan(args []string) Args {
	var f Args
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return f
		case a == "--project" || a == "--event":
			if i+1 < len(args) {
				if a == "--project" {
					f.Project = args[i+1]
				} else {
					f.Event = args[i+1]
				}
				i++
			}
		case strings.HasPrefix(a, "--project="):
			f.Project = strings.TrimPrefix(a, "--project=")
		case strings.HasPrefix(a, "--event="):
			f.Event = strings.TrimPrefix(a, "--event=")
		case a == "-h" || a == "--help":
			f.Help = true
		case a == "--exec" || a == "--exec=true":
			f.Exec = true
		case !strings.HasPrefix(a, "-") && f.Command == "":
			f.Command = a
		case !strings.HasPrefix(a, "-") && f.Sub == "":
			f.Sub = a
		}
	}
	return f
}
