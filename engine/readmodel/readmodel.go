// Package readmodel is the cached read model of a project's state
// (readmodel.json in the project's anchor directory, internal/anchor): the part of the kernel that decisions
// read, kept as one JSON file stamped with the identity of state.db, and
// used only while that stamp still matches.
package readmodel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/kernel"
)

// Version changes whenever the read model's shape does.
const Version = 4

// Model is the part of the kernel that should_run decisions read —
// goals, todos, gates, rounds, the ledger, agents; never evidence or events,
// which are most of the store — kept as one JSON file in the project's
// anchor directory (outside the work tree: an agent confined to it cannot
// reach it). Every engine write refreshes it: its content and state.db's
// stamp (size, mtime, inode, a hash of its ends) are taken together under
// the store lock after the commit (Take), and the file is written by
// rename after the lock is released (WriteAfter); a decision uses it only
// while that stamp still matches, so a `loopx decide` process reads a
// small file instead of replaying the whole append-only store. Any other
// writer (or a crash between the commit and the rename) changes the stamp,
// and decisions fall back to the store.
// A loaded Model reads like a kernel read transaction (the same records
// in the same order).
type Model struct {
	Version int    `json:"version"`
	Rev     uint64 `json:"rev"`
	Stamp   Stamp  `json:"stamp"`
	// Head is the store's chain head (kernel.Store.Head: the block hash
	// of the last committed transaction) the model was built at: a model
	// is used only while the anchor names this very head (Engine
	// loadReadModel), so a store and read model copied back together
	// behind the anchor are never read.
	Head   string                `json:"head"`
	Goals  map[string]*GoalModel `json:"goals"`
	Agents map[string]kernel.Agent
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

// GoalModel is one goal's records in the read model.
type GoalModel struct {
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

// Stamp identifies one version of state.db: its size, mtime (ns) and
// inode (0 where the platform has none), and a hash of its first and last
// 4 KiB (so that an overwrite that keeps the size and restores the mtime
// still does not match).
type Stamp struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime_ns"`
	Inode uint64 `json:"inode"`
	Ends  string `json:"ends"`
}

// StampOf reads path's stamp. Reading the file's ends also proves it
// readable: an unreadable store fails closed instead of being skipped.
// Errors: the file's open, stat or read errors.
func StampOf(path string) (Stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Stamp{}, err
	}
	st := Stamp{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Inode: inode(fi)}
	const n = 4096
	buf := make([]byte, 2*n)
	head, err := f.ReadAt(buf[:n], 0)
	if err != nil && err != io.EOF {
		return Stamp{}, err
	}
	off := max(fi.Size()-n, 0)
	tail, err := f.ReadAt(buf[n:], off)
	if err != nil && err != io.EOF {
		return Stamp{}, err
	}
	sum := sha256.Sum256(append(buf[:head:head], buf[n:n+tail]...))
	st.Ends = hex.EncodeToString(sum[:16])
	return st, nil
}

// Load returns the read model at path when it matches the store file db
// exactly and is readable, with now as its clock; nil otherwise.
func Load(path, db string, now time.Time) *Model {
	st, err := StampOf(db)
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rm Model
	if json.Unmarshal(b, &rm) != nil || rm.Version != Version || rm.Stamp != st || rm.Goals == nil {
		return nil
	}
	rm.now = now
	return &rm
}

// Write writes b (a Build's JSON) to path atomically (mode 0600), creating
// its directory (0700). Errors: I/O errors (they only cost speed: a stale file no
// longer matches and is ignored).
func Write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b)
}

// Build reads the read model of goals from the open store s, and its
// JSON. Errors: the store's.
func Build(s *kernel.Store, goals []string) (Model, []byte, error) {
	rm := Model{Version: Version, Goals: map[string]*GoalModel{}, Agents: map[string]kernel.Agent{}}
	_, rm.Head = s.Head()
	err := s.View(func(tx *kernel.Tx) error {
		rm.Rev = tx.Revision()
		for _, g := range goals {
			var gm GoalModel
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
	if rm.Newest, err = s.NewestInstant(); err != nil {
		return rm, nil, err
	}
	if rm.Stamp, err = StampOf(s.Path()); err != nil {
		return rm, nil, err
	}
	b, err := json.Marshal(rm)
	return rm, b, err
}

// Refresh is a read model built under the store's lock (Take), to be
// written once the lock is released (WriteAfter). The zero Refresh writes
// nothing.
type Refresh struct {
	stamp Stamp
	b     []byte
	path  string
}

// Take builds the read model of goals from the open store s for path
// (Build: its content and state.db's stamp together), unless the model
// written last (stamp last) already is this very state.db's; a store that
// cannot be read leaves nothing to write. Call it under the lock, after
// the last commit and any shrink: the stamp then names the content the
// model holds, whenever the file is written.
func Take(s *kernel.Store, path string, goals []string, last Stamp) Refresh {
	if st, err := StampOf(s.Path()); err == nil && st == last {
		return Refresh{}
	}
	rm, b, err := Build(s, goals)
	if err != nil {
		return Refresh{}
	}
	return Refresh{stamp: rm.Stamp, b: b, path: path}
}

// WriteAfter writes the model Take built to its path by rename, after the
// lock was released, when state.db at db still has the model's stamp:
// otherwise another process committed since, and its own refresh is the
// one to keep (should this rename still land after that process's, the
// file only goes unmatched, and decisions read the store). It returns the
// stamp written, or last when it wrote nothing; failures only cost speed.
func (r Refresh) WriteAfter(db string, last Stamp) Stamp {
	if r.b == nil {
		return last
	}
	if st, err := StampOf(db); err != nil || st != r.stamp || Write(r.path, r.b) != nil {
		return last
	}
	return r.stamp
}

// Verify reports whether the read model file at path, when it claims to
// describe the open store s's current state.db, holds exactly what the
// store says about goals. A mismatch means it was edited outside loopx:
// the file is removed (the next decision reads the store) and false is
// returned. No file, or an unreadable one (removed; never used by
// decisions), is true. Errors: the store's.
func Verify(path string, s *kernel.Store, goals []string) (bool, error) {
	on, err := os.ReadFile(path)
	if err != nil {
		return true, nil // none: nothing to trust or distrust
	}
	var claimed Model
	if json.Unmarshal(on, &claimed) != nil {
		_ = os.Remove(path)
		return true, nil // unreadable: never used by decisions
	}
	_, fresh, err := Build(s, goals)
	if err != nil {
		return false, err
	}
	var cur Model
	_ = json.Unmarshal(fresh, &cur)
	if claimed.Stamp != cur.Stamp || string(on) == string(fresh) {
		return true, nil // stale (ignored by decisions) or genuine
	}
	_ = os.Remove(path)
	return false, nil
}

func (rm *Model) goal(id string) *GoalModel {
	if g, ok := rm.Goals[id]; ok {
		return g
	}
	return &GoalModel{State: kernel.GoalState{ID: id, Status: kernel.GoalActive}}
}

// Now is the clock Load was given.
func (rm *Model) Now() time.Time { return rm.now }

// Revision is the store's global revision the model was built at.
func (rm *Model) Revision() uint64 { return rm.Rev }

// Goal is goal id's state (an active goal with no records when the model
// has none).
func (rm *Model) Goal(id string) (kernel.GoalState, error) { return rm.goal(id).State, nil }

// Todos are goal's todos, as the store orders them.
func (rm *Model) Todos(goal string) ([]kernel.Todo, error) { return rm.goal(goal).Todos, nil }

// Gates are goal's gates, as the store orders them.
func (rm *Model) Gates(goal string) ([]kernel.Gate, error) { return rm.goal(goal).Gates, nil }

// Rounds are goal's rounds, as the store orders them.
func (rm *Model) Rounds(goal string) ([]kernel.Round, error) {
	return rm.goal(goal).Rounds, nil
}

// Ledger is goal's ledger, as the store orders it.
func (rm *Model) Ledger(goal string) ([]kernel.LedgerEntry, error) {
	return rm.goal(goal).Ledger, nil
}

// Agent is agent id; errors: kernel.NotFound when the model has none.
func (rm *Model) Agent(id string) (kernel.Agent, error) {
	if a, ok := rm.Agents[id]; ok {
		return a, nil
	}
	return kernel.Agent{}, kernel.NotFound("agent", id)
}

// EvidenceCount is the number of goal's evidence records.
func (rm *Model) EvidenceCount(goal string) (int, error) { return rm.goal(goal).Evidence, nil }

// Handoffs returns the newest handoff only: all that status reads.
func (rm *Model) Handoffs(goal string) ([]kernel.Handoff, error) {
	if h := rm.goal(goal).LastHandoff; h != nil {
		return []kernel.Handoff{*h}, nil
	}
	return nil, nil
}

// Has reports whether the read model was written with every goal in goals
// (a writer with an older spec may have left one out: read the store then).
func (rm *Model) Has(goals ...string) bool {
	for _, g := range goals {
		if _, ok := rm.Goals[g]; !ok {
			return false
		}
	}
	return true
}

// AnyOpenGate reports whether a goal of the model has an open gate (a
// mutation that decides claim only under an open gate compiles it before
// it takes the lock, then).
func (rm *Model) AnyOpenGate() bool {
	for _, g := range rm.Goals {
		for _, gt := range g.Gates {
			if gt.Status == kernel.GateOpen {
				return true
			}
		}
	}
	return false
}
