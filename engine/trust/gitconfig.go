package trust

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/shell"
	"github.com/loopx-dev/loopx/internal/regularfile"
)

// maxGitConfigBytes bounds a git config, include or gitdir file read.
const maxGitConfigBytes = 16 << 20

// GitConfig is the git configuration a command in a project sees, read
// without running git (ReadGitConfig).
type GitConfig struct {
	// Config is what the shell reader needs of it (aliases, forcing push
	// settings) and the hooks paths and includes as written.
	Config shell.GitConfig
	// HooksDirs are the directories core.hooksPath names in any file read
	// (absolute, cleaned; a relative one is relative to the work tree's
	// top, "~/" the home directory): git runs the files there at the next
	// git command, so they are protected like .git/hooks.
	HooksDirs []string
	// Included are the files an include names (absolute, cleaned): git
	// reads its configuration from them, so they are protected like
	// .git/config.
	Included []string
}

// Globs are the doublestar globs (lower-cased, as the policy compares)
// of what g names: below each hooks directory ("dir/**", "**" for the
// root itself), and each included file; place names an absolute path as
// the caller's paths are named (relative to the project when inside it,
// slash-separated).
func (g GitConfig) Globs(place func(abs string) string) []string {
	var out []string
	for _, d := range g.HooksDirs {
		if p := place(d); p == "." {
			out = append(out, "**")
		} else {
			out = append(out, strings.ToLower(escapeGlob(p))+"/**")
		}
	}
	for _, f := range g.Included {
		out = append(out, strings.ToLower(escapeGlob(place(f))))
	}
	return out
}

// escapeGlob escapes the glob metacharacters of a path.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// maxIncludeDepth bounds the includes followed (git's own limit is 10).
const maxIncludeDepth = 10

// ReadGitConfig reads, without running git, the git configuration a
// command in the project at root sees: the system's (unless
// GIT_CONFIG_NOSYSTEM), the user's ($XDG_CONFIG_HOME/git/config and
// ~/.gitconfig, or GIT_CONFIG_GLOBAL), the repository's (.git/config of
// the nearest work tree at or above root, its common directory's for a
// linked worktree, and config.worktree), later ones over earlier ones, and
// the files their includes name (includeIf's whatever the condition: more
// files, never fewer). A file that exists but cannot be read, an include,
// and configuration given through the environment (GIT_CONFIG_COUNT,
// GIT_CONFIG_PARAMETERS) make Config unsure.
func ReadGitConfig(root string) GitConfig {
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, envOr("GIT_CONFIG_SYSTEM", "/etc/gitconfig"))
	}
	home, _ := os.UserHomeDir()
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g)
	} else if home != "" {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	top := ""
	if common, dir, ok := GitDirsOf(root); ok {
		files = append(files, filepath.Join(common, "config"), filepath.Join(dir, "config.worktree"))
		top = worktreeTop(root)
	}
	out := GitConfig{Config: shell.GitConfig{Aliases: map[string]string{}}}
	if os.Getenv("GIT_CONFIG_COUNT") != "" || os.Getenv("GIT_CONFIG_PARAMETERS") != "" {
		out.Config.Unsure = true
	}
	seen := map[string]bool{}
	var read func(f string, depth int, included bool)
	read = func(f string, depth int, included bool) {
		if f == "" || f == "/dev/null" || seen[f] || depth > maxIncludeDepth {
			return
		}
		seen[f] = true
		if included {
			out.Included = append(out.Included, f)
		}
		b, err := regularfile.ReadFile(f, maxGitConfigBytes)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return
		case err != nil:
			out.Config.Unsure = true
			return
		}
		fc, _ := shell.ParseGitConfig(string(b)) // an error makes fc unsure
		out.Config = out.Config.Merge(fc)
		for _, h := range fc.HooksPaths {
			if d := configPath(h, home, top); d != "" {
				out.HooksDirs = append(out.HooksDirs, d)
			}
		}
		for _, inc := range fc.Includes {
			read(configPath(inc, home, filepath.Dir(f)), depth+1, true)
		}
	}
	for _, f := range files {
		read(f, 0, false)
	}
	return out
}

// configPath is a path git's configuration gives (value): "~/" is the
// home directory, a relative path is relative to dir; "" when it cannot
// be placed (no home, no directory).
func configPath(value, home, dir string) string {
	switch {
	case value == "":
		return ""
	case value == "~" || strings.HasPrefix(value, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, value[1:])
	case filepath.IsAbs(value):
		return filepath.Clean(value)
	case dir == "":
		return ""
	}
	return filepath.Join(dir, value)
}

// worktreeTop is the directory at or above root holding a .git entry.
func worktreeTop(root string) string {
	for d := root; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// envOr is the environment variable k, or def when it is unset or empty.
func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// GitDirsOf finds the git directory of the nearest work tree at or above
// root (a .git directory, or a .git file's "gitdir:") and its common
// directory (a linked worktree's "commondir"); ok is false when there is
// none. It reads files only.
func GitDirsOf(root string) (common, dir string, ok bool) {
	for d := root; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p, p, true
			}
			b, err := regularfile.ReadFile(p, maxGitConfigBytes)
			gd, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if err != nil || !found {
				return "", "", false
			}
			dir = strings.TrimSpace(gd)
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(d, dir)
			}
			common = dir
			if cb, err := regularfile.ReadFile(filepath.Join(dir, "commondir"), maxGitConfigBytes); err == nil {
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
