package runround

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/mutating/agentloop"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

// fake is an Engine recording the finishes it was asked for and the
// events audited; gateOpen makes a charged finish a gate_violation.
type fake struct {
	finishes []rounds.FinishRequest
	events   []string
	gateOpen bool
	deny     bool // CheckWrites denies every write
}

func (f *fake) engine() Engine {
	return Engine{StateDirName: ".loopx",
		Finish: func(_ context.Context, id string, req rounds.FinishRequest) (rounds.Receipt, error) {
			f.finishes = append(f.finishes, req)
			if f.gateOpen && rounds.Charged(req.Outcome) {
				return rounds.Receipt{}, decision.GateViolation("gate-1", "gate gate-1 is open", nil)
			}
			return rounds.Receipt{Round: records.Round{ID: id, Outcome: req.Outcome}, Charged: rounds.Charged(req.Outcome)}, nil
		},
		VerifyReadModel: func() (bool, error) { return true, nil },
		CheckWrites: func(_ context.Context, goal, agent string, paths []string) (*decision.Decision, error) {
			if !f.deny || len(paths) == 0 {
				return nil, nil
			}
			var reasons []parts.Reason
			for _, p := range paths {
				if !strings.HasPrefix(p, "api/") {
					reasons = append(reasons, parts.Reason{Code: "outside_scope", Message: p + " is outside scope.write api/**"})
				}
			}
			if len(reasons) == 0 {
				return nil, nil
			}
			return &decision.Decision{Verdict: "deny", Reasons: reasons}, nil
		},
		RecordScopeViolation: func(goal, agent, round string, paths []string, d *decision.Decision, _ *records.Rules) (*records.Gate, error) {
			f.events = append(f.events, "scope_violation "+strings.Join(paths, ","))
			return nil, nil
		},
		Audit: func(ev records.Event) error { f.events = append(f.events, ev.Kind); return nil },
	}
}

func TestFinish(t *testing.T) {
	r := &records.Round{ID: "round-1", Goal: "g1", Agent: "a1"}
	for _, tc := range []struct {
		name     string
		f        fake
		o        agentloop.Outcome
		written  []string
		want     string // the outcome recorded
		finishes int
		events   string
		summary  string // the summary recorded ("": not checked)
	}{
		{"as the command ended", fake{}, agentloop.Outcome{Outcome: "progress", Done: true}, []string{"api/x.go"}, "progress", 1, "", ""},
		{"writes outside the scope are not progress", fake{deny: true}, agentloop.Outcome{Outcome: "progress", Done: true}, []string{"web/x.js"}, "failed", 1, "scope_violation web/x.js", ""},
		{"the summary and the audit list only the writes outside the scope", fake{deny: true}, agentloop.Outcome{Outcome: "progress", Done: true},
			[]string{"api/a.go", "web/x.js", "api/b.go", "web/y.js"}, "failed", 1, "scope_violation web/x.js,web/y.js",
			"wrote outside its scope (web/x.js, web/y.js): web/x.js is outside scope.write api/**"},
		{"a gate opened meanwhile", fake{gateOpen: true}, agentloop.Outcome{Outcome: "progress"}, nil, "no_change", 2, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Result{}
			x := &loop{e: tc.f.engine(), res: &res}
			got, err := x.Finish(context.Background(), r, tc.o, tc.written)
			if err != nil || got.Outcome != tc.want || len(tc.f.finishes) != tc.finishes || strings.Join(tc.f.events, ";") != tc.events {
				t.Fatalf("%+v %v finishes %+v events %v", got, err, tc.f.finishes, tc.f.events)
			}
			if tc.summary != "" && got.Summary != tc.summary {
				t.Fatalf("summary %q, want %q", got.Summary, tc.summary)
			}
			if got.Outcome != tc.o.Outcome && got.Done {
				t.Fatalf("a changed outcome is never done: %+v", got)
			}
			if len(res.Receipts) != 1 || res.Receipts[0].Round.Outcome != tc.want {
				t.Fatalf("receipts %+v", res.Receipts)
			}
		})
	}
}

func TestScanIncomplete(t *testing.T) {
	f := &fake{}
	res := Result{}
	x := &loop{e: f.engine(), res: &res}
	err := x.ScanIncomplete(context.Background(), &records.Round{ID: "round-1", Goal: "g1", Agent: "a1"}, "too many files", nil, nil)
	if errs.CodeOf(err) != "change_scan_incomplete" || !errs.IsKind(err, errs.No) {
		t.Fatal(err)
	}
	if len(f.finishes) != 1 || f.finishes[0].Outcome != records.OutcomeFailed || fmt.Sprint(f.events) != "[scope_violation.scan_incomplete]" || len(res.Receipts) != 1 {
		t.Fatalf("finishes %+v events %v receipts %+v", f.finishes, f.events, res.Receipts)
	}
}

func TestReported(t *testing.T) {
	f := &fake{deny: true}
	res := Result{}
	x := &loop{e: f.engine(), res: &res}
	if err := x.Reported(context.Background(), &records.Round{ID: "round-1"}, []string{"web/x.js"}); err != nil {
		t.Fatal(err)
	}
	if len(f.finishes) != 1 || f.finishes[0].Outcome != "" || fmt.Sprint(f.events) != "[scope_violation web/x.js]" || len(res.Receipts) != 1 {
		t.Fatalf("finishes %+v events %v", f.finishes, f.events)
	}
	f.deny = false
	failing := f.engine()
	failing.Finish = func(context.Context, string, rounds.FinishRequest) (rounds.Receipt, error) {
		return rounds.Receipt{}, errors.New("store")
	}
	if err := (&loop{e: failing, res: &res}).Reported(context.Background(), &records.Round{ID: "round-1"}, nil); err == nil {
		t.Fatal("a finish error is the loop's")
	}
}
