package cli

import (
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
)

// Ancestry configures how commands read their ancestor processes to tell
// who is acting (trust.AncestryOptions). Only test builds change it
// (cmd/loopx's TestMain), so that the suite's scripts see only the
// processes they start when it runs inside an agent host or round.
var Ancestry trust.AncestryOptions

// caller is who runs this command (gateanswer.Env): its environment, its
// stdin, the ancestry options.
func (a *app) caller() gateanswer.Caller {
	c := gateanswer.Env(a.opts.Caller, a.stdin, a.ancestry())
	c.Dashboard = a.opts.Dashboard
	return c
}

// answerChannel fills in.Actor's default and gathers the facts of the
// channel an answer from a command with this stdin comes through
// (gateanswer.Channel; the rules are the gate decision's).
func (a *app) answerChannel(e *engine.Engine, in *gates.Answer) input.Channel {
	return gateanswer.Channel(e, a.caller(), &in.Actor)
}

// agentAncestor describes the nearest ancestor process that runs in an
// agent round, runs rounds (a runner recorded in the project's state),
// carries LOOPX_AGENT or is an agent host ("" when none): trust.Acting.
func (a *app) agentAncestor() string {
	if e, err := a.engine(); err == nil {
		return e.Acting().Agentish
	}
	return trust.ReadAncestry(a.ancestry(), nil).Agentish
}
