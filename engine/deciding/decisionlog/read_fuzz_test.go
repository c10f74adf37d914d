package decisionlog

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// request and quota stand for the engine's line types in this package's
// tests: a request with the fields every line has, a quota summary.
type (
	request struct {
		Query string `json:"query"`
		Now   string `json:"now"`
		Goal  string `json:"goal"`
		Agent string `json:"agent"`
	}
	quota struct {
		Rounds struct {
			Used  int64  `json:"used"`
			Limit *int64 `json:"limit"`
		} `json:"rounds"`
	}
)

// FuzzParseLine: the decision-log reader never panics on a line (a torn
// write, a foreign or forged line); a line it accepts has a decision id and
// a JSON result, and the files it names stay inside .loopx/inputs and
// .loopx/bundles with 64-hex names. Seeds: testdata/fuzz/FuzzParseLine (a
// current line, a legacy line, a forged path, a torn line, a wrong
// verdict). The engine's FuzzParseLogLine checks what it decides of them.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"decision_id":"01M8S0HFA24ENANJ7BKFA59G3E","path":"loopx/run/decision","input":{"query":"should_run"},"result":{"verdict":"run"},"custom":{"input":"sha256:../../etc/passwd"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		le, ok := Parse[request, quota](line)
		if !ok {
			return
		}
		if le.DecisionID == "" || !json.Valid(le.Result) || le.Legacy {
			t.Fatalf("accepted a line without a decision id or result: %q", line)
		}
		state := filepath.Join("/p", ".loopx")
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
