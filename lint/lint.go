package lint

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/loopx-dev/loopx/policies"
	"github.com/loopx-dev/loopx/specs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// ReportQuery is the entry rule of the lint rules: the set of every rule's
// violations.
const ReportQuery = "data.loopx.lint.report"

// Severities of a Finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

//go:embed rules
var rulesFS embed.FS

// Finding is one problem `loopx check` reports: a lint rule's violation, a
// publication-scan hit, a spec or policy error, a failing policy test or a
// decision that replays differently.
type Finding struct {
	// Rule names what found it: a lint rule id ("goal-without-quota"), a scan
	// category ("credential"), or "spec", "policy", "policy-test", "replay".
	Rule string `json:"rule"`
	// Severity is SeverityError or SeverityWarning.
	Severity string `json:"severity"`
	// Message says what is wrong and what to do, for people.
	Message string `json:"message"`
	// Ref is the spec field ("goals.g1.quota") or record ("todo t-4f9a",
	// "decision 01J…") it is about; "" when none.
	Ref string `json:"ref,omitempty"`
	// Location is where it is; nil when it has no place in a file.
	Location *Location `json:"location,omitempty"`
}

// Location is a place in a file of the project: File is relative to the
// project root, slash-separated; Row and Col are 1-based (0 = unknown).
type Location struct {
	File string `json:"file"`
	Row  int    `json:"row,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// String is "file:row:col", "file:row" or "file".
func (l *Location) String() string {
	switch {
	case l == nil:
		return ""
	case l.Row > 0 && l.Col > 0:
		return fmt.Sprintf("%s:%d:%d", l.File, l.Row, l.Col)
	case l.Row > 0:
		return fmt.Sprintf("%s:%d", l.File, l.Row)
	}
	return l.File
}

// RuleInfo describes a rule for people and for SARIF's tool.driver.rules.
type RuleInfo struct {
	// ID is the rule id findings carry ("goal-without-quota").
	ID string `json:"id"`
	// Description says what the rule checks.
	Description string `json:"description"`
	// Severity is the severity of its findings.
	Severity string `json:"severity"`
}

// Input is what the lint rules see as `input`.
type Input struct {
	// Spec is the exported spec JSON (specs.Loaded.JSON); nil when the spec
	// does not load (the spec-only rules then find nothing).
	Spec json.RawMessage `json:"spec"`
	// State is the read-only kernel snapshot the caller built (the engine's
	// CheckState): lists "goals", "todos", "gates", "evidence", "agents".
	// Any JSON-encodable value; nil is an empty state.
	State any `json:"state"`
	// Now is the instant ages and expiries are measured at (UTC).
	Now time.Time `json:"-"`
	// Presets are the names of the presets that exist (presets.Names()).
	Presets []string `json:"presets"`
}

// Locator maps a spec field path (["goals", "g1", "quota"]) to the user's
// file position of its nearest declared field; nil when it finds none.
type Locator func(path []string) *Location

type bundle struct {
	modules, tests map[string]string
	rules          []RuleInfo
	err            error
}

var loadBundle = sync.OnceValue(func() bundle {
	var b bundle
	b.modules, b.tests, b.err = policies.ReadBundle(rulesFS, "rules", "lint/")
	if b.err != nil {
		return b
	}
	for _, name := range slices.Sorted(maps.Keys(b.modules)) {
		m, err := ast.ParseModuleWithOpts(name, b.modules[name], ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			b.err = err
			return b
		}
		if !strings.HasPrefix(m.Package.Path.String(), "data.loopx.lint.rules.") {
			continue
		}
		var info RuleInfo
		for _, a := range m.Annotations {
			if a.Scope != "package" {
				continue
			}
			info.ID, info.Description = a.Title, strings.Join(strings.Fields(a.Description), " ")
			info.Severity, _ = a.Custom["severity"].(string)
		}
		if info.ID == "" {
			b.err = fmt.Errorf("%s: the package's METADATA has no title (the rule id)", name)
			return b
		}
		if info.Severity != SeverityError && info.Severity != SeverityWarning {
			b.err = fmt.Errorf("%s: the package's METADATA custom.severity is %q, want %q or %q", name, info.Severity, SeverityError, SeverityWarning)
			return b
		}
		b.rules = append(b.rules, info)
	}
	slices.SortFunc(b.rules, func(x, y RuleInfo) int { return strings.Compare(x.ID, y.ID) })
	return b
})

// Modules returns the lint rules' Rego modules (tests excluded), keyed by
// their slash-separated path ("lint/rules/goal_without_quota/goal_without_quota.rego").
// The map is a fresh copy.
func Modules() map[string]string { return maps.Clone(loadBundle().modules) }

// TestModules returns the lint rules' Rego tests, keyed like Modules.
func TestModules() map[string]string { return maps.Clone(loadBundle().tests) }

// Rules describes the Rego lint rules, sorted by id, from each rule
// package's METADATA (title = id, description, custom.severity): the one
// place a rule's id and severity are written (its violations read them
// with rego.metadata.chain() in lib.violation).
func Rules() []RuleInfo { return slices.Clone(loadBundle().rules) }

var prepared = sync.OnceValues(func() (rego.PreparedEvalQuery, error) {
	b := loadBundle()
	if b.err != nil {
		return rego.PreparedEvalQuery{}, b.err
	}
	opts := []func(*rego.Rego){rego.Query(ReportQuery)}
	lib, _ := policies.Library() // the rules use data.loopx.lib (globs) rather than copies
	maps.Copy(lib, b.modules)
	for _, path := range slices.Sorted(maps.Keys(lib)) {
		opts = append(opts, rego.Module(path, lib[path]))
	}
	return rego.New(opts...).PrepareForEval(context.Background())
})

// Lint runs every lint rule over in and returns the findings sorted by
// location, rule and message. A finding at a spec field path is placed by
// locate (nil: findings keep no file position). Errors: the embedded rules
// fail to compile or to evaluate (an internal error).
func Lint(ctx context.Context, in Input, locate Locator) ([]Finding, error) {
	pq, err := prepared()
	if err != nil {
		return nil, fmt.Errorf("lint rules: %w", err)
	}
	doc, err := inputDoc(in)
	if err != nil {
		return nil, err
	}
	rs, err := pq.Eval(ctx, rego.EvalInput(doc))
	if err != nil {
		return nil, fmt.Errorf("lint rules: %w", err)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, errors.New("lint rules: data.loopx.lint.report is undefined")
	}
	raw, err := json.Marshal(rs[0].Expressions[0].Value)
	if err != nil {
		return nil, err
	}
	var vs []struct {
		Rule     string `json:"rule"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Ref      string `json:"ref"`
		Location struct {
			Path []any  `json:"path"`
			File string `json:"file"`
		} `json:"location"`
	}
	if err := json.Unmarshal(raw, &vs); err != nil {
		return nil, fmt.Errorf("lint rules: a violation has the wrong shape: %w", err)
	}
	out := make([]Finding, 0, len(vs))
	for _, v := range vs {
		f := Finding{Rule: v.Rule, Severity: v.Severity, Message: v.Message, Ref: v.Ref}
		if f.Severity != SeverityWarning {
			f.Severity = SeverityError
		}
		switch {
		case len(v.Location.Path) > 0:
			path := make([]string, len(v.Location.Path))
			for i, p := range v.Location.Path {
				switch p := p.(type) {
				case string:
					path[i] = p
				case float64:
					path[i] = strconv.Itoa(int(p))
				default:
					path[i] = fmt.Sprint(p)
				}
			}
			if locate != nil {
				f.Location = locate(path)
			}
		case v.Location.File != "":
			f.Location = &Location{File: v.Location.File}
		}
		out = append(out, f)
	}
	Sort(out)
	return out, nil
}

// inputDoc is in as the JSON document the rules see.
func inputDoc(in Input) (map[string]any, error) {
	doc := map[string]any{"now": in.Now.UTC().Format(time.RFC3339), "presets": in.Presets, "state": map[string]any{}, "spec": map[string]any{}}
	if in.Presets == nil {
		doc["presets"] = []string{}
	}
	if len(in.Spec) > 0 {
		var spec any
		if err := json.Unmarshal(in.Spec, &spec); err != nil {
			return nil, fmt.Errorf("lint: the exported spec is not JSON: %w", err)
		}
		doc["spec"] = spec
	}
	if in.State != nil {
		raw, err := json.Marshal(in.State)
		if err != nil {
			return nil, fmt.Errorf("lint: the state snapshot: %w", err)
		}
		var state any
		if err := json.Unmarshal(raw, &state); err != nil {
			return nil, err
		}
		doc["state"] = state
	}
	doc["questions"] = questionFacts(doc)
	return doc, nil
}

// questionFacts maps every gate question of the spec and the state to
// whether it is a concrete question (input.questions): the schema's
// #Question decides (specs.ConcreteQuestion), the one place that rule lives;
// the vague-gate-question rule reads the answer.
func questionFacts(doc map[string]any) map[string]bool {
	out := map[string]bool{}
	add := func(g any) {
		if m, ok := g.(map[string]any); ok {
			if q, ok := m["question"].(string); ok {
				if _, seen := out[q]; !seen {
					out[q] = specs.ConcreteQuestion(q)
				}
			}
		}
	}
	if spec, ok := doc["spec"].(map[string]any); ok {
		if goals, ok := spec["goals"].(map[string]any); ok {
			for _, g := range goals {
				if gm, ok := g.(map[string]any); ok {
					if gates, ok := gm["gates"].(map[string]any); ok {
						for _, gate := range gates {
							add(gate)
						}
					}
				}
			}
		}
	}
	if state, ok := doc["state"].(map[string]any); ok {
		if gates, ok := state["gates"].([]any); ok {
			for _, g := range gates {
				add(g)
			}
		}
	}
	return out
}

// Sort orders findings by file, row, column, rule and message; findings
// without a location come last.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		la, lb := a.Location, b.Location
		switch {
		case la == nil && lb != nil:
			return 1
		case la != nil && lb == nil:
			return -1
		case la != nil && lb != nil:
			if c := strings.Compare(la.File, lb.File); c != 0 {
				return c
			}
			if la.Row != lb.Row {
				return la.Row - lb.Row
			}
			if la.Col != lb.Col {
				return la.Col - lb.Col
			}
		}
		if c := strings.Compare(a.Rule, b.Rule); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

// Count returns how many findings are errors and how many warnings; with
// strict, warnings count as errors.
func Count(fs []Finding, strict bool) (errs, warns int) {
	for _, f := range fs {
		if f.Severity == SeverityError || strict {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}
