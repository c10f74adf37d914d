package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RevFile is the change marker in the state directory (.loopx/state.rev):
// after every committed Update that wrote something, the store replaces it
// (temp file + rename) with the new global revision in decimal. A watcher in
// another process watches the state directory for this one name instead of
// state.db, whose appends are not a reliable signal of a commit.
const RevFile = "state.rev"

// revTemp is the marker's temp file; one fixed name is safe because only the
// lock holder writes it.
const revTemp = ".state.rev.tmp"

// publishRev replaces dir/state.rev with rev. It runs after the commit,
// still under the state lock. Failures are ignored: the commit stands, and
// a watcher only misses a hint (the next commit rewrites the marker).
func publishRev(dir string, rev uint64) {
	tmp := filepath.Join(dir, revTemp)
	if err := os.WriteFile(tmp, []byte(strconv.FormatUint(rev, 10)+"\n"), 0o644); err != nil {
		return
	}
	if err := os.Rename(tmp, filepath.Join(dir, RevFile)); err != nil {
		_ = os.Remove(tmp)
	}
}

// ReadRevFile returns the revision in dir/state.rev (dir is a project's
// .loopx/ directory). It returns 0 and an error wrapping os.ErrNotExist when
// no commit has published one yet, and an error for a malformed marker.
func ReadRevFile(dir string) (uint64, error) {
	b, err := os.ReadFile(filepath.Join(dir, RevFile))
	if err != nil {
		return 0, err
	}
	rev, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, errors.New("malformed " + RevFile + ": " + err.Error())
	}
	return rev, nil
}
