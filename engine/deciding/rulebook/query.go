package rulebook

import (
	"maps"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/policies"
)

// QueryName maps a query as people type it ("should-run", "should_run",
// "permission") to its name in policies.Queries; ok is false for an unknown query.
func QueryName(q string) (string, bool) {
	q = strings.ReplaceAll(strings.TrimSpace(q), "-", "_")
	_, ok := policies.Queries[q]
	return q, ok
}

// CheckQuery is QueryName's name of q. Errors: errs.Usage unknown_query,
// listing the known queries.
func CheckQuery(q string) (string, error) {
	name, ok := QueryName(q)
	if !ok {
		return "", errs.Usagef("unknown_query", "unknown query %q (known: %s)", q, strings.Join(slices.Sorted(maps.Keys(policies.Queries)), ", "))
	}
	return name, nil
}
