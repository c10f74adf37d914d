package kernel

import "time"

const (
	keyProtectedSeen = "meta:protected_seen"
	keyGateProtected = "meta:gate_protected:"
)

// ProtectedSeen is the protected set as loopx last saw it: the files the
// change check hashes in full outside loopx/ and .loopx/ (git's hooks and
// config, the hosts' settings, the files that run the human's next
// command), each by a digest of its signature. loopx run records it as
// each round ends and compares it as the next one starts: a difference is
// a change between rounds (a process the agent left behind, or anyone
// else), which stops the goal until a human approves it.
type ProtectedSeen struct {
	// Files maps each file (relative to the project root, slash-separated;
	// absolute outside it) to its digest (hex).
	Files map[string]string `json:"files"`
	// Round is the round at whose end it was seen ("" when a human
	// approved it through a gate).
	Round string `json:"round,omitempty"`
	// At is when it was recorded.
	At time.Time `json:"at"`
}

// ProtectedSeen returns the protected set as last seen; ok is false when
// no round recorded one yet.
func (tx *Tx) ProtectedSeen() (p ProtectedSeen, ok bool, err error) {
	ok, err = tx.getJSON(keyProtectedSeen, &p)
	return p, ok, err
}

// PutProtectedSeen records p as the protected set last seen.
func (tx *Tx) PutProtectedSeen(p ProtectedSeen) error { return tx.putJSON(keyProtectedSeen, p) }

// PutGateProtected records p as the protected set gate's approval makes
// the one last seen (the gate a change between rounds raised).
func (tx *Tx) PutGateProtected(gate string, p ProtectedSeen) error {
	return tx.putJSON(keyGateProtected+gate, p)
}

// GateProtected returns the protected set gate's approval records as
// seen; ok is false when gate keeps none.
func (tx *Tx) GateProtected(gate string) (p ProtectedSeen, ok bool, err error) {
	ok, err = tx.getJSON(keyGateProtected+gate, &p)
	return p, ok, err
}
