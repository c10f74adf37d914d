package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/kernel"
)

// source is what a decision reads from the kernel: a read transaction, or
// the cached read model. Both give the same records in the same order.
type source interface {
	Now() time.Time
	Revision() uint64
	Goal(id string) (kernel.GoalState, error)
	Todos(goal string) ([]kernel.Todo, error)
	Gates(goal string) ([]kernel.Gate, error)
	Rounds(goal string) ([]kernel.Round, error)
	Ledger(goal string) ([]kernel.LedgerEntry, error)
	Agent(id string) (kernel.Agent, error)
}

// readModelVersion changes whenever the read model's shape does.
const readModelVersion = 4

// readModel is the part of the kernel that should_run decisions read —
// goals, todos, gates, rounds, the ledger, agents; never evidence or events,
// which are most of the store — kept as one JSON file
// (.loopx/cache/readmodel.json). Every engine write refreshes it after its
// commit, under the store lock, stamped with state.db's size, mtime and
// inode; a decision uses it only while that stamp still matches, so a
// `loopx decide` process reads a small file instead of replaying the whole
// append-only store. Any other writer (or a crash between the commit and
// the refresh) changes the stamp, and decisions fall back to the store.
type readModel struct {
	Version int                   `json:"version"`
	Rev     uint64                `json:"rev"`
	Stamp   fileStamp             `json:"stamp"`
	Goals   map[string]*goalModel `json:"goals"`
	Agents  map[string]kernel.Agent
	// Rules are the adopted rules (nil when none): decisions read them
	// here without opening the store or evaluating CUE.
	Rules *kernel.Rules `json:"rules"`
	// Newest is the newest instant a commit of the store recorded
	// (kernel.Store.NewestInstant; zero for a store that predates it), so
	// that a decision read from here reports a clock moved back as one
	// read from the store does (Engine.ClockBehind).
	Newest time.Time `json:"newest"`
	now    time.Time
}

type goalModel struct {
	// Evidence is the number of evidence records (for status).
	Evidence int `json:"evidence"`
	// LastHandoff is the newest handoff (for status), nil when none.
	LastHandoff *kernel.Handoff      `json:"last_handoff"`
	State       kernel.GoalState     `json:"state"`
	Todos       []kernel.Todo        `json:"todos"`
	Gates       []kernel.Gate        `json:"gates"`
	Rounds      []kernel.Round       `json:"rounds"`
	Ledger      []kernel.LedgerEntry `json:"ledger"`
}

// fileStamp identifies one version of state.db: its size, mtime and inode,
// and a hash of its first and last 4 KiB (so that an overwrite that keeps
// the size and restores the mtime still does not match).
type fileStamp struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime_ns"`
	Inode uint64 `json:"inode"`
	Ends  string `json:"ends"`
}

// stampOf reads path's stamp. Reading the file's ends also proves it
// readable: an unreadable store fails closed instead of being skipped.
func stampOf(path string) (fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileStamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileStamp{}, err
	}
	st := fileStamp{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.Inode = sys.Ino
	}
	const n = 4096
	buf := make([]byte, 2*n)
	head, err := f.ReadAt(buf[:n], 0)
	if err != nil && err != io.EOF {
		return fileStamp{}, err
	}
	off := max(fi.Size()-n, 0)
	tail, err := f.ReadAt(buf[n:], off)
	if err != nil && err != io.EOF {
		return fileStamp{}, err
	}
	sum := sha256.Sum256(append(buf[:head:head], buf[n:n+tail]...))
	st.Ends = hex.EncodeToString(sum[:16])
	return st, nil
}

func (e *Engine) readModelPath() string {
	return filepath.Join(e.StateDir(), "cache", "readmodel.json")
}

// loadReadModel returns the cached read model when it matches state.db
// exactly and the file is readable; nil otherwise.
func (e *Engine) loadReadModel(now time.Time) *readModel {
	dbPath := filepath.Join(e.StateDir(), kernel.DBFile)
	st, err := stampOf(dbPath)
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(e.readModelPath())
	if err != nil {
		return nil
	}
	var rm readModel
	if json.Unmarshal(b, &rm) != nil || rm.Version != readModelVersion || rm.Stamp != st || rm.Goals == nil {
		return nil
	}
	rm.now = now
	e.rmNewest = rm.Newest
	return &rm
}

// writeReadModel refreshes the read model from the open store. It must run
// while this engine holds the store (and so the lock), after a commit.
// Failures only cost speed: the stale file no longer matches and is ignored.
func (e *Engine) writeReadModel() {
	if e.store == nil || e.spec == nil || e.spec.Spec == nil {
		return
	}
	if st, err := stampOf(e.store.Path()); err == nil && st == e.rmStamp {
		return // this engine wrote it for this very state.db already
	}
	rm, b, err := e.buildReadModel()
	if err != nil {
		return
	}
	path := e.readModelPath()
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	if atomicfile.Write(path, b) == nil {
		e.rmStamp = rm.Stamp
	}
}

// VerifyReadModel reports whether the read model file, when it claims to
// describe the current state.db, holds exactly what the store says. A
// mismatch means it was edited outside loopx: the file is removed (the next
// decision reads the store) and false is returned. It needs the store open.
func (e *Engine) VerifyReadModel() (bool, error) {
	if _, err := e.Store(); err != nil {
		return false, err
	}
	on, err := os.ReadFile(e.readModelPath())
	if err != nil {
		return true, nil // none: nothing to trust or distrust
	}
	var claimed readModel
	if json.Unmarshal(on, &claimed) != nil {
		_ = os.Remove(e.readModelPath())
		return true, nil // unreadable: never used by decisions
	}
	_, fresh, err := e.buildReadModel()
	if err != nil {
		return false, err
	}
	var cur readModel
	_ = json.Unmarshal(fresh, &cur)
	if claimed.Stamp != cur.Stamp || string(on) == string(fresh) {
		return true, nil // stale (ignored by decisions) or genuine
	}
	_ = os.Remove(e.readModelPath())
	return false, nil
}

// buildReadModel reads the read model from the open store.
func (e *Engine) buildReadModel() (readModel, []byte, error) {
	rm := readModel{Version: readModelVersion, Goals: map[string]*goalModel{}, Agents: map[string]kernel.Agent{}}
	err := e.store.View(func(tx *kernel.Tx) error {
		rm.Rev = tx.Revision()
		for _, g := range e.GoalIDs() {
			var gm goalModel
			var err error
			if gm.State, err = tx.Goal(g); err != nil {
				return err
			}
			if gm.Todos, err = tx.Todos(g); err != nil {
				return err
			}
			if gm.Gates, err = tx.Gates(g); err != nil {
				return err
			}
			if gm.Rounds, err = tx.Rounds(g); err != nil {
				return err
			}
			if gm.Ledger, err = tx.Ledger(g); err != nil {
				return err
			}
			if gm.Evidence, err = tx.EvidenceCount(g); err != nil {
				return err
			}
			if h, ok, err := tx.LatestHandoff(g); err != nil {
				return err
			} else if ok {
				gm.LastHandoff = &h
			}
			rm.Goals[g] = &gm
		}
		if r, ok, err := tx.Rules(); err != nil {
			return err
		} else if ok {
			rm.Rules = &r
		}
		as, err := tx.Agents()
		for _, a := range as {
			rm.Agents[a.ID] = a
		}
		return err
	})
	if err != nil {
		return rm, nil, err
	}
	if rm.Newest, err = e.store.NewestInstant(); err != nil {
		return rm, nil, err
	}
	if rm.Stamp, err = stampOf(e.store.Path()); err != nil {
		return rm, nil, err
	}
	b, err := json.Marshal(rm)
	return rm, b, err
}

func (rm *readModel) goal(id string) *goalModel {
	if g, ok := rm.Goals[id]; ok {
		return g
	}
	return &goalModel{State: kernel.GoalState{ID: id, Status: kernel.GoalActive}}
}

func (rm *readModel) Now() time.Time                           { return rm.now }
func (rm *readModel) Revision() uint64                         { return rm.Rev }
func (rm *readModel) Goal(id string) (kernel.GoalState, error) { return rm.goal(id).State, nil }
func (rm *readModel) Todos(goal string) ([]kernel.Todo, error) { return rm.goal(goal).Todos, nil }
func (rm *readModel) Gates(goal string) ([]kernel.Gate, error) { return rm.goal(goal).Gates, nil }
func (rm *readModel) Rounds(goal string) ([]kernel.Round, error) {
	return rm.goal(goal).Rounds, nil
}
func (rm *readModel) Ledger(goal string) ([]kernel.LedgerEntry, error) {
	return rm.goal(goal).Ledger, nil
}
func (rm *readModel) Agent(id string) (kernel.Agent, error) {
	if a, ok := rm.Agents[id]; ok {
		return a, nil
	}
	return kernel.Agent{}, kernel.NotFound("agent", id)
}

func (rm *readModel) EvidenceCount(goal string) (int, error) { return rm.goal(goal).Evidence, nil }

// Handoffs returns the newest handoff only: all that status reads.
func (rm *readModel) Handoffs(goal string) ([]kernel.Handoff, error) {
	if h := rm.goal(goal).LastHandoff; h != nil {
		return []kernel.Handoff{*h}, nil
	}
	return nil, nil
}

// has reports whether the read model was written with every goal in goals
// (a writer with an older spec may have left one out: read the store then).
func (rm *readModel) has(goals ...string) bool {
	for _, g := range goals {
		if _, ok := rm.Goals[g]; !ok {
			return false
		}
	}
	return true
}
