package specs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/presets"
)

// writeSpec creates <tmp>/loopx with the given files and returns that dir.
func writeSpec(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "loopx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustLoad(t *testing.T, src string) *Loaded {
	t.Helper()
	l, err := Load(writeSpec(t, map[string]string{"loopx.cue": src}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

// loadErrs loads src as loopx/loopx.cue and returns its errors (failing if none).
func loadErrs(t *testing.T, src string) Errors {
	t.Helper()
	_, err := Load(writeSpec(t, map[string]string{"loopx.cue": src}))
	if err == nil {
		t.Fatalf("Load succeeded, want errors")
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error is %T, want Errors: %v", err, err)
	}
	return es
}

// find returns the error with the given path and code.
func find(es Errors, path, code string) (*Error, bool) {
	for _, e := range es {
		if e.Location.Field == path && e.Code == code {
			return e, true
		}
	}
	return nil, false
}

func wantErr(t *testing.T, es Errors, file string, line, col int, path, code string) *Error {
	t.Helper()
	e, ok := find(es, path, code)
	if !ok {
		t.Fatalf("no %s error at %s; got:\n%v", code, path, es)
	}
	if e.Location.File != file || e.Location.Line != line || (col > 0 && e.Location.Col != col) {
		t.Fatalf("%s %s at %s:%d:%d, want %s:%d:%d\nall:\n%v", code, path, e.Location.File, e.Location.Line, e.Location.Col, file, line, col, es)
	}
	return e
}

const minimal = `goals: g1: objective: "Keep the build green"
`

func TestLoad_ValidSpecFillsDefaultsAndDerivedSeconds(t *testing.T) {
	l := mustLoad(t, `
project: name: "acme-api"
agents: codex: host: "codex"
goals: g1: {
	objective: "Keep the build green"
	quota: {rounds: 24, cost_usd: 20, min_interval: "10m"}
	gates: merge: {
		question:      "Merge the v2 branch into main?"
		expires_after: "3d"
		on_expiry:     "reject"
	}
	todos: watch: {title: "Watch CI", kind: "monitor", every: "15m"}
}
`)
	s := l.Spec
	if s.Project.Name != "acme-api" || s.Project.PolicyDeadline != "2s" || s.Project.Deadline() != DefaultPolicyDeadline {
		t.Errorf("project = %+v", s.Project)
	}
	if a := s.Agents["codex"]; a.Role != "executor" || a.Mode != "active" {
		t.Errorf("agent defaults = %+v", a)
	}
	g := s.Goals["g1"]
	q := g.Quota
	if q.Window != "24h" || q.WindowSeconds != 86400 || q.Compute != 1 || q.MinIntervalSeconds != 600 {
		t.Errorf("quota = %+v", q)
	}
	if q.Rounds == nil || *q.Rounds != 24 || q.Tokens != nil || q.CostUSD == nil || *q.CostUSD != 20 {
		t.Errorf("quota limits = %+v", q)
	}
	if g.Stall.MaxNoProgress != 3 || g.Evidence.StaleAfter != "72h" || g.Evidence.StaleAfterSeconds != 72*3600 {
		t.Errorf("stall/evidence = %+v %+v", g.Stall, g.Evidence)
	}
	if g.Agents == nil || len(g.Agents) != 0 || g.Scope.Write == nil || g.Scope.Commands.Deny == nil ||
		g.Scope.Grant.Commands == nil || g.Scope.Grant.Tools == nil || g.Scope.Grant.Paths == nil {
		t.Errorf("lists must default to [] (not null): %+v %+v", g.Agents, g.Scope)
	}
	if g.Scope.Commands.Opaque != "ask" || len(g.Scope.Grant.Commands)+len(g.Scope.Grant.Tools)+len(g.Scope.Grant.Paths) != 0 {
		t.Errorf("scope defaults: opaque %q (want ask), grant %+v (want empty)", g.Scope.Commands.Opaque, g.Scope.Grant)
	}
	gate := g.Gates["merge"]
	if strings.Join(gate.Options, ",") != "approve,reject" || strings.Join(gate.Answerers, ",") != "human" ||
		gate.ExpiresAfterSeconds != 3*86400 || gate.Guards == nil {
		t.Errorf("gate = %+v", gate)
	}
	if td := g.Todos["watch"]; td.Priority != "P2" || td.EverySeconds != 900 {
		t.Errorf("todo = %+v", td)
	}

	// JSON is json.Marshal(Spec) with every contract field name.
	var back map[string]any
	if err := json.Unmarshal(l.JSON, &back); err != nil {
		t.Fatal(err)
	}
	quota := back["goals"].(map[string]any)["g1"].(map[string]any)["quota"].(map[string]any)
	if quota["window_seconds"] != float64(86400) || quota["compute"] != float64(1) {
		t.Errorf("JSON quota = %v", quota)
	}
	if want, _ := json.Marshal(l.Spec); string(want) != string(l.JSON) {
		t.Errorf("JSON differs from json.Marshal(Spec)")
	}
	if !strings.HasPrefix(l.Hash, "sha256:") || len(l.Hash) != 7+64 {
		t.Errorf("Hash = %q", l.Hash)
	}
	if strings.Join(l.Files, ",") != "loopx/loopx.cue" {
		t.Errorf("Files = %v", l.Files)
	}
}

func TestLoad_DesignExampleLoads(t *testing.T) {
	l := mustLoad(t, `
project: name: "acme-api"
agents: {
	codex:  {host: "codex", role: "executor"}
	claude: {host: "claude-code", role: "reviewer"}
}
goals: "ship-v2": {
	objective: "Ship the v2 API with a migration guide"
	preset:    "issue-fix"
	agents: ["codex", "claude"]
	quota: {window: "24h", rounds: 24, tokens: 2_000_000, cost_usd: 20, min_interval: "10m", compute: 1.0}
	stall: max_no_progress: 3
	scope: {
		write: ["api/**", "docs/**"]
		deny:  [".loopx/**", "loopx/**", ".env", "secrets/**"]
		commands: {deny: ["git.push.force"], ask: ["git push*", "npm publish*"]}
	}
	gates: merge: {
		question:      "Merge the v2 branch into main?"
		options:       ["approve", "reject"]
		guards:        ["git.merge", "git.push"]
		answerers:     ["human"]
		expires_after: "72h"
		on_expiry:     "reject"
	}
	evidence: stale_after: "72h"
}
`)
	g := l.Spec.Goals["ship-v2"]
	if g.Preset != "issue-fix" || *g.Quota.Tokens != 2_000_000 || g.Quota.MinInterval != "10m" {
		t.Errorf("goal = %+v", g)
	}
	if g.Gates["merge"].Question != "Merge the v2 branch into main?" {
		t.Errorf("the goal's own question must refine the preset's default: %q", g.Gates["merge"].Question)
	}
}

func TestLoad_MultipleFilesAreUnifiedInNameOrder(t *testing.T) {
	dir := writeSpec(t, map[string]string{
		"b-goals.cue":  "goals: g1: {objective: \"Fix it\", quota: window: _window}\n",
		"a-common.cue": "package loopx\n_window: \"12h\"\nagents: codex: host: \"codex\"\n",
		".hidden.cue":  "this is not CUE",
		"_draft.cue":   "neither is this",
		"notes.txt":    "ignored",
	})
	l, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l.Files, ","); got != "loopx/a-common.cue,loopx/b-goals.cue" {
		t.Errorf("Files = %s", got)
	}
	if l.Spec.Goals["g1"].Quota.WindowSeconds != 12*3600 {
		t.Errorf("window = %+v", l.Spec.Goals["g1"].Quota)
	}
}

func TestLoad_ImportsBuiltinPackagesAndSchemaDefinitions(t *testing.T) {
	l := mustLoad(t, `
import "strings"
goals: g1: #Goal & {objective: strings.ToUpper("fix the build")}
`)
	if l.Spec.Goals["g1"].Objective != "FIX THE BUILD" {
		t.Errorf("objective = %q", l.Spec.Goals["g1"].Objective)
	}
}

// A missing objective and a misspelled quota.window, both in one run.
func TestLoad_MissingObjectiveAndUnknownFieldBothReported(t *testing.T) {
	es := loadErrs(t, `project: name: "x"

goals: g1: {
	quota: {
		rounds: 3

		windw: "24h"
	}
}
`)
	wantErr(t, es, "loopx/loopx.cue", 3, 8, "goals.g1.objective", CodeMissingField)
	e := wantErr(t, es, "loopx/loopx.cue", 7, 3, "goals.g1.quota.windw", CodeUnknownField)
	if !strings.Contains(e.Message, `"window"`) {
		t.Errorf("message should suggest window: %q", e.Message)
	}
	if len(es) != 2 {
		t.Errorf("want exactly 2 errors, got:\n%v", es)
	}
	if got := es.Error(); !strings.Contains(got, "loopx/loopx.cue:3:8: goals.g1.objective: ") ||
		!strings.Contains(got, "\nloopx/loopx.cue:7:3: goals.g1.quota.windw: ") {
		t.Errorf("Errors.Error() =\n%s", got)
	}
}

func TestLoad_WrongObjectiveTypeAndUnknownFieldBothReported(t *testing.T) {
	es := loadErrs(t, `project: name: "p"
goals: g1: {
	objective: 12
	quota: windw: "24h"
}
`)
	wantErr(t, es, "loopx/loopx.cue", 3, 13, "goals.g1.objective", CodeInvalid)
	wantErr(t, es, "loopx/loopx.cue", 4, 9, "goals.g1.quota.windw", CodeUnknownField)
}

// CUE stops reporting a struct's missing fields once another goal fails.
func TestLoad_MissingFieldsReportedAlongsideOtherGoalsErrors(t *testing.T) {
	es := loadErrs(t, `goals: g1: {
	quota: rounds: 3
}
goals: g2: {objective: ""}
agents: a: {role: "reviewer"}
`)
	wantErr(t, es, "loopx/loopx.cue", 1, 8, "goals.g1.objective", CodeMissingField)
	wantErr(t, es, "loopx/loopx.cue", 4, 24, "goals.g2.objective", CodeInvalid)
	wantErr(t, es, "loopx/loopx.cue", 5, 9, "agents.a.host", CodeMissingField)
}

// A gate without its question is rejected by validation, with position.
func TestLoad_GateWithoutQuestionRejected(t *testing.T) {
	es := loadErrs(t, `goals: g1: {
	objective: "Ship it"
	gates: merge: {
		guards: ["git.merge"]
	}
}
`)
	wantErr(t, es, "loopx/loopx.cue", 3, 9, "goals.g1.gates.merge.question", CodeMissingField)
}

func TestLoad_ErrorCodes(t *testing.T) {
	f := "loopx/loopx.cue"
	cases := []struct {
		name      string
		src       string
		line, col int
		path      string
		code      string
		msg       string // substring of the message
	}{
		{"syntax", "goals: g1: {objective: \"x\"\n", 1, 28, "", CodeSyntax, ""},
		{"unknown top-level field", "goal: g1: objective: \"x\"\n", 1, 1, "goal", CodeUnknownField, `did you mean "goals"`},
		{"unknown agent field", "agents: a: {host: \"codex\", hots: 1}\n", 1, 28, "agents.a.hots", CodeUnknownField, ""},
		{"enum value", "agents: a: host: \"gemini\"\n", 1, 18, "agents.a.host", CodeInvalid, `want one of "claude-code"`},
		{"bad duration", "goals: g1: {objective: \"x\", quota: window: \"24x\"}\n", 1, 44, "goals.g1.quota.window", CodeInvalid, `invalid value "24x": want a duration`},
		{"compute out of range", "goals: g1: {objective: \"x\", quota: compute: 1.5}\n", 1, 45, "goals.g1.quota.compute", CodeInvalid, "from 0 to 1"},
		{"negative rounds", "goals: g1: {objective: \"x\", quota: rounds: -1}\n", 1, 44, "goals.g1.quota.rounds", CodeInvalid, ""},
		{"rounds not an int", "goals: g1: {objective: \"x\", quota: rounds: 2.5}\n", 1, 44, "goals.g1.quota.rounds", CodeInvalid, ""},
		{"stall below 1", "goals: g1: {objective: \"x\", stall: max_no_progress: 0}\n", 1, 53, "goals.g1.stall.max_no_progress", CodeInvalid, ""},
		{"empty objective", "goals: g1: objective: \"\"\n", 1, 23, "goals.g1.objective", CodeInvalid, ""},
		{"bad answerer", "goals: g1: {objective: \"x\", gates: m: {question: \"Merge the branch now?\", answerers: [\"bob\"]}}\n", 1, 87, "goals.g1.gates.m.answerers", CodeInvalid, `"agent:<id>"`},
		{"empty options", "goals: g1: {objective: \"x\", gates: m: {question: \"Merge the branch now?\", options: []}}\n", 1, 75, "goals.g1.gates.m.options", CodeInvalid, "non-empty list"},
		{"todo kind", "goals: g1: {objective: \"x\", todos: t: {title: \"T\", kind: \"chore\"}}\n", 1, 58, "goals.g1.todos.t.kind", CodeInvalid, `"task", "monitor" or "action"`},
		{"missing todo title", "goals: g1: {objective: \"x\", todos: t: {kind: \"task\"}}\n", 1, 36, "goals.g1.todos.t.title", CodeMissingField, ""},
		{"two values", "goals: g1: objective: \"a\"\ngoals: g1: objective: \"b\"\n", 1, 23, "goals.g1.objective", CodeInvalid, "conflicting values"},
		{"undefined reference", "goals: g1: objective: nothing\n", 1, 23, "goals.g1.objective", CodeInvalid, "not found"},
		{"not concrete", "goals: g1: objective: string\n", 1, 12, "goals.g1.objective", CodeInvalid, "not concrete"},
		{"vague question", "goals: g1: {objective: \"x\", gates: m: question: \"merge\"}\n", 1, 49, "goals.g1.gates.m.question", CodeVagueQuestion, "concrete question"},
		{"question without ?", "goals: g1: {objective: \"x\", gates: m: question: \"please merge the branch now\"}\n", 1, 49, "goals.g1.gates.m.question", CodeVagueQuestion, ""},
		{"on_expiry not an option", "goals: g1: {objective: \"x\", gates: m: {question: \"Merge the branch now?\", on_expiry: \"later\"}}\n", 1, 75, "goals.g1.gates.m.on_expiry", CodeInvalid, `not one of the gate's options ("approve", "reject")`},
		{"monitor without every", "goals: g1: {objective: \"x\", todos: w: {title: \"Watch\", kind: \"monitor\"}}\n", 1, 36, "goals.g1.todos.w.every", CodeMissingField, "cadence"},
		{"every on a task", "goals: g1: {objective: \"x\", todos: w: {title: \"Watch\", every: \"1h\"}}\n", 1, 56, "goals.g1.todos.w.every", CodeInvalid, "only to monitor"},
		{"zero window", "goals: g1: {objective: \"x\", quota: window: \"0s\"}\n", 1, 36, "goals.g1.quota.window", CodeInvalid, "longer than 0s"},
		{"huge duration", "goals: g1: {objective: \"x\", quota: window: \"99999999999w\"}\n", 1, 36, "goals.g1.quota.window", CodeInvalid, "out of range"},
		{"huge count", "goals: g1: {objective: \"x\", quota: tokens: 99999999999999999999}\n", 1, 44, "goals.g1.quota.tokens", CodeInvalid, ""},
		{"bad goal id", "goals: \"ship v2\": objective: \"x\"\n", 1, 8, "goals.ship v2", CodeInvalid, "invalid goal id"},
		{"unknown preset", "goals: g1: {objective: \"x\", preset: \"isue-fix\"}\n", 1, 29, "goals.g1.preset", CodeUnknownPreset, "issue-fix, pr-watch"},
		{"opaque answer", "goals: g1: {objective: \"x\", scope: commands: opaque: \"allow\"}\n", 1, 54, "goals.g1.scope.commands.opaque", CodeInvalid, ""},
		{"unknown grant field", "goals: g1: {objective: \"x\", scope: grant: command: [\"go test*\"]}\n", 1, 43, "goals.g1.scope.grant.command", CodeUnknownField, ""},
		{"grant and opaque", "goals: g1: {objective: \"x\", scope: {grant: {commands: [\"go test*\"], tools: [\"WebFetch\"], paths: [\"docs/**\"]}, commands: opaque: \"deny\"}}\n", 0, 0, "", "", ""},
		{"another package", "// the spec\npackage foo\ngoals: g1: objective: \"x\"\n", 2, 1, "", CodePackage, `package foo: a spec file is package loopx or has no package clause`},
		{"package loopx", "package loopx\ngoals: g1: objective: \"x\"\n", 0, 0, "", "", ""},
		{"policy deadline too long", "project: policy_deadline: \"10s\"\n", 1, 10, "project.policy_deadline", CodeInvalid, `policy deadline "10s" is out of range: between 100ms and 5s (default 2s)`},
		{"policy deadline too short", "project: policy_deadline: \"50ms\"\n", 1, 10, "project.policy_deadline", CodeInvalid, "between 100ms and 5s"},
		{"policy deadline not a duration", "project: policy_deadline: \"soon\"\n", 1, 27, "project.policy_deadline", CodeInvalid, "want a duration"},
		{"policy deadline in bounds", "project: policy_deadline: \"1.5s\"\n", 0, 0, "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.code == "" {
				mustLoad(t, c.src)
				return
			}
			es := loadErrs(t, c.src)
			e := wantErr(t, es, f, c.line, c.col, c.path, c.code)
			if !strings.Contains(e.Message, c.msg) {
				t.Errorf("message %q does not contain %q", e.Message, c.msg)
			}
		})
	}
}

func TestLoad_ConflictingPackagesAcrossFiles(t *testing.T) {
	_, err := Load(writeSpec(t, map[string]string{
		"a.cue": "package loopx\ngoals: g1: objective: \"x\"\n",
		"b.cue": "package b\n",
	}))
	var es Errors
	if !errors.As(err, &es) || es[0].Location.File != "loopx/b.cue" || es[0].Location.Line != 1 {
		t.Fatalf("want an error in loopx/b.cue:1, got %v", err)
	}
}

func TestLoad_NoSpec(t *testing.T) {
	for name, dir := range map[string]string{
		"missing dir":  filepath.Join(t.TempDir(), "loopx"),
		"no cue files": writeSpec(t, map[string]string{"README.md": "x"}),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(dir)
			var es Errors
			if !errors.As(err, &es) || len(es) != 1 || es[0].Code != CodeNoSpec || es[0].Location.File != "loopx" {
				t.Fatalf("want one no_spec error for loopx, got %#v", err)
			}
		})
	}
}

func TestLoad_ErrorsAreSortedAndDeduplicated(t *testing.T) {
	_, err := Load(writeSpec(t, map[string]string{
		"b.cue": "goals: g2: {objective: \"y\", quota: windw: 1}\n",
		"a.cue": "goals: g1: {quota: rounds: -1, scope: writ: []}\n",
	}))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatal(err)
	}
	for i := 1; i < len(es); i++ {
		a, b := es[i-1], es[i]
		if a.Location.File > b.Location.File || (a.Location.File == b.Location.File && (a.Location.Line > b.Location.Line || (a.Location.Line == b.Location.Line && a.Location.Col > b.Location.Col))) {
			t.Errorf("not sorted:\n%v", es)
		}
		if a == b {
			t.Errorf("duplicate %v", a)
		}
	}
	if len(es) != 4 {
		t.Errorf("want 4 errors (g1 objective, rounds, writ; g2 windw), got:\n%v", es)
	}
}

func TestErrors_JSONAndText(t *testing.T) {
	e := newError("loopx/loopx.cue", 7, 3, "goals.g1.quota.windw", CodeUnknownField, "unknown field")
	b, _ := json.Marshal(e)
	if string(b) != `{"kind":2,"code":"unknown_field","message":"unknown field","location":{"file":"loopx/loopx.cue","row":7,"col":3,"path":"goals.g1.quota.windw"}}` {
		t.Errorf("JSON = %s", b)
	}
	var back Error
	if err := json.Unmarshal(b, &back); err != nil || back.Error() != e.Error() || back.Kind != e.Kind {
		t.Errorf("JSON round trip = %+v, %v", back, err)
	}
	es := Errors{e, newError("loopx", 0, 0, "", CodeNoSpec, "no spec")}
	if es.Error() != "loopx/loopx.cue:7:3: goals.g1.quota.windw: unknown field\nloopx: no spec" {
		t.Errorf("text = %q", es.Error())
	}
}

func TestLoad_PresetDefaultsAndGoalRefinement(t *testing.T) {
	l := mustLoad(t, `goals: triage: {
	objective: "Report on new issues every morning"
	preset:    "daily-triage"
}
goals: watch: {
	objective: "Watch the open pull requests"
	preset:    "pr-watch"
	quota: min_interval: "1m"
	scope: commands: deny: ["gh pr merge*", "git.push.force", "rm -rf*"]
}
`)
	tr := l.Spec.Goals["triage"]
	if tr.Quota.MinInterval != "20h" || *tr.Quota.Rounds != 1 || tr.Quota.Window != "24h" {
		t.Errorf("preset defaults must beat schema defaults: %+v", tr.Quota)
	}
	if len(tr.Scope.Write) != 0 || strings.Join(tr.Scope.Deny, ",") != "**" {
		t.Errorf("daily-triage scope = %+v", tr.Scope)
	}
	w := l.Spec.Goals["watch"]
	if w.Quota.MinInterval != "1m" || w.Quota.MinIntervalSeconds != 60 {
		t.Errorf("the goal's own value must win over the preset's default: %+v", w.Quota)
	}
	if len(w.Scope.Commands.Deny) != 3 {
		t.Errorf("deny = %v", w.Scope.Commands.Deny)
	}
	if m := w.Todos["watch-prs"]; m.Kind != "monitor" || m.EverySeconds != 900 {
		t.Errorf("monitor = %+v", m)
	}
}

func TestLoad_PresetConflictIsPositionedAtTheGoalsValue(t *testing.T) {
	es := loadErrs(t, `goals: watch: {
	objective: "Watch the open pull requests"
	preset:    "pr-watch"
	scope: commands: deny: ["rm -rf*"]
	todos: "watch-prs": kind: "task"
}
goals: rel: {
	objective: "Cut the next release"
	preset:    "release"
	gates: publish: answerers: ["agent:codex"]
	quota: rounds: 1
}
goals: tri: {
	objective: "Triage"
	preset:    "daily-triage"
	quota: rounds: 5
}
`)
	e := wantErr(t, es, "loopx/loopx.cue", 4, 19, "goals.watch.scope.commands.deny", CodeInvalid)
	if !strings.Contains(e.Message, `preset "pr-watch"`) {
		t.Errorf("message should name the preset: %q", e.Message)
	}
	wantErr(t, es, "loopx/loopx.cue", 5, 28, "goals.watch.todos.watch-prs.kind", CodeInvalid)
	if _, ok := find(es, "goals.rel.gates.publish.answerers.0", CodeInvalid); !ok {
		if _, ok := find(es, "goals.rel.gates.publish.answerers", CodeInvalid); !ok {
			t.Errorf("release's answerers are fixed to human; got:\n%v", es)
		}
	}
	wantErr(t, es, "loopx/loopx.cue", 16, 17, "goals.tri.quota.rounds", CodeInvalid)
	for _, e := range es {
		if e.Location.File != "loopx/loopx.cue" {
			t.Errorf("error outside the user's files: %v", e)
		}
	}
}

func TestPresets_EachVetsWithAMinimalGoal(t *testing.T) {
	names := presets.Names()
	if len(names) != 7 {
		t.Fatalf("presets = %v", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			l := mustLoad(t, `goals: g1: {objective: "Do the work this preset is for", preset: "`+name+`"}`)
			g := l.Spec.Goals["g1"]
			if g.Objective != "Do the work this preset is for" || g.Preset != name {
				t.Errorf("goal = %+v", g)
			}
			if g.Quota.WindowSeconds == 0 {
				t.Errorf("window_seconds = 0")
			}
			for gn, gate := range g.Gates {
				if !ConcreteQuestion(gate.Question) || len(gate.Answerers) == 0 {
					t.Errorf("gate %s = %+v", gn, gate)
				}
			}
		})
	}
}

func TestPresets_SetWhatTheyPromise(t *testing.T) {
	load := func(name string) Goal {
		t.Helper()
		return mustLoad(t, `goals: g: {objective: "Do it", preset: "`+name+`"}`).Spec.Goals["g"]
	}
	if g := load("daily-triage"); g.Quota.MinIntervalSeconds != 20*3600 || *g.Quota.Rounds > 2 || g.Scope.Deny[0] != "**" {
		t.Errorf("daily-triage = %+v", g)
	}
	if g := load("pr-watch"); g.Todos["watch-prs"].Every != "15m" || !strings.Contains(strings.Join(g.Scope.Commands.Deny, ","), "gh pr merge*") {
		t.Errorf("pr-watch = %+v", g)
	}
	if g := load("issue-fix"); strings.Join(g.Gates["merge"].Guards, ",") != "git.merge,git.push" || g.Gates["merge"].Answerers[0] != "human" {
		t.Errorf("issue-fix = %+v", g.Gates)
	}
	if g := load("ci-sweeper"); len(g.Gates["patch"].Guards) == 0 {
		t.Errorf("ci-sweeper = %+v", g.Gates)
	}
	if g := load("dependency-sweeper"); g.Quota.WindowSeconds != 7*86400 || !strings.Contains(strings.Join(g.Scope.Commands.Deny, ","), "npm install *@latest") {
		t.Errorf("dependency-sweeper = %+v", g)
	}
	if g := load("release"); strings.Join(g.Gates["publish"].Guards, ",") != "npm.publish,git.tag" || strings.Join(g.Gates["publish"].Answerers, ",") != "human" {
		t.Errorf("release = %+v", g.Gates)
	}
	if g := load("auto-research"); g.Evidence.StaleAfterSeconds != 86400 || g.Gates["promote"].Question == "" {
		t.Errorf("auto-research = %+v", g)
	}
}

func TestScaffold_OutputLoads(t *testing.T) {
	cases := []ScaffoldOptions{
		{},
		{Project: "acme"},
		{Project: "acme", Goal: "ship-v2", Objective: "Ship the v2 API", Agent: "codex", Host: "codex"},
		{Project: "a \"quoted\" name", Goal: "fix", Agent: "claude", Host: "claude-code", Preset: "issue-fix"},
		{Goal: "g", Objective: "Line one\nline two \\ with \"quotes\""},
		{Goal: "watch", Preset: "pr-watch"},
		{Agent: "if", Host: "shell"},
	}
	for _, o := range cases {
		src := Scaffold(o)
		l, err := Load(writeSpec(t, map[string]string{"loopx.cue": string(src)}))
		if err != nil {
			t.Fatalf("%+v:\n%s\nLoad: %v", o, src, err)
		}
		if o.Goal != "" {
			g, ok := l.Spec.Goals[o.Goal]
			if !ok || (o.Objective != "" && g.Objective != o.Objective) || g.Preset != o.Preset {
				t.Errorf("%+v: goal = %+v", o, g)
			}
		} else if len(l.Spec.Goals) != 0 {
			t.Errorf("%+v: goals = %v", o, l.Spec.Goals)
		}
		if o.Agent != "" && l.Spec.Agents[o.Agent].Host != o.Host {
			t.Errorf("%+v: agents = %v", o, l.Spec.Agents)
		}
		if l.Spec.Project.Name != o.Project {
			t.Errorf("project = %q", l.Spec.Project.Name)
		}
	}
}

func TestParseDuration(t *testing.T) {
	cases := map[string]time.Duration{
		"90s":    90 * time.Second,
		"1h30m":  90 * time.Minute,
		"2d":     48 * time.Hour,
		"1w":     7 * 24 * time.Hour,
		"1w2d3h": (9*24 + 3) * time.Hour,
		"1.5d":   36 * time.Hour,
		"-2d":    -48 * time.Hour,
		"500ms":  500 * time.Millisecond,
		"0":      0,
	}
	for in, want := range cases {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "2", "2x", "1dd", "1.2.3d", "-", "1d2", "99999999999w", "1e3d"} {
		if d, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", bad, d)
		}
	}
	if n, _ := durationSeconds("500ms"); n != 1 {
		t.Errorf("500ms = %d s, want 1 (rounded up)", n)
	}
}

func TestSchemaSource_IsEmbedded(t *testing.T) {
	if !strings.Contains(string(SchemaSource()), "#Spec:") {
		t.Fatal("schema not embedded")
	}
}

// CUE stops reporting "field not allowed" and missing fields once a struct
// has another error; Load still reports every problem in one run.
func TestLoad_EveryErrorOfOneRunIsReported(t *testing.T) {
	es := loadErrs(t, `extra: 1
agents: a: {host: "codex", mode: "passive", colour: "red"}
goals: g1: {
	quota: {windw: "24h", rounds: -3, compute: "all"}
	scope: {write: "src/**", deny: [1]}
	stall: max_no_progress: 0
	evidence: stale_after: "soon"
	gates: g: {options: ["a", "a"], on_expiry: "b", expires_after: "1y"}
	todos: t: {kind: "monitor", priority: "P9"}
	agents: "codex"
	unknown: true
}
goals: g2: {objective: "x", preset: 5}
`)
	f := "loopx/loopx.cue"
	for _, w := range []struct {
		line, col  int
		path, code string
	}{
		{1, 1, "extra", CodeUnknownField},
		{2, 34, "agents.a.mode", CodeInvalid},
		{2, 45, "agents.a.colour", CodeUnknownField},
		{3, 8, "goals.g1.objective", CodeMissingField},
		{4, 10, "goals.g1.quota.windw", CodeUnknownField},
		{4, 32, "goals.g1.quota.rounds", CodeInvalid},
		{4, 45, "goals.g1.quota.compute", CodeInvalid},
		{5, 17, "goals.g1.scope.write", CodeInvalid},
		{5, 34, "goals.g1.scope.deny", CodeInvalid},
		{6, 26, "goals.g1.stall.max_no_progress", CodeInvalid},
		{7, 25, "goals.g1.evidence.stale_after", CodeInvalid},
		{8, 9, "goals.g1.gates.g.question", CodeMissingField},
		{8, 13, "goals.g1.gates.g.options", CodeInvalid},
		{8, 34, "goals.g1.gates.g.on_expiry", CodeInvalid},
		{8, 65, "goals.g1.gates.g.expires_after", CodeInvalid},
		{9, 9, "goals.g1.todos.t.every", CodeMissingField},
		{9, 9, "goals.g1.todos.t.title", CodeMissingField},
		{9, 40, "goals.g1.todos.t.priority", CodeInvalid},
		{10, 10, "goals.g1.agents", CodeInvalid},
		{11, 2, "goals.g1.unknown", CodeUnknownField},
		{13, 37, "goals.g2.preset", CodeInvalid},
	} {
		wantErr(t, es, f, w.line, w.col, w.path, w.code)
	}
	if len(es) != 21 {
		t.Errorf("want 21 errors, got %d:\n%v", len(es), es)
	}
}

func TestLoad_MissingFieldInsideAnEmbeddedDefinition(t *testing.T) {
	es := loadErrs(t, `goals: g1: #Goal & {
	quota: windw: "1h"
}
goals: g2: #Goal & {objective: "ok", gates: m: #Gate & {options: ["yes"]}}
goals: g3: #Goal & {objective: "ok", quota: {rounds: -1, windw: 1, cpu: 2}, scoop: {}}
`)
	wantErr(t, es, "loopx/loopx.cue", 1, 8, "goals.g1.objective", CodeMissingField)
	wantErr(t, es, "loopx/loopx.cue", 2, 9, "goals.g1.quota.windw", CodeUnknownField)
	wantErr(t, es, "loopx/loopx.cue", 4, 45, "goals.g2.gates.m.question", CodeMissingField)
	wantErr(t, es, "loopx/loopx.cue", 5, 54, "goals.g3.quota.rounds", CodeInvalid)
	wantErr(t, es, "loopx/loopx.cue", 5, 58, "goals.g3.quota.windw", CodeUnknownField)
	wantErr(t, es, "loopx/loopx.cue", 5, 68, "goals.g3.quota.cpu", CodeUnknownField)
	wantErr(t, es, "loopx/loopx.cue", 5, 77, "goals.g3.scoop", CodeUnknownField)
	if len(es) != 7 {
		t.Errorf("want 7 errors, got:\n%v", es)
	}
}

func TestLoad_ValidVariants(t *testing.T) {
	cases := []struct {
		name string
		src  string
		ok   func(g Goal) bool
	}{
		{"compute int 1", `compute: 1`, func(g Goal) bool { return g.Quota.Compute == 1 }},
		{"compute 0 pauses", `compute: 0`, func(g Goal) bool { return g.Quota.Compute == 0 }},
		{"compute fraction", `compute: 0.25`, func(g Goal) bool { return g.Quota.Compute == 0.25 }},
		{"cost fraction", `cost_usd: 0.5`, func(g Goal) bool { return *g.Quota.CostUSD == 0.5 }},
		{"zero rounds", `rounds: 0`, func(g Goal) bool { return g.Quota.Rounds != nil && *g.Quota.Rounds == 0 }},
		{"week window", `window: "2w"`, func(g Goal) bool { return g.Quota.WindowSeconds == 14*86400 }},
		{"mixed window", `window: "1d12h"`, func(g Goal) bool { return g.Quota.WindowSeconds == 36*3600 }},
		{"sub-second interval rounds up", `min_interval: "500ms"`, func(g Goal) bool { return g.Quota.MinIntervalSeconds == 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustLoad(t, "goals: g1: {objective: \"x\", quota: {"+c.src+"}}\n").Spec.Goals["g1"]
			if !c.ok(g) {
				t.Errorf("quota = %+v", g.Quota)
			}
		})
	}
}

func TestConcreteQuestion_IsTheSchemasRule(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"Merge the v2 branch into main?", true},
		{"a b c d?", true},
		{"  Merge   the v2 branch ? ", true}, // "?" is the fifth word
		{"Merge the v2 branch into main? Please.", true},
		{"Merge\u3000the\u3000v2\u3000branch?", true}, // ideographic spaces
		{"Merge\u00a0the\u00a0v2\u00a0branch?", true}, // no-break spaces
		{"Merge\u0085the\u0085v2\u0085branch?", true}, // NEL
		{"Merge\tthe\nv2\r\nbranch\v?", true},         // ASCII white space
		{"Merge\u200bthe\u200bv2 branch now?", false}, // a zero-width space is not white space: 3 words
		{"a b c?", false},
		{"merge?", false},
		{"please merge the branch now", false},
		{"合并 v2 分支 到 主干？", false}, // a full-width "？" is not "?"
		{"", false},
		{"????", false},
	} {
		if got := ConcreteQuestion(tc.q); got != tc.want {
			t.Errorf("ConcreteQuestion(%q) = %v, want %v", tc.q, got, tc.want)
		}
		// The spec refuses exactly the questions ConcreteQuestion refuses,
		// and, as inert text, a concrete one with control characters.
		src := fmt.Sprintf("goals: g1: {objective: \"x\", gates: m: question: %s}\n", strconv.Quote(tc.q))
		_, err := Load(writeSpec(t, map[string]string{"loopx.cue": src}))
		var es Errors
		vague := errors.As(err, &es) && len(es) == 1 && es[0].Code == CodeVagueQuestion && es[0].Location.Field == "goals.g1.gates.m.question"
		if i, _ := inert.Find(tc.q, false); i >= 0 && tc.want {
			if !errors.As(err, &es) || len(es) != 1 || es[0].Code != CodeInvalid || !strings.Contains(es[0].Message, "control character") {
				t.Errorf("spec with question %q: %v, want a control character refused", tc.q, err)
			}
			continue
		}
		if tc.want && err != nil || !tc.want && !vague {
			t.Errorf("spec with question %q: %v", tc.q, err)
		}
	}
}

// FuzzConcreteQuestion checks the schema's #Question against its meaning:
// a "?" and at least 4 strings.Fields words.
func FuzzConcreteQuestion(f *testing.F) {
	for _, q := range []string{"Merge the v2 branch into main?", "a b c?", "a\u3000b\u00a0c\u0085d?", "a\u200bb c d?", "x \x00 y z?", "\xff a b c?", "a\xc2\xa0b c d?"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		want := strings.Contains(q, "?") && len(strings.Fields(q)) >= 4
		if got := ConcreteQuestion(q); got != want {
			t.Errorf("ConcreteQuestion(%q) = %v, want %v", q, got, want)
		}
	})
}
