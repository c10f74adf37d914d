package decisionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/nofollow"
)

// rev is "sha256:" and 64 hex digits made of b.
func rev(b byte) string { return "sha256:" + strings.Repeat(fmt.Sprintf("%02x", b), 32) }

// testLog is a Log in a fresh state directory; legacy reads lines of the
// form "legacy <id>".
func testLog(t *testing.T) *Log[request, quota] {
	t.Helper()
	return New(filepath.Join(t.TempDir(), ".loopx"), "v-test", func(line []byte) (Entry[request, quota], bool) {
		id, ok := bytes.CutPrefix(line, []byte("legacy "))
		return Entry[request, quota]{DecisionID: string(id), Result: json.RawMessage(`{}`)}, ok
	})
}

// entry is a line of decision id for goal at ts.
func entry(id, goal string, ts time.Time) Entry[request, quota] {
	return Entry[request, quota]{DecisionID: id, Path: "loopx/run/decision", Input: request{Query: "should_run", Goal: goal},
		Result: json.RawMessage(`{"verdict":"run"}`), Erased: []string{ErasedState}, Timestamp: ts}
}

// bundle is a bundle whose Files counts its calls.
func bundle(name, revision string, calls *int) Bundle {
	return Bundle{Name: name, Revision: revision, Files: func() (map[string][]byte, []string, error) {
		*calls++
		return map[string][]byte{"loopx/x/a.rego": []byte("package loopx.x\n")}, []string{"loopx/x"}, nil
	}}
}

// TestLog_AppendStoresInputAndBundles: a line carries the labels, the
// bundles map and the stored input's hash; the input is stored once by its
// SHA-256, each bundle once per revision as an OPA bundle directory.
func TestLog_AppendStoresInputAndBundles(t *testing.T) {
	l := testLog(t)
	calls := 0
	ts := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, id := range []string{"01A", "01B"} {
		if err := l.Append(entry(id, "g1", ts), []byte(`{"query":"should_run","state":{}}`), bundle(PolicyBundle, rev(1), &calls)); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	if calls != 1 {
		t.Errorf("the bundle's files were asked %d times, want once", calls)
	}
	man, err := os.ReadFile(filepath.Join(l.dir, BundlesDirName, PolicyBundle, strings.Repeat("01", 32), ".manifest"))
	if err != nil || !bytes.Contains(man, []byte(`"revision": "`+rev(1)+`"`)) || !bytes.Contains(man, []byte(`"loopx/x"`)) {
		t.Fatalf(".manifest = %s, %v", man, err)
	}
	entries, skipped, err := l.Read(func(*Entry[request, quota]) bool { return true }, 0)
	if err != nil || skipped != 0 || len(entries) != 2 {
		t.Fatalf("Read = %d entries, %d skipped, %v", len(entries), skipped, err)
	}
	le := entries[0]
	if le.Labels["version"] != "v-test" || len(le.Labels["id"]) != 26 || le.Bundles[PolicyBundle].Revision != rev(1) || le.Legacy {
		t.Errorf("line = %+v", le)
	}
	b, err := os.ReadFile(le.InputPath(l.dir))
	if err != nil || string(b) != `{"query":"should_run","state":{}}` {
		t.Fatalf("stored input %q, %v", b, err)
	}
	// Another process of the project agrees on labels.id.
	if got := New[request, quota](l.dir, "v-test", nil).instanceID(); got != le.Labels["id"] {
		t.Errorf("a second Log's id %q, the first's %q", got, le.Labels["id"])
	}
}

// TestLog_RotatesAndReadsAcrossFiles: past MaxBytes the log rotates
// (.1 → .2 …, Keep files kept); Read and Find see the rotated files; a
// torn line is skipped and counted; Find of an unknown id is ErrNotFound;
// the legacy reader's lines are read and marked Legacy.
func TestLog_RotatesAndReadsAcrossFiles(t *testing.T) {
	l := testLog(t)
	ts := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var calls int
	for i := range Keep + 2 {
		if i == 1 {
			// A torn line and a legacy line in the first file.
			f, err := os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "{\"decision_id\":\"01TORN\nlegacy 01OLD\n")
			f.Close()
		}
		if i > 0 {
			if err := os.Truncate(l.Path(), MaxBytes-10); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Append(entry(fmt.Sprintf("01E%d", i), fmt.Sprintf("g%d", i), ts.Add(time.Duration(i)*time.Second)), []byte(fmt.Sprint(i)), bundle(PolicyBundle, rev(1), &calls)); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(l.Files()); got != Keep+1 {
		t.Fatalf("%d files, want %d: %v", got, Keep+1, l.Files())
	}
	if _, err := os.Stat(fmt.Sprintf("%s.%d", l.Path(), Keep+1)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("more than Keep=%d rotated files: %v", Keep, err)
	}
	all, _, err := l.Read(func(*Entry[request, quota]) bool { return true }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, le := range all {
		ids = append(ids, le.DecisionID)
	}
	// 01E0 and the torn and legacy lines were in the file rotated out.
	var want []string
	for i := 1; i <= Keep+1; i++ {
		want = append(want, fmt.Sprintf("01E%d", i))
	}
	if !slices.Equal(ids, want) {
		t.Errorf("Read = %v, want %v", ids, want)
	}
	if le, err := l.Find(fmt.Sprintf("01E%d", Keep+1)); err != nil || le.Input.Goal != fmt.Sprintf("g%d", Keep+1) {
		t.Errorf("Find = %+v, %v", le, err)
	}
	if _, err := l.Find("01NOPE"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find of an unknown id: %v", err)
	}
	if le, ok := l.Parse([]byte("legacy 01OLD")); !ok || !le.Legacy || le.DecisionID != "01OLD" {
		t.Errorf("legacy line: %+v, %v", le, ok)
	}
	if _, ok := l.Parse([]byte(`{"decision_id":"01TORN`)); ok {
		t.Error("a torn line parsed")
	}
}

// TestLog_ReadFiltersAndLimits: Read keeps what keep accepts, the newest
// limit of them, oldest first; torn lines are counted as skipped.
func TestLog_ReadFiltersAndLimits(t *testing.T) {
	l := testLog(t)
	ts := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 6 {
		if err := l.Append(entry(fmt.Sprintf("01E%d", i), []string{"g1", "g2"}[i%2], ts), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"decision_id\":\"01TORN\n\nnot json\n")
	f.Close()
	for _, tc := range []struct {
		goal  string
		limit int
		want  []string
	}{
		{"g1", 0, []string{"01E0", "01E2", "01E4"}},
		{"g2", 2, []string{"01E3", "01E5"}},
		{"", 1, []string{"01E5"}},
		{"nope", 0, nil},
	} {
		got, skipped, err := l.Read(func(le *Entry[request, quota]) bool { return tc.goal == "" || le.Input.Goal == tc.goal }, tc.limit)
		var ids []string
		for _, le := range got {
			ids = append(ids, le.DecisionID)
		}
		if err != nil || skipped != 2 || !slices.Equal(ids, tc.want) {
			t.Errorf("Read(goal %q, limit %d) = %v, %d skipped, %v; want %v", tc.goal, tc.limit, ids, skipped, err, tc.want)
		}
	}
}

// TestPruneInputsBySize: past the bound the oldest stored inputs go (by
// modification time), down to three quarters of it; other names stay.
func TestPruneInputsBySize(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 8; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%064x.json", i))
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(dir, ".0000.json.1.tmp") // a writer's temp file
	if err := os.WriteFile(tmp, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	pruneInputsBySize(filepath.Dir(dir), filepath.Base(dir), 700)
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, ent := range ents {
		if ent.Name() != filepath.Base(tmp) {
			names = append(names, ent.Name()[62:64])
		}
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("a temp file was pruned: %v", err)
	}
	if !slices.Equal(names, []string{"03", "04", "05", "06", "07"}) {
		t.Fatalf("after pruning to 700 bytes: %v", names)
	}
}

// TestLog_LinkedDirectoriesAreRefused: a bundles directory that is a link
// to a directory of the user's stops the line (a *nofollow.LinkError
// naming it) and nothing is written there; a pruned inputs directory that
// is a link is left alone, and so are the files in its target named as
// stored inputs.
func TestLog_LinkedDirectoriesAreRefused(t *testing.T) {
	l := testLog(t)
	outside := t.TempDir()
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(l.dir, BundlesDirName)); err != nil {
		t.Fatal(err)
	}
	calls := 0
	err := l.Append(entry("01A", "g1", time.Now()), []byte(`{}`), bundle(PolicyBundle, rev(1), &calls))
	var le *nofollow.LinkError
	if !errors.As(err, &le) || le.Path != filepath.Join(l.dir, BundlesDirName) {
		t.Fatalf("Append: %v, want the linked bundles directory refused", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("wrote into the link's target: %v", ents)
	}
	// Prune: the inputs directory is a link to a directory of the user's
	// holding files named as stored inputs.
	victim := filepath.Join(outside, strings.Repeat("ab", 32)+".json")
	if err := os.WriteFile(victim, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(l.dir, "inputs2")); err != nil {
		t.Fatal(err)
	}
	pruneInputsBySize(l.dir, "inputs2", 10)
	removeUnnamed(l.dir, "inputs2", map[string]bool{}, ".json")
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the prune removed a file of the user's: %v", err)
	}
}
