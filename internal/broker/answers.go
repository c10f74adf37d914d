package broker

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

// Bounds of the answers a Server keeps (Answers): how many, how much
// output in all, how long after the command ended, and how much output
// one answer keeps (over it, only its exit code is kept).
const (
	MaxAnswers      = 512
	MaxAnswerBytes  = 32 << 20
	AnswerTTL       = 10 * time.Minute
	MaxAnswerOutput = wire.MaxAnswerOutput
)

// Answers keeps what a Server answered to keyed requests (Request.Key),
// so that a client whose connection ended before the exit frame asks
// again (Request.Retry) and gets the first answer: a key is run once.
// Only the process that sent a key (its pid and start time, as the kernel
// names the socket's peer) with the same arguments gets its answer. It is
// bounded (MaxAnswers, MaxAnswerBytes, AnswerTTL, MaxAnswerOutput) and
// lives in the server's memory only: a retry whose answer is not kept
// (forgotten, or sent to another server) is refused, never run. Safe for
// concurrent use.
type Answers struct {
	mu    sync.Mutex
	byKey map[string]*answer
	ended []*answer // answers of commands that ended, oldest first
	bytes int
	now   func() time.Time
}

// NewAnswers is an empty Answers on the system clock.
func NewAnswers() *Answers { return &Answers{byKey: map[string]*answer{}, now: time.Now} }

// proc names a process: its pid and start time (0 where the system does
// not say), so a pid reused since is another process.
type proc struct {
	pid   int
	start uint64
}

// answer is one keyed command's answer, recorded as it runs.
type answer struct {
	key    string
	owner  proc
	argv   []string
	done   chan struct{} // closed when the command ended
	frames []recordedFrame
	size   int
	over   bool // its output went over MaxAnswerOutput: not kept
	code   int
	at     time.Time // when it ended
}

type recordedFrame struct {
	kind    byte
	payload []byte
}

// begin registers req's key for owner: fresh is true when the key is new
// and the command is to run now (its answer recorded); otherwise a is the
// answer to give again. a is nil for a retry of a key not kept.
func (as *Answers) begin(req wire.Request, owner proc) (a *answer, fresh bool) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.evict()
	if a, ok := as.byKey[req.Key]; ok {
		return a, false
	}
	if req.Retry {
		return nil, false
	}
	a = &answer{key: req.Key, owner: owner, argv: slices.Clone(req.Argv), done: make(chan struct{})}
	as.byKey[req.Key] = a
	return a, true
}

// record adds one output frame to a's answer.
func (as *Answers) record(a *answer, kind byte, p []byte) {
	as.mu.Lock()
	defer as.mu.Unlock()
	if a.over {
		return
	}
	if a.size+len(p) > MaxAnswerOutput {
		a.over, a.frames, a.size = true, nil, 0
		return
	}
	a.frames = append(a.frames, recordedFrame{kind, slices.Clone(p)})
	a.size += len(p)
}

// finish records a's exit code and keeps the answer within the bounds.
func (as *Answers) finish(a *answer, code int) {
	as.mu.Lock()
	defer as.mu.Unlock()
	a.code, a.at = code, as.now()
	close(a.done)
	as.ended = append(as.ended, a)
	as.bytes += a.size
	as.evict()
}

// evict forgets the oldest ended answers beyond the bounds.
func (as *Answers) evict() {
	cut := as.now().Add(-AnswerTTL)
	for len(as.ended) > 0 && (len(as.ended) > MaxAnswers || as.bytes > MaxAnswerBytes || as.ended[0].at.Before(cut)) {
		old := as.ended[0]
		as.ended = as.ended[1:]
		as.bytes -= old.size
		delete(as.byKey, old.key)
	}
}

// replay answers req again with a's recorded answer, once its command
// has ended (or ctx is done: exit 3): its output frames through write
// and its exit code, returned. A caller other than the process that sent
// the key first, or other arguments, is refused (exit 3).
func (as *Answers) replay(ctx context.Context, a *answer, owner proc, req wire.Request, write func(kind byte, p []byte) error, stderr io.Writer) int {
	if a.owner != owner || !slices.Equal(a.argv, req.Argv) {
		fmt.Fprintf(stderr, "loopx server: key %s belongs to another command: not run\n", req.Key)
		return 3
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		fmt.Fprintf(stderr, "loopx server: the command of key %s did not end in time: %v\n", req.Key, ctx.Err())
		return 3
	}
	as.mu.Lock()
	frames, over, code := a.frames, a.over, a.code
	as.mu.Unlock()
	if over {
		fmt.Fprintf(stderr, "loopx server: the command ran once (exit %d); its output (over %d bytes) is not kept, and it is not run again\n", code, MaxAnswerOutput)
		return 3
	}
	for _, f := range frames {
		if err := write(f.kind, f.payload); err != nil {
			return 3
		}
	}
	return code
}

// recording is an output stream of a keyed command: each write is
// recorded in its answer first, then sent as frames; a client gone does
// not fail the command (its answer is kept for the retry).
type recording struct {
	as   *Answers
	a    *answer
	out  frames
	kind byte
}

func (r recording) Write(p []byte) (int, error) {
	r.as.record(r.a, r.kind, p)
	_, _ = r.out.Write(p)
	return len(p), nil
}
