package specs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error codes of an [Error].
const (
	// CodeSyntax: a file does not parse as CUE.
	CodeSyntax = "syntax"
	// CodeInvalid: a value conflicts with the schema, a constraint, another
	// value (or a preset), or is not concrete.
	CodeInvalid = "invalid"
	// CodeUnknownField: a field the closed schema does not declare.
	CodeUnknownField = "unknown_field"
	// CodeMissingField: a required field (objective, question, host, title,
	// a monitor's every) is absent.
	CodeMissingField = "missing_field"
	// CodeNoSpec: the spec directory is missing, unreadable or has no *.cue file.
	CodeNoSpec = "no_spec"
	// CodeUnknownPreset: a goal names a preset that is not embedded.
	CodeUnknownPreset = "unknown_preset"
	// CodeVagueQuestion: a gate question is not a concrete question (it needs
	// a "?" and at least 4 words).
	CodeVagueQuestion = "vague_question"
	// CodeInternal: loopx itself failed while evaluating the spec (a bug).
	CodeInternal = "internal"
)

// Error is one problem found in a spec, positioned in the user's files.
//
// File is relative to the project root ("loopx/loopx.cue"); Line and Col are
// 1-based (0 only for code no_spec, which has no position). Path is the spec
// field path without the schema's definition prefix ("goals.g1.quota.windw"),
// "" when the error is not about a field (syntax). Code is one of the Code*
// constants.
type Error struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Path    string `json:"path"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error formats e as "file:line:col: path: message" (path and position
// parts omitted when empty).
func (e Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Errors is every problem found in one Load, deduplicated and sorted by
// file, line and column. Load returns it (never empty) as its error; use
// errors.As to get at the individual errors.
type Errors []Error

// Error formats the errors one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// normalize deduplicates errors at the same position, path and code (keeping
// the first message) and sorts them by file, line, col, path, code.
func (es Errors) normalize() Errors {
	type key struct {
		file, path, code string
		line, col        int
	}
	seen := make(map[key]bool, len(es))
	out := make(Errors, 0, len(es))
	for _, e := range es {
		k := key{e.File, e.Path, e.Code, e.Line, e.Col}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Error) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Code, b.Code),
		)
	})
	return out
}
