package shell

import (
	"path"
	"strings"
)

// This file models where each command of a line runs: the set of
// directories cd, pushd, popd, env -C, git -C and the like may have moved
// to, relative to the starting directory.

// dirs is the set of directories a command may run in, relative to the
// starting directory ("" is the start itself) or absolute; unknownDir
// stands for one loopx cannot tell (cd -, cd $X, popd).
type dirs []string

const unknownDir = "\x00?"

// maxDirs bounds a dirs set; a larger one also holds unknownDir.
const maxDirs = 8

var startDirs = dirs{""}

func (d dirs) has(x string) bool {
	for _, y := range d {
		if y == x {
			return true
		}
	}
	return false
}

// union returns the directories of d and o (d itself when o adds none).
func (d dirs) union(o dirs) dirs {
	out := d
	for _, x := range o {
		if out.has(x) {
			continue
		}
		if len(out) == len(d) {
			out = append(dirs(nil), d...)
		}
		if len(out) >= maxDirs {
			if !out.has(unknownDir) {
				out = append(out, unknownDir)
			}
			break
		}
		out = append(out, x)
	}
	return out
}

// join returns where a relative or absolute name leads from each of d.
func (d dirs) join(name string) dirs {
	out := make(dirs, 0, len(d))
	for _, x := range d {
		switch {
		case x == unknownDir:
		case path.IsAbs(name) || name == "~" || strings.HasPrefix(name, "~/"):
			x = path.Clean(name)
		case x == "":
			x = path.Clean(name)
		default:
			x = path.Join(x, name)
		}
		if x == "." {
			x = ""
		}
		if !out.has(x) {
			out = append(out, x)
		}
	}
	return out
}

// cdTo is where a command runs after changing to the directory w.
func (r *reader) cdTo(w word, in dirs) dirs {
	if w.dyn != 0 || w.s == "" || w.s == "-" {
		return dirs{unknownDir}
	}
	out := in.join(w.s)
	r.seen = r.seen.union(out)
	return out
}
