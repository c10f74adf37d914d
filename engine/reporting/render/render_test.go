package render

import (
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
)

func i64(n int64) *int64       { return &n }
func f64(n float64) *float64   { return &n }
func str(s string) *string     { return &s }
func lines(s ...string) string { return strings.Join(s, "\n") + "\n" }

// TestQuotaText: status's line and the prompt's sentence of one quota.
func TestQuotaText(t *testing.T) {
	q := &parts.QuotaSummary{Rounds: parts.Usage{Used: 2, Limit: i64(24)}, Tokens: parts.Usage{Used: 10}, CostUSD: parts.UsageF{Used: 0.5, Limit: f64(2)},
		Compute: parts.UsageF{Used: 30, Limit: f64(600)}, ResetsAt: str("2026-12-02T00:00:00Z")}
	for _, tc := range []struct {
		q          *parts.QuotaSummary
		line, long string
	}{
		{q, "rounds 2/24, tokens 10/∞, cost $0.50/$2.00, resets 2026-12-02T00:00:00Z",
			"rounds 2/24, tokens 10/∞, cost $0.50/$2.00, compute 30s/600s; resets 2026-12-02T00:00:00Z."},
		{&parts.QuotaSummary{}, "rounds 0/∞, tokens 0/∞", "rounds 0/∞, tokens 0/∞."},
	} {
		if got := QuotaLine(tc.q); got != tc.line {
			t.Errorf("QuotaLine = %q, want %q", got, tc.line)
		}
		if got := quotaText(tc.q, true); got != tc.long {
			t.Errorf("quotaText(long) = %q, want %q", got, tc.long)
		}
	}
}

// TestPrompt: the essentials always stand (header, the todo or why there
// is none, how to report back); optional sections fit the bound or are
// cut with a hint, and Full lifts the bound.
func TestPrompt(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	todo := &records.Todo{ID: "t-1", Title: "Write docs", Priority: 2, Kind: "task", Scope: []string{"docs/**"},
		Lease: &records.Lease{Holder: "a1", Version: 3, Epoch: 1, ExpiresAt: at}}
	var gates []records.Gate
	for _, id := range []string{"g-1", "g-2", "g-3"} {
		gates = append(gates, records.Gate{ID: id, Question: "Ship " + strings.Repeat("x", 150) + "?", Options: []string{"approve", "reject"}, ScopeKind: "goal"})
	}
	for _, tc := range []struct {
		name       string
		turn       Turn
		want       []string // substrings, in order
		not        []string
		truncated  bool
		maxChars   int
		exactStart string
	}{
		{name: "run", turn: Turn{Goal: "g1", Agent: "a1", Objective: "Docs", Verdict: "run", Todo: todo, Quota: &parts.QuotaSummary{}},
			exactStart: lines("# loopx turn: goal g1, agent a1", "Objective: Docs", "", "## Your todo",
				`t-1 "Write docs" (P2, task)`, "Write only within: docs/**", "Lease: version 3, epoch 1, expires 2026-12-01T10:00:00Z."),
			want: []string{"## Quota (this window)\nrounds 0/∞, tokens 0/∞.", "loopx round start --goal g1 --agent a1 --json"}},
		{name: "run task", turn: Turn{Goal: "g1", Agent: "a1", Verdict: "run", Todo: todo, Round: "r-1"},
			want: []string{"loopx round finish r-1 --outcome progress|no_change|failed [--done] --summary TEXT"}},
		{name: "run monitor", turn: Turn{Goal: "g1", Agent: "a1", Verdict: "run", Todo: &records.Todo{ID: "t-2", Title: "Watch CI", Kind: "monitor", EverySeconds: 900}, Round: "r-1"},
			want: []string{"loopx round finish r-1 --outcome progress|no_change|failed --summary TEXT"}, not: []string{"--done"}},
		{name: "monitor before its round", turn: Turn{Goal: "g1", Agent: "a1", Verdict: "run", Todo: &records.Todo{ID: "t-2", Title: "Watch CI", Kind: "monitor", EverySeconds: 900}},
			want: []string{"loopx round finish ROUND --outcome progress|no_change|failed --summary TEXT"}, not: []string{"--done"}},
		{name: "gated", turn: Turn{Goal: "g1", Agent: "a1", Objective: "Docs", Verdict: "wait_human", Gates: gates[:1],
			Reasons: []parts.Reason{{Code: "gate_open", Message: "gate g-1 is open"}, {Code: "other", Message: "m"}}, NextCheckAt: str("2026-12-01T11:00:00Z")},
			want: []string{"## Now: wait_human\n- other: m\n- gate_open: 1 open gate(s) block you; see below\nDo not start work this turn.",
				"- g-1: Ship", "[approve|reject] blocks the goal", "loopx decide should-run --goal g1 --agent a1 (next check 2026-12-01T11:00:00Z)"}},
		{name: "cut", turn: Turn{Goal: "g1", Agent: "a1", Objective: "Docs", Verdict: "wait_human", Gates: gates, MaxChars: 600},
			want: []string{"## Open gates (never work around them)", "(+2 more: loopx gate list --goal g1 --status open)", "## Report back"},
			not:  []string{"g-3"}, truncated: true, maxChars: 600},
		{name: "full", turn: Turn{Goal: "g1", Agent: "a1", Objective: "Docs", Verdict: "wait_human", Gates: gates, MaxChars: 600, Full: true},
			want: []string{"g-1", "g-2", "g-3"}},
		{name: "scope", turn: Turn{Goal: "g1", Agent: "a1", Verdict: "skip", Scope: Scope{Write: []string{"src/**"}, CommandsAsk: []string{"git push*"}}},
			want: []string{"## Scope\n- write only: src/**\n- never write: loopx/**, .loopx/**\n- commands that need a human: git push*\n"}},
		{name: "scope paths once", turn: Turn{Goal: "g1", Agent: "a1", Verdict: "skip", Scope: Scope{Write: []string{"src/**", "docs/**", "src/**"},
			Deny: []string{".loopx/**", "loopx/**", ".env", ".env", "secrets/**"}, CommandsDeny: []string{"git push --force*", "git push --force*"}}},
			want: []string{"## Scope\n- write only: src/**, docs/**\n- never write: loopx/**, .loopx/**, .env, secrets/**\n- commands denied: git push --force*\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, truncated := Prompt(tc.turn)
			if truncated != tc.truncated {
				t.Errorf("truncated = %v, want %v", truncated, tc.truncated)
			}
			if tc.maxChars > 0 && runes(text) > tc.maxChars {
				t.Errorf("%d characters, over the bound %d", runes(text), tc.maxChars)
			}
			if !strings.HasPrefix(text, tc.exactStart) {
				t.Errorf("text starts\n%s\nwant\n%s", text, tc.exactStart)
			}
			rest := text
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing (in order) %q in\n%s", w, text)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(text, n) {
					t.Errorf("has %q:\n%s", n, text)
				}
			}
		})
	}
}

// TestStatusText: a goal's summary lines.
func TestStatusText(t *testing.T) {
	st := Status{Root: "/p", Project: "demo", Goals: []GoalStatus{{ID: "g1", Objective: "Docs", Status: "active", Reason: "r",
		Quota: &parts.QuotaSummary{}, Todos: map[string]int{records.TodoOpen: 2, records.TodoDone: 1}, Evidence: 4,
		NewestTodo: &parts.TodoRef{ID: "t-2", Title: "B"}, NextTodos: []parts.TodoRef{{ID: "t-1", Title: "A"}, {ID: "t-2", Title: "B"}},
		OpenGates:   []contract.Gate{{ID: "g-1", Question: "Ship?", Options: []string{"approve", "reject"}}},
		LastRound:   &contract.Round{ID: "r-1", Agent: "a1", Status: "finished", Outcome: "progress"},
		LastHandoff: &contract.Handoff{Summary: "half done", NextTodo: "C", For: "a2"}}}}
	var b strings.Builder
	StatusText(&b, st)
	want := lines("project demo (/p)", "", "goal g1 [active] Docs", "  reason: r", "  quota: rounds 0/∞, tokens 0/∞",
		"  todos: 2 open, 0 claimed, 1 done, 0 blocked; evidence: 4", "  newest open todo: t-2 B", "  next: t-1 A", "  next: t-2 B",
		"  gate g-1 open: Ship? [approve reject]", "  last round: r-1 by a1, finished progress", "  last handoff: half done; next todo: C (for a2)")
	if b.String() != want {
		t.Errorf("StatusText =\n%s\nwant\n%s", b.String(), want)
	}
}

// TestReviewMarkdown: the packet's sections, each with its empty form
// ("None.") or its items: events and rounds, gates with how to answer,
// leases, evidence with stale marked, quota, refusals, the handoff.
func TestReviewMarkdown(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	empty := Review{Goal: "g1", Objective: "Docs", Status: "active", Now: at, Since: at.Add(-24 * time.Hour)}
	full := empty
	full.SinceLastReview = true
	full.Events = []records.Event{{At: at, Kind: "todo.added", Actor: "human", Subject: "t-1", Message: "Write\n  docs"}}
	full.Rounds = []records.Round{{ID: "r-1", Agent: "a1", Todo: "t-1", Status: records.RoundFinished, Outcome: "progress", Charged: true, Summary: "half"}}
	full.OpenGates = []records.Gate{{ID: "g-1", Question: "Ship the docs now?", Options: []string{"approve", "reject"}, Answerers: []string{"human"}, RaisedBy: "a1", RaisedAt: at}}
	full.Leases = []HeldLease{{Todo: "t-1", Title: "Write docs", ExpiresAt: "2026-12-01T11:00:00Z", Version: 2, Epoch: 1}}
	full.Evidence = []ReviewEvidence{{Evidence: records.Evidence{ID: "ev-1", Kind: "test", Status: "pass", Summary: "ok", CreatedAt: at}, Stale: true}}
	full.EvidenceTotal = 3
	full.Quota = &parts.QuotaSummary{}
	full.Refusals = []Refusal{{Query: "permission", Agent: "a1", Verdict: "deny", Count: 2, Last: at, LastID: "01D", Reasons: []parts.Reason{{Code: "protected_path", Message: "no"}}}}
	full.Handoff = &records.Handoff{Agent: "a1", Round: "r-1", CreatedAt: at, Summary: "half done", NextTodo: "C", For: "a2"}
	for _, tc := range []struct {
		name string
		rv   Review
		want string
	}{
		{"empty", empty, lines("# Review: goal g1", "", "> Docs", "",
			"Status **active**. Generated 2026-12-01T10:00:00Z; changes since 2026-11-30T10:00:00Z (the last 24h).", "",
			"## What changed (0 events)", "", "Nothing changed.", "", "## Open gates (0)", "", "None.", "", "## Leases (0 live)", "", "None.", "",
			"## Evidence (0 of 0, newest first)", "", "None.", "", "## Quota spent", "", "", "## Decisions that said no (0 distinct)", "", "None.", "",
			"## Latest handoff", "", "None.")},
		{"full", full, lines("# Review: goal g1", "", "> Docs", "",
			"Status **active**. Generated 2026-12-01T10:00:00Z; changes since 2026-11-30T10:00:00Z (the last review).", "",
			"## What changed (1 events)", "", "- 2026-12-01T10:00:00Z `todo.added` human t-1: Write docs", "", "Rounds:", "",
			"- r-1 by a1 on t-1: progress, charged: half", "", "## Open gates (1)", "", "### g-1: Ship the docs now?", "",
			"Options: approve, reject. Answerers: human. Blocks the goal. Raised by a1 at 2026-12-01T10:00:00Z.", "",
			"Answer: `loopx gate answer g-1 --option approve`", "", "## Leases (1 live)", "",
			`- t-1 "Write docs" held until 2026-12-01T11:00:00Z (version 2, epoch 1)`, "", "## Evidence (1 of 3, newest first)", "",
			"- [test pass] ok (ev-1, 2026-12-01T10:00:00Z) **STALE**", "", "## Quota spent", "", "rounds 0/∞, tokens 0/∞.", "",
			"## Decisions that said no (1 distinct)", "", "- 2× permission **deny** for a1 (last 2026-12-01T10:00:00Z, 01D); protected_path: no", "",
			"## Latest handoff", "", "From a1 (r-1, 2026-12-01T10:00:00Z): half done", "Next todo: C (for a2)")},
	} {
		if got := ReviewMarkdown(tc.rv); got != tc.want {
			t.Errorf("%s: ReviewMarkdown =\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
