package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LogMaxBytes is the size at which decisions.jsonl is rotated.
const LogMaxBytes = 16 << 20

// LogKeep is how many rotated decision logs are kept (decisions.jsonl.1 …).
const LogKeep = 3

// LogEntry is one line of .loopx/decisions.jsonl. Field names follow OPA's
// decision log (decision_id, path, input, result, timestamp), plus the
// revisions the decision saw and a hash of the input. The logged input
// keeps the request and health but not the kernel snapshot (todos, gates,
// quota): the store revision and InputHash identify it, which keeps the log
// small and free of state contents.
type LogEntry struct {
	DecisionID string    `json:"decision_id"`
	Path       string    `json:"path"`
	Input      Input     `json:"input"`
	InputHash  string    `json:"input_hash"`
	Result     Decision  `json:"result"`
	Timestamp  time.Time `json:"timestamp"`
	Revision   Revision  `json:"revision"`
}

// LogPath is the decision log of the project.
func (e *Engine) LogPath() string { return filepath.Join(e.StateDir(), LogFileName) }

// logDecision appends d to the decision log as one JSON line (a single
// write, so concurrent writers do not interleave lines), rotating by size.
func (e *Engine) logDecision(d Decision, in Input, now time.Time) error {
	inRaw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(inRaw)
	logged := in
	logged.State = Snapshot{Revision: in.State.Revision, GoalRevision: in.State.GoalRevision}
	entry := LogEntry{DecisionID: d.DecisionID, Path: "loopx/" + policyArea(d.Query) + "/decision", Input: logged,
		InputHash: "sha256:" + hex.EncodeToString(sum[:]), Result: d, Timestamp: now, Revision: d.Revision}
	line, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if err := os.MkdirAll(e.StateDir(), 0o755); err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	path := e.LogPath()
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(line)) > LogMaxBytes {
		rotate(path)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("decision log %s: %w", path, werr)
	}
	return nil
}

func rotate(path string) {
	for i := LogKeep - 1; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", path, i), fmt.Sprintf("%s.%d", path, i+1))
	}
	_ = os.Rename(path, path+".1")
}
