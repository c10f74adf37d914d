package decision

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
)

func TestReplay(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("x", 3600))
	entry := func(id, verdict string) LogEntry {
		var le LogEntry
		le.DecisionID, le.Timestamp = id, t0
		le.Input.Query, le.Input.Goal, le.Input.Agent = "should_run", "g1", "a1"
		le.Result = json.RawMessage(`{"verdict": "` + verdict + `", "allow": ` + map[bool]string{true: "true", false: "false"}[verdict == "run"] + `, "reasons": []}`)
		return le
	}
	now := map[string]Decision{
		"d1": {Verdict: "run"},
		"d2": {Verdict: "deny", Reasons: []parts.Reason{{Rule: "data.loopx.user.should_run.deny", Code: "weekend", Message: "no"}}},
	}
	redecide := func(le LogEntry) (Decision, error) { return now[le.DecisionID], nil }
	entries := []LogEntry{entry("d1", "run"), entry("d2", "run")}
	rep, err := Replay(context.Background(), time.Time{}, entries, 3, nil, redecide)
	if err != nil || rep.Decisions != 2 || rep.Skipped != 3 || rep.Since != nil || len(rep.Changed) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	want := ReplayChange{DecisionID: "d2", Timestamp: t0.UTC(), Query: "should_run", Goal: "g1", Agent: "a1", Old: "run", New: "deny",
		Rule: "data.loopx.user.should_run.deny", Code: "weekend", Message: "no"}
	if rep.Changed[0] != want {
		t.Fatalf("%+v\nwant %+v", rep.Changed[0], want)
	}
	for _, tc := range []struct {
		name     string
		ctx      func() context.Context
		readErr  error
		redecide func(LogEntry) (Decision, error)
		want     string
	}{
		{"the log unreadable", context.Background, errors.New("unreadable"), redecide, "unreadable"},
		{"the store unusable", context.Background, nil, func(LogEntry) (Decision, error) { return Decision{}, errors.New("store") }, "store"},
		{"cancelled", func() context.Context { c, cancel := context.WithCancel(context.Background()); cancel(); return c }, nil, redecide, context.Canceled.Error()},
	} {
		rep, err := Replay(tc.ctx(), t0, entries, 0, tc.readErr, tc.redecide)
		if err == nil || err.Error() != tc.want || rep.Since == nil || !rep.Since.Equal(t0) || rep.Changed == nil || rep.Decisions != 0 {
			t.Errorf("%s: %+v %v", tc.name, rep, err)
		}
	}
}
