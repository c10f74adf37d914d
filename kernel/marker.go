package kernel

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
)

// RevFile is the change marker in the state directory (.loopx/state.rev):
// after every committed Update that wrote something, the store replaces it
// (temp file + rename) with the new global revision in decimal and the
// chain head's block hash after a space. A watcher in another process
// watches the state directory for this one name instead of state.db, whose
// appends are not a reliable signal of a commit, and compares the whole
// marker (ReadMarker): a store rolled back and accepted again commits a
// revision number seen before, never the same head.
const RevFile = "state.rev"

// publishRev replaces dir/state.rev with rev and head. It runs after the
// commit, still under the state lock. Failures are ignored: the commit
// stands, and a watcher only misses a hint (the next commit rewrites the
// marker).
func publishRev(dir string, rev uint64, head string) {
	root, rel := noFollowBase(dir)
	_ = nofollow.WriteFileUnflushed(root, filepath.Join(rel, RevFile), []byte(strconv.FormatUint(rev, 10)+" "+head+"\n"), 0o644)
}

// noFollowBase splits a state directory into the directory it is in (the
// project root, trusted) and its name there: the files loopx writes in it
// are reached from that root without following a link (internal/nofollow),
// so that a link an agent places in .loopx/ never makes loopx write
// elsewhere.
func noFollowBase(dir string) (root, rel string) {
	return filepath.Dir(dir), filepath.Base(dir)
}

// ReadRevFile returns the revision in dir/state.rev (dir is a project's
// .loopx/ directory). It returns 0 and an error wrapping os.ErrNotExist when
// no commit has published one yet, and an error for a malformed marker.
func ReadRevFile(dir string) (uint64, error) {
	b, err := regularfile.ReadFile(filepath.Join(dir, RevFile), 1<<10)
	if err != nil {
		return 0, err
	}
	num, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	rev, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, errors.New("malformed " + RevFile + ": " + err.Error())
	}
	return rev, nil
}

// ReadMarker returns the change marker dir/state.rev as written (the
// revision and the chain head), trimmed: two reads that differ saw
// different commits. Errors: ReadRevFile's.
func ReadMarker(dir string) (string, error) {
	b, err := regularfile.ReadFile(filepath.Join(dir, RevFile), 1<<10)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
