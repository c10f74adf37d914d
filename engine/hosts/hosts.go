// Package hosts owns the agent-host hook protocol: it parses
// Claude Code (and Claude-compatible Codex) hook payloads into typed events,
// renders the answers a hook may give, and merges loopx's hook entries into
// a host's settings file. It does no I/O besides the io.Reader and io.Writer
// it is given and decides nothing: `loopx hook` asks the engine.
package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Hook event names (hook_event_name) loopx answers. Any other event is a
// documented no-op: no output, exit 0.
const (
	PreToolUse   = "PreToolUse"
	Stop         = "Stop"
	SubagentStop = "SubagentStop"
	SessionStart = "SessionStart"
)

// MaxPayload bounds a hook payload (a Write's content travels in it).
const MaxPayload = 64 << 20

// Event is one hook invocation's payload (stdin), in Claude Code's field
// names; Codex adds TurnID and Model. Fields an event does not carry are
// zero.
type Event struct {
	// Name is hook_event_name (required): PreToolUse, Stop, SessionStart, ….
	Name string `json:"hook_event_name"`
	// SessionID identifies the host session; TranscriptPath is its
	// transcript file (null for Codex: "").
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	// CWD is the host's working directory; relative tool paths are relative to it.
	CWD string `json:"cwd"`
	// PermissionMode is the host's mode (default, acceptEdits,
	// bypassPermissions, plan): informational, loopx decides the same in all.
	PermissionMode string `json:"permission_mode"`
	// ToolName, ToolInput (the raw tool_input object) and ToolUseID
	// describe a PreToolUse call; see ToolCall.
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"`
	// StopHookActive is true when the agent already continues because of a
	// Stop hook's block (Stop, SubagentStop).
	StopHookActive bool `json:"stop_hook_active"`
	// LastAssistantMessage is the agent's last message (Stop).
	LastAssistantMessage string `json:"last_assistant_message"`
	// Source is SessionStart's startup|resume|clear|compact.
	Source string `json:"source"`
	// TurnID and Model are Codex's additions.
	TurnID string `json:"turn_id"`
	Model  string `json:"model"`
}

// ParseHook reads one hook payload: a single JSON object with a string
// hook_event_name and, for PreToolUse, a tool_name and an object
// tool_input. It returns an error for anything else (not JSON, trailing
// data, wrong field types, missing fields, more than MaxPayload bytes):
// the caller must then fail closed.
func ParseHook(r io.Reader) (Event, error) {
	var ev Event
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return ev, fmt.Errorf("reading the hook payload: %w", err)
	}
	if len(data) > MaxPayload {
		return ev, fmt.Errorf("hook payload larger than %d bytes", MaxPayload)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return ev, errors.New("hook payload is empty (no JSON on stdin)")
	}
	if t := bytes.TrimSpace(data); t[0] != '{' {
		return ev, errors.New("hook payload is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&ev); err != nil {
		return Event{}, fmt.Errorf("hook payload: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Event{}, errors.New("hook payload: data after the JSON object")
	}
	if ev.Name == "" {
		return Event{}, errors.New("hook payload: missing hook_event_name")
	}
	if ev.Name == PreToolUse {
		if ev.ToolName == "" {
			return Event{}, errors.New("PreToolUse payload: missing tool_name")
		}
		if t := bytes.TrimSpace(ev.ToolInput); len(t) == 0 || t[0] != '{' {
			return Event{}, errors.New("PreToolUse payload: tool_input is not an object")
		}
	}
	return ev, nil
}

// EventName returns the hook_event_name of a payload that ParseHook
// refuses (a field of another type, trailing data), when the payload is a
// JSON object whose hook_event_name is a string; "" otherwise. It only
// tells the caller which event failed, so that it answers the way that
// event must on an error (PreToolUse blocks, Stop does not).
func EventName(data []byte) string {
	var v struct {
		Name json.RawMessage `json:"hook_event_name"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if dec.Decode(&v) != nil {
		return ""
	}
	var name string
	if json.Unmarshal(v.Name, &name) != nil {
		return ""
	}
	return name
}

// ToolCall is what a PreToolUse event asks, in loopx's terms
// (toolcall.Call without the directory).
type ToolCall struct {
	// Tool is the host's tool name.
	Tool string `json:"tool"`
	// Command is the shell command line of Bash/shell tools.
	Command string `json:"command,omitempty"`
	// Paths are the files the tool writes, as the host gave them.
	Paths []string `json:"paths,omitempty"`
}

// ToolCall extracts the call of a PreToolUse event:
//
//   - Bash, shell: tool_input.command (a string, or Codex's argv array),
//     plus the files of an apply_patch body inside it;
//   - Edit, Write: file_path; MultiEdit: file_path and every edits[].file_path;
//     NotebookEdit: notebook_path (or file_path);
//   - apply_patch (Codex): the "*** Add/Update/Delete File:" and "*** Move
//     to:" paths of the patch in tool_input.command, input or patch;
//   - mcp__<server>__<tool>: the tool name, and the paths in its input
//     (see MCPPaths): an MCP tool that names files is checked as a write;
//   - any other tool: the tool name only.
//
// Tool names match case-insensitively. A missing or mistyped field is an
// error (fail closed), never an empty call.
func (ev Event) ToolCall() (ToolCall, error) {
	tc := ToolCall{Tool: ev.ToolName}
	if ev.Name != PreToolUse {
		return tc, fmt.Errorf("%s is not a PreToolUse event", ev.Name)
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(ev.ToolInput, &in); err != nil || in == nil {
		return tc, fmt.Errorf("%s: tool_input is not an object", ev.ToolName)
	}
	str := func(key string, required bool) (string, error) {
		raw, ok := in[key]
		if !ok || string(raw) == "null" {
			if required {
				return "", fmt.Errorf("%s: tool_input.%s is missing", ev.ToolName, key)
			}
			return "", nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%s: tool_input.%s is not a string", ev.ToolName, key)
		}
		if required && strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("%s: tool_input.%s is empty", ev.ToolName, key)
		}
		return s, nil
	}
	var err error
	if strings.HasPrefix(ev.ToolName, "mcp__") {
		tc.Paths = MCPPaths(ev.ToolName, in)
		return tc, nil
	}
	switch strings.ToLower(ev.ToolName) {
	case "bash", "shell":
		if tc.Command, err = command(ev.ToolName, in["command"]); err != nil {
			return tc, err
		}
		if strings.Contains(tc.Command, "*** Begin Patch") {
			tc.Paths = patchPaths(tc.Command)
		}
	case "edit", "write":
		p, err := str("file_path", true)
		if err != nil {
			return tc, err
		}
		tc.Paths = []string{p}
	case "multiedit":
		p, err := str("file_path", true)
		if err != nil {
			return tc, err
		}
		tc.Paths = []string{p}
		var edits []map[string]json.RawMessage
		if raw, ok := in["edits"]; ok && json.Unmarshal(raw, &edits) != nil {
			return tc, fmt.Errorf("%s: tool_input.edits is not a list of objects", ev.ToolName)
		}
		for i, e := range edits {
			if raw, ok := e["file_path"]; ok {
				var s string
				if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
					return tc, fmt.Errorf("%s: tool_input.edits[%d].file_path is not a path", ev.ToolName, i)
				}
				tc.Paths = append(tc.Paths, s)
			}
		}
	case "notebookedit":
		p, err := str("notebook_path", false)
		if err == nil && p == "" {
			p, err = str("file_path", false)
		}
		if err == nil && p == "" {
			err = fmt.Errorf("%s: tool_input.notebook_path is missing", ev.ToolName)
		}
		if err != nil {
			return tc, err
		}
		tc.Paths = []string{p}
	case "apply_patch":
		var body string
		for _, k := range []string{"command", "input", "patch"} {
			if body, err = str(k, false); err != nil {
				return tc, err
			} else if body != "" {
				break
			}
		}
		if tc.Paths = patchPaths(body); len(tc.Paths) == 0 {
			return tc, fmt.Errorf("%s: no file in the patch (want *** Add/Update/Delete File: lines)", ev.ToolName)
		}
	}
	return tc, nil
}

// command reads tool_input.command: a string, or an argv array (Codex),
// which is quoted back into a command line.
func command(tool string, raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("%s: tool_input.command is empty", tool)
		}
		return s, nil
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil || len(argv) == 0 {
		return "", fmt.Errorf("%s: tool_input.command is missing or not a string", tool)
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " "), nil
}

// patchPaths returns the files an apply_patch body adds, updates, deletes
// or moves to, in order.
func patchPaths(body string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		for _, h := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	return out
}
