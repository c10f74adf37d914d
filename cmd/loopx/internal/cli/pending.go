package cli

import "github.com/loopx-dev/loopx/cmd/loopx/internal/output"

// withPending is v with a "rules_pending" field holding line (the
// adopt.Pending line: rule changes in loopx/ no human adopted, what they
// loosen) for --json; v itself when line is "" or v is no JSON object.
func withPending(v any, line string) any {
	if line == "" {
		return v
	}
	doc, err := output.WithField(v, "rules_pending", line)
	if err != nil {
		return v
	}
	return doc
}
