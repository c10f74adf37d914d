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
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// maxModelBytes bounds the read model file read whole; a larger file
// reads as unreadable (decisions then read the store).
const maxModelBytes = 1 << 30

// Version changes whenever the read model's shape does.
const Version = 12

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
// The file is three JSON documents, one per line: the Model; the claim
// orders kept for reuse (Kept: read only by the next writer); then every
// goal's todos (all statuses, as the store orders them). The last is
// decoded only when something reads Todos: a decision reads each goal's
// Hot todos instead (a permission decision none), so that its cost does
// not grow with the number of todos. The first two lines end with a space
// and the SHA-256 of the JSON before it, and the first carries the SHA-256
// of the last line (TodosSum): a file edited without recomputing them (a
// forged gate status, todo, rule or kept order) is never used, and
// decisions read the store. A process that recomputes them is not stopped
// (docs/trust.md: what loopx cannot stop).
type Model struct {
	Version int    `json:"version"`
	Rev     uint64 `json:"rev"`
	// StateRev is the store's state revision at Rev
	// (kernel.Tx.StateRevision): what decisions give as revision.state.
	StateRev uint64 `json:"state_rev"`
	Stamp    Stamp  `json:"stamp"`
	// Head is the store's chain head (kernel.Store.Head: the block hash
	// of the last committed transaction) the model was built at: a model
	// is used only while the anchor names this very head (Engine
	// loadReadModel), so a store and read model copied back together
	// behind the anchor are never read.
	Head   string                `json:"head"`
	Goals  map[string]*GoalModel `json:"goals"`
	Agents map[string]records.Agent
	// Rules are the adopted rules (nil when none): decisions read them
	// here without opening the store or evaluating CUE.
	Rules *records.Rules `json:"rules"`
	// Newest is the newest instant a commit of the store recorded
	// (kernel.Store.NewestInstant; zero for a store that predates it), so
	// that a decision read from here reports a clock moved back as one
	// read from the store does (Engine.ClockBehind).
	Newest time.Time `json:"newest"`
	// LedgerWindow is the widest quota window the model was built for
	// (Order.LedgerWindow; 0: every ledger entry is kept) and LedgerFrom
	// the instant from which it keeps the ledger (Newest less twice that
	// window, so that a clock moved back by less than a window still
	// reads the model; zero: from the first entry). A decision whose
	// window starts before it (a wider window adopted since, or the clock
	// moved back further) reads the store (LedgerSince fails).
	LedgerWindow time.Duration `json:"ledger_window"`
	LedgerFrom   time.Time     `json:"ledger_from,omitzero"`
	// Bundle names the claim order the Hot todos were ordered by (the
	// built-in policy bundle's hash, Order.Bundle): a model written by a
	// loopx build with other policies is not used.
	Bundle string `json:"bundle"`
	// TodosSum is the SHA-256 (hex) of the file's last line, checked
	// when it is read (Todos).
	TodosSum string `json:"todos_sum"`
	now      time.Time
	// todos is every goal's todos once read (the file's last line); path
	// is the file Load read, and core its first line, which the file must
	// still start with when the todos are read.
	todos map[string][]records.Todo
	path  string
	core  []byte
	// later decodes each goal's todos read under the lock (read), once
	// encode needs them (after the unlock: kernel.Tx.TodoRecordsLater),
	// and gives their records as stored, which encode writes as they are
	// (raw).
	later map[string]func() ([]records.Todo, []string, error)
	raw   map[string][]string
	// kept is each goal's claim orders kept for reuse (the file's second
	// line, Kept), the one of the model's own todos first.
	kept map[string][]Kept
}

// GoalModel is one goal's records in the read model.
type GoalModel struct {
	// Evidence is the number of evidence records (for status).
	Evidence int `json:"evidence"`
	// LastHandoff is the newest handoff (for status), nil when none.
	LastHandoff *records.Handoff  `json:"last_handoff"`
	State       records.GoalState `json:"state"`
	Gates       []records.Gate    `json:"gates"`
	// Rounds are the goal's HotRounds (from a store with the round index,
	// without the rounds kept only for their runner: Runners says who
	// they act as): what decisions and status read of its rounds, not its
	// whole history.
	Rounds []records.Round `json:"rounds"`
	// Runners maps each runner id recorded on the goal's rounds to the
	// agent of its last round: who a round runner process acts as.
	Runners map[string]string     `json:"runners"`
	Ledger  []records.LedgerEntry `json:"ledger"`
	// Hot is what a decision reads of the goal's todos (nil when the
	// claim order could not be computed: decisions read every todo).
	Hot *Hot `json:"hot"`
	// Seeded are the goal's todos seeded from the spec (SpecName set),
	// any status: whether the spec's todos are all stored is known
	// without reading every todo.
	Seeded []records.Todo `json:"seeded"`
	// Summary is what status shows of all the goal's todos (their counts
	// and the newest open one) and the todos it lists for humans from,
	// so that status reads no todo beyond a window of the claim order.
	Summary *Summary `json:"summary"`
}

// Summary is what loopx status reads of all of a goal's todos besides a
// window of the claim order (Summarize).
type Summary struct {
	// Counts are the todos by status.
	Counts map[string]int `json:"counts"`
	// Newest is the newest open or claimed todo (by created_at, then
	// seq), nil when none.
	Newest *records.Todo `json:"newest"`
	// Humans are the first HeadSize of the todos status may list for
	// humans: those not done or cancelled that are not task or monitor
	// todos (a superset: the rule data.loopx.lib.next_todos picks from
	// them), in the store's order, each with its index among the open
	// todos and its open dependencies; MoreHumans says there are more.
	Humans     []HotTodo `json:"humans"`
	MoreHumans bool      `json:"more_humans"`
}

// Summarize is the Summary of todos (all of a goal's, as the store orders
// them); depsOpen are the open dependencies of each of them not done or
// cancelled, in order (OrderInput.DepsOpen), or nil when not known (the
// Humans are then left out).
func Summarize(todos []records.Todo, depsOpen [][]string) Summary {
	sum := Summary{Counts: map[string]int{}, Humans: []HotTodo{}}
	open := 0
	for i, t := range todos {
		sum.Counts[t.Status]++
		if t.Status == records.TodoOpen || t.Status == records.TodoClaimed {
			if n := sum.Newest; n == nil || t.CreatedAt.After(n.CreatedAt) || (t.CreatedAt.Equal(n.CreatedAt) && t.Seq > n.Seq) {
				sum.Newest = &todos[i]
			}
		}
		if t.Status == records.TodoDone || t.Status == records.TodoCancelled {
			continue
		}
		if depsOpen != nil && t.Kind != records.KindTask && t.Kind != records.KindMonitor && open < len(depsOpen) {
			if len(sum.Humans) == HeadSize {
				sum.MoreHumans = true
			} else {
				sum.Humans = append(sum.Humans, HotTodo{Todo: t, Index: open, DepsOpen: depsOpen[open]})
			}
		}
		open++
	}
	return sum
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
	Leased   []records.Todo `json:"leased"`
	Monitors []records.Todo `json:"monitors"`
}

// HotTodo is one todo of Hot.Head: the record, its index among the open
// todos, and its open dependencies (input.state.todos[].deps_open).
type HotTodo struct {
	Todo     records.Todo `json:"todo"`
	Index    int          `json:"index"`
	DepsOpen []string     `json:"deps_open"`
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
	f, err := regularfile.Open(path)
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
	var c Cache
	return c.Load(path, db, bundle, now)
}

// Cache keeps the model a Load decoded last, so that a process reading
// the read model more than once (a decision: the adopted rules, then
// its input; a hook: its identity check too) decodes the first line,
// which grows with the rounds and ledger kept, once. The zero Cache is
// empty; it is safe for concurrent use.
type Cache struct {
	mu   sync.Mutex
	last *Model
}

// Load is the package's Load, reusing the model decoded last when the
// file's first line is, byte for byte, the line it decoded (so its
// checksum and content are those already checked) and state.db still
// has the stamp that line names. The model returned is the caller's
// copy: its clock is now.
func (c *Cache) Load(path, db, bundle string, now time.Time) *Model {
	st, err := StampOf(db)
	if err != nil {
		return nil
	}
	f, err := regularfile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	// Only the first line: the todos (most of the file) are read when
	// something lists them (Todos).
	core, err := bufio.NewReaderSize(f, 64<<10).ReadBytes('\n')
	if err != nil {
		return nil
	}
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	if last != nil && last.path == path && last.Bundle == bundle && last.Stamp == st && bytes.Equal(last.core, core) {
		rm := *last
		rm.now = now
		return &rm
	}
	var rm Model
	doc, ok := checked(core)
	if !ok || gojson.Unmarshal(doc, &rm) != nil || rm.Version != Version || rm.Stamp != st || rm.Goals == nil || rm.Bundle != bundle {
		return nil
	}
	rm.path, rm.core = path, core
	c.mu.Lock()
	c.last = &rm
	c.mu.Unlock()
	out := rm
	out.now = now
	return &out
}

// Write writes b (a Build's JSON) to path, in the anchor directory,
// atomically (mode 0600), creating its directory (0700); no link below
// the state directory the anchor directory is in is followed
// (anchor.Below). Errors: *nofollow.LinkError naming a link found; I/O
// errors (they only cost speed: a stale file no longer matches and is
// ignored).
func Write(path string, b []byte) error {
	base, rel := anchor.Below(filepath.Dir(path))
	if err := nofollow.MkdirAll(base, rel, 0o700); err != nil {
		return err
	}
	// Unflushed: a read model a crash leaves stale no longer matches the
	// store and is not used, so a flush would only slow every write.
	return atomicfile.WriteBelowUnflushed(base, filepath.Join(rel, filepath.Base(path)), b)
}

// Order computes a goal's claim order (data.loopx.lib.claim_order, see
// Hot) once per state revision. Input maps all the goal's todos, as the
// store orders them, to the claim order's input (OrderInput); Bundle
// names the policies it evaluates (Model.Bundle).
type Order struct {
	// LedgerWindow is the widest quota window of the adopted spec: the
	// model keeps the ledger entries of twice that window before the
	// store's newest instant (0: every entry).
	LedgerWindow time.Duration
	Bundle       string
	Input        func(todos []records.Todo) (OrderInput, error)
}

// OrderInput is the claim order's input for one goal's todos.
type OrderInput struct {
	// Key names the input the rule reads, with the bundle that evaluates
	// it (a SHA-256, hex): two inputs with the same Key have the same
	// claim order, which a write that leaves them alone reuses (Kept)
	// instead of evaluating the rule again.
	Key string
	// DepsOpen are the open dependencies of each open todo (those not
	// done or cancelled, input.state.todos when it lists them all).
	DepsOpen [][]string
	// Eval evaluates the rule: the claim order as indexes among the open
	// todos. Errors: the policy's.
	Eval func() ([]int, error)
}

// Kept is a claim order kept in the read model for reuse: the rule's
// result (Order, indexes among the open todos) for the input named Input
// (OrderInput.Key). Each goal keeps its current order and the one before
// (KeptOrders), so that a write undone by the next (a round that claims a
// todo and leaves it open when it finishes) evaluates nothing either way.
type Kept struct {
	Input string `json:"input"`
	Order []int  `json:"order"`
}

// KeptOrders is how many claim orders each goal keeps (Kept).
const KeptOrders = 2

// Build reads the read model of goals from the open store s, and its
// JSON, with each goal's Hot todos in order's claim order (none when
// order.Input is nil or fails: decisions then read every todo), evaluated
// afresh. Errors: the store's.
func Build(s *kernel.Store, goals []string, order Order) (Model, []byte, error) {
	rm, err := read(s, goals, order.LedgerWindow)
	if err != nil {
		return rm, nil, err
	}
	b, err := rm.encode(order, nil)
	return rm, b, err
}

// read reads the records of the read model of goals from the open store
// s, with state.db's stamp (the part of Build that needs the store; the
// todos' records are decoded by encode).
func read(s *kernel.Store, goals []string, ledgerWindow time.Duration) (Model, error) {
	rm := Model{Version: Version, Goals: map[string]*GoalModel{}, Agents: map[string]records.Agent{},
		todos: map[string][]records.Todo{}, later: map[string]func() ([]records.Todo, []string, error){}}
	_, rm.Head = s.Head()
	var err error
	if rm.Newest, err = s.NewestInstant(); err != nil {
		return rm, err
	}
	if ledgerWindow > 0 && !rm.Newest.IsZero() {
		rm.LedgerWindow, rm.LedgerFrom = ledgerWindow, rm.Newest.Add(-2*ledgerWindow)
	}
	err = s.View(func(tx *kernel.Tx) error {
		rm.Rev, rm.StateRev = tx.Revision(), tx.StateRevision()
		for _, g := range goals {
			var gm GoalModel
			var err error
			if gm.State, err = tx.Goal(g); err != nil {
				return err
			}
			rm.later[g] = tx.TodoRecordsLater(g)
			if gm.Gates, err = tx.Gates(g); err != nil {
				return err
			}
			if gm.Rounds, gm.Runners, err = storeHotRounds(tx, g); err != nil {
				return err
			}
			if rm.LedgerFrom.IsZero() {
				gm.Ledger, err = tx.Ledger(g)
			} else {
				gm.Ledger, err = tx.LedgerSince(g, rm.LedgerFrom)
			}
			if err != nil {
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
	rm.Stamp, err = StampOf(s.Path())
	return rm, err
}

// encode computes each goal's Hot in order's claim order and returns the
// file's content (the part of Build that needs no store: no lock). A
// goal's claim order is taken from kept (a previous file's, KeptOrders)
// when it holds one for the same input, and evaluated otherwise.
func (rm *Model) encode(order Order, kept map[string][]Kept) ([]byte, error) {
	for g, todos := range rm.later {
		var err error
		var raw []string
		if rm.todos[g], raw, err = todos(); err != nil {
			return nil, err
		}
		if rm.raw == nil {
			rm.raw = map[string][]string{}
		}
		rm.raw[g] = raw
	}
	rm.later = nil
	rm.Bundle = order.Bundle
	rm.kept = map[string][]Kept{}
	for g, gm := range rm.Goals {
		var cur Kept
		var deps [][]string
		gm.Hot, cur, deps = hotOf(rm.todos[g], order, kept[g])
		gm.Summary = nil
		if gm.Hot != nil {
			sum := Summarize(rm.todos[g], deps)
			gm.Summary = &sum
			ks := []Kept{cur}
			for _, k := range kept[g] {
				if len(ks) < KeptOrders && k.Input != cur.Input {
					ks = append(ks, k)
				}
			}
			rm.kept[g] = ks
		}
		gm.Seeded = []records.Todo{}
		for _, t := range rm.todos[g] {
			if t.SpecName != "" {
				gm.Seeded = append(gm.Seeded, t)
			}
		}
	}
	full, err := marshalTodos(rm.todos, rm.raw)
	rm.raw = nil
	if err != nil {
		return nil, err
	}
	rm.TodosSum = sum(full)
	core, err := json.Marshal(rm)
	if err != nil {
		return nil, err
	}
	orders, err := json.Marshal(rm.kept)
	if err != nil {
		return nil, err
	}
	return slices.Concat(core, []byte(" "+sum(core)+"\n"), orders, []byte(" "+sum(orders)+"\n"), full), nil
}

// marshalTodos is the file's last line, every goal's todos: a JSON object
// from goal to the list of its todos. A goal's todos whose records as
// stored raw gives (kernel.Tx.TodoRecordsLater, one per todo, in the same
// order) are written as those records are, without encoding every todo
// again at every write: the line then decodes to the very todos the store
// decodes (TestLoad_DecodesAsEncodingJSON); others are encoded, as
// encoding/json writes them (TestMarshalTodos_AsEncodingJSON), by
// goccy/go-json. Errors: the encoder's.
func marshalTodos(todos map[string][]records.Todo, raw map[string][]string) ([]byte, error) {
	goals := slices.Sorted(maps.Keys(todos))
	size := 2
	for _, g := range goals {
		size += len(g) + 8
		for _, r := range raw[g] {
			size += len(r) + 1
		}
	}
	b := make([]byte, 0, size)
	b = append(b, '{')
	for i, g := range goals {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := gojson.Marshal(g)
		if err != nil {
			return nil, err
		}
		b = append(append(b, k...), ':')
		rs, ts := raw[g], todos[g]
		if rs == nil || len(rs) != len(ts) {
			v, err := gojson.Marshal(ts)
			if err != nil {
				return nil, err
			}
			b = append(b, v...)
			continue
		}
		b = append(b, '[')
		for j, r := range rs {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, r...)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// keptIn returns the claim orders kept in the read model file at path
// (its second line, Kept) when the file is of this Version and bundle and
// both its checked lines hold; nil otherwise. Any file will do, current
// or not: a kept order is the rule's result for the input it names.
func keptIn(path, bundle string) map[string][]Kept {
	f, err := regularfile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	core, err := r.ReadBytes('\n')
	if err != nil {
		return nil
	}
	var head struct {
		Version int    `json:"version"`
		Bundle  string `json:"bundle"`
	}
	if doc, ok := checked(core); !ok || json.Unmarshal(doc, &head) != nil || head.Version != Version || head.Bundle != bundle || bundle == "" {
		return nil
	}
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil
	}
	var kept map[string][]Kept
	if doc, ok := checked(line); !ok || json.Unmarshal(doc, &kept) != nil {
		return nil
	}
	return kept
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
// them) in order's claim order, evaluated afresh; nil when the claim
// order cannot be computed (decisions then read every todo).
func HotOf(todos []records.Todo, order Order) *Hot {
	h, _, _ := hotOf(todos, order, nil)
	return h
}

// hotOf is HotOf with the claim order taken from kept when one of them is
// for the same input (OrderInput.Key), the claim order it used and the
// open dependencies of the open todos (OrderInput.DepsOpen).
func hotOf(todos []records.Todo, order Order, kept []Kept) (*Hot, Kept, [][]string) {
	if order.Input == nil {
		return nil, Kept{}, nil
	}
	open := make([]int, 0, len(todos)) // indexes in todos: no record is copied
	h := &Hot{Head: []HotTodo{}, Leased: []records.Todo{}, Monitors: []records.Todo{}}
	for i, t := range todos {
		if t.Status != records.TodoDone && t.Status != records.TodoCancelled {
			open = append(open, i)
		}
		if t.Lease != nil && !t.Lease.Released {
			h.Leased = append(h.Leased, t)
		}
		if t.Kind == records.KindMonitor && t.Status != records.TodoDone {
			h.Monitors = append(h.Monitors, t)
		}
	}
	in, err := order.Input(todos)
	if err != nil || len(in.DepsOpen) != len(open) {
		return nil, Kept{}, nil
	}
	cur, found := Kept{Input: in.Key}, false
	for _, k := range kept {
		if k.Input == in.Key && in.Key != "" {
			cur.Order, found = k.Order, true
			break
		}
	}
	if !found {
		if cur.Order, err = in.Eval(); err != nil {
			return nil, Kept{}, nil
		}
	}
	h.Open, h.Order = len(open), len(cur.Order)
	seen := make([]bool, len(open))
	for pos, i := range cur.Order {
		if i < 0 || i >= len(open) || seen[i] {
			return nil, Kept{}, nil
		}
		seen[i] = true
		if t := &todos[open[i]]; t.Lease != nil && !t.Lease.Released {
			h.Cover = pos + 1
		}
		if pos < HeadSize {
			h.Head = append(h.Head, HotTodo{Todo: todos[open[i]], Index: i, DepsOpen: in.DepsOpen[i]})
		}
	}
	return h, cur, in.DepsOpen
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
	rm, err := read(s, goals, order.LedgerWindow)
	if err != nil {
		return Refresh{}
	}
	return Refresh{stamp: rm.Stamp, rm: &rm, order: order, path: path}
}

// WriteAfter writes the model Take read to its path by rename (its Hot
// todos computed now, each goal's claim order reused from the file it
// replaces when that file keeps one for the same input: Kept), after the
// lock was released, when state.db at db
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
	b, err := r.rm.encode(r.order, keptIn(r.path, r.order.Bundle))
	if err != nil || Write(r.path, b) != nil {
		return last
	}
	// Where loopx kept the read model before it moved to the anchor
	// directory: an old copy in the work tree is never read again.
	_ = nofollow.RemoveAll(nofollow.Split(filepath.Join(filepath.Dir(db), "cache", "readmodel.json"), 3))
	return r.stamp
}

// Verify reports whether the read model file at path, when it claims to
// describe the open store s's current state.db, holds exactly what the
// store says about goals, with each goal's claim order evaluated afresh
// (the order a goal keeps for its current todos, Kept's first, included;
// the one before it names an input that is gone and cannot be checked).
// A mismatch means it was edited outside loopx: the file is removed (the
// next decision reads the store) and false is returned. No file, or an
// unreadable one (removed; never used by decisions), is true. Errors: the
// store's.
func Verify(path string, s *kernel.Store, goals []string, order Order) (bool, error) {
	on, err := regularfile.ReadFile(path, maxModelBytes)
	if err != nil {
		return true, nil // none: nothing to trust or distrust
	}
	var claimed Model
	if core, _, ok := bytes.Cut(on, []byte{'\n'}); !ok || json.Unmarshal(firstDoc(core), &claimed) != nil {
		_ = remove(path)
		return true, nil // unreadable: never used by decisions
	}
	order.LedgerWindow = claimed.LedgerWindow // the window it was built for
	_, fresh, err := Build(s, goals, order)
	if err != nil {
		return false, err
	}
	var cur Model
	core, _, _ := bytes.Cut(fresh, []byte{'\n'})
	_ = json.Unmarshal(firstDoc(core), &cur)
	if claimed.Stamp != cur.Stamp || sameModel(on, fresh) {
		return true, nil // stale (ignored by decisions) or genuine
	}
	_ = remove(path)
	return false, nil
}

// sameModel reports whether the read model file on holds what fresh (a
// Build's, which keeps one claim order per goal) holds: the same first
// and last lines, and each goal's first kept order (that of the goal's
// current todos) the same.
func sameModel(on, fresh []byte) bool {
	split := func(b []byte) (core, kept, todos []byte, ok bool) {
		core, rest, ok1 := bytes.Cut(b, []byte{'\n'})
		kept, todos, ok2 := bytes.Cut(rest, []byte{'\n'})
		return core, kept, todos, ok1 && ok2
	}
	c1, k1, t1, ok1 := split(on)
	c2, k2, t2, ok2 := split(fresh)
	if !ok1 || !ok2 || !bytes.Equal(c1, c2) || !bytes.Equal(t1, t2) {
		return false
	}
	var a, b map[string][]Kept
	doc, ok := checked(k1)
	if !ok || json.Unmarshal(doc, &a) != nil || json.Unmarshal(firstDoc(k2), &b) != nil || len(a) != len(b) {
		return false
	}
	for g, ks := range b {
		if len(ks) == 0 || len(a[g]) == 0 || a[g][0].Input != ks[0].Input || !slices.Equal(a[g][0].Order, ks[0].Order) {
			return false
		}
	}
	return true
}

// firstDoc is the JSON of a checked line whether or not its checksum holds
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
	return &GoalModel{State: records.GoalState{ID: id, Status: records.GoalActive}}
}

// Describes reports whether rm describes exactly the open store s: its
// revision and chain head are s's. Load checked that state.db still has
// the stamp rm was taken with, so while s is held (its lock: no other
// process commits) and this process has not committed since opening it
// (a commit changes the stamp), rm holds the committed state s reads, and
// a decision taken under the lock may read rm instead (its todo windows).
// An unreadable revision is false.
func (rm *Model) Describes(s *kernel.Store) bool {
	_, head := s.Head()
	rev, err := s.Revision()
	return err == nil && rm.Head == head && rm.Rev == rev
}

// At returns a copy of a model Build returned, read with clock now (as
// Load would give it): a process that keeps the model in memory hands
// each reader its own copy; the records are shared and never changed.
func (rm *Model) At(now time.Time) *Model {
	c := *rm
	c.now = now
	return &c
}

// Now is the clock Load was given.
func (rm *Model) Now() time.Time { return rm.now }

// Revision is the store's global revision the model was built at.
func (rm *Model) Revision() uint64 { return rm.Rev }

// StateRevision is the store's state revision the model was built at
// (kernel.Tx.StateRevision).
func (rm *Model) StateRevision() uint64 { return rm.StateRev }

// Goal is goal id's state (an active goal with no records when the model
// has none).
func (rm *Model) Goal(id string) (records.GoalState, error) { return rm.goal(id).State, nil }

// Todos are goal's todos, as the store orders them. The first call of a
// loaded model reads every goal's todos (the file's last line). Errors:
// a file that no longer starts with the line Load read (rewritten since),
// or a second line that does not decode (the caller reads the store
// instead).
func (rm *Model) Todos(goal string) ([]records.Todo, error) {
	if rm.todos == nil {
		b, err := regularfile.ReadFile(rm.path, maxModelBytes)
		if err != nil {
			return nil, err
		}
		rest, ok := bytes.CutPrefix(b, rm.core)
		_, full, ok2 := bytes.Cut(rest, []byte{'\n'}) // after the kept orders
		var all map[string][]records.Todo
		if !ok || !ok2 {
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
func (rm *Model) SeededTodos(goal string) ([]records.Todo, error) {
	return rm.goal(goal).Seeded, nil
}

// Window is part of a goal's todos (Model.TodoWindow): a prefix of the
// claim order long enough to cover every todo in it with a lease, so that
// should_run selects from it the todo it would select from all of them
// whenever it selects one from it at all.
type Window struct {
	// Todos are the todos of the window in the store's order; DepsOpen[i]
	// are the open dependencies of Todos[i].
	Todos    []records.Todo
	DepsOpen [][]string
	// Partial is true when the goal has todos not done or cancelled that
	// Todos leaves out.
	Partial bool
	// Leased are the goal's todos of any status whose lease is not
	// released; Monitors are its monitor todos not done.
	Leased, Monitors []records.Todo
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
		Todos: make([]records.Todo, n), DepsOpen: make([][]string, n)}
	for i, t := range head {
		w.Todos[i], w.DepsOpen[i] = t.Todo, t.DepsOpen
	}
	return w, true
}

// TodoSummary is goal's Summary; false when the model keeps none (read
// Todos then).
func (rm *Model) TodoSummary(goal string) (Summary, bool) {
	g, ok := rm.Goals[goal]
	if !ok || g.Summary == nil {
		return Summary{}, false
	}
	return *g.Summary, true
}

// StatusWindow is what status lists a goal's next todos and its todos for
// humans from without reading every todo: TodoWindow's window of at
// least least todos of the claim order, and the Summary's Humans, merged
// in the store's order. Its Partial says the claim order goes on past the
// window (a next list shorter than wanted may miss todos);
// humansPartial that the goal has more todos for humans than it holds.
// False when the goal has no Hot or Summary, or TodoWindow gives no
// window that long (read Todos then).
func (rm *Model) StatusWindow(goal string, least int) (w Window, humansPartial bool, ok bool) {
	g, ok := rm.Goals[goal]
	if !ok || g.Hot == nil || g.Summary == nil {
		return Window{}, false, false
	}
	h := g.Hot
	var head []HotTodo
	if h.Order > 0 {
		n := min(max(least, h.Cover), h.Order)
		if n > len(h.Head) {
			return Window{}, false, false
		}
		head = slices.Clone(h.Head[:n])
		w.Partial = n < h.Order
	}
	head = append(head, g.Summary.Humans...)
	slices.SortFunc(head, func(a, b HotTodo) int { return a.Index - b.Index })
	w.Leased, w.Monitors = h.Leased, h.Monitors
	w.Todos, w.DepsOpen = make([]records.Todo, 0, len(head)), make([][]string, 0, len(head))
	for i, t := range head {
		if i > 0 && head[i-1].Index == t.Index {
			continue // a todo in both (never: humans are not in the claim order)
		}
		w.Todos, w.DepsOpen = append(w.Todos, t.Todo), append(w.DepsOpen, t.DepsOpen)
	}
	return w, g.Summary.MoreHumans, true
}

// WindowsOf is a model that keeps only goal's claim order, computed from
// todos (all of goal's, as the store orders them) in order's: the windows
// a decision over a store without a usable read model reads
// (inputstate.Under checks them against the store). Nil when the claim
// order cannot be computed.
func WindowsOf(goal string, todos []records.Todo, order Order) *Model {
	h := HotOf(todos, order)
	if h == nil {
		return nil
	}
	return &Model{Goals: map[string]*GoalModel{goal: {Hot: h}}}
}

// Gates are goal's gates, as the store orders them.
func (rm *Model) Gates(goal string) ([]records.Gate, error) { return rm.goal(goal).Gates, nil }

// Rounds are goal's rounds, as the store orders them.
func (rm *Model) Rounds(goal string) ([]records.Round, error) {
	return rm.goal(goal).Rounds, nil
}

// Ledger is goal's ledger the model keeps (from LedgerFrom on), as the
// store orders it.
func (rm *Model) Ledger(goal string) ([]records.LedgerEntry, error) {
	return rm.goal(goal).Ledger, nil
}

// ErrLedgerNotKept is LedgerSince's error for a window that starts before
// the ledger the model keeps.
var ErrLedgerNotKept = errors.New("the read model does not keep the ledger of this window")

// LedgerSince is goal's ledger entries with instants after start, in
// order; errors: ErrLedgerNotKept when the model keeps no entry from
// before LedgerFrom and start is earlier (a wider window than it was built
// for, or a clock moved back behind the store's newest instant).
func (rm *Model) LedgerSince(goal string, start time.Time) ([]records.LedgerEntry, error) {
	if start.Before(rm.LedgerFrom) {
		return nil, ErrLedgerNotKept
	}
	var out []records.LedgerEntry
	for _, e := range rm.goal(goal).Ledger {
		if e.At.After(start) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Agent is agent id; errors: kernel.NotFound when the model has none.
func (rm *Model) Agent(id string) (records.Agent, error) {
	if a, ok := rm.Agents[id]; ok {
		return a, nil
	}
	return records.Agent{}, kernel.NotFound("agent", id)
}

// EvidenceCount is the number of goal's evidence records.
func (rm *Model) EvidenceCount(goal string) (int, error) { return rm.goal(goal).Evidence, nil }

// Handoffs returns the newest handoff only: all that status reads.
func (rm *Model) Handoffs(goal string) ([]records.Handoff, error) {
	if h := rm.goal(goal).LastHandoff; h != nil {
		return []records.Handoff{*h}, nil
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
			if gt.Status == records.GateOpen {
				return true
			}
		}
	}
	return false
}

// remove removes the read model file at path (in the anchor directory)
// without following a link below the state directory (anchor.Below).
func remove(path string) error {
	base, rel := anchor.Below(filepath.Dir(path))
	return nofollow.RemoveAll(base, filepath.Join(rel, filepath.Base(path)))
}
