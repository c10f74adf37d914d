package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

const claimSpec = `agents: {
	a1: {host: "shell"}
	a2: {host: "shell"}
	a3: {host: "shell"}
	rv: {host: "claude-code", role: "reviewer"}
	mon: {host: "shell", mode: "monitor_only"}
}
goals: g1: {
	objective: "Test claims and leases"
	quota: {window: "24h", rounds: 50, min_interval: "0s"}
}
goals: g2: {
	objective: "Another goal in the same work tree"
	agents: ["a1", "a2"]
}
`

// errCode is the code of a refusal (errs.No) or a usage error, "" for nil.
func errCode(err error) string {
	var re *errs.Error
	var ue *errs.Error
	switch {
	case err == nil:
		return ""
	case errs.IsKind(err, errs.No) && errors.As(err, &re):
		return re.Code
	case errs.IsKind(err, errs.Usage) && errors.As(err, &ue):
		return "usage:" + ue.Code
	}
	return "other:" + err.Error()
}

// TestLease_Lifecycle walks one todo through every lease operation with a
// settable clock; each step says what it must return, and a refused step
// must leave the todo byte-for-byte unchanged.
func TestLease_Lifecycle(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, claimSpec)
	todo := addTodos(t, e, "the todo")[0].ID
	type step struct {
		name    string
		advance time.Duration
		op      func() (lease.Result, error)
		code    string // "" = success
		holder  string
		version uint64
		epoch   uint64
		replay  bool
	}
	claimK := func(agent, key string, ttl time.Duration) func() (lease.Result, error) {
		return func() (lease.Result, error) {
			return e.ClaimTodo(lease.ClaimRequest{Todo: todo, Agent: agent, TTL: ttl, IdempotencyKey: key})
		}
	}
	lease := func(f func(lease.Request) (lease.Result, error), agent string, v uint64, to string) func() (lease.Result, error) {
		return func() (lease.Result, error) {
			return f(lease.Request{Todo: todo, Agent: agent, ExpectedVersion: v, To: to})
		}
	}
	steps := []step{
		{name: "acquire", op: claimK("a1", "k1", 10*time.Minute), holder: "a1", version: 1, epoch: 1},
		{name: "idempotent replay", advance: time.Minute, op: claimK("a1", "k1", 10*time.Minute), holder: "a1", version: 1, epoch: 1, replay: true},
		{name: "key reuse by another agent", op: claimK("a2", "k1", 0), code: "usage:idempotency_key_reused"},
		{name: "another agent without key", op: claimK("a2", "", 0), code: "already_claimed"},
		{name: "renew without version", op: lease(e.RenewLease, "a1", 0, ""), code: "usage:missing_expected_version"},
		{name: "renew with a wrong version", op: lease(e.RenewLease, "a1", 7, ""), code: "version_mismatch"},
		{name: "renew by a non-holder", op: lease(e.RenewLease, "a2", 1, ""), code: "lease_lost"},
		{name: "renew", op: lease(e.RenewLease, "a1", 1, ""), holder: "a1", version: 2, epoch: 1},
		{name: "transfer with a stale version", op: lease(e.TransferLease, "a1", 1, "a2"), code: "version_mismatch"},
		{name: "transfer to a reviewer", op: lease(e.TransferLease, "a1", 2, "rv"), code: "role_mismatch"},
		{name: "transfer", op: lease(e.TransferLease, "a1", 2, "a2"), holder: "a2", version: 3, epoch: 2},
		{name: "old holder renews", op: lease(e.RenewLease, "a1", 3, ""), code: "lease_lost"},
		{name: "release", op: lease(e.ReleaseLease, "a2", 3, ""), holder: "a2", version: 4, epoch: 2},
		{name: "replayed release", op: lease(e.ReleaseLease, "a2", 3, ""), holder: "a2", version: 4, epoch: 2, replay: true},
		{name: "renew after release", op: lease(e.RenewLease, "a2", 4, ""), code: "lease_lost"},
		{name: "claim after release", op: claimK("a3", "k3", time.Minute), holder: "a3", version: 5, epoch: 3},
		{name: "claim before expiry", advance: 59 * time.Second, op: claimK("a1", "", 0), code: "already_claimed"},
		{name: "renew after expiry", advance: time.Second, op: lease(e.RenewLease, "a3", 5, ""), code: "lease_lost"},
		{name: "replay after expiry", op: claimK("a3", "k3", time.Minute), code: "idempotency_key_spent"},
		{name: "re-acquire after expiry", op: claimK("a1", "", 0), holder: "a1", version: 6, epoch: 4},
		{name: "claim of own lease", op: claimK("a1", "", 0), holder: "a1", version: 6, epoch: 4, replay: true},
		{name: "ttl too long", op: claimK("a1", "", 25*time.Hour), code: "usage:bad_ttl"},
		{name: "ttl too short", op: claimK("a1", "", 500*time.Millisecond), code: "usage:bad_ttl"},
	}
	for _, s := range steps {
		c.Advance(s.advance)
		before, _ := e.Todo(todo)
		res, err := s.op()
		if got := errCode(err); got != s.code {
			t.Fatalf("%s: err %v (code %q), want %q", s.name, err, got, s.code)
		}
		after, _ := e.Todo(todo)
		if s.code != "" {
			if !sameTodo(before, after) {
				t.Fatalf("%s: a refusal changed the todo:\n%+v\n%+v", s.name, before.Lease, after.Lease)
			}
			continue
		}
		l := res.Lease
		if l.Holder != s.holder || l.Version != s.version || l.Epoch != s.epoch || res.Replayed != s.replay {
			t.Fatalf("%s: lease %+v replayed %v, want holder %s v%d e%d replayed %v", s.name, l, res.Replayed, s.holder, s.version, s.epoch, s.replay)
		}
		if after.Lease == nil || *after.Lease != l {
			t.Fatalf("%s: stored lease %+v, returned %+v", s.name, after.Lease, l)
		}
		if s.replay && !sameTodo(before, after) {
			t.Fatalf("%s: a replay changed the todo", s.name)
		}
	}
	// Every lease change is audited; refusals are not.
	evs, err := e.Events(reportdata.EventFilter{Kind: "todo."})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, ev := range evs {
		kinds[ev.Kind]++
	}
	want := map[string]int{"todo.added": 1, "todo.claimed": 3, "todo.lease_renewed": 1, "todo.transferred": 1, "todo.released": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s events, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
}

func sameTodo(a, b records.Todo) bool {
	if a.Status != b.Status || !a.UpdatedAt.Equal(b.UpdatedAt) || (a.Lease == nil) != (b.Lease == nil) {
		return false
	}
	return a.Lease == nil || *a.Lease == *b.Lease
}

func TestClaim_Refusals(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, claimSpec)
	add := func(in todos.Input) records.Todo {
		t.Helper()
		if in.Goal == "" {
			in.Goal = "g1"
		}
		td, err := e.AddTodo(in)
		if err != nil {
			t.Fatal(err)
		}
		return td
	}
	first := add(todos.Input{Title: "first"})
	dep := add(todos.Input{Title: "after first", DependsOn: []string{first.ID}})
	done := add(todos.Input{Title: "done already"})
	if _, err := e.SetTodoStatus(done.ID, records.TodoDone, "shipped", "human"); err != nil {
		t.Fatal(err)
	}
	blocked := add(todos.Input{Title: "blocked"})
	if _, err := e.SetTodoStatus(blocked.ID, records.TodoBlocked, "waiting on legal", "human"); err != nil {
		t.Fatal(err)
	}
	action := add(todos.Input{Title: "call the customer", Kind: records.KindAction})
	review := add(todos.Input{Title: "review the guide", Labels: []string{"review"}})
	handed := add(todos.Input{Title: "for a2", Labels: []string{"for:a2"}})
	docs := add(todos.Input{Title: "all docs", Scope: []string{"docs/**"}})
	guide := add(todos.Input{Title: "the guide", Scope: []string{"docs/guide.md"}})
	other := add(todos.Input{Goal: "g2", Title: "api in g2", Scope: []string{"api/*.go"}})
	api := add(todos.Input{Title: "api handlers", Scope: []string{"api/handlers.go"}})
	gated := add(todos.Input{Title: "gated"})
	if _, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "May the gated todo touch production now?", BlocksTodo: gated.ID, By: "human"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ todo, agent string }{{docs.ID, "a1"}, {other.ID, "a2"}} {
		if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: s.todo, Agent: s.agent}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, todo, agent, code string
	}{
		{"unknown todo", "t-0000", "a1", "usage:unknown_todo"},
		{"unknown agent", first.ID, "zz", "usage:unknown_agent"},
		{"dependency open", dep.ID, "a1", "depends_on_open"},
		{"done", done.ID, "a1", "todo_done"},
		{"blocked", blocked.ID, "a1", "todo_blocked"},
		{"human work", action.ID, "a1", "not_agent_work"},
		{"review todo, executor", review.ID, "a1", "role_mismatch"},
		{"plain todo, reviewer", first.ID, "rv", "role_mismatch"},
		{"task, monitor_only agent", first.ID, "mon", "monitor_only"},
		{"handed to another", handed.ID, "a1", "for_other_agent"},
		{"agent not on goal", other.ID, "a3", "agent_not_on_goal"},
		{"scope inside a held scope", guide.ID, "a2", "scope_conflict"},
		{"scope held in another goal", api.ID, "a1", "scope_conflict"},
		{"gated todo", gated.ID, "a1", "gate_violation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := e.Store()
			if err != nil {
				t.Fatal(err)
			}
			rev, _ := s.Revision()
			_, err = e.ClaimTodo(lease.ClaimRequest{Todo: c.todo, Agent: c.agent})
			if got := errCode(err); got != c.code {
				t.Fatalf("err %v (code %q), want %q", err, got, c.code)
			}
			if rev2, _ := s.Revision(); rev2 != rev && c.code != "gate_violation" {
				t.Fatalf("a refused claim changed the store: revision %d → %d", rev, rev2)
			}
		})
	}
	// What fits is claimable: the same holder may hold overlapping scopes,
	// reviewers take review todos, the named agent takes its handoff.
	for _, s := range []struct{ todo, agent string }{{guide.ID, "a1"}, {review.ID, "rv"}, {handed.ID, "a2"}, {first.ID, "a3"}} {
		if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: s.todo, Agent: s.agent}); err != nil {
			t.Errorf("claim %s by %s: %v", s.todo, s.agent, err)
		}
	}
	var re *errs.Error
	_, err := e.ClaimTodo(lease.ClaimRequest{Todo: docs.ID, Agent: "a2"})
	if !(errs.IsKind(err, errs.No) && errors.As(err, &re)) || re.Data.(map[string]any)["holder"] != "a1" || re.Data.(map[string]any)["expires_at"] != "2026-11-29T10:45:00Z" {
		t.Fatalf("already_claimed without holder and expiry: %v %+v", err, re)
	}
	if evs, _ := e.Events(reportdata.EventFilter{Kind: "gate_violation"}); len(evs) != 1 {
		t.Fatalf("gate_violation events = %d, want 1", len(evs))
	}
}

// TestShouldRun_SkipsScopeConflictsAndPrefersOwnClaim: selection never
// picks a todo whose scope overlaps another agent's live lease, and picks
// the agent's own claim first.
func TestShouldRun_SkipsScopeConflictsAndPrefersOwnClaim(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, claimSpec)
	docs, err := e.AddTodo(todos.Input{Goal: "g1", Title: "docs", Priority: 0, Scope: []string{"docs/**"}})
	if err != nil {
		t.Fatal(err)
	}
	guide, _ := e.AddTodo(todos.Input{Goal: "g1", Title: "guide", Priority: 0, Scope: []string{"docs/guide.md"}})
	low, _ := e.AddTodo(todos.Input{Goal: "g1", Title: "low", Priority: 4})
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: docs.ID, Agent: "a1"}); err != nil {
		t.Fatal(err)
	}
	if d := decide(t, e, "a2"); d.Verdict != "run" || d.Todo.ID != low.ID {
		t.Fatalf("a2: %s %+v %+v", d.Verdict, d.Todo, d.Reasons)
	}
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: low.ID, Agent: "a1"}); err != nil {
		t.Fatal(err)
	}
	d := decide(t, e, "a2")
	if d.Verdict != "skip" || d.Reasons[0].Message != "3 todos: 2 held by other agents, 1 overlapping a scope held by another agent" {
		t.Fatalf("a2: %s %+v", d.Verdict, d.Reasons)
	}
	// a1's own claims come first, the older one at equal priority.
	if d := decide(t, e, "a1"); d.Verdict != "run" || d.Todo.ID != docs.ID {
		t.Fatalf("a1: %s %+v", d.Verdict, d.Todo)
	}
	_ = guide
}

// TestClaim_ReleasedThenReclaimed: A claims X (version 1) and
// releases it; B claims X. A's renew and finish with version 1 are both
// refused and change nothing; the version only grows and the epoch grows
// with each new holder.
func TestClaim_ReleasedThenReclaimed(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, claimSpec)
	x := addTodos(t, e, "X")[0].ID
	ctx := context.Background()
	st, err := e.StartRound(ctx, "g1", "a1")
	if err != nil || st.Round == nil || st.Todo.ID != x {
		t.Fatalf("A's round start: %+v %v", st, err)
	}
	if v := st.Todo.Lease.Version; v != 1 {
		t.Fatalf("A's lease version %d, want 1", v)
	}
	rel, err := e.ReleaseLease(lease.Request{Todo: x, Agent: "a1", ExpectedVersion: 1})
	if err != nil || !rel.Lease.Released || rel.Lease.Version != 2 {
		t.Fatalf("release: %+v %v", rel.Lease, err)
	}
	b, err := e.ClaimTodo(lease.ClaimRequest{Todo: x, Agent: "a2"})
	if err != nil || b.Lease.Version != 3 || b.Lease.Epoch != 2 {
		t.Fatalf("B's claim: %+v %v", b.Lease, err)
	}
	before, _ := e.Todo(x)
	_, err = e.RenewLease(lease.Request{Todo: x, Agent: "a1", ExpectedVersion: 1})
	var re *errs.Error
	if !(errs.IsKind(err, errs.No) && errors.As(err, &re)) || re.Code != "version_mismatch" || re.Data.(map[string]any)["expected"] != uint64(1) || re.Data.(map[string]any)["actual"] != uint64(3) {
		t.Fatalf("A's renew: %v", err)
	}
	_, err = e.FinishRound(ctx, st.Round.ID, rounds.FinishRequest{Agent: "a1", Outcome: records.OutcomeProgress, Done: true, ExpectedVersion: 1})
	if errCode(err) != "lease_lost" {
		t.Fatalf("A's finish: %v", err)
	}
	after, _ := e.Todo(x)
	if !sameTodo(before, after) || after.Lease.Holder != "a2" {
		t.Fatalf("refusals changed the todo: %+v → %+v", before.Lease, after.Lease)
	}
	if d := decide(t, e, "a1"); d.Quota.Rounds.Used != 0 {
		t.Fatalf("A's refused finish charged %d rounds", d.Quota.Rounds.Used)
	}
}

// TestClaim_KilledHolderLosesItsTodo, with a settable clock: A
// claims X with a 60 s lease, starts a round and dies. At +30 s B is
// refused with the expiry shown; at +61 s B wins with epoch +1; A's late
// finish is refused as stale. Release frees a claim at once.
func TestClaim_KilledHolderLosesItsTodo(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, claimSpec)
	x := addTodos(t, e, "X")[0].ID
	ctx := context.Background()
	a, err := e.ClaimTodo(lease.ClaimRequest{Todo: x, Agent: "a1", TTL: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.StartRound(ctx, "g1", "a1")
	if err != nil || st.Round == nil || st.Todo.ID != x {
		t.Fatalf("A's round: %+v %v", st, err)
	}
	if !st.Todo.Lease.ExpiresAt.Equal(c.Now().Add(60*time.Second)) || st.Todo.Lease.Epoch != a.Lease.Epoch {
		t.Fatalf("a round start on A's own claim changed its TTL or epoch: %+v", st.Todo.Lease)
	}
	c.Advance(30 * time.Second)
	_, err = e.ClaimTodo(lease.ClaimRequest{Todo: x, Agent: "a2"})
	var re *errs.Error
	if !(errs.IsKind(err, errs.No) && errors.As(err, &re)) || re.Code != "already_claimed" || re.Data.(map[string]any)["expires_at"] != "2026-11-29T10:01:00Z" || re.Data.(map[string]any)["holder"] != "a1" {
		t.Fatalf("+30 s: %v", err)
	}
	if d := decide(t, e, "a2"); d.Verdict != "skip" || d.NextCheckAt == nil || *d.NextCheckAt != "2026-11-29T10:01:00Z" {
		t.Fatalf("+30 s should_run for B: %s %v", d.Verdict, d.NextCheckAt)
	}
	c.Advance(31 * time.Second)
	if d := decide(t, e, "a2"); d.Verdict != "run" || d.Todo.ID != x {
		t.Fatalf("+61 s should_run for B: %s %+v", d.Verdict, d.Reasons)
	}
	b, err := e.ClaimTodo(lease.ClaimRequest{Todo: x, Agent: "a2"})
	if err != nil || b.Lease.Epoch != st.Todo.Lease.Epoch+1 || b.Lease.Holder != "a2" {
		t.Fatalf("+61 s: %+v %v", b.Lease, err)
	}
	_, err = e.FinishRound(ctx, st.Round.ID, rounds.FinishRequest{Agent: "a1", Outcome: records.OutcomeProgress, Done: true})
	if errCode(err) != "lease_lost" {
		t.Fatalf("A's late finish: %v", err)
	}
	if _, err := e.ReleaseLease(lease.Request{Todo: x, Agent: "a2", ExpectedVersion: b.Lease.Version}); err != nil {
		t.Fatal(err)
	}
	if a2, err := e.ClaimTodo(lease.ClaimRequest{Todo: x, Agent: "a1"}); err != nil || a2.Lease.Epoch != b.Lease.Epoch+1 {
		t.Fatalf("claim right after release: %+v %v", a2.Lease, err)
	}
}

// TestFinish_ExpiredLeaseIsLost: a round whose lease expired, even with
// nobody else holding the todo, cannot record its finish.
func TestFinish_ExpiredLeaseIsLost(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, claimSpec)
	addTodos(t, e, "X")
	st, err := e.StartRound(context.Background(), "g1", "a1")
	if err != nil || st.Round == nil {
		t.Fatal(err)
	}
	c.Advance(rounds.DefaultLeaseTTL)
	_, err = e.FinishRound(context.Background(), st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeProgress})
	if errCode(err) != "lease_lost" {
		t.Fatalf("finish after expiry: %v", err)
	}
}

// TestRun_RenewalKeepsTheLeaseAndIsNotProgress: while `loopx run` waits for
// the agent command it renews the round's lease; the renewal keeps the todo
// past its first expiry and does not count as a change of the goal.
func TestRun_RenewalKeepsTheLeaseAndIsNotProgress(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, claimSpec)
	addTodos(t, e, "X")
	ctx := context.Background()
	st, err := e.StartRound(ctx, "g1", "a1")
	if err != nil || st.Round == nil {
		t.Fatal(err)
	}
	rev0, err := e.goalRev("g1")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(30 * time.Minute)
	before, after, ok := e.renewRoundLease(st.Round)
	if !ok || before != rev0 || after <= before {
		t.Fatalf("renewal: ok %v, revisions %d → %d (goal was %d)", ok, before, after, rev0)
	}
	td, _ := e.Todo(st.Todo.ID)
	if td.Lease.Version != st.Todo.Lease.Version+1 || !td.Lease.ExpiresAt.Equal(c.Now().Add(rounds.DefaultLeaseTTL)) {
		t.Fatalf("renewed lease %+v", td.Lease)
	}
	c.Advance(30 * time.Minute) // past the first expiry
	if _, err := e.FinishRound(ctx, st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeNoChange}); err != nil {
		t.Fatalf("finish within the renewed lease: %v", err)
	}
	// A round that no longer holds its todo is not renewed.
	if _, _, ok := e.renewRoundLease(st.Round); ok {
		t.Fatal("renewed the lease of a finished round")
	}
}
