package glob

import "testing"

func TestOverlap(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"docs/**", "docs/a.md", true},
		{"docs/", "docs/sub/a.md", true},
		{"./docs/a.md", "docs/a.md", true},
		{"docs/**", "docs", true},
		{"docs/**", "api/**", false},
		{"docs/*.md", "docs/a.go", false},
		{"docs/*.md", "docs/sub/a.md", false},
		{"api/*.go", "api/*.md", false},
		{"api/*.go", "api/h*", true},
		{"**/*.go", "cmd/main.go", true},
		{"**/*.go", "cmd/**/*_test.go", true},
		{"**/*.go", "docs/**/*.md", false},
		{"src/{a,b}/x", "src/b/*", true},
		{"src/{a,b}/x", "src/c/*", false},
		{"src/a/**", "src/b/**", false},
		{"a/[bc].md", "a/d.md", false},
		{"a/[bc].md", "a/c.md", true},
		{"a/[!b].md", "a/b.md", false},
		{"a/[bc].md", "a/[cd].md", true},
		{"*", "docs/a.md", false},
		{"**", "anything/at/all", true},
		{"a?c", "abc", true},
		{"a?c", "abbc", false},
		{"*a*b*", "*b*a*", true},
		{"x*y", "*z", false},
	}
	for _, c := range cases {
		for _, swap := range []bool{false, true} {
			a, b := c.a, c.b
			if swap {
				a, b = b, a
			}
			if _, _, got := Overlap([]string{a}, []string{b}); got != c.want {
				t.Errorf("overlap(%q, %q) = %v, want %v", a, b, got, c.want)
			}
		}
	}
	if _, _, ok := Overlap(nil, []string{"**"}); ok {
		t.Error("a todo without scope overlaps")
	}
}

func TestValidate(t *testing.T) {
	for _, ok := range []string{"docs/**", "api/*.go", "src/{a,b}/x", "docs/"} {
		if err := Validate([]string{ok}); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "/etc/**", "../x", "a/[b"} {
		if err := Validate([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
