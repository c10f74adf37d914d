// Command loopx is a local control plane for long-running AI-agent work.
package main

import (
	"os"

	// A command the project's running server can run is forwarded to it
	// from early's init, before the heavy packages below are initialised.
	_ "github.com/loopx-dev/loopx/cmd/loopx/internal/early"

	// Garbage collection is held while the packages initialise, until
	// cli.Main sets the command's pace.
	_ "github.com/loopx-dev/loopx/cmd/loopx/internal/gchold"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
)

func main() { os.Exit(cli.Main()) }
