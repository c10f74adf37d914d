package rulebook

import (
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/internal/errs"
)

// LookupQuery is the query a person names ("should-run", "should_run",
// "permission"; white space around it ignored); ok is false for an
// unknown query.
func LookupQuery(s string) (query.Query, bool) {
	return query.ByName(strings.ReplaceAll(strings.TrimSpace(s), "-", "_"))
}

// CheckQuery is LookupQuery's query of s. Errors: errs.Usage
// unknown_query, listing the known queries.
func CheckQuery(s string) (query.Query, error) {
	q, ok := LookupQuery(s)
	if !ok {
		return query.Query{}, errs.Usagef("unknown_query", "unknown query %q (known: %s)", s, strings.Join(sortedNames(), ", "))
	}
	return q, nil
}

// sortedNames are the queries' names in alphabetical order.
func sortedNames() []string { return slices.Sorted(slices.Values(query.Names())) }
