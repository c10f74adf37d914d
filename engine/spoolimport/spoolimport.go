// Package spoolimport moves the hooks' denial spool (package hosts: hooks
// append denials there without the state lock) into the audit log, inside
// the write transaction of the next mutation: each denial one
// permission.denied event, each spool segment imported exactly once. It
// writes through Tx and never imports the top engine package.
package spoolimport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/kernel"
)

// Tx is what an import reads and writes: a kernel write transaction.
type Tx interface {
	SpoolImported() (map[string]string, error)
	SetSpoolImported(m map[string]string) error
	AppendEvent(e kernel.Event) error
}

// DenialEvent is the permission.denied event of the denial r. The spool
// lies in the work tree and is written without the state lock, so a line
// can be forged by an agent: its agent is the event's actor only when it
// names an agent, never a reserved actor ("human", "loopx", none), which
// becomes UnverifiedActor.
func DenialEvent(r hosts.Denial) kernel.Event {
	data := map[string]any{"tool": r.Tool, "action": r.Action, "codes": r.Codes, "verdict": r.Verdict, "denied_at": r.At.UTC().Format(time.RFC3339Nano)}
	actor := r.Agent
	if reservedActor(actor) {
		data["claimed_actor"] = actor
		actor = UnverifiedActor
	}
	return kernel.Event{Kind: "permission.denied", Goal: r.Goal, Actor: actor, Subject: r.DecisionID, Message: r.Message, Data: data}
}

// UnverifiedActor is the actor of a spooled denial whose line names no
// agent, or an actor an agent cannot be (DenialEvent).
const UnverifiedActor = "unverified"

// reservedActor reports whether a is an actor a hook's line may not claim:
// a human, loopx itself, or none.
func reservedActor(a string) bool {
	switch strings.ToLower(strings.TrimSpace(a)) {
	case "", "human", "loopx", "dashboard", "terminal":
		return true
	}
	return strings.HasPrefix(strings.ToLower(a), "human")
}

// Import imports the spool in dir into tx: the live file is rotated into
// a segment, each segment not recorded as imported (by its hash) becomes
// one permission.denied event per line (an unreadable or torn line is
// kept as written), and the imported segments are recorded. It returns
// the segment files to delete once tx has committed (those committed
// before a crash too: never imported twice). Errors reading the spool are
// returned (the caller's transaction then fails and nothing is lost).
func Import(tx Tx, dir string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, nil
	}
	segs, err := hosts.SpoolSegments(dir)
	if err != nil {
		return nil, err
	}
	done, err := tx.SpoolImported()
	if err != nil {
		return nil, err
	}
	if seg, err := hosts.RotateSpool(dir, segs, done); err != nil {
		return nil, err
	} else if seg != "" {
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return nil, nil
	}
	mark := map[string]string{}
	fresh := false
	var files []string
	for _, name := range segs {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading the denial spool: %w", err)
		}
		sum := sha256.Sum256(data)
		h := hex.EncodeToString(sum[:])
		mark[name] = h
		files = append(files, path)
		if done[name] == h {
			continue // committed before a crash: delete, never import twice
		}
		fresh = true
		if err := importSegment(tx, name, data); err != nil {
			return nil, err
		}
	}
	if fresh {
		if err := tx.SetSpoolImported(mark); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// importSegment appends one permission.denied event per line of data.
func importSegment(tx Tx, name string, data []byte) error {
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, raw := range lines {
		if len(raw) == 0 {
			continue
		}
		line := bytes.TrimRight(raw, "\n")
		torn := !bytes.HasSuffix(raw, []byte("\n"))
		var r hosts.Denial
		if len(bytes.TrimSpace(line)) == 0 && !torn {
			continue
		}
		if torn || json.Unmarshal(line, &r) != nil || r.Goal == "" {
			what := "an unreadable line"
			if torn {
				what = "a torn line (the hook stopped while writing it)"
			}
			text := string(line)
			if len(text) > 2048 {
				text = text[:2048] + "…"
			}
			if err := tx.AppendEvent(kernel.Event{Kind: "permission.denied", Actor: "loopx", Subject: name + ":" + strconv.Itoa(i+1),
				Message: "denial spool: " + what + " kept as written",
				Data:    map[string]any{"raw": text, "spool": name, "line": i + 1}}); err != nil {
				return err
			}
			continue
		}
		if err := tx.AppendEvent(DenialEvent(r)); err != nil {
			return err
		}
	}
	return nil
}
