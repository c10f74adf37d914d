package kernel

import (
	"github.com/loopx-dev/loopx/kernel/records"
)

const keyRules = "meta:rules"

// Rules returns the adopted rules; ok is false when none were adopted yet.
func (tx *Tx) Rules() (r records.Rules, ok bool, err error) {
	ok, err = tx.getJSON(keyRules, &r)
	return r, ok, err
}

// PutRules records r as the adopted rules.
func (tx *Tx) PutRules(r records.Rules) error { return tx.putJSON(keyRules, r) }

// keyGateRules prefixes the rules a gate restores when it is rejected.
const keyGateRules = "meta:gate_rules:"

// PutGateRules records r as the rules gate restores on a reject: the
// adopted revision in effect before the round whose protected writes
// raised it (loopx run's protected-files gate).
func (tx *Tx) PutGateRules(gate string, r records.Rules) error {
	return tx.putJSON(keyGateRules+gate, r)
}

// GateRules returns the rules gate restores on a reject; ok is false when
// it restores none.
func (tx *Tx) GateRules(gate string) (r records.Rules, ok bool, err error) {
	ok, err = tx.getJSON(keyGateRules+gate, &r)
	return r, ok, err
}
