package reportdata

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
)

// fakeLog is a decision log of JSON lines in files; a line "torn" does
// not parse.
type fakeLog struct{ files []string }

func (l fakeLog) Files() []string { return l.files }
func (l fakeLog) Parse(line []byte) (decision.LogEntry, bool) {
	var le decision.LogEntry
	return le, json.Unmarshal(line, &le) == nil
}

func TestRefusals(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	line := func(id, goal, agent, verdict, code string, at time.Time) string {
		return fmt.Sprintf(`{"decision_id": %q, "input": {"query": "should_run", "goal": %q, "agent": %q}, "result": {"verdict": %q, "allow": %v, "reasons": [{"code": %q, "message": "m"}]}, "timestamp": %q}`,
			id, goal, agent, verdict, verdict == "run", code, at.Format(time.RFC3339))
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "decisions-1.jsonl")
	cur := filepath.Join(dir, "decisions.jsonl")
	os.WriteFile(old, []byte(strings.Join([]string{
		line("d1", "g1", "a1", "wait_human", "gate_open", t0),
		line("d0", "g1", "a1", "wait_human", "gate_open", t0.Add(-2*time.Hour)), // before since
	}, "\n")+"\n"), 0o644)
	os.WriteFile(cur, []byte(strings.Join([]string{
		line("d2", "g1", "a1", "wait_human", "gate_open", t0.Add(time.Minute)),
		line("d3", "g1", "a1", "run", "", t0.Add(2*time.Minute)),       // allowed
		line("d4", "g2", "a1", "deny", "quota", t0.Add(3*time.Minute)), // another goal
		line("d5", "g1", "a2", "deny", "quota", t0.Add(4*time.Minute)), // another group
		line("d6", "g1", "a2", "deny", "quota", t0.Add(48*time.Hour)),  // after now
	}, "\n")+"\n"), 0o644)
	got := Refusals(fakeLog{[]string{old, cur}}, "g1", t0.Add(-time.Hour), t0.Add(time.Hour))
	var s []string
	for _, r := range got {
		s = append(s, fmt.Sprintf("%s/%s/%s×%d %s..%s last %s", r.Agent, r.Verdict, r.Reasons[0].Code, r.Count, r.First.Format("15:04"), r.Last.Format("15:04"), r.LastID))
	}
	want := []string{"a2/deny/quota×1 10:04..10:04 last d5", "a1/wait_human/gate_open×2 10:00..10:01 last d2"}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
	if got := Refusals(fakeLog{[]string{filepath.Join(dir, "missing")}}, "g1", t0, t0); got == nil || len(got) != 0 {
		t.Fatalf("no log: %v", got)
	}
}
