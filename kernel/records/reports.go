package records

// PruneReport says what the kernel's Tx.PruneEvents dropped.
type PruneReport struct {
	// Pruned is how many events this prune drops; Kept how many stay.
	Pruned int `json:"pruned"`
	Kept   int `json:"kept"`
	// ThroughSeq is the Seq of the last event dropped (0 when none).
	ThroughSeq uint64 `json:"through_seq"`
	// Unreviewed is how many events older than the instant were kept
	// because they are not yet reviewed (or follow one that is not).
	Unreviewed int `json:"unreviewed"`
	// Head is the hash of the last pruned record (the checkpoint's Head).
	Head string `json:"head,omitempty"`
}

// EventsRepair says what the kernel's Tx.RepairEvents cut from a damaged
// event log (`loopx doctor --salvage`).
type EventsRepair struct {
	// From and Through are the indexes of the records cut (Through <
	// From: bytes between two records, no record).
	From    uint64 `json:"from"`
	Through uint64 `json:"through"`
	// Bytes is how many bytes were cut; Reason what was wrong with the
	// first of them.
	Bytes  int64  `json:"bytes"`
	Reason string `json:"reason"`
	// Gap is true when a gap record stands for them in the log.
	Gap bool `json:"gap"`
}

// GoalRecords counts what the store keeps for one goal id.
type GoalRecords struct {
	// Todos, Gates and Ledger count the goal's todos (any status), stored
	// gate instances (any status) and quota ledger entries (charges and
	// refunds).
	Todos  int `json:"todos"`
	Gates  int `json:"gates"`
	Ledger int `json:"ledger"`
}

// ShrinkReport says what the kernel's Store.ShrinkIfGrown did.
type ShrinkReport struct {
	// Shrunk is true when the file was rewritten.
	Shrunk bool `json:"shrunk"`
	// Before and After are the file sizes in bytes (After = Before when not shrunk).
	Before int64 `json:"before"`
	After  int64 `json:"after"`
	// Base is the size after the previous shrink (0 = never shrunk).
	Base int64 `json:"base"`
}
