package audit

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// fakeTx knows todo t1, round r1 and gate gate-1 of goal g1, and counts
// polls per goal, gate and agent.
type fakeTx struct {
	events []records.Event
	polls  map[string]int64
}

func (f *fakeTx) Todo(id string) (records.Todo, error) {
	if id == "t1" {
		return records.Todo{ID: id, Goal: "g1"}, nil
	}
	return records.Todo{}, kernel.ErrNotFound
}
func (f *fakeTx) Round(id string) (records.Round, error) {
	if id == "r1" {
		return records.Round{ID: id, Goal: "g1"}, nil
	}
	return records.Round{}, kernel.ErrNotFound
}
func (f *fakeTx) Gate(id string) (records.Gate, error) {
	if id == "gate-1" {
		return records.Gate{ID: id, Goal: "g1"}, nil
	}
	return records.Gate{}, kernel.ErrNotFound
}
func (f *fakeTx) AppendEvent(e records.Event) error { f.events = append(f.events, e); return nil }
func (f *fakeTx) CountGatePoll(goal, gate, agent string) (records.GatePoll, error) {
	if f.polls == nil {
		f.polls = map[string]int64{}
	}
	k := goal + " " + gate + " " + agent
	f.polls[k]++
	return records.GatePoll{Goal: goal, Gate: gate, Agent: agent, Count: f.polls[k]}, nil
}

func line(e records.Event) string {
	return fmt.Sprintf("%s goal=%s actor=%s subject=%s msg=%q code=%v", e.Kind, e.Goal, e.Actor, e.Subject, e.Message, e.Data["code"])
}

func TestRefusal(t *testing.T) {
	for err, want := range map[error]bool{nil: false, errors.New("io"): false, errs.Usagef("bad", "x"): false, errs.New(errs.No, "no", "x"): true} {
		if (Refusal(err) != nil) != want {
			t.Errorf("Refusal(%v)", err)
		}
	}
}

func TestEvents(t *testing.T) {
	re := errs.New(errs.No, "agent_mismatch", "acts as a2")
	for _, tc := range []struct {
		name  string
		write func(tx Tx) error
		want  string
	}{
		{"a human-only command", func(tx Tx) error { return Command(tx, "rules.adopt_refused", "loopx adopt", "", "loopx/", re) },
			`rules.adopt_refused goal= actor=human subject=loopx/ msg="loopx adopt refused: acts as a2" code=agent_mismatch`},
		{"an answer", func(tx Tx) error { return Answer(tx, "gate-1", "agent:a1", re) },
			`gate.answer_refused goal=g1 actor=agent:a1 subject=gate-1 msg="acts as a2" code=agent_mismatch`},
		{"an answer to an unknown gate", func(tx Tx) error { return Answer(tx, "gate-9", "", re) },
			`gate.answer_refused goal= actor=human subject=gate-9 msg="acts as a2" code=agent_mismatch`},
		{"an act on a todo", func(tx Tx) error {
			return Identity(tx, trust.ActRequest{Agent: "a1", What: "todo claim", Todo: "t1"}, nil, nil, re)
		},
			`identity.refused goal=g1 actor=agent:a1 subject=todo claim msg="acts as a2" code=agent_mismatch`},
		{"an unnamed act on a round", func(tx Tx) error {
			return Identity(tx, trust.ActRequest{What: "round finish", Round: "r1"}, nil, nil, re)
		},
			`identity.refused goal=g1 actor=unnamed subject=round finish msg="acts as a2" code=agent_mismatch`},
		{"a gate violation", func(tx Tx) error {
			_, err := Violation(tx, "g1", "a1", decision.GateViolation("gate-1", "gate gate-1 is open", nil), map[string]any{"mutation": "round.finish"})
			return err
		}, `gate_violation goal=g1 actor=a1 subject=gate-1 msg="gate gate-1 is open" code=<nil>`},
	} {
		tx := &fakeTx{}
		if err := tc.write(tx); err != nil || len(tx.events) != 1 || line(tx.events[0]) != tc.want {
			t.Errorf("%s: %v %v", tc.name, tx.events, err)
		}
	}
	tx := &fakeTx{}
	if ok, err := Violation(tx, "g1", "a1", re, nil); ok || err != nil || len(tx.events) != 0 {
		t.Errorf("not a violation: %v %v %v", ok, err, tx.events)
	}
}

// TestViolation_PollsCounted: a round start refused by an open gate is a
// poll: counted per gate and agent, the first of each audited as a wait
// (gate.waited) with first_poll; other refused mutations are audited
// every time, as gate_violation.
func TestViolation_PollsCounted(t *testing.T) {
	tx := &fakeTx{}
	for _, c := range []struct{ gate, agent, mutation string }{
		{"gate-1", "a1", PollMutation}, {"gate-1", "a1", PollMutation}, {"gate-1", "a1", PollMutation},
		{"gate-1", "a2", PollMutation}, {"gate-1", "a2", PollMutation},
		{"gate-2", "a1", PollMutation},
		{"gate-1", "a1", "round.finish"}, {"gate-1", "a1", "round.finish"},
	} {
		err := decision.GateViolation(c.gate, "gate "+c.gate+" is open", nil)
		if ok, err := Violation(tx, "g1", c.agent, err, map[string]any{"mutation": c.mutation}); !ok || err != nil {
			t.Fatalf("%+v: %v %v", c, ok, err)
		}
	}
	var got []string
	for _, e := range tx.events {
		got = append(got, fmt.Sprintf("%s %s %s %v %v", e.Kind, e.Subject, e.Actor, e.Data["mutation"], e.Data["first_poll"]))
	}
	want := "gate.waited gate-1 a1 round.start true|gate.waited gate-1 a2 round.start true|gate.waited gate-2 a1 round.start true|" +
		"gate_violation gate-1 a1 round.finish <nil>|gate_violation gate-1 a1 round.finish <nil>"
	if strings.Join(got, "|") != want {
		t.Errorf("events %q\nwant %q", got, want)
	}
	if tx.polls["g1 gate-1 a1"] != 3 || tx.polls["g1 gate-1 a2"] != 2 || tx.polls["g1 gate-2 a1"] != 1 || len(tx.polls) != 3 {
		t.Errorf("polls %v", tx.polls)
	}
}

func TestDenial(t *testing.T) {
	d := decision.Decision{DecisionID: "d1", Verdict: "deny", Reasons: []parts.Reason{{Code: "protected_path", Message: "protected"}, {Code: "outside_scope"}}}
	for _, tc := range []struct {
		pr   input.PermissionRequest
		want string
	}{
		{input.PermissionRequest{Tool: "Bash", Command: "git push"}, "git push: protected"},
		{input.PermissionRequest{Tool: "Write", Paths: []input.PathFacts{{Path: "loopx/x.cue"}}}, "loopx/x.cue: protected"},
		{input.PermissionRequest{Tool: "WebFetch"}, "WebFetch: protected"},
		// the reason may be about any of the paths: every one is named
		{input.PermissionRequest{Tool: "Write", Paths: []input.PathFacts{{Path: "docs/guide.md"}, {Path: "loopx/x.cue"}}}, "docs/guide.md, loopx/x.cue: protected"},
		{input.PermissionRequest{Tool: "Write", Paths: []input.PathFacts{{Path: "1"}, {Path: "2"}, {Path: "3"}, {Path: "4"}, {Path: "5"}, {Path: "6"}, {Path: "7"}, {Path: "8"}, {Path: "9"}, {Path: "10"}}}, "1, 2, 3, 4, 5, 6, 7, 8 (and 2 more): protected"},
	} {
		r := Denial("g1", "a1", &tc.pr, d)
		if r.Message != tc.want || r.DecisionID != "d1" || len(r.Codes) != 2 || r.Goal != "g1" {
			t.Errorf("%+v", r)
		}
	}
}
