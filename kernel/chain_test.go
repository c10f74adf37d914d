package kernel

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

// chainStore opens a store in a fresh project directory (root/.loopx, so
// the anchor is the root's) and commits n todos. It returns the state
// directory; the store is closed.
func chainStore(t testing.TB, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".loopx")
	s, err := Open(dir, Options{Now: fixedClock(t0), LockTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := s.Update(func(tx *Tx) error {
			_, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "todo " + strconv.Itoa(i)})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	closeNoShrink(s)
	return dir
}

func openDir(dir string, accept bool) (*Store, error) {
	return Open(dir, Options{Now: fixedClock(t0), LockTimeout: 2 * time.Second, AcceptRollback: accept})
}

func copyTo(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOpen_AnchorMismatch: a store behind its anchor, off its chain,
// missing, emptied, or without an anchor is refused (with what was found,
// logged in the anchor directory) and accepted only with AcceptRollback
// (audited); a store ahead on the same chain is accepted and re-anchored.
func TestOpen_AnchorMismatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		found string // "" = accepted without AcceptRollback
		want  error
		hint  string // the remedy the refusal names
	}{
		{"behind: an older copy put back", func(t *testing.T, dir string) {
			copyTo(t, filepath.Join(dir, DBFile), filepath.Join(dir, "old.db"))
			s, _ := openDir(dir, false)
			_ = s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "later"}); return err })
			closeNoShrink(s)
			copyTo(t, filepath.Join(dir, "old.db"), filepath.Join(dir, DBFile))
		}, "store_behind", ErrRolledBack, HintBehind},
		{"off the chain: another project's store copied in", func(t *testing.T, dir string) {
			other := chainStore(t, 3)
			copyTo(t, filepath.Join(other, DBFile), filepath.Join(dir, DBFile))
			copyTo(t, filepath.Join(other, EventsFile), filepath.Join(dir, EventsFile))
		}, "store_off_chain", ErrTampered, HintOffChain},
		{"missing", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, DBFile)); err != nil {
				t.Fatal(err)
			}
		}, "store_missing", ErrRolledBack, HintFileMissing},
		{"zero-filled whole", func(t *testing.T, dir string) {
			fi, _ := os.Stat(filepath.Join(dir, DBFile))
			if err := os.WriteFile(filepath.Join(dir, DBFile), make([]byte, fi.Size()), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "store_missing", ErrRolledBack, HintNoRecords},
		{"unanchored: the anchor removed", func(t *testing.T, dir string) {
			adir, _ := AnchorDirOf(dir)
			if err := os.Remove(filepath.Join(adir, AnchorFile)); err != nil {
				t.Fatal(err)
			}
		}, "store_unanchored", ErrTampered, HintUnanchored},
		{"ahead: a crash between the commit and the anchor's write", func(t *testing.T, dir string) {
			adir, _ := AnchorDirOf(dir)
			before, _ := os.ReadFile(filepath.Join(adir, AnchorFile))
			s, _ := openDir(dir, false)
			_ = s.Update(func(tx *Tx) error { _, err := tx.AddTodo(records.Todo{Goal: "g1", Title: "later"}); return err })
			closeNoShrink(s)
			if err := os.WriteFile(filepath.Join(adir, AnchorFile), before, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := chainStore(t, 2)
			tc.setup(t, dir)
			s, err := openDir(dir, false)
			if tc.found == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				rev, hash := s.Head()
				closeNoShrink(s)
				adir, _ := AnchorDirOf(dir)
				if a, ok, _ := ReadAnchor(adir); !ok || a.Rev != rev || a.Hash != hash {
					t.Fatalf("anchor %+v not advanced to %d %s", a, rev, hash)
				}
				return
			}
			if err == nil {
				closeNoShrink(s)
				t.Fatal("accepted")
			}
			if e := errs.As(err); !errors.Is(err, tc.want) || !IsStoreError(err) || e.Hint.Key != tc.hint {
				t.Fatalf("err = %v (hint %+v), want %v naming the remedy %s", err, e.Hint, tc.want, tc.hint)
			}
			adir, _ := AnchorDirOf(dir)
			rs, _, _ := ReadRefusals(adir)
			if len(rs) != 1 || rs[0].Code != tc.found {
				t.Fatalf("refusals = %+v, want one %s", rs, tc.found)
			}
			// Twice the same refusal is logged once.
			if _, err := openDir(dir, false); err == nil {
				t.Fatal("accepted on the second open")
			}
			if rs, _, _ := ReadRefusals(adir); len(rs) != 1 {
				t.Fatalf("refusals after a repeat = %d", len(rs))
			}
			s, err = openDir(dir, true)
			if err != nil {
				t.Fatalf("AcceptRollback: %v", err)
			}
			defer closeNoShrink(s)
			var kinds []string
			_ = s.View(func(tx *Tx) error {
				return tx.Events(func(ev records.Event) bool { kinds = append(kinds, ev.Kind); return true })
			})
			if !strings.Contains(strings.Join(kinds, " "), "store.accepted") || !strings.Contains(strings.Join(kinds, " "), "store.refused") {
				t.Fatalf("events after accepting: %v", kinds)
			}
			if rs, _, _ := ReadRefusals(adir); len(rs) != 0 {
				t.Fatalf("refusals kept after accepting: %+v", rs)
			}
		})
	}
}

// TestOpen_ChecksumsAndDigest: a byte changed inside a record, a record
// rewritten with a valid checksum, a record added or removed: each is
// refused on open, never accepted as it is (not even with AcceptRollback).
func TestOpen_ChecksumsAndDigest(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(tx *buntdb.Tx) error
	}{
		{"a changed byte", func(tx *buntdb.Tx) error {
			return editTodo(tx, func(k, v string) (string, string) { return k, strings.Replace(v, `"g1"`, `"g2"`, 1) })
		}},
		{"a record rewritten with its checksum", func(tx *buntdb.Tx) error {
			return editTodo(tx, func(k, v string) (string, string) {
				return k, wrap(k, strings.Replace(payloadOf(k, v), `"open"`, `"done"`, 1))
			})
		}},
		{"a record added", func(tx *buntdb.Tx) error {
			_, _, err := tx.Set("todo:g1:t-beef", wrap("todo:g1:t-beef", `{"id":"t-beef","goal":"g1","title":"forged"}`), nil)
			return err
		}},
		{"a record removed", func(tx *buntdb.Tx) error {
			return editTodo(tx, func(k, v string) (string, string) { return "", "" })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := chainStore(t, 3)
			db, err := buntdb.Open(filepath.Join(dir, DBFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(tc.edit); err != nil {
				t.Fatal(err)
			}
			db.Close()
			for _, accept := range []bool{false, true} {
				s, err := openDir(dir, accept)
				if err == nil {
					closeNoShrink(s)
					t.Fatalf("accepted (accept %v)", accept)
				}
				if !errors.Is(err, ErrTampered) {
					t.Fatalf("err = %v", err)
				}
			}
			rep, err := VerifyChainAt(dir, Options{})
			if err != nil || rep.OK() {
				t.Fatalf("doctor found nothing: %+v %v", rep, err)
			}
		})
	}
}

// editTodo applies fn to the record of todo 0 (an empty key deletes it):
// the first transaction's, which the journal (the last one's) does not
// restore.
func editTodo(tx *buntdb.Tx, fn func(k, v string) (string, string)) error {
	var key, val string
	_ = tx.AscendGreaterOrEqual("", "todo:", func(k, v string) bool {
		if strings.Contains(v, `"title":"todo 0"`) {
			key, val = k, v
			return false
		}
		return true
	})
	nk, nv := fn(key, val)
	if nk == "" {
		_, err := tx.Delete(key)
		return err
	}
	_, _, err := tx.Set(nk, nv, nil)
	return err
}

// TestOpen_UnknownSchemaRefusedUntouched: zero, negative, newer and
// non-numeric stamps are refused with the version found and the one
// expected; the file is left byte for byte.
func TestOpen_UnknownSchemaRefusedUntouched(t *testing.T) {
	for _, v := range []string{"0", "-1", strconv.Itoa(SchemaVersion + 1), "two"} {
		t.Run(v, func(t *testing.T) {
			dir := chainStore(t, 1)
			db, _ := buntdb.Open(filepath.Join(dir, DBFile))
			_ = db.Update(func(tx *buntdb.Tx) error { _, _, err := tx.Set(keySchema, v, nil); return err })
			db.Close()
			before, _ := os.ReadFile(filepath.Join(dir, DBFile))
			_, err := openDir(dir, true)
			if err == nil || !IsStoreError(err) || !strings.Contains(err.Error(), strconv.Itoa(SchemaVersion)) || !strings.Contains(err.Error(), v) {
				t.Fatalf("err = %v", err)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, DBFile)); !bytes.Equal(before, after) {
				t.Fatal("the store was changed")
			}
		})
	}
}

// TestVerifyChain_ZeroedRegionThenSalvage: zeroes inside a transaction's
// records make doctor name that transaction; salvage rebuilds every
// transaction from the blocks, keeps the damaged file and re-anchors.
func TestVerifyChain_ZeroedRegionThenSalvage(t *testing.T) {
	dir := chainStore(t, 6)
	path := filepath.Join(dir, DBFile)
	b, _ := os.ReadFile(path)
	// The records of revision 4: after its journal, before the next one.
	j4 := bytes.Index(b, []byte(`"rev":4,`))
	j5 := bytes.Index(b, []byte(`"rev":5,`))
	at := j4 + (j5-j4)*3/4
	copy(b[at:], make([]byte, 40))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyChainAt(dir, Options{})
	if err != nil || rep.FirstBad == nil || *rep.FirstBad != 4 {
		t.Fatalf("first bad = %v (%s), %v; want 4", rep.FirstBad, rep.Problem, err)
	}
	sr, err := Salvage(dir, Options{Now: fixedClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	if sr.Kept != 6 || sr.Dropped != 0 {
		t.Fatalf("salvage = %+v", sr)
	}
	if _, err := os.Stat(filepath.Join(dir, BackupBeforeSalvage)); err != nil {
		t.Fatal(err)
	}
	s, err := openDir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer closeNoShrink(s)
	var n int
	_ = s.View(func(tx *Tx) error { ts, err := tx.Todos("g1"); n = len(ts); return err })
	if n != 6 {
		t.Fatalf("todos after salvage = %d, want 6", n)
	}
	if rep, err := s.VerifyChain(); err != nil || !rep.OK() {
		t.Fatalf("after salvage: %+v %v", rep, err)
	}
}

// TestVerifyChain_MissingBlockStopsTheSalvage: a block destroyed breaks the
// chain there: salvage keeps the transactions before it and counts the
// rest as lost.
func TestVerifyChain_MissingBlockStopsTheSalvage(t *testing.T) {
	dir := chainStore(t, 6)
	path := filepath.Join(dir, DBFile)
	b, _ := os.ReadFile(path)
	j := bytes.Index(b, []byte(`"rev":4,`))
	copy(b[j:], make([]byte, 30))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyChainAt(dir, Options{})
	if err != nil || rep.FirstBad == nil || *rep.FirstBad != 4 {
		t.Fatalf("first bad = %v (%s), %v; want 4", rep.FirstBad, rep.Problem, err)
	}
	sr, err := Salvage(dir, Options{Now: fixedClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	if sr.Kept != 3 || sr.Dropped != 3 {
		t.Fatalf("salvage = %+v, want kept 3, dropped 3", sr)
	}
}
