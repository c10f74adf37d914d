package policies

import (
	"slices"
	"testing"
)

// TestProtected_ReadsTheModule: the set Go reads is the module's, and a
// module whose rules are not lists of strings is refused.
func TestProtected_ReadsTheModule(t *testing.T) {
	set := Protected()
	if !slices.Contains(set.Own, "loopx/**") || !slices.Contains(set.Git, ".git/hooks/**") ||
		!slices.Contains(set.Home, ".gitconfig") || !slices.Contains(set.NextCommand, "**/.envrc") ||
		!slices.Contains(set.Hosts, "**/.mcp.json") {
		t.Fatalf("Protected() = %+v", set)
	}
	project, home := set.Compared()
	if slices.Contains(project, "loopx/**") || slices.Contains(home, ".claude.json") || !slices.Contains(home, ".gitconfig") {
		t.Errorf("Compared() = %v, %v", project, home)
	}
	if parts := set.ComparedParts()[".claude.json"]; !slices.ContainsFunc(parts, func(k []string) bool { return slices.Equal(k, []string{"projects", "*", "mcpServers"}) }) {
		t.Errorf("ComparedParts() = %v", set.ComparedParts())
	}
	for _, src := range []string{
		"package loopx.protected\nown := [\"a\"]\n",
		"package loopx.protected\nown := [1]\nhosts := []\ngit := []\nnext_command := []\nhome := []\nhost_state := []\n",
		"package loopx.protected\nown := \"a\"\nhosts := []\ngit := []\nnext_command := []\nhome := []\nhost_state := []\n",
	} {
		if _, err := readProtected(src); err == nil {
			t.Errorf("readProtected(%q) accepted", src)
		}
	}
}
