package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/kernel"
)

// streamPoll is how often /v1/stream reads the store's change marker.
const streamPoll = 200 * time.Millisecond

// streamKeepAlive is how often an idle stream sends a comment, so that a
// proxy or a browser does not close it.
const streamKeepAlive = 15 * time.Second

// stream answers GET /v1/stream with server-sent events until the client
// goes away:
//
//	event: state     data: {"revision": N}   the store committed (its revision)
//	event: decision  data: a line of `loopx watch --json` (a changed decision)
//	event: error     data: {"message": "…"}   the watch stopped (e.g. a spec that does not load)
//
// ?goal= and ?agent= narrow the decisions as watch's flags do.
func (a *API) stream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeJSON(w, http.StatusMethodNotAllowed, apiError{Code: "method_not_allowed", Message: "/v1/stream is read with GET"})
		return
	}
	q := r.URL.Query()
	argv := []string{"watch", "--json"}
	for k := range q {
		if k != "goal" && k != "agent" {
			writeJSON(w, http.StatusBadRequest, apiError{Code: "invalid_parameter", Message: fmt.Sprintf("?%s is not a parameter of /v1/stream (it takes goal, agent)", k)})
			return
		}
		argv = append(argv, "--"+k+"="+q.Get(k))
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, apiError{Code: "internal_error", Message: "streaming is not supported here"})
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	var mu sync.Mutex
	send := func(event string, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, bytes.TrimSpace(data))
		fl.Flush()
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()

	lastRev, _ := kernel.ReadRevFile(a.cfg.StateDir)
	lastMarker, _ := kernel.ReadMarker(a.cfg.StateDir)
	rev, _ := json.Marshal(map[string]uint64{"revision": lastRev})
	send("state", rev)

	watched := make(chan struct{})
	go func() {
		defer close(watched)
		var errb bytes.Buffer
		code := a.cfg.Run(ctx, argv, &lineWriter{emit: func(line []byte) { send("decision", line) }}, &errb)
		if ctx.Err() == nil {
			msg, _ := json.Marshal(map[string]any{"message": lastLine(errb.String()), "exit_code": code})
			send("error", msg)
		}
	}()

	tick := time.NewTicker(streamPoll)
	defer tick.Stop()
	alive := time.NewTicker(streamKeepAlive)
	defer alive.Stop()
	stop := a.cfg.Stop
	for {
		select {
		case <-stop:
			cancel()
			stop = nil
		case <-ctx.Done():
			<-watched
			return
		case <-alive.C:
			mu.Lock()
			fmt.Fprint(w, ": alive\n\n")
			fl.Flush()
			mu.Unlock()
		case <-tick.C:
			// The whole marker: a store rolled back and accepted again
			// reuses a revision number, never a chain head.
			if m, err := kernel.ReadMarker(a.cfg.StateDir); err == nil && m != lastMarker {
				lastMarker = m
				if n, err := kernel.ReadRevFile(a.cfg.StateDir); err == nil {
					b, _ := json.Marshal(map[string]uint64{"revision": n})
					send("state", b)
				}
			}
		}
	}
}

// lineWriter calls emit with each complete line written to it.
type lineWriter struct {
	buf  []byte
	emit func([]byte)
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if line := bytes.TrimSpace(l.buf[:i]); len(line) > 0 {
			l.emit(append([]byte(nil), line...))
		}
		l.buf = l.buf[i+1:]
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
