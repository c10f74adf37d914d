package check

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/testproject"
)

const goodSpec = `project: name: "ck"
agents: a1: {host: "shell"}
goals: g1: {
	objective: "Ship the v2 API"
	agents: ["a1"]
	quota: {window: "24h", rounds: 3, min_interval: "5m"}
}
`

// noQuota breaks one lint rule (goal-without-quota) at loopx/loopx.cue.
const noQuota = `project: name: "ck"
agents: a1: {host: "shell"}
goals: g1: {
	objective: "Ship the v2 API"
	agents: ["a1"]
}
`

// project writes files (path → content) in a new project of the test's
// own (internal/testproject) and opens its engine on the files as they
// are (engine.Options.OnDisk), as check does.
func project(t *testing.T, files map[string]string) *engine.Engine {
	t.Helper()
	p := testproject.New(t, "")
	for path, body := range files {
		p.Write(t, filepath.FromSlash(path), body)
	}
	p.Clock.Set(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	e := engine.New(engine.Options{Root: p.Root, StateHome: p.StateHome, Now: p.Clock.Now, OnDisk: true, Ancestry: trust.AncestryOptions{Off: true}})
	t.Cleanup(func() { e.Close() })
	return e
}

func TestRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		o     Options
		// ok is Report.OK; rules the findings' rules in order; kind the
		// error's kind (0 = none).
		ok    bool
		rules []string
		kind  errs.Kind
	}{
		{name: "clean", files: map[string]string{"loopx/loopx.cue": goodSpec}, o: Options{NoScan: true}, ok: true},
		{name: "a lint rule", files: map[string]string{"loopx/loopx.cue": noQuota}, o: Options{NoScan: true}, rules: []string{"goal-without-quota"}},
		{name: "a broken spec skips the lint rules", files: map[string]string{"loopx/loopx.cue": "goals: g1: {objective: 3}\n"}, o: Options{NoScan: true}, rules: []string{"spec"}},
		{name: "a scan hit", files: map[string]string{"loopx/loopx.cue": goodSpec, "notes.md": "see JIRA-1234\n"},
			o: Options{Scan: []string{"notes.md"}, TicketPrefixes: []string{"JIRA"}}, rules: []string{"ticket-id"}},
		{name: "a scan path that does not exist", files: map[string]string{"loopx/loopx.cue": goodSpec},
			o: Options{Scan: []string{"nope.md"}}, kind: errs.Usage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := project(t, tc.files)
			rep, err := Run(context.Background(), e, tc.o)
			if tc.kind != 0 {
				if !errs.IsKind(err, tc.kind) {
					t.Fatalf("err %v, want kind %v", err, tc.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, f := range rep.Findings {
				rules = append(rules, f.Rule)
			}
			if rep.OK != tc.ok || strings.Join(rules, ",") != strings.Join(tc.rules, ",") {
				t.Fatalf("ok %v findings %+v; want ok %v rules %v", rep.OK, rep.Findings, tc.ok, tc.rules)
			}
			if rep.Summary.SpecOK != (tc.name != "a broken spec skips the lint rules") || (rep.Summary.LintRules > 0) != rep.Summary.SpecOK {
				t.Errorf("summary %+v", rep.Summary)
			}
			var b bytes.Buffer
			WriteText(&b, rep)
			if last := strings.TrimSpace(b.String()); !strings.HasPrefix(last[strings.LastIndex(last, "\n")+1:], "check ") {
				t.Errorf("text %q has no summary line", b.String())
			}
		})
	}
}

func TestRun_StrictMakesWarningsErrors(t *testing.T) {
	t.Parallel()
	// A credential read from an environment variable is a scan warning.
	e := project(t, map[string]string{"loopx/loopx.cue": goodSpec, "run.sh": "password: $DB_PASSWORD\n"})
	rep, err := Run(context.Background(), e, Options{Scan: []string{"run.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Warnings != 1 || rep.Summary.Errors != 0 || !rep.OK {
		t.Fatalf("not strict: %+v %+v", rep.Summary, rep.Findings)
	}
	rep, err = Run(context.Background(), e, Options{Scan: []string{"run.sh"}, Strict: true})
	if err != nil || rep.OK || rep.Summary.Warnings != 0 || rep.Summary.Errors == 0 {
		t.Fatalf("strict: %+v %v", rep.Summary, err)
	}
}

// TestReplayFindings_SayWhatDecidesNow: a changed decision names the rule
// of its new first reason, and one that no rule objects to now says so
// (never "now by : ").
func TestReplayFindings_SayWhatDecidesNow(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		change decision.ReplayChange
		want   string
	}{
		{decision.ReplayChange{DecisionID: "D1", Timestamp: at, Query: "claim", Goal: "g1", Agent: "a1", Old: "allow", New: "deny", Rule: "data.loopx.claim.gates", Message: "gate g-1 is open"},
			"decision D1 (claim g1/a1 at 2026-11-29T10:00:00Z): allow → deny, now by data.loopx.claim.gates: gate g-1 is open"},
		{decision.ReplayChange{DecisionID: "D2", Timestamp: at, Query: "claim", Goal: "g1", Agent: "a1", Old: "deny", New: "allow"},
			"decision D2 (claim g1/a1 at 2026-11-29T10:00:00Z): deny → allow, no rule objects now"},
	} {
		got := replayFindings(decision.ReplayReport{Changed: []decision.ReplayChange{tc.change}})
		if len(got) != 1 || got[0].Message != tc.want {
			t.Errorf("%s: got %+v, want message %q", tc.change.DecisionID, got, tc.want)
		}
	}
}
