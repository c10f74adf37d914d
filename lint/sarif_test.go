package lint

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/loopx-dev/loopx/internal/sarifcheck"
)

// validateSARIF checks doc against the official SARIF 2.1.0 schema with
// format assertions on (internal/sarifcheck).
func validateSARIF(t *testing.T, doc []byte) {
	t.Helper()
	if err := sarifcheck.Validate(doc); err != nil {
		t.Fatalf("SARIF does not validate: %v\n%s", err, doc)
	}
}

func sampleFindings() []Finding {
	return []Finding{
		{Rule: "goal-without-quota", Severity: SeverityError, Message: "goal g1 has no quota limit", Ref: "goals.g1.quota", Location: &Location{File: "loopx/loopx.cue", Row: 3, Col: 2}},
		{Rule: "expired-lease", Severity: SeverityWarning, Message: "todo t-1 is marked claimed", Ref: "todo t-1", Location: &Location{File: ".loopx/state.db"}},
		{Rule: CategoryCredential, Severity: SeverityError, Message: `GitHub token "ghp_…"`, Location: &Location{File: "docs/my notes#1 [draft] 100% naïve.md", Row: 2, Col: 16}},
		{Rule: "replay", Severity: SeverityWarning, Message: "decision 01J: run → deny", Ref: "decision 01J"},
		{Rule: "custom-rule", Severity: SeverityError, Message: "a rule nobody declared"},
	}
}

// sampleRoot holds the files sampleFindings point into: the credential's
// line has a 2-byte "é" and a 4-byte emoji (2 UTF-16 code units) before
// byte column 16.
var sampleRoot = fstest.MapFS{
	"loopx/loopx.cue":                       {Data: []byte("project: name: \"x\"\ngoals: g1: {\n\tobjective: \"x\"\n}\n")},
	"docs/my notes#1 [draft] 100% naïve.md": {Data: []byte("# notes\né 🙂 token: ghp_xxxx\n")},
}

func TestToSARIF_ValidatesAgainstTheSchema(t *testing.T) {
	log := ToSARIF(sampleFindings(), AllRules(), "v1.2.3", sampleRoot)
	raw, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, raw)
	run := log.Runs[0]
	if run.Tool.Driver.Name != "loopx" || len(run.Results) != 4 || log.Version != "2.1.0" || log.Schema == "" || run.ColumnKind != "utf16CodeUnits" {
		t.Fatalf("%+v", log)
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s points at rule %d %s", r.RuleID, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
	}
	r := run.Results[1]
	// "é 🙂 token: " is 15 bytes and 12 UTF-16 code units: byte column 16 is column 13.
	if r.Level != "error" || r.Locations[0].PhysicalLocation.ArtifactLocation.URI != "docs/my%20notes%231%20%5Bdraft%5D%20100%25%20na%C3%AFve.md" ||
		r.Locations[0].PhysicalLocation.Region.StartLine != 2 || r.Locations[0].PhysicalLocation.Region.StartColumn != 13 {
		t.Errorf("credential result %+v", r)
	}
	if c := run.Results[0].Locations[0].PhysicalLocation.Region.StartColumn; c != 2 {
		t.Errorf("ASCII column 2 became %d", c)
	}
	for _, r := range run.Results {
		if r.RuleID == "expired-lease" {
			t.Errorf("a result in .loopx/ (never in a checkout) is in SARIF: %+v", r)
		}
	}
	if len(run.Results[2].Locations) != 0 || !strings.HasSuffix(run.Results[2].Message.Text, "run → deny") {
		t.Errorf("replay result %+v", run.Results[2])
	}
}

// TestToSARIF_FingerprintsAndHelp: every rule has a help text; every
// result a partial fingerprint that stays when its line moves, differs
// for another line or rule, and counts repeats of the same line.
func TestToSARIF_FingerprintsAndHelp(t *testing.T) {
	log := ToSARIF(sampleFindings(), AllRules(), "v1", sampleRoot)
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		if strings.TrimSpace(r.Help.Text) == "" {
			t.Errorf("rule %s has no help text", r.ID)
		}
	}
	fp := func(files fstest.MapFS, fs ...Finding) []string {
		var out []string
		for _, r := range ToSARIF(fs, AllRules(), "v1", files).Runs[0].Results {
			out = append(out, r.PartialFingerprints[FingerprintKey])
		}
		return out
	}
	hit := func(row int) Finding {
		return Finding{Rule: CategoryPrivateIP, Severity: SeverityError, Message: "private IPv4 address 10.0.0.1", Location: &Location{File: "a.md", Row: row, Col: 4}}
	}
	before := fp(fstest.MapFS{"a.md": {Data: []byte("db 10.0.0.1\n")}}, hit(1))
	moved := fp(fstest.MapFS{"a.md": {Data: []byte("# title\n\ndb 10.0.0.1\n")}}, hit(3))
	other := fp(fstest.MapFS{"a.md": {Data: []byte("cache 10.0.0.1\n")}}, hit(1))
	twice := fp(fstest.MapFS{"a.md": {Data: []byte("db 10.0.0.1\ndb 10.0.0.1\n")}}, hit(1), hit(2))
	if before[0] == "" || before[0] != moved[0] || before[0] == other[0] || !strings.HasSuffix(before[0], ":1") ||
		len(twice) != 2 || twice[0] != before[0] || twice[1] != strings.TrimSuffix(before[0], "1")+"2" {
		t.Errorf("fingerprints: before %v moved %v other %v twice %v", before, moved, other, twice)
	}
}

func TestToSARIF_EmptyRunValidates(t *testing.T) {
	raw, _ := json.Marshal(ToSARIF(nil, AllRules(), "", nil))
	validateSARIF(t, raw)
	if !bytes.Contains(raw, []byte(`"results":[]`)) || !bytes.Contains(raw, []byte(`"columnKind":"utf16CodeUnits"`)) {
		t.Fatalf("results must be an empty array, columnKind set: %s", raw)
	}
}

func TestArtifactURI(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"loopx/loopx.cue", "loopx/loopx.cue"},
		{"a-b_c.d~e/F9.md", "a-b_c.d~e/F9.md"},
		{"docs/my notes.md", "docs/my%20notes.md"},
		{"docs/[draft].md", "docs/%5Bdraft%5D.md"},
		{"100%.md", "100%25.md"},
		{"a#b?c.md", "a%23b%3Fc.md"},
		{"naïve/日本.md", "na%C3%AFve/%E6%97%A5%E6%9C%AC.md"},
		{"🙂.md", "%F0%9F%99%82.md"},
		{"c:d.md", "c%3Ad.md"}, // not the scheme "c"
		{"a+b&c=d;e,f!g$h'i(j)k*l@m.md", "a%2Bb%26c%3Dd%3Be%2Cf%21g%24h%27i%28j%29k%2Al%40m.md"},
		{"tab\tnl\n.md", "tab%09nl%0A.md"},
		{"back\\slash.md", "back%5Cslash.md"},
	} {
		got := ArtifactURI(tc.path)
		if got != tc.want {
			t.Errorf("ArtifactURI(%q) = %q, want %q", tc.path, got, tc.want)
		}
		checkURI(t, tc.path, got)
	}
}

// checkURI checks that ref is an RFC 3986 relative reference with no
// scheme, query or fragment that decodes back to path.
func checkURI(t *testing.T, path, ref string) {
	t.Helper()
	if err := sarifcheck.URIReference(ref); err != nil {
		t.Errorf("%q → %q: %v", path, ref, err)
	}
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.RawQuery != "" || u.Fragment != "" || u.Host != "" {
		t.Errorf("%q → %q parses as %#v (%v)", path, ref, u, err)
		return
	}
	if back, err := url.PathUnescape(ref); err != nil || back != path {
		t.Errorf("%q → %q decodes to %q (%v)", path, ref, back, err)
	}
}

func FuzzArtifactURI(f *testing.F) {
	for _, s := range []string{"loopx/loopx.cue", "docs/my notes#1 [draft] 100% naïve.md", "🙂", "c:d", "a\x00b", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		checkURI(t, path, ArtifactURI(path))
	})
}

func TestToSARIF_ColumnsInUTF16CodeUnits(t *testing.T) {
	root := fstest.MapFS{
		"a.txt":    {Data: []byte("abc\né=x\n日本=x\n🙂=x\n\t=x\n\xff=x\nlast")},
		"crlf.txt": {Data: []byte("x\r\né=y\r\n")},
	}
	for _, tc := range []struct {
		file     string
		row, col int
		want     int
	}{
		{"a.txt", 1, 1, 1},
		{"a.txt", 1, 3, 3},
		{"a.txt", 1, 4, 4}, // the line's end
		{"a.txt", 1, 5, 0}, // past the end
		{"a.txt", 2, 3, 2}, // after "é" (2 bytes, 1 unit)
		{"a.txt", 2, 2, 0}, // inside "é"
		{"a.txt", 3, 7, 3}, // after "日本" (6 bytes, 2 units)
		{"a.txt", 4, 5, 3}, // after "🙂" (4 bytes, a surrogate pair)
		{"a.txt", 4, 6, 4}, // after "🙂="
		{"a.txt", 5, 2, 2}, // a tab is one column
		{"a.txt", 6, 2, 2}, // an invalid byte is one U+FFFD
		{"a.txt", 7, 4, 4}, // the last line, no newline
		{"a.txt", 8, 1, 0}, // no such line
		{"a.txt", 2, 0, 0}, // no column
		{"crlf.txt", 2, 4, 3},
		{"gone.txt", 1, 1, 0},
		{"../a.txt", 1, 1, 0},
	} {
		c := columnConverter{root: root, files: map[string][]byte{}}
		if got := c.utf16(tc.file, tc.row, tc.col); got != tc.want {
			t.Errorf("%s:%d:%d → column %d, want %d", tc.file, tc.row, tc.col, got, tc.want)
		}
	}
	if !utf8.ValidString("é") { // keep the table's bytes honest
		t.Fatal("source is not UTF-8")
	}
}

// TestWriteText_EveryHitGivesItsColumn: every finding with a position is
// file:line:col, a scan hit too (loopx check's help says so).
func TestWriteText_EveryHitGivesItsColumn(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, sampleFindings())
	want := `loopx/loopx.cue:3:2: goal-without-quota: goal g1 has no quota limit
.loopx/state.db: expired-lease (warning): todo t-1 is marked claimed
docs/my notes#1 [draft] 100% naïve.md:2:16: credential: GitHub token "ghp_…"
decision 01J: replay (warning): decision 01J: run → deny
custom-rule: a rule nobody declared
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestCheckRule: a finding of check's own rule takes the severity
// CheckRules gives it; an unknown id is a programming error.
func TestCheckRule(t *testing.T) {
	for id, want := range map[string]string{RuleSpec: SeverityError, RulePolicy: SeverityError, RulePolicyTest: SeverityError, RuleReplay: SeverityWarning} {
		if f := CheckRule(id, "m"); f.Rule != id || f.Severity != want || f.Message != "m" {
			t.Errorf("CheckRule(%q) = %+v, want severity %s", id, f, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("CheckRule of an unknown id did not panic")
		}
	}()
	CheckRule("credential", "m")
}
