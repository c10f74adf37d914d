// Package nofollow writes files below a trusted directory without following
// a link at any component below it: the project, its .loopx/, the anchor
// directory and the hosts' settings are in an agent's reach, and a
// symbolic link it places where loopx writes must never make loopx write
// elsewhere (a user's file, another project). A link found is refused
// with a *LinkError; a file loopx appends to in place that has other hard
// links is refused the same way.
//
// On Linux 5.6 and later every path is resolved by openat2 with
// RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH; elsewhere, and where openat2 is
// not available (ENOSYS), one component at a time with O_NOFOLLOW.
package nofollow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrLink is what every *LinkError is (errors.Is).
var ErrLink = errors.New("a link where loopx writes")

// LinkError is a write refused because a symbolic link (or a file with
// other hard links) was found at Path.
type LinkError struct {
	// Path is the link found (absolute).
	Path string
	// Target is where a symbolic link points ("" for a hard link).
	Target string
	// Hard is true for a regular file with more than one hard link.
	Hard bool
}

func (e *LinkError) Error() string {
	if e.Hard {
		return fmt.Sprintf("%s has other hard links (a file placed there to make loopx write into another): loopx never writes through a link", e.Path)
	}
	return fmt.Sprintf("%s is a symbolic link (to %s): loopx never writes through a link", e.Path, e.Target)
}

// Is reports whether target is ErrLink.
func (e *LinkError) Is(target error) bool { return target == ErrLink }

// clean checks rel: relative, inside base (no ".." component).
func clean(rel string) (string, error) {
	rel = filepath.Clean(filepath.FromSlash(rel))
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %s is not below its directory", rel)
	}
	return rel, nil
}

// Rel returns path relative to base, for callers that hold full paths
// (an error when path is not below base).
func Rel(base, path string) (string, error) {
	r, err := filepath.Rel(base, path)
	if err != nil {
		return "", err
	}
	return clean(r)
}

// linkAt returns the *LinkError for the first symbolic link among the
// components of rel below base, or nil when there is none (the error that
// led here was something else).
func linkAt(base, rel string) error {
	p := base
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			t, _ := os.Readlink(p)
			return &LinkError{Path: p, Target: t}
		}
	}
	return nil
}

// WriteFile replaces base/rel with data (mode perm): written to a temp
// file beside it, flushed, and renamed over it (the directory flushed
// after), so a reader sees the old or the new content, a link at rel is
// replaced, never written through, and the new content survives a crash
// once WriteFile returns nil. Parent directories are created (0755) as
// MkdirAll does. Errors: *LinkError; creating, writing, flushing or
// renaming.
func WriteFile(base, rel string, data []byte, perm os.FileMode) error {
	return writeFileMkdir(base, rel, data, perm, true)
}

// WriteFileUnflushed is WriteFile without the flushes, for a file loopx
// can lose in a crash because it derives it again or checks it before use
// (a cache, a change marker, a content-addressed copy): a reader still
// sees the old or the new content, never a partial one. Errors: those of
// WriteFile but flushing.
func WriteFileUnflushed(base, rel string, data []byte, perm os.FileMode) error {
	return writeFileMkdir(base, rel, data, perm, false)
}

func writeFileMkdir(base, rel string, data []byte, perm os.FileMode, flush bool) error {
	rel, err := clean(rel)
	if err != nil {
		return err
	}
	if err := MkdirAll(base, filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	return writeFile(base, rel, data, perm, flush)
}

// Replace replaces base/rel with data (mode perm) as WriteFile does, but
// creates no directory: rel's directory must exist. The temp file beside
// it is created with O_EXCL in the directory opened without following a
// link, flushed (internal/fsync), and renamed over rel in that directory
// (a link at rel is replaced, never written through), which is flushed
// too: once Replace returns nil the new content survives a crash.
// Errors: *LinkError; creating, writing, flushing or renaming (rel is
// unchanged and the temp file removed then); flushing the directory after
// the rename (rel then holds the new content, perhaps not durably).
func Replace(base, rel string, data []byte, perm os.FileMode) error {
	rel, err := clean(rel)
	if err != nil {
		return err
	}
	return writeFile(base, rel, data, perm, true)
}

// ReplaceUnflushed is Replace without the flushes (WriteFileUnflushed
// says for which files). Errors: those of Replace but flushing.
func ReplaceUnflushed(base, rel string, data []byte, perm os.FileMode) error {
	rel, err := clean(rel)
	if err != nil {
		return err
	}
	return writeFile(base, rel, data, perm, false)
}

// AppendFile appends data to base/rel (created with mode perm) in one
// write call. Errors: *LinkError (a symbolic link, or a file with other
// hard links); opening or writing.
func AppendFile(base, rel string, data []byte, perm os.FileMode) error {
	f, err := OpenFile(base, rel, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// OpenFile opens base/rel as os.OpenFile does, refusing a symbolic link at
// any component below base; a file opened for writing in place (not
// O_CREATE|O_EXCL) must have no other hard link. Errors: *LinkError; those
// of opening.
func OpenFile(base, rel string, flag int, perm os.FileMode) (*os.File, error) {
	rel, err := clean(rel)
	if err != nil {
		return nil, err
	}
	f, err := openFile(base, rel, flag, perm)
	if err != nil {
		if le := linkAt(base, rel); le != nil {
			return nil, le
		}
		return nil, &os.PathError{Op: "open", Path: filepath.Join(base, rel), Err: unwrapPath(err)}
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && hardLinks(fi) > 1 {
			f.Close()
			return nil, &LinkError{Path: filepath.Join(base, rel), Hard: true}
		}
	}
	return f, nil
}

// MkdirAll creates base/rel and its missing parents below base (mode
// perm), refusing a symbolic link at any component. Errors: *LinkError;
// those of creating.
func MkdirAll(base, rel string, perm os.FileMode) error {
	rel, err := clean(rel)
	if err != nil {
		return err
	}
	if rel == "." {
		return nil
	}
	if err := mkdirAll(base, rel, perm); err != nil {
		if le := linkAt(base, rel); le != nil {
			return le
		}
		return err
	}
	return nil
}

// Rename renames base/oldrel to base/newrel (renameat in directories
// opened without following links; a link at newrel is replaced, not
// followed). Errors: *LinkError for a link among the parents; renaming.
func Rename(base, oldrel, newrel string) error {
	return betweenTwo(base, oldrel, newrel, rename)
}

// Link makes base/newrel a hard link to base/oldrel (linkat in
// directories opened without following links; oldrel itself, when a
// symbolic link, is linked, never its target). Errors: *LinkError for a
// link among the parents; linking (fs.ErrExist when newrel exists).
func Link(base, oldrel, newrel string) error {
	return betweenTwo(base, oldrel, newrel, link)
}

// RemoveAll removes base/rel and, when it is a directory, everything in
// it, following no link: a symbolic link found inside (or at rel) is
// removed itself, never its target, and a link among rel's parents is
// refused. A missing rel is no error. Errors: *LinkError; removing.
func RemoveAll(base, rel string) error {
	rel, err := clean(rel)
	if err != nil {
		return err
	}
	if rel == "." {
		return fmt.Errorf("nofollow: refusing to remove %s itself", base)
	}
	if err := removeAll(base, rel); err != nil {
		if le := linkAt(base, filepath.Dir(rel)); le != nil {
			return le
		}
		return err
	}
	return nil
}

// ReadDir lists the directory base/rel as os.ReadDir does (sorted by
// name), refusing a symbolic link at any component below base. Errors:
// *LinkError; those of opening or reading.
func ReadDir(base, rel string) ([]os.DirEntry, error) {
	f, err := OpenFile(base, rel, os.O_RDONLY|syscallODirectory, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Split splits path into the directory loopx trusts and the last depth
// components below it, where no link is followed: Split("/p/.loopx/cache",
// 2) is "/p" and ".loopx/cache" (a project's state directory lies in the
// project root, which is trusted).
func Split(path string, depth int) (base, rel string) {
	base, rel = filepath.Clean(path), ""
	for range depth {
		rel = filepath.Join(filepath.Base(base), rel)
		base = filepath.Dir(base)
	}
	return base, rel
}

// betweenTwo runs op (rename or link) on base/oldrel and base/newrel once
// both are clean relative paths; when op fails, a link among either's
// parents is the error (*LinkError), else op's own.
func betweenTwo(base, oldrel, newrel string, op func(base, o, n string) error) error {
	o, err := clean(oldrel)
	if err != nil {
		return err
	}
	n, err := clean(newrel)
	if err != nil {
		return err
	}
	if err := op(base, o, n); err != nil {
		for _, r := range []string{filepath.Dir(o), filepath.Dir(n)} {
			if le := linkAt(base, r); le != nil {
				return le
			}
		}
		return err
	}
	return nil
}
