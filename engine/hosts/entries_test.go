package hosts

import "fmt"

// The hosts whose entries this package's tests install, with the
// matchers their adapters use (each adapter's own test checks its
// matcher and answers).
const (
	testClaudeCode = "claude-code"
	testCodex      = "codex"
)

// testHooks are the entries host's adapter installs (ClaudeEntries on its
// matcher), for the settings tests.
func testHooks(host, args string) ([]Hook, error) {
	m := map[string]string{testClaudeCode: "Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.*", testCodex: "Bash|shell|apply_patch|Edit|Write|mcp__.*"}[host]
	if m == "" {
		return nil, fmt.Errorf("unknown host %q", host)
	}
	return ClaudeEntries(host, m, args), nil
}

// testAdapter is a Claude-protocol host named host whose settings file is
// settings, for CheckInstalled's lookup.
type testAdapter struct {
	ClaudeProtocol
	NoSandbox
	host, settings string
}

func (a testAdapter) Name() string              { return a.host }
func (testAdapter) Programs() []string          { return nil }
func (testAdapter) DefaultAgent() string        { return "" }
func (a testAdapter) SettingsFile() string      { return a.settings }
func (testAdapter) ProjectDirEnv() string       { return "" }
func (a testAdapter) Hooks(args string) []Hook  { h, _ := testHooks(a.host, args); return h }
func (testAdapter) CanAsk() bool                { return false }
func (testAdapter) EnableSteps(string) []string { return nil }
func (testAdapter) PermissionAnswer(string, string, string, []string) ([]byte, error) {
	return nil, nil
}

// testLookup finds the test hosts' adapters.
func testLookup(host string) (Adapter, bool) {
	switch host {
	case testClaudeCode:
		return testAdapter{host: host, settings: ".claude/settings.json"}, true
	case testCodex:
		return testAdapter{host: host, settings: ".codex/hooks.json"}, true
	}
	return nil, false
}
