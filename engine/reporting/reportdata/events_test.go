package reportdata

import (
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

func TestEventFilter(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	ev := func(kind string) records.Event { return records.Event{Kind: kind, Goal: "g1", At: now.Add(-time.Hour)} }
	for _, tc := range []struct {
		name  string
		f     EventFilter
		ev    records.Event
		match bool
	}{
		{"everything", EventFilter{}, ev("todo.claimed"), true},
		{"exact", EventFilter{Kind: "gate.answered"}, ev("gate.answered"), true},
		{"a family", EventFilter{Kind: "gate"}, ev("gate.answered"), true},
		{"a family's underscore kin", EventFilter{Kind: "gate"}, ev("gate_violation"), true},
		{"a family with its dot", EventFilter{Kind: "todo."}, ev("todo.claimed"), true},
		{"another family", EventFilter{Kind: "gate"}, ev("goal.paused"), false},
		{"a prefix is no family", EventFilter{Kind: "go"}, ev("goal.paused"), false},
		{"the sandbox family", EventFilter{Kind: "sandbox"}, ev("sandbox.unavailable"), true},
		{"the broker family", EventFilter{Kind: "broker"}, ev("broker.refused"), true},
		{"another goal", EventFilter{Goal: "g2"}, ev("todo.claimed"), false},
		{"recent enough", EventFilter{SinceSeconds: 3600}, ev("todo.claimed"), true},
		{"too old", EventFilter{SinceSeconds: 3599}, ev("todo.claimed"), false},
	} {
		if got := tc.f.Match(tc.ev, now); got != tc.match {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
	for kind, code := range map[string]string{"": "", "gate": "", "gate.answered": "", "todo.": "", "broker": "", "sandbox": "", "sandbox.off": "", "nope": "bad_kind", "nope.x": "bad_kind"} {
		if err := (EventFilter{Kind: kind}).Check(); errs.CodeOf(err) != code {
			t.Errorf("Check(%q): %v", kind, err)
		}
	}
}
