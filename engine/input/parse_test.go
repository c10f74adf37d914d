package input

import (
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
)

func TestParse(t *testing.T) {
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
			in, perm, state, err := Parse([]byte(tc.raw))
			if tc.bad {
				if errs.CodeOf(err) != "bad_input" || !errs.IsKind(err, errs.Usage) {
					t.Fatalf("%v", err)
				}
				return
			}
			if err != nil || in.Goal != tc.goal || string(perm) != tc.perm || state != tc.state {
				t.Fatalf("%+v %s %v %v", in, perm, state, err)
			}
		})
	}
}
