package reportdata

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/decisionlog"
	"github.com/loopx-dev/loopx/engine/reporting/render"
)

// DecisionLog is the decision log as Refusals reads it.
type DecisionLog interface {
	// Files are the log's files, oldest rotation first.
	Files() []string
	// Parse reads one line, ok false when it is not an entry.
	Parse(line []byte) (decision.LogEntry, bool)
}

// Refusals reads the decision log (oldest rotation first, as decisionlog reads
// it: an overlong or unreadable line is passed over) and groups goal's
// decisions in [since, now] that did not allow, by query, agent, verdict
// and reasons, the latest group first.
func Refusals(log DecisionLog, goal string, since, now time.Time) []render.Refusal {
	groups := map[string]*render.Refusal{}
	var order []string
	quoted := []byte(`"` + goal + `"`)
	for _, p := range log.Files() {
		// A file that cannot be read adds no refusals; the packet still
		// comes (the log command reports the error).
		_, _ = decisionlog.Scan(p, func(line []byte) bool {
			if !bytes.Contains(line, quoted) {
				return true
			}
			le, ok := log.Parse(line)
			if !ok {
				return false
			}
			d := decision.Logged(le)
			if (le.Input.Goal != goal && d.Goal != goal) || d.Allow || d.Verdict == "run" || d.Verdict == "allow" || d.Verdict == "defer" {
				return true
			}
			if le.Timestamp.Before(since) || le.Timestamp.After(now) {
				return true
			}
			var key strings.Builder
			fmt.Fprintf(&key, "%s|%s|%s", d.Query, d.Agent, d.Verdict)
			for _, r := range d.Reasons {
				fmt.Fprintf(&key, "|%s:%s", r.Code, r.Message)
			}
			g, ok := groups[key.String()]
			if !ok {
				g = &render.Refusal{Query: d.Query, Agent: d.Agent, Verdict: d.Verdict, Reasons: d.Reasons, First: le.Timestamp}
				groups[key.String()] = g
				order = append(order, key.String())
			}
			g.Count++
			g.Last, g.LastID = le.Timestamp, d.DecisionID
			return true
		})
	}
	out := make([]render.Refusal, 0, len(order))
	for _, k := range order {
		out = append(out, *groups[k])
	}
	slices.SortStableFunc(out, func(a, b render.Refusal) int { return b.Last.Compare(a.Last) })
	return out
}
