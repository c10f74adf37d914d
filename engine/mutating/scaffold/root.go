package scaffold

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopx-dev/loopx/internal/errs"
)

// FindRoot walks up from dir to the first directory holding .loopx/ or a
// loopx/ directory with *.cue files (like git finds .git): the project's
// root. It returns an error wrapping os.ErrNotExist (errs.Input
// no_project) when there is none.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, StateDirName)); err == nil && fi.IsDir() {
			return d, nil
		}
		if m, _ := filepath.Glob(filepath.Join(d, SpecDirName, "*.cue")); len(m) > 0 {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", noProject(abs)
		}
	}
}

// noProject is the error of no loopx project in dir or any parent: an
// errs.Input no_project that wraps os.ErrNotExist (errors.Is).
func noProject(dir string) error {
	return &errs.Error{Kind: errs.Input, Code: "no_project", Err: os.ErrNotExist,
		Message: fmt.Sprintf("no loopx project in %s or any parent (run `loopx init` first)", dir)}
}
