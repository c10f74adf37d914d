package trust

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScanner_HostStateComparedInPart: of ~/.claude.json, the change check
// sees only the parts that run code (the user's and each project's MCP
// servers); Claude Code's own state rewritten is no change, and a file
// that does not parse is compared whole.
func TestScanner_HostStateComparedInPart(t *testing.T) {
	const before = `{"numStartups": 3, "mcpServers": {}, "projects": {"/w/p": {"history": [], "mcpServers": {}}}}`
	parts := map[string][][]string{".claude.json": {{"mcpServers"}, {"projects", "*", "mcpServers"}}}
	for _, tc := range []struct {
		name, after string
		changed     bool
	}{
		{"the host's own state", `{"numStartups": 4, "mcpServers": {}, "projects": {"/w/p": {"history": [{"display": "hi"}], "mcpServers": {}}}, "tipsHistory": {}}`, false},
		{"the same servers, keys reordered and re-indented", `{"projects": {"/w/p": {"mcpServers": {}, "history": []}},
  "mcpServers": {}, "numStartups": 3}`, false},
		{"a user-scope server", `{"numStartups": 3, "mcpServers": {"x": {"command": "sh"}}, "projects": {"/w/p": {"history": [], "mcpServers": {}}}}`, true},
		{"a project's server", `{"numStartups": 3, "mcpServers": {}, "projects": {"/w/p": {"history": [], "mcpServers": {"x": {"command": "sh"}}}}}`, true},
		{"a new project with a server", `{"numStartups": 3, "mcpServers": {}, "projects": {"/w/p": {"history": [], "mcpServers": {}}, "/w/q": {"mcpServers": {"x": {"command": "sh"}}}}}`, true},
		{"a new project without one", `{"numStartups": 3, "mcpServers": {}, "projects": {"/w/p": {"history": [], "mcpServers": {}}, "/w/q": {"history": []}}}`, false},
		{"a file that does not parse", `{"numStartups": 3, "mcpServers": {}`, true},
		{"two documents", before + `{"mcpServers": {"x": {}}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			p := filepath.Join(home, ".claude.json")
			if err := os.WriteFile(p, []byte(before), 0o600); err != nil {
				t.Fatal(err)
			}
			sc := Scanner{Root: t.TempDir(), SpecDir: "loopx", StateDir: ".loopx", Home: home, HostParts: parts, Cache: NewHashCache()}
			b := sc.Scan()
			if err := os.WriteFile(p, []byte(tc.after), 0o600); err != nil {
				t.Fatal(err)
			}
			got := ChangedProtected(b, sc.Scan())
			if (len(got) == 1 && got[0] == filepath.ToSlash(p)) != tc.changed || len(got) > 1 {
				t.Fatalf("changed %q, want the file changed: %v", got, tc.changed)
			}
		})
	}
}
