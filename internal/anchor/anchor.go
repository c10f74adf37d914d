// Package anchor locates a project's anchor directory: the place outside the
// project, in the user's state directory, where loopx keeps what an agent
// whose writes are confined to the work tree must not reach — the store's
// chain head, the store's backend and location, and the read model: state is
// tamper-evident.
//
// The directory is indexed by the real path of the project root, so two
// checkouts of one repository have two anchors, and a symlink to a project
// finds the project's own anchor.
package anchor

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/loopx-dev/loopx/internal/anchorname"
	"github.com/loopx-dev/loopx/internal/nofollow"
)

// Dir returns the anchor directory of the project whose root directory is
// root, without creating it:
//
//	$XDG_STATE_HOME/loopx/projects/<name>-<hash>
//
// XDG_STATE_HOME defaults to ~/.local/state and is ignored when it is not an
// absolute path (as the XDG Base Directory specification says). <name> is the
// base name of root's real path reduced to [A-Za-z0-9._-] (for a human
// reading the directory listing), <hash> the first 16 hex digits of the
// SHA-256 of the real path (the key). Errors: root does not resolve (it must
// exist), or no home directory is known when XDG_STATE_HOME is unset.
func Dir(root string) (string, error) {
	base, err := stateHome()
	if err != nil {
		return "", err
	}
	return DirIn(base, root)
}

// DirIn is Dir under the state directory stateHome instead of the
// environment's (a test that runs a project under its own XDG_STATE_HOME
// inside one process). Errors: root does not resolve.
func DirIn(stateHome, root string) (string, error) {
	real, err := RealRoot(root)
	if err != nil {
		return "", err
	}
	return filepath.Join(stateHome, "loopx", "projects", anchorname.For(real)), nil
}

// Ensure returns Dir(root) after creating it and its missing parents with
// mode 0700 (the anchor holds what only the user may change), following no
// symbolic link below the state directory (loopx, projects and the
// anchor directory itself: internal/nofollow). Errors: those of Dir;
// *nofollow.LinkError naming a link found; those of creating the
// directory.
func Ensure(root string) (string, error) {
	home, err := stateHome()
	if err != nil {
		return "", err
	}
	return EnsureIn(home, root)
}

// EnsureIn is Ensure under the state directory stateHome instead of the
// environment's (DirIn). Errors: those of DirIn and of creating the
// directory; *nofollow.LinkError naming a link found.
func EnsureIn(stateHome, root string) (string, error) {
	d, err := DirIn(stateHome, root)
	if err != nil {
		return "", err
	}
	base, rel := Below(d)
	if err := nofollow.MkdirAll(base, rel, 0o700); err != nil {
		return "", err
	}
	return d, nil
}

// Below splits the anchor directory dir (Dir's layout) into the state
// directory it is in, which loopx trusts, and its path below it
// (loopx/projects/<name>-<hash>), where loopx follows no link; a directory
// of another layout (a test's) is split at its parent.
func Below(dir string) (base, rel string) {
	dir = filepath.Clean(dir)
	if filepath.Base(filepath.Dir(dir)) == "projects" && filepath.Base(filepath.Dir(filepath.Dir(dir))) == "loopx" {
		return nofollow.Split(dir, 3)
	}
	return nofollow.Split(dir, 1)
}

// RealRoot returns root made absolute with every symlink resolved: the key an
// anchor is indexed by. Errors: root does not exist or cannot be resolved.
func RealRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// StateDir returns loopx's state directory, $XDG_STATE_HOME/loopx (by
// default ~/.local/state/loopx): every project's anchor directory is
// below it. Errors: no home directory is known when XDG_STATE_HOME is
// unset.
func StateDir() (string, error) {
	base, err := stateHome()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "loopx"), nil
}

// stateHome is $XDG_STATE_HOME when absolute, else ~/.local/state: the
// only code that reads XDG_STATE_HOME (a test running projects in one
// process passes its own state directory to DirIn and EnsureIn instead).
func stateHome() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return x, nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("no state directory: set XDG_STATE_HOME or HOME")
	}
	return filepath.Join(home, ".local", "state"), nil
}
