package policies

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// The adoption property: whenever data.loopx.adopt.decision adopts a new
// revision of the spec without a human, no (agent, goal, path, command,
// action, state) sample is more permitted under the new spec than under
// the old one, by the real decisions: permission (deny < ask < defer <
// allow), should_run (run admits; anything else does not) and claim
// (allow admits). Its precision half: a fixed list of pure tightenings is
// adopted. TestAdoptProperty runs a fixed seed; FuzzAdoptProperty runs
// longer (go test ./policies -run XXX -fuzz FuzzAdoptProperty).

// classifier says whether a change from old to new is adopted without a
// human; the real one is data.loopx.adopt.decision.
type classifier func(old, new map[string]any) bool

// propertyRig holds the prepared queries over one in-memory store whose
// data.loopx.spec is swapped per spec.
type propertyRig struct {
	store                   storage.Store
	adopt, perm, run, claim rego.PreparedEvalQuery
}

func newPropertyRig(tb testing.TB) *propertyRig {
	tb.Helper()
	r := &propertyRig{store: inmem.NewFromObject(map[string]any{"loopx": map[string]any{"spec": map[string]any{}}})}
	prep := func(q string) rego.PreparedEvalQuery {
		opts := []func(*rego.Rego){rego.Query(q), rego.Store(r.store), rego.StrictBuiltinErrors(true)}
		for path, src := range Modules() {
			opts = append(opts, rego.Module(path, src))
		}
		pq, err := rego.New(opts...).PrepareForEval(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		return pq
	}
	r.adopt, r.perm, r.run, r.claim = prep("data.loopx.adopt.decision"), prep("data.loopx.permission.decision"), prep("data.loopx.run.decision"), prep("data.loopx.claim.decision")
	return r
}

// real is the classifier under test.
func (r *propertyRig) real(tb testing.TB) classifier {
	return func(old, new map[string]any) bool {
		v := r.eval(tb, r.adopt, map[string]any{"old": old, "new": new})
		return v["verdict"] == "adopt"
	}
}

func (r *propertyRig) eval(tb testing.TB, pq rego.PreparedEvalQuery, input any) map[string]any {
	rs, err := pq.Eval(context.Background(), rego.EvalInput(input))
	if err != nil || len(rs) != 1 {
		tb.Fatalf("eval: %v (%d results) on %v", err, len(rs), input)
	}
	return rs[0].Expressions[0].Value.(map[string]any)
}

func (r *propertyRig) useSpec(tb testing.TB, spec map[string]any) {
	if err := storage.WriteOne(context.Background(), r.store, storage.ReplaceOp, storage.MustParsePath("/loopx/spec"), spec); err != nil {
		tb.Fatal(err)
	}
}

// Vocabularies the generator draws from: globs, command patterns, names.
var (
	propAgents   = []string{"a1", "a2", "a3"}
	propGoals    = []string{"g1", "g2"}
	propGlobs    = []string{"**", "api/**", "api/v2/**", "api/*.go", "src/**", "docs/readme.md", "secrets/**", "secrets", "a/b/c", "**/c", "a/**", "api*/**", "./src/**"}
	propCommands = []string{"*", "go *", "go test*", "go test ./...", "git *", "git push*", "git push --force*", "git status", "rm -rf*", "rm *", "make*", "npm publish*", "git.push", "git.merge", "git.push.force", "git*"}
	propTools    = []string{"Read", "Write", "Bash", "mcp__*", "Web*"}
	propGuards   = []string{"git.merge", "git.push", "git push*", "npm.publish", "git.*"}
	propTodos    = []string{"t-1", "t-2"}
)

// sample calls and states
var (
	propPaths    = []string{"api/x.go", "api/v2/y.go", "api/v2", "src/a.go", "src", "docs/readme.md", "docs/other.md", "secrets/k", "secrets", "a/b/c", "a/b", "a", "x/c", "other/z.txt", "apiv/q"}
	propCmdLines = []string{"go test ./...", "go build", "go", "git push origin main", "git push --force origin", "git status", "git log", "rm -rf build", "rm x", "make all", "npm publish", "ls"}
	propActions  = []string{"", "git.push", "git.merge", "npm.publish", "git.push.force"}
)

func pick[T any](rnd *rand.Rand, xs []T) T { return xs[rnd.IntN(len(xs))] }

// subset draws up to max distinct entries of xs (possibly none).
func subset(rnd *rand.Rand, xs []string, max int) []any {
	n := rnd.IntN(max + 1)
	out := []any{}
	for _, i := range rnd.Perm(len(xs))[:min(n, len(xs))] {
		out = append(out, xs[i])
	}
	return out
}

// genSpec is a random exported spec (data.loopx.spec's shape, every
// field present as the loader exports it).
func genSpec(rnd *rand.Rand) map[string]any {
	agents := map[string]any{}
	for _, a := range propAgents {
		if rnd.IntN(4) > 0 {
			agents[a] = genAgent(rnd)
		}
	}
	goals := map[string]any{}
	for _, g := range propGoals {
		if g == "g1" || rnd.IntN(2) == 0 {
			goals[g] = genGoal(rnd)
		}
	}
	return map[string]any{"project": map[string]any{"name": "p", "policy_deadline": "2s"}, "audit": map[string]any{}, "agents": agents, "goals": goals}
}

func genAgent(rnd *rand.Rand) map[string]any {
	return map[string]any{"host": "shell", "role": pick(rnd, []string{"executor", "executor", "reviewer"}), "mode": pick(rnd, []string{"active", "active", "monitor_only"})}
}

func genGoal(rnd *rand.Rand) map[string]any {
	quota := map[string]any{"window": "24h", "window_seconds": 86400, "compute": pick(rnd, []any{1.0, 1.0, 0.5, 0.1}),
		"min_interval": "0s", "min_interval_seconds": pick(rnd, []any{0, 0, 60, 3600})}
	for _, f := range []string{"rounds", "tokens", "cost_usd"} {
		if rnd.IntN(2) == 0 {
			quota[f] = pick(rnd, []any{1, 3, 10, 100000})
		}
	}
	gates := map[string]any{}
	for _, name := range []string{"merge", "stop"} {
		if rnd.IntN(3) == 0 {
			gates[name] = genGate(rnd)
		}
	}
	return map[string]any{
		"objective": "Ship it",
		"agents":    subset(rnd, propAgents, 2),
		"quota":     quota,
		"stall":     map[string]any{"max_no_progress": pick(rnd, []any{1, 3, 5})},
		"scope": map[string]any{
			"write": subset(rnd, propGlobs, 2),
			"deny":  subset(rnd, propGlobs, 2),
			"commands": map[string]any{
				"allow": subset(rnd, propCommands, 2), "ask": subset(rnd, propCommands, 2),
				"deny": subset(rnd, propCommands, 2), "opaque": pick(rnd, []string{"ask", "deny"}),
			},
			"grant": map[string]any{"commands": subset(rnd, propCommands, 2), "tools": subset(rnd, propTools, 1), "paths": subset(rnd, propGlobs, 2)},
		},
		"gates":    gates,
		"evidence": map[string]any{"stale_after": "72h", "stale_after_seconds": 259200},
	}
}

func genGate(rnd *rand.Rand) map[string]any {
	g := map[string]any{"question": "Merge the branch now?", "options": []any{"approve", "reject"}, "answerers": []any{"human"},
		"guards": []any{}, "agents": []any{}, "todos": []any{}}
	switch rnd.IntN(4) {
	case 0:
		g["guards"] = subset(rnd, propGuards, 2)
	case 1:
		g["agents"] = subset(rnd, propAgents, 2)
	case 2:
		g["todos"] = subset(rnd, propTodos, 1)
	}
	return g
}

// clone deep-copies a JSON value.
func clone(v map[string]any) map[string]any {
	b, _ := json.Marshal(v)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// mutate applies one to three random edits to a copy of spec: entries
// added to and removed from lists, lists emptied, fields removed, numbers
// raised and lowered, gates, goals and agents added and removed.
func mutate(rnd *rand.Rand, spec map[string]any) map[string]any {
	s := clone(spec)
	for range 1 + rnd.IntN(3) {
		mutateOnce(rnd, s)
	}
	return s
}

func mutateOnce(rnd *rand.Rand, s map[string]any) {
	agents := s["agents"].(map[string]any)
	goals := s["goals"].(map[string]any)
	if rnd.IntN(8) == 0 {
		a := pick(rnd, propAgents)
		switch {
		case agents[a] == nil:
			agents[a] = genAgent(rnd)
		case rnd.IntN(2) == 0:
			delete(agents, a)
		default:
			agents[a].(map[string]any)["mode"] = pick(rnd, []string{"active", "monitor_only"})
		}
		return
	}
	g := pick(rnd, propGoals)
	if goals[g] == nil || rnd.IntN(12) == 0 {
		if goals[g] == nil {
			goals[g] = genGoal(rnd)
		} else {
			delete(goals, g)
		}
		return
	}
	goal := goals[g].(map[string]any)
	scope := goal["scope"].(map[string]any)
	cmds := scope["commands"].(map[string]any)
	grant := scope["grant"].(map[string]any)
	type list struct {
		obj   map[string]any
		key   string
		vocab []string
	}
	lists := []list{{goal, "agents", propAgents}, {scope, "write", propGlobs}, {scope, "deny", propGlobs},
		{cmds, "allow", propCommands}, {cmds, "ask", propCommands}, {cmds, "deny", propCommands},
		{grant, "commands", propCommands}, {grant, "tools", propTools}, {grant, "paths", propGlobs}}
	gates := goal["gates"].(map[string]any)
	for name, gt := range gates {
		gm := gt.(map[string]any)
		lists = append(lists, list{gm, "guards", propGuards}, list{gm, "agents", propAgents}, list{gm, "todos", propTodos},
			list{gm, "answerers", []string{"human", "agent:a1"}})
		_ = name
	}
	switch rnd.IntN(10) {
	case 0, 1, 2: // remove an entry
		l := pick(rnd, lists)
		xs, _ := l.obj[l.key].([]any)
		if len(xs) > 0 {
			i := rnd.IntN(len(xs))
			l.obj[l.key] = slices.Delete(slices.Clone(xs), i, i+1)
		}
	case 3, 4: // add an entry
		l := pick(rnd, lists)
		xs, _ := l.obj[l.key].([]any)
		l.obj[l.key] = append(slices.Clone(xs), pick(rnd, l.vocab))
	case 5: // replace an entry
		l := pick(rnd, lists)
		if xs, _ := l.obj[l.key].([]any); len(xs) > 0 {
			ys := slices.Clone(xs)
			ys[rnd.IntN(len(ys))] = pick(rnd, l.vocab)
			l.obj[l.key] = ys
		}
	case 6: // empty or remove a list
		l := pick(rnd, lists)
		if rnd.IntN(2) == 0 {
			l.obj[l.key] = []any{}
		} else {
			delete(l.obj, l.key)
		}
	case 7: // a quota number
		q := goal["quota"].(map[string]any)
		f := pick(rnd, []string{"rounds", "tokens", "cost_usd", "compute", "min_interval_seconds"})
		if rnd.IntN(4) == 0 {
			delete(q, f)
		} else {
			q[f] = pick(rnd, []any{0, 1, 2, 3, 10, 60, 3600, 0.5})
		}
	case 8: // a gate added or removed
		name := pick(rnd, []string{"merge", "stop", "deploy"})
		if gates[name] == nil {
			gates[name] = genGate(rnd)
		} else {
			delete(gates, name)
		}
	case 9: // opaque, stall
		if rnd.IntN(2) == 0 {
			cmds["opaque"] = pick(rnd, []string{"ask", "deny"})
		} else {
			goal["stall"].(map[string]any)["max_no_progress"] = pick(rnd, []any{1, 2, 3, 5})
		}
	}
}

// sample is one situation a decision is asked about.
type sample struct {
	agent, goal string
	path        string // a Write of path, or
	command     string // a Bash command line (with action)
	action      string
	opaque      bool
	// state
	rounds, tokens  float64
	cost, computeS  float64
	sinceLast       float64
	noProgress      float64
	todoKind        string
	todoReview      bool
	registeredGoals []any
}

func (s sample) String() string {
	return fmt.Sprintf("%+v", struct {
		Agent, Goal, Path, Command, Action               string
		Opaque                                           bool
		Rounds, Tokens, Cost, Compute, Since, NoProgress float64
		TodoKind                                         string
	}{s.agent, s.goal, s.path, s.command, s.action, s.opaque, s.rounds, s.tokens, s.cost, s.computeS, s.sinceLast, s.noProgress, s.todoKind})
}

func genSamples(rnd *rand.Rand, n int) []sample {
	out := make([]sample, 0, n)
	for range n {
		s := sample{agent: pick(rnd, append(slices.Clone(propAgents), "a9")), goal: pick(rnd, propGoals),
			rounds: pick(rnd, []float64{0, 1, 2, 3, 9}), tokens: pick(rnd, []float64{0, 5, 5000}), cost: pick(rnd, []float64{0, 2}),
			computeS: pick(rnd, []float64{0, 3600, 50000}), sinceLast: pick(rnd, []float64{0, 120, 7200}),
			noProgress: pick(rnd, []float64{0, 1, 2, 4}), todoKind: pick(rnd, []string{"task", "monitor"}), todoReview: rnd.IntN(4) == 0}
		if rnd.IntN(2) == 0 {
			s.path = pick(rnd, propPaths)
		} else {
			s.command, s.action, s.opaque = pick(rnd, propCmdLines), pick(rnd, propActions), rnd.IntN(8) == 0
		}
		out = append(out, s)
	}
	return out
}

// goalFacts is input.state.goal for s under spec.
func goalFacts(spec map[string]any, s sample) map[string]any {
	_, in := spec["goals"].(map[string]any)[s.goal]
	return map[string]any{"id": s.goal, "in_spec": in, "status": "active", "reason": ""}
}

// agentFacts is input.state.agent for s under spec: known when declared.
func agentFacts(spec map[string]any, s sample) map[string]any {
	a, _ := spec["agents"].(map[string]any)[s.agent].(map[string]any)
	f := map[string]any{"id": s.agent, "known": a != nil, "goals": []any{}, "role": "executor", "mode": "active"}
	if a != nil {
		f["role"], f["mode"] = a["role"], a["mode"]
	}
	return f
}

// gateFacts are the open instances of the goal's spec gates (each raised
// as the engine raises a spec gate: guards make an action gate, else
// todos a todo gate, else agents an agent gate, else a goal gate).
func gateFacts(spec map[string]any, goal string) []any {
	out := []any{}
	g, _ := spec["goals"].(map[string]any)[goal].(map[string]any)
	if g == nil {
		return out
	}
	gates, _ := g["gates"].(map[string]any)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range gates {
			if !yield(k) {
				return
			}
		}
	}) {
		gt := gates[name].(map[string]any)
		list := func(k string) []any {
			xs, _ := gt[k].([]any)
			if xs == nil {
				return []any{}
			}
			return xs
		}
		kind := "goal"
		switch {
		case len(list("guards")) > 0:
			kind = "action"
		case len(list("todos")) > 0:
			kind = "todo"
		case len(list("agents")) > 0:
			kind = "agent"
		}
		out = append(out, map[string]any{"id": goal + "/" + name, "question": gt["question"], "guards": list("guards"),
			"scope": map[string]any{"kind": kind, "agents": list("agents"), "todos": list("todos")}, "expires_at": "", "reason": ""})
	}
	return out
}

func permissionInput(spec map[string]any, s sample) map[string]any {
	req := map[string]any{}
	if s.path != "" {
		req = map[string]any{"tool": "Write", "paths": []any{map[string]any{"path": s.path}}, "actions": []any{"fs.write"}}
	} else {
		argv := []any{}
		for _, w := range strings.Fields(s.command) {
			argv = append(argv, w)
		}
		actions := []any{"shell.exec"}
		if s.action != "" {
			actions = append(actions, s.action)
		}
		req = map[string]any{"tool": "Bash", "command": s.command, "commands": []any{s.command}, "argvs": []any{argv}, "actions": actions, "opaque": []any{}}
		if s.opaque {
			req["opaque"] = []any{"it pipes into a shell"}
		}
	}
	return map[string]any{"query": "permission", "now": "2026-11-29T10:00:00Z", "goal": s.goal, "agent": s.agent,
		"health": map[string]any{"store": "", "spec": "", "policy": ""},
		"state":  map[string]any{"agent": agentFacts(spec, s), "gates": gateFacts(spec, s.goal)}, "permission": req}
}

func todoFacts(s sample) map[string]any {
	labels := []any{}
	if s.todoReview {
		labels = append(labels, "review")
	}
	return map[string]any{"id": "t-1", "title": "todo", "kind": s.todoKind, "status": "open", "priority": 2,
		"created_at": "2026-11-28T10:00:00Z", "deps_open": nil, "lease": nil, "due": s.todoKind == "monitor", "next_due_at": "", "labels": labels}
}

func runInput(spec map[string]any, s sample) map[string]any {
	q := map[string]any{}
	if g, _ := spec["goals"].(map[string]any)[s.goal].(map[string]any); g != nil {
		q, _ = g["quota"].(map[string]any)
	}
	num := func(k string, d float64) float64 {
		if v, ok := q[k].(float64); ok {
			return v
		}
		if v, ok := q[k].(int); ok {
			return float64(v)
		}
		return d
	}
	quota := map[string]any{"rounds": s.rounds, "tokens": s.tokens, "cost_usd": s.cost, "compute_seconds": s.computeS,
		"compute_limit_seconds": num("compute", 1) * num("window_seconds", 86400), "resets_at": "",
		"last_round_at": "", "next_round_at": "", "min_interval_elapsed": s.sinceLast >= num("min_interval_seconds", 0)}
	return map[string]any{"query": "should_run", "now": "2026-11-29T10:00:00Z", "goal": s.goal, "agent": s.agent,
		"health": map[string]any{"store": "", "spec": "", "policy": ""},
		"state": map[string]any{"revision": 10, "goal_revision": 5,
			"goal":     goalFacts(spec, s),
			"agent":    agentFacts(spec, s),
			"gates":    gateFacts(spec, s.goal),
			"quota":    quota,
			"progress": map[string]any{"consecutive_no_progress": s.noProgress, "last_outcome": "progress", "last_todo": "", "changed_since_last": true},
			"todos":    []any{todoFacts(s)}}}
}

func claimInput(spec map[string]any, s sample) map[string]any {
	return map[string]any{"query": "claim", "now": "2026-11-29T10:00:00Z", "goal": s.goal, "agent": s.agent,
		"health": map[string]any{"store": "", "spec": "", "policy": ""},
		"state":  map[string]any{"goal": goalFacts(spec, s), "agent": agentFacts(spec, s), "gates": gateFacts(spec, s.goal)},
		"claim":  map[string]any{"op": "claim", "todo": todoFacts(s)}}
}

// permissionRank orders the permission verdicts from least to most permitted.
var permissionRank = map[string]int{"deny": 0, "ask": 1, "defer": 2, "allow": 3}

// outcomes are what the decisions answer for s under the spec in the store.
type outcomes struct {
	perm       string
	run, claim bool
}

func (r *propertyRig) outcomes(tb testing.TB, spec map[string]any, s sample) outcomes {
	p := r.eval(tb, r.perm, permissionInput(spec, s))
	run := r.eval(tb, r.run, runInput(spec, s))
	cl := r.eval(tb, r.claim, claimInput(spec, s))
	return outcomes{perm: p["verdict"].(string), run: run["verdict"] == "run", claim: cl["verdict"] == "allow"}
}

// widened reports the first sample more permitted under new than under old.
func (r *propertyRig) widened(tb testing.TB, old, new map[string]any, samples []sample) (string, bool) {
	r.useSpec(tb, old)
	before := make([]outcomes, len(samples))
	for i, s := range samples {
		before[i] = r.outcomes(tb, old, s)
	}
	r.useSpec(tb, new)
	for i, s := range samples {
		a, b := before[i], r.outcomes(tb, new, s)
		if permissionRank[b.perm] > permissionRank[a.perm] || (b.run && !a.run) || (b.claim && !a.claim) {
			return fmt.Sprintf("%v: permission %s → %s, should_run admits %v → %v, claim allows %v → %v", s, a.perm, b.perm, a.run, b.run, a.claim, b.claim), true
		}
	}
	return "", false
}

// soundness runs pairs random spec pairs through classify; for each one
// adopted it evaluates the samples under both specs. It returns the first
// widening adopted (with the pair) and how many pairs were adopted.
func (r *propertyRig) soundness(tb testing.TB, classify classifier, seed uint64, pairs, nsamples int) (string, int) {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	samples := genSamples(rnd, nsamples)
	adopted := 0
	for range pairs {
		old := genSpec(rnd)
		new := mutate(rnd, old)
		if !classify(old, new) {
			continue
		}
		adopted++
		if why, bad := r.widened(tb, old, new, samples); bad {
			o, _ := json.Marshal(old)
			n, _ := json.Marshal(new)
			return fmt.Sprintf("adopted without a human, yet %s\nold: %s\nnew: %s", why, o, n), adopted
		}
	}
	return "", adopted
}

// tighteningBase is the spec the precision half edits.
func tighteningBase() map[string]any {
	return jsonValue(`{"project": {"name": "p", "policy_deadline": "2s"}, "audit": {},
		"agents": {"a1": {"host": "shell", "role": "executor", "mode": "active"}, "a2": {"host": "shell", "role": "executor", "mode": "active"}},
		"goals": {"g1": {"objective": "Ship it", "agents": ["a1", "a2"],
			"quota": {"window": "24h", "window_seconds": 86400, "rounds": 10, "compute": 1, "min_interval": "0s", "min_interval_seconds": 0},
			"stall": {"max_no_progress": 3},
			"scope": {"write": ["**"], "deny": ["secrets/**"],
				"commands": {"allow": [], "ask": ["git push*"], "deny": [], "opaque": "ask"},
				"grant": {"commands": ["go test*", "make*"], "tools": [], "paths": ["api/**"]}},
			"gates": {}, "evidence": {"stale_after": "72h", "stale_after_seconds": 259200}}}}`)
}

// pureTightenings are edits that permit nothing more, each of a kind the
// classifier must adopt without a human.
var pureTightenings = []struct {
	name string
	edit func(s map[string]any)
}{
	{"a narrower glob", func(s map[string]any) { scopeOf(s)["write"] = []any{"src/**"} }},
	{"an agent removed from the goal", func(s map[string]any) { goalOf(s)["agents"] = []any{"a1"} }},
	{"a declared agent removed", func(s map[string]any) { delete(s["agents"].(map[string]any), "a2") }},
	{"a lower quota", func(s map[string]any) { goalOf(s)["quota"].(map[string]any)["rounds"] = 5 }},
	{"a deny added", func(s map[string]any) { scopeOf(s)["deny"] = []any{"secrets/**", ".env"} }},
	{"a command deny added", func(s map[string]any) { scopeOf(s)["commands"].(map[string]any)["deny"] = []any{"git.push.force"} }},
	{"a gate added", func(s map[string]any) {
		goalOf(s)["gates"] = map[string]any{"merge": map[string]any{"question": "Merge the branch now?", "options": []any{"approve", "reject"},
			"guards": []any{"git.merge"}, "answerers": []any{"human"}, "agents": []any{}, "todos": []any{}}}
	}},
	{"a grant removed", func(s map[string]any) { scopeOf(s)["grant"].(map[string]any)["commands"] = []any{"go test*"} }},
	{"a command allow list set", func(s map[string]any) { scopeOf(s)["commands"].(map[string]any)["allow"] = []any{"go *"} }},
}

func goalOf(s map[string]any) map[string]any {
	return s["goals"].(map[string]any)["g1"].(map[string]any)
}

func scopeOf(s map[string]any) map[string]any { return goalOf(s)["scope"].(map[string]any) }

// precision lists the pure tightenings classify leaves to a human.
func precision(classify classifier) []string {
	var missed []string
	for _, tc := range pureTightenings {
		old := tighteningBase()
		new := clone(old)
		tc.edit(new)
		if !classify(old, new) {
			missed = append(missed, tc.name)
		}
	}
	return missed
}

// TestAdoptProperty: with a fixed seed, no adopted change of 120 random
// ones widens any of 30 samples, enough changes are adopted for that to
// say something, and every pure tightening is adopted. (Kept small for
// go test; FuzzAdoptProperty runs more.)
func TestAdoptProperty(t *testing.T) {
	t.Parallel() // its own rig: a store and queries of its own
	r := newPropertyRig(t)
	classify := r.real(t)
	why, adopted := r.soundness(t, classify, 23, 120, 30)
	if why != "" {
		t.Fatal(why)
	}
	if adopted < 15 {
		t.Fatalf("only %d of 120 random changes adopted: the property says too little", adopted)
	}
	t.Logf("%d of 120 random changes adopted, none widening", adopted)
	if missed := precision(classify); len(missed) > 0 {
		t.Fatalf("pure tightenings left to a human: %v", missed)
	}
}

// TestAdoptProperty_FailsForBrokenClassifiers: each half of the property
// catches a classifier that is wrong one way: adopting everything ("nothing
// loosens") widens some sample, and adopting nothing ("everything
// loosens") misses every pure tightening.
func TestAdoptProperty_FailsForBrokenClassifiers(t *testing.T) {
	t.Parallel() // its own rig: a store and queries of its own
	r := newPropertyRig(t)
	adoptAll := func(_, _ map[string]any) bool { return true }
	adoptNone := func(_, _ map[string]any) bool { return false }
	if why, _ := r.soundness(t, adoptAll, 23, 120, 30); why == "" {
		t.Fatal("the soundness half passes a classifier that adopts every change")
	}
	if missed := precision(adoptNone); len(missed) != len(pureTightenings) {
		t.Fatalf("the precision half passes a classifier that adopts nothing (missed only %v)", missed)
	}
	if missed := precision(adoptAll); len(missed) != 0 {
		t.Fatalf("precision(adopt everything) missed %v", missed)
	}
	if why, adopted := r.soundness(t, adoptNone, 23, 120, 30); why != "" || adopted != 0 {
		t.Fatalf("soundness(adopt nothing): %q, %d adopted", why, adopted)
	}
}

// FuzzAdoptProperty runs the soundness half on more seeds (a longer run:
// go test ./policies -run '^$' -fuzz FuzzAdoptProperty -fuzztime 5m).
// A plain go test runs one seed (3.6 s, after every other test of the
// package): TestAdoptProperty is the property's check there, on seed 23.
func FuzzAdoptProperty(f *testing.F) {
	r := newPropertyRig(f)
	f.Add(uint64(1))
	f.Fuzz(func(t *testing.T, seed uint64) {
		if why, _ := r.soundness(t, r.real(t), seed, 40, 80); why != "" {
			t.Fatal(why)
		}
	})
}
