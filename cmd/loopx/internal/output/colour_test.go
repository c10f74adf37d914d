package output

import (
	"bytes"
	"testing"
)

// TestPaint_ColoursLoopxsOwnWords: a decision's verdict, check's summary
// and each finding's rule (red an error, yellow a warning), a pending rule
// change, a note and loopx's error prefix are coloured; any other line,
// and the same words elsewhere on a line, are not.
func TestPaint_ColoursLoopxsOwnWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"should_run: run t-1 \"x\"", "should_run: \x1b[32mrun\x1b[0m t-1 \"x\""},
		{"should_run: deny", "should_run: \x1b[31mdeny\x1b[0m"},
		{"should_run: wait_human", "should_run: \x1b[33mwait_human\x1b[0m"},
		{"permission: defer", "permission: \x1b[33mdefer\x1b[0m"},
		{"check ok: 0 errors, 0 warnings", "\x1b[32mcheck ok\x1b[0m: 0 errors, 0 warnings"},
		{"check failed: 1 errors", "\x1b[31mcheck failed\x1b[0m: 1 errors"},
		{"docs/a.md:3:5: credential: x", "docs/a.md:3:5: \x1b[31mcredential\x1b[0m: x"},
		{"ci/d.yml:2:13: credential (warning): x", "ci/d.yml:2:13: \x1b[33mcredential (warning)\x1b[0m: x"},
		{"rules pending: loopx/ changed", "\x1b[33mrules pending\x1b[0m: loopx/ changed"},
		{"> rules pending: loopx/ changed", "> \x1b[33mrules pending\x1b[0m: loopx/ changed"},
		{"note: x", "\x1b[33mnote\x1b[0m: x"},
		{"loopx: unknown goal", "\x1b[1m\x1b[31mloopx\x1b[0m: unknown goal"},
		{"  no_todo: no open todos", "  no_todo: no open todos"},
		{"goal g1 [active] says deny", "goal g1 [active] says deny"},
		{`  "verdict": "deny",`, `  "verdict": "deny",`},
	} {
		if got := string(Paint([]byte(tc.in))); got != tc.want {
			t.Errorf("Paint(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPainter_LinesAcrossWrites: a line split over writes is painted once
// whole; Off passes the bytes through; Flush writes a partial line.
func TestPainter_LinesAcrossWrites(t *testing.T) {
	var b bytes.Buffer
	p := NewPainter(&b)
	for _, s := range []string{"should_", "run: deny\nno", "te: x"} {
		if _, err := p.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "should_run: \x1b[31mdeny\x1b[0m\n\x1b[33mnote\x1b[0m: x"; b.String() != want {
		t.Errorf("painted %q, want %q", b.String(), want)
	}
	b.Reset()
	off := NewPainter(&b)
	off.Off = true
	_, _ = off.Write([]byte("should_run: deny\n"))
	if b.String() != "should_run: deny\n" {
		t.Errorf("Off painted: %q", b.String())
	}
}

func TestColourWanted(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"NO_COLOR": ""}, true},
		{true, map[string]string{"TERM": "dumb"}, false},
	} {
		if got := ColourWanted(tc.tty, env(tc.env)); got != tc.want {
			t.Errorf("ColourWanted(%v, %v) = %v", tc.tty, tc.env, got)
		}
	}
}
