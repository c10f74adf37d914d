package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/regularfile"
)

// maxWatchedBytes bounds a spec or policy file the watcher hashes; a
// larger one hashes as unreadable and the reload reports it.
const maxWatchedBytes = 16 << 20

// debris reports whether a file name is an editor's or a tool's scratch
// file that never counts as a spec or policy change: swap and backup files,
// vim's write probe 4913, temp files and dotfiles.
func debris(name string) bool {
	return name == "4913" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") ||
		strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".swx") || strings.HasSuffix(name, ".tmp") ||
		strings.HasPrefix(name, "#") || strings.HasSuffix(name, ".orig")
}

// relevant reports whether an event on this name can change the spec or
// the policies.
func relevant(name string) bool {
	return !debris(name) && (strings.HasSuffix(name, ".cue") || strings.HasSuffix(name, ".rego"))
}

// content is what one scan of loopx/ found.
type content struct {
	// missing is true when loopx/ does not exist.
	missing bool
	// spec hashes the spec files Load reads (loopx/*.cue, not "_" or "."
	// names); policy hashes every *.rego under loopx/ (user policies).
	spec, policy string
	// rego maps each policy file (relative to the root, slash-separated) to
	// its source, for validation.
	rego map[string]string
}

func (c content) same(o content) bool {
	return c.missing == o.missing && c.spec == o.spec && c.policy == o.policy
}

// scan reads and hashes the spec and policy files under root/loopx.
func scan(root string) (content, error) {
	dir := filepath.Join(root, "loopx")
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return content{missing: true}, nil
	}
	c := content{rego: map[string]string{}}
	sh, ph := sha256.New(), sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking: the next event rescans
			}
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && debris(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if debris(name) {
			return nil
		}
		isCue := strings.HasSuffix(name, ".cue") && filepath.Dir(path) == dir && !strings.HasPrefix(name, "_")
		isRego := strings.HasSuffix(name, ".rego")
		if !isCue && !isRego {
			return nil
		}
		data, err := regularfile.ReadFile(path, maxWatchedBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		h := sh
		if isRego {
			h = ph
			c.rego[rel] = string(data)
		}
		fmt.Fprintf(h, "%d %s\n%d\n", len(rel), rel, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return c, err
	}
	c.spec = "sha256:" + hex.EncodeToString(sh.Sum(nil))
	c.policy = "sha256:" + hex.EncodeToString(ph.Sum(nil))
	return c, nil
}

// policyProblems validates the project's user policies through the engine,
// exactly as every decision does (a file that does not parse, a package
// outside loopx.user.* or one no query consults (a typo), a compile
// error), and returns one positioned line per problem
// ("loopx/policies/p.rego:3:1: rego_parse_error: …"); nil when they are
// usable. A rule nothing reaches is check's finding, not a reason to keep
// the last good policy.
func policyProblems(e *engine.Engine) []string {
	probs, err := e.CheckPolicies()
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, p := range probs {
		if p.Code != "unreachable_rule" {
			out = append(out, p.String())
		}
	}
	return out
}
