// Package records holds loopx's domain records: the values the kernel
// stores (goal status, todo, lease, gate, evidence, round, ledger entry,
// handoff, agent, event, gate poll, the adopted rules, the project) and
// the reports of the store's checks (chain, salvage, shrink, prune), with
// their status constants. They are plain data with their JSON encoding:
// the kernel reads and writes them, the engine and the command layer read
// and render them, and none of them needs the store to do so.
package records
