// Package todos checks a todo request from outside (`loopx todo add`,
// `round finish --next-todo`, MCP's todo_add) before it is stored: a
// title of one line without control characters, a known kind, a priority
// P0..P4, a monitor's cadence, the scope's globs. The top engine package
// resolves the dependencies and stores the todo.
package todos

import (
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/glob"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Input is a todo to add (`loopx todo add`, MCP's todo_add).
type Input struct {
	Goal, Title, Kind string
	// Priority is 0..4 (P0..P4).
	Priority  int
	DependsOn []string
	Labels    []string
	// Scope lists the doublestar globs the todo writes (see glob.Validate).
	Scope []string
	// EverySeconds is a monitor's cadence.
	EverySeconds int64
	By           string
}

// Priorities are the priorities ParsePriority accepts, as written: P0
// (most urgent) to P4.
var Priorities = []string{"P0", "P1", "P2", "P3", "P4"}

// ParsePriority reads a todo priority written P0 (most urgent) to P4
// (case-insensitive) and returns 0..4. Errors: errs.Usage bad_priority.
func ParsePriority(s string) (int, error) {
	p := strings.ToUpper(strings.TrimSpace(s))
	if len(p) == 2 && p[0] == 'P' && p[1] >= '0' && p[1] <= '4' {
		return int(p[1] - '0'), nil
	}
	return 0, errs.Usagef("bad_priority", "priority %q is not one of %s (P0 most urgent)", s, strings.Join(Priorities, ", "))
}

// Kinds are the kinds of todo.
var Kinds = []string{records.KindTask, records.KindMonitor, records.KindGate, records.KindAction}

// Validate checks in and fills its default kind (task). Errors:
// errs.Usage empty_title, bad_kind, bad_priority, bad_every, bad_title,
// missing_every, too_long (labels, scope or dependencies beyond
// inert.CheckList) or bad_scope.
func (in *Input) Validate() error {
	if strings.TrimSpace(in.Title) == "" {
		return errs.Usagef("empty_title", "a todo needs a title")
	}
	if in.Kind == "" {
		in.Kind = records.KindTask
	}
	if !slices.Contains(Kinds, in.Kind) {
		return errs.Usagef("bad_kind", "todo kind %q is not one of %v", in.Kind, Kinds)
	}
	if in.Priority < 0 || in.Priority > 4 {
		return errs.Usagef("bad_priority", "priority must be P0..P4")
	}
	if in.Kind != records.KindMonitor && in.EverySeconds != 0 {
		return errs.Usagef("bad_every", "--every is a monitor's cadence: add --kind monitor")
	}
	if err := CheckTitle(in.Title); err != nil {
		return err
	}
	if in.Kind == records.KindMonitor && in.EverySeconds <= 0 {
		return errs.Usagef("missing_every", "a monitor todo needs --every (e.g. --every 15m)")
	}
	for _, l := range []struct {
		what  string
		items []string
	}{{"the labels (--label)", in.Labels}, {"the scope (--scope)", in.Scope}, {"the dependencies (--depends-on)", in.DependsOn}} {
		if err := inert.CheckList(l.what, l.items); err != nil {
			return errs.Usagef("too_long", "%v", err)
		}
	}
	if err := glob.Validate(in.Scope); err != nil {
		return errs.Usagef("bad_scope", "%v", err)
	}
	return nil
}

// CheckTitle is the one check of a todo title from outside (`todo
// add`, `round finish --next-todo`, MCP's todo_add and round_finish):
// errs.Usage bad_title when it holds a character a terminal would act on
// (inert.Check; a title is one line of text) or is longer than
// inert.MaxLine characters (inert.CheckLen).
func CheckTitle(title string) error {
	if err := inert.CheckLen("the todo title", title, false); err != nil {
		return errs.Usagef("bad_title", "%v", err)
	}
	if err := inert.Check("the todo title", title, false); err != nil {
		return errs.Usagef("bad_title", "%v (a todo title is one line of text)", err)
	}
	return nil
}
