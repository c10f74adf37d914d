package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/shell/shelltest"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
)

// broadGrantSpec grants every command and path, and denies only pushes and
// loopx/: whatever a form escapes, only the reader stands between it and
// allow.
const broadGrantSpec = `agents: claude: {host: "claude-code", role: "executor"}
goals: g1: {
	objective: "Decide every shell form under a broad grant"
	agents: ["claude"]
	scope: {
		deny: ["loopx/**"]
		commands: deny: ["git push*"]
		grant: {commands: ["*"], paths: ["**"]}
	}
}
`

// TestPermission_ShellFormsUnderBroadGrant decides every form of
// shelltest.Forms under broadGrantSpec: no forbidden push, protected write or
// opaque form is allowed; no benign form asks or denies; the counts of each
// verdict are logged for the report.
func TestPermission_ShellFormsUnderBroadGrant(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, broadGrantSpec)
	for _, d := range []string{"api", "docs", ".loopx", "loopx"} {
		if err := os.MkdirAll(filepath.Join(e.Root(), d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	verdicts := map[string]map[string]int{}
	for _, f := range shelltest.Forms {
		d := permission(t, e, "claude", toolcall.Call{Tool: "Bash", Command: f.Line})
		if verdicts[f.Cat] == nil {
			verdicts[f.Cat] = map[string]int{}
		}
		verdicts[f.Cat][d.Verdict]++
		short := f.Line
		if len(short) > 80 {
			short = short[:80] + "…"
		}
		switch f.Cat {
		case shelltest.Benign: // granted; a line with no command (a comment) defers
			if d.Verdict != "allow" && d.Verdict != "defer" {
				t.Errorf("benign %q: %s %+v", short, d.Verdict, d.Reasons)
			}
		default:
			if d.Verdict == "allow" || d.Allow {
				t.Errorf("%s form %q is allowed: %+v", f.Cat, short, d.Reasons)
			}
		}
	}
	t.Logf("verdicts by category: %v", verdicts)
}

// TestPermission_OpaqueCommandsAreNeverAllowed: under a scope that
// denies git push* and loopx/** (and grants everything else), a base64
// pipe into sh and python -c running git push ask, and a cd into loopx/
// followed by a relative write denies.
func TestPermission_OpaqueCommandsAreNeverAllowed(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, broadGrantSpec)
	for _, tc := range []struct{ line, verdict, code string }{
		{`echo Z2l0IHB1c2g= | base64 -d | sh`, "ask", "command_opaque"},
		{`python3 -c "os.system('git push')"`, "ask", "command_opaque"},
		{`cd loopx && echo x > loopx.cue`, "deny", "protected_path"},
		{`python3 -c "open('loopx/loopx.cue','w').write('x')"`, "deny", "protected_path"},
	} {
		d := permission(t, e, "claude", toolcall.Call{Tool: "Bash", Command: tc.line})
		var codes []string
		for _, r := range d.Reasons {
			codes = append(codes, r.Code)
		}
		if d.Verdict != tc.verdict || !strings.Contains(strings.Join(codes, " "), tc.code) {
			t.Errorf("%q: %s %v, want %s with %s", tc.line, d.Verdict, codes, tc.verdict, tc.code)
		}
	}
}

// TestPermission_HumanOnlyVerbsBehindExpansions: a loopx verb hidden
// behind an expansion is never allowed under a broad grant ("ask" or
// "deny": the reader's opaque reason names the verb the literal words may
// complete); one whose raw text names a human-only verb denies.
func TestPermission_HumanOnlyVerbsBehindExpansions(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, broadGrantSpec)
	for _, tc := range []struct{ line, verdict string }{
		{`loopx ${V:-gate} answer g-1`, "ask|deny"},
		{`loopx gate $A g-1`, "ask|deny"},
		{`loopx $(echo adopt)`, "deny"},
		{`./bin/lx $(echo dashboard)`, "deny"},
		{`x $A answer g-1`, "ask|deny"},
	} {
		d := permission(t, e, "claude", toolcall.Call{Tool: "Bash", Command: tc.line})
		if !slices.Contains(strings.Split(tc.verdict, "|"), d.Verdict) || d.Allow {
			t.Errorf("%q: %s %+v, want %s", tc.line, d.Verdict, d.Reasons, tc.verdict)
		}
	}
}

// TestPermission_HardLinkIntoLoopxDenies: a file that is a hard link of
// one under loopx/ resolves to it, so writing it (a tool or a shell
// redirection) denies; an ordinary file with one link does not.
func TestPermission_HardLinkIntoLoopxDenies(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, broadGrantSpec)
	own := filepath.Join(e.Root(), "loopx", "extra.cue")
	if err := os.MkdirAll(filepath.Dir(own), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(own, filepath.Join(e.Root(), "hard")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(e.Root(), "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in      toolcall.Call
		verdict string
	}{
		{toolcall.Call{Tool: "Write", Paths: []string{"hard"}}, "deny"},
		{toolcall.Call{Tool: "Bash", Command: "echo x > hard"}, "deny"},
		{toolcall.Call{Tool: "Write", Paths: []string{"plain"}}, "allow"},
	} {
		if d := permission(t, e, "claude", tc.in); d.Verdict != tc.verdict {
			t.Errorf("%+v: %s %+v, want %s", tc.in, d.Verdict, d.Reasons, tc.verdict)
		}
	}
}
