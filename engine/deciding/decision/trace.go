package decision

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Trace renders an evaluation's trace events (OPA's buffer tracer, what
// `loopx explain` shows) with their locations: the rule-level trace (each
// rule entered, exited or failed, redo left out) and the full one.
func Trace(evs []*topdown.Event) (rules, full []string) {
	var ruleEvents []*topdown.Event
	for _, ev := range evs {
		if _, ok := ev.Node.(*ast.Rule); ok && ev.Op != topdown.RedoOp {
			ruleEvents = append(ruleEvents, ev)
		}
	}
	return prettyTrace(ruleEvents), prettyTrace(evs)
}

func prettyTrace(evs []*topdown.Event) []string {
	var b strings.Builder
	topdown.PrettyTraceWithLocation(&b, evs)
	out := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}
