package kernel

import (
	"sort"

	"github.com/loopx-dev/loopx/kernel/records"
)

func keyGatePoll(goal, gate, agent string) string { return "poll:" + goal + ":" + gate + ":" + agent }

// GatePoll returns agent's poll record under gate of goal; a record never
// written is returned with Count 0 (no migration: absent means none).
// Errors: the store's, a record that does not decode.
func (tx *Tx) GatePoll(goal, gate, agent string) (records.GatePoll, error) {
	p := records.GatePoll{Goal: goal, Gate: gate, Agent: agent}
	_, err := tx.getJSON(keyGatePoll(goal, gate, agent), &p)
	return p, err
}

// CountGatePoll counts one more refused poll of agent under gate of goal at
// the transaction's instant (the first sets FirstAt) and returns the record
// as stored. It appends no event (the caller audits the first poll) and
// touches no goal: the goal's revision stays as it was. Errors: the
// store's; a read-only transaction.
func (tx *Tx) CountGatePoll(goal, gate, agent string) (records.GatePoll, error) {
	p, err := tx.GatePoll(goal, gate, agent)
	if err != nil {
		return p, err
	}
	if p.Count == 0 {
		p.FirstAt = tx.now
	}
	p.Count++
	p.LastAt = tx.now
	return p, tx.putJSON(keyGatePoll(goal, gate, agent), p)
}

// GatePolls returns the poll records of goal's gates ("" = every goal's),
// by goal, gate id, then agent.
func (tx *Tx) GatePolls(goal string) ([]records.GatePoll, error) {
	prefix := "poll:"
	if goal != "" {
		prefix += goal + ":"
	}
	out := []records.GatePoll{}
	err := scan(tx, prefix, func(p records.GatePoll) bool {
		if goal == "" || p.Goal == goal { // not a goal whose id goal prefixes
			out = append(out, p)
		}
		return true
	})
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Goal != b.Goal {
			return a.Goal < b.Goal
		}
		if a.Gate != b.Gate {
			return a.Gate < b.Gate
		}
		return a.Agent < b.Agent
	})
	return out, err
}
