package query

import (
	"slices"
	"testing"
)

func TestQueries(t *testing.T) {
	for _, tc := range []struct {
		q                    Query
		name, area, path     string
		pkg, user, field     string
		allows, doesNotAllow string
	}{
		{ShouldRun, "should_run", "run", "loopx/run/decision", "loopx.run", "loopx.user.should_run", "", "run", "skip"},
		{Permission, "permission", "permission", "loopx/permission/decision", "loopx.permission", "loopx.user.permission", "permission", "allow", "defer"},
		{Claim, "claim", "claim", "loopx/claim/decision", "loopx.claim", "loopx.user.claim", "claim", "allow", "deny"},
		{GateAnswer, "gate_answer", "gate", "loopx/gate/decision", "loopx.gate", "loopx.user.gate_answer", "answer", "allow", "deny"},
	} {
		q := tc.q
		if q.Name != tc.name || q.Area() != tc.area || q.Path() != tc.path || q.Package() != tc.pkg || q.User != tc.user || q.InputField != tc.field {
			t.Errorf("%s: name %q area %q path %q package %q user %q field %q", tc.name, q.Name, q.Area(), q.Path(), q.Package(), q.User, q.InputField)
		}
		if !q.Allows(tc.allows) || q.Allows(tc.doesNotAllow) || q.Allows("nonsense") {
			t.Errorf("%s: Allows(%q) %v, Allows(%q) %v", tc.name, tc.allows, q.Allows(tc.allows), tc.doesNotAllow, q.Allows(tc.doesNotAllow))
		}
		if got, ok := ByName(tc.name); !ok || got.Entry != q.Entry {
			t.Errorf("ByName(%q) = %v, %v", tc.name, got, ok)
		}
	}
	if _, ok := ByName("should-run"); ok {
		t.Error("ByName takes the name as the decision log writes it, not as people type it")
	}
	if got := Names(); !slices.Equal(got, []string{"should_run", "permission", "claim", "gate_answer"}) {
		t.Errorf("Names() = %v", got)
	}
	if got := Verdicts(); !slices.Equal(got, []string{"run", "skip", "wait_human", "deny", "allow", "defer", "ask"}) {
		t.Errorf("Verdicts() = %v", got)
	}
}
