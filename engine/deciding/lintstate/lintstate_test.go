package lintstate

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// fakeTx is an in-memory Tx; failOn names a method that fails.
type fakeTx struct {
	goals    map[string]records.GoalState
	todos    map[string][]records.Todo
	gates    map[string][]records.Gate
	evidence map[string][]records.Evidence // newest first
	agents   []records.Agent
	counts   map[string]records.GoalRecords
	failOn   string
}

var errTx = errors.New("tx failed")

func (f *fakeTx) fail(m string) error {
	if f.failOn == m {
		return errTx
	}
	return nil
}
func (f *fakeTx) Revision() uint64 { return 42 }
func (f *fakeTx) Goal(id string) (records.GoalState, error) {
	g, ok := f.goals[id]
	if !ok {
		g = records.GoalState{Status: records.GoalActive}
	}
	return g, f.fail("Goal")
}
func (f *fakeTx) Todos(goal string) ([]records.Todo, error) { return f.todos[goal], f.fail("Todos") }
func (f *fakeTx) Gates(goal string) ([]records.Gate, error) { return f.gates[goal], f.fail("Gates") }
func (f *fakeTx) EvidenceList(goal string, limit int) ([]records.Evidence, error) {
	return f.evidence[goal], f.fail("EvidenceList")
}
func (f *fakeTx) Agents() ([]records.Agent, error) { return f.agents, f.fail("Agents") }
func (f *fakeTx) GoalRecordCounts() (map[string]records.GoalRecords, error) {
	return f.counts, f.fail("GoalRecordCounts")
}

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func fake() *fakeTx {
	return &fakeTx{
		goals: map[string]records.GoalState{"g2": {Status: records.GoalPaused, Reason: "holiday"}},
		todos: map[string][]records.Todo{"g1": {
			{ID: "t1", Title: "live", Status: records.TodoClaimed, Lease: &records.Lease{Holder: "a1", ExpiresAt: now.Add(time.Minute)}},
			{ID: "t2", Title: "expired", Status: records.TodoClaimed, DependsOn: []string{"t1"}, Lease: &records.Lease{Holder: "a1", ExpiresAt: now.Add(-time.Minute)}},
			{ID: "t3", Title: "never claimed", Status: records.TodoOpen},
		}},
		gates: map[string][]records.Gate{"g1": {{ID: "gate-1", Question: "ok?", Status: records.GateOpen, RaisedAt: now}}},
		evidence: map[string][]records.Evidence{"g1": {
			{ID: "e3", Kind: "test", Summary: "newest", CreatedAt: now.Add(-time.Hour)},
			{ID: "e2", Kind: "lint", Summary: "lint", CreatedAt: now.Add(-2 * time.Hour)},
			{ID: "e1", Kind: "test", Summary: "older", CreatedAt: now.Add(-3 * time.Hour)},
		}},
		agents: []records.Agent{{ID: "a1", Host: "shell", Role: "executor"}},
		counts: map[string]records.GoalRecords{"g1": {Todos: 3, Gates: 1}, "ship-v1": {Todos: 2, Ledger: 5}, "old": {Gates: 1}},
	}
}

func TestRead(t *testing.T) {
	st, err := Read(fake(), []string{"g1", "g2"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if st.Revision != 42 || len(st.Goals) != 2 || st.Goals[1] != (Goal{ID: "g2", Status: records.GoalPaused, Reason: "holiday"}) {
		t.Fatalf("goals %+v", st.Goals)
	}
	for i, want := range []*Lease{
		{Holder: "a1", ExpiresAt: "2026-11-30T10:01:00Z", Live: true},
		{Holder: "a1", ExpiresAt: "2026-11-30T09:59:00Z"},
		nil,
	} {
		got := st.Todos[i].Lease
		if (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Fatalf("todo %d lease %+v, want %+v", i, got, want)
		}
	}
	if st.Todos[2].DependsOn == nil || st.Todos[2].Labels == nil || st.Gates[0].Answerers == nil {
		t.Fatal("a nil list would be JSON null")
	}
	if len(st.Evidence) != 2 || st.Evidence[0].ID != "e3" || st.Evidence[0].AgeSeconds != 3600 || st.Evidence[1].ID != "e2" {
		t.Fatalf("evidence %+v", st.Evidence)
	}
	if len(st.Agents) != 1 || st.Agents[0].Host != "shell" {
		t.Fatalf("agents %+v", st.Agents)
	}
	// The goals the spec left, by id; the spec's own goals are not listed.
	if want := []LeftGoal{{ID: "old", Gates: 1}, {ID: "ship-v1", Todos: 2, Ledger: 5}}; !reflect.DeepEqual(st.LeftSpec, want) {
		t.Fatalf("left spec %+v, want %+v", st.LeftSpec, want)
	}
}

func TestRead_Errors(t *testing.T) {
	for _, m := range []string{"Goal", "Todos", "Gates", "EvidenceList", "Agents", "GoalRecordCounts"} {
		f := fake()
		f.failOn = m
		if _, err := Read(f, []string{"g1"}, now); !errors.Is(err, errTx) {
			t.Errorf("%s failing: %v", m, err)
		}
	}
}

func TestEmpty(t *testing.T) {
	b, _ := json.Marshal(Empty([]string{"g1"}))
	if want := `{"revision":0,"goals":[{"id":"g1","status":"active"}],"todos":[],"gates":[],"evidence":[],"agents":[],"left_spec":[]}`; string(b) != want {
		t.Fatalf("%s\nwant %s", b, want)
	}
}
