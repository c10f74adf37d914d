package cli

import (
	"fmt"
	"os"

	"github.com/loopx-dev/loopx/engine/mutating/confined"
	"github.com/loopx-dev/loopx/internal/broker"
)

// brokerClient runs loopx's arguments args through the broker at socket
// (inside an agent's confinement, where loopx's state cannot be written):
// the command runs outside as the round's agent, with the same output
// and exit code; exit 3 when the broker cannot be reached.
func brokerClient(socket string, args []string) int {
	req, err := broker.NewRequest(args)
	if err == nil {
		var code int
		code, err = broker.Call(socket, req, os.Stdin, os.Stdout, os.Stderr)
		if err == nil {
			return code
		}
	}
	fmt.Fprintf(os.Stderr, "loopx: %v\n", err)
	return ExitInternal
}

// checkBrokered refuses, audited (broker.refused), a command the broker
// runs for a confined agent that the broker list does not name or that
// names another project (confined.BrokerAllows); nil outside a broker.
func (a *app) checkBrokered(command string) error {
	if !confined.Brokered() {
		return nil
	}
	err := confined.BrokerAllows(command, a.project != "")
	if err == nil {
		return nil
	}
	// The refusal is audited in the round's own project (LOOPX_PROJECT,
	// which the broker sets), never in one the command named.
	a.project = ""
	if e, eerr := a.engine(); eerr == nil {
		e.AuditRefusal("broker.refused", command, "agent:"+defaultAgent(), command, err)
	}
	return err
}
