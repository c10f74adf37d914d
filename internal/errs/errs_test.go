package errs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestExitEnvelopeLines_EveryKind: errs.Exit, errs.Envelope and errs.Lines
// over every kind and the outside errors the CLI meets (what printError
// prints for each).
func TestExitEnvelopeLines_EveryKind(t *testing.T) {
	spec := List{
		{Kind: Input, Code: "invalid", Message: "want an integer", Location: Location{File: "loopx/loopx.cue", Line: 3, Col: 17, Field: "goals.g2.quota.rounds"}},
		{Kind: Input, Code: "no_spec", Message: "no spec", Location: Location{File: "loopx"}},
	}
	for _, tc := range []struct {
		name  string
		err   error
		exit  int
		kind  Kind
		env   string // Envelope as JSON
		lines []string
	}{
		{"nil", nil, 0, Internal, `null`, nil},
		{"usage", Usagef("unknown_goal", "unknown goal %q", "g9"), 2, Usage,
			`[{"code":"unknown_goal","message":"unknown goal \"g9\"","location":null}]`,
			[]string{`loopx: unknown goal "g9"`}},
		{"usage without a code", &Error{Kind: Usage, Message: "bad flag"}, 2, Usage,
			`[{"code":"usage","message":"bad flag","location":null}]`, []string{"loopx: bad flag"}},
		{"input", Inputf("policy_error", "does not parse"), 2, Input,
			`[{"code":"policy_error","message":"does not parse","location":null}]`, []string{"loopx: does not parse"}},
		{"input at a location", &Error{Kind: Input, Code: "policy_error", Message: "unexpected }", Location: Location{File: "loopx/policies/x.rego", Line: 4, Col: 2}}, 2, Input,
			`[{"code":"policy_error","message":"loopx/policies/x.rego:4:2: unexpected }","location":null}]`,
			[]string{"loopx: loopx/policies/x.rego:4:2: unexpected }"}},
		{"refused with data", &Error{Kind: No, Code: "already_claimed", Message: "held by a1", Data: map[string]any{"holder": "a1"}}, 1, No,
			`[{"code":"already_claimed","message":"held by a1","location":null,"data":{"holder":"a1"}}]`, []string{"loopx: held by a1"}},
		{"refused with empty data", &Error{Kind: No, Code: "lease_lost", Message: "lost", Data: map[string]any{}}, 1, No,
			`[{"code":"lease_lost","message":"lost","location":null}]`, []string{"loopx: lost"}},
		{"refused without a code", &Error{Kind: No, Message: "no"}, 1, No,
			`[{"code":"refused","message":"no","location":null}]`, []string{"loopx: no"}},
		{"internal", Internalf("store_error", "state store x: corrupt"), 3, Internal,
			`[{"code":"store_error","message":"state store x: corrupt","location":null}]`, []string{"loopx: state store x: corrupt"}},
		{"interrupted", New(Interrupted, "", "stopped"), 130, Interrupted,
			`[{"code":"","message":"stopped","location":null}]`, []string{"loopx: stopped"}},
		{"wrapped usage keeps its prefix", fmt.Errorf("round r1: %w", Usagef("bad_outcome", "outcome %q", "x")), 2, Usage,
			`[{"code":"bad_outcome","message":"round r1: outcome \"x\"","location":null}]`, []string{`loopx: round r1: outcome "x"`}},
		{"a list (spec errors)", spec, 2, Input,
			`[{"code":"invalid","message":"want an integer","location":{"file":"loopx/loopx.cue","row":3,"col":17,"path":"goals.g2.quota.rounds"}},` +
				`{"code":"no_spec","message":"no spec","location":{"file":"loopx","row":0,"col":0}}]`,
			[]string{"loopx/loopx.cue:3:17: invalid: goals.g2.quota.rounds: want an integer", "loopx: no_spec: no spec"}},
		{"a wrapped list", fmt.Errorf("spec: %w", spec), 2, Input, "", []string{"loopx/loopx.cue:3:17: invalid: goals.g2.quota.rounds: want an integer", "loopx: no_spec: no spec"}},
		{"an empty list", List{}, 2, Input, `[{"code":"usage","message":"","location":null}]`, []string{"loopx: "}},
		{"context.Canceled", fmt.Errorf("run: %w", context.Canceled), 130, Interrupted,
			`[{"code":"","message":"run: context canceled","location":null}]`, []string{"loopx: run: context canceled"}},
		{"canceled inside an internal error", Wrap(Internal, "store_error", context.Canceled), 130, Interrupted,
			`[{"code":"store_error","message":"context canceled","location":null}]`, []string{"loopx: context canceled"}},
		{"os.ErrNotExist", fmt.Errorf("project /x: %w", os.ErrNotExist), 2, Input,
			`[{"code":"no_project","message":"project /x: file does not exist","location":null}]`, []string{"loopx: project /x: file does not exist"}},
		{"a missing file under an internal error", Wrap(Internal, "store_error", &fs.PathError{Op: "open", Path: "state.db", Err: fs.ErrNotExist}), 2, Input,
			`[{"code":"store_error","message":"open state.db: file does not exist","location":null}]`, []string{"loopx: open state.db: file does not exist"}},
		{"an unclassified error", errors.New("boom"), 3, Internal,
			`[{"code":"internal","message":"boom","location":null}]`, []string{"loopx: boom"}},
		{"a cobra flag error the CLI passes as usage", Wrap(Usage, "usage", errors.New(`unknown flag: --nope`)), 2, Usage,
			`[{"code":"usage","message":"unknown flag: --nope","location":null}]`, []string{"loopx: unknown flag: --nope"}},
		{"reported", Reported(No), 1, No, `[{"code":"refused","message":"already reported","location":null}]`, []string{"loopx: already reported"}},
		{"an unknown kind fails closed", &Error{Kind: Kind(99), Code: "x", Message: "?"}, 3, Kind(99),
			`[{"code":"x","message":"?","location":null}]`, []string{"loopx: ?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Exit(tc.err); got != tc.exit {
				t.Errorf("Exit = %d, want %d", got, tc.exit)
			}
			if tc.err != nil {
				if got := KindOf(tc.err); got != tc.kind {
					t.Errorf("KindOf = %v, want %v", got, tc.kind)
				}
			}
			if tc.env != "" {
				b, err := json.Marshal(Envelope(tc.err))
				if err != nil || string(b) != tc.env {
					t.Errorf("Envelope = %s (%v)\nwant       %s", b, err, tc.env)
				}
			}
			if got := Lines(tc.err); strings.Join(got, "\n") != strings.Join(tc.lines, "\n") || len(got) != len(tc.lines) {
				t.Errorf("Lines = %q, want %q", got, tc.lines)
			}
		})
	}
}

// TestKind_ExitAndName: each kind's exit code and name; the zero kind is
// Internal (an error built without one fails closed).
func TestKind_ExitAndName(t *testing.T) {
	for _, tc := range []struct {
		k    Kind
		exit int
		name string
	}{
		{Internal, 3, "internal"}, {Usage, 2, "usage"}, {Input, 2, "input"}, {No, 1, "no"},
		{Interrupted, 130, "interrupted"}, {Kind(7), 3, "kind(7)"},
	} {
		if tc.k.Exit() != tc.exit || tc.k.String() != tc.name {
			t.Errorf("%d: Exit %d String %q, want %d %q", tc.k, tc.k.Exit(), tc.k.String(), tc.exit, tc.name)
		}
	}
	var zero Kind
	if zero != Internal {
		t.Errorf("zero Kind = %v, want internal", zero)
	}
}

// TestError_Text: "file:line:col: field: message" with each part only when
// present, and the wrapped error's text when there is no message.
func TestError_Text(t *testing.T) {
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{&Error{Message: "m"}, "m"},
		{&Error{Message: "m", Location: Location{File: "f.cue", Line: 2, Col: 5, Field: "a.b"}}, "f.cue:2:5: a.b: m"},
		{&Error{Message: "m", Location: Location{File: "f.cue", Line: 2, Col: 5}}, "f.cue:2:5: m"},
		{&Error{Message: "m", Location: Location{File: "loopx"}}, "loopx: m"},
		{&Error{Message: "m", Location: Location{Field: "a.b"}}, "a.b: m"},
		{&Error{Err: errors.New("cause")}, "cause"},
		{&Error{}, ""},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestAs_SeesThroughWrapping: errors.As, errors.Is, As, IsKind and CodeOf
// find an *Error under fmt.Errorf's %w and find what it wraps.
func TestAs_SeesThroughWrapping(t *testing.T) {
	cause := errors.New("cause")
	e := &Error{Kind: No, Code: "gate_violation", Message: "gate g1 is open", Err: cause}
	w := fmt.Errorf("round finish: %w", e)
	var got *Error
	if !errors.As(w, &got) || got != e || As(w) != e || !errors.Is(w, cause) {
		t.Fatalf("As through %%w: %v", got)
	}
	if !IsKind(w, No) || IsKind(w, Usage) || CodeOf(w) != "gate_violation" {
		t.Errorf("IsKind/CodeOf: %v %v %q", IsKind(w, No), IsKind(w, Usage), CodeOf(w))
	}
	if As(errors.New("x")) != nil || CodeOf(nil) != "" || IsKind(nil, Internal) {
		t.Error("an error with no *Error in its chain has none")
	}
	if !errors.Is(Reported(Usage), ErrReported) {
		t.Error("Reported wraps ErrReported")
	}
}
