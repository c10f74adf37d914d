// Package errs holds loopx's one error type, [Error] (kind, code, message,
// location, data), and the one mapping of any error to an exit code
// ([Exit]), to the --json error envelope ([Envelope]) and to the lines a
// person reads ([Lines]). It imports only the standard library, so every
// loopx package can build its errors here.
package errs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Exit codes (README "Exit codes").
const (
	// ExitOK: done, or the decision lets the caller go on.
	ExitOK = 0
	// ExitNo: the decision or check says no.
	ExitNo = 1
	// ExitUsage: a usage or input error.
	ExitUsage = 2
	// ExitInternal: loopx itself failed (an unusable store, a bug).
	ExitInternal = 3
	// ExitInterrupted: stopped by SIGINT/SIGTERM (128 + SIGINT, as shells
	// report it).
	ExitInterrupted = 130
)

// Kind is what an error means for the caller; it decides the exit code
// (Kind.Exit). The zero Kind is Internal, so an error built without one
// fails closed.
type Kind uint8

// The kinds of [Error].
const (
	// Internal: loopx itself failed (exit 3): an unusable state store, a
	// failing built-in policy, a bug.
	Internal Kind = iota
	// Usage: the command was used wrongly (exit 2): a bad flag or argument,
	// a name that does not exist.
	Usage
	// Input: a file the user wrote is wrong (exit 2): a spec or a policy
	// that does not load, a missing project.
	Input
	// No: the decision or check says no (exit 1): a refused mutation.
	No
	// Interrupted: the command was stopped by a signal (exit 130).
	Interrupted
)

var kindNames = [...]string{Internal: "internal", Usage: "usage", Input: "input", No: "no", Interrupted: "interrupted"}

// String is the kind's name (internal, usage, input, no, interrupted).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Exit is the kind's exit code: Usage and Input 2, No 1, Interrupted 130,
// Internal (and any unknown kind) 3.
func (k Kind) Exit() int {
	switch k {
	case Usage, Input:
		return ExitUsage
	case No:
		return ExitNo
	case Interrupted:
		return ExitInterrupted
	}
	return ExitInternal
}

// defaultCode is the envelope's code for an error of kind k that has none.
func (k Kind) defaultCode() string {
	switch k {
	case Usage, Input:
		return "usage"
	case No:
		return "refused"
	case Interrupted:
		return ""
	}
	return "internal"
}

// Location is where an error is in a user's file. File is relative to the
// project root ("loopx/loopx.cue"); Line and Col are 1-based, 0 when the
// error has no position in the file; Field is the spec field path
// ("goals.g1.quota.window"), "" when the error is not about a field. The
// JSON names follow the envelope: file, row, col, path.
type Location struct {
	File  string `json:"file"`
	Line  int    `json:"row"`
	Col   int    `json:"col"`
	Field string `json:"path,omitempty"`
}

// IsZero reports whether l names no file.
func (l Location) IsZero() bool { return l.File == "" }

// Error is loopx's one error: what kind it is (the exit code), a stable
// code for scripts ("unknown_goal", "lease_lost", "invalid"), a message
// for people, where it is (the zero Location: nowhere in a file), data
// for scripts (printed as the envelope entry's "data"; e.g. holder and
// expires_at of already_claimed), what a person can do about it (Hint:
// the command layer words it), and the error it wraps, if any
// (errors.Is/As see through it). Build one with a constructor
// ([Usagef], [Refusedf], …) or a literal; use *Error as the error.
type Error struct {
	Kind     Kind     `json:"kind"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	Location Location `json:"location"`
	Data     any      `json:"data,omitempty"`
	Hint     Hint     `json:"-"`
	Err      error    `json:"-"`
}

// Error formats e as "file:line:col: field: message; hint": the position
// only when e has a Location (line and column only when Line > 0), the
// field only when it has one, the hint only when one is worded for it
// (Hint.String). The message is Message, else the wrapped error's.
func (e *Error) Error() string { return e.format("") }

// format is e as "file:line:col: code: field: message; hint", each part
// only when e has it; code is left out when "" (Error) and given by Line.
func (e *Error) format(code string) string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if h := e.Hint.String(); h != "" {
		msg += "; " + h
	}
	if e.Location.File == "" && e.Location.Field == "" && code == "" {
		return msg
	}
	var b strings.Builder
	if e.Location.File != "" {
		b.WriteString(e.Location.File)
		if e.Location.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Location.Line, e.Location.Col)
		}
		b.WriteString(": ")
	}
	for _, part := range []string{code, e.Location.Field} {
		if part != "" {
			b.WriteString(part)
			b.WriteString(": ")
		}
	}
	b.WriteString(msg)
	return b.String()
}

// Unwrap returns the error e wraps (nil when none).
func (e *Error) Unwrap() error { return e.Err }

// List is several errors found at once (every problem of one spec load),
// each usually with a Location. Its kind is the first error's (Input when
// empty or all errors lack one).
type List []*Error

// Error formats the errors one per line (see Error.Error).
func (l List) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// New is an error of kind with code and message.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Usagef is a Usage error (exit 2) with code and a formatted message.
func Usagef(code, format string, args ...any) *Error {
	return New(Usage, code, fmt.Sprintf(format, args...))
}

// Inputf is an Input error (exit 2) with code and a formatted message.
func Inputf(code, format string, args ...any) *Error {
	return New(Input, code, fmt.Sprintf(format, args...))
}

// Refusedf is a No error (exit 1: the decision says no) with code and a
// formatted message.
func Refusedf(code, format string, args ...any) *Error {
	return New(No, code, fmt.Sprintf(format, args...))
}

// Internalf is an Internal error (exit 3) with code and a formatted
// message.
func Internalf(code, format string, args ...any) *Error {
	return New(Internal, code, fmt.Sprintf(format, args...))
}

// Wrap is an error of kind with code whose message is err's and which
// wraps err (errors.Is/As see through it).
func Wrap(kind Kind, code string, err error) *Error {
	return &Error{Kind: kind, Code: code, Message: err.Error(), Err: err}
}

// ErrReported is the cause of an error whose command already printed its
// answer (a decision, a report): only the exit code remains to give.
var ErrReported = errors.New("already reported")

// Reported is an error of kind for a command that already printed its
// answer: the caller exits with kind's code and prints nothing more.
func Reported(kind Kind) *Error {
	return &Error{Kind: kind, Err: ErrReported}
}

// As returns the first *Error in err's chain, nil when there is none.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// IsKind reports whether the first *Error in err's chain is of kind k
// (only an *Error: see KindOf for what any error means).
func IsKind(err error, k Kind) bool {
	e := As(err)
	return e != nil && e.Kind == k
}

// CodeOf is the code of the first *Error in err's chain, "" when none.
func CodeOf(err error) string {
	if e := As(err); e != nil {
		return e.Code
	}
	return ""
}

// KindOf is what err means for the caller, the one mapping of every error:
//   - context.Canceled anywhere in the chain: Interrupted;
//   - else the first *Error's kind, unless it is Internal;
//   - else a List: its first error's kind (Input when it has none);
//   - else os.ErrNotExist anywhere in the chain (a missing project or
//     file): Input;
//   - else Internal (an error loopx did not classify fails closed).
//
// nil has no kind; KindOf(nil) is Internal, but Exit(nil) is 0.
func KindOf(err error) Kind {
	if errors.Is(err, context.Canceled) {
		return Interrupted
	}
	if e := As(err); e != nil && e.Kind != Internal {
		return e.Kind
	}
	var l List
	if errors.As(err, &l) {
		if len(l) > 0 && l[0].Kind != Internal {
			return l[0].Kind
		}
		return Input
	}
	if errors.Is(err, os.ErrNotExist) {
		return Input
	}
	return Internal
}

// Exit is err's exit code: 0 for nil, else KindOf(err).Exit() (1 the
// decision says no, 2 usage or input, 3 internal, 130 interrupted).
func Exit(err error) int {
	if err == nil {
		return ExitOK
	}
	return KindOf(err).Exit()
}

// Entry is one error of the --json error envelope {"errors":[…]}:
// location is null when the error is nowhere in a file; data is left out
// when the error has none.
type Entry struct {
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Location *Location `json:"location"`
	Data     any       `json:"data,omitempty"`
}

// Envelope is err's entries of the JSON error envelope {"errors": […]}: one
// per error of a List (code, message and location each), else one for the
// whole err, whose message is err.Error() (every wrapping prefix
// included), whose data is the first *Error's, and whose code is the first
// *Error's code, else "no_project" for a missing file (os.ErrNotExist),
// else by KindOf: "refused" (No), "usage" (Usage, Input), "internal",
// "" (Interrupted). nil has none.
func Envelope(err error) []Entry {
	if err == nil {
		return nil
	}
	var l List
	if errors.As(err, &l) && len(l) > 0 {
		out := make([]Entry, 0, len(l))
		for _, e := range l {
			loc := e.Location
			out = append(out, Entry{Code: e.Code, Message: e.Message, Location: &loc, Data: data(e.Data)})
		}
		return out
	}
	entry := Entry{Code: KindOf(err).defaultCode(), Message: err.Error()}
	switch e := As(err); {
	case e != nil && e.Code != "":
		entry.Code, entry.Data = e.Code, data(e.Data)
	case errors.Is(err, os.ErrNotExist):
		entry.Code = "no_project"
	}
	return []Entry{entry}
}

// data is d for the envelope: nil for an empty map, so that "data" is left
// out as it is for none.
func data(d any) any {
	if m, ok := d.(map[string]any); ok && len(m) == 0 {
		return nil
	}
	return d
}

// Lines is err for people, one line each, without newlines: a List's
// errors as "file:line:col: code: field: message" (Line), anything else
// as "loopx: " and the error's text. nil has none.
func Lines(err error) []string {
	if err == nil {
		return nil
	}
	var l List
	if errors.As(err, &l) && len(l) > 0 {
		out := make([]string, len(l))
		for i, e := range l {
			out[i] = e.Line()
		}
		return out
	}
	return []string{"loopx: " + err.Error()}
}

// Line is e as one line for people, "file:line:col: code: field:
// message" (the one format of a located error): the position only
// when e has a Location (line and column only when Line > 0), the code
// only when it has one, the field only when it has one. Error() is the
// same without the code.
func (e *Error) Line() string { return e.format(e.Code) }
