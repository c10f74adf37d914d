package errs

import (
	"fmt"
	"testing"
)

// TestHint_WordedWhereShown: an error's hint is worded by the sentences
// SetHints was given, with its values, after the message and "; ",
// wherever the error is shown (Error, Line, wrapped, the envelope, the
// lines for people); a hint without a sentence, and the zero hint, add
// nothing.
func TestHint_WordedWhereShown(t *testing.T) {
	SetHints(map[string]string{"behind": "restore it, or run `loopx doctor --accept-store` (human) to continue from revision %d"})
	t.Cleanup(func() { SetHints(nil) })
	e := &Error{Kind: Internal, Code: "store_error", Message: "state.db is at revision 2, behind 3", Hint: Hint{Key: "behind", Args: []any{2}}}
	want := "state.db is at revision 2, behind 3; restore it, or run `loopx doctor --accept-store` (human) to continue from revision 2"
	for name, got := range map[string]string{
		"Error":    e.Error(),
		"Line":     e.Line(),
		"wrapped":  fmt.Errorf("open: %w", e).Error(),
		"envelope": Envelope(fmt.Errorf("open: %w", e))[0].Message,
		"lines":    Lines(e)[0],
	} {
		w := want
		switch name {
		case "Line":
			w = "store_error: " + want
		case "wrapped", "envelope":
			w = "open: " + want
		case "lines":
			w = "loopx: " + want
		}
		if got != w {
			t.Errorf("%s: %q, want %q", name, got, w)
		}
	}
	for _, h := range []Hint{{}, {Key: "unworded"}} {
		e := &Error{Message: "what is wrong", Hint: h}
		if got := e.Error(); got != "what is wrong" {
			t.Errorf("hint %+v: %q", h, got)
		}
	}
}
