package rounds

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Round start's and round finish's contract types marshal to the bytes
// the engine's results do, with every record present and with none.
func TestContract_SameJSONAsTheResults(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	r := &records.Round{ID: "r1", Goal: "g1", Agent: "a1", Todo: "t1", Status: "finished", StartedAt: at, FinishedAt: at, Outcome: "progress", Charged: true}
	td := &records.Todo{ID: "t1", Goal: "g1", Title: "Ship", Kind: "task", Status: "done", Lease: &records.Lease{Holder: "a1", Released: true}, CreatedAt: at}
	g := &records.Gate{ID: "gt1", Goal: "g1", Question: "Stop?", Options: []string{"yes"}, Answer: &records.Answer{Option: "yes", By: "human", At: at}}
	l := &records.LedgerEntry{Seq: 4, Goal: "g1", Round: "r1", Rounds: 1, At: at, Reason: "progress"}
	h := &records.Handoff{ID: "h1", Goal: "g1", Summary: "done", CreatedAt: at}
	d := decision.Decision{Verdict: "run", Allow: true}
	for _, tc := range []struct {
		name       string
		res, contr any
	}{
		{"start, all", StartResult{Decision: d, Round: r, Todo: td, Gate: g}, StartResult{Decision: d, Round: r, Todo: td, Gate: g}.Contract()},
		{"start, none", StartResult{Decision: d}, StartResult{Decision: d}.Contract()},
		{"finish, all", Receipt{Round: *r, Charged: true, Ledger: l, Todo: td, Handoff: h, NextTodo: td, Gate: g, Replayed: true},
			Receipt{Round: *r, Charged: true, Ledger: l, Todo: td, Handoff: h, NextTodo: td, Gate: g, Replayed: true}.Contract()},
		{"finish, none", Receipt{}, Receipt{}.Contract()},
	} {
		want, _ := json.Marshal(tc.res)
		got, err := json.Marshal(tc.contr)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: contract %s (%v)\n  result %s", tc.name, got, err, want)
		}
	}
}
