package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel/records"
)

var fuzzBase struct {
	once  sync.Once
	file  []byte
	log   []byte
	todos map[string]string
	rev   uint64
	hash  string
}

// FuzzStoreReader damages a committed store file (regions zeroed or
// flipped, as the fuzzer picks) and opens it against its anchor: it must
// never panic, and never silently accept a changed store — either the open
// is refused, or every todo reads exactly as committed. The chain walk of
// doctor must never panic either, and must report a problem whenever a
// refused store is handed to it.
func FuzzStoreReader(f *testing.F) {
	f.Add([]byte{0, 10, 20, 0})                                   // a few bytes zeroed near the start
	f.Add([]byte{0x80, 0x00, 0xff, 0x00})                         // a region zeroed in the middle
	f.Add([]byte{0xff, 0xf0, 0x08, 0x01})                         // bytes flipped near the end
	f.Add([]byte{0x40, 0x00, 0x01, 0x01, 0xc0, 0x00, 0x02, 0x00}) // two edits
	f.Fuzz(func(t *testing.T, ops []byte) {
		fuzzBase.once.Do(func() {
			dir := chainStore(t, 4)
			fuzzBase.file, _ = os.ReadFile(filepath.Join(dir, DBFile))
			fuzzBase.log, _ = os.ReadFile(filepath.Join(dir, EventsFile))
			s, err := openDir(dir, false)
			if err != nil {
				panic(err)
			}
			fuzzBase.rev, fuzzBase.hash = s.Head()
			fuzzBase.todos = todoRecords(s)
			closeNoShrink(s)
		})
		b := append([]byte(nil), fuzzBase.file...)
		changed := false
		for i := 0; i+4 <= len(ops) && i < 32; i += 4 {
			pos := (int(ops[i])<<8 | int(ops[i+1])) * len(b) / 65536
			n := int(ops[i+2]) + 1
			for j := pos; j < pos+n && j < len(b); j++ {
				old := b[j]
				if ops[i+3]&1 == 0 {
					b[j] = 0
				} else {
					b[j] ^= 0xff
				}
				changed = changed || b[j] != old
			}
		}
		dir := filepath.Join(t.TempDir(), ".loopx")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, DBFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, EventsFile), fuzzBase.log, 0o644); err != nil {
			t.Fatal(err)
		}
		adir := filepath.Join(t.TempDir(), "anchor")
		real, _ := filepath.EvalSymlinks(dir)
		if err := writeAnchor(adir, records.Anchor{Backend: Backend, Location: filepath.Join(real, DBFile), Rev: fuzzBase.rev, Hash: fuzzBase.hash}); err != nil {
			t.Fatal(err)
		}
		// The chain walk reads anything.
		rep := walkChain(filepath.Join(dir, DBFile), b, &records.Anchor{Rev: fuzzBase.rev, Hash: fuzzBase.hash}).report
		s, err := Open(dir, Options{Now: fixedClock(t0), LockTimeout: time.Second, AnchorDir: adir})
		if err != nil {
			if !changed {
				t.Fatalf("the unchanged store was refused: %v", err)
			}
			if rep.OK() && !strings.Contains(err.Error(), "event log") && !strings.Contains(err.Error(), "events.log") {
				t.Fatalf("open refused (%v) but the chain walk found nothing", err)
			}
			return
		}
		defer closeNoShrink(s)
		got := todoRecords(s)
		if len(got) != len(fuzzBase.todos) {
			t.Fatalf("accepted with %d todos, committed %d", len(got), len(fuzzBase.todos))
		}
		for k, v := range fuzzBase.todos {
			if got[k] != v {
				t.Fatalf("accepted a changed %s:\n%q\nwant\n%q", k, got[k], v)
			}
		}
	})
}

// todoRecords are the stored todo records of s (key → stored value).
func todoRecords(s *Store) map[string]string {
	m := map[string]string{}
	_ = s.db.View(func(tx *buntdb.Tx) error {
		return tx.AscendGreaterOrEqual("", "todo:", func(k, v string) bool {
			if !strings.HasPrefix(k, "todo:") {
				return false
			}
			m[k] = v
			return true
		})
	})
	return m
}
