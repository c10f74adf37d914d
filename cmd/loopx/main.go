// Command loopx is a local control plane for long-running AI-agent work.
package main

import (
	"os"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
)

func main() { os.Exit(cli.Main()) }
