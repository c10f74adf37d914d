package hook

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// noProject is a Root that finds no project (nor should one be needed).
func noProject() (string, error) { return "", errors.New("no project found") }

func TestAnswer_EventDefaulting(t *testing.T) {
	for _, tc := range []struct {
		name, event, payload string
		// wantEvent is Result.Event; errText a part of Result.Err ("" = no
		// error); blocks is Result.Blocks when there is an error.
		wantEvent, errText string
		blocks             bool
	}{
		{"an unknown --event blocks", "Bogus", `{}`, "", `--event "Bogus": want one of PreToolUse, Stop, SubagentStop, SessionStart`, true},
		{"a malformed payload on PreToolUse blocks", "PreToolUse", `{bad`, "PreToolUse", "", true},
		{"a malformed payload without --event blocks", "", `{bad`, "", "", true},
		{"a malformed payload on Stop warns", "stop", `{bad`, "Stop", "", false},
		{"the installed --event wins over the payload's", "Stop", `{"hook_event_name":"PreToolUse"}`, "Stop",
			"the payload is a PreToolUse event, but this hook entry is installed for --event Stop", false},
		{"another event is a no-op", "", `{"hook_event_name":"Notification","session_id":"s","cwd":"/tmp"}`, "Notification", "", false},
		{"a Stop already continuing lets the agent stop", "", `{"hook_event_name":"Stop","stop_hook_active":true,"session_id":"s","cwd":"/tmp"}`, "Stop", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Answer(context.Background(), strings.NewReader(tc.payload), Options{Host: "claude-code", Event: tc.event, Root: noProject, Deadline: 5 * time.Second})
			if r.Event != tc.wantEvent || len(r.Out) != 0 || r.Engine != nil {
				t.Fatalf("result %+v, want event %q and no output", r, tc.wantEvent)
			}
			malformed := strings.HasPrefix(tc.payload, "{bad")
			switch {
			case tc.errText == "" && !malformed:
				if r.Err != nil {
					t.Fatalf("err %v, want none", r.Err)
				}
				return
			case r.Err == nil:
				t.Fatalf("no error, want one")
			case tc.errText != "" && !strings.Contains(r.Err.Error(), tc.errText):
				t.Fatalf("err %v, want %q", r.Err, tc.errText)
			}
			if r.Blocks() != tc.blocks {
				t.Fatalf("blocks %v, want %v", r.Blocks(), tc.blocks)
			}
		})
	}
}

func TestAnswer_Deadline(t *testing.T) {
	stdin, never := io.Pipe() // the payload never ends
	defer never.Close()
	r := Answer(context.Background(), stdin, Options{Host: "codex", Event: "SessionStart", Root: noProject, Deadline: 20 * time.Millisecond})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "no answer within the hook's deadline (20ms") || r.Blocks() || r.Event != "SessionStart" {
		t.Fatalf("%+v", r)
	}
}

func TestArgsErrorBlocks(t *testing.T) {
	for _, tc := range []struct {
		event, stdin, want string
		blocks             bool
	}{
		{"Stop", "", "Stop", false},
		{"sessionstart", "", "SessionStart", false},
		{"", `{"hook_event_name":"SubagentStop"}`, "SubagentStop", false},
		{"PreToolUse", "", "PreToolUse", true},
		{"", `{bad`, "", true},
		{"Whatever", "", "Whatever", true},
	} {
		got, blocks := ArgsErrorBlocks(tc.event, strings.NewReader(tc.stdin))
		if got != tc.want || blocks != tc.blocks {
			t.Errorf("ArgsErrorBlocks(%q, %q) = %q, %v; want %q, %v", tc.event, tc.stdin, got, blocks, tc.want, tc.blocks)
		}
	}
}
