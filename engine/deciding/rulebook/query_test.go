package rulebook

import "testing"

func TestQueryName(t *testing.T) {
	for in, want := range map[string]string{"should-run": "should_run", " should_run ": "should_run", "gate-answer": "gate_answer", "permission": "permission", "shouldrun": ""} {
		got, ok := QueryName(in)
		if ok != (want != "") || (ok && got != want) {
			t.Errorf("QueryName(%q) = %q, %v", in, got, ok)
		}
	}
}
