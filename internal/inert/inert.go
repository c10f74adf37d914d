// Package inert keeps text that came from outside loopx (gate questions,
// todo titles, notes, handoffs, file names, policy messages, reasons) from
// acting on a terminal: it names the characters a terminal would act on,
// renders them visibly, and finds them in input to refuse.
package inert

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Acts reports whether a terminal would act on r instead of showing it:
// C0 controls (U+0000–U+001F, which include ESC, CR and BS), DEL, C1
// controls (U+0080–U+009F, CSI among them), the bidirectional overrides,
// embeddings, isolates and marks (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069), and the line and paragraph separators U+2028, U+2029.
// Newline and tab are in the set: callers that keep them say so.
func Acts(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Text returns s with every character Acts reports, except newline and
// tab, rendered as a visible \uXXXX escape (ESC is \u001b), and every byte
// that is not UTF-8 as \xNN. Text without such characters is returned as
// it is. The escapes are also JSON escapes, so JSON text stays exact JSON.
func Text(s string) string { return escape(s, true) }

// Line is Text for one-line fields (a question, a title, a table cell):
// newline and tab are escaped too, so a value cannot fake further lines.
func Line(s string) string { return escape(s, false) }

func escape(s string, keepLines bool) string {
	if clean(s, keepLines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Acts(r) && !(keepLines && (r == '\n' || r == '\t')):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func clean(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || (Acts(r) && !(keepLines && (r == '\n' || r == '\t'))) {
			return false
		}
		i += n
	}
	return true
}

// Find returns the byte offset and the character of the first character
// in s that Acts reports (newline and tab allowed when multiline), or of
// the first byte that is not UTF-8 (as utf8.RuneError); -1 when none.
func Find(s string, multiline bool) (int, rune) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || (Acts(r) && !(multiline && (r == '\n' || r == '\t'))) {
			return i, r
		}
		i += n
	}
	return -1, 0
}

// Check returns an error naming field when s holds a character a terminal
// would act on (Find): "gate question holds the control character U+001B
// at byte 6; loopx refuses control characters, …". nil when s is clean.
func Check(field, s string, multiline bool) error {
	i, r := Find(s, multiline)
	if i < 0 {
		return nil
	}
	what := fmt.Sprintf("the control character U+%04X", r)
	if r == utf8.RuneError {
		what = fmt.Sprintf("the byte 0x%02x, which is not UTF-8,", s[i])
	}
	allowed := ""
	if multiline {
		allowed = " (newline and tab are allowed)"
	}
	return fmt.Errorf("%s holds %s at byte %d: loopx refuses control characters, escape sequences and bidirectional overrides in it%s", field, what, i, allowed)
}

// Writer renders everything written through it with Text. A character
// split across two writes is held until the next one completes it. It is
// safe for use by one goroutine at a time per writer, as the io.Writer it
// wraps.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p (with any bytes held from the previous write) and writes
// the result to the underlying writer. It reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	buf := p
	if len(w.pending) > 0 {
		buf = append(w.pending, p...)
		w.pending = nil
	}
	// Hold an incomplete UTF-8 sequence at the end for the next write.
	cut := len(buf)
	for k := 1; k <= 3 && k <= len(buf); k++ {
		c := buf[len(buf)-k]
		if c < 0x80 {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				cut = len(buf) - k
			}
			break
		}
	}
	if cut < len(buf) {
		w.pending = append([]byte(nil), buf[cut:]...)
	}
	if _, err := io.WriteString(w.w, Text(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes any bytes held for an incomplete character (escaped: they
// are not UTF-8).
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	s := Text(string(w.pending))
	w.pending = nil
	_, err := io.WriteString(w.w, s)
	return err
}

// MaxLine is the most characters a one-line text from outside may hold (a
// gate question or option, a todo title); MaxText the most a text of
// several lines may hold (a gate answer's note).
const (
	MaxLine = 1000
	MaxText = 10000
)

// MaxItems is the most entries a list from outside may hold (a todo's
// labels, scope globs and dependencies, a gate's options and guards, the
// evidence of one round finish).
const MaxItems = 100

// CheckList returns an error naming what when items holds more than
// MaxItems entries, or an entry longer than MaxLine characters or holding
// a character a terminal would act on (Check); nil otherwise.
func CheckList(what string, items []string) error {
	if len(items) > MaxItems {
		return fmt.Errorf("%s: %d entries, at most %d", what, len(items), MaxItems)
	}
	for _, s := range items {
		if err := CheckLen("an entry of "+what, s, false); err != nil {
			return err
		}
		if err := Check("an entry of "+what, s, false); err != nil {
			return err
		}
	}
	return nil
}

// Clip is s cut to MaxLine characters (MaxText when multiline), its end
// replaced by "… (N more characters)" when it was longer: for text loopx
// writes itself from what it cannot bound (a list of paths an agent
// wrote), where CheckLen would refuse what must be recorded.
func Clip(s string, multiline bool) string {
	limit := MaxLine
	if multiline {
		limit = MaxText
	}
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	r := []rune(s)
	tail := fmt.Sprintf("… (%d more characters)", n-(limit-40))
	return string(r[:limit-40]) + tail
}

// CheckLen returns an error naming what when s is longer than MaxLine
// characters (MaxText when multiline), nil otherwise: the one bound on
// the length of text that came from outside.
func CheckLen(what, s string, multiline bool) error {
	limit := MaxLine
	if multiline {
		limit = MaxText
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return fmt.Errorf("%s is %d characters long: at most %d", what, n, limit)
	}
	return nil
}
