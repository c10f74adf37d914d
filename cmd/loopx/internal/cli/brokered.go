package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/loopx-dev/loopx/engine/mutating/confined"
	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// brokerClient runs loopx's arguments args through the broker at socket
// (inside an agent's confinement, where loopx's state cannot be written):
// the command runs outside as the round's agent, with the same output
// and exit code; exit 3 when the broker cannot be reached. ok is false
// when the socket is not a confinement's broker's (broker.CallOutside:
// its peer is a process this one can see, so this process runs in no
// confinement): nothing was sent, and loopx runs as it does without a
// broker, after a warning on stderr.
func brokerClient(socket string, args []string) (code int, ok bool) {
	req, err := wire.NewRequest(args)
	if err == nil {
		code, err = broker.CallOutside(socket, req, os.Stdin, os.Stdout, os.Stderr)
		if err == nil {
			return code, true
		}
		if errors.Is(err, broker.ErrNotBroker) {
			fmt.Fprintf(os.Stderr, "loopx: ignored: %v\n", err)
			return 0, false
		}
	}
	fmt.Fprintf(os.Stderr, "loopx: %v\n", err)
	return ExitInternal, true
}

// checkBrokered refuses, audited (broker.refused), a command the broker
// runs for a confined agent that the broker list does not name, that
// names another project, or whose file arguments lie outside the work
// tree (confined.BrokerAllows); nil outside a broker.
func (a *app) checkBrokered(cmd *cobra.Command, args []string) error {
	if a.getenv(confined.BrokeredEnv) == "" {
		return nil
	}
	command := cmd.CommandPath()
	err := confined.BrokerAllows(command, a.project != "", a.brokeredPaths(cmd, args))
	if err == nil {
		return nil
	}
	// The refusal is audited in the round's own project (LOOPX_PROJECT,
	// which the broker sets), never in one the command named.
	a.project = ""
	if e, eerr := a.engine(); eerr == nil {
		e.AuditRefusal("broker.refused", command, "agent:"+a.defaultAgent(), command, err)
	}
	return err
}

// brokeredPaths are the values of every flag given to cmd, and its
// positional arguments (under ""), resolved against the project's root
// and what the sandbox hides (confined.ResolvePathArg); the broker rule
// picks those that name files.
// A root that cannot be found makes every value outside.
func (a *app) brokeredPaths(cmd *cobra.Command, args []string) map[string][]confined.PathArg {
	root, err := a.root()
	if err != nil {
		root = ""
	}
	wd, _ := os.Getwd()
	hidden := confined.HiddenPaths()
	out := map[string][]confined.PathArg{}
	add := func(name string, values []string) {
		for _, v := range values {
			if root == "" {
				out[name] = append(out[name], confined.PathArg{Value: v, Outside: true})
				continue
			}
			out[name] = append(out[name], confined.ResolvePathArg(root, wd, v, hidden))
		}
	}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			add(f.Name, sv.GetSlice())
			return
		}
		add(f.Name, []string{f.Value.String()})
	})
	add("", args)
	return out
}
