package decision

import (
	"errors"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/internal/errs"
)

func TestRefusal(t *testing.T) {
	for _, tc := range []struct {
		name       string
		reasons    []parts.Reason
		userPolicy bool
		kind       errs.Kind
		code, gate string
	}{
		{"no reason", nil, false, errs.No, "policy_undefined", ""},
		{"the first reason", []parts.Reason{{Code: "already_claimed", Message: "m"}, {Code: "x"}}, false, errs.No, "already_claimed", ""},
		{"unknown agent", []parts.Reason{{Code: "unknown_agent"}}, false, errs.Usage, "unknown_agent", ""},
		{"unknown option", []parts.Reason{{Code: "unknown_option"}}, false, errs.Usage, "unknown_option", ""},
		{"a user policy's error", []parts.Reason{{Code: "policy_error"}}, true, errs.Usage, "policy_error", ""},
		{"the built-in policy's error", []parts.Reason{{Code: "policy_error"}}, false, errs.No, "policy_error", ""},
		{"a gate", []parts.Reason{{Code: "gate_violation", Ref: "gate gate-7"}}, false, errs.No, "gate_violation", "gate-7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Refusal(Decision{Query: "claim", Reasons: tc.reasons}, tc.userPolicy)
			if !errs.IsKind(err, tc.kind) || errs.CodeOf(err) != tc.code {
				t.Fatalf("%v", err)
			}
			gate, ok := ViolatedGate(err)
			if gate != tc.gate || ok != (tc.gate != "") {
				t.Fatalf("gate %q %v, want %q", gate, ok, tc.gate)
			}
		})
	}
	if _, ok := ViolatedGate(errs.New(errs.No, "gate_violation", "no gate wrapped")); ok {
		t.Fatal("a gate_violation without its gate")
	}
	if _, ok := ViolatedGate(errors.New("gate_violation")); ok {
		t.Fatal("a plain error")
	}
	for ref, want := range map[string]string{"gate g1/merge": "g1/merge", "g1/merge": "g1/merge", "gate ": "gate "} {
		if got := GateIDFromRef(ref); got != want {
			t.Errorf("GateIDFromRef(%q) = %q, want %q", ref, got, want)
		}
	}
}
