// Package lease holds the mechanics of a todo's claim lease that need no
// store: the requests (claim, renew, release, transfer, a
// claim preview) and their checks, the bounds of a lease's time to live,
// claiming, renewing, transferring and releasing a lease, a claim's retry
// by idempotency key, and the compare-and-swap check of renew, release
// and transfer (the expected version, the live holder), with the words a
// refusal uses to say what became of a lease. The top engine package runs
// them inside its write transactions.
package lease

import (
	"fmt"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

// Lease TTL bounds.
const (
	MinTTL = time.Second
	MaxTTL = 24 * time.Hour
)

// CheckTTL validates ttl, 0 meaning def, and truncates it to whole
// seconds. Errors: errs.Usage bad_ttl outside MinTTL..MaxTTL.
func CheckTTL(ttl, def time.Duration) (time.Duration, error) {
	if ttl == 0 {
		ttl = def
	}
	if ttl < MinTTL || ttl > MaxTTL {
		return 0, errs.Usagef("bad_ttl", "lease TTL %s is out of range: from %s to %s", ttl, MinTTL, MaxTTL)
	}
	return ttl.Truncate(time.Second), nil
}

// CheckHeld is the compare-and-swap of renew, release and transfer: the
// lease of t must have version expected and agent as its live holder (an
// expired lease may still be released by its holder when allowExpired).
// Errors: errs.No version_mismatch (with expected, actual and the lease's
// holder, released, expires_at) or lease_lost (with the lease's facts).
func CheckHeld(t records.Todo, agent string, expected uint64, now time.Time, allowExpired bool) error {
	l := t.Lease
	var actual uint64
	if l != nil {
		actual = l.Version
	}
	if actual != expected {
		d := map[string]any{"todo": t.ID, "expected": expected, "actual": actual}
		msg := fmt.Sprintf("todo %s: expected lease version %d, actual %d", t.ID, expected, actual)
		if l != nil {
			d["holder"], d["released"], d["expires_at"] = l.Holder, l.Released, records.RFC3339(l.ExpiresAt)
			msg += fmt.Sprintf(" (%s by %s)", State(l, now), l.Holder)
		}
		return refused("version_mismatch", msg+": nothing changed", d)
	}
	lost := func(why string) error {
		return refused("lease_lost", fmt.Sprintf("todo %s: %s's lease is lost: %s; nothing changed", t.ID, agent, why), map[string]any{"todo": t.ID, "holder": l.Holder, "version": l.Version, "epoch": l.Epoch, "expires_at": records.RFC3339(l.ExpiresAt), "released": l.Released})
	}
	switch {
	case l.Holder != agent:
		return lost("the lease is held by " + l.Holder)
	case l.Released:
		return lost(fmt.Sprintf("it was released (version %d)", l.Version))
	case !allowExpired && !l.LiveAt(now):
		return lost("it expired at " + records.RFC3339(l.ExpiresAt))
	}
	return nil
}

// State says what l is at now: "released", "held until …" or "expired at …".
func State(l *records.Lease, now time.Time) string {
	switch {
	case l.Released:
		return "released"
	case l.LiveAt(now):
		return "held until " + records.RFC3339(l.ExpiresAt)
	}
	return "expired at " + records.RFC3339(l.ExpiresAt)
}

// EndedHow says how the lease l ended ("been released", "expired (at …)"),
// as in "which has since …".
func EndedHow(l *records.Lease) string {
	if l.Released {
		return "been released"
	}
	return "expired (at " + records.RFC3339(l.ExpiresAt) + ")"
}

// refused is an errs.No error with code, message and the refusal's facts.
func refused(code, message string, data map[string]any) *errs.Error {
	e := errs.New(errs.No, code, message)
	e.Data = data
	return e
}

// Claim gives t a lease held by agent for round ("" for a claim outside a
// round), expiring ttl after now: version +1 always, epoch +1 when the
// holder changes or the previous lease was released or expired. A holder
// re-claiming its live lease (a round start on its own claim) keeps the
// lease's TTL and idempotency key. t becomes claimed.
func Claim(t *records.Todo, agent, round string, now time.Time, ttl time.Duration) {
	l := records.Lease{Holder: agent, AcquiredAt: now, Round: round, Version: 1, Epoch: 1}
	if old := t.Lease; old != nil {
		l.Version = old.Version + 1
		l.Epoch = old.Epoch
		if old.Holder != agent || !old.LiveAt(now) {
			l.Epoch++
		} else {
			l.AcquiredAt, l.IdempotencyKey = old.AcquiredAt, old.IdempotencyKey
			if old.TTLSeconds > 0 {
				ttl = time.Duration(old.TTLSeconds) * time.Second
			}
		}
	}
	l.ExpiresAt, l.TTLSeconds = now.Add(ttl), int64(ttl/time.Second)
	t.Lease = &l
	t.Status = records.TodoClaimed
}

// Release ends t's lease, leaving a tombstone whose version keeps growing
// (a released lease is left as it is).
func Release(t *records.Todo) {
	if t.Lease != nil && !t.Lease.Released {
		t.Lease.Released = true
		t.Lease.Version++
	}
}

// Data is l as an audit event's data: holder, version, epoch, expires_at
// (RFC 3339), ttl_seconds and, when set, idempotency_key.
func Data(l *records.Lease) map[string]any {
	d := map[string]any{"holder": l.Holder, "version": l.Version, "epoch": l.Epoch, "expires_at": records.RFC3339(l.ExpiresAt), "ttl_seconds": l.TTLSeconds}
	if l.IdempotencyKey != "" {
		d["idempotency_key"] = l.IdempotencyKey
	}
	return d
}

// TTL is the time to live of a renewal or transfer of l: requested
// (truncated to whole seconds) when not 0, else the lease's own, else def.
func TTL(l *records.Lease, requested, def time.Duration) time.Duration {
	ttl := time.Duration(l.TTLSeconds) * time.Second
	if requested != 0 {
		ttl = requested.Truncate(time.Second)
	}
	if ttl <= 0 {
		ttl = def
	}
	return ttl
}

// Renew is l extended to now + ttl: version +1, same holder and epoch.
func Renew(l records.Lease, now time.Time, ttl time.Duration) records.Lease {
	l.Version++
	l.ExpiresAt, l.TTLSeconds = now.Add(ttl), int64(ttl/time.Second)
	return l
}

// Transfer is l handed to holder to: version +1, epoch +1, acquired now,
// expiring at now + ttl (no round, no idempotency key).
func Transfer(l records.Lease, to string, now time.Time, ttl time.Duration) records.Lease {
	return records.Lease{Holder: to, Version: l.Version + 1, Epoch: l.Epoch + 1, AcquiredAt: now,
		ExpiresAt: now.Add(ttl), TTLSeconds: int64(ttl / time.Second)}
}

// Retried reports whether a claim of todo by agent for ttl with
// idempotency key is a retry of the claim that took l (the key is l's):
// true when that lease still holds at now (the claim returns it
// unchanged). Errors: errs.Usage idempotency_key_reused (the key is
// another agent's claim) or idempotency_conflict (the same agent's claim
// with another TTL); errs.No idempotency_key_spent (its lease was released
// or expired). A claim without a key, or with a key l does not carry, is
// no retry.
func Retried(l *records.Lease, todo, agent, key string, ttl time.Duration, now time.Time) (bool, error) {
	if key == "" || l == nil || l.IdempotencyKey != key {
		return false, nil
	}
	switch {
	case l.Holder != agent:
		return false, errs.Usagef("idempotency_key_reused", "idempotency key %q belongs to a claim of todo %s by %s, not %s: use a new key per claim", key, todo, l.Holder, agent)
	case l.TTLSeconds != int64(ttl/time.Second):
		return false, conflict(key, todo, l, "asks for TTL "+ttl.String())
	case l.LiveAt(now):
		return true, nil
	default:
		return false, refused("idempotency_key_spent", fmt.Sprintf("idempotency key %q was used for lease version %d of todo %s, which has since %s; claim again with a new key", key, l.Version, todo, EndedHow(l)), map[string]any{"todo": todo, "version": l.Version, "released": l.Released, "expires_at": records.RFC3339(l.ExpiresAt)})
	}
}

// KeyElsewhere refuses a claim of todo with idempotency key when the key
// is on the lease (live or ended) of another of todos: a key names one
// claim. Errors: errs.Usage idempotency_conflict.
func KeyElsewhere(todos []records.Todo, todo, key string) error {
	if key == "" {
		return nil
	}
	for _, t := range todos {
		if t.ID != todo && t.Lease != nil && t.Lease.IdempotencyKey == key {
			return conflict(key, t.ID, t.Lease, "is of todo "+todo)
		}
	}
	return nil
}

// conflict is the idempotency_conflict error of key, which the claim of
// todo that took l used, reused by a claim that differs (this says how).
func conflict(key, todo string, l *records.Lease, this string) error {
	e := errs.Usagef("idempotency_conflict", "idempotency key %q was used for a claim of todo %s by %s with TTL %s; this claim %s: nothing changed; use a new key for another claim",
		key, todo, l.Holder, time.Duration(l.TTLSeconds)*time.Second, this)
	e.Data = map[string]any{"todo": todo, "holder": l.Holder, "ttl_seconds": l.TTLSeconds}
	return e
}
