package cli

import (
	"io"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/output"
	"github.com/spf13/cobra"
)

// gateCmd is `loopx gate`, the group of raise, list, show and answer (one
// file each: gate_raise.go, gate_list.go, gate_show.go, gate_answer.go).
func (a *app) gateCmd() *cobra.Command {
	c := &cobra.Command{Use: "gate", Short: "Raise, list, show and answer human gates"}
	c.AddCommand(a.gateRaiseCmd(), a.gateListCmd(), a.gateShowCmd(), a.gateAnswerCmd())
	return c
}

func printTable(w io.Writer, header []string, rows [][]string) { output.Table(w, header, rows) }
