package render

import (
	"fmt"
	"strings"

	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
)

// EventRow is an audit event as `loopx events` lists it (the output
// contract's Event): the event as logged and, for the event of an agent's
// first poll under an open gate (a gate.waited event with data first_poll),
// the poll record that counts that agent's polls under that gate since.
type EventRow struct {
	contract.Event
	Polls *contract.GatePoll `json:"polls,omitempty"`
}

// WithPolls pairs each event of evs with its poll record among polls
// (PollOf); never nil.
func WithPolls(evs []records.Event, polls []records.GatePoll) []EventRow {
	out := make([]EventRow, 0, len(evs))
	for _, ev := range evs {
		row := EventRow{Event: contract.EventOf(ev)}
		if p := PollOf(ev, polls); p != nil {
			cp := contract.GatePollOf(*p)
			row.Polls = &cp
		}
		out = append(out, row)
	}
	return out
}

// PollOf returns the poll record among polls that counts the polls ev
// began: ev must be a gate.waited event with data first_poll true; the record
// is the one of ev's goal, gate (data gate) and actor. Nil otherwise.
func PollOf(ev records.Event, polls []records.GatePoll) *records.GatePoll {
	if ev.Kind != "gate.waited" || ev.Data["first_poll"] != true {
		return nil
	}
	gate, _ := ev.Data["gate"].(string)
	for i, p := range polls {
		if p.Goal == ev.Goal && p.Gate == gate && p.Agent == ev.Actor {
			return &polls[i]
		}
	}
	return nil
}

// PollText says p in one line: "polled 5× by cursor from <first> to
// <last>" (RFC 3339 instants).
func PollText(p contract.GatePoll) string {
	return fmt.Sprintf("polled %d× by %s from %s to %s", p.Count, p.Agent, records.RFC3339(p.FirstAt), records.RFC3339(p.LastAt))
}

// gatePollsText lists the polls of gate among polls, "" when none: "cursor
// 5× from <first> to <last>; codex 1× from …".
func gatePollsText(gate string, polls []records.GatePoll) string {
	var parts []string
	for _, p := range polls {
		if p.Gate == gate {
			parts = append(parts, fmt.Sprintf("%s %d× from %s to %s", p.Agent, p.Count, records.RFC3339(p.FirstAt), records.RFC3339(p.LastAt)))
		}
	}
	return strings.Join(parts, "; ")
}

// GateRow is a gate as `loopx gate list` and `gate show` print it (the
// output contract's Gate): the stored instance and the counted polls of
// round start under it, by agent ([] when none).
type GateRow struct {
	contract.Gate
	Polls []contract.GatePoll `json:"polls"`
}

// GatesWithPolls pairs each gate of gs with its records among polls.
func GatesWithPolls(gs []records.Gate, polls []records.GatePoll) []GateRow {
	out := make([]GateRow, 0, len(gs))
	for _, g := range gs {
		r := GateRow{Gate: contract.GateOf(g), Polls: []contract.GatePoll{}}
		for _, p := range polls {
			if p.Goal == g.Goal && p.Gate == g.ID {
				r.Polls = append(r.Polls, contract.GatePollOf(p))
			}
		}
		out = append(out, r)
	}
	return out
}
