package input

import (
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
)

func TestParse(t *testing.T) {
	clock := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, raw  string
		bad        bool
		goal, perm string
		state      bool
	}{
		{"empty", `{}`, false, "", "", false},
		{"fields", `{"goal": "g1", "now": "2026-11-30T10:00:00Z"}`, false, "g1", "", false},
		{"a permission as written", `{"permission": {"tool": "Bash"}}`, false, "", `{"tool": "Bash"}`, false},
		{"a null permission", `{"permission": null}`, false, "", "", false},
		{"a state", `{"state": {"todos": []}}`, false, "", "", true},
		{"not an object", `[]`, true, "", "", false},
		{"null", `null`, true, "", "", false},
		{"not JSON", `{`, true, "", "", false},
		{"an unknown field", `{"gaol": "g1"}`, true, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, now, perm, state, err := Parse([]byte(tc.raw), "should_run", "", "", clock)
			if tc.bad {
				if errs.CodeOf(err) != "bad_input" || !errs.IsKind(err, errs.Usage) {
					t.Fatalf("%v", err)
				}
				return
			}
			if err != nil || in.Goal != tc.goal || string(perm) != tc.perm || state != tc.state || in.Query != "should_run" {
				t.Fatalf("%+v %s %v %v", in, perm, state, err)
			}
			if want := map[bool]time.Time{true: clock, false: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}[in.Now == "2026-11-29T08:00:00Z"]; !now.Equal(want) {
				t.Fatalf("now %s (input.now %q)", now, in.Now)
			}
		})
	}
}

// TestParse_Overrides: goal and agent given replace the input's; a
// malformed now is bad_input.
func TestParse_Overrides(t *testing.T) {
	clock := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	in, _, _, _, err := Parse([]byte(`{"goal": "g1", "agent": "a1"}`), "claim", "g2", "", clock)
	if err != nil || in.Goal != "g2" || in.Agent != "a1" || in.Query != "claim" || in.Now != "2026-11-29T08:00:00Z" {
		t.Fatalf("%+v %v", in, err)
	}
	if _, _, _, _, err := Parse([]byte(`{"now": "Monday"}`), "claim", "", "", clock); errs.CodeOf(err) != "bad_input" {
		t.Fatalf("%v", err)
	}
}
