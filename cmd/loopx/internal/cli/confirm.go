package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/trust"
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
	// Every value is rendered inert: a question raised by an agent must not
	// reach the human's terminal as escape sequences (a faked prompt).
	return askTTY(fmt.Sprintf("gate %s (%s): %s\nanswer: %s\ntype the gate id to confirm: ",
		inert.Line(g.ID), inert.Line(g.Goal), inert.Line(g.Question), inert.Line(option)))
}

// confirmAdopt shows the person at the controlling terminal what `loopx
// adopt` would make the rules in effect (the revision and what it loosens)
// and asks them to type "adopt" (data.loopx.gate.adopt judges what was
// typed). Like confirmHuman it reads /dev/tty, never stdin.
func confirmAdopt(res engine.AdoptResult) (typed, ttyErr string) {
	var b strings.Builder
	fmt.Fprintf(&b, "loopx adopt: make loopx/ (spec %s, policies %s) the rules in effect\n",
		inert.Line(res.Adopted.Spec), inert.Line(res.Adopted.Policy))
	for _, r := range res.Loosens {
		// File names of policies come from whoever wrote loopx/: inert.
		fmt.Fprintf(&b, "loosens: %s: %s\n", inert.Line(r.Ref), inert.Line(r.Message))
	}
	b.WriteString(`type "adopt" to confirm: `)
	return askTTY(b.String())
}

// askTTY writes prompt to the controlling terminal and reads one line back
// (trimmed), or says why the terminal could not be opened.
func askTTY(prompt string) (typed, ttyErr string) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", err.Error()
	}
	defer tty.Close()
	fmt.Fprint(tty, prompt)
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
	return trust.ReadAncestry(Ancestry, nil).Agentish
}
