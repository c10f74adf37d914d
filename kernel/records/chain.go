package records

import "time"

// Anchor is the anchor record.
type Anchor struct {
	// Version is the anchor record's format (1).
	Version int `json:"version"`
	// Backend is the store's backend ("buntdb").
	Backend string `json:"backend"`
	// Location is the real path of the store file (state.db) loopx opens.
	Location string `json:"location"`
	// Rev and Hash are the chain head: the revision and block hash of the
	// last transaction committed.
	Rev  uint64 `json:"rev"`
	Hash string `json:"hash"`
	// At is when the anchor was written (UTC).
	At time.Time `json:"at"`
}

// Region is a part of the store file that is no command: zero-filled,
// garbage, or a torn end.
type Region struct {
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
}

// ChainReport is what verifying the whole chain of a store file found
// (`loopx doctor`, `loopx check --audit`).
type ChainReport struct {
	// Store is the store file's path.
	Store string `json:"store"`
	// Anchor is the anchor record, nil when the project has none.
	Anchor *Anchor `json:"anchor"`
	// Base is the revision of the first block in the file (the genesis, or
	// the head when the file was last shrunk).
	Base uint64 `json:"base"`
	// Head and HeadHash are the last block that verifies, linked from Base.
	Head     uint64 `json:"head"`
	HeadHash string `json:"head_hash"`
	// Transactions is how many blocks verified, Base's included.
	Transactions int `json:"transactions"`
	// FirstBad is the first transaction that does not verify (its block
	// is missing, does not match its hash or its predecessor, or its
	// records are damaged or differ in the file); nil when all do.
	FirstBad *uint64 `json:"first_bad"`
	// Problem says what is wrong with FirstBad (or with the file or the
	// anchor), "" when nothing is.
	Problem string `json:"problem"`
	// Damaged are the regions of the file that are no command.
	Damaged []Region `json:"damaged"`
	// Salvageable is true when the chain from Base verifies up to Head, so
	// `loopx doctor --salvage` can rebuild the store at Head from its blocks.
	Salvageable bool `json:"salvageable"`
}

// OK reports whether the whole chain verified and matches the anchor.
func (r ChainReport) OK() bool { return r.FirstBad == nil && r.Problem == "" }

// SalvageReport says what the kernel's Salvage kept and dropped.
type SalvageReport struct {
	// Chain is the verification of the damaged file.
	Chain ChainReport `json:"chain"`
	// Kept is the revision the salvaged store continues from; Dropped the
	// revisions the anchor had reached beyond it (0 when none).
	Kept    uint64 `json:"kept"`
	Dropped uint64 `json:"dropped"`
	// Backup is the damaged file's copy.
	Backup string `json:"backup"`
	// Events, when set, is the repair of an event log damaged in the
	// middle of a store that verifies (the store itself was not rebuilt:
	// Kept is its revision, Backup empty).
	Events *EventsRepair `json:"events,omitempty"`
}
