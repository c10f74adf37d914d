package rulebook

import (
	"context"
	"sync"

	"github.com/open-policy-agent/opa/v1/rego"
)

// Prepared holds the queries of one engine prepared once each (in
// background goroutines too) and the first preparation error, which then
// fails every query: a project's policies compile or they do not. The
// zero value is empty.
type Prepared struct {
	mu    sync.Mutex
	slots map[string]*prepSlot
	err   error
}

// prepSlot is one query's preparation, done once.
type prepSlot struct {
	once sync.Once
	pq   *rego.PreparedEvalQuery
	err  error
}

// Compile prepares one query (the caller's compilation: modules, data).
type Compile func(ctx context.Context, query string) (*rego.PreparedEvalQuery, error)

// Get returns query prepared by compile, once; the first error of any
// query is every later query's.
func (p *Prepared) Get(ctx context.Context, query string, compile Compile) (*rego.PreparedEvalQuery, error) {
	p.mu.Lock()
	if p.err != nil {
		defer p.mu.Unlock()
		return nil, p.err
	}
	slot := p.slots[query]
	if slot == nil {
		if p.slots == nil {
			p.slots = map[string]*prepSlot{}
		}
		slot = &prepSlot{}
		p.slots[query] = slot
	}
	p.mu.Unlock()
	slot.once.Do(func() { slot.pq, slot.err = compile(ctx, query) })
	if slot.err != nil {
		p.mu.Lock()
		if p.err == nil {
			p.err = slot.err
		}
		p.mu.Unlock()
	}
	return slot.pq, slot.err
}

// All prepares queries in parallel (each on its own core when there are
// several) and waits.
func (p *Prepared) All(ctx context.Context, compile Compile, queries ...string) {
	var wg sync.WaitGroup
	for _, q := range queries[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = p.Get(ctx, q, compile)
		}()
	}
	_, _ = p.Get(ctx, queries[0], compile)
	wg.Wait()
}

// Has reports whether query was prepared (successfully or not), or an
// error fails every query.
func (p *Prepared) Has(query string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return true
	}
	slot := p.slots[query]
	return slot != nil && (slot.pq != nil || slot.err != nil)
}

// Err is the first preparation error, nil when none.
func (p *Prepared) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Reset forgets every preparation and the error (the rules in effect
// changed).
func (p *Prepared) Reset() {
	p.mu.Lock()
	p.slots, p.err = nil, nil
	p.mu.Unlock()
}

// Together prepares queries with one call of compileAll (their modules
// compiled once, one prepared query per name, in order), filling each slot
// not prepared yet from its result; an error is every such query's and the
// first error of all.
func (p *Prepared) Together(ctx context.Context, compileAll func(context.Context, []string) ([]*rego.PreparedEvalQuery, error), queries ...string) {
	var once sync.Once
	var pqs []*rego.PreparedEvalQuery
	var err error
	for i, q := range queries {
		p.mu.Lock()
		if p.slots == nil {
			p.slots = map[string]*prepSlot{}
		}
		slot := p.slots[q]
		if slot == nil {
			slot = &prepSlot{}
			p.slots[q] = slot
		}
		p.mu.Unlock()
		slot.once.Do(func() {
			once.Do(func() { pqs, err = compileAll(ctx, queries) })
			if err != nil {
				slot.err = err
			} else {
				slot.pq = pqs[i]
			}
		})
		if slot.err != nil {
			p.mu.Lock()
			if p.err == nil {
				p.err = slot.err
			}
			p.mu.Unlock()
		}
	}
}
