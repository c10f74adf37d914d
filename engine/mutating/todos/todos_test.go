package todos

import (
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

// TestValidate: each malformed todo is a usage error with its code; a
// good one without a kind is a task.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		in   Input
		code string
	}{
		{"good", Input{Title: "write the parser"}, ""},
		{"empty title", Input{Title: " "}, "empty_title"},
		{"bad kind", Input{Title: "x", Kind: "chore"}, "bad_kind"},
		{"bad priority", Input{Title: "x", Priority: 5}, "bad_priority"},
		{"every without monitor", Input{Title: "x", EverySeconds: 60}, "bad_every"},
		{"control character", Input{Title: "x\x1b]0;pwned\x07"}, "bad_title"},
		{"monitor without every", Input{Title: "x", Kind: records.KindMonitor}, "missing_every"},
		{"bad scope", Input{Title: "x", Scope: []string{"../etc/**"}}, "bad_scope"},
	} {
		in := c.in
		err := in.Validate()
		if got := errs.CodeOf(err); (err == nil) != (c.code == "") || (err != nil && got != c.code) {
			t.Errorf("%s: %v, want code %q", c.name, err, c.code)
		}
		if err == nil && in.Kind != records.KindTask {
			t.Errorf("%s: kind %q, want task", c.name, in.Kind)
		}
	}
}

// TestParsePriority: P0..P4 in either case, anything else bad_priority.
func TestParsePriority(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		code string
	}{{"P0", 0, ""}, {" p4 ", 4, ""}, {"P5", 0, "bad_priority"}, {"high", 0, "bad_priority"}} {
		got, err := ParsePriority(c.in)
		if got != c.want || (err == nil) != (c.code == "") || (err != nil && errs.CodeOf(err) != c.code) {
			t.Errorf("ParsePriority(%q) = %d, %v; want %d, %q", c.in, got, err, c.want, c.code)
		}
	}
}
