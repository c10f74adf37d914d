package registry

import (
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/hosts/codex"
)

// TestPermissionAnswer_PerHost is the per-host answer table (docs/hosts.md
// "Hook answers per host"): every verdict on every host, byte for byte;
// Codex gets deny or nothing.
func TestPermissionAnswer_PerHost(t *testing.T) {
	const reason = "loopx deny: loopx/loopx.cue <is> loopx's own & more [protected_path]"
	ask := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + reason + `. ` + codex.AskNote("g1", []string{"protected_path"}) + `"}}` + "\n"
	for _, tc := range []struct{ host, verdict, want string }{
		{"claude-code", "allow", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"` + reason + `"}}` + "\n"},
		{"claude-code", "defer", ""},
		{"claude-code", "ask", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"` + reason + `"}}` + "\n"},
		{"claude-code", "deny", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + reason + `"}}` + "\n"},
		{"codex", "allow", ""},
		{"codex", "defer", ""},
		{"codex", "ask", ask},
		{"codex", "deny", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + reason + `"}}` + "\n"},
	} {
		a, err := HookHost(tc.host)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.PermissionAnswer(tc.verdict, reason, "g1", []string{"protected_path"})
		if err != nil || string(got) != tc.want {
			t.Errorf("%s %s: %q, %v\nwant %q", tc.host, tc.verdict, got, err, tc.want)
		}
		if wantBlock := strings.Contains(tc.want, `"deny"`); hosts.Blocks(a, tc.verdict) != wantBlock {
			t.Errorf("Blocks(%s, %s) = %v", tc.host, tc.verdict, !wantBlock)
		}
	}
	// Codex requires a non-empty permissionDecisionReason on deny.
	cx, _ := HookHost("codex")
	if got, _ := cx.PermissionAnswer("deny", " ", "g1", nil); !strings.Contains(string(got), `"permissionDecisionReason":"loopx deny"`) {
		t.Errorf("empty reason: %s", got)
	}
	for _, bad := range [][2]string{{"claude-code", "run"}, {"claude-code", ""}, {"cursor", "deny"}, {"codex", "Allow"}} {
		a, ok := Lookup(bad[0])
		if !ok {
			t.Fatalf("no host %s", bad[0])
		}
		if got, err := a.PermissionAnswer(bad[1], "x", "g1", nil); err == nil || got != nil {
			t.Errorf("PermissionAnswer(%q, %q) = %q, %v: want an error and nothing to print", bad[0], bad[1], got, err)
		}
	}
}

// TestRegistry_Hosts: the hosts an agent may declare are the spec
// schema's; loopx answers the hooks of Claude Code and Codex only, each
// with its own settings file; the ancestry knows every host's programs.
func TestRegistry_Hosts(t *testing.T) {
	if got := strings.Join(Names(), " "); got != "claude-code codex cursor shell other" {
		t.Errorf("Names = %s", got)
	}
	if got := strings.Join(HookHosts(), " "); got != "claude-code codex" {
		t.Errorf("HookHosts = %s", got)
	}
	for _, tc := range []struct{ host, settings, agent string }{
		{"claude-code", ".claude/settings.json", "claude"},
		{"codex", ".codex/hooks.json", "codex"},
	} {
		a, err := HookHost(tc.host)
		if err != nil || a.SettingsFile() != tc.settings || a.DefaultAgent() != tc.agent || len(a.Hooks("")) != 3 {
			t.Errorf("%s: %v, %q, %q", tc.host, err, a.SettingsFile(), a.DefaultAgent())
		}
	}
	for _, name := range []string{"cursor", "shell", "other", "vim", ""} {
		if _, err := HookHost(name); err == nil || err.Error() != `unknown host "`+name+`" (want claude-code or codex)` {
			t.Errorf("HookHost(%q) = %v", name, err)
		}
	}
	progs := strings.Join(Programs(), " ")
	for _, p := range []string{"claude", "codex", "cursor-agent", "aider", "gemini", "opencode", "goose", "amp"} {
		if !strings.Contains(" "+progs+" ", " "+p+" ") {
			t.Errorf("Programs lacks %s: %s", p, progs)
		}
	}
}
