package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Goal returns the goal's runtime state; a goal never written is active
// (goals are declared in the spec, the store only keeps their status).
func (tx *Tx) Goal(id string) (records.GoalState, error) {
	g := records.GoalState{ID: id, Status: records.GoalActive}
	_, err := tx.getJSON(keyGoal(id), &g)
	return g, err
}

// SetGoalStatus sets a goal's runtime status with a reason, and audits it.
func (tx *Tx) SetGoalStatus(id, status, reason, actor string) error {
	g, err := tx.Goal(id)
	if err != nil {
		return err
	}
	old := g.Status
	g.Status, g.Reason = status, reason
	if err := tx.putJSON(keyGoal(id), g); err != nil {
		return err
	}
	tx.touch(id)
	kind := "goal." + status
	if status == records.GoalActive {
		kind = "goal.resumed"
	}
	return tx.AppendEvent(records.Event{Kind: kind, Goal: id, Actor: actor, Subject: id,
		Message: reason, Data: map[string]any{"from": old, "to": status}})
}

// AddTodo stores a new todo, assigning ID ("t-xxxx"), CreatedAt and
// status open unless set, and audits it. It returns the stored todo.
func (tx *Tx) AddTodo(t records.Todo) (records.Todo, error) {
	id, err := tx.newID("t-")
	if err != nil {
		return t, err
	}
	seq, err := tx.nextSeq()
	if err != nil {
		return t, err
	}
	t.ID, t.Seq = id, seq
	if t.Kind == "" {
		t.Kind = records.KindTask
	}
	if t.Status == "" {
		t.Status = records.TodoOpen
	}
	t.CreatedAt, t.UpdatedAt = tx.now, tx.now
	if err := tx.setRef(id, keyTodo(t.Goal, id)); err != nil {
		return t, err
	}
	if err := tx.putJSON(keyTodo(t.Goal, id), t); err != nil {
		return t, err
	}
	if err := tx.indexTodo(nil, t); err != nil {
		return t, err
	}
	tx.touch(t.Goal)
	return t, tx.AppendEvent(records.Event{Kind: "todo.added", Goal: t.Goal, Actor: t.CreatedBy, Subject: id, Message: t.Title})
}

// Todo returns the todo with this id, or an error wrapping ErrNotFound.
func (tx *Tx) Todo(id string) (records.Todo, error) {
	var t records.Todo
	k, err := tx.refKey(id, "todo")
	if err != nil {
		return t, err
	}
	todosDecoded.Add(1)
	_, err = tx.getJSON(k, &t)
	return t, err
}

// PutTodo stores a changed todo (UpdatedAt set to now). It does not audit:
// callers append the event that says what changed.
func (tx *Tx) PutTodo(t records.Todo) error {
	t.UpdatedAt = tx.now
	tx.touch(t.Goal)
	var old *records.Todo
	if raw, err := tx.get(keyTodo(t.Goal, t.ID)); err == nil {
		var was records.Todo
		if err := decodeTodo(raw, &was); err != nil {
			return fmt.Errorf("decoding %s: %w", keyTodo(t.Goal, t.ID), err)
		}
		old = &was
	} else if !errors.Is(err, buntdb.ErrNotFound) {
		return err
	}
	if err := tx.putJSON(keyTodo(t.Goal, t.ID), t); err != nil {
		return err
	}
	return tx.indexTodo(old, t)
}

// Todos returns the goal's todos ordered by priority, then age, then
// insertion order.
func (tx *Tx) Todos(goal string) ([]records.Todo, error) { return tx.TodosLater(goal)() }

// TodosLater reads goal's todo records now and decodes them when the
// function it returns is called (with Todos' result and errors): a caller
// that holds the state lock only to read the records (the read model's
// refresh) decodes them after letting go of it.
func (tx *Tx) TodosLater(goal string) func() ([]records.Todo, error) {
	later := tx.TodoRecordsLater(goal)
	return func() ([]records.Todo, error) {
		todos, _, err := later()
		return todos, err
	}
}

// TodoRecordsLater is TodosLater, and the function it returns gives each
// todo's record as stored (its JSON, which the chain checked when the
// store was opened) beside it, in the same order: the read model writes
// the records as they are instead of encoding every todo again.
func (tx *Tx) TodoRecordsLater(goal string) func() ([]records.Todo, []string, error) {
	prefix := "todo:" + goal + ":"
	var raw [][2]string
	err := tx.tx.AscendGreaterOrEqual("", prefix, func(k, v string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		raw = append(raw, [2]string{k, v})
		return true
	})
	return func() ([]records.Todo, []string, error) {
		if err != nil {
			return nil, nil, err
		}
		// Decoded in place (a todo decoded apart escapes to the heap
		// and is copied once more).
		out := make([]records.Todo, len(raw))
		payloads := make([]string, len(raw))
		for i, kv := range raw {
			payloads[i] = payloadOf(kv[0], kv[1])
			if err := decodeTodo(payloads[i], &out[i]); err != nil {
				return out[:i], nil, fmt.Errorf("decoding %s: %w", kv[0], err)
			}
		}
		sortTodosWith(out, payloads)
		return out, payloads, nil
	}
}

// sortTodosWith sorts todos as sortTodos does, and payloads (one per
// todo) with them: the places of the todos are sorted, then both are
// permuted in place, each record moved once.
func sortTodosWith(todos []records.Todo, payloads []string) {
	perm := make([]int, len(todos))
	for i := range perm {
		perm[i] = i
	}
	sort.Slice(perm, func(i, j int) bool { return todoLess(&todos[perm[i]], &todos[perm[j]]) })
	// perm[i] is the place of the todo that goes to i: follow each cycle.
	for start := range perm {
		if perm[start] == start {
			continue
		}
		t, p := todos[start], payloads[start]
		j := start
		for {
			k := perm[j]
			perm[j] = j
			if k == start {
				todos[j], payloads[j] = t, p
				break
			}
			todos[j], payloads[j] = todos[k], payloads[k]
			j = k
		}
	}
}

// decodeTodo decodes a todo record's JSON into t with goccy/go-json, a
// drop-in for encoding/json about five times faster on these records:
// listing a goal's todos (every write's read model refresh, round start
// under the lock) decodes every one. The records are loopx's own, written
// by encoding/json and checked by the chain; TestDecodeTodo_AsEncodingJSON
// holds the two decoders to the same result.
func decodeTodo(payload string, t *records.Todo) error {
	todosDecoded.Add(1)
	return gojson.Unmarshal([]byte(payload), t)
}

// sortTodos orders todos as Todos returns them: priority, creation
// instant, sequence, id.
func sortTodos(out []records.Todo) {
	// The order is total (ids are unique): an unstable sort gives the
	// same result, and comparing in place copies no record.
	sort.Slice(out, func(i, j int) bool { return todoLess(&out[i], &out[j]) })
}

// todoLess orders todos as Todos returns them: priority, creation
// instant, sequence, id.
func todoLess(a, b *records.Todo) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	if a.Seq != b.Seq {
		return a.Seq < b.Seq
	}
	return a.ID < b.ID
}

// AddGate stores a new gate instance. An empty ID gets "g-xxxx"; a spec
// gate passes its own stable id ("<goal>/<name>"). Status defaults to open.
func (tx *Tx) AddGate(g records.Gate) (records.Gate, error) {
	if g.ID == "" {
		id, err := tx.newID("g-")
		if err != nil {
			return g, err
		}
		g.ID = id
	}
	if g.Status == "" {
		g.Status = records.GateOpen
	}
	seq, err := tx.nextSeq()
	if err != nil {
		return g, err
	}
	g.Seq = seq
	if g.RaisedAt.IsZero() {
		g.RaisedAt = tx.now
	}
	if err := tx.setRef(g.ID, keyGate(g.Goal, g.ID)); err != nil {
		return g, err
	}
	if err := tx.putJSON(keyGate(g.Goal, g.ID), g); err != nil {
		return g, err
	}
	tx.touch(g.Goal)
	return g, tx.AppendEvent(records.Event{Kind: "gate.raised", Goal: g.Goal, Actor: g.RaisedBy, Subject: g.ID,
		Message: g.Question, Data: map[string]any{"scope": g.ScopeKind, "reason": g.Reason}})
}

// Gate returns the gate with this id, or an error wrapping ErrNotFound.
func (tx *Tx) Gate(id string) (records.Gate, error) {
	var g records.Gate
	k, err := tx.refKey(id, "gate")
	if err != nil {
		return g, err
	}
	_, err = tx.getJSON(k, &g)
	return g, err
}

// PutGate stores a changed gate (no audit; the caller appends the event).
func (tx *Tx) PutGate(g records.Gate) error {
	tx.touch(g.Goal)
	return tx.putJSON(keyGate(g.Goal, g.ID), g)
}

// Gates returns the goal's gates, oldest first.
func (tx *Tx) Gates(goal string) ([]records.Gate, error) {
	var out []records.Gate
	err := scan(tx, "gate:"+goal+":", func(g records.Gate) bool { out = append(out, g); return true })
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].RaisedAt.Equal(out[j].RaisedAt) {
			return out[i].RaisedAt.Before(out[j].RaisedAt)
		}
		return out[i].Seq < out[j].Seq
	})
	return out, err
}

// AddEvidence stores evidence ("e-xxxx"), stamped now, and audits it.
// Evidence is the most numerous record and is read by goal, never by id, so
// it gets no ref: key (the store stays small and opens fast).
func (tx *Tx) AddEvidence(e records.Evidence) (records.Evidence, error) {
	id, err := tx.newIDKeyed("e-", func(id string) string { return keyEvidence(e.Goal, id) })
	if err != nil {
		return e, err
	}
	seq, err := tx.nextSeq()
	if err != nil {
		return e, err
	}
	e.ID, e.Seq, e.CreatedAt = id, seq, tx.now
	n, err := tx.EvidenceCount(e.Goal)
	if err != nil {
		return e, err
	}
	if err := tx.set(keyEvidenceCount(e.Goal), strconv.Itoa(n+1)); err != nil {
		return e, err
	}
	if err := tx.putJSON(keyEvidence(e.Goal, id), e); err != nil {
		return e, err
	}
	tx.touch(e.Goal)
	return e, tx.AppendEvent(records.Event{Kind: "evidence.added", Goal: e.Goal, Actor: e.By, Subject: id,
		Message: e.Summary, Data: map[string]any{"kind": e.Kind, "status": e.Status}})
}

// EvidenceList returns the goal's evidence, newest first; limit 0 = all.
func (tx *Tx) EvidenceList(goal string, limit int) ([]records.Evidence, error) {
	var out []records.Evidence
	err := scan(tx, "ev:"+goal+":", func(e records.Evidence) bool { out = append(out, e); return true })
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].Seq > out[j].Seq
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, err
}

// AddRound stores a new open round ("r-xxxx") started now.
func (tx *Tx) AddRound(r records.Round) (records.Round, error) {
	id, err := tx.newID("r-")
	if err != nil {
		return r, err
	}
	seq, err := tx.nextSeq()
	if err != nil {
		return r, err
	}
	r.ID, r.Seq, r.StartedAt, r.Status = id, seq, tx.now, records.RoundOpen
	if err := tx.setRef(id, keyRound(r.Goal, id)); err != nil {
		return r, err
	}
	if err := tx.putJSON(keyRound(r.Goal, id), r); err != nil {
		return r, err
	}
	if err := tx.indexRound(nil, r); err != nil {
		return r, err
	}
	tx.touch(r.Goal)
	return r, tx.AppendEvent(records.Event{Kind: "round.started", Goal: r.Goal, Actor: r.Agent, Subject: id,
		Data: map[string]any{"todo": r.Todo, "decision_id": r.DecisionID}})
}

// Round returns the round with this id, or an error wrapping ErrNotFound.
func (tx *Tx) Round(id string) (records.Round, error) {
	var r records.Round
	k, err := tx.refKey(id, "round")
	if err != nil {
		return r, err
	}
	roundsDecoded.Add(1)
	_, err = tx.getJSON(k, &r)
	return r, err
}

// PutRound stores a changed round (no audit; the caller appends the
// event) and keeps the round index.
func (tx *Tx) PutRound(r records.Round) error {
	tx.touch(r.Goal)
	var old records.Round
	had, err := tx.getJSON(keyRound(r.Goal, r.ID), &old)
	if err != nil {
		return err
	}
	if err := tx.putJSON(keyRound(r.Goal, r.ID), r); err != nil {
		return err
	}
	if !had {
		return tx.indexRound(nil, r)
	}
	return tx.indexRound(&old, r)
}

// Rounds returns every round of the goal ("" = all goals), oldest first.
func (tx *Tx) Rounds(goal string) ([]records.Round, error) {
	var out []records.Round
	prefix := "round:"
	if goal != "" {
		prefix += goal + ":"
	}
	err := scan(tx, prefix, func(r records.Round) bool { out = append(out, r); return true })
	roundsDecoded.Add(uint64(len(out)))
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].StartedAt.Equal(out[j].StartedAt) {
			return out[i].StartedAt.Before(out[j].StartedAt)
		}
		return out[i].Seq < out[j].Seq
	})
	return out, err
}

// AppendLedger appends a charge or refund (Seq and At assigned).
func (tx *Tx) AppendLedger(e records.LedgerEntry) (records.LedgerEntry, error) {
	seq, err := tx.nextSeq()
	if err != nil {
		return e, err
	}
	e.Seq, e.At = seq, tx.now
	tx.touch(e.Goal)
	if err := tx.putJSON(keyLedger(e.Goal, seq), e); err != nil {
		return e, err
	}
	return e, tx.indexLedger(e)
}

// Ledger returns the goal's whole ledger in order (never a window: every
// decision reads the same history).
func (tx *Tx) Ledger(goal string) ([]records.LedgerEntry, error) {
	var out []records.LedgerEntry
	err := scan(tx, "ledger:"+goal+":", func(e records.LedgerEntry) bool { out = append(out, e); return true })
	return out, err
}

// AddHandoff stores a handoff ("h-xxxx") and audits it.
func (tx *Tx) AddHandoff(h records.Handoff) (records.Handoff, error) {
	seq, err := tx.nextSeq()
	if err != nil {
		return h, err
	}
	id, err := tx.newID("h-")
	if err != nil {
		return h, err
	}
	h.ID, h.CreatedAt = id, tx.now
	if err := tx.setRef(id, keyHandoff(h.Goal, seq)); err != nil {
		return h, err
	}
	if err := tx.putJSON(keyHandoff(h.Goal, seq), h); err != nil {
		return h, err
	}
	tx.touch(h.Goal)
	return h, tx.AppendEvent(records.Event{Kind: "handoff.added", Goal: h.Goal, Actor: h.Agent, Subject: id, Message: h.Summary})
}

// Handoffs returns the goal's handoffs, oldest first.
func (tx *Tx) Handoffs(goal string) ([]records.Handoff, error) {
	var out []records.Handoff
	err := scan(tx, "handoff:"+goal+":", func(h records.Handoff) bool { out = append(out, h); return true })
	return out, err
}

// Agent returns a registered agent, or an error wrapping ErrNotFound.
func (tx *Tx) Agent(id string) (records.Agent, error) {
	var a records.Agent
	ok, err := tx.getJSON(keyAgent(id), &a)
	if err == nil && !ok {
		err = NotFound("agent", id)
	}
	return a, err
}

// PutAgent stores an agent registration.
func (tx *Tx) PutAgent(a records.Agent) error { return tx.putJSON(keyAgent(a.ID), a) }

// Agents returns every registered agent, by id.
func (tx *Tx) Agents() ([]records.Agent, error) {
	var out []records.Agent
	err := scan(tx, "agent:", func(a records.Agent) bool { out = append(out, a); return true })
	return out, err
}

// AppendEvent appends to the audit log (Seq and At assigned): the event
// goes to the event log (EventsFile) when the transaction commits, in the
// same journaled commit as its other writes. Events do not count as a
// change of the goal's state.
func (tx *Tx) AppendEvent(e records.Event) error {
	if !tx.writable {
		return errors.New("kernel: write in a read-only transaction")
	}
	seq, err := tx.nextSeq()
	if err != nil {
		return err
	}
	e.Seq, e.At = seq, tx.now
	tx.events = append(tx.events, e)
	tx.wrote = true
	return nil
}

// Since is a convenience for filters: whether t is at or after now-d.
func Since(t, now time.Time, d time.Duration) bool { return !t.Before(now.Add(-d)) }

func keyEvidenceCount(g string) string { return "count:ev:" + g }

// EvidenceCount counts the goal's evidence: from the counter AddEvidence
// keeps, or, for a store written before the counter existed, by scanning
// the keys without decoding them.
func (tx *Tx) EvidenceCount(goal string) (int, error) {
	if n, err := tx.counter(keyEvidenceCount(goal)); err != nil || n > 0 {
		return int(n), err
	}
	return tx.scanEvidenceCount(goal)
}

// LatestHandoff returns the goal's newest handoff without decoding the
// others (handoff keys sort by sequence).
func (tx *Tx) LatestHandoff(goal string) (records.Handoff, bool, error) {
	var h records.Handoff
	found := false
	prefix := "handoff:" + goal + ":"
	var derr error
	err := tx.tx.DescendLessOrEqual("", prefix+"\xff", func(k, v string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		found = true
		derr = json.Unmarshal([]byte(payloadOf(k, v)), &h)
		return false
	})
	if err == nil {
		err = derr
	}
	return h, found, err
}

func (tx *Tx) scanEvidenceCount(goal string) (int, error) {
	prefix := "ev:" + goal + ":"
	n := 0
	err := tx.tx.AscendGreaterOrEqual("", prefix, func(k, _ string) bool {
		if len(k) < len(prefix) || k[:len(prefix)] != prefix {
			return false
		}
		n++
		return true
	})
	return n, err
}

const keyProject = "meta:project"

// Project returns the project record (the zero Project when none was written).
func (tx *Tx) Project() (records.Project, error) {
	var p records.Project
	_, err := tx.getJSON(keyProject, &p)
	return p, err
}

// PutProject writes the project record.
func (tx *Tx) PutProject(p records.Project) error { return tx.putJSON(keyProject, p) }
