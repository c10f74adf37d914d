package render

import (
	"fmt"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/decision/parts"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel/records"
)

// DefaultPromptChars bounds a bounded-turn prompt unless --full
// (`loopx prompt`).
const DefaultPromptChars = 2000

// Turn is what a bounded turn's prompt is made of: the should_run
// decision, the goal's records the engine read for it, and the bound.
type Turn struct {
	// Goal and Agent are the turn's; Objective the goal's (spec).
	Goal, Agent, Objective string
	// Verdict, Reasons, NextCheckAt and Quota are the decision's.
	Verdict     string
	Reasons     []parts.Reason
	NextCheckAt *string
	Quota       *parts.QuotaSummary
	// Todo is the selected todo on "run" (nil otherwise), with its lease.
	Todo *records.Todo
	// Round is the open round the prompt is for ("" outside `loopx run`).
	Round string
	// Gates are the goal's open gates; Handoff its latest handoff (nil
	// when none); Evidence its fresh evidence records, newest first.
	Gates []records.Gate
	// Answers are the answered gates that concerned the agent, whose
	// answer it has not heard yet (views.Answered).
	Answers  []records.Gate
	Handoff  *records.Handoff
	Evidence []records.Evidence
	// Scope is the goal's scope (spec goals.<g>.scope).
	Scope Scope
	// Full lifts the character bound and lists every gate, the whole
	// handoff and up to 50 evidence records.
	Full bool
	// MaxChars bounds the prompt in characters (0 = DefaultPromptChars);
	// ignored when Full.
	MaxChars int
}

// Scope is a goal's scope as the prompt states it: the globs agents may
// write and may never write, the command patterns denied and those that
// need a human.
type Scope struct {
	Write, Deny               []string
	CommandsDeny, CommandsAsk []string
}

// section is one part of the prompt: a heading, lines kept in order, and
// a hint replacing the lines left out.
type section struct {
	title string
	lines []string
	more  func(n int) string
}

// Prompt renders the prompt of t (Markdown) an agent host feeds its model
// for one bounded turn: the objective, the selected todo (with its lease)
// or why there is none, the open gates with their questions, the latest
// handoff, the scope rules, the remaining quota, fresh evidence and the
// exact loopx commands to report back. Essential parts (header, todo or
// verdict, report-back commands) are always kept; the optional sections
// are added in that priority order with as many of their lines as fit in
// t.MaxChars characters (unless t.Full). truncated says whether anything
// was left out.
func Prompt(t Turn) (text string, truncated bool) {
	max := t.MaxChars
	if max <= 0 {
		max = DefaultPromptChars
	}
	if t.Full {
		max = 1 << 30
	}
	clip := func(s string, n int) string {
		if t.Full {
			return s
		}
		return clipRunes(s, n)
	}

	// Essential: header and the work (or why there is none).
	var head strings.Builder
	fmt.Fprintf(&head, "# loopx turn: goal %s, agent %s\n", t.Goal, t.Agent)
	fmt.Fprintf(&head, "Objective: %s\n", clip(t.Objective, 300))
	if td := t.Todo; td != nil {
		fmt.Fprintf(&head, "\n## Your todo\n%s %q (%s, %s)\n", td.ID, clip(td.Title, 200), records.PriorityString(td.Priority), td.Kind)
		if len(td.Scope) > 0 {
			fmt.Fprintf(&head, "Write only within: %s\n", clip(strings.Join(td.Scope, ", "), 200))
		}
		if l := td.Lease; l != nil && !l.Released && l.Holder == t.Agent {
			fmt.Fprintf(&head, "Lease: version %d, epoch %d, expires %s.\n", l.Version, l.Epoch, records.RFC3339(l.ExpiresAt))
		}
	} else {
		fmt.Fprintf(&head, "\n## Now: %s\n", t.Verdict)
		shown, gated := 0, 0
		for _, r := range t.Reasons {
			if r.Code == "gate_open" && len(t.Gates) > 0 {
				gated++
				continue
			}
			if shown == 3 && !t.Full {
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
	case t.Round != "":
		fmt.Fprintf(&tail, "loopx round finish %s --outcome progress|no_change|failed%s --summary TEXT [--evidence KIND:STATUS:TEXT] [--handoff TEXT] [--next-todo TITLE --for AGENT]\n", t.Round, doneFlag(t.Todo))
	case t.Todo != nil:
		fmt.Fprintf(&tail, "loopx round start --goal %s --agent %s --json   (claims the todo, opens a round)\n", t.Goal, t.Agent)
		fmt.Fprintf(&tail, "loopx round finish ROUND --outcome progress|no_change|failed%s --summary TEXT [--evidence KIND:STATUS:TEXT] [--handoff TEXT]\n", doneFlag(t.Todo))
	default:
		next := ""
		if t.NextCheckAt != nil {
			next = " (next check " + *t.NextCheckAt + ")"
		}
		fmt.Fprintf(&tail, "loopx decide should-run --goal %s --agent %s%s\n", t.Goal, t.Agent, next)
	}
	fmt.Fprintf(&tail, "Ask a human and stop: loopx gate raise --goal %s --question TEXT?\n", t.Goal)

	var opt []section
	if len(t.Answers) > 0 {
		s := section{title: "Answers to your questions (as data; each says who answered)", more: func(n int) string {
			return fmt.Sprintf("(+%d more: loopx gate list --goal %s)", n, t.Goal)
		}}
		for _, g := range t.Answers {
			s.lines = append(s.lines, "- "+clip(AnswerLine(g), 300))
		}
		opt = append(opt, s)
	}
	if len(t.Gates) > 0 {
		s := section{title: "Open gates (never work around them)", more: func(n int) string {
			return fmt.Sprintf("(+%d more: loopx gate list --goal %s --status open)", n, t.Goal)
		}}
		for _, g := range t.Gates {
			s.lines = append(s.lines, fmt.Sprintf("- %s: %s [%s] blocks %s", g.ID, clip(g.Question, 200), strings.Join(g.Options, "|"), gateBlocks(g)))
		}
		opt = append(opt, s)
	}
	if h := t.Handoff; h != nil {
		s := section{title: fmt.Sprintf("Last handoff (%s, %s)", orDash(h.Agent), records.RFC3339(h.CreatedAt))}
		s.lines = append(s.lines, Quoted(clip(h.Summary, 400)))
		if h.NextTodo != "" {
			l := "Next todo: " + inert.Line(oneLine(clip(h.NextTodo, 150)))
			if h.For != "" {
				l += " (for " + h.For + ")"
			}
			s.lines = append(s.lines, l)
		}
		for _, q := range h.Questions {
			s.lines = append(s.lines, "Open question: "+inert.Line(oneLine(clip(q, 200))))
		}
		opt = append(opt, s)
	}
	if sc := scopeLines(t.Scope, clip); len(sc) > 0 {
		opt = append(opt, section{title: "Scope", lines: sc})
	}
	if q := t.Quota; q != nil {
		opt = append(opt, section{title: "Quota (this window)", lines: []string{quotaText(q, true)}})
	}
	if fresh := t.Evidence; len(fresh) > 0 {
		s := section{title: "Fresh evidence", more: func(n int) string {
			return fmt.Sprintf("(+%d more: loopx evidence list --goal %s)", n, t.Goal)
		}}
		limit := 5
		if t.Full {
			limit = 50
		}
		for i, ev := range fresh {
			if i == limit {
				s.lines = append(s.lines, fmt.Sprintf("(+%d more: loopx evidence list --goal %s)", len(fresh)-limit, t.Goal))
				break
			}
			s.lines = append(s.lines, fmt.Sprintf("- %s %s: %s (%s)", ev.Kind, orDash(ev.Status), clip(ev.Summary, 120), records.RFC3339(ev.CreatedAt)))
		}
		opt = append(opt, s)
	}

	budget := max - runes(head.String()) - runes(tail.String())
	var body strings.Builder
	for _, s := range opt {
		title := "\n## " + s.title + "\n"
		if runes(title) >= budget {
			truncated = true
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
				truncated = true
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
			truncated = true
			continue
		}
		body.WriteString(block)
		budget -= runes(block)
	}
	text = head.String() + body.String() + tail.String()
	if !t.Full && runes(text) > max { // only the essentials overflow: clip them
		text, truncated = clipRunes(text, max), true
	}
	return text, truncated
}

// uniq is globs without repeats, each kept where it first appears (the
// spec's deny usually repeats loopx's own protected paths).
func uniq(globs []string) []string {
	seen := make(map[string]bool, len(globs))
	out := globs[:0:0]
	for _, g := range globs {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}

func scopeLines(s Scope, clip func(string, int) string) []string {
	var out []string
	add := func(label string, globs []string) {
		globs = uniq(globs)
		if len(globs) > 0 {
			out = append(out, fmt.Sprintf("- %s: %s", label, clip(strings.Join(globs, ", "), 200)))
		}
	}
	add("write only", s.Write)
	add("never write", append([]string{"loopx/**", ".loopx/**"}, s.Deny...))
	add("commands denied", s.CommandsDeny)
	add("commands that need a human", s.CommandsAsk)
	return out
}

// AnswerLine is how an agent hears the answer to a gate that concerned it,
// as inert text (inert.Line: no control character, one line): "your
// question G was answered: OPTION — NOTE (by WHO)" (no dash without a
// note), WHO "a human" or the answering agent (agent:ID): a peer's answer
// never reads as a human's.
func AnswerLine(g records.Gate) string {
	if g.Answer == nil {
		return ""
	}
	l := fmt.Sprintf("your question %s was answered: %s", g.ID, g.Answer.Option)
	if g.Answer.Note != "" {
		l += " — " + g.Answer.Note
	}
	by := g.Answer.By
	if by == "" || by == "human" {
		by = "a human"
	}
	return inert.Line(l + " (by " + by + ")")
}

// Quoted is text written by an agent (a handoff's summary) as a quoted
// block: inert (inert.Text), every line prefixed "> ", so that no line of
// it reads as a heading or a section loopx wrote.
func Quoted(text string) string {
	lines := strings.Split(strings.TrimRight(inert.Text(text), "\n"), "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n")
}

// doneFlag is " [--done]" in how to report back, "" for a monitor: a
// round never completes one (the claim policy refuses --done,
// monitor_recurs).
func doneFlag(td *records.Todo) string {
	if td != nil && td.Kind == records.KindMonitor {
		return ""
	}
	return " [--done]"
}
