package readmodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// todoStore opens a store in dir at the instant now (closed with the
// test); add adds a todo of goal g1 titled title in its own transaction.
func todoStore(t *testing.T, dir string, now time.Time) (s *kernel.Store, add func(title string)) {
	t.Helper()
	s, err := kernel.Open(dir, kernel.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, func(title string) {
		if err := s.Update(func(tx *kernel.Tx) error {
			_, err := tx.AddTodo(records.Todo{Goal: "g1", Title: title})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestModel_UsedOnlyWhileItMatchesTheStore: a written model loads and
// reads like the store; a commit after it makes it stale (Load: nil); an
// edit outside loopx that claims the current stamp fails Verify and is
// removed.
func TestModel_UsedOnlyWhileItMatchesTheStore(t *testing.T) {
	dir, now := t.TempDir(), time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s, add := todoStore(t, dir, now)
	add("first")
	path := filepath.Join(dir, "cache", "readmodel.json")
	rm, b, err := Build(s, []string{"g1"}, Order{})
	if err != nil || Write(path, b) != nil {
		t.Fatal(err)
	}
	got := Load(path, s.Path(), "", now)
	if got == nil || !got.Has("g1") || got.Has("g2") || got.Stamp != rm.Stamp || !got.Now().Equal(now) {
		t.Fatalf("loaded %+v", got)
	}
	if ts, _ := got.Todos("g1"); len(ts) != 1 || ts[0].Title != "first" {
		t.Fatalf("todos %+v", ts)
	}
	// The todos are read when listed, from the file Load read only.
	loaded := Load(path, s.Path(), "", now)
	if err := Write(path, append([]byte(" "), b...)); err != nil {
		t.Fatal(err)
	}
	if _, err := loaded.Todos("g1"); err == nil {
		t.Fatal("todos read from a file rewritten since it was loaded")
	}
	if err := Write(path, b); err != nil {
		t.Fatal(err)
	}
	if Load(path, s.Path(), "sha256:other", now) != nil {
		t.Fatal("a model ordered by other policies loaded")
	}
	if g, _ := got.Goal("g9"); g.ID != "g9" || g.Status != records.GoalActive {
		t.Fatalf("a goal the model does not hold: %+v", g)
	}
	if ok, err := Verify(path, s, []string{"g1"}, Order{}); !ok || err != nil {
		t.Fatalf("genuine model: %v %v", ok, err)
	}

	// An edit that keeps the stamp: Verify says no and removes the file.
	forged := bytes.Replace(b, []byte(`"title":"first"`), []byte(`"title":"forge"`), -1)
	if bytes.Equal(forged, b) {
		t.Fatal("nothing to forge")
	}
	if err := os.WriteFile(path, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := Verify(path, s, []string{"g1"}, Order{}); ok || err != nil {
		t.Fatalf("forged model: %v %v", ok, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("a forged model was kept")
	}

	// The same edit, stamp kept, read by a decision: the first line's
	// checksum fails, so Load does not use it; an edit of the second line
	// (every todo) fails TodosSum when the todos are read.
	core, full, _ := bytes.Cut(b, []byte{'\n'})
	paused := bytes.Replace(core, []byte(`"status":"active"`), []byte(`"status":"paused"`), 1)
	if bytes.Equal(paused, core) {
		t.Fatalf("no goal status to forge in %s", core)
	}
	if err := os.WriteFile(path, slices.Concat(paused, []byte{'\n'}, full), 0o644); err != nil {
		t.Fatal(err)
	}
	if Load(path, s.Path(), "", now) != nil {
		t.Fatal("a model edited without its checksum loaded")
	}
	edited := slices.Concat(core, []byte{'\n'}, bytes.Replace(full, []byte(`"title":"first"`), []byte(`"title":"forge"`), -1))
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if rm := Load(path, s.Path(), "", now); rm == nil {
		t.Fatal("the first line is intact")
	} else if ts, err := rm.Todos("g1"); err == nil {
		t.Fatalf("todos from an edited second line: %+v", ts)
	}

	// A commit after the write: the model no longer matches.
	if err := Write(path, b); err != nil {
		t.Fatal(err)
	}
	add("second")
	if Load(path, s.Path(), "", now) != nil {
		t.Fatal("a stale model loaded")
	}
}

// TestRefresh_WrittenAfterTheUnlockOnlyForTheContentItHolds: a model taken
// under the lock (Take) and written after it (WriteAfter) carries the stamp
// of the content it holds; when another process committed in between, it
// is not written, and should its rename land after that commit anyway, it
// never loads as current.
func TestRefresh_WrittenAfterTheUnlockOnlyForTheContentItHolds(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	opts := kernel.Options{Now: func() time.Time { return now }}
	path := filepath.Join(t.TempDir(), "readmodel.json")
	db := filepath.Join(dir, kernel.DBFile)
	// commit opens the store as one process does, adds a todo and takes
	// the refresh before it unlocks.
	commit := func(title string) Refresh {
		s, err := kernel.Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Update(func(tx *kernel.Tx) error {
			_, err := tx.AddTodo(records.Todo{Goal: "g1", Title: title})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return Take(s, path, []string{"g1"}, Stamp{}, Order{})
	}
	titles := func() []string {
		rm := Load(path, db, "", now)
		if rm == nil {
			return nil
		}
		ts, _ := rm.Todos("g1")
		var out []string
		for _, td := range ts {
			out = append(out, td.Title)
		}
		return out
	}

	first := commit("first")
	st := first.WriteAfter(db, Stamp{})
	if got := titles(); len(got) != 1 || got[0] != "first" || st != first.stamp {
		t.Fatalf("after the first commit: %q (stamp %+v)", got, st)
	}

	// Another process commits between this one's unlock and its rename.
	stale := commit("second")
	third := commit("third")
	if st := stale.WriteAfter(db, first.stamp); st != first.stamp {
		t.Fatalf("a model of superseded content was written (stamp %+v)", st)
	}
	if got := titles(); got != nil {
		t.Fatalf("the model of the first commit loaded as current: %q", got)
	}
	third.WriteAfter(db, Stamp{})
	if got := titles(); len(got) != 3 {
		t.Fatalf("after the third commit: %q", got)
	}
	// The stale rename lands last anyway: the model does not load.
	b, err := stale.rm.encode(stale.order, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(path, b); err != nil {
		t.Fatal(err)
	}
	if got := titles(); got != nil {
		t.Fatalf("a stale model loaded as current: %q", got)
	}
}

// TestTodoWindow_CoversEveryLeasedTodo: a window is a prefix of the claim
// order at least as long as asked, reaching past every todo with a lease
// (whose rank depends on who asks), listed in the store's order; none
// when the head kept is shorter, or the claim order is empty.
func TestTodoWindow_CoversEveryLeasedTodo(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	todos := []records.Todo{{ID: "t-0", Status: records.TodoOpen}, {ID: "t-1", Status: records.TodoDone},
		{ID: "t-2", Status: records.TodoOpen, Lease: &records.Lease{Holder: "a1", ExpiresAt: now}},
		{ID: "t-3", Status: records.TodoOpen}, {ID: "t-4", Status: records.TodoOpen, Kind: records.KindMonitor}}
	// A claim order over the open todos (t-0, t-2, t-3, t-4): t-4, t-3, t-2, t-0.
	order := Order{Bundle: "b", Input: func(ts []records.Todo) (OrderInput, error) {
		if len(ts) == 0 {
			return OrderInput{Key: "none", DepsOpen: [][]string{}, Eval: func() ([]int, error) { return []int{}, nil }}, nil
		}
		return OrderInput{Key: "k", DepsOpen: [][]string{{}, {}, {}, {"t-9"}}, Eval: func() ([]int, error) { return []int{3, 2, 1, 0}, nil }}, nil
	}}
	rm := &Model{Goals: map[string]*GoalModel{"g1": {Hot: HotOf(todos, order)}, "g2": {Hot: HotOf(nil, order)}}}
	for _, c := range []struct {
		least   int
		ids     []string
		partial bool
	}{
		{1, []string{"t-2", "t-3", "t-4"}, true}, // t-2 is leased: the window reaches it
		{3, []string{"t-2", "t-3", "t-4"}, true},
		{4, []string{"t-0", "t-2", "t-3", "t-4"}, false},
		{9, []string{"t-0", "t-2", "t-3", "t-4"}, false},
	} {
		w, ok := rm.TodoWindow("g1", c.least)
		var ids []string
		for _, t := range w.Todos {
			ids = append(ids, t.ID)
		}
		if !ok || fmt.Sprint(ids) != fmt.Sprint(c.ids) || w.Partial != c.partial || len(w.Leased) != 1 || len(w.Monitors) != 1 {
			t.Errorf("window %d: %v %v partial %v, leased %d, monitors %d; want %v partial %v", c.least, ok, ids, w.Partial, len(w.Leased), len(w.Monitors), c.ids, c.partial)
		}
	}
	if w, _ := rm.TodoWindow("g1", 4); fmt.Sprint(w.DepsOpen) != "[[] [] [] [t-9]]" {
		t.Errorf("deps_open %v", w.DepsOpen)
	}
	if w, ok := rm.TodoWindow("g1", 0); !ok || len(w.Todos) != 0 || len(w.Leased) != 1 || len(w.Monitors) != 1 {
		t.Errorf("window 0: %v %+v", ok, w)
	}
	if _, ok := rm.TodoWindow("g2", 1); ok {
		t.Error("a window of an empty claim order")
	}
	if _, ok := rm.TodoWindow("g9", 1); ok {
		t.Error("a window of a goal the model does not hold")
	}
	rm.Goals["g1"].Hot.Head = rm.Goals["g1"].Hot.Head[:2]
	if _, ok := rm.TodoWindow("g1", 3); ok {
		t.Error("a window longer than the head kept")
	}
}

// TestModel_SeededTodosWithoutEveryTodo: the todos seeded from the spec are
// in the model's first line: listed without reading every todo.
func TestModel_SeededTodosWithoutEveryTodo(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s, err := kernel.Open(dir, kernel.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(func(tx *kernel.Tx) error {
		for _, td := range []records.Todo{{Goal: "g1", Title: "mine"}, {Goal: "g1", Title: "Write the guide", SpecName: "guide"}} {
			if _, err := tx.AddTodo(td); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "readmodel.json")
	_, b, err := Build(s, []string{"g1"}, Order{})
	if err != nil || Write(path, b) != nil {
		t.Fatal(err)
	}
	rm := Load(path, s.Path(), "", now)
	rm.path = "" // the second line is not read
	seeded, err := rm.SeededTodos("g1")
	if err != nil || len(seeded) != 1 || seeded[0].SpecName != "guide" {
		t.Fatalf("seeded %+v, %v", seeded, err)
	}
	if _, err := rm.Todos("g1"); err == nil {
		t.Fatal("the second line was read")
	}
}

// TestMarshalTodos_AsEncodingJSON: the todos line is byte for byte what
// encoding/json writes, for todos with every field set or left out, odd
// titles and notes (quotes, escapes, control characters, HTML, non-ASCII,
// invalid UTF-8, line separators), times in other zones, leases.
func TestMarshalTodos_AsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 5))
	texts := []string{"plain", `quo"te \back`, "tab\tnew\nline", "é ü 中文 🚀", "bad \xff utf8", "<html>&amp;", "", "\u2028x\u2029", "\x00\x1f"}
	zone := time.FixedZone("X", 5*3600+1800)
	todos := map[string][]records.Todo{"g0": {}, "g1": nil}
	for i := range 400 {
		td := records.Todo{ID: fmt.Sprintf("t-%04x", i), Seq: rng.Uint64(), Goal: "g2", Title: texts[rng.IntN(len(texts))],
			Kind: "task", Status: "open", Priority: rng.IntN(5), Note: texts[rng.IntN(len(texts))],
			CreatedAt: time.Unix(rng.Int64N(1<<33), rng.Int64N(1e9)).In(zone), UpdatedAt: time.Unix(rng.Int64N(1<<33), 0).UTC()}
		if rng.IntN(2) == 0 {
			td.DependsOn, td.Labels, td.Scope, td.SpecName = []string{"t-1"}, []string{texts[rng.IntN(len(texts))]}, []string{"api/**"}, "s"
			td.NextDueAt, td.EverySeconds = time.Unix(rng.Int64N(1<<33), 1).UTC(), 60
			td.Lease = &records.Lease{Holder: "a1", Version: 2, Epoch: 1, ExpiresAt: time.Unix(rng.Int64N(1<<33), 0).UTC(), Released: rng.IntN(2) == 0}
		}
		todos["g2"] = append(todos["g2"], td)
	}
	got, err := marshalTodos(todos, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(todos)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("differs at byte %d: %q, encoding/json %q", i, got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
	}
}

// TestLoad_DecodesAsEncodingJSON: Load decodes the first line with
// goccy/go-json; over a store with every kind of record the first line
// holds (agents, rules, todos with odd texts and leases, seeded todos,
// monitors, gates with answers, rounds, ledger, evidence, handoffs), the
// model it loads is exactly the one encoding/json decodes, and the todos
// line (the records as stored) decodes to the todos the store gives.
func TestLoad_DecodesAsEncodingJSON(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.FixedZone("X", 3600))
	s, err := kernel.Open(dir, kernel.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(15, 6))
	texts := []string{"plain", `quo"te \back`, "tab\tnew\nline", "é ü 中文 🚀", "bad \xff utf8", "<html>&amp;", "", "\u2028x\u2029", "\x00\x1f"}
	text := func() string { return texts[rng.IntN(len(texts))] }
	goals := []string{"g1", "g2", "g3"}
	if err := s.Update(func(tx *kernel.Tx) error {
		if err := tx.PutRules(records.Rules{SpecHash: "sha256:1", SpecJSON: json.RawMessage(`{"goals": {"g1": {"quota": {"rounds": 2.5e3}}}, "x": "\u00e9"}`),
			SpecFiles: map[string]string{"loopx/loopx.cue": text()}}); err != nil {
			return err
		}
		for i := range 4 {
			if err := tx.PutAgent(records.Agent{ID: fmt.Sprintf("a%d", i), Host: "codex", Role: text(), Mode: "auto", Goals: goals[:i],
				RegisteredAt: now, LastSeenAt: now.Add(time.Duration(i) * time.Second)}); err != nil {
				return err
			}
		}
		for _, g := range goals[:2] {
			for i := range 60 {
				td := records.Todo{Goal: g, Title: text(), Note: text(), Priority: rng.IntN(4), Labels: []string{text()}}
				switch i % 5 {
				case 1:
					td.SpecName = fmt.Sprintf("s%d", i)
				case 2:
					td.Kind, td.EverySeconds, td.NextDueAt = records.KindMonitor, 60, now.Add(time.Minute)
				case 3:
					td.Status = records.TodoDone
				}
				added, err := tx.AddTodo(td)
				if err != nil {
					return err
				}
				if i%7 == 0 {
					added.Lease = &records.Lease{Holder: "a1", Version: 3, Epoch: 2, AcquiredAt: now, ExpiresAt: now.Add(time.Hour), Round: "r-1", Released: i%2 == 0}
					if err := tx.PutTodo(added); err != nil {
						return err
					}
				}
			}
			gate, err := tx.AddGate(records.Gate{Goal: g, Question: text() + "?", Options: []string{"approve", "reject"}, Answerers: []string{"human"},
				ScopeKind: "goal", Status: "open", RaisedBy: "agent:a1", RaisedAt: now, ExpiresAt: now.Add(72 * time.Hour)})
			if err != nil {
				return err
			}
			gate.Status, gate.Answer = "approved", &records.Answer{Option: "approve", By: "human", Note: text(), At: now}
			if err := tx.PutGate(gate); err != nil {
				return err
			}
			r, err := tx.AddRound(records.Round{Goal: g, Agent: "a1", Status: "finished", StartedAt: now, FinishedAt: now.Add(time.Minute),
				Outcome: "progress", Summary: text(), Tokens: 12, CostUSD: 0.1, Charged: true})
			if err != nil {
				return err
			}
			if _, err := tx.AppendLedger(records.LedgerEntry{Goal: g, Round: r.ID, Agent: "a1", At: now, Rounds: 1, Tokens: 12, CostUSD: 1.0 / 3, ComputeSeconds: 60.5, Reason: "progress"}); err != nil {
				return err
			}
			if _, err := tx.AddEvidence(records.Evidence{Goal: g, Kind: "note", Summary: text(), CreatedAt: now}); err != nil {
				return err
			}
			if _, err := tx.AddHandoff(records.Handoff{Goal: g, Round: r.ID, Summary: text(), Questions: []string{text(), text()}, CreatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The claim order: every open todo, last first.
	order := Order{Bundle: "b", Input: func(ts []records.Todo) (OrderInput, error) {
		var deps [][]string
		var idx []int
		for _, td := range ts {
			if td.Status != records.TodoDone && td.Status != records.TodoCancelled {
				deps, idx = append(deps, []string{}), append([]int{len(idx)}, idx...)
			}
		}
		return OrderInput{Key: fmt.Sprint(len(ts)), DepsOpen: deps, Eval: func() ([]int, error) { return idx, nil }}, nil
	}}
	path := filepath.Join(dir, "cache", "readmodel.json")
	_, b, err := Build(s, goals, order)
	if err != nil || Write(path, b) != nil {
		t.Fatal(err)
	}
	got := Load(path, s.Path(), "b", now)
	if got == nil {
		t.Fatal("the model did not load")
	}
	// The todos line holds the records as stored: it decodes to the very
	// todos the store gives.
	for _, g := range goals {
		todos, err := got.Todos(g)
		if err != nil {
			t.Fatal(err)
		}
		var stored []records.Todo
		if err := s.View(func(tx *kernel.Tx) error { stored, err = tx.Todos(g); return err }); err != nil {
			t.Fatal(err)
		}
		if len(todos) != len(stored) || (len(stored) > 0 && !reflect.DeepEqual(todos, stored)) {
			t.Fatalf("goal %s: the read model's todos\n%v\nthe store's\n%v", g, todos, stored)
		}
	}
	got.todos = nil
	core, _, _ := bytes.Cut(b, []byte{'\n'})
	doc, ok := checked(core)
	var want Model
	if !ok || json.Unmarshal(doc, &want) != nil {
		t.Fatal("the first line does not decode")
	}
	if want.Goals["g1"].Hot == nil || len(want.Goals["g1"].Hot.Leased) == 0 || len(want.Goals["g2"].Seeded) == 0 || want.Rules == nil || len(want.Agents) != 4 {
		t.Fatalf("the store is not varied enough: %s", doc)
	}
	got.now, got.path, got.core = time.Time{}, "", nil
	if !reflect.DeepEqual(*got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("goccy decoded\n%s\nencoding/json\n%s", g, w)
	}
}

// TestCache_DecodesOnceAndNeverOutlivesTheFile: a Cache decodes a file's
// first line once while it and state.db are unchanged (each caller gets
// its own clock), and returns nothing it decoded before once the line is
// edited (checksum kept or not), another bundle asks, or the store
// commits.
func TestCache_DecodesOnceAndNeverOutlivesTheFile(t *testing.T) {
	dir, now := t.TempDir(), time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s, add := todoStore(t, dir, now)
	add("first")
	path := filepath.Join(dir, "cache", "readmodel.json")
	_, b, err := Build(s, []string{"g1"}, Order{})
	if err != nil || Write(path, b) != nil {
		t.Fatal(err)
	}
	var c Cache
	a := c.Load(path, s.Path(), "", now)
	later := now.Add(time.Minute)
	d := c.Load(path, s.Path(), "", later)
	if a == nil || d == nil || !a.Now().Equal(now) || !d.Now().Equal(later) {
		t.Fatalf("loads %+v %+v", a, d)
	}
	if reflect.ValueOf(a.Goals).Pointer() != reflect.ValueOf(d.Goals).Pointer() {
		t.Fatal("the same first line was decoded twice")
	}
	if c.Load(path, s.Path(), "sha256:other", now) != nil {
		t.Fatal("a model ordered by other policies loaded from the cache")
	}

	// An edit of the first line, its checksum recomputed: decoded anew
	// (what it says is what a fresh Load would say), never the cached one.
	core, rest, _ := bytes.Cut(b, []byte{'\n'})
	doc, _ := checked(core)
	edited := bytes.Replace(doc, []byte(`"status":"active"`), []byte(`"status":"paused"`), 1)
	sum := sha256.Sum256(edited)
	line := slices.Concat(edited, []byte(" "), []byte(hex.EncodeToString(sum[:])))
	if _, ok := checked(line); !ok || bytes.Equal(edited, doc) {
		t.Fatal("no edit with a valid checksum")
	}
	if err := os.WriteFile(path, slices.Concat(line, []byte{'\n'}, rest), 0o600); err != nil {
		t.Fatal(err)
	}
	if g, _ := c.Load(path, s.Path(), "", now).Goal("g1"); g.Status != records.GoalPaused {
		t.Fatalf("after an edit the cache answered %+v", g)
	}
	// Without its checksum: nothing, not the model decoded before.
	if err := os.WriteFile(path, slices.Concat(bytes.Replace(core, []byte(`"status":"active"`), []byte(`"status":"paused"`), 1), []byte{'\n'}, rest), 0o600); err != nil {
		t.Fatal(err)
	}
	if c.Load(path, s.Path(), "", now) != nil {
		t.Fatal("an edited first line without its checksum loaded")
	}
	// The genuine file again, then a commit: stale, even from the cache.
	if err := Write(path, b); err != nil {
		t.Fatal(err)
	}
	if c.Load(path, s.Path(), "", now) == nil {
		t.Fatal("the genuine model did not load")
	}
	add("second")
	if c.Load(path, s.Path(), "", now) != nil {
		t.Fatal("a stale model loaded from the cache")
	}
}
