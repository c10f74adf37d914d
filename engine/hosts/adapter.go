package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/loopx-dev/loopx/internal/inert"
)

// Adapter is one agent host: the name an agent's host has in the spec
// (agents.<a>.host), the programs it runs as, and — for a host whose hooks
// loopx answers — its hook protocol: the payload it sends, the tool call a
// PreToolUse payload describes, the answer it honours for each permission
// verdict, and the settings file `loopx hooks install` and `uninstall`
// write. One package under engine/hosts implements it per host; the
// registry (engine/hosts/registry) lists them. A host without hooks embeds
// NoHooks; one speaking Claude Code's hook protocol embeds ClaudeProtocol.
type Adapter interface {
	// Name is the host's name: agents.<a>.host, `loopx hook NAME`,
	// `loopx hooks install --host NAME`.
	Name() string
	// Programs are the base names of the programs the host runs as: an
	// ancestor process of one of them makes the caller an agent's
	// (engine/trust's ancestry).
	Programs() []string
	// AnswersHooks reports whether loopx answers the host's hooks and
	// installs them (`loopx hook`, `loopx hooks install`).
	AnswersHooks() bool
	// DefaultAgent is the agent a hook decides for when none is named and
	// none is found above it ("" for a host without hooks).
	DefaultAgent() string
	// SettingsFile is where `loopx hooks install` writes the hooks by
	// default, relative to the project root, slash-separated ("" without
	// hooks).
	SettingsFile() string
	// ProjectDirEnv names the environment variable the host sets for every
	// hook to the project whose settings it loaded ("" when it sets none).
	ProjectDirEnv() string
	// Hooks are the entries install writes, each running HookCommand(Name,
	// event, args) with HookTimeout (args: already shell-quoted flags such
	// as "--goal g1 --agent a1", may be empty); nil without hooks.
	Hooks(args string) []Hook
	// ParseEvent reads one hook payload (see ParseHook for what it
	// refuses: the caller then fails closed).
	ParseEvent(data []byte) (Event, error)
	// ToolCall is the call a PreToolUse event describes (see
	// Event.ToolCall); an error fails closed.
	ToolCall(ev Event) (ToolCall, error)
	// CanAsk reports whether the host honours a PreToolUse "ask" (prompts
	// its user). Where it does not, loopx answers an ask with a deny.
	CanAsk() bool
	// PermissionAnswer is what `loopx hook` prints for a permission
	// verdict (allow, defer, ask or deny): one JSON line, or nil when the
	// host's own permission flow decides; only answers the host honours.
	// reason explains the verdict; goal and codes (the decision's reason
	// codes) let an ask the host cannot ask say what a human must do. An
	// unknown verdict is an error (the caller fails closed).
	PermissionAnswer(verdict, reason, goal string, codes []string) ([]byte, error)
	// EnableSteps are what a user still does in the host for the hooks
	// installed in the project at root to run.
	EnableSteps(root string) []string
	// MergeSettings merges hooks into a settings document (MergeSettings).
	MergeSettings(doc []byte, hooks []Hook) ([]byte, []Change, error)
	// UnmergeSettings removes every loopx hook from a settings document
	// (UnmergeSettings).
	UnmergeSettings(doc []byte) ([]byte, []Removed, error)
	// CheckSettings says how a settings document differs from the hooks
	// loopx installed (CheckSettings).
	CheckSettings(doc []byte, want []Hook) []string
	// HasLoopxHook reports whether a settings document runs `loopx hook`
	// (HasLoopxHook).
	HasLoopxHook(doc []byte) bool
	// SandboxFile is the settings file, relative to the project root,
	// where `loopx hooks install --sandbox` writes the host's own sandbox
	// and permission settings ("" when loopx writes none for the host).
	SandboxFile() string
	// MergeSandbox writes into the sandbox settings document what the
	// host's own sandbox needs to keep s from an agent, never loosening a
	// value the user set, and returns the edits made (recorded for
	// uninstall and doctor).
	MergeSandbox(doc []byte, s Sandbox) ([]byte, []SandboxEdit, error)
	// UnmergeSandbox takes out exactly what edits put in.
	UnmergeSandbox(doc []byte, edits []SandboxEdit) ([]byte, error)
	// CheckSandbox says how the document drifted from edits (one line each).
	CheckSandbox(doc []byte, edits []SandboxEdit) []string
	// SandboxNeeds are the programs the host's sandbox needs on PATH on
	// this system (Linux: bubblewrap's bwrap, …); none elsewhere.
	SandboxNeeds() []string
	// SandboxNote says, for an install without --sandbox, which loopx
	// calls need `loopx run` once the host's own sandbox is on.
	SandboxNote() string
}

// Blocks reports whether loopx's answer to verdict blocks the tool call on
// host a: deny everywhere, and ask where the host cannot ask. Such an
// answer is a denial and is audited like one.
func Blocks(a Adapter, verdict string) bool {
	return verdict == "deny" || (verdict == "ask" && !a.CanAsk())
}

// errNoHooks is what NoHooks' protocol methods return.
var errNoHooks = errors.New("loopx answers no hooks of this host")

// NoHooks is the hook protocol of a host whose hooks loopx does not answer:
// no settings file, no entries, every payload refused. An adapter embeds
// it and adds its name and programs.
type NoHooks struct{ NoSandbox }

// AnswersHooks is false.
func (NoHooks) AnswersHooks() bool { return false }

// DefaultAgent is "".
func (NoHooks) DefaultAgent() string { return "" }

// SettingsFile is "".
func (NoHooks) SettingsFile() string { return "" }

// ProjectDirEnv is "".
func (NoHooks) ProjectDirEnv() string { return "" }

// Hooks is nil.
func (NoHooks) Hooks(string) []Hook { return nil }

// ParseEvent refuses every payload.
func (NoHooks) ParseEvent([]byte) (Event, error) { return Event{}, errNoHooks }

// ToolCall refuses every event.
func (NoHooks) ToolCall(Event) (ToolCall, error) { return ToolCall{}, errNoHooks }

// CanAsk is false.
func (NoHooks) CanAsk() bool { return false }

// PermissionAnswer refuses every verdict.
func (NoHooks) PermissionAnswer(string, string, string, []string) ([]byte, error) {
	return nil, errNoHooks
}

// EnableSteps is nil.
func (NoHooks) EnableSteps(string) []string { return nil }

// MergeSettings refuses.
func (NoHooks) MergeSettings([]byte, []Hook) ([]byte, []Change, error) { return nil, nil, errNoHooks }

// UnmergeSettings refuses.
func (NoHooks) UnmergeSettings([]byte) ([]byte, []Removed, error) { return nil, nil, errNoHooks }

// CheckSettings says every hook is gone.
func (NoHooks) CheckSettings([]byte, []Hook) []string { return []string{errNoHooks.Error()} }

// HasLoopxHook is false.
func (NoHooks) HasLoopxHook([]byte) bool { return false }

// NoSandbox is the sandbox settings of a host for which loopx writes none:
// an adapter embeds it (NoHooks does).
type NoSandbox struct{}

// SandboxFile is "".
func (NoSandbox) SandboxFile() string { return "" }

// MergeSandbox refuses.
func (NoSandbox) MergeSandbox([]byte, Sandbox) ([]byte, []SandboxEdit, error) {
	return nil, nil, errors.New("loopx writes no sandbox settings for this host")
}

// UnmergeSandbox changes nothing.
func (NoSandbox) UnmergeSandbox(doc []byte, _ []SandboxEdit) ([]byte, error) { return doc, nil }

// CheckSandbox finds nothing.
func (NoSandbox) CheckSandbox([]byte, []SandboxEdit) []string { return nil }

// SandboxNeeds is none.
func (NoSandbox) SandboxNeeds() []string { return nil }

// SandboxNote is "".
func (NoSandbox) SandboxNote() string { return "" }

// ClaudeProtocol is Claude Code's hook protocol, which Codex speaks too:
// the payload's fields (Event), its tool calls (Event.ToolCall), the
// settings document's "hooks" object (MergeSettings, UnmergeSettings,
// CheckSettings). An adapter embeds it and adds its name, its programs,
// its entries and the answers it honours.
type ClaudeProtocol struct{}

// AnswersHooks is true.
func (ClaudeProtocol) AnswersHooks() bool { return true }

// ParseEvent is ParseHook.
func (ClaudeProtocol) ParseEvent(data []byte) (Event, error) { return ParseHook(bytes.NewReader(data)) }

// ToolCall is Event.ToolCall.
func (ClaudeProtocol) ToolCall(ev Event) (ToolCall, error) { return ev.ToolCall() }

// MergeSettings is MergeSettings.
func (ClaudeProtocol) MergeSettings(doc []byte, hooks []Hook) ([]byte, []Change, error) {
	return MergeSettings(doc, hooks)
}

// UnmergeSettings is UnmergeSettings.
func (ClaudeProtocol) UnmergeSettings(doc []byte) ([]byte, []Removed, error) {
	return UnmergeSettings(doc)
}

// CheckSettings is CheckSettings.
func (ClaudeProtocol) CheckSettings(doc []byte, want []Hook) []string {
	return CheckSettings(doc, want)
}

// HasLoopxHook is HasLoopxHook.
func (ClaudeProtocol) HasLoopxHook(doc []byte) bool { return HasLoopxHook(doc) }

// ClaudeEntries are the entries loopx installs in a Claude-protocol
// settings file for host: PreToolUse on matcher (the tools that write or
// run), Stop, and SessionStart on SessionStartMatcher, each running
// HookCommand(host, event, args) with HookTimeout.
func ClaudeEntries(host, matcher, args string) []Hook {
	return []Hook{
		{Event: PreToolUse, Matcher: matcher, Command: HookCommand(host, PreToolUse, args), Timeout: HookTimeout},
		{Event: Stop, Command: HookCommand(host, Stop, args), Timeout: HookTimeout},
		{Event: SessionStart, Matcher: SessionStartMatcher, Command: HookCommand(host, SessionStart, args), Timeout: HookTimeout},
	}
}

// PermissionReplyLine is one PreToolUse answer line: permissionDecision
// decision ("allow", "deny" or "ask") with reason ("loopx DECISION" when
// blank). Adapters call it for the answers their host honours.
func PermissionReplyLine(decision, reason string) ([]byte, error) {
	var b bytes.Buffer
	err := write(&b, PermissionReply{PermissionOutput{PreToolUse, decision, reason}})
	return b.Bytes(), err
}

// CheckVerdict returns an error unless verdict is one of the permission
// verdicts (allow, defer, ask, deny), and the reason to give: reason cut
// to inert.MaxText characters (it may quote what the agent sent: a
// 120,000-character agent name made a 120 KB answer), or "loopx VERDICT"
// when it is blank.
func CheckVerdict(verdict, reason string) (string, error) {
	switch verdict {
	case "allow", "defer", "ask", "deny":
	default:
		return "", fmt.Errorf("no PreToolUse answer for verdict %q", verdict)
	}
	if strings.TrimSpace(reason) == "" {
		reason = "loopx " + verdict
	}
	return inert.Clip(reason, true), nil
}
