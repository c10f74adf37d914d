package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

// The round index: what a round start, a decision and the identity check
// read of a goal's rounds, kept beside them so that they never decode the
// goal's whole history. Every write of a round (AddRound, PutRound)
// keeps it; a store written before it existed has no keyRoundIndex, is
// read by scanning every round meanwhile, and is indexed whole by its
// first write of a round. Rounds are never deleted, so the index only
// ever overwrites its keys (the finish keys of a round whose finish
// instant changed stay, and are skipped when read).
const keyRoundIndex = "meta:round_index"

// keyOpenRounds lists the ids of agent's open rounds of goal.
func keyOpenRounds(g, agent string) string { return "rix:open:" + g + ":" + agent }

// keyRoundFinished orders goal's finished rounds by finish instant (then
// in store order: start instant, sequence); the value is the round id.
func keyRoundFinished(g string, r records.Round) string {
	return fmt.Sprintf("rix:fin:%s:%s:%s:%020d", g, r.FinishedAt.UTC().Format(fixedNano), r.StartedAt.UTC().Format(fixedNano), r.Seq)
}

// keyAgentLastRound names agent's last finished round of goal (by finish).
func keyAgentLastRound(g, agent string) string { return "rix:last:" + g + ":" + agent }

// keyRoundStartedLast names goal's last round in store order (one of
// those started last).
func keyRoundStartedLast(g string) string { return "rix:started:" + g }

// keyRunnerRound holds runner's last round of goal (in store order) as a
// runnerRound.
func keyRunnerRound(g, runner string) string { return "rix:runner:" + g + ":" + runner }

// runnerRound is what the index keeps of a runner's last round: enough to
// order it and to say whose agent the runner is, without the round.
type runnerRound struct {
	Round     string    `json:"round"`
	Agent     string    `json:"agent"`
	StartedAt time.Time `json:"started_at"`
	Seq       uint64    `json:"seq"`
}

func runnerRoundOf(r records.Round) runnerRound {
	return runnerRound{Round: r.ID, Agent: r.Agent, StartedAt: r.StartedAt, Seq: r.Seq}
}

func (rr runnerRound) before(b runnerRound) bool {
	return storeBefore(records.Round{StartedAt: rr.StartedAt, Seq: rr.Seq}, records.Round{StartedAt: b.StartedAt, Seq: b.Seq})
}

// fixedNano is RFC 3339 with nanoseconds never trimmed: its strings order
// as their instants do.
const fixedNano = "2006-01-02T15:04:05.000000000Z"

// RoundsIndexed reports whether the store keeps the round index (a store
// written before it has none until its next write of a round).
func (tx *Tx) RoundsIndexed() bool {
	_, err := tx.tx.Get(keyRoundIndex)
	return err == nil
}

// storeBefore reports whether a comes before b in the order Rounds gives
// (start instant, then store sequence).
func storeBefore(a, b records.Round) bool {
	if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
		return c < 0
	}
	return a.Seq < b.Seq
}

// finishedBefore reports whether finished round a finished before b (ties
// in store order).
func finishedBefore(a, b records.Round) bool {
	if c := a.FinishedAt.Compare(b.FinishedAt); c != 0 {
		return c < 0
	}
	return storeBefore(a, b)
}

// pointedRound is the round the index key k names; ok false when k is
// absent.
func (tx *Tx) pointedRound(k string) (r records.Round, ok bool, err error) {
	var id string
	if ok, err = tx.getJSON(k, &id); !ok || err != nil {
		return r, false, err
	}
	r, err = tx.Round(id)
	return r, err == nil, err
}

// indexRound keeps the round index for r, written in this transaction
// over old (nil for a new round). A store without the index is indexed
// whole first (r is then read with the others).
func (tx *Tx) indexRound(old *records.Round, r records.Round) error {
	if !tx.RoundsIndexed() {
		return tx.buildRoundIndex()
	}
	wasOpen := old != nil && old.Status == records.RoundOpen
	if isOpen := r.Status == records.RoundOpen; wasOpen != isOpen || (wasOpen && old.Agent != r.Agent) {
		if wasOpen {
			if err := tx.editOpen(r.Goal, old.Agent, r.ID, false); err != nil {
				return err
			}
		}
		if isOpen {
			if err := tx.editOpen(r.Goal, r.Agent, r.ID, true); err != nil {
				return err
			}
		}
	}
	if p, ok, err := tx.pointedRound(keyRoundStartedLast(r.Goal)); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	} else if !ok || storeBefore(p, r) {
		if err := tx.putJSON(keyRoundStartedLast(r.Goal), r.ID); err != nil {
			return err
		}
	}
	if r.Runner != "" && (old == nil || old.Runner != r.Runner || old.Agent != r.Agent) {
		var p runnerRound
		if ok, err := tx.getJSON(keyRunnerRound(r.Goal, r.Runner), &p); err != nil {
			return err
		} else if !ok || p.Round == r.ID || p.before(runnerRoundOf(r)) {
			if err := tx.putJSON(keyRunnerRound(r.Goal, r.Runner), runnerRoundOf(r)); err != nil {
				return err
			}
		}
	}
	if r.Status == records.RoundFinished && (old == nil || old.Status != records.RoundFinished || !old.FinishedAt.Equal(r.FinishedAt)) {
		if err := tx.putJSON(keyRoundFinished(r.Goal, r), r.ID); err != nil {
			return err
		}
		if p, ok, err := tx.pointedRound(keyAgentLastRound(r.Goal, r.Agent)); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		} else if !ok || p.ID == r.ID || finishedBefore(p, r) {
			if err := tx.putJSON(keyAgentLastRound(r.Goal, r.Agent), r.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// editOpen adds (or removes) id to agent's open rounds of goal.
func (tx *Tx) editOpen(goal, agent, id string, add bool) error {
	var ids []string
	if _, err := tx.getJSON(keyOpenRounds(goal, agent), &ids); err != nil {
		return err
	}
	ids = slices.DeleteFunc(ids, func(s string) bool { return s == id })
	if add {
		ids = append(ids, id)
	}
	if ids == nil {
		ids = []string{}
	}
	return tx.putJSON(keyOpenRounds(goal, agent), ids)
}

// buildRoundIndex writes the round index of every round in the store and
// marks the store indexed.
func (tx *Tx) buildRoundIndex() error {
	all, err := tx.Rounds("")
	if err != nil {
		return err
	}
	type goalAgent struct{ goal, agent string }
	open := map[goalAgent][]string{}
	started := map[string]records.Round{}
	last := map[goalAgent]records.Round{}
	runners := map[goalAgent]records.Round{}
	for _, r := range all { // store order
		ga := goalAgent{r.Goal, r.Agent}
		if r.Status == records.RoundOpen {
			open[ga] = append(open[ga], r.ID)
		}
		started[r.Goal] = r
		if r.Runner != "" {
			runners[goalAgent{r.Goal, r.Runner}] = r
		}
		if r.Status == records.RoundFinished {
			if p, ok := last[ga]; !ok || finishedBefore(p, r) {
				last[ga] = r
			}
			if err := tx.putJSON(keyRoundFinished(r.Goal, r), r.ID); err != nil {
				return err
			}
		}
	}
	for ga, ids := range open {
		if err := tx.putJSON(keyOpenRounds(ga.goal, ga.agent), ids); err != nil {
			return err
		}
	}
	for g, r := range started {
		if err := tx.putJSON(keyRoundStartedLast(g), r.ID); err != nil {
			return err
		}
	}
	for ga, r := range last {
		if err := tx.putJSON(keyAgentLastRound(ga.goal, ga.agent), r.ID); err != nil {
			return err
		}
	}
	for gr, r := range runners {
		if err := tx.putJSON(keyRunnerRound(gr.goal, gr.agent), runnerRoundOf(r)); err != nil {
			return err
		}
	}
	return tx.set(keyRoundIndex, "1")
}

// OpenRounds returns goal's open rounds of agent ("" = every agent's),
// in store order, from the round index (every round of goal read when
// the store has none).
func (tx *Tx) OpenRounds(goal, agent string) ([]records.Round, error) {
	if !tx.RoundsIndexed() {
		all, err := tx.Rounds(goal)
		return slices.DeleteFunc(all, func(r records.Round) bool {
			return r.Status != records.RoundOpen || (agent != "" && r.Agent != agent)
		}), err
	}
	prefix := "rix:open:" + goal + ":"
	if agent != "" {
		prefix = keyOpenRounds(goal, agent)
	}
	var ids []string
	err := scan(tx, prefix, func(l []string) bool { ids = append(ids, l...); return true })
	if err != nil {
		return nil, err
	}
	if agent != "" {
		// The prefix of agent "a" also matches agent "ab"'s key.
		ids = nil
		if _, err := tx.getJSON(keyOpenRounds(goal, agent), &ids); err != nil {
			return nil, err
		}
	}
	return tx.roundsByID(ids, func(r records.Round) bool { return r.Status == records.RoundOpen })
}

// roundsByID reads the rounds ids (each once), keeps those ok accepts,
// and orders them as Rounds does.
func (tx *Tx) roundsByID(ids []string, ok func(records.Round) bool) ([]records.Round, error) {
	out := []records.Round{}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		r, err := tx.Round(id)
		if err != nil {
			return nil, err
		}
		if ok == nil || ok(r) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b records.Round) int {
		if storeBefore(a, b) {
			return -1
		}
		if storeBefore(b, a) {
			return 1
		}
		return 0
	})
	return out, nil
}

// HotRounds returns the rounds of goal a decision reads, in store order:
// every open round; the last round (one of those started last); each agent's last
// finished round (by finish); and the finished rounds from the last one
// that made progress on, by finish (every finished round when none did).
// The quota, in-flight and progress facts computed from them are those
// computed from every round of goal. It reads the round index (every
// round of goal when the store has none).
func (tx *Tx) HotRounds(goal string) ([]records.Round, error) {
	if !tx.RoundsIndexed() {
		return tx.Rounds(goal)
	}
	var ids []string
	if err := scan(tx, "rix:open:"+goal+":", func(l []string) bool { ids = append(ids, l...); return true }); err != nil {
		return nil, err
	}
	var started string
	if ok, err := tx.getJSON(keyRoundStartedLast(goal), &started); err != nil {
		return nil, err
	} else if ok {
		ids = append(ids, started)
	}
	if err := scan(tx, "rix:last:"+goal+":", func(id string) bool { ids = append(ids, id); return true }); err != nil {
		return nil, err
	}
	tail, err := tx.finishedSinceProgress(goal)
	if err != nil {
		return nil, err
	}
	return tx.roundsByID(append(ids, tail...), nil)
}

// finishedSinceProgress walks goal's finished rounds from the last
// finished back to the last one that made progress (included), and
// returns their ids.
func (tx *Tx) finishedSinceProgress(goal string) ([]string, error) {
	prefix := "rix:fin:" + goal + ":"
	var ids []string
	var derr error
	err := tx.tx.DescendLessOrEqual("", prefix+"\xff", func(k, v string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		var id string
		if derr = json.Unmarshal([]byte(payloadOf(k, v)), &id); derr != nil {
			derr = fmt.Errorf("decoding %s: %w", k, derr)
			return false
		}
		var r records.Round
		if r, derr = tx.Round(id); derr != nil {
			return false
		}
		if r.Status != records.RoundFinished || keyRoundFinished(goal, r) != k {
			return true // a finish the round no longer has
		}
		ids = append(ids, id)
		return r.Outcome != records.OutcomeProgress
	})
	if err != nil && !errors.Is(err, buntdb.ErrNotFound) {
		return nil, err
	}
	return ids, derr
}

// Runners maps each runner recorded on goal's rounds to the agent of its
// last round of goal (store order), from the round index (every round of
// goal when the store has none).
func (tx *Tx) Runners(goal string) (map[string]string, error) {
	out := map[string]string{}
	if !tx.RoundsIndexed() {
		all, err := tx.Rounds(goal)
		for _, r := range all {
			if r.Runner != "" {
				out[r.Runner] = r.Agent
			}
		}
		return out, err
	}
	prefix := "rix:runner:" + goal + ":"
	var derr error
	err := tx.tx.AscendGreaterOrEqual("", prefix, func(k, v string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		var rr runnerRound
		if derr = json.Unmarshal([]byte(payloadOf(k, v)), &rr); derr != nil {
			derr = fmt.Errorf("decoding %s: %w", k, derr)
			return false
		}
		out[k[len(prefix):]] = rr.Agent
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, derr
}

// RunnerAgent returns the agent of runner's last round (store order, over
// every goal), ok false when no round records runner: who a round runner
// process acts as. It reads the round index (every round when the store
// has none).
func (tx *Tx) RunnerAgent(runner string) (agent string, ok bool, err error) {
	var last *records.Round
	if !tx.RoundsIndexed() {
		all, err := tx.Rounds("")
		for i, r := range all {
			if r.Runner == runner {
				last = &all[i]
			}
		}
		if last == nil {
			return "", false, err
		}
		return last.Agent, true, err
	}
	var goals []string
	err = tx.tx.AscendGreaterOrEqual("", "goal:", func(k, _ string) bool {
		if !strings.HasPrefix(k, "goal:") {
			return false
		}
		goals = append(goals, k[len("goal:"):])
		return true
	})
	if err != nil {
		return "", false, err
	}
	var lastRR *runnerRound
	for _, g := range goals {
		var rr runnerRound
		ok, err := tx.getJSON(keyRunnerRound(g, runner), &rr)
		if err != nil {
			return "", false, err
		}
		if ok && (lastRR == nil || lastRR.before(rr)) {
			lastRR = &rr
		}
	}
	if lastRR == nil {
		return "", false, nil
	}
	return lastRR.Agent, true, nil
}

// roundsDecoded counts the round records this process decoded
// (RoundsDecoded).
var roundsDecoded atomic.Uint64

// RoundsDecoded is how many round records this process has decoded from
// every store it opened: what tests read to show that an operation reads
// a bounded number of rounds, whatever the history.
func RoundsDecoded() uint64 { return roundsDecoded.Load() }
