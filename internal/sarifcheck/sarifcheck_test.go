package sarifcheck

import (
	"net/url"
	"strings"
	"testing"
)

func TestURIReference_RFC3986(t *testing.T) {
	for _, tc := range []struct {
		ref string
		ok  bool
	}{
		// RFC 3986 §5.4: the base URI and the examples of references.
		{"http://a/b/c/d;p?q", true},
		{"g:h", true},
		{"g", true},
		{"./g", true},
		{"g/", true},
		{"/g", true},
		{"//g", true},
		{"?y", true},
		{"g?y", true},
		{"#s", true},
		{"g#s", true},
		{"g?y#s", true},
		{";x", true},
		{"g;x?y#s", true},
		{"", true},
		{".", true},
		{"../..", true},
		{"../../../g", true},
		{"g;x=1/../y", true},
		// What loopx writes.
		{"loopx/loopx.cue", true},
		{"docs/na%C3%AFve%20notes%20%5Bdraft%5D%20100%25%20%231.md", true},
		{"%F0%9F%99%82.md", true},
		// IP literals.
		{"http://[::1]:8080/x", true},
		{"http://[2001:db8::7]/c=GB?objectClass?one", true},
		{"http://[v7.fe80::1]/", true},
		{"http://[::1%25eth0]/", false}, // zone ids are not in RFC 3986
		{"http://[not-an-ip]/", false},
		{"http://[::1/", false},
		// What RFC 3986 forbids and net/url.Parse accepts.
		{"docs/naïve.md", false},
		{"docs/my notes.md", false},
		{"docs/[draft].md", false},
		{"a]b", false},
		{"a%zz", false},
		{"a%2", false},
		{"100%.md", false},
		{"a#b#c", false},
		{`a\b`, false},
		{"a<b>", false},
		{"a{b}", false},
		{"a|b", false},
		{"a^b", false},
		{"a`b", false},
		{`a"b`, false},
		{"tab\there", false},
		{"1a:b", false}, // a scheme starts with a letter; a first segment has no ":"
	} {
		err := URIReference(tc.ref)
		if (err == nil) != tc.ok {
			t.Errorf("URIReference(%q) = %v, want ok=%v", tc.ref, err, tc.ok)
		}
	}
}

// The library's own uri-reference check (net/url.Parse) lets through what
// RFC 3986 forbids: that is why this package registers its own.
func TestURIReference_StricterThanNetURL(t *testing.T) {
	for _, ref := range []string{"docs/naïve.md", "docs/my notes.md", "docs/[draft].md"} {
		if _, err := url.Parse(ref); err != nil {
			t.Fatalf("net/url.Parse(%q) refuses it now (%v): the library check may have become strict", ref, err)
		}
		if URIReference(ref) == nil {
			t.Errorf("%q accepted", ref)
		}
	}
}

func TestURI_NeedsAScheme(t *testing.T) {
	for ref, ok := range map[string]bool{
		SchemaURL:              true,
		"urn:isbn:0451450523":  true,
		"relative/path":        false,
		"https://x/a b":        false,
		"https://x/%E2%9C%93":  true,
		"https://x/✓":          false,
		"mailto:a@example.com": true,
	} {
		if err := URI(ref); (err == nil) != ok {
			t.Errorf("URI(%q) = %v, want ok=%v", ref, err, ok)
		}
	}
}

func minimal(uri, columnKind string) string {
	ck := ""
	if columnKind != "" {
		ck = `, "columnKind": "` + columnKind + `"`
	}
	return `{"version": "2.1.0", "$schema": "` + SchemaURL + `", "runs": [{"tool": {"driver": {"name": "x"}}` + ck + `,
	  "results": [{"message": {"text": "t"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "` + uri + `"}, "region": {"startLine": 1, "startColumn": 2}}}]}]}]}`
}

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		doc  string
		want string // "" = valid; else a part of the error
	}{
		"valid":            {minimal("docs/a%20b.md", "utf16CodeUnits"), ""},
		"space in uri":     {minimal("docs/a b.md", "utf16CodeUnits"), "uri-reference"},
		"non-ASCII uri":    {minimal("docs/é.md", "utf16CodeUnits"), "uri-reference"},
		"brackets in uri":  {minimal("docs/[x].md", "utf16CodeUnits"), "uri-reference"},
		"bad column kind":  {minimal("a", "bytes"), "columnKind"},
		"no version":       {`{"runs": []}`, "version"},
		"bad version":      {`{"version": "2.0.0", "runs": []}`, "version"},
		"no driver name":   {`{"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}`, "name"},
		"result no text":   {`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "r", "message": {}}]}]}`, "message"},
		"bad level":        {`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"level": "fatal", "message": {"text": "t"}}]}]}`, "level"},
		"line zero":        {strings.Replace(minimal("a", "utf16CodeUnits"), `"startLine": 1`, `"startLine": 0`, 1), "startLine"},
		"unknown property": {`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "colour": "red"}}}]}`, "colour"},
		"bad schema uri":   {`{"version": "2.1.0", "$schema": "sarif schema", "runs": []}`, "$schema"},
		"not JSON":         {`{"version": `, "not JSON"},
	} {
		err := Validate([]byte(tc.doc))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.want != "" && err == nil:
			t.Errorf("%s: validated", name)
		case tc.want != "" && !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: error does not name %q: %v", name, tc.want, err)
		}
	}
}
