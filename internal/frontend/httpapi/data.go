package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// decisionRoute is one decision of OPA's Data API: the input fields a
// request may carry and the `loopx decide` command line they become.
type decisionRoute struct {
	// fields are the input's keys; each is a string, but "paths" (a list
	// of strings).
	fields []string
	// required are the keys the command needs.
	required []string
	// argv builds the command line from the input.
	argv func(in map[string]any) []string
}

// decisions are the four entry rules' paths, by data path.
var decisions = map[string]decisionRoute{
	"loopx/run/decision": {
		fields: []string{"goal", "agent"}, required: []string{"goal", "agent"},
		argv: func(in map[string]any) []string {
			return []string{"decide", "should-run", "--goal=" + str(in, "goal"), "--agent=" + str(in, "agent")}
		},
	},
	"loopx/permission/decision": {
		fields: []string{"goal", "agent", "tool", "paths", "command", "action"}, required: []string{"goal", "agent"},
		argv: func(in map[string]any) []string {
			argv := []string{"decide", "permission", "--goal=" + str(in, "goal"), "--agent=" + str(in, "agent")}
			for _, f := range []string{"tool", "command", "action"} {
				if v := str(in, f); v != "" {
					argv = append(argv, "--"+f+"="+v)
				}
			}
			for _, p := range strs(in, "paths") {
				argv = append(argv, "--path="+p)
			}
			return argv
		},
	},
	"loopx/claim/decision": {
		fields: []string{"agent", "todo", "op", "from"}, required: []string{"agent", "todo"},
		argv: func(in map[string]any) []string {
			argv := []string{"decide", "claim", str(in, "todo"), "--agent=" + str(in, "agent")}
			if v := str(in, "op"); v != "" {
				argv = append(argv, "--op="+v)
			}
			if v := str(in, "from"); v != "" {
				argv = append(argv, "--from="+v)
			}
			return argv
		},
	},
	"loopx/gate/decision": {
		fields: []string{"gate", "option", "note", "as"}, required: []string{"gate", "option"},
		argv: func(in map[string]any) []string {
			argv := []string{"decide", "gate-answer", str(in, "gate"), "--option=" + str(in, "option")}
			if v := str(in, "note"); v != "" {
				argv = append(argv, "--note="+v)
			}
			if v := str(in, "as"); v != "" {
				argv = append(argv, "--as="+v)
			}
			return argv
		},
	},
}

// serverBuilt are input keys the server builds itself: a request naming
// one is refused.
var serverBuilt = []string{"state", "health", "now"}

// data answers OPA's Data API: a decision's path runs its `loopx decide`
// command; any other path is an undefined document (200 {}), as OPA
// answers for a path no rule defines.
func (a *API) data(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		writeJSON(w, http.StatusMethodNotAllowed, apiError{Code: "method_not_allowed", Message: r.Method + " is not served here: use POST or GET"})
		return
	}
	path := strings.Trim(strings.TrimPrefix(r.URL.Path, "/v1/data"), "/")
	route, ok := decisions[path]
	if !ok {
		writeJSON(w, http.StatusOK, struct{}{})
		return
	}
	in, err := readInput(r)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeJSON(w, http.StatusRequestEntityTooLarge, apiError{Code: "request_too_large", Message: "body over 1 MiB"})
			return
		}
		writeJSON(w, http.StatusBadRequest, apiError{Code: "invalid_parameter", Message: err.Error()})
		return
	}
	if err := checkInput(in, route); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Code: "invalid_parameter", Message: err.Error()})
		return
	}
	var out, errb bytes.Buffer
	code := a.cfg.Run(r.Context(), append(route.argv(in), "--json"), &out, &errb)
	var doc struct {
		DecisionID string `json:"decision_id"`
		Verdict    string `json:"verdict"`
	}
	_ = json.Unmarshal(out.Bytes(), &doc)
	// Exit 2 with a decision is a deny over a spec or user policy that
	// does not load (fail closed): the client gets the deny, as at a
	// terminal, not an error it might retry around.
	if code > 2 || (code == 2 && doc.Verdict == "") {
		writeCommandError(w, code, out.Bytes(), errb.Bytes())
		return
	}
	if doc.Verdict == "" {
		writeJSON(w, http.StatusInternalServerError, apiError{Code: "internal_error", Message: "the decision printed no decision document"})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Result     json.RawMessage `json:"result"`
		DecisionID string          `json:"decision_id,omitempty"`
	}{bytes.TrimSpace(out.Bytes()), doc.DecisionID})
}

// readInput reads the request's input document: a POST body's "input"
// (an empty body is no input), or a GET's ?input= (JSON).
func readInput(r *http.Request) (map[string]any, error) {
	var raw []byte
	if r.Method == http.MethodGet {
		raw = []byte(r.URL.Query().Get("input"))
		if len(raw) == 0 {
			return map[string]any{}, nil
		}
		raw = []byte(`{"input":` + string(raw) + `}`)
	} else {
		b, err := readAll(r)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	var body struct {
		Input any `json:"input"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&body); err != nil {
		return nil, fmt.Errorf("body contains malformed input document: %v", err)
	}
	if body.Input == nil {
		return map[string]any{}, nil
	}
	in, ok := body.Input.(map[string]any)
	if !ok {
		return nil, errors.New("input must be an object")
	}
	return in, nil
}

func readAll(r *http.Request) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r.Body)
	return b.Bytes(), err
}

// checkInput refuses what the server builds (state, health, now), keys the
// decision does not take, values of the wrong type and missing required
// keys, naming the key.
func checkInput(in map[string]any, route decisionRoute) error {
	for _, k := range serverBuilt {
		if _, ok := in[k]; ok {
			return fmt.Errorf("input.%s is built by the server: send the request fields only (%s)", k, strings.Join(route.fields, ", "))
		}
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		known := false
		for _, f := range route.fields {
			known = known || f == k
		}
		if !known {
			return fmt.Errorf("input.%s is not a field of this decision (it takes %s)", k, strings.Join(route.fields, ", "))
		}
		switch v := in[k].(type) {
		case string:
			if k == "paths" {
				return errors.New("input.paths must be a list of strings")
			}
		case []any:
			if k != "paths" {
				return fmt.Errorf("input.%s must be a string", k)
			}
			for _, p := range v {
				if _, ok := p.(string); !ok {
					return errors.New("input.paths must be a list of strings")
				}
			}
		default:
			return fmt.Errorf("input.%s must be a string", k)
		}
	}
	for _, k := range route.required {
		if str(in, k) == "" {
			return fmt.Errorf("input.%s is required (this decision takes %s)", k, strings.Join(route.fields, ", "))
		}
	}
	for _, k := range []string{"todo", "gate"} {
		if strings.HasPrefix(str(in, k), "-") {
			return fmt.Errorf("input.%s %q is not an id", k, str(in, k))
		}
	}
	return nil
}

func str(in map[string]any, k string) string {
	s, _ := in[k].(string)
	return s
}

func strs(in map[string]any, k string) []string {
	l, _ := in[k].([]any)
	out := make([]string, 0, len(l))
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// writeCommandError answers a command that ended with exit code 2 (400,
// or 404 when it names something unknown) or 3 (500), in OPA's error
// shape, carrying the command's {"errors": [...]} when it printed them.
func writeCommandError(w http.ResponseWriter, code int, stdout, stderr []byte) {
	var env struct {
		Errors []json.RawMessage `json:"errors"`
	}
	_ = json.Unmarshal(stdout, &env)
	msg := strings.TrimSpace(string(stderr))
	var first struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if len(env.Errors) > 0 && json.Unmarshal(env.Errors[0], &first) == nil && first.Message != "" {
		msg = first.Message
	}
	if msg == "" {
		msg = fmt.Sprintf("the command ended with exit code %d", code)
	}
	status, apiCode := http.StatusInternalServerError, "internal_error"
	if code == 2 {
		status, apiCode = http.StatusBadRequest, "invalid_parameter"
		if strings.HasPrefix(first.Code, "unknown_") || strings.HasSuffix(first.Code, "_not_found") {
			status, apiCode = http.StatusNotFound, "resource_not_found"
		}
	}
	writeJSON(w, status, apiError{Code: apiCode, Message: msg, Errors: env.Errors})
}
