package lease

import (
	"errors"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/inert"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// ClaimRequest asks for a lease on a todo (`loopx todo claim`).
type ClaimRequest struct {
	Todo, Agent string
	// TTL is the lease's time to live, MinTTL..MaxTTL; 0 means
	// DefaultTTL.
	TTL time.Duration
	// IdempotencyKey, when set, is stored on the lease: a retried claim by
	// the same agent with the same key returns that lease unchanged.
	IdempotencyKey string
}

// Request changes a held lease: renew, release or transfer. Each is
// a compare-and-swap on the lease's version.
type Request struct {
	Todo, Agent string
	// ExpectedVersion is the version the caller holds (required).
	ExpectedVersion uint64
	// TTL is the new time to live for renew and transfer (0 = the lease's
	// own TTL, else DefaultTTL).
	TTL time.Duration
	// To is the new holder of a transfer.
	To string
}

// Result is the todo after a lease operation and its lease.
type Result struct {
	Todo  records.Todo  `json:"todo"`
	Lease records.Lease `json:"lease"`
	// Replayed is true when nothing changed: a retried claim with the same
	// idempotency key, a claim of a lease the agent already holds, or a
	// retried release.
	Replayed bool `json:"replayed"`
	// Previous is the lease this operation replaced (nil for a first claim
	// and for replays).
	Previous *records.Lease `json:"previous"`
}

// DefaultTTL is the lease a claim takes without a TTL, and a round on its
// todo.
const DefaultTTL = 45 * time.Minute

// Check checks a claim request alone (no state read): its TTL (0 =
// DefaultTTL), returned truncated to whole seconds, and its agent.
// Errors: errs.Usage bad_ttl, missing_agent.
func (r ClaimRequest) Check() (time.Duration, error) {
	ttl, err := CheckTTL(r.TTL, DefaultTTL)
	if err != nil {
		return 0, err
	}
	if r.Agent == "" {
		return 0, errs.Usagef("missing_agent", "which agent? give --agent")
	}
	if err := inert.CheckList("the idempotency key (--idempotency-key)", []string{r.IdempotencyKey}); err != nil {
		return 0, errs.Usagef("too_long", "%v", err)
	}
	return ttl, nil
}

// Check checks a request to renew, release or transfer (op) alone: a
// transfer's new holder (another agent), the agent, the expected version
// and a TTL when given. Errors: errs.Usage missing_to, same_agent,
// missing_agent, missing_expected_version, bad_ttl.
func (r Request) Check(op string) error {
	if op == "transfer" {
		if r.To == "" {
			return errs.Usagef("missing_to", "transfer to whom? give --to")
		}
		if r.To == r.Agent {
			return errs.Usagef("same_agent", "%s already holds the lease", r.Agent)
		}
	}
	if r.Agent == "" {
		return errs.Usagef("missing_agent", "which agent? give --agent")
	}
	if r.ExpectedVersion == 0 {
		return errs.Usagef("missing_expected_version", "%s needs --expected-version (the lease version you hold; see loopx todo show)", op)
	}
	if r.TTL != 0 {
		if _, err := CheckTTL(r.TTL, DefaultTTL); err != nil {
			return err
		}
	}
	return nil
}

// Preview is a claim question asked without acting on it (`loopx decide
// claim`).
type Preview struct {
	Todo, Agent string
	// Op is "claim" (the default) or "transfer" (then From is the holder).
	Op, From string
}

// Check returns p with its default op, checked alone. Errors: errs.Usage
// bad_op, missing_agent, missing_from.
func (p Preview) Check() (Preview, error) {
	if p.Op == "" {
		p.Op = "claim"
	}
	if p.Op != "claim" && p.Op != "transfer" {
		return p, errs.Usagef("bad_op", "--op %q: want claim or transfer", p.Op)
	}
	if p.Agent == "" {
		return p, errs.Usagef("missing_agent", "which agent? give --agent")
	}
	if p.Op == "transfer" && p.From == "" {
		return p, errs.Usagef("missing_from", "a transfer preview needs --from (the current holder)")
	}
	return p, nil
}

// CheckFlag checks a lease TTL flag (0 = the default) alone. Errors:
// errs.Usage bad_ttl outside MinTTL..MaxTTL.
func CheckFlag(ttl time.Duration) error {
	if ttl == 0 {
		return nil
	}
	_, err := CheckTTL(ttl, DefaultTTL)
	return err
}

// Find reads the todo id of a lease operation with get (a transaction's
// Todo). Errors: errs.Usage missing_todo, unknown_todo; get's others.
func Find(get func(id string) (records.Todo, error), id string) (records.Todo, error) {
	if id == "" {
		return records.Todo{}, errs.Usagef("missing_todo", "which todo? give its id (loopx todo list)")
	}
	t, err := get(id)
	if errors.Is(err, kernel.ErrNotFound) {
		return t, errs.Usagef("unknown_todo", "unknown todo %q", id)
	}
	return t, err
}
