// Package atomicfile writes a file so that a reader sees either its old
// content or its new content, never a partial one, never through a link,
// and durably (the file and its directory are flushed before Write
// returns nil): the temp file is created without following one and renamed in its
// directory opened without following one (internal/nofollow).
package atomicfile

import (
	"path/filepath"

	"github.com/loopx-dev/loopx/internal/nofollow"
)

// Write writes data to a temp file beside path (".<base>.*.tmp", mode
// 0600) and renames it over path. path's directory must not be a symbolic
// link (the directory above it is trusted); a link at path itself is
// replaced, never written through. Errors: *nofollow.LinkError for a
// linked directory; the temp file's creation, write, flush, close or
// rename (the temp file is removed then; path is unchanged); the
// directory's flush after the rename.
func Write(path string, data []byte) error {
	base, rel := split(path)
	return WriteBelow(base, rel, data)
}

// WriteBelow is Write of base/rel where no component of rel below base is
// followed if it is a symbolic link (base itself is trusted): the file's
// directory must exist. Errors: those of Write.
func WriteBelow(base, rel string, data []byte) error {
	return nofollow.Replace(base, rel, data, 0o600)
}

// WriteBelowUnflushed is WriteBelow without the flushes, for a file loopx
// checks before it trusts it and derives again when it is stale or
// missing (the read model): a crash can leave the old content, never a
// partial one. Errors: those of WriteBelow but flushing.
func WriteBelowUnflushed(base, rel string, data []byte) error {
	return nofollow.ReplaceUnflushed(base, rel, data, 0o600)
}

// split returns the directory above path's directory and path below it
// (the file's directory and name), or path's directory and name when that
// directory is the root or ".".
func split(path string) (base, rel string) {
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	if up := filepath.Dir(dir); up != dir {
		return up, filepath.Join(filepath.Base(dir), filepath.Base(path))
	}
	return dir, filepath.Base(path)
}
