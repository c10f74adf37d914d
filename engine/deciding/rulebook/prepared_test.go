package rulebook

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
)

func TestPrepared(t *testing.T) {
	var calls atomic.Int32
	ok := func(ctx context.Context, q string) (*rego.PreparedEvalQuery, error) {
		calls.Add(1)
		pq, err := rego.New(rego.Query("x := 1")).PrepareForEval(ctx)
		return &pq, err
	}
	var p Prepared
	ctx := context.Background()
	if p.Has("a") {
		t.Fatal("nothing prepared yet")
	}
	p.All(ctx, ok, "a", "b", "a")
	if _, err := p.Get(ctx, "a", ok); err != nil || calls.Load() != 2 || !p.Has("a") || !p.Has("b") || p.Err() != nil {
		t.Fatalf("calls %d err %v", calls.Load(), err)
	}
	bad := errors.New("does not compile")
	if _, err := p.Get(ctx, "c", func(context.Context, string) (*rego.PreparedEvalQuery, error) { return nil, bad }); err != bad {
		t.Fatal(err)
	}
	if _, err := p.Get(ctx, "a", ok); err != bad || p.Err() != bad || !p.Has("z") {
		t.Fatalf("the first error is every query's: %v", err)
	}
	p.Reset()
	if p.Err() != nil || p.Has("a") {
		t.Fatal("reset keeps something")
	}
	if _, err := p.Get(ctx, "a", ok); err != nil || calls.Load() != 3 {
		t.Fatalf("after reset: %d %v", calls.Load(), err)
	}
}
