// Package output renders loopx command results: one JSON document on
// stdout under --json, human text otherwise, and errors in both forms.
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
)

// JSON writes v as one indented JSON document followed by a newline.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Errors writes the JSON error envelope {"errors": entries}.
func Errors(w io.Writer, entries []errs.Entry) error {
	return JSON(w, map[string]any{"errors": entries})
}

// Table writes rows as aligned columns separated by two spaces.
func Table(w io.Writer, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = utf8.RuneCountInString(h) // fmt pads by runes ("∞" is one)
	}
	for _, r := range rows {
		for i, c := range r {
			if n := utf8.RuneCountInString(inert.Line(c)); i < len(widths) && n > widths[i] {
				widths[i] = n
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i == len(cells)-1 {
				b.WriteString(c)
				break
			}
			fmt.Fprintf(&b, "%-*s  ", widths[i], c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(header)
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = inert.Line(c) // one line per row, whatever a cell holds
		}
		line(cells)
	}
}

// Terminal reports whether w is a terminal and, when it is, its width in
// columns (80 when the width cannot be read or is 10 or less).
func Terminal(w io.Writer) (width int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	if wd, _, err := term.GetSize(int(f.Fd())); err == nil && wd > 10 {
		return wd, true
	}
	return 80, true
}
