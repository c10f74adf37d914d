package decision

import (
	"strings"
	"testing"
)

// FuzzParseLogLine: the reading of a decision-log line (the
// current format through decisionlog, loopx's earlier format here) never panics,
// and a line it accepts has a decision id and gives a decision whose
// verdict is one of its query's (or a deny: a forged verdict is not
// believed). decisionlog's FuzzParseLine holds the corpus of lines and checks
// the files a line names.
func FuzzParseLogLine(f *testing.F) {
	f.Add([]byte(`{"decision_id":"01M8S0HFA24ENANJ7BKFA59G3E","path":"loopx/run/decision","input":{"query":"should_run"},"result":{"verdict":"yes"},"custom":{"input":"sha256:../../etc/passwd"}}`))
	f.Add([]byte(`{"decision_id":"01M8S0C43MDWYWDK41R4VN89Q3","path":"loopx/run/decision","input":{"query":"should_run","now":"2026-11-29T09:00:00Z","goal":"g1","agent":"a2","health":{"store":"","spec":"","policy":""},"state":{"revision":1,"goal_revision":1}},"input_hash":"sha256:6847fb4e94df73f498f11f7e46803e3eeadfbccba0d192c3d0b2cc0068e75615","result":{"decision_id":"01M8S0C43MDWYWDK41R4VN89Q3","query":"should_run","verdict":"wait_human","allow":false,"reasons":[],"goal":"g1","agent":"a2","todo":null,"quota":null,"next_check_at":null,"charge":false,"revision":{"spec":"sha256:beba","policy":"sha256:09ae","state":1}},"timestamp":"2026-11-29T09:00:00Z","revision":{"spec":"sha256:beba","policy":"sha256:09ae","state":1}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		le, ok := ParseLine(line)
		if !ok {
			return
		}
		if le.DecisionID == "" {
			t.Fatalf("accepted a line without a decision id: %q", line)
		}
		d := Logged(le)
		if q := le.Input.Query; d.Verdict != "deny" && !strings.Contains(strings.Join(Named(q).Verdicts, " "), d.Verdict) {
			t.Fatalf("verdict %q for query %q", d.Verdict, q)
		}
	})
}
