// Package output renders loopx command results: one JSON document on
// stdout under --json, human text otherwise, and errors in both forms.
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/loopx-dev/loopx/internal/inert"
)

// ErrorItem is one error of the --json error envelope {"errors":[…]}.
type ErrorItem struct {
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Location *Location `json:"location"`
	// Data carries a refusal's facts (holder, expires_at, expected, actual…).
	Data map[string]any `json:"data,omitempty"`
}

// Location is where an error is, in a user's file (1-based line and column).
type Location struct {
	File string `json:"file"`
	Row  int    `json:"row"`
	Col  int    `json:"col"`
	// Path is the spec field path (goals.g1.quota.window), when known.
	Path string `json:"path,omitempty"`
}

// JSON writes v as one indented JSON document followed by a newline.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Errors writes the JSON error envelope.
func Errors(w io.Writer, items []ErrorItem) error {
	return JSON(w, map[string]any{"errors": items})
}

// ErrorText writes errors for people: "file:row:col: code: message" or
// "loopx: message".
func ErrorText(w io.Writer, items []ErrorItem) {
	for _, it := range items {
		if it.Location != nil && it.Location.File != "" {
			loc := fmt.Sprintf("%s:%d:%d", it.Location.File, it.Location.Row, it.Location.Col)
			path := ""
			if it.Location.Path != "" {
				path = it.Location.Path + ": "
			}
			fmt.Fprintf(w, "%s: %s%s\n", loc, path, it.Message)
			continue
		}
		fmt.Fprintf(w, "loopx: %s\n", it.Message)
	}
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
