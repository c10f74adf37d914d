package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// documentRoute is one `--json` document under /v1/: the read command
// that prints it, the query parameters it takes (each becomes the flag of
// the same name) and which of them are required.
type documentRoute struct {
	list     []string // argv of the collection, nil when there is none
	show     []string // argv of one item (its id appended), nil when none
	params   []string
	required []string
}

// documents are the read commands served under /v1/.
var documents = map[string]documentRoute{
	"status":    {list: []string{"status"}, params: []string{"goal"}},
	"goals":     {list: []string{"goal", "list"}, show: []string{"goal", "show"}},
	"todos":     {list: []string{"todo", "list"}, show: []string{"todo", "show"}, params: []string{"goal", "status"}},
	"gates":     {list: []string{"gate", "list"}, show: []string{"gate", "show"}, params: []string{"goal", "status"}},
	"evidence":  {list: []string{"evidence", "list"}, params: []string{"goal", "limit"}, required: []string{"goal"}},
	"rounds":    {show: []string{"round", "show"}},
	"quota":     {list: []string{"quota", "status"}, params: []string{"goal"}},
	"agents":    {list: []string{"agent", "list"}},
	"decisions": {list: []string{"log"}, show: []string{"explain"}, params: []string{"goal", "agent", "verdict", "since", "limit"}},
	"events":    {list: []string{"events"}, params: []string{"goal", "kind", "since", "limit"}},
	"review":    {list: []string{"review"}, params: []string{"goal", "since"}, required: []string{"goal"}},
	"doctor":    {list: []string{"doctor"}},
}

// document answers GET /v1/{doc} and /v1/{doc}/{id} with the document the
// read command prints with --json, byte for byte.
func (a *API) document(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeJSON(w, http.StatusMethodNotAllowed, apiError{Code: "method_not_allowed", Message: "/v1/" + name + " is read with GET; changes are made with loopx commands"})
			return
		}
		a.serveDocument(w, r, name)
	}
}

func (a *API) serveDocument(w http.ResponseWriter, r *http.Request, name string) {
	id := r.PathValue("id")
	route := documents[name]
	var argv []string
	switch {
	case id == "" && route.list != nil:
		argv = append(argv, route.list...)
	case id != "" && route.show != nil && !strings.HasPrefix(id, "-"):
		argv = append(append(argv, route.show...), id)
	}
	if argv == nil {
		writeJSON(w, http.StatusNotFound, apiError{Code: "resource_not_found", Message: "unknown document: the documents are " + documentNames()})
		return
	}
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !contains(route.params, k) {
			writeJSON(w, http.StatusBadRequest, apiError{Code: "invalid_parameter", Message: fmt.Sprintf("?%s is not a parameter of /v1/%s (it takes %s)", k, name, paramList(route.params))})
			return
		}
		argv = append(argv, "--"+k+"="+q.Get(k))
	}
	for _, k := range route.required {
		if q.Get(k) == "" {
			writeJSON(w, http.StatusBadRequest, apiError{Code: "invalid_parameter", Message: fmt.Sprintf("/v1/%s needs ?%s=", name, k)})
			return
		}
	}
	var out, errb bytes.Buffer
	code := a.cfg.Run(r.Context(), append(argv, "--json"), &out, &errb)
	if code > 1 {
		writeCommandError(w, code, out.Bytes(), errb.Bytes())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Bytes())
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func paramList(p []string) string {
	if len(p) == 0 {
		return "none"
	}
	return strings.Join(p, ", ")
}

// documentNames lists the served documents, sorted.
func documentNames() string {
	names := make([]string, 0, len(documents)+1)
	for n := range documents {
		names = append(names, n)
	}
	names = append(names, "stream")
	sort.Strings(names)
	return strings.Join(names, ", ")
}
