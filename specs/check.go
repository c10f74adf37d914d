package specs

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/presets"
)

func unquote(s string) (string, error) { return literal.Unquote(s) }

// idRe is what goal, agent, gate and todo ids must look like: they appear in
// refs ("goals.ship-v2.quota.rounds"), CLI flags and store keys.
var idRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// applyPresets unifies each goal that names a preset with that preset.
//
// A preset's default (`*x | _`) applies only where the goal does not set the
// field itself (so it wins over the schema's default instead of cancelling
// it); where the goal sets the field, the goal's value is unified with the
// whole preset value, so constraints still apply. Concrete preset values
// are unified as they are: a different value in the goal is a conflict.
func (l *loader) applyPresets(user cue.Value) cue.Value {
	goals := lookup(user, "goals")
	for _, id := range fieldNames(goals) {
		pv := lookup(goals, id, "preset")
		if !pv.Exists() {
			continue
		}
		name, err := pv.String()
		if err != nil {
			continue // not a concrete string: the schema reports it
		}
		path := []string{"goals", id, "preset"}
		p, ok, err := l.ev.preset(name)
		switch {
		case !ok:
			l.add(l.posError(pv.Pos(), path, CodeUnknownPreset,
				fmt.Sprintf("unknown preset %q (known presets: %s)", name, strings.Join(presets.Names(), ", "))))
			continue
		case err != nil:
			l.add(l.posError(pv.Pos(), path, CodeInternal, fmt.Sprintf("preset %q does not compile: %v", name, err)))
			continue
		}
		if l.presetFiles == nil {
			l.presetFiles = map[string]string{}
		}
		l.presetFiles[presetFile(name)] = name
		goal := []cue.Selector{cue.Str("goals"), cue.Str(id)}
		overlay := presetOverlay(lookup(user, "goals", id), l.ev.ctx.CompileString("{}"), nil, p)
		user = user.FillPath(cue.MakePath(goal...), overlay)
	}
	return user
}

// presetOverlay adds to overlay what preset value p contributes at rel (a
// path inside the goal) given the goal's own value g: filling a small
// overlay and unifying it once is much cheaper than filling the whole spec
// once per preset field.
func presetOverlay(g, overlay cue.Value, rel []cue.Selector, p cue.Value) cue.Value {
	it, err := p.Fields(cue.Optional(true))
	if err != nil {
		return overlay
	}
	for it.Next() {
		path := append(rel[:len(rel):len(rel)], it.Selector())
		pv := it.Value()
		d, hasDefault := pv.Default()
		if !hasDefault && pv.IncompleteKind() == cue.StructKind {
			overlay = presetOverlay(g, overlay, path, pv)
			continue
		}
		cp := cue.MakePath(path...)
		gv := g.LookupPath(cp)
		_, goalDefault := gv.Default()
		switch {
		case gv.Exists() && !goalDefault:
			overlay = overlay.FillPath(cp, pv) // the goal's value refines the preset's
		case hasDefault:
			overlay = overlay.FillPath(cp, d)
		default:
			overlay = overlay.FillPath(cp, pv)
		}
	}
	return overlay
}

// validateParts validates each agent, goal and part of a goal on its own
// against its definition. CUE does not always report every error of a
// struct once one is found; this finds the rest (only run after an error).
func (l *loader) validateParts(user cue.Value) {
	l.validate("#Project", lookup(user, "project"), []string{"project"})
	agents := lookup(user, "agents")
	for _, id := range fieldNames(agents) {
		l.validate("#Agent", lookup(agents, id), []string{"agents", id})
	}
	goals := lookup(user, "goals")
	for _, id := range fieldNames(goals) {
		g := lookup(goals, id)
		gp := []string{"goals", id}
		l.validate("#Goal", g, gp)
		for _, part := range []struct{ field, def string }{{"quota", "#Quota"}, {"stall", "#Stall"}, {"scope", "#Scope"}, {"evidence", "#Evidence"}} {
			l.validate(part.def, lookup(g, part.field), append(gp[:2:2], part.field))
		}
		for _, coll := range []struct{ field, def string }{{"gates", "#Gate"}, {"todos", "#Todo"}} {
			c := lookup(g, coll.field)
			for _, name := range fieldNames(c) {
				l.validate(coll.def, lookup(c, name), []string{"goals", id, coll.field, name})
			}
		}
	}
}

func (l *loader) validate(def string, v cue.Value, prefix []string) {
	if !v.Exists() {
		return
	}
	if err := l.ev.def(def).Unify(v).Validate(cue.Concrete(true)); err != nil {
		l.addCUE(err, prefix)
	}
}

// checkClosed reports every field of the user's value uv that the schema
// value sv (closed) does not declare, recursing into declared structs and
// map entries. CUE reports only some "field not allowed" errors once a
// struct has another error; fields already reported are skipped.
func (l *loader) checkClosed(uv, sv cue.Value, path []string) {
	if !uv.Exists() || !sv.Exists() || sv.IncompleteKind()&cue.StructKind == 0 {
		return
	}
	declared := map[string]cue.Value{}
	if it, err := sv.Fields(cue.Optional(true)); err == nil {
		for it.Next() {
			if sel := it.Selector(); sel.LabelType() == cue.StringLabel {
				declared[sel.Unquoted()] = it.Value()
			}
		}
	}
	pattern := sv.LookupPath(cue.MakePath(cue.AnyString))
	it, err := uv.Fields(cue.Optional(true))
	if err != nil {
		return
	}
	for it.Next() {
		sel := it.Selector()
		if sel.LabelType() != cue.StringLabel {
			continue
		}
		name := sel.Unquoted()
		p := append(path[:len(path):len(path)], name)
		switch def, ok := declared[name]; {
		case ok:
			l.checkClosed(it.Value(), def, p)
		case pattern.Exists():
			l.checkClosed(it.Value(), pattern, p)
		default:
			if l.reported(p, CodeUnknownField) {
				continue
			}
			pos, ok := l.index[pathKey(p)]
			if !ok {
				pos = it.Value().Pos()
			}
			l.add(l.posError(pos, p, CodeUnknownField, l.unknownFieldMsg(p)))
		}
	}
}

// reported reports whether an error with this path and code was added.
func (l *loader) reported(path []string, code string) bool {
	ps := strings.Join(path, ".")
	for _, e := range l.errs {
		if e.Location.Field == ps && e.Code == code {
			return true
		}
	}
	return false
}

// checkRequired reports required fields the user (or the goal's preset)
// did not set, at the enclosing declaration in the user's files. CUE reports
// a missing field at the schema's position only, and not at all once another
// error was found in the same struct.
func (l *loader) checkRequired(user cue.Value) {
	need := func(v cue.Value, path []string, field string) {
		// v may be an error (a closed #Goal the user embedded with an
		// unknown field in it) whose fields are still there to check.
		if !v.Exists() {
			return
		}
		if !hasValue(v, field) {
			p := append(path[:len(path):len(path)], field)
			l.add(l.posError(token.NoPos, p, CodeMissingField, missingMsg(p)))
		}
	}
	agents := lookup(user, "agents")
	for _, id := range fieldNames(agents) {
		need(lookup(agents, id), []string{"agents", id}, "host")
	}
	goals := lookup(user, "goals")
	for _, id := range fieldNames(goals) {
		g := lookup(goals, id)
		need(g, []string{"goals", id}, "objective")
		gates := lookup(g, "gates")
		for _, name := range fieldNames(gates) {
			need(lookup(gates, name), []string{"goals", id, "gates", name}, "question")
		}
		todos := lookup(g, "todos")
		for _, name := range fieldNames(todos) {
			need(lookup(todos, name), []string{"goals", id, "todos", name}, "title")
		}
	}
}

// hasValue reports whether struct v has a regular field named field: not
// absent, and not merely declared required (`field!: T`, which v has when the
// user embedded a definition such as #Goal) or optional.
func hasValue(v cue.Value, field string) bool {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return true // not a struct: the schema reports it
	}
	for it.Next() {
		sel := it.Selector()
		if sel.LabelType() == cue.StringLabel && sel.Unquoted() == field {
			return sel.ConstraintType() == 0
		}
	}
	return false
}

// checkSemantics does the checks the schema cannot express, on the unified
// spec (defaults applied); parts that are not concrete are skipped (CUE
// reports them).
func (l *loader) checkSemantics(spec cue.Value) {
	l.checkPolicyDeadline(spec)
	l.checkSandbox(spec)
	l.checkDuration(spec, nil, true, "audit", "retain")
	agents := lookup(spec, "agents")
	for _, id := range fieldNames(agents) {
		l.checkID("agent", []string{"agents", id})
	}
	declared := fieldNames(agents)
	goals := lookup(spec, "goals")
	for _, id := range fieldNames(goals) {
		g := lookup(goals, id)
		gp := []string{"goals", id}
		l.checkID("goal", gp)
		l.checkGoalAgents(g, gp, declared)
		l.checkText(lookup(g, "objective"), append(gp[:2:2], "objective"), true)
		l.checkDuration(g, gp, true, "quota", "window")
		l.checkDuration(g, gp, false, "quota", "min_interval")
		l.checkDuration(g, gp, true, "evidence", "stale_after")

		gates := lookup(g, "gates")
		for _, name := range fieldNames(gates) {
			gate := lookup(gates, name)
			p := []string{"goals", id, "gates", name}
			l.checkID("gate", p)
			l.checkText(lookup(gate, "question"), append(p[:4:4], "question"), false)
			opts, okOpts := strs(lookup(gate, "options"))
			if okOpts {
				for i, o := range opts {
					l.checkString(o, append(p[:4:4], "options"), false)
					if slices.Index(opts, o) != i {
						l.add(l.posError(token.NoPos, append(p[:4:4], "options"), CodeInvalid, fmt.Sprintf("option %q is listed twice", o)))
					}
				}
			}
			if oe, ok := str(lookup(gate, "on_expiry")); ok && okOpts && !slices.Contains(opts, oe) {
				l.add(l.posError(token.NoPos, append(p[:4:4], "on_expiry"), CodeInvalid, fmt.Sprintf(
					"on_expiry %q is not one of the gate's options (%s)", oe, quoteList(opts))))
			}
			l.checkDuration(gate, p, true, "expires_after")
		}

		todos := lookup(g, "todos")
		for _, name := range fieldNames(todos) {
			todo := lookup(todos, name)
			p := []string{"goals", id, "todos", name}
			l.checkID("todo", p)
			l.checkText(lookup(todo, "title"), append(p[:4:4], "title"), false)
			kind, ok := str(lookup(todo, "kind"))
			every := lookup(todo, "every")
			switch {
			case !ok:
			case kind == "monitor" && !every.Exists():
				l.add(l.posError(token.NoPos, append(p[:4:4], "every"), CodeMissingField,
					`missing required field "every": a monitor todo needs its cadence, e.g. every: "15m"`))
			case kind != "monitor" && every.Exists():
				l.add(l.posError(token.NoPos, append(p[:4:4], "every"), CodeInvalid,
					fmt.Sprintf("every applies only to monitor todos (this todo's kind is %q)", kind)))
			}
			l.checkDuration(todo, p, true, "every")
		}
	}
}

// checkGoalAgents reports each id in goal g's agents list (spec field
// goals.<id>.agents) that the spec's agents do not declare: a typo there
// would shut the agent out of the goal (every decision: agent_not_on_goal)
// with nothing to say why. An agent registered at runtime joins a goal
// with `loopx agent register ID --goal G`, not through the spec's list.
func (l *loader) checkGoalAgents(g cue.Value, gp []string, declared []string) {
	list := lookup(g, "agents")
	ids, ok := strs(list)
	if !ok {
		return
	}
	if d, ok := list.Default(); ok {
		list = d
	}
	known := " (no agent is declared)"
	if len(declared) > 0 {
		sorted := slices.Sorted(slices.Values(declared))
		known = " (declared: " + strings.Join(sorted, ", ") + ")"
	}
	for i, a := range ids {
		if slices.Contains(declared, a) {
			continue
		}
		pos := list.LookupPath(cue.MakePath(cue.Index(i))).Pos()
		l.add(l.posError(pos, append(gp[:2:2], "agents"), CodeUnknownAgent, fmt.Sprintf(
			"goal %s lists agent %q, which is not declared under agents%s: declare it (agents: %s: {host: \"shell\"}) or fix the name",
			gp[1], a, known, cueLabel(a))))
	}
}

// cueLabel is id as a CUE field label, quoted when it is not an identifier.
func cueLabel(id string) string {
	for i, r := range id {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return strconv.Quote(id)
		}
	}
	return id
}

// questionRe matches CUE's message for a value the schema's #Question
// refuses (its "?" or its 4-words pattern); group 1 is the quoted value.
var questionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid value (".*") \(out of bound =~`) })

// isQuestion reports whether path is a gate's question (goals.*.gates.*.question).
func isQuestion(path []string) bool {
	return len(path) == 5 && path[0] == "goals" && path[2] == "gates" && path[4] == "question"
}

// vagueQuestionMsg says why a gate question (quoted) is refused and how to ask it.
func vagueQuestionMsg(quoted string) string {
	return fmt.Sprintf("gate question %s is not a concrete question: ask it with a \"?\" and at least 4 words, e.g. \"Merge the v2 branch into main?\"", quoted)
}

// ConcreteQuestion reports whether q is a concrete question: whether it
// satisfies the schema's #Question (a "?" and at least 4 words), the rule
// every gate question obeys, in the spec or raised at runtime.
func ConcreteQuestion(q string) bool {
	evalMu.Lock()
	defer evalMu.Unlock()
	ev, err := currentEvaluator()
	if err != nil {
		return false // fail closed: no schema, no question passes
	}
	return ev.def("#Question").Unify(ev.ctx.Encode(q)).Validate(cue.Concrete(true)) == nil
}

// ValidAnswerer reports whether a is a well-formed gate answerer: whether
// it satisfies the schema's #Answerer ("human" or "agent:<id>"), the rule
// every gate's answerers obey, in the spec or raised at runtime. Whether
// the agent is known is the caller's to check.
func ValidAnswerer(a string) bool {
	evalMu.Lock()
	defer evalMu.Unlock()
	ev, err := currentEvaluator()
	if err != nil {
		return false // fail closed: no schema, no answerer passes
	}
	return ev.def("#Answerer").Unify(ev.ctx.Encode(a)).Validate(cue.Concrete(true)) == nil
}

// isDuration reports whether s satisfies the schema's #Duration.
func (l *loader) isDuration(s string) bool {
	return l.ev.def("#Duration").Unify(l.ev.ctx.Encode(s)).Validate(cue.Concrete(true)) == nil
}

// checkText refuses a text field (a gate's question or option, a todo's
// title, a goal's objective) that holds a character a terminal would act
// on: control characters, escape sequences, bidirectional overrides
// (internal/inert; newline and tab allowed when multiline).
func (l *loader) checkText(v cue.Value, path []string, multiline bool) {
	if s, ok := str(v); ok {
		l.checkString(s, path, multiline)
	}
}

// checkString is checkText for a string already read (a list element).
func (l *loader) checkString(s string, path []string, multiline bool) {
	if err := inert.Check("this text", s, multiline); err != nil {
		l.add(l.posError(token.NoPos, path, CodeInvalid, err.Error()))
	}
}

func (l *loader) checkID(kind string, path []string) {
	id := path[len(path)-1]
	if idRe().MatchString(id) {
		return
	}
	l.add(l.posError(token.NoPos, path, CodeInvalid, fmt.Sprintf(
		"invalid %s id %q: use up to 64 letters, digits, \".\", \"_\" and \"-\", starting with a letter or digit", kind, id)))
}

// checkDuration checks that the duration at v.field… (if set and well
// formed; the schema reports a malformed one) is in range, and positive when
// positive is set.
func (l *loader) checkDuration(v cue.Value, prefix []string, positive bool, field ...string) {
	s, ok := str(lookup(v, field...))
	if !ok || !l.isDuration(s) {
		return
	}
	path := append(prefix[:len(prefix):len(prefix)], field...)
	sec, err := durationSeconds(s)
	switch {
	case err != nil:
		l.add(l.posError(token.NoPos, path, CodeInvalid, fmt.Sprintf("duration %q is out of range (at most about 290 years)", s)))
	case positive && sec == 0:
		l.add(l.posError(token.NoPos, path, CodeInvalid, fmt.Sprintf("duration %q must be longer than 0s", s)))
	}
}

// checkPolicyDeadline refuses a project.policy_deadline outside
// MinPolicyDeadline..MaxPolicyDeadline (the format is the schema's).
func (l *loader) checkPolicyDeadline(spec cue.Value) {
	path := []string{"project", "policy_deadline"}
	s, ok := str(lookup(spec, path...))
	if !ok || !l.isDuration(s) {
		return
	}
	if d, err := ParseDuration(s); err != nil || d < MinPolicyDeadline || d > MaxPolicyDeadline {
		l.add(l.posError(token.NoPos, path, CodeInvalid, fmt.Sprintf("policy deadline %q is out of range: between %s and %s (default %s)",
			s, MinPolicyDeadline, MaxPolicyDeadline, DefaultPolicyDeadline)))
	}
}

// derive fills the *_seconds fields of a decoded spec.
func (l *loader) derive(s *Spec) {
	secs := func(val string, path ...string) int64 {
		if val == "" {
			return 0
		}
		n, err := durationSeconds(val)
		if err != nil {
			l.add(l.posError(token.NoPos, path, CodeInvalid, err.Error()))
		}
		return n
	}
	s.Audit.RetainSeconds = secs(s.Audit.Retain, "audit", "retain")
	for id, g := range s.Goals {
		g.Quota.WindowSeconds = secs(g.Quota.Window, "goals", id, "quota", "window")
		g.Quota.MinIntervalSeconds = secs(g.Quota.MinInterval, "goals", id, "quota", "min_interval")
		g.Evidence.StaleAfterSeconds = secs(g.Evidence.StaleAfter, "goals", id, "evidence", "stale_after")
		for name, gate := range g.Gates {
			gate.ExpiresAfterSeconds = secs(gate.ExpiresAfter, "goals", id, "gates", name, "expires_after")
			g.Gates[name] = gate
		}
		for name, t := range g.Todos {
			t.EverySeconds = secs(t.Every, "goals", id, "todos", name, "every")
			g.Todos[name] = t
		}
		s.Goals[id] = g
	}
}

// str returns v's (default) value if it is a concrete string.
func str(v cue.Value) (string, bool) {
	if !v.Exists() {
		return "", false
	}
	if d, ok := v.Default(); ok {
		v = d
	}
	s, err := v.String()
	return s, err == nil
}

// strs returns v's (default) value if it is a concrete list of strings.
func strs(v cue.Value) ([]string, bool) {
	if !v.Exists() {
		return nil, false
	}
	if d, ok := v.Default(); ok {
		v = d
	}
	if !v.IsConcrete() || v.IncompleteKind() != cue.ListKind {
		return nil, false
	}
	var out []string
	if err := v.Decode(&out); err != nil {
		return nil, false
	}
	return out, true
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

var (
	outOfBoundRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^invalid value (".*") \(out of bound =~"\^\(\[0-9\]\+`)
	})
	disjunctRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+ errors in empty disjunction`) })
	incompleteRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^incomplete value (.*)$`) })
	// writableRe is a project.sandbox.writable glob that is neither
	// absolute nor "~/" (the schema's pattern).
	writableRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`invalid value ("(?:[^"\\]|\\.)*") \(out of bound =~"\^\(/\|~/\)"\)`)
	})
	mismatchRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^conflicting values .* \(mismatched types \w+ and \w+\)$`)
	})
)

// maxMessage bounds a message's length (CUE prints whole values in some).
const maxMessage = 300

func shorten(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	return s[:maxMessage-3] + "..."
}

const durationHelp = `a duration: a number and a unit (ms, s, m, h, d, w), e.g. "90s", "10m", "24h", "7d"`

// helpByField says what each schema field wants, by generic path (map keys
// and list indexes are "*").
var helpByField = map[string]string{
	"project":                       `a struct: {name: "…"}`,
	"agents":                        "a struct of agents by id",
	"agents.*":                      `an agent: {host: "codex", role: "executor"}`,
	"goals":                         "a struct of goals by id",
	"goals.*":                       `a goal: {objective: "…", quota: {…}, …}`,
	"goals.*.quota":                 "a struct: {window, rounds, tokens, cost_usd, min_interval, compute}",
	"goals.*.stall":                 "a struct: {max_no_progress}",
	"goals.*.scope":                 "a struct: {write, deny, commands}",
	"goals.*.scope.commands":        "a struct: {allow, ask, deny}",
	"goals.*.gates":                 "a struct of gates by name",
	"goals.*.gates.*":               `a gate: {question: "…?", options, guards, answerers, …}`,
	"goals.*.evidence":              "a struct: {stale_after}",
	"goals.*.todos":                 "a struct of todos by name",
	"goals.*.todos.*":               `a todo: {title: "…", kind, priority, every}`,
	"project.name":                  "a string",
	"project.policy_deadline":       durationHelp,
	"audit":                         "a struct: {retain}",
	"audit.retain":                  durationHelp,
	"agents.*.host":                 `one of "claude-code", "codex", "cursor", "shell", "other"`,
	"agents.*.role":                 `a non-empty string such as "executor" or "reviewer"`,
	"agents.*.mode":                 `"active" or "monitor_only"`,
	"goals.*.objective":             "a non-empty string",
	"goals.*.preset":                "a preset name",
	"goals.*.agents":                "a list of agent ids",
	"goals.*.agents.*":              "an agent id",
	"goals.*.quota.window":          durationHelp,
	"goals.*.quota.min_interval":    durationHelp,
	"goals.*.quota.rounds":          "an integer of at least 0",
	"goals.*.quota.tokens":          "an integer of at least 0",
	"goals.*.quota.cost_usd":        "a number of at least 0",
	"goals.*.quota.compute":         "a number from 0 to 1 (the share of the window rounds may use)",
	"goals.*.stall.max_no_progress": "an integer of at least 1",
	"goals.*.scope.write":           "a list of path globs",
	"goals.*.scope.deny":            "a list of path globs",
	"goals.*.scope.commands.allow":  "a list of command patterns",
	"goals.*.scope.commands.ask":    "a list of command patterns",
	"goals.*.scope.commands.deny":   "a list of command patterns",
	"goals.*.gates.*.question":      "a non-empty string",
	"goals.*.gates.*.options":       "a non-empty list of strings",
	"goals.*.gates.*.guards":        "a list of action names",
	"goals.*.gates.*.answerers":     `a non-empty list of "human" or "agent:<id>"`,
	"goals.*.gates.*.answerers.*":   `"human" or "agent:<id>"`,
	"goals.*.gates.*.expires_after": durationHelp,
	"goals.*.gates.*.on_expiry":     "one of the gate's options",
	"goals.*.gates.*.agents":        "a list of agent ids",
	"goals.*.gates.*.todos":         "a list of todo names or ids",
	"goals.*.evidence.stale_after":  durationHelp,
	"goals.*.todos.*.title":         "a non-empty string",
	"goals.*.todos.*.kind":          `"task", "monitor" or "action"`,
	"goals.*.todos.*.priority":      `one of "P0", "P1", "P2", "P3", "P4"`,
	"goals.*.todos.*.every":         durationHelp,
	"project.sandbox.mode":          `"auto", "required" or "off"`,
}

// fieldHelp says what the schema wants at path ("" if not known).
func fieldHelp(path []string) string {
	g := make([]string, len(path))
	for i, p := range path {
		switch {
		case i == 1 && (path[0] == "agents" || path[0] == "goals"),
			i == 3 && path[0] == "goals" && (path[2] == "gates" || path[2] == "todos"),
			i >= 3 && p != "" && strings.Trim(p, "0123456789") == "":
			p = "*"
		}
		g[i] = p
	}
	if h, ok := helpByField[strings.Join(g, ".")]; ok {
		return h
	}
	if len(g) > 0 && g[len(g)-1] == "*" { // an element of a list of strings
		if h := helpByField[strings.Join(g[:len(g)-1], ".")]; strings.HasPrefix(h, "a list of ") {
			return "a string"
		}
	}
	return ""
}

// polish rewrites CUE messages users often meet into plainer ones.
func (l *loader) polish(path []string, msg string) string {
	if m := outOfBoundRe().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("invalid duration %s: want %s", m[1], durationHelp)
	}
	if m := writableRe().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf(`invalid value %s: want a path that is absolute or starts with "~/" (e.g. "~/.m2/**")`, m[1])
	}
	if m := incompleteRe().FindStringSubmatch(msg); m != nil {
		want := fieldHelp(path)
		if want == "" {
			want = "a concrete value"
		}
		return shorten(fmt.Sprintf("value is not concrete (%s): want %s", m[1], want))
	}
	if mismatchRe().MatchString(msg) {
		if want := fieldHelp(path); want != "" {
			return "invalid value" + l.userValue(path) + ": want " + want
		}
	}
	return shorten(msg)
}

// schemaAt returns the schema's value for a spec path (map entries resolve
// to their pattern's definition).
func (l *loader) schemaAt(path []string) cue.Value {
	v := l.ev.spec
	for _, p := range path {
		next := v.LookupPath(cue.MakePath(cue.Str(p)))
		if !next.Exists() {
			next = v.LookupPath(cue.MakePath(cue.Str(p).Optional()))
		}
		if !next.Exists() {
			next = v.LookupPath(cue.MakePath(cue.AnyString))
		}
		if !next.Exists() {
			return next
		}
		v = next
	}
	return v
}

// unknownFieldMsg names the unknown field and the closest allowed one.
func (l *loader) unknownFieldMsg(path []string) string {
	if len(path) == 0 {
		return "field not allowed"
	}
	field := path[len(path)-1]
	parent := l.schemaAt(path[:len(path)-1])
	var allowed []string
	if it, err := parent.Fields(cue.Optional(true)); err == nil {
		for it.Next() {
			if s := it.Selector(); s.LabelType() == cue.StringLabel {
				allowed = append(allowed, s.Unquoted())
			}
		}
	}
	msg := fmt.Sprintf("unknown field %q", field)
	if len(allowed) == 0 {
		return msg
	}
	best, bestD := "", 3
	for _, a := range allowed {
		if d := editDistance(field, a); d < bestD {
			best, bestD = a, d
		}
	}
	if best != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", best)
	}
	return msg + " (allowed: " + strings.Join(allowed, ", ") + ")"
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
