package specs

import (
	"cmp"
	"slices"

	"github.com/loopx-dev/loopx/internal/errs"
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
	// CodePackage: a file declares a package other than loopx (the cue
	// tool's `loopx schema | cue vet -c cue: - loopx/*.cue` refuses it:
	// found packages).
	CodePackage = "package"
	// CodeNoSpec: the spec directory is missing, unreadable or has no *.cue file.
	CodeNoSpec = "no_spec"
	// CodeUnknownPreset: a goal names a preset that is not embedded.
	CodeUnknownPreset = "unknown_preset"
	// CodeUnknownAgent: a goal's agents list names an agent the spec's
	// agents do not declare.
	CodeUnknownAgent = "unknown_agent"
	// CodeVagueQuestion: a gate question is not a concrete question (it needs
	// a "?" and at least 4 words).
	CodeVagueQuestion = "vague_question"
	// CodeInternal: loopx itself failed while evaluating the spec (a bug).
	CodeInternal = "internal"
)

// Error is one problem found in a spec, positioned in the user's files:
// an errs.Error of kind Input (exit 2), loopx's one error type.
//
// Location.File is relative to the project root ("loopx/loopx.cue");
// Location.Line and Col are 1-based (0 only for code no_spec, which has no
// position). Location.Field is the spec field path without the schema's
// definition prefix ("goals.g1.quota.windw"), "" when the error is not
// about a field (syntax). Code is one of the Code* constants. Error()
// reads "file:line:col: field: message" (position and field parts omitted
// when empty).
type Error = errs.Error

// Errors is every problem found in one Load, deduplicated and sorted by
// file, line and column. Load returns it (never empty) as its error; use
// errors.As to get at the individual errors. Error() gives them one per
// line.
type Errors = errs.List

// newError is the spec error code/msg at file:line:col, about the field
// path ("" when none).
func newError(file string, line, col int, path, code, msg string) *Error {
	return &Error{Kind: errs.Input, Code: code, Message: msg,
		Location: errs.Location{File: file, Line: line, Col: col, Field: path}}
}

// normalize deduplicates errors at the same position, path and code (keeping
// the first message) and sorts them by file, line, col, path, code.
func normalize(es Errors) Errors {
	type key struct {
		file, path, code string
		line, col        int
	}
	seen := make(map[key]bool, len(es))
	out := make(Errors, 0, len(es))
	for _, e := range es {
		k := key{e.Location.File, e.Location.Field, e.Code, e.Location.Line, e.Location.Col}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Location.File, b.Location.File),
			cmp.Compare(a.Location.Line, b.Location.Line),
			cmp.Compare(a.Location.Col, b.Location.Col),
			cmp.Compare(a.Location.Field, b.Location.Field),
			cmp.Compare(a.Code, b.Code),
		)
	})
	return out
}
