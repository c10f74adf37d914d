package input

import (
	"bytes"
	"encoding/json"

	"github.com/loopx-dev/loopx/internal/errs"
)

// Parse reads a hand-written input document (`loopx policy eval`): a JSON
// object shaped like Input, unknown fields refused. Its permission is
// returned as written (nil when absent or null), for the caller to read
// in either of its forms, and hasState says whether it gives a state.
// Errors: errs.Usage bad_input.
func Parse(raw []byte) (in Input, permission json.RawMessage, hasState bool, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return in, nil, false, errs.Usagef("bad_input", "the input is not a JSON object: %v", errText(err))
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
		return in, nil, false, errs.Usagef("bad_input", "the input does not have the shape of a decision's input: %v", err)
	}
	return in, permission, hasState, nil
}

func errText(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}
