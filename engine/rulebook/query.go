package rulebook

import (
	"strings"

	"github.com/loopx-dev/loopx/policies"
)

// QueryName maps a query as people type it ("should-run", "should_run",
// "permission") to its name in policies.Queries; ok is false for an unknown query.
func QueryName(q string) (string, bool) {
	q = strings.ReplaceAll(strings.TrimSpace(q), "-", "_")
	_, ok := policies.Queries[q]
	return q, ok
}
