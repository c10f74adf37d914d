package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/kernel"
)

// confirmHuman asks the person at the controlling terminal to type the
// gate id back (design §8: a human answer needs a TTY confirmation). It
// needs stdin to be a terminal and reads the answer from /dev/tty, so an
// agent piping input cannot confirm; with no terminal the answer is refused
// (confirmation_required).
func confirmHuman(g kernel.Gate, option string) error {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return &engine.RefusedError{Code: "confirmation_required", Message: fmt.Sprintf(
			"answering gate %s as a human needs a terminal to confirm on (stdin is not one); run it in your own terminal", g.ID)}
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return &engine.RefusedError{Code: "confirmation_required", Message: fmt.Sprintf(
			"answering gate %s as a human needs a terminal to confirm on (none here: %v); run it in your own terminal", g.ID, err)}
	}
	defer tty.Close()
	fmt.Fprintf(tty, "gate %s (%s): %s\nanswer: %s\ntype the gate id to confirm: ", g.ID, g.Goal, g.Question, option)
	line, err := bufio.NewReader(tty).ReadString('\n')
	if err != nil && line == "" {
		return &engine.RefusedError{Code: "confirmation_required", Message: "no confirmation typed: nothing recorded"}
	}
	if strings.TrimSpace(line) != g.ID {
		return &engine.RefusedError{Code: "confirmation_mismatch", Message: fmt.Sprintf("typed %q, not the gate id %s: nothing recorded", strings.TrimSpace(line), g.ID)}
	}
	return nil
}
