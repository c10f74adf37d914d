// Package readmodel is the cached read model of a project's state
// (readmodel.json in the project's anchor directory, internal/anchor): the part of the kernel that decisions
// read, kept as one JSON file stamped with the identity of state.db, and
// used only while that stamp still matches.
package readmodel

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/kernel"
)

// Version changes whenever the read model's shape does.
const Version = 6

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
//
// The file is two JSON documents, one per line: the Model, then every
// goal's todos (all statuses, as the store orders them). The second is
// decoded only when something reads Todos: a decision reads each goal's
// Hot todos instead (a permission decision none), so that its cost does
// not grow with the number of todos. The first line ends with a space and
// the SHA-256 of the JSON before it, and carries the SHA-256 of the second
// line (TodosSum): a file edited without recomputing them (a forged gate
// status, todo or rule) is never used, and decisions read the store. A
// process that recomputes them is not stopped (README: what loopx cannot
// stop).
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
	// Bundle names the claim order the Hot todos were ordered by (the
	// built-in policy bundle's hash, Order.Bundle): a model written by a
	// loopx build with other policies is not used.
	Bundle string `json:"bundle"`
	// TodosSum is the SHA-256 (hex) of the file's second line, checked
	// when it is read (Todos).
	TodosSum string `json:"todos_sum"`
	now      time.Time
	// todos is every goal's todos once read (the file's second line); path
	// is the file Load read, and core its first line, which the file must
	// still start with when the todos are read.
	todos map[string][]kernel.Todo
	path  string
	core  []byte
	// later decodes each goal's todos read under the lock (read), once
	// encode needs them (after the unlock: kernel.Tx.TodosLater).
	later map[string]func() ([]kernel.Todo, error)
}

// GoalModel is one goal's records in the read model.
type GoalModel struct {
	// Evidence is the number of evidence records (for status).
	Evidence int `json:"evidence"`
	// LastHandoff is the newest handoff (for status), nil when none.
	LastHandoff *kernel.Handoff      `json:"last_handoff"`
	State       kernel.GoalState     `json:"state"`
	Gates       []kernel.Gate        `json:"gates"`
	Rounds      []kernel.Round       `json:"rounds"`
	Ledger      []kernel.LedgerEntry `json:"ledger"`
	// Hot is what a decision reads of the goal's todos (nil when the
	// claim order could not be computed: decisions read every todo).
	Hot *Hot `json:"hot"`
	// Seeded are the goal's todos seeded from the spec (SpecName set),
	// any status: whether the spec's todos are all stored is known
	// without reading every todo.
	Seeded []kernel.Todo `json:"seeded"`
}

// HeadSize is how many todos of the claim order Hot.Head keeps.
const HeadSize = 256

// Hot is the part of a goal's todos a decision reads, computed once per
// state revision (Build). The open todos are those not done or
// cancelled, in the store's order (input.state.todos when it lists them
// all); the claim order is data.loopx.lib.claim_order over their facts:
// the todos some agent may claim, in the order should_run selects them
// for an agent that holds none of them.
type Hot struct {
	// Open is the number of open todos; Order the length of the claim
	// order.
	Open  int `json:"open"`
	Order int `json:"order"`
	// Head is the first HeadSize todos of the claim order, in that order.
	Head []HotTodo `json:"head"`
	// Cover is the length of the shortest prefix of the claim order that
	// holds every todo in it with a lease record (0 when none has one):
	// the rank of such a todo depends on who asks (own live claims come
	// first), so a window of the claim order must reach past all of them.
	Cover int `json:"cover"`
	// Leased are the goal's todos of any status whose lease is not
	// released; Monitors its monitor todos that are not done.
	Leased   []kernel.Todo `json:"leased"`
	Monitors []kernel.Todo `json:"monitors"`
}

// HotTodo is one todo of Hot.Head: the record, its index among the open
// todos, and its open dependencies (input.state.todos[].deps_open).
type HotTodo struct {
	Todo     kernel.Todo `json:"todo"`
	Index    int         `json:"index"`
	DepsOpen []string    `json:"deps_open"`
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
// exactly, is readable and was ordered by the claim order named bundle
// (Order.Bundle), with now as its clock; nil otherwise.
func Load(path, db, bundle string, now time.Time) *Model {
	st, err := StampOf(db)
	if err != nil {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	// Only the first line: the todos (most of the file) are read when
	// something lists them (Todos).
	core, err := bufio.NewReaderSize(f, 64<<10).ReadBytes('\n')
	var rm Model
	if err != nil {
		return nil
	}
	doc, ok := checked(core)
	if !ok || json.Unmarshal(doc, &rm) != nil || rm.Version != Version || rm.Stamp != st || rm.Goals == nil || rm.Bundle != bundle {
		return nil
	}
	rm.now, rm.path, rm.core = now, path, core
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

// Order computes a goal's claim order (data.loopx.lib.claim_order, see
// Hot) once per state revision: Claim maps all the goal's todos, as the
// store orders them, to the claim order (indexes among the open todos)
// and the open dependencies of each open todo; Bundle names the policies
// it evaluates (Model.Bundle).
type Order struct {
	Bundle string
	Claim  func(todos []kernel.Todo) (order []int, depsOpen [][]string, err error)
}

// Build reads the read model of goals from the open store s, and its
// JSON, with each goal's Hot todos in order's claim order (none when
// order.Claim is nil or fails: decisions then read every todo). Errors:
// the store's.
func Build(s *kernel.Store, goals []string, order Order) (Model, []byte, error) {
	rm, err := read(s, goals)
	if err != nil {
		return rm, nil, err
	}
	b, err := rm.encode(order)
	return rm, b, err
}

// read reads the records of the read model of goals from the open store
// s, with state.db's stamp (the part of Build that needs the store; the
// todos' records are decoded by encode).
func read(s *kernel.Store, goals []string) (Model, error) {
	rm := Model{Version: Version, Goals: map[string]*GoalModel{}, Agents: map[string]kernel.Agent{},
		todos: map[string][]kernel.Todo{}, later: map[string]func() ([]kernel.Todo, error){}}
	_, rm.Head = s.Head()
	err := s.View(func(tx *kernel.Tx) error {
		rm.Rev = tx.Revision()
		for _, g := range goals {
			var gm GoalModel
			var err error
			if gm.State, err = tx.Goal(g); err != nil {
				return err
			}
			rm.later[g] = tx.TodosLater(g)
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
		return rm, err
	}
	if rm.Newest, err = s.NewestInstant(); err != nil {
		return rm, err
	}
	rm.Stamp, err = StampOf(s.Path())
	return rm, err
}

// encode computes each goal's Hot in order's claim order and returns the
// file's content (the part of Build that needs no store: no lock).
func (rm *Model) encode(order Order) ([]byte, error) {
	for g, todos := range rm.later {
		var err error
		if rm.todos[g], err = todos(); err != nil {
			return nil, err
		}
	}
	rm.later = nil
	rm.Bundle = order.Bundle
	for g, gm := range rm.Goals {
		gm.Hot = HotOf(rm.todos[g], order)
		gm.Seeded = []kernel.Todo{}
		for _, t := range rm.todos[g] {
			if t.SpecName != "" {
				gm.Seeded = append(gm.Seeded, t)
			}
		}
	}
	full, err := json.Marshal(rm.todos)
	if err != nil {
		return nil, err
	}
	rm.TodosSum = sum(full)
	core, err := json.Marshal(rm)
	if err != nil {
		return nil, err
	}
	return slices.Concat(core, []byte(" "+sum(core)+"\n"), full), nil
}

// sum is the lowercase hex SHA-256 of b.
func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// checked returns the JSON of the file's first line (line, with or
// without its LF) when the SHA-256 after its last space is that of the
// JSON before it; ok is false otherwise.
func checked(line []byte) (doc []byte, ok bool) {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	i := bytes.LastIndexByte(line, ' ')
	if i < 0 || len(line)-i-1 != sha256.Size*2 {
		return nil, false
	}
	doc = line[:i]
	return doc, sum(doc) == string(line[i+1:])
}

// HotOf computes a goal's Hot from all its todos (as the store orders
// them) in order's claim order; nil when the claim order
// cannot be computed (decisions then read every todo).
func HotOf(todos []kernel.Todo, order Order) *Hot {
	if order.Claim == nil {
		return nil
	}
	var open []kernel.Todo
	h := &Hot{Head: []HotTodo{}, Leased: []kernel.Todo{}, Monitors: []kernel.Todo{}}
	for _, t := range todos {
		if t.Status != kernel.TodoDone && t.Status != kernel.TodoCancelled {
			open = append(open, t)
		}
		if t.Lease != nil && !t.Lease.Released {
			h.Leased = append(h.Leased, t)
		}
		if t.Kind == kernel.KindMonitor && t.Status != kernel.TodoDone {
			h.Monitors = append(h.Monitors, t)
		}
	}
	claim, deps, err := order.Claim(todos)
	if err != nil || len(deps) != len(open) {
		return nil
	}
	h.Open, h.Order = len(open), len(claim)
	for pos, i := range claim {
		if i < 0 || i >= len(open) {
			return nil
		}
		if t := open[i]; t.Lease != nil && !t.Lease.Released {
			h.Cover = pos + 1
		}
		if pos < HeadSize {
			h.Head = append(h.Head, HotTodo{Todo: open[i], Index: i, DepsOpen: deps[i]})
		}
	}
	return h
}

// Refresh is a read model read under the store's lock (Take), to be
// ordered, encoded and written once the lock is released (WriteAfter).
// The zero Refresh writes nothing.
type Refresh struct {
	stamp Stamp
	rm    *Model
	order Order
	path  string
}

// Take reads the read model of goals from the open store s for path (its
// records and state.db's stamp together), unless the model written last
// (stamp last) already is this very state.db's; a store that cannot be
// read leaves nothing to write. Call it under the lock, after the last
// commit and any shrink: the stamp then names the content the model
// holds, whenever the file is written. The claim order (order) is
// computed after the unlock, by WriteAfter.
func Take(s *kernel.Store, path string, goals []string, last Stamp, order Order) Refresh {
	if st, err := StampOf(s.Path()); err == nil && st == last {
		return Refresh{}
	}
	rm, err := read(s, goals)
	if err != nil {
		return Refresh{}
	}
	return Refresh{stamp: rm.Stamp, rm: &rm, order: order, path: path}
}

// WriteAfter writes the model Take read to its path by rename (its Hot
// todos computed now), after the lock was released, when state.db at db
// still has the model's stamp: otherwise another process committed since,
// and its own refresh is the one to keep (should this rename still land
// after that process's, the file only goes unmatched, and decisions read
// the store). It returns the stamp written, or last when it wrote
// nothing; failures only cost speed.
func (r Refresh) WriteAfter(db string, last Stamp) Stamp {
	if r.rm == nil {
		return last
	}
	if st, err := StampOf(db); err != nil || st != r.stamp {
		return last
	}
	b, err := r.rm.encode(r.order)
	if err != nil || Write(r.path, b) != nil {
		return last
	}
	// Where loopx kept the read model before it moved to the anchor
	// directory: an old copy in the work tree is never read again.
	_ = os.Remove(filepath.Join(filepath.Dir(db), "cache", "readmodel.json"))
	return r.stamp
}

// Verify reports whether the read model file at path, when it claims to
// describe the open store s's current state.db, holds exactly what the
// store says about goals. A mismatch means it was edited outside loopx:
// the file is removed (the next decision reads the store) and false is
// returned. No file, or an unreadable one (removed; never used by
// decisions), is true. Errors: the store's.
func Verify(path string, s *kernel.Store, goals []string, order Order) (bool, error) {
	on, err := os.ReadFile(path)
	if err != nil {
		return true, nil // none: nothing to trust or distrust
	}
	var claimed Model
	if core, _, ok := bytes.Cut(on, []byte{'\n'}); !ok || json.Unmarshal(firstDoc(core), &claimed) != nil {
		_ = os.Remove(path)
		return true, nil // unreadable: never used by decisions
	}
	_, fresh, err := Build(s, goals, order)
	if err != nil {
		return false, err
	}
	var cur Model
	core, _, _ := bytes.Cut(fresh, []byte{'\n'})
	_ = json.Unmarshal(firstDoc(core), &cur)
	if claimed.Stamp != cur.Stamp || string(on) == string(fresh) {
		return true, nil // stale (ignored by decisions) or genuine
	}
	_ = os.Remove(path)
	return false, nil
}

// firstDoc is the JSON of a first line whether or not its checksum holds
// (Verify compares a file edited outside loopx with the store's).
func firstDoc(line []byte) []byte {
	if i := bytes.LastIndexByte(line, ' '); i > 0 && len(line)-i-1 == sha256.Size*2 {
		return line[:i]
	}
	return line
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

// Todos are goal's todos, as the store orders them. The first call of a
// loaded model reads every goal's todos (the file's second line). Errors:
// a file that no longer starts with the line Load read (rewritten since),
// or a second line that does not decode (the caller reads the store
// instead).
func (rm *Model) Todos(goal string) ([]kernel.Todo, error) {
	if rm.todos == nil {
		b, err := os.ReadFile(rm.path)
		if err != nil {
			return nil, err
		}
		full, ok := bytes.CutPrefix(b, rm.core)
		var all map[string][]kernel.Todo
		if !ok {
			return nil, errors.New("read model: rewritten since it was loaded")
		}
		if sum(full) != rm.TodosSum {
			return nil, errors.New("read model: the todos are not the ones it was written with")
		}
		if err := json.Unmarshal(full, &all); err != nil || all == nil {
			return nil, errors.New("read model: the todos do not decode")
		}
		rm.todos = all
	}
	return rm.todos[goal], nil
}

// SeededTodos are goal's todos seeded from the spec (any status), as the
// store orders them, without reading every todo.
func (rm *Model) SeededTodos(goal string) ([]kernel.Todo, error) {
	return rm.goal(goal).Seeded, nil
}

// Window is part of a goal's todos (Model.TodoWindow): a prefix of the
// claim order long enough to cover every todo in it with a lease, so that
// should_run selects from it the todo it would select from all of them
// whenever it selects one from it at all.
type Window struct {
	// Todos are the todos of the window in the store's order; DepsOpen[i]
	// are the open dependencies of Todos[i].
	Todos    []kernel.Todo
	DepsOpen [][]string
	// Partial is true when the goal has todos not done or cancelled that
	// Todos leaves out.
	Partial bool
	// Leased are the goal's todos of any status whose lease is not
	// released; Monitors are its monitor todos not done.
	Leased, Monitors []kernel.Todo
}

// TodoWindow returns goal's window of at least least todos of the claim
// order (all of it when shorter), and every todo with a lease in it
// (Hot.Cover); least 0 asks for no todo, only Leased and Monitors (what
// a decision that lists no todo reads: quota and progress facts). False
// when the goal has no Hot, or its Head is shorter than that window (the
// caller reads Todos), or the window would hold no todo.
func (rm *Model) TodoWindow(goal string, least int) (Window, bool) {
	g, ok := rm.Goals[goal]
	if !ok || g.Hot == nil {
		return Window{}, false
	}
	h := g.Hot
	if least == 0 { // no todo: the leased ones and the monitors only
		return Window{Partial: h.Open > 0, Leased: h.Leased, Monitors: h.Monitors}, true
	}
	n := min(max(least, h.Cover), h.Order)
	if n == 0 || n > len(h.Head) {
		return Window{}, false
	}
	head := slices.Clone(h.Head[:n])
	slices.SortFunc(head, func(a, b HotTodo) int { return a.Index - b.Index })
	w := Window{Partial: n < h.Open, Leased: h.Leased, Monitors: h.Monitors,
		Todos: make([]kernel.Todo, n), DepsOpen: make([][]string, n)}
	for i, t := range head {
		w.Todos[i], w.DepsOpen[i] = t.Todo, t.DepsOpen
	}
	return w, true
}

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
