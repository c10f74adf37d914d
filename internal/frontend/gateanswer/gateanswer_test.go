package gateanswer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/testproject"
	"github.com/loopx-dev/loopx/kernel"
)

const testSpec = `project: name: "ga"
agents: a1: {host: "shell"}
goals: g1: {
	objective: "Ship the v2 API"
	agents: ["a1"]
	quota: {window: "24h", rounds: 3, min_interval: "5m"}
}
`

// fakeTerminal answers Ask with typed (or err) and records the prompts.
type fakeTerminal struct {
	typed   string
	err     error
	prompts []string
}

func (f *fakeTerminal) Ask(prompt string) (string, error) {
	f.prompts = append(f.prompts, prompt)
	return f.typed, f.err
}

// newEngine makes a project with testSpec (internal/testproject) and opens
// its engine at a fixed instant, with the ancestry walk off (the test's
// own ancestors must not decide).
func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	p := testproject.New(t, testSpec)
	p.Clock.Set(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	e := engine.New(engine.Options{Root: p.Root, StateHome: p.StateHome, Now: p.Clock.Now, Ancestry: trust.AncestryOptions{Off: true}})
	t.Cleanup(func() { e.Close() })
	return e
}

func TestAnswer_ChannelAndConfirmation(t *testing.T) {
	t.Parallel()
	human := Caller{StdinTTY: true}
	for _, tc := range []struct {
		name   string
		caller Caller
		actor  string
		typed  string // "=" types the gate id
		ttyErr error
		// asked is whether the terminal is asked at all; code the
		// refusal's code ("" = recorded).
		asked bool
		code  string
	}{
		{name: "human types the gate id", caller: human, typed: "=", asked: true},
		{name: "human types something else", caller: human, typed: "yes", asked: true, code: "confirmation_mismatch"},
		{name: "no controlling terminal", caller: human, ttyErr: errors.New("open /dev/tty: no such device"), asked: true, code: "confirmation_required"},
		{name: "inside a round", caller: Caller{Round: "r-1", StdinTTY: true}, typed: "=", code: "self_answer_forbidden"},
		{name: "an agent posing as a human", caller: Caller{Agent: "a1", StdinTTY: true}, actor: "human", typed: "=", code: "self_answer_forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t)
			g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Merge the v2 branch into main?", By: "agent:a1"})
			if err != nil {
				t.Fatal(err)
			}
			term := &fakeTerminal{typed: tc.typed, err: tc.ttyErr}
			if term.typed == "=" {
				term.typed = g.ID
			}
			got, err := Answer(context.Background(), e, gates.Answer{Gate: g.ID, Option: "approve", Actor: tc.actor}, tc.caller, term)
			if asked := len(term.prompts) > 0; asked != tc.asked {
				t.Errorf("terminal asked %v, want %v (%q)", asked, tc.asked, term.prompts)
			}
			if tc.asked && !strings.Contains(term.prompts[0], "type the gate id to confirm") {
				t.Errorf("prompt %q", term.prompts[0])
			}
			if tc.code == "" {
				if err != nil || got.Status != "approve" {
					t.Fatalf("got %+v, %v; want approved", got, err)
				}
				return
			}
			if code := errs.CodeOf(err); code != tc.code || !errs.IsKind(err, errs.No) {
				t.Fatalf("err %v (code %q), want refusal %s", err, code, tc.code)
			}
			if g2, _ := e.Gate(g.ID); g2.Status != "open" {
				t.Errorf("gate %s after a refusal, want open", g2.Status)
			}
		})
	}
}

func TestChannel_DefaultsTheActor(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	for _, tc := range []struct {
		caller      Caller
		actor, want string
		kind        string
	}{
		{Caller{}, "", "human", "terminal"},
		{Caller{Agent: "a1"}, "", "agent:a1", "agent"},
		{Caller{}, "agent:a1", "agent:a1", "agent"},
	} {
		actor := tc.actor
		ch := Channel(e, tc.caller, &actor)
		if actor != tc.want || ch.Kind != tc.kind || ch.InRound != (tc.caller.Agent != "") {
			t.Errorf("%+v %q: actor %q channel %+v", tc.caller, tc.actor, actor, ch)
		}
	}
}

// TestProblemLine: a user policy's problem as loopx adopt shows it: its
// position as loopx check shows it (no column when the parser gave none),
// the rule when known, and inert text.
func TestProblemLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    rulebook.Problem
		want string
	}{
		{rulebook.Problem{File: "loopx/policies/x.rego", Row: 4, Col: 2, Code: "rego_type_error", Message: "undefined ref: input.x", Rule: "deny"},
			"warning: loopx/policies/x.rego:4:2: rego_type_error: undefined ref: input.x (rule deny)"},
		{rulebook.Problem{File: "loopx/policies/x.rego", Row: 3, Code: "policy_error", Message: "rego_parse_error: unexpected eof"},
			"warning: loopx/policies/x.rego:3: policy_error: rego_parse_error: unexpected eof"},
		{rulebook.Problem{File: "loopx/policies/\x1b[31mx.rego", Row: 1, Col: 1, Code: "policy_error", Message: "bell\a"},
			`warning: loopx/policies/\u001b[31mx.rego:1:1: policy_error: bell\u0007`},
	} {
		if got := ProblemLine(tc.p); got != tc.want {
			t.Errorf("ProblemLine(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// lockProbe is a terminal that, while the person would type, takes the
// state lock as another process would (flock on its own open file) and
// counts the write transactions run before it was asked.
type lockProbe struct {
	fakeTerminal
	lockPath string
	lockErr  error
	writes   uint64
}

func (p *lockProbe) Ask(prompt string) (string, error) {
	p.writes = kernel.WriteTransactions()
	f, err := os.OpenFile(p.lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		p.lockErr = err
	} else {
		p.lockErr = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		f.Close() // releases the lock
	}
	return p.fakeTerminal.Ask(prompt)
}

// TestAnswer_PreviewReadsAndOneWriteRecords answers a gate as a human at a
// terminal: nothing is written before the person is asked, the state lock
// is free while they type (another process takes it), and the answer is
// decided again and recorded in one write transaction.
//
// Not parallel: it counts this process's write transactions
// (kernel.WriteTransactions), which parallel tests would add to.
func TestAnswer_PreviewReadsAndOneWriteRecords(t *testing.T) {
	e := newEngine(t)
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Merge the v2 branch into main?", By: "agent:a1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	p := &lockProbe{fakeTerminal: fakeTerminal{typed: g.ID}, lockPath: filepath.Join(e.StateDir(), kernel.LockFile)}
	start := kernel.WriteTransactions()
	got, err := Answer(context.Background(), e, gates.Answer{Gate: g.ID, Option: "approve"}, Caller{StdinTTY: true}, p)
	if err != nil || got.Status != "approve" {
		t.Fatalf("got %+v, %v; want approved", got, err)
	}
	if len(p.prompts) != 1 {
		t.Fatalf("asked %d times", len(p.prompts))
	}
	if n := p.writes - start; n != 0 {
		t.Errorf("%d write transactions before the person was asked, want 0", n)
	}
	if p.lockErr != nil {
		t.Errorf("the state lock was held while the person typed: %v", p.lockErr)
	}
	if n := kernel.WriteTransactions() - start; n != 1 {
		t.Errorf("%d write transactions in all, want 1", n)
	}
}
