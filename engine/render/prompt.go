package render

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/specs"
)

// DefaultPromptChars bounds a bounded-turn prompt unless --full (design
// §10: `loopx prompt`).
const DefaultPromptChars = 2000

// DefaultStaleAfter is how long evidence stays fresh when the spec does
// not say (goals.<g>.evidence.stale_after).
const DefaultStaleAfter = 72 * time.Hour

// PromptOptions select a prompt.
type PromptOptions struct {
	Goal, Agent string
	// Full lifts the character bound and lists every gate, the whole
	// handoff and up to 50 fresh evidence records.
	Full bool
	// MaxChars bounds the prompt in characters (0 = DefaultPromptChars);
	// ignored when Full.
	MaxChars int
}

// Prompt is a bounded-turn prompt and what it was built from.
type Prompt struct {
	Goal  string `json:"goal"`
	Agent string `json:"agent"`
	// Verdict is the should_run verdict the prompt reflects.
	Verdict    string `json:"verdict"`
	DecisionID string `json:"decision_id"`
	// Todo is the selected todo on "run" (nil otherwise).
	Todo *kernel.Todo `json:"todo"`
	// Round is the open round the prompt is for ("" outside `loopx run`).
	Round string `json:"round,omitempty"`
	// Text is the prompt (Markdown); Chars its length in characters.
	Text  string `json:"text"`
	Chars int    `json:"chars"`
	// Truncated is true when items were left out to respect the bound.
	Truncated bool `json:"truncated"`
}

// Prompt decides should_run for (goal, agent) — the decision is logged
// like any other — and builds the prompt an agent host feeds its model for
// one bounded turn: the objective, the selected todo (with its lease), the
// open gates with their questions, the scope rules, the latest handoff,
// fresh evidence (not older than evidence.stale_after), the remaining
// quota and the exact loopx commands to report back. It is at most
// MaxChars characters unless Full. Errors: errs.Usage for an unknown
// goal, the spec's errors, store errors.
func (e *Engine) Prompt(ctx context.Context, o PromptOptions) (Prompt, error) {
	p := Prompt{Goal: o.Goal, Agent: o.Agent}
	if err := e.RequireGoal(o.Goal); err != nil {
		return p, err
	}
	if o.Agent == "" {
		return p, Usagef("missing_agent", "which agent? give --agent")
	}
	d, err := e.Decide(ctx, Request{Query: "should_run", Goal: o.Goal, Agent: o.Agent})
	if err != nil {
		return p, err
	}
	var todo *kernel.Todo
	if d.Verdict == "run" && d.Todo != nil {
		t, err := e.Todo(d.Todo.ID)
		if err != nil {
			return p, err
		}
		todo = &t
	}
	return e.buildPrompt(promptInput{goal: o.Goal, agent: o.Agent, decision: d, todo: todo, full: o.Full, max: o.MaxChars})
}

type promptInput struct {
	goal, agent string
	decision    Decision
	todo        *kernel.Todo
	round       *kernel.Round
	full        bool
	max         int
}

// section is one part of the prompt: a heading, lines kept in order, and
// a hint replacing the lines left out.
type section struct {
	title string
	lines []string
	more  func(n int) string
}

// buildPrompt renders the prompt of in. Essential parts (header, todo or
// verdict, report-back commands) are always kept; the optional sections
// are added in priority order — gates, handoff, scope, quota, evidence —
// with as many of their lines as fit in the bound.
func (e *Engine) buildPrompt(in promptInput) (Prompt, error) {
	p := Prompt{Goal: in.goal, Agent: in.agent, Verdict: in.decision.Verdict, DecisionID: in.decision.DecisionID, Todo: in.todo}
	if in.round != nil {
		p.Round = in.round.ID
	}
	max := in.max
	if max <= 0 {
		max = DefaultPromptChars
	}
	if in.full {
		max = 1 << 30
	}
	clip := func(s string, n int) string {
		if in.full {
			return s
		}
		return clipRunes(s, n)
	}
	gs := e.goalSpec(in.goal)
	if gs == nil {
		return p, Usagef("unknown_goal", "unknown goal %q", in.goal)
	}
	now := e.Now()
	var (
		gates    []kernel.Gate
		handoff  *kernel.Handoff
		evidence []kernel.Evidence
	)
	err := e.view(func(tx *kernel.Tx) error {
		var err error
		if gates, err = e.openGates(tx, in.goal); err != nil {
			return err
		}
		hs, err := tx.Handoffs(in.goal)
		if err != nil {
			return err
		}
		if len(hs) > 0 {
			handoff = &hs[len(hs)-1]
		}
		evidence, err = tx.EvidenceList(in.goal, 0)
		return err
	})
	if err != nil {
		return p, err
	}

	// Essential: header and the work (or why there is none).
	var head strings.Builder
	fmt.Fprintf(&head, "# loopx turn: goal %s, agent %s\n", in.goal, in.agent)
	fmt.Fprintf(&head, "Objective: %s\n", clip(gs.Objective, 300))
	if t := in.todo; t != nil {
		fmt.Fprintf(&head, "\n## Your todo\n%s %q (%s, %s)\n", t.ID, clip(t.Title, 200), kernel.PriorityString(t.Priority), t.Kind)
		if len(t.Scope) > 0 {
			fmt.Fprintf(&head, "Write only within: %s\n", clip(strings.Join(t.Scope, ", "), 200))
		}
		if l := t.Lease; l != nil && !l.Released && l.Holder == in.agent {
			fmt.Fprintf(&head, "Lease: version %d, epoch %d, expires %s.\n", l.Version, l.Epoch, rfc(l.ExpiresAt))
		}
	} else {
		fmt.Fprintf(&head, "\n## Now: %s\n", in.decision.Verdict)
		shown, gated := 0, 0
		for _, r := range in.decision.Reasons {
			if r.Code == "gate_open" && len(gates) > 0 {
				gated++
				continue
			}
			if shown == 3 && !in.full {
				continue
			}
			fmt.Fprintf(&head, "- %s: %s\n", r.Code, clip(r.Message, 200))
			shown++
		}
		if gated > 0 {
			fmt.Fprintf(&head, "- gate_open: %d open gate(s) block you; see below\n", gated)
		}
		head.WriteString("Do not start work this turn.\n")
	}

	// Essential: how to report back.
	var tail strings.Builder
	tail.WriteString("\n## Report back\n")
	switch {
	case in.round != nil:
		fmt.Fprintf(&tail, "loopx round finish %s --outcome progress|no_change|failed [--done] --summary TEXT [--evidence KIND:STATUS:TEXT] [--handoff TEXT] [--next-todo TITLE --for AGENT]\n", in.round.ID)
	case in.todo != nil:
		fmt.Fprintf(&tail, "loopx round start --goal %s --agent %s --json   (claims the todo, opens a round)\n", in.goal, in.agent)
		tail.WriteString("loopx round finish ROUND --outcome progress|no_change|failed [--done] --summary TEXT [--evidence KIND:STATUS:TEXT] [--handoff TEXT]\n")
	default:
		next := ""
		if in.decision.NextCheckAt != nil {
			next = " (next check " + *in.decision.NextCheckAt + ")"
		}
		fmt.Fprintf(&tail, "loopx decide should-run --goal %s --agent %s%s\n", in.goal, in.agent, next)
	}
	fmt.Fprintf(&tail, "Ask a human and stop: loopx gate raise --goal %s --question TEXT?\n", in.goal)

	var opt []section
	if len(gates) > 0 {
		s := section{title: "Open gates (never work around them)", more: func(n int) string {
			return fmt.Sprintf("(+%d more: loopx gate list --goal %s --status open)", n, in.goal)
		}}
		for _, g := range gates {
			s.lines = append(s.lines, fmt.Sprintf("- %s: %s [%s] blocks %s", g.ID, clip(g.Question, 200), strings.Join(g.Options, "|"), gateBlocks(g)))
		}
		opt = append(opt, s)
	}
	if h := handoff; h != nil {
		s := section{title: fmt.Sprintf("Last handoff (%s, %s)", orDash(h.Agent), rfc(h.CreatedAt))}
		s.lines = append(s.lines, clip(h.Summary, 400))
		if h.NextTodo != "" {
			l := "Next todo: " + clip(h.NextTodo, 150)
			if h.For != "" {
				l += " (for " + h.For + ")"
			}
			s.lines = append(s.lines, l)
		}
		for _, q := range h.Questions {
			s.lines = append(s.lines, "Open question: "+clip(q, 200))
		}
		opt = append(opt, s)
	}
	if sc := scopeLines(gs.Scope, clip); len(sc) > 0 {
		opt = append(opt, section{title: "Scope", lines: sc})
	}
	if q := in.decision.Quota; q != nil {
		opt = append(opt, section{title: "Quota (this window)", lines: []string{quotaText(q)}})
	}
	fresh := freshEvidence(evidence, staleAfter(gs), now)
	if len(fresh) > 0 {
		s := section{title: "Fresh evidence", more: func(n int) string {
			return fmt.Sprintf("(+%d more: loopx evidence list --goal %s)", n, in.goal)
		}}
		limit := 5
		if in.full {
			limit = 50
		}
		for i, ev := range fresh {
			if i == limit {
				s.lines = append(s.lines, fmt.Sprintf("(+%d more: loopx evidence list --goal %s)", len(fresh)-limit, in.goal))
				break
			}
			s.lines = append(s.lines, fmt.Sprintf("- %s %s: %s (%s)", ev.Kind, orDash(ev.Status), clip(ev.Summary, 120), rfc(ev.CreatedAt)))
		}
		opt = append(opt, s)
	}

	budget := max - runes(head.String()) - runes(tail.String())
	var body strings.Builder
	for _, s := range opt {
		title := "\n## " + s.title + "\n"
		if runes(title) >= budget {
			p.Truncated = true
			continue
		}
		var kept []string
		used := runes(title)
		for i, l := range s.lines {
			n := runes(l) + 1
			left := len(s.lines) - i - 1
			reserve := 0
			if left > 0 && s.more != nil {
				reserve = runes(s.more(left)) + 1
			}
			if used+n+reserve > budget {
				p.Truncated = true
				if s.more != nil {
					kept = append(kept, s.more(len(s.lines)-i))
				}
				break
			}
			kept = append(kept, l)
			used += n
		}
		if len(kept) == 0 {
			continue
		}
		block := title + strings.Join(kept, "\n") + "\n"
		if runes(block) > budget {
			p.Truncated = true
			continue
		}
		body.WriteString(block)
		budget -= runes(block)
	}
	p.Text = head.String() + body.String() + tail.String()
	if !in.full && runes(p.Text) > max { // only the essentials overflow: clip them
		p.Text, p.Truncated = clipRunes(p.Text, max), true
	}
	p.Chars = runes(p.Text)
	return p, nil
}

// gateBlocks says what an open gate holds back.
func gateBlocks(g kernel.Gate) string {
	switch g.ScopeKind {
	case "agent":
		return "agents " + strings.Join(g.ScopeAgents, ", ")
	case "todo":
		return "todos " + strings.Join(g.ScopeTodos, ", ")
	case "action":
		return "actions " + strings.Join(g.Guards, ", ")
	}
	return "the goal"
}

func scopeLines(s specs.Scope, clip func(string, int) string) []string {
	var out []string
	add := func(label string, globs []string) {
		if len(globs) > 0 {
			out = append(out, fmt.Sprintf("- %s: %s", label, clip(strings.Join(globs, ", "), 200)))
		}
	}
	add("write only", s.Write)
	add("never write", append([]string{"loopx/**", ".loopx/**"}, s.Deny...))
	add("commands denied", s.Commands.Deny)
	add("commands that need a human", s.Commands.Ask)
	return out
}

// quotaText renders the remaining quota in one line.
func quotaText(q *QuotaSummary) string {
	lim := func(p *int64) string {
		if p == nil {
			return "∞"
		}
		return fmt.Sprint(*p)
	}
	s := fmt.Sprintf("rounds %d/%s, tokens %d/%s", q.Rounds.Used, lim(q.Rounds.Limit), q.Tokens.Used, lim(q.Tokens.Limit))
	if q.CostUSD.Limit != nil {
		s += fmt.Sprintf(", cost $%.2f/$%.2f", q.CostUSD.Used, *q.CostUSD.Limit)
	}
	if q.Compute.Limit != nil {
		s += fmt.Sprintf(", compute %.0fs/%.0fs", q.Compute.Used, *q.Compute.Limit)
	}
	if q.ResetsAt != nil {
		s += "; resets " + *q.ResetsAt
	}
	return s + "."
}

// staleAfter is the goal's evidence.stale_after (default 72 h).
func staleAfter(gs *specs.Goal) time.Duration {
	if gs != nil && gs.Evidence.StaleAfterSeconds > 0 {
		return time.Duration(gs.Evidence.StaleAfterSeconds) * time.Second
	}
	return DefaultStaleAfter
}

// Stale reports whether evidence created at created is stale at now:
// older than after, or dated after now (the clock moved back, or the
// record claims a time that has not come yet).
func Stale(created, now time.Time, after time.Duration) bool {
	return created.After(now) || now.Sub(created) >= after
}

func freshEvidence(evs []kernel.Evidence, after time.Duration, now time.Time) []kernel.Evidence {
	var out []kernel.Evidence
	for _, ev := range evs {
		if !Stale(ev.CreatedAt, now, after) {
			out = append(out, ev)
		}
	}
	return out
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// clipRunes shortens s to at most n characters, ending in "…" when cut.
func clipRunes(s string, n int) string {
	if runes(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
