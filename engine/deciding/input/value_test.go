package input

import (
	"encoding/json"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"
)

// TestInputValue_SameAsOPAsConversion: the direct conversion gives exactly
// the value OPA builds from the JSON round trip (field names, nulls, empty
// lists, numbers), so a field added to TodoFacts cannot be forgotten.
func TestInputValue_SameAsOPAsConversion(t *testing.T) {
	in := Input{Query: "should_run", Now: "2026-11-29T10:00:00Z", Goal: "g1", Agent: "a1",
		State: Snapshot{Revision: 7, Gates: []GateFacts{}, Todos: []TodoFacts{
			{ID: "t-1", Title: "a \"quoted\" title", Kind: "task", Status: "open", Priority: 2, CreatedAt: "2026-11-29T09:00:00.000000000Z",
				DepsOpen: []string{}, Labels: []string{"review", "for:a2"}},
			{ID: "t-2", Title: "monitor", Kind: "monitor", Status: "claimed", Priority: 0, DepsOpen: []string{"t-1"}, Labels: []string{},
				Lease: &LeaseFacts{Holder: "a1", ExpiresAt: "2026-11-29T11:00:00Z", Live: true, Version: 3, Epoch: 2},
				Due:   true, NextDueAt: "2026-11-29T10:00:00Z", ScopeConflict: "t-9"},
		}}}
	b, _ := json.Marshal(in)
	var doc any
	if err := util.UnmarshalJSON(b, &doc); err != nil {
		t.Fatal(err)
	}
	want, err := ast.InterfaceToValue(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Value(in)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compare(want) != 0 {
		t.Fatalf("direct conversion differs:\n got %v\nwant %v", got, want)
	}
}
