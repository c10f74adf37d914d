package rulebook

import "testing"

func TestLookupQuery(t *testing.T) {
	for in, want := range map[string]string{"should-run": "should_run", " should_run ": "should_run", "gate-answer": "gate_answer", "permission": "permission", "shouldrun": ""} {
		got, ok := LookupQuery(in)
		if ok != (want != "") || (ok && got.Name != want) {
			t.Errorf("LookupQuery(%q) = %q, %v", in, got.Name, ok)
		}
	}
	if _, err := CheckQuery("shouldrun"); err == nil || err.Error() != `unknown query "shouldrun" (known: claim, gate_answer, permission, should_run)` {
		t.Errorf("CheckQuery(shouldrun) = %v", err)
	}
}
