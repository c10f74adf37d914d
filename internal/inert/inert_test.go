package inert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText_RendersVisibly(t *testing.T) {
	for _, c := range []struct{ in, text, line string }{
		{"Merge the v2 branch?", "Merge the v2 branch?", "Merge the v2 branch?"},
		{"clear\x1b[2J\x1b[H", `clear\u001b[2J\u001b[H`, `clear\u001b[2J\u001b[H`},
		{"ok\rfake", `ok\u000dfake`, `ok\u000dfake`},
		{"two\nlines\tand tab", "two\nlines\tand tab", `two\u000alines\u0009and tab`},
		{"csi \u009b31m", `csi \u009b31m`, `csi \u009b31m`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`, `bidi \u202eevil\u202c \u2066x\u2069`},
		{"del\x7f bel\x07", `del\u007f bel\u0007`, `del\u007f bel\u0007`},
		{"byte \x9b31m", `byte \x9b31m`, `byte \x9b31m`},
		{"∞ ünïcode 漢字 🙂", "∞ ünïcode 漢字 🙂", "∞ ünïcode 漢字 🙂"},
	} {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

func TestCheck_NamesTheCharacter(t *testing.T) {
	for _, c := range []struct {
		in        string
		multiline bool
		want      string
	}{
		{"Merge now?", false, ""},
		{"a\nb", true, ""},
		{"a\nb", false, "the title holds the control character U+000A at byte 1"},
		{"a\x1b[2J", true, "the title holds the control character U+001B at byte 1"},
		{"ab\u202e", false, "the title holds the control character U+202E at byte 2"},
		{"ab\xff", false, "the title holds the byte 0xff, which is not UTF-8, at byte 2"},
	} {
		err := Check("the title", c.in, c.multiline)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", c.in, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("Check(%q) = %v, want %q…", c.in, err, c.want)
		}
	}
}

// TestWriter_JSONStaysExact: JSON written through the Writer decodes to the
// same value, and holds no character a terminal acts on.
func TestWriter_JSONStaysExact(t *testing.T) {
	v := map[string]any{"question": "Merge?\x1b[2J \u009b \u202e\u2028 ok", "n": 1}
	raw, _ := json.MarshalIndent(v, "", "  ")
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write(raw)
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if got["question"] != v["question"] {
		t.Fatalf("question = %q, want %q", got["question"], v["question"])
	}
	if i, r := Find(b.String(), true); i >= 0 {
		t.Fatalf("output holds %U at %d: %s", r, i, b.String())
	}
}

// FuzzWriter: whatever is written, in whatever pieces, the output holds no
// character a terminal acts on but newline and tab, and equals Text of the
// whole input.
func FuzzWriter(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "a\u009bb", "\u202e", "漢字", "\xe6\xbc", "\r\n\t", "\xff\xfe"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var b bytes.Buffer
		w := NewWriter(&b)
		if cut < 0 {
			cut = -cut
		}
		if len(s) > 0 {
			cut %= len(s) + 1
		} else {
			cut = 0
		}
		if n, err := w.Write([]byte(s[:cut])); err != nil || n != cut {
			t.Fatalf("Write = %d, %v", n, err)
		}
		w.Write([]byte(s[cut:]))
		w.Flush()
		if i, r := Find(b.String(), true); i >= 0 {
			t.Fatalf("output of %q holds %U at %d: %q", s, r, i, b.String())
		}
		if utf8.ValidString(s) && b.String() != Text(s) {
			t.Fatalf("split at %d: %q, want %q", cut, b.String(), Text(s))
		}
	})
}

func TestClip_KeepsWithinTheBound(t *testing.T) {
	for _, tc := range []struct {
		n         int
		multiline bool
	}{{0, false}, {MaxLine, false}, {MaxLine + 1, false}, {MaxText, true}, {MaxText + 1, true}, {5 * MaxText, true}} {
		s := strings.Repeat("é", tc.n)
		got := Clip(s, tc.multiline)
		limit := MaxLine
		if tc.multiline {
			limit = MaxText
		}
		if err := CheckLen("clipped", got, tc.multiline); err != nil {
			t.Errorf("Clip(%d runes): %v", tc.n, err)
		}
		if tc.n <= limit && got != s {
			t.Errorf("Clip(%d runes) changed a text within the bound", tc.n)
		}
		if tc.n > limit && !strings.HasSuffix(got, fmt.Sprintf("… (%d more characters)", tc.n-(limit-40))) {
			t.Errorf("Clip(%d runes) ends %q", tc.n, got[len(got)-40:])
		}
	}
}
