package declog

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseLogLine: the decision-log reader never panics on a line (a torn
// write, a foreign or forged line); a line it accepts has a decision id and
// gives a decision whose verdict is one of its query's (or a deny), and the
// files it names stay inside .loopx/inputs and .loopx/bundles with 64-hex
// names. Seeds: testdata/fuzz/FuzzParseLogLine (a current line, a legacy
// line, a forged path, a torn line).
func FuzzParseLogLine(f *testing.F) {
	f.Add([]byte(`{"decision_id":"01M8S0HFA24ENANJ7BKFA59G3E","path":"loopx/run/decision","input":{"query":"should_run"},"result":{"verdict":"run"},"custom":{"input":"sha256:../../etc/passwd"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		le, ok := ParseLogLine(line)
		if !ok {
			return
		}
		if le.DecisionID == "" {
			t.Fatalf("accepted a line without a decision id: %q", line)
		}
		d := le.Decision()
		if q := le.Input.Query; d.Verdict != "deny" && !strings.Contains(strings.Join(verdicts[q], " "), d.Verdict) {
			t.Fatalf("verdict %q for query %q", d.Verdict, q)
		}
		state := filepath.Join("/p", StateDirName)
		check := func(p, dir, suffix string) {
			if p == "" {
				return
			}
			name, ok := strings.CutSuffix(filepath.Base(p), suffix)
			if filepath.Dir(p) != dir || !ok || !isHex64(name) {
				t.Fatalf("%q names %q outside %s", line, p, dir)
			}
		}
		check(le.InputPath(state), filepath.Join(state, InputsDirName), ".json")
		for _, name := range []string{PolicyBundle, SpecBundle} {
			check(le.BundlePath(state, name), filepath.Join(state, BundlesDirName, name), "")
		}
	})
}
