package records

import (
	"fmt"
	"time"
)

// String renders a priority as "P0".."P4".
func PriorityString(p int) string { return fmt.Sprintf("P%d", p) }

// RFC3339 renders t as RFC 3339 UTC with second precision, "" for the
// zero time: how records' times appear in events, decisions and text.
func RFC3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
