package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineBytes bounds one inbound line (one JSON-RPC frame, without
// its newline) unless Transport.MaxLineBytes says otherwise: 1 MiB, far
// above any loopx tool call.
const DefaultMaxLineBytes = 1 << 20

// lastBatchProtocol is the newest MCP protocol revision that has JSON-RPC
// batches: 2025-03-26 made receiving them a MUST, 2025-06-18 removed them.
const lastBatchProtocol = "2025-03-26"

// Transport is a newline-delimited JSON-RPC 2.0 transport over a reader
// (the client's frames, usually stdin) and a writer (usually stdout) that
// answers every frame the way JSON-RPC 2.0 says and keeps serving, in front
// of the go-sdk's session (whose own stdio transport ends the session on
// one bad line: modelcontextprotocol/go-sdk#1209):
//
//   - a line that is not JSON: -32700 (parse error), id null;
//   - valid JSON that is not a Request or Response object — not an object,
//     "jsonrpc" other than "2.0", a method that is not a string, params
//     that are not structured, an id that is not a string or an integer
//     (MCP forbids null), a frame with an id but neither method nor result
//     or error, an id already used by a call in progress: -32600 (invalid
//     request), with the id when one can be read, else null;
//   - a line longer than MaxLineBytes: -32600, id null, with the limit;
//   - a batch (JSON array): answered with one array of responses when the
//     session negotiated protocol 2025-03-26 or older (the revisions that
//     have batches); otherwise, or before initialize, refused with -32600
//     for each call in it (one line each), or one id-null -32600 when it
//     holds no call; an empty array is one -32600;
//   - a call other than initialize or ping before initialize is answered:
//     -32600, saying initialize comes first;
//   - a valid notification (no id) is never answered; blank lines are
//     skipped.
//
// At EOF of the reader, the connection waits until every call it has read
// is answered before it reports EOF, so a call still running when the
// client closes its end is finished and answered, not dropped.
type Transport struct {
	// Reader yields the client's frames; it is not closed.
	Reader io.Reader
	// Writer receives the server's frames, one per line; it is not closed.
	Writer io.Writer
	// MaxLineBytes bounds one line in bytes, without its newline (0 =
	// DefaultMaxLineBytes).
	MaxLineBytes int
}

// Connect implements mcp.Transport. It starts the goroutine that reads
// lines; call it once.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	c := &conn{
		out:      t.Writer,
		frames:   make(chan frame),
		closed:   make(chan struct{}),
		inflight: map[jsonrpc.ID]*batch{},
	}
	go c.readLines(t.Reader, max)
	return c, nil
}

// frame is one line read from the client, or the error that ended reading.
type frame struct {
	line []byte
	// tooLong is the length of a line over the limit (read and dropped).
	tooLong int
	limit   int
	err     error
}

// batch is an accepted batch: its responses in the order of its members,
// and how many calls in it are still unanswered.
type batch struct {
	responses []*jsonrpc.Response
	slot      map[jsonrpc.ID]int
	pending   int
}

type conn struct {
	out    io.Writer
	frames chan frame
	closed chan struct{}
	once   sync.Once
	// queue holds the members of an accepted batch not yet returned by Read
	// (only Read touches it; reads are serial).
	queue []jsonrpc.Message

	mu sync.Mutex // guards the fields below and every write to out
	// inflight holds every call handed to the session and not yet answered,
	// with its batch (nil for a call outside any batch).
	inflight map[jsonrpc.ID]*batch
	// initID is the id of an initialize call in flight; protocol is the
	// revision the server answered it with.
	initID   *jsonrpc.ID
	protocol string
	// drained is closed when inflight empties while Read waits at EOF.
	drained  chan struct{}
	writeErr error
}

// readLines reads the client's lines until EOF or an error, delivering
// each (or the error) to Read.
func (c *conn) readLines(r io.Reader, max int) {
	br := bufio.NewReaderSize(r, 64<<10)
	send := func(f frame) bool {
		select {
		case c.frames <- f:
			return true
		case <-c.closed:
			return false
		}
	}
	for {
		var line []byte
		n := 0
		var err error
		for {
			var part []byte
			part, err = br.ReadSlice('\n')
			n += len(part)
			if n <= max+1 {
				line = append(line, part...)
			} else {
				line = nil
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err == nil {
			n-- // the newline
		}
		if n > max {
			if !send(frame{tooLong: n, limit: max}) {
				return
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			if !send(frame{line: line}) {
				return
			}
		}
		if err != nil {
			send(frame{err: err})
			return
		}
	}
}

// SessionID implements mcp.Connection (stdio has no session id).
func (c *conn) SessionID() string { return "" }

// Close implements mcp.Connection: it stops Read; the reader and writer
// stay open (they belong to the caller).
func (c *conn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// Read implements mcp.Connection: it returns the next valid message,
// answering invalid frames itself. At EOF it first waits until every call
// read has been answered.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		var f frame
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f = <-c.frames:
		}
		switch {
		case f.err != nil:
			c.drain(ctx)
			return nil, f.err
		case f.tooLong > 0:
			c.reply(invalid(nil, "invalid request: the line is %d bytes; the limit is %d bytes", f.tooLong, f.limit))
		default:
			if m := c.accept(bytes.TrimSpace(f.line)); m != nil {
				return m, nil
			}
		}
	}
}

// drain waits until every call read has been answered (or writing failed,
// or the connection or ctx ended).
func (c *conn) drain(ctx context.Context) {
	c.mu.Lock()
	if len(c.inflight) == 0 || c.writeErr != nil {
		c.mu.Unlock()
		return
	}
	c.drained = make(chan struct{})
	ch := c.drained
	c.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	case <-c.closed:
	}
}

// accept checks one frame. It returns the message to hand to the session,
// or nil when it answered the frame itself (or queued a batch's members
// and has none to return yet).
func (c *conn) accept(line []byte) jsonrpc.Message {
	if !json.Valid(line) {
		c.reply(&jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the line is not valid JSON"}})
		return nil
	}
	switch line[0] {
	case '{':
		m, errResp := c.check(line)
		if errResp != nil {
			c.reply(errResp)
		}
		return m
	case '[':
		c.acceptBatch(line)
		return nil
	}
	c.reply(invalid(nil, "invalid request: a JSON-RPC message is a JSON object (or, in a batch, an array of them)"))
	return nil
}

// check validates one JSON object as a JSON-RPC 2.0 request, notification
// or response. A valid call is recorded as in flight in b (nil outside a
// batch). It returns either the message or the error response to send.
func (c *conn) check(raw []byte) (jsonrpc.Message, *jsonrpc.Response) {
	return c.checkIn(raw, nil)
}

func (c *conn) checkIn(raw []byte, b *batch) (jsonrpc.Message, *jsonrpc.Response) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, invalid(nil, "invalid request: a JSON-RPC message is a JSON object")
	}
	rawID, hasID := f["id"]
	var id *jsonrpc.ID
	if hasID {
		v, err := parseID(rawID)
		if err != nil {
			return nil, invalid(nil, "invalid request: %v", err)
		}
		id = &v
	}
	if v, ok := f["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return nil, invalid(id, `invalid request: "jsonrpc" must be "2.0"`)
	}
	rawMethod, hasMethod := f["method"]
	if !hasMethod {
		_, hasResult := f["result"]
		_, hasError := f["error"]
		switch {
		case id == nil:
			return nil, invalid(nil, "invalid request: no method and no id")
		case !hasResult && !hasError:
			return nil, invalid(id, `invalid request: no "method"`)
		case hasResult && hasError:
			return nil, invalid(id, `invalid response: both "result" and "error"`)
		}
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, invalid(id, "invalid response: %v", err)
		}
		return m, nil
	}
	var method string
	if err := json.Unmarshal(rawMethod, &method); err != nil {
		return nil, invalid(id, `invalid request: "method" must be a string`)
	}
	if p, ok := f["params"]; ok {
		if p = bytes.TrimSpace(p); p[0] != '{' && p[0] != '[' && string(p) != "null" {
			return nil, invalid(id, `invalid request: "params" must be an object or an array`)
		}
	}
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, invalid(id, "invalid request: %v", err)
	}
	if id == nil {
		return m, nil // a notification
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, busy := c.inflight[*id]; busy {
		return nil, invalid(id, "invalid request: id %v is already used by a call in progress", id.Raw())
	}
	c.inflight[*id] = b
	if method == "initialize" {
		c.initID = id
	}
	return m, nil
}

// parseID reads a request id: a string or an integer (MCP: never null).
func parseID(raw json.RawMessage) (jsonrpc.ID, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, err
		}
		return jsonrpc.MakeID(s)
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("the id %s is not an integer", raw)
		}
		return jsonrpc.MakeID(float64(n))
	}
	return jsonrpc.ID{}, fmt.Errorf("the id must be a string or an integer, not %s", raw)
}

// acceptBatch handles a JSON array. Members go to the session one by one
// (queued for Read); the answers go back as one array once all calls in it
// are answered.
func (c *conn) acceptBatch(line []byte) {
	var members []json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil || len(members) == 0 {
		c.reply(invalid(nil, "invalid request: an empty batch"))
		return
	}
	c.mu.Lock()
	protocol := c.protocol
	c.mu.Unlock()
	if protocol == "" || protocol > lastBatchProtocol {
		c.refuseBatch(members, protocol)
		return
	}
	b := &batch{slot: map[jsonrpc.ID]int{}}
	var calls []jsonrpc.ID
	for _, raw := range members {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '{' {
			b.responses = append(b.responses, invalid(nil, "invalid request: a batch member is a JSON object"))
			continue
		}
		m, errResp := c.checkIn(raw, b)
		if errResp != nil {
			b.responses = append(b.responses, errResp)
			continue
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			b.slot[req.ID] = len(b.responses)
			b.responses = append(b.responses, nil)
			calls = append(calls, req.ID)
		}
		c.queue = append(c.queue, m)
	}
	c.mu.Lock()
	b.pending = len(calls)
	if b.pending == 0 && len(b.responses) > 0 {
		c.writeLocked(b.responses)
	}
	c.mu.Unlock()
}

// refuseBatch answers a batch the negotiated protocol does not have (or
// one sent before initialize): -32600 for each call in it, one line each,
// or one id-null -32600 when it holds none.
func (c *conn) refuseBatch(members []json.RawMessage, protocol string) {
	why := "before initialize"
	if protocol != "" {
		why = "in protocol " + protocol
	}
	msg := fmt.Sprintf("invalid request: JSON-RPC batches are not allowed %s (MCP has them only up to %s); send each message on its own line", why, lastBatchProtocol)
	seen := map[jsonrpc.ID]bool{}
	for _, raw := range members {
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method json.RawMessage `json:"method"`
		}
		if json.Unmarshal(raw, &f) != nil || f.ID == nil || f.Method == nil {
			continue
		}
		id, err := parseID(f.ID)
		if err != nil || seen[id] {
			continue
		}
		c.mu.Lock()
		_, busy := c.inflight[id]
		c.mu.Unlock()
		if busy {
			continue
		}
		seen[id] = true
		c.reply(invalid(&id, "%s", msg))
	}
	if len(seen) == 0 {
		c.reply(invalid(nil, "%s", msg))
	}
}

// invalid is a -32600 response for id (nil: null).
func invalid(id *jsonrpc.ID, format string, a ...any) *jsonrpc.Response {
	r := &jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(format, a...)}}
	if id != nil {
		r.ID = *id
	}
	return r
}

// reply writes one response of the transport's own.
func (c *conn) reply(r *jsonrpc.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeLocked(r)
}

// Write implements mcp.Connection. A response to a call in a batch is held
// until the batch is complete; the answer to initialize records the
// negotiated protocol revision.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.writeLocked(msg)
	}
	b, tracked := c.inflight[resp.ID]
	if tracked && c.initID != nil && *c.initID == resp.ID {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if resp.Error == nil && json.Unmarshal(resp.Result, &r) == nil {
			c.protocol = r.ProtocolVersion
		}
		c.initID = nil
	}
	if resp.Error != nil {
		resp.Error = coded(resp.Error, c.protocol == "")
	}
	var err error
	switch {
	case tracked && b != nil:
		b.responses[b.slot[resp.ID]] = resp
		if b.pending--; b.pending == 0 {
			err = c.writeLocked(b.responses)
		}
	default:
		err = c.writeLocked(resp)
	}
	if tracked {
		delete(c.inflight, resp.ID)
		if len(c.inflight) == 0 && c.drained != nil {
			close(c.drained)
			c.drained = nil
		}
	}
	return err
}

// coded gives an error answer the session sent without a JSON-RPC code
// (the go-sdk answers code 0 for its own refusals) a code: before
// initialize has been answered, -32600 (invalid request), saying that
// initialize comes first — the session refuses every call but initialize
// and ping then; after it, -32603 (internal error). An error with a code
// is kept.
func coded(err error, beforeInit bool) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return err
	}
	if beforeInit {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error() + ": send initialize first"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// writeLocked writes one message, or a batch's responses as one array, as
// one line. c.mu is held. A failed write ends waiting at EOF (nothing more
// can be answered).
func (c *conn) writeLocked(v any) error {
	var data []byte
	var err error
	switch v := v.(type) {
	case *jsonrpc.Response:
		data, err = encodeResponse(v)
	case jsonrpc.Message:
		data, err = jsonrpc.EncodeMessage(v)
	case []*jsonrpc.Response:
		raws := make([]json.RawMessage, len(v))
		for i, r := range v {
			if raws[i], err = encodeResponse(r); err != nil {
				break
			}
		}
		if err == nil {
			data, err = json.Marshal(raws)
		}
	}
	if err == nil {
		_, err = c.out.Write(append(data, '\n'))
	}
	if err != nil && c.writeErr == nil {
		c.writeErr = err
		if c.drained != nil {
			close(c.drained)
			c.drained = nil
		}
	}
	return err
}

// encodeResponse encodes r; a response without id (to a frame whose id
// could not be read) carries "id": null, as JSON-RPC 2.0 requires (the
// SDK's encoder would leave the member out).
func encodeResponse(r *jsonrpc.Response) ([]byte, error) {
	if r.ID.IsValid() {
		return jsonrpc.EncodeMessage(r)
	}
	we, _ := r.Error.(*jsonrpc.Error)
	if we == nil {
		we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprint(r.Error)}
	}
	return json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, we})
}
