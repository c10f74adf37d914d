package specs

import "time"

// Spec is a project's validated spec: the CUE files under the project's
// loopx/ directory unified with the embedded schema (#Spec), exported to JSON
// and decoded. It is what policies see as data.loopx.spec.
//
// Durations are kept as the user wrote them ("24h", "10m", "7d") and also
// normalised to whole seconds in the *_seconds fields, which Load fills in
// (policies and the engine only read the seconds).
type Spec struct {
	// Project names the project (spec field project.name).
	Project Project `json:"project"`
	// Audit is the spec's audit block (retention of the audit event log).
	Audit Audit `json:"audit"`
	// Agents are the peer agents declared in the spec, keyed by agent id.
	Agents map[string]Agent `json:"agents"`
	// Goals are the long-running objectives, keyed by goal id.
	Goals map[string]Goal `json:"goals"`
}

// Audit is the spec's audit block.
type Audit struct {
	// Retain is how long audit events are kept (spec field audit.retain,
	// a duration such as "90d"; "" = until pruned by hand): reviewed
	// events older than it are pruned with a checkpoint.
	Retain string `json:"retain,omitempty"`
	// RetainSeconds is Retain in whole seconds (0 when unset).
	RetainSeconds int64 `json:"retain_seconds,omitempty"`
}

// Project is the spec's project block.
type Project struct {
	// Name is the project's name.
	Name string `json:"name"`
	// PolicyDeadline bounds one evaluation of the policies (spec field
	// project.policy_deadline; "2s" default, between MinPolicyDeadline and
	// MaxPolicyDeadline): past it the decision denies with policy_error.
	PolicyDeadline string `json:"policy_deadline"`
	// Sandbox is how loopx run confines the agent command (spec field
	// project.sandbox).
	Sandbox Sandbox `json:"sandbox"`
}

// Sandbox is spec field project.sandbox: how loopx run and watch --exec
// confine the agent command by the operating system.
type Sandbox struct {
	// Mode is "auto" (the default: confined where the system can, else
	// unconfined and said at every start), "required" (never unconfined)
	// or "off" (never confined).
	Mode string `json:"mode"`
	// Writable are globs of paths outside the work tree the command may
	// write: absolute, or starting with "~/" (the home directory).
	Writable []string `json:"writable"`
}

// Sandbox modes (spec field project.sandbox.mode).
const (
	SandboxAuto     = "auto"
	SandboxRequired = "required"
	SandboxOff      = "off"
)

// Default and bounds of spec field project.policy_deadline.
const (
	DefaultPolicyDeadline = 2 * time.Second
	MinPolicyDeadline     = 100 * time.Millisecond
	MaxPolicyDeadline     = 5 * time.Second
)

// Deadline is PolicyDeadline as a duration (DefaultPolicyDeadline when
// empty or out of bounds, which Load refuses).
func (p Project) Deadline() time.Duration {
	d, err := ParseDuration(p.PolicyDeadline)
	if err != nil || d < MinPolicyDeadline || d > MaxPolicyDeadline {
		return DefaultPolicyDeadline
	}
	return d
}

// Agent is a declared agent (spec field agents.<id>).
type Agent struct {
	// Host is the agent host: "claude-code", "codex", "cursor", "shell" or "other".
	Host string `json:"host"`
	// Role is free text with the usual values "executor", "reviewer",
	// "proposer", "evaluator"; default "executor".
	Role string `json:"role"`
	// Mode is "active" (default) or "monitor_only".
	Mode string `json:"mode"`
}

// Goal is one goal (spec field goals.<id>).
type Goal struct {
	// Objective is the goal in one sentence (required).
	Objective string `json:"objective"`
	// Preset names an embedded preset unified with this goal ("" = none).
	Preset string `json:"preset,omitempty"`
	// Agents lists the agent ids allowed to work on the goal; empty means
	// every agent declared in the spec.
	Agents []string `json:"agents"`
	// Quota is the goal's budget per rolling window.
	Quota Quota `json:"quota"`
	// Stall bounds rounds without progress.
	Stall Stall `json:"stall"`
	// Scope bounds what agents may write and run.
	Scope Scope `json:"scope"`
	// Gates are the spec's human decisions, keyed by gate name.
	Gates map[string]Gate `json:"gates"`
	// Evidence sets how evidence ages.
	Evidence EvidencePolicy `json:"evidence"`
	// Todos are todos the spec seeds into the kernel (presets use them for
	// monitors), keyed by a stable name.
	Todos map[string]TodoSpec `json:"todos,omitempty"`
}

// Quota is the budget of a goal over a rolling window (spec field goals.<id>.quota).
// A nil limit means unlimited.
type Quota struct {
	// Window is the rolling window ("24h" default).
	Window string `json:"window"`
	// WindowSeconds is Window in seconds (derived by Load).
	WindowSeconds int64 `json:"window_seconds"`
	// Rounds is the maximum number of charged rounds per window.
	Rounds *int64 `json:"rounds,omitempty"`
	// Tokens is the maximum number of model tokens charged per window.
	Tokens *int64 `json:"tokens,omitempty"`
	// CostUSD is the maximum cost in US dollars charged per window.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// MinInterval is the minimum time between round starts ("0s" default = none).
	MinInterval string `json:"min_interval"`
	// MinIntervalSeconds is MinInterval in seconds (derived by Load).
	MinIntervalSeconds int64 `json:"min_interval_seconds"`
	// Compute is the duty cycle: the share (0..1, default 1) of the window's
	// wall time that rounds may occupy; 0 pauses the goal.
	Compute float64 `json:"compute"`
}

// Stall bounds consecutive rounds without progress (spec field goals.<id>.stall).
type Stall struct {
	// MaxNoProgress is how many rounds in a row may end no_change or failed
	// before a gate asks a human (default 3).
	MaxNoProgress int64 `json:"max_no_progress"`
}

// Scope is what agents on a goal may touch (spec field goals.<id>.scope).
// Write, Deny and Commands restrict; only Grant grants.
type Scope struct {
	// Write lists doublestar globs (relative to the project root) agents may
	// write; empty = anywhere inside the project. A restriction, never a grant.
	Write []string `json:"write"`
	// Deny lists globs agents may never write; loopx/**, .loopx/** and the
	// hosts' hook settings are always denied.
	Deny []string `json:"deny"`
	// Commands lists shell command patterns ("git push*") by answer.
	Commands Commands `json:"commands"`
	// Grant lists what the permission decision answers allow (the host then
	// skips its own prompt); a call it does not cover is defer at best.
	Grant Grant `json:"grant"`
}

// Commands are shell-command glob patterns by permission answer (spec
// field goals.<id>.scope.commands); * matches anything.
type Commands struct {
	// Allow, when set, restricts simple commands to these patterns (any
	// other asks); it grants nothing.
	Allow []string `json:"allow"`
	// Ask lists patterns that ask a human.
	Ask []string `json:"ask"`
	// Deny lists patterns that deny.
	Deny []string `json:"deny"`
	// Opaque is the answer to a command line loopx cannot read: "ask"
	// (default) or "deny".
	Opaque string `json:"opaque"`
}

// Grant is what a goal grants (spec field goals.<id>.scope.grant): a call
// is granted when its tool name matches Tools, or every part of it is
// granted (a readable command line whose every simple command matches
// Commands; paths a writing or shell tool writes that all match Paths and
// scope.write when set). Empty by default: nothing is granted.
type Grant struct {
	// Commands are command patterns, as in Commands.
	Commands []string `json:"commands"`
	// Tools are host tool-name patterns ("WebFetch", "mcp__github__get_*").
	Tools []string `json:"tools"`
	// Paths are doublestar globs relative to the project root.
	Paths []string `json:"paths"`
}

// Gate is a spec-declared human decision (spec field goals.<id>.gates.<name>).
type Gate struct {
	// Question is the concrete question the answerer answers (required).
	Question string `json:"question"`
	// Options are the answers; default ["approve", "reject"].
	Options []string `json:"options"`
	// Guards are the actions (e.g. "git.merge") the gate blocks until it is
	// answered with its first option. A gate with no guards, agents or todos
	// blocks the whole goal.
	Guards []string `json:"guards"`
	// Answerers may answer: "human" or "agent:<id>"; default ["human"].
	Answerers []string `json:"answerers"`
	// ExpiresAfter is how long the gate stays open ("" = never).
	ExpiresAfter string `json:"expires_after,omitempty"`
	// ExpiresAfterSeconds is ExpiresAfter in seconds (derived by Load; 0 = never).
	ExpiresAfterSeconds int64 `json:"expires_after_seconds"`
	// OnExpiry is the option applied when the gate expires ("" = state expired).
	OnExpiry string `json:"on_expiry,omitempty"`
	// Agents restricts the gate to these agents (empty = all).
	Agents []string `json:"agents"`
	// Todos restricts the gate to these todo names or ids (empty = all).
	Todos []string `json:"todos"`
}

// EvidencePolicy is spec field goals.<id>.evidence.
type EvidencePolicy struct {
	// StaleAfter is how long evidence stays fresh ("72h" default).
	StaleAfter string `json:"stale_after"`
	// StaleAfterSeconds is StaleAfter in seconds (derived by Load).
	StaleAfterSeconds int64 `json:"stale_after_seconds"`
}

// TodoSpec is a spec-seeded todo (spec field goals.<id>.todos.<name>).
type TodoSpec struct {
	// Title is what is to be done (required).
	Title string `json:"title"`
	// Kind is "task" (default), "monitor" or "action".
	Kind string `json:"kind"`
	// Priority is "P0".."P4" (default "P2").
	Priority string `json:"priority"`
	// Every is a monitor's cadence ("15m"); required for monitors.
	Every string `json:"every,omitempty"`
	// EverySeconds is Every in seconds (derived by Load).
	EverySeconds int64 `json:"every_seconds"`
}
