package kernel

import (
	"strings"

	"github.com/loopx-dev/loopx/kernel/records"
)

// GoalRecordCounts counts, per goal id, the todos, gates and ledger
// entries in the store, from their keys alone (no value is decoded): what
// `loopx check` compares with the spec's goals to find the state of a goal
// the spec no longer declares (a renamed goal's todos, gates and spent
// quota). Goals with none are absent. Errors: the store's.
func (tx *Tx) GoalRecordCounts() (map[string]records.GoalRecords, error) {
	out := map[string]records.GoalRecords{}
	for _, prefix := range []string{"todo:", "gate:", "ledger:"} {
		err := tx.tx.AscendGreaterOrEqual("", prefix, func(k, _ string) bool {
			if !strings.HasPrefix(k, prefix) {
				return false
			}
			goal, _, ok := strings.Cut(k[len(prefix):], ":")
			if !ok {
				return true
			}
			c := out[goal]
			switch prefix {
			case "todo:":
				c.Todos++
			case "gate:":
				c.Gates++
			default:
				c.Ledger++
			}
			out[goal] = c
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
