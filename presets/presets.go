// Package presets owns the embedded preset spec fragments (presets/*.cue) that a
// goal names with `preset: "<name>"`.
//
// A preset is the CUE source of a struct literal of #Goal fields (never
// objective). Its values are mostly defaults (`*"24h" | _`), so a goal's own
// fields refine it; its concrete values are rules the goal must agree with.
// specs.Load unifies a preset into its goal.
package presets

import (
	"embed"
	"path"
	"sort"
	"strings"
)

// FS holds the preset files, one "<name>.cue" per preset at the root.
//
//go:embed *.cue
var FS embed.FS

// Names returns the names of the embedded presets (the file names without
// ".cue"), sorted.
func Names() []string {
	entries, err := FS.ReadDir(".")
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".cue"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Source returns the CUE source of preset name and whether it exists.
func Source(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, false
	}
	b, err := FS.ReadFile(path.Clean(name) + ".cue")
	if err != nil {
		return nil, false
	}
	return b, true
}

// Describe returns the first line of preset name's header comment, without
// the comment marker (e.g. "issue-fix: a task loop that …"), or "" when the
// preset does not exist or has no header comment.
func Describe(name string) string {
	src, ok := Source(name)
	if !ok {
		return ""
	}
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if c, ok := strings.CutPrefix(line, "//"); ok {
			return strings.TrimSpace(c)
		}
		return ""
	}
	return ""
}
