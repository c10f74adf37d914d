package gateanswer

import (
	"context"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/errs"
)

// AcceptStorePrompt is what `loopx doctor --accept-store` shows before the
// person types "accept": what accepting the store loses.
const AcceptStorePrompt = "loopx doctor --accept-store: accept .loopx/ as it is and start its chain over from its revision\n" +
	"what the chain recorded after that revision (todos, rounds, evidence, gate answers) is lost for good\n" +
	"type \"accept\" to confirm: "

// AcceptStore decides, for a human, whether `loopx doctor --accept-store`
// may go ahead (data.loopx.repair.accept_store): the channel is decided
// before anyone is asked (an agent, a round, an agent's descendant is
// refused), then the person reads what is lost on t and types "accept".
// Every refusal is audited (store.accept_refused). Errors: errs.No
// refusals (not a human's channel, no terminal, not confirmed).
func AcceptStore(ctx context.Context, e *engine.Engine, c Caller, t Terminal) error {
	actor, ch := rulesChannel(e, c)
	refuse := func(err error) error {
		e.AuditRefusal("store.accept_refused", "loopx doctor --accept-store", actor, ".loopx/", err)
		if re := errs.As(err); re != nil && re.Kind == errs.No && !strings.HasPrefix(re.Message, "doctor --accept-store") {
			re.Message = "doctor --accept-store is for a human: " + re.Message
		}
		return err
	}
	d := e.DecideAcceptStore(ctx, ch)
	if !d.Allow && !d.OnlyConfirmationPending() {
		return refuse(e.Refusal(d))
	}
	if d.Allow {
		return nil
	}
	if err := e.Release(); err != nil { // never hold the state lock while a person types
		return err
	}
	typed, ttyErr := ask(t, AcceptStorePrompt)
	ch.Typed, ch.TTYError = &typed, ttyErr
	if d := e.DecideAcceptStore(ctx, ch); !d.Allow {
		return refuse(e.Refusal(d))
	}
	return nil
}
