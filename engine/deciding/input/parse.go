package input

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
)

// Parse reads a hand-written input document (`loopx policy eval`) of
// query: a JSON object shaped like Input, unknown fields refused; goal and
// agent, when given, replace input.goal and input.agent, and a missing
// input.now is clock. It returns the input, its instant, its permission as
// written (nil when absent or null, for the caller to read in either of
// its forms), and whether it gives a state. Errors: errs.Usage bad_input.
func Parse(raw []byte, query, goal, agent string, clock time.Time) (in Input, now time.Time, permission json.RawMessage, hasState bool, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return in, now, nil, false, errs.Usagef("bad_input", "the input is not a JSON object: %v", errText(err))
	}
	if p, ok := top["permission"]; ok && string(p) != "null" {
		permission = p
	}
	delete(top, "permission")
	_, hasState = top["state"]
	rest, _ := json.Marshal(top)
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, now, nil, false, errs.Usagef("bad_input", "the input does not have the shape of a decision's input: %v", err)
	}
	in.Query = query
	if goal != "" {
		in.Goal = goal
	}
	if agent != "" {
		in.Agent = agent
	}
	now = clock
	if in.Now == "" {
		in.Now = now.UTC().Format(time.RFC3339)
	} else if t, err := time.Parse(time.RFC3339, in.Now); err == nil {
		now = t.UTC()
	} else {
		return in, now, nil, false, errs.Usagef("bad_input", "input.now %q is not an RFC 3339 time", in.Now)
	}
	return in, now, permission, hasState, nil
}

func errText(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}
