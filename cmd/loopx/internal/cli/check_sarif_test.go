package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/loopx-dev/loopx/internal/sarifcheck"
	"github.com/loopx-dev/loopx/internal/testproject"
)

// scanFile is a published file whose name needs percent-encoding in a URI
// (non-ASCII, spaces, "[ ]", "%", "#") and whose hits follow multi-byte
// characters on their line.
const scanFile = "docs/naïve notes [draft] 100% #1.md"

// TestCheck_SARIFValidatesAgainstSchema runs `loopx check --format sarif`
// on a project with findings of every kind (spec lint, policy test,
// publication scan, replay) and validates the output against the official
// OASIS SARIF 2.1.0 schema with format assertions on (internal/sarifcheck):
// artifact URIs are RFC 3986 references that decode back to the file
// names, and every column counts UTF-16 code units (run.columnKind).
func TestCheck_SARIFValidatesAgainstSchema(t *testing.T) {
	t.Parallel()
	p := testproject.New(t, "")
	root := p.Root
	opts := Options{StateHome: p.StateHome, Now: p.Clock.Now}
	files := map[string]string{
		"loopx/loopx.cue": `project: name: "sarif"
agents: a1: {host: "shell"}
goals: g1: {
	objective: "Ship the v2 API 🚀", agents: ["a1"]
	scope: write: ["**"]
	gates: merge: {question: "Merge the v2 API 🚀?", guards: ["git.merge"], answerers: ["agent:ghost"]}
}
`,
		scanFile: "db at 10.0.0.12\n日本 🙂 password: $DB_PASSWORD\n",
	}
	policies := map[string]string{
		"loopx/policies/freeze.rego":      "package loopx.user.should_run\n\ndeny contains \"freeze\" if input.agent == \"a1\"\n",
		"loopx/policies/freeze_test.rego": "package loopx.user.should_run_test\n\ntest_fails if false\n",
	}
	write := func(files map[string]string) {
		for name, src := range files {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(files)
	var out, errb bytes.Buffer
	for _, args := range [][]string{{"todo", "add", "--goal", "g1", "Write the guide"}, {"decide", "should-run", "--goal", "g1", "--agent", "a1"}} {
		if code := RunWith(context.Background(), opts, append(args, "--project", root), strings.NewReader(""), &out, &errb); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	write(policies)
	out.Reset()
	code := RunWith(context.Background(), opts, []string{"check", "--project", root, "--format", "sarif", "--replay"}, strings.NewReader(""), &out, &errb)
	if code != ExitNo {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errb.String())
	}
	if err := sarifcheck.Validate(out.Bytes()); err != nil {
		t.Fatalf("SARIF does not validate: %v\n%s", err, out.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if ck := doc["runs"].([]any)[0].(map[string]any)["columnKind"]; ck != "utf16CodeUnits" {
		t.Errorf("columnKind %v", ck)
	}
	checkColumns(t, root, out.Bytes())
	results := doc["runs"].([]any)[0].(map[string]any)["results"].([]any)
	rules := map[string]bool{}
	for _, r := range results {
		rules[r.(map[string]any)["ruleId"].(string)] = true
	}
	for _, want := range []string{"unknown-agent", "goal-without-quota", "scope-writes-loopx", "policy-test", "private-ip", "credential"} {
		if !rules[want] {
			t.Errorf("no %s result in %v", want, rules)
		}
	}
	// The replayed decisions are in .loopx/ (never in a CI checkout): they
	// stay out of SARIF; every result's file exists in the project, and
	// every result has a partial fingerprint, every rule a help text.
	if rules["replay"] {
		t.Errorf("a replay result (pointing into .loopx/) is in SARIF")
	}
	for _, r := range results {
		m := r.(map[string]any)
		if fp, _ := m["partialFingerprints"].(map[string]any); fp == nil || fp["loopxFindingHash/v1"] == nil {
			t.Errorf("%s: no partialFingerprints: %v", m["ruleId"], m)
		}
		locs, _ := m["locations"].([]any)
		for _, l := range locs {
			uri := l.(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)["uri"].(string)
			name, _ := url.PathUnescape(uri)
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(name))); err != nil || strings.HasPrefix(name, ".loopx/") {
				t.Errorf("%s: location %s is not a file of the checkout", m["ruleId"], uri)
			}
		}
	}
	for _, r := range doc["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any) {
		if h, _ := r.(map[string]any)["help"].(map[string]any); h == nil || h["text"] == "" {
			t.Errorf("rule %v has no help", r.(map[string]any)["id"])
		}
	}
}

// checkColumns checks each result's region against the file it names: the
// URI decodes to a file under root, and startColumn, counted in UTF-16 code
// units, is where the result's text starts on its line: the credential at
// "$DB_PASSWORD" after "日本 🙂", the unknown answerer at "agent:ghost" after "🚀"
// (a byte column would point further right).
func checkColumns(t *testing.T, root string, sarif []byte) {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(sarif, &log); err != nil {
		t.Fatal(err)
	}
	at := map[string]string{}
	for _, r := range log.Runs[0].Results {
		for _, l := range r.Locations {
			pl := l.PhysicalLocation
			name, err := url.PathUnescape(pl.ArtifactLocation.URI)
			if err != nil {
				t.Errorf("%s: uri %q: %v", r.RuleID, pl.ArtifactLocation.URI, err)
				continue
			}
			if pl.Region == nil || pl.Region.StartColumn == 0 {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
			if err != nil {
				t.Errorf("%s: uri %q names no file: %v", r.RuleID, pl.ArtifactLocation.URI, err)
				continue
			}
			line := strings.Split(string(data), "\n")[pl.Region.StartLine-1]
			units := utf16.Encode([]rune(line))
			if pl.Region.StartColumn > len(units)+1 {
				t.Errorf("%s: %s:%d: column %d is past the line's %d UTF-16 units", r.RuleID, name, pl.Region.StartLine, pl.Region.StartColumn, len(units))
				continue
			}
			// The text at the column, back from UTF-16 units.
			prefix := string(utf16.Decode(units[:pl.Region.StartColumn-1]))
			if !strings.HasPrefix(line, prefix) {
				t.Errorf("%s: %s:%d:%d splits a character", r.RuleID, name, pl.Region.StartLine, pl.Region.StartColumn)
				continue
			}
			at[r.RuleID] = line[len(prefix):]
		}
	}
	for rule, want := range map[string]string{"credential": "$DB_PASSWORD", "unknown-agent": `"agent:ghost"`, "private-ip": "10.0.0.12"} {
		if !strings.HasPrefix(at[rule], want) {
			t.Errorf("%s result's column is at %q, want at %q", rule, at[rule], want)
		}
	}
}
