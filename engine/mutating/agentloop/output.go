package agentloop

import (
	"io"
	"os"
	"sync"

	"golang.org/x/term"
)

// commandOutput is where the agent command writes for w: a terminal is
// given to it as it is (an interactive agent keeps its terminal, and a
// terminal raises no broken pipe); anything else through a pipe loopx
// reads (os/exec's copy) into a keepWriting, so that a destination that
// went away — loopx's output piped into `head` — never reaches the
// command as SIGPIPE or EPIPE: the agent finishes its round, and the
// round is not failed for it. A nil w discards.
func commandOutput(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return &keepWriting{w: w}
}

// keepWriting writes to w until a write fails, then drops the rest; it
// never returns an error, so the copy from the command's pipe keeps
// draining it.
type keepWriting struct {
	mu     sync.Mutex
	w      io.Writer
	broken bool
}

// Write writes p to the destination unless an earlier write failed, and
// reports p written either way.
func (k *keepWriting) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.broken {
		if _, err := k.w.Write(p); err != nil {
			k.broken = true
		}
	}
	return len(p), nil
}
