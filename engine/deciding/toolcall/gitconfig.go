package toolcall

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/shell"
)

// gitConfig reads, without running git, the git configuration a command
// in the project at root sees (shell.GitConfig: aliases, forcing push
// settings): the system's (unless GIT_CONFIG_NOSYSTEM), the user's
// ($XDG_CONFIG_HOME/git/config and ~/.gitconfig, or GIT_CONFIG_GLOBAL),
// the repository's (.git/config of the nearest work tree at or above
// root, its common directory's for a linked worktree, and
// config.worktree), later ones over earlier ones. A file that exists but
// cannot be read, and configuration given through the environment
// (GIT_CONFIG_COUNT, GIT_CONFIG_PARAMETERS), make it unsure.
func gitConfig(root string) *shell.GitConfig {
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, envOr("GIT_CONFIG_SYSTEM", "/etc/gitconfig"))
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g)
	} else if home, err := os.UserHomeDir(); err == nil {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	if common, dir, ok := gitDirsOf(root); ok {
		files = append(files, filepath.Join(common, "config"), filepath.Join(dir, "config.worktree"))
	}
	c := shell.GitConfig{Aliases: map[string]string{}}
	if os.Getenv("GIT_CONFIG_COUNT") != "" || os.Getenv("GIT_CONFIG_PARAMETERS") != "" {
		c.Unsure = true
	}
	for _, f := range files {
		if f == "" || f == "/dev/null" {
			continue
		}
		b, err := os.ReadFile(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			c.Unsure = true
			continue
		}
		fc, _ := shell.ParseGitConfig(string(b)) // an error makes fc unsure
		c = c.Merge(fc)
	}
	return &c
}

// envOr is the environment variable k, or def when it is unset or empty.
func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// gitDirsOf finds the git directory of the nearest work tree at or above
// root (a .git directory, or a .git file's "gitdir:") and its common
// directory (a linked worktree's "commondir"); ok is false when there is
// none.
func gitDirsOf(root string) (common, dir string, ok bool) {
	for d := root; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p, p, true
			}
			b, err := os.ReadFile(p)
			gd, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if err != nil || !found {
				return "", "", false
			}
			dir = strings.TrimSpace(gd)
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(d, dir)
			}
			common = dir
			if cb, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
				common = strings.TrimSpace(string(cb))
				if !filepath.IsAbs(common) {
					common = filepath.Join(dir, common)
				}
			}
			return common, dir, true
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}
