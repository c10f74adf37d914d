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
	return ConfirmRepair(ctx, e, c, t, Repair{Rule: "accept_store", Command: "doctor --accept-store",
		Kind: "store.accept_refused", Subject: ".loopx/", Prompt: AcceptStorePrompt})
}

// Repair is a human-only repair that loses or undoes something, which a
// person confirms by typing a word back on the controlling terminal after
// reading what is lost.
type Repair struct {
	// Rule names the deciding rule, data.loopx.repair.<Rule>
	// ("accept_store", "uninstall_hooks", "mark_reviewed"); the word to
	// type is the rule's.
	Rule string
	// Command is the command as a refusal names it ("hooks uninstall").
	Command string
	// Kind is the audit event kind of a refusal ("hooks.uninstall_refused"),
	// Subject what it is about.
	Kind, Subject string
	// Prompt is what the person reads before typing: what is lost, then
	// `type "WORD" to confirm: `.
	Prompt string
	// Nothing is true when the repair would change nothing: the channel is
	// still decided (an agent's attempt is refused and audited), but nobody
	// is asked to type.
	Nothing bool
}

// ConfirmRepair decides, for a human, whether the repair r may go ahead
// (data.loopx.repair.<r.Rule>): the channel is decided before anyone is
// asked (an agent, a round, an agent's descendant is refused), then, unless
// r.Nothing, the person reads r.Prompt on t and types the rule's word.
// Every refusal is audited (r.Kind) and its message starts with the
// command ("hooks uninstall is for a human: …"). Errors: errs.No refusals
// (not a human's channel, no terminal, not confirmed).
func ConfirmRepair(ctx context.Context, e *engine.Engine, c Caller, t Terminal, r Repair) error {
	actor, ch := rulesChannel(e, c)
	refuse := func(err error) error {
		e.AuditRefusal(r.Kind, "loopx "+r.Command, actor, r.Subject, err)
		if re := errs.As(err); re != nil && re.Kind == errs.No && !strings.HasPrefix(re.Message, r.Command) {
			re.Message = r.Command + " is for a human: " + re.Message
		}
		return err
	}
	d := e.DecideTypedRepair(ctx, r.Rule, ch)
	if !d.Allow && !d.OnlyConfirmationPending() {
		if r.Nothing && onlyConfirmation(d) { // no terminal, but nothing to confirm either
			return nil
		}
		return refuse(e.Refusal(d))
	}
	if d.Allow || r.Nothing {
		return nil
	}
	if err := e.Release(); err != nil { // never hold the state lock while a person types
		return err
	}
	typed, ttyErr := ask(t, r.Prompt)
	ch.Typed, ch.TTYError = &typed, ttyErr
	if d := e.DecideTypedRepair(ctx, r.Rule, ch); !d.Allow {
		return refuse(e.Refusal(d))
	}
	return nil
}
