// Package gates checks a runtime gate request (`loopx gate raise`)
// before it is stored: a concrete question without control
// characters, distinct options, an expiry with its on_expiry option, at
// most one scope, well-formed answerers; and fills its defaults (options approve/reject,
// answerer human); and it is the shape of an answer to a gate. The top
// engine package resolves the scope's todo or agent and stores the gate.
package gates

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/specs"
)

// Input is a runtime gate to raise (`loopx gate raise`).
type Input struct {
	Goal     string
	Question string
	// Options default to ["approve", "reject"].
	Options []string
	// Answerers default to ["human"].
	Answerers []string
	// Exactly one of BlocksTodo / BlocksAgent may be set; neither blocks the
	// whole goal.
	BlocksTodo  string
	BlocksAgent string
	// Guards makes it an action gate: it blocks only these actions
	// ("git.push"), checked by permission decisions and guarded evidence.
	Guards []string
	// ExpiresAfter is how long it stays open (0 = never); OnExpiry is the
	// option applied then.
	ExpiresAfter time.Duration
	OnExpiry     string
	// By is who raises it (an agent id or "human").
	By string
}

// Validate checks in and fills its default options and answerers.
// Errors: errs.Usage empty_question, too_long, control_character, vague_question,
// bad_options, bad_answerer, bad_expiry, bad_on_expiry or bad_scope.
func (in *Input) Validate() error {
	if strings.TrimSpace(in.Question) == "" {
		return errs.Usagef("empty_question", "a gate needs a question")
	}
	if err := inert.CheckLen("the gate question (--question)", in.Question, false); err != nil {
		return errs.Usagef("too_long", "%v", err)
	}
	if err := inert.Check("the gate question", in.Question, false); err != nil {
		return errs.Usagef("control_character", "%v", err)
	}
	if err := inert.CheckList("the guarded actions (--guards)", in.Guards); err != nil {
		return errs.Usagef("too_long", "%v", err)
	}
	if len(in.Options) > inert.MaxItems {
		return errs.Usagef("too_long", "the gate options (--options): %d entries, at most %d", len(in.Options), inert.MaxItems)
	}
	for _, o := range in.Options {
		if err := inert.CheckLen("a gate option (--options)", o, false); err != nil {
			return errs.Usagef("too_long", "%v", err)
		}
		if err := inert.Check(fmt.Sprintf("gate option %q", o), o, false); err != nil {
			return errs.Usagef("control_character", "%v", err)
		}
	}
	if !specs.ConcreteQuestion(in.Question) {
		return errs.Usagef("vague_question", "gate question %q is not a concrete question: end it with \"?\" and use at least 4 words (e.g. \"Merge the v2 branch into main now?\")", in.Question)
	}
	seen := map[string]bool{}
	for _, o := range in.Options {
		if strings.TrimSpace(o) == "" || seen[o] {
			return errs.Usagef("bad_options", "gate options must be distinct and non-empty: %v", in.Options)
		}
		seen[o] = true
	}
	for _, a := range in.Answerers {
		if !specs.ValidAnswerer(a) {
			return errs.Usagef("bad_answerer", "--answerers %q: an answerer is \"human\" or \"agent:<id>\" (an id of letters, digits, '.', '_' or '-')", a)
		}
	}
	if in.ExpiresAfter < 0 {
		return errs.Usagef("bad_expiry", "--expires-after must be positive")
	}
	if in.OnExpiry != "" && in.ExpiresAfter == 0 {
		return errs.Usagef("bad_on_expiry", "--on-expiry needs --expires-after (when should the gate expire?)")
	}
	if n := btoi(in.BlocksTodo != "") + btoi(in.BlocksAgent != "") + btoi(len(in.Guards) > 0); n > 1 {
		return errs.Usagef("bad_scope", "give at most one of --blocks-todo, --blocks-agent and --guards")
	}
	if len(in.Options) == 0 {
		in.Options = []string{"approve", "reject"}
	}
	if len(in.Answerers) == 0 {
		in.Answerers = []string{"human"}
	}
	if in.OnExpiry != "" && !slices.Contains(in.Options, in.OnExpiry) {
		return errs.Usagef("bad_on_expiry", "on-expiry %q is not one of the options %v", in.OnExpiry, in.Options)
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Answer is an answer to a gate (`loopx gate answer`): the option
// chosen, a note, who answers and through which channel.
type Answer struct {
	Gate, Option, Note string
	// Actor is "human" or "agent:<id>".
	Actor string
	// Channel is how the answer came and the facts its caller gathered
	// (the gate decision's channel rules judge them).
	Channel input.Channel
}
