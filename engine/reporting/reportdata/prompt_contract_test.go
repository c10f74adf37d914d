package reportdata

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// The prompt's contract type marshals to the bytes the prompt itself does,
// with a todo and without.
func TestPrompt_ContractSameJSON(t *testing.T) {
	todo := &records.Todo{ID: "t1", Seq: 2, Goal: "g1", Title: "Ship", Kind: "task", Status: "claimed", Priority: 1,
		Labels: []string{"api"}, Lease: &records.Lease{Holder: "a1", Version: 1, Epoch: 1}, CreatedAt: time.Unix(0, 0).UTC()}
	for _, p := range []Prompt{
		{Goal: "g1", Agent: "a1", Verdict: "run", DecisionID: "d1", Todo: todo, Round: "r1", Text: "# Go", Chars: 4, Truncated: true},
		{Goal: "g1", Agent: "a1", Verdict: "skip", DecisionID: "d2"},
	} {
		want, _ := json.Marshal(p)
		got, _ := json.Marshal(p.Contract())
		if string(got) != string(want) {
			t.Errorf("contract %s\n  prompt %s", got, want)
		}
	}
}
