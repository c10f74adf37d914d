package toolcall

import (
	"path/filepath"

	"github.com/loopx-dev/loopx/engine/deciding/pathfacts"
	"github.com/loopx-dev/loopx/engine/trust"
)

// gitConfigPaths are the globs of what the git configuration gc names
// (trust.GitConfig.Globs), relative to the project at roots when inside
// it (input.permission.git_config_paths).
func gitConfigPaths(roots [2]string, gc trust.GitConfig) []string {
	return gc.Globs(func(p string) string {
		if rel, ok := pathfacts.Rel(roots, p); ok {
			return rel
		}
		return filepath.ToSlash(p)
	})
}
