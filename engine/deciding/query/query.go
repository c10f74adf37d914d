// Package query describes the four decisions loopx asks its policies —
// should_run, permission, claim and gate_answer — once each: a Query
// value says what the query is called, which entry rule of the built-in
// bundle answers it, which package of a project's own policies it
// consults, which verdicts it may give, which part of the input only it
// carries, what it reads from the state and whether its policy is
// compiled ahead of the command that decides it. Everything else
// (preparing, the input, the decision, the log, the commands) takes a
// query from here rather than naming one. It imports only the standard
// library.
package query

import (
	"slices"
	"strings"
)

// Query is one decision loopx asks its policies.
type Query struct {
	// Name is the query's name in the input (input.query), the decision
	// (its "query" field) and the decision log: "should_run".
	Name string
	// Entry is the built-in entry rule that answers it
	// ("data.loopx.run.decision"): always defined, its value the
	// decision object (verdict, allow, reasons, todo, next_check_at,
	// charge).
	Entry string
	// User is the package a project's own policies declare to take part
	// in it ("loopx.user.should_run"); the built-in policy reads its deny
	// and warn sets.
	User string
	// Verdicts are the verdicts it may give; any other verdict from a
	// policy is a policy error (a deny).
	Verdicts []string
	// InputField is the field of the input only this query's input
	// carries, its request ("permission", "claim", "answer"); "" when it
	// has none. Every other query's input schema leaves it out.
	InputField string
	// ReadsTodos is true when the built-in policy reads input.state.todos
	// (the built-in permission policy does not: a permission input has
	// todos only when a user policy reads them).
	ReadsTodos bool
	// SelectsTodo is true when the policy selects the todo to work on from
	// the claim order (should_run): it may read a window of the todos
	// first, and its decision names the selected todo.
	SelectsTodo bool
	// Quota is true when its decision carries the goal's quota summary
	// (claim and gate_answer decisions read no usage).
	Quota bool
	// Prewarm is true when a command that decides it first may start
	// compiling its built-in entry rule in the background before the
	// command line is parsed (loopx decide should-run, the PreToolUse
	// hook, round start, run, todo claim).
	Prewarm bool
}

// The four queries.
var (
	// ShouldRun: may this agent start a round on the goal now, and on which todo.
	ShouldRun = Query{Name: "should_run", Entry: "data.loopx.run.decision", User: "loopx.user.should_run",
		Verdicts: []string{"run", "skip", "wait_human", "deny"}, ReadsTodos: true, SelectsTodo: true, Quota: true, Prewarm: true}
	// Permission: may this agent use this tool, write these paths, run this command.
	Permission = Query{Name: "permission", Entry: "data.loopx.permission.decision", User: "loopx.user.permission",
		Verdicts: []string{"allow", "defer", "ask", "deny"}, InputField: "permission", Quota: true, Prewarm: true}
	// Claim: may this agent hold this todo or record progress on it.
	Claim = Query{Name: "claim", Entry: "data.loopx.claim.decision", User: "loopx.user.claim",
		Verdicts: []string{"allow", "deny"}, InputField: "claim", ReadsTodos: true, Prewarm: true}
	// GateAnswer: may this answer to a gate be recorded.
	GateAnswer = Query{Name: "gate_answer", Entry: "data.loopx.gate.decision", User: "loopx.user.gate_answer",
		Verdicts: []string{"allow", "deny"}, InputField: "answer", ReadsTodos: true}
)

// All are the four queries, in this order: should_run, permission,
// claim, gate_answer.
var All = []Query{ShouldRun, Permission, Claim, GateAnswer}

// ByName is the query called name ("should_run"); ok is false for any
// other name.
func ByName(name string) (Query, bool) {
	for _, q := range All {
		if q.Name == name {
			return q, true
		}
	}
	return Query{}, false
}

// Names are the names of All, in its order.
func Names() []string {
	out := make([]string, len(All))
	for i, q := range All {
		out[i] = q.Name
	}
	return out
}

// Area is the package under data.loopx whose entry rule answers q: "run"
// for should_run, "gate" for gate_answer, else the query's name.
func (q Query) Area() string {
	return strings.TrimSuffix(strings.TrimPrefix(q.Entry, "data.loopx."), ".decision")
}

// Path is q's entry rule as a decision-log path ("loopx/run/decision").
func (q Query) Path() string { return "loopx/" + q.Area() + "/decision" }

// Package is the Rego package of q's built-in policy ("loopx.run").
func (q Query) Package() string { return "loopx." + q.Area() }

// Allows reports whether verdict v of q allows what was asked: "run" and
// "allow" do; "defer" is no grant.
func (q Query) Allows(v string) bool {
	return slices.Contains(q.Verdicts, v) && (v == "run" || v == "allow")
}

// Verdicts are the verdicts any query may give, each once, in the order
// of All.
func Verdicts() []string {
	var out []string
	for _, q := range All {
		for _, v := range q.Verdicts {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}
