package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestHook_Deadline: a hook that has no answer within its deadline (here a
// host that never closes stdin; in life a held lock or a slow policy)
// blocks a PreToolUse (exit 2, the reason on stderr, nothing on stdout) and
// lets Stop and SessionStart go on (exit 0, a warning), well before the
// host's own timeout would let the call proceed.
func TestHook_Deadline(t *testing.T) {
	defer func(d time.Duration) { hookDeadline = d }(hookDeadline)
	hookDeadline = 50 * time.Millisecond
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"hook", "claude-code", "--event", "PreToolUse"}, ExitUsage, "", "loopx hook: blocked: no answer within the hook's deadline (50ms, under the host's 10 s timeout): context deadline exceeded\n"},
		{[]string{"hook", "codex"}, ExitUsage, "", "loopx hook: blocked: no answer within the hook's deadline (50ms, under the host's 10 s timeout): context deadline exceeded\n"},
		{[]string{"hook", "codex", "--event", "Stop"}, ExitOK, `{"systemMessage":"loopx hook (Stop): no answer within the hook's deadline (50ms, under the host's 10 s timeout): context deadline exceeded"}` + "\n", "loopx hook: no answer within the hook's deadline (50ms, under the host's 10 s timeout): context deadline exceeded\n"},
		{[]string{"hook", "claude-code", "--event", "SessionStart"}, ExitOK, `{"systemMessage":"loopx hook (SessionStart): no answer within the hook's deadline (50ms, under the host's 10 s timeout): context deadline exceeded"}` + "\n", "loopx hook: no answer within the hook's deadline (50ms, under the host's 10 s timeout): context deadline exceeded\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdin, never := io.Pipe() // the payload never ends
			defer never.Close()
			var out, errb bytes.Buffer
			code := Run(context.Background(), tc.args, stdin, &out, &errb)
			if code != tc.code || out.String() != tc.stdout || errb.String() != tc.stderr {
				t.Fatalf("exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q", code, out.String(), errb.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}
