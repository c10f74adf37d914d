package cli

import "github.com/loopx-dev/loopx/internal/errs"

// remedies say what a person can do about a store loopx refused to open,
// keyed by the check that refused it: the errs.Hint keys of the kernel's
// refusals (kernel.Hint…; the command layer does not import the kernel,
// and a test holds this table to kernel.Hints). The kernel says what is
// wrong, these sentences what to do. An error's text is its message, "; ",
// then its remedy, wherever it is shown (the lines on stderr, the --json
// error envelope, a decision's store_error reason, an MCP tool error, the
// refusal's audit event). A sentence is a fmt format of the hint's values
// (store_behind: the store's revision).
var remedies = map[string]string{
	"store_anchor":              "run `loopx doctor --accept-store` (human) to anchor the store as it is",
	"store_moved":               "restore it, or run `loopx doctor --accept-store` (human) to anchor the store found",
	"store_missing":             "restore .loopx/ from a backup, or start a new chain here: run `loopx init` in your own terminal and type \"start over\" (the new chain records this one)",
	"store_empty":               "restore it from state.db.bak or a backup, or run `loopx doctor --accept-store` (human) to start a new store",
	"store_corrupt":             "run `loopx doctor` to find the first bad transaction and `loopx doctor --salvage` (human) to keep every verifiable one",
	"store_no_records":          "restore .loopx/state.db, run `loopx doctor` to see what is left, or `loopx doctor --accept-store` (human) to start over from an empty store",
	"store_schema_too_new":      "upgrade loopx (the store was left untouched)",
	"store_schema_before_chain": "restore the current store, or run `loopx doctor --accept-store` (human) to migrate and accept this one",
	"store_journal_unreadable":  "run `loopx doctor` to find the first bad transaction",
	"store_block_hash":          "run `loopx doctor` to find the first bad transaction and `loopx doctor --salvage` (human) to keep every verifiable one",
	"store_head_mismatch":       "run `loopx doctor` to find the first bad transaction and `loopx doctor --salvage` (human) to keep every verifiable one",
	"store_unanchored":          "if it is yours, run `loopx doctor --accept-store` (human) to anchor it",
	"store_behind":              "restore it, or run `loopx doctor --accept-store` (human) to continue from revision %d",
	"store_off_chain":           "restore it, or run `loopx doctor --accept-store` (human) to accept this one",
	"events_damaged":            "restore it from a backup, or run `loopx doctor --accept-store` to keep its verifiable records",
}

func init() { errs.SetHints(remedies) }
