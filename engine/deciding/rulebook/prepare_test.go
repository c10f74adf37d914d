package rulebook

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/policies"
	"github.com/open-policy-agent/opa/v1/rego"
)

// TestPrepare_BuiltIn: every query's entry rule prepares over the
// built-in bundle alone, with or without a spec; a spec that is not JSON
// is an error.
func TestPrepare_BuiltIn(t *testing.T) {
	var s *Schemas // the built-in bundle alone needs no schemas
	for _, qq := range query.All {
		q, ref := qq.Name, qq.Entry
		for _, tc := range []struct {
			name string
			spec []byte
			bad  bool
		}{{"no spec", nil, false}, {"spec", []byte(`{"project": {"name": "p"}, "goals": {}}`), false}, {"spec not JSON", []byte(`{`), true}} {
			pq, err := s.Prepare(context.Background(), ref, tc.spec, nil)
			if (err != nil) != tc.bad || (err == nil && pq == nil) {
				t.Errorf("%s, %s: %v", q, tc.name, err)
			}
		}
	}
}

// TestQueries_AreEntrypoints: every query's entry rule is an entry rule
// of the built-in bundle (annotated entrypoint: true), so that preparing
// it compiles the modules it reaches.
func TestQueries_AreEntrypoints(t *testing.T) {
	for _, q := range query.All {
		if !slices.Contains(policies.Entrypoints(), q.Entry) {
			t.Errorf("query %s: its rule %s is not annotated entrypoint: true", q.Name, q.Entry)
		}
	}
}

// TestPrepareAll_SameAsOneByOne: should_run's and claim's entry rules
// prepared on one compiler answer as each prepared alone, in refs' order.
func TestPrepareAll_SameAsOneByOne(t *testing.T) {
	var s *Schemas
	ctx := context.Background()
	spec := []byte(`{"project": {"name": "p"}, "goals": {}}`)
	refs := []string{query.ShouldRun.Entry, query.Claim.Entry}
	all, err := s.PrepareAll(ctx, refs, spec, nil)
	if err != nil || len(all) != 2 {
		t.Fatalf("PrepareAll: %d, %v", len(all), err)
	}
	in := map[string]any{"query": "should_run", "goal": "g1", "agent": "a1", "now": "2026-11-29T10:00:00Z"}
	for i, ref := range refs {
		one, err := s.Prepare(ctx, ref, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := all[i].Eval(ctx, rego.EvalInput(in))
		if err != nil {
			t.Fatal(err)
		}
		want, err := one.Eval(ctx, rego.EvalInput(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: on one compiler %v, alone %v", ref, got, want)
		}
	}
}

// TestWarm_TakenOnceByTheSameRules: a compile Warm started is taken by the
// first PrepareAll of the same entry rules without user modules, and
// answers as a query compiled there; other rules, and later calls, compile
// their own.
func TestWarm_TakenOnceByTheSameRules(t *testing.T) {
	var s *Schemas
	ctx := context.Background()
	spec := []byte(`{"project": {"name": "p"}, "goals": {"g1": {"agents": ["a1"]}}}`)
	in := map[string]any{"query": "should_run", "goal": "g1", "agent": "a1", "now": "2026-11-29T10:00:00Z",
		"health": map[string]any{"store": "", "spec": "", "policy": ""},
		"state":  map[string]any{"goal": map[string]any{"id": "g1", "in_spec": true, "status": "active"}, "agent": map[string]any{"id": "a1", "known": true}, "todos": []any{}, "gates": []any{}}}
	Warm(query.ShouldRun.Entry)
	if c := takeWarm([]string{query.Claim.Entry}); c != nil {
		t.Fatal("another rule's query took the warm compile")
	}
	warmed, err := s.Prepare(ctx, query.ShouldRun.Entry, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := takeWarm([]string{query.ShouldRun.Entry}); c != nil {
		t.Fatal("the warm compile was taken twice")
	}
	cold, err := s.Prepare(ctx, query.ShouldRun.Entry, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := warmed.Eval(ctx, rego.EvalInput(in))
	if err != nil {
		t.Fatal(err)
	}
	want, err := cold.Eval(ctx, rego.EvalInput(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("warm %v, cold %v", got, want)
	}
}

// TestPrepare_UnknownEntryRule: a rule the bundle does not annotate as an
// entry rule is an error naming it, never a query over too few modules.
func TestPrepare_UnknownEntryRule(t *testing.T) {
	var s *Schemas
	_, err := s.Prepare(context.Background(), "data.loopx.gate.identity", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "data.loopx.gate.identity is no entry rule") {
		t.Fatalf("err = %v", err)
	}
}
