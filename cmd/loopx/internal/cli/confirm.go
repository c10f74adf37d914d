package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel"
)

// confirmHuman asks the person at the controlling terminal to type the
// gate id back (design §8: a human answer needs a TTY confirmation) and
// returns what was typed (trimmed; "" when nothing), or why the terminal
// could not be opened. It reads /dev/tty, not stdin, so an agent piping
// input cannot confirm. It only gathers the facts: the gate decision's
// confirmation rule judges them.
func confirmHuman(g kernel.Gate, option string) (typed, ttyErr string) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", err.Error()
	}
	defer tty.Close()
	// Every value is rendered inert: a question raised by an agent must not
	// reach the human's terminal as escape sequences (a faked prompt).
	fmt.Fprintf(tty, "gate %s (%s): %s\nanswer: %s\ntype the gate id to confirm: ",
		inert.Line(g.ID), inert.Line(g.Goal), inert.Line(g.Question), inert.Line(option))
	line, _ := bufio.NewReader(tty).ReadString('\n')
	return strings.TrimSpace(line), ""
}

// Ancestry configures how commands read their ancestor processes to tell
// who is acting (engine.AncestryOptions). Only test builds change it
// (cmd/loopx's TestMain), so that the suite's scripts see only the
// processes they start when it runs inside an agent host or round.
var Ancestry engine.AncestryOptions

// agentAncestor describes the nearest ancestor process that runs in an
// agent round, runs rounds (a runner recorded in the project's state),
// carries LOOPX_AGENT or is an agent host ("" when none): engine.Acting.
func (a *app) agentAncestor() string {
	if e, err := a.engine(); err == nil {
		return e.Acting().Agentish
	}
	return engine.ReadAncestry(Ancestry, nil).Agentish
}
