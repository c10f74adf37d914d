// Package input is the document every policy sees as `input`:
// its Go types, whose doc comments document each field (`loopx policy
// schema`), and its conversion to OPA's value form. The engine fills it
// from a request and a kernel snapshot; policies never read the store.
package input

import (
	_ "embed"

	"github.com/loopx-dev/loopx/engine/trust"
)

// TypesSource is the Go source of this file: the doc comments of the
// input's types become the descriptions of the input schemas.
//
//go:embed input.go
var TypesSource string

// Input is the document policies see as `input` for every query. The engine
// builds it from the request and a kernel snapshot; policies never read the
// store themselves. Times are RFC 3339 UTC strings ("2026-11-29T10:00:00Z");
// durations and ages are whole seconds. data.loopx.spec is the exported spec
// (specs.Spec) beside it.
type Input struct {
	// Query is "should_run", "permission", "claim" or "gate_answer".
	Query string `json:"query"`
	// Now is the evaluation instant (the engine's clock, settable in tests).
	Now string `json:"now"`
	// Goal and Agent are the ids the request names.
	Goal  string `json:"goal"`
	Agent string `json:"agent"`
	// Health reports whether the store, spec and policy are usable; the
	// empty string means ok, anything else is the error message. Any error
	// makes should_run deny (fail closed, rule data.loopx.run.health).
	Health Health `json:"health"`
	// State is the kernel snapshot for Goal and Agent.
	State Snapshot `json:"state"`
	// Permission carries the fields of a permission query (nil otherwise).
	Permission *PermissionRequest `json:"permission,omitempty"`
	// Claim carries the fields of a claim query (nil otherwise).
	Claim *ClaimFacts `json:"claim,omitempty"`
	// Answer carries the fields of a gate_answer query (nil otherwise).
	Answer *AnswerFacts `json:"answer,omitempty"`
}

// AnswerFacts is input.answer, the request of a gate_answer query
// (data.loopx.gate.decision): the gate as stored, the answer, and
// the channel it came through.
type AnswerFacts struct {
	// Gate is the answered gate as stored (any status).
	Gate AnswerGate `json:"gate"`
	// Option is the answer given (one of the gate's options to be accepted).
	Option string `json:"option"`
	// Actor is "human" or "agent:<id>".
	Actor string `json:"actor"`
	// Note is the note kept with the answer.
	Note string `json:"note"`
	// Channel is how the answer came, with the facts its caller gathered.
	Channel Channel `json:"channel"`
	// Project is what is known of the project itself.
	Project ProjectFacts `json:"project"`
	// Acting is set only when a command asks to act as an agent (the
	// acting decision, data.loopx.identity.acting; Engine.ActAs), never on a
	// gate answer. Actor is then "agent:ID", or "" when it names none.
	Acting *ActingFacts `json:"acting,omitempty"`
}

// ActingFacts is input.answer.acting: how a command asks to act as an
// agent (data.loopx.identity.acting).
type ActingFacts struct {
	// Mode is "act" (a command acting as an agent: todo claim|renew|
	// release|transfer, round start|finish, run, watch --exec, hook, the
	// actor of events), "bind" (loopx mcp binding its session at start) or
	// "session" (a call of a bound MCP session).
	Mode string `json:"mode"`
	// Bound is the agent the MCP session was bound to at start ("" = none;
	// mode session only).
	Bound string `json:"bound"`
	// FromEnv: the agent named comes from $LOOPX_AGENT alone (no flag
	// names it), as the actor of a command's events: it stands only when
	// the caller's ancestry carries that agent.
	FromEnv bool `json:"from_env,omitempty"`
}

// AnswerGate is the answered gate in input.answer.gate, any status.
type AnswerGate struct {
	// ID is the gate's id ("g-4f9a", or "<goal>/<name>" for a spec gate).
	ID string `json:"id"`
	// Goal is the gate's goal.
	Goal string `json:"goal"`
	// Status is "open", an option, "expired" or "cancelled".
	Status string `json:"status"`
	// Question is the gate's concrete question.
	Question string `json:"question"`
	// Options are the answers it accepts.
	Options []string `json:"options"`
	// Answerers are who may answer: "human" or "agent:<id>".
	Answerers []string `json:"answerers"`
	// RaisedBy is "human", "spec", "loopx" or the raising agent's id.
	RaisedBy string `json:"raised_by"`
	// Reason is why loopx raised it itself ("stall"; "" otherwise).
	Reason string `json:"reason"`
}

// Channel is how an answer (or a human-only repair) reached loopx, with the
// facts its caller gathered (input.answer.channel). Go gathers facts; the
// gate decision's channel rules judge them.
type Channel struct {
	// Kind is "terminal" (loopx gate answer as a human), "dashboard" (the
	// server's HTTP page), "agent" (an agent answering as itself: --as
	// agent:ID or LOOPX_AGENT) or "demo" (loopx demo answering its own gate).
	Kind string `json:"kind"`
	// InRound is true when LOOPX_ROUND or LOOPX_AGENT is set.
	InRound bool `json:"in_round"`
	// RoundAgent is LOOPX_AGENT ("" when unset).
	RoundAgent string `json:"round_agent"`
	// AgentAncestor describes the nearest ancestor process that runs in a
	// round, is an agent runner or an agent host ("" when none).
	AgentAncestor string `json:"agent_ancestor"`
	// Ancestry is the caller's ancestor processes, parent first (Acting):
	// a human answer at a terminal records it in its audit event.
	Ancestry []trust.Process `json:"ancestry"`
	// ActingAgents are the distinct agents the ancestry carries (Acting
	// Agents): an agent acts only as the one agent its ancestors run as.
	ActingAgents []string `json:"acting_agents"`
	// AncestryChecked is false when the engine's ancestry check is off
	// (AncestryOptions.Off): then ActingAgents says nothing.
	AncestryChecked bool `json:"ancestry_checked"`
	// TTY is true when stdin is a terminal; TTYError is why the controlling
	// terminal could not be opened ("" when it could, or was not tried).
	TTY      bool   `json:"tty"`
	TTYError string `json:"tty_error"`
	// Typed is what the person typed back on the terminal (trimmed); nil
	// while nobody was asked yet.
	Typed *string `json:"typed"`
	// Session is true when the dashboard's session token was verified.
	Session bool `json:"session"`
}

// ProjectFacts is what is known of the project itself.
type ProjectFacts struct {
	// Demo is true for a project `loopx demo` created.
	Demo bool `json:"demo"`
}

// Health is the usability of the three inputs of a decision ("" = ok).
type Health struct {
	// Store, Spec and Policy are the error of the kernel store, the spec
	// and the policies ("" = usable).
	Store  string `json:"store"`
	Spec   string `json:"spec"`
	Policy string `json:"policy"`
}

// PermissionRequest is what an agent asks to do (the permission
// query), normalised by Engine.Permission (see engine/permission.go).
type PermissionRequest struct {
	// Tool is the host's tool name ("Bash", "Edit", "mcp__github__…").
	Tool string `json:"tool"`
	// Action is the request's main action (the explicit one, else the most
	// specific derived one); Actions are all of them (gates' guards match any).
	Action  string   `json:"action"`
	Actions []string `json:"actions"`
	// Paths are the files written, with their facts.
	Paths []PathFacts `json:"paths"`
	// GitConfigPaths are globs (lower-cased; relative to the project, or
	// absolute outside it) of what the project's and the user's git
	// configuration names that git runs or reads its configuration from:
	// below the hooks directory core.hooksPath names (".husky/**"), and the
	// files an include names. The permission policy protects them like
	// git's own hooks and config. Omitted when there are none.
	GitConfigPaths []string `json:"git_config_paths,omitempty"`
	// Command is the raw command line; Commands its normalised simple
	// commands (each Argvs entry joined by spaces); CommandParsed is false
	// when it could not be parsed at all (malformed, over the 64 KiB parse
	// cap, nested too deeply: Opaque then says why).
	Command       string   `json:"command"`
	Commands      []string `json:"commands"`
	CommandParsed bool     `json:"command_parsed"`
	// Argvs are every simple command of the line as its normalised argv:
	// quotes removed, wrappers (env, sudo, nice, nohup, timeout, command,
	// exec, time, …) and NAME=value assignments removed, argv[0] reduced to
	// its base name, git's global options dropped (`git -C x push` is
	// ["git", "push"]); including the commands inside sh -c, eval, $(…),
	// <(…), subshells, { }, if/for/while/case and function bodies,
	// pipelines and lists, find -exec and xargs. [] for no command.
	Argvs [][]string `json:"argvs"`
	// ArgvActions are the loopx actions of each simple command, parallel
	// to Argvs ([] for none): a grant of an action covers only the simple
	// commands that carry it.
	ArgvActions [][]string `json:"argv_actions"`
	// Opaque holds one short reason per thing loopx cannot read in the
	// command line (what runs or what is written depends on what loopx
	// does not see: a command word built from $…, a pipe into a shell,
	// inline interpreter code, a runner such as xargs or find -exec, a git
	// option that runs commands, git stash/reset --hard/clean over the
	// tree, a relative write after cd to an unknown directory, a malformed
	// line, …). [] = the line is fully readable. The permission policy never
	// allows an opaque command.
	Opaque []string `json:"opaque"`
}

// Snapshot is the part of kernel state a decision depends on, with the
// derived facts (usage sums, lease liveness, due monitors) the engine
// computes so that policies stay small and fast.
type Snapshot struct {
	// Revision is the store's global revision (+1 per committed mutation).
	Revision uint64 `json:"revision"`
	// GoalRevision is the goal's own revision (+1 per mutation of its records).
	GoalRevision uint64 `json:"goal_revision"`
	// Goal is the goal's runtime status.
	Goal GoalFacts `json:"goal"`
	// Agent is what is known of the asking agent.
	Agent AgentFacts `json:"agent"`
	// Gates are the goal's OPEN gates (runtime and spec gates).
	Gates []GateFacts `json:"gates"`
	// Todos are the goal's todos that are not done or cancelled.
	Todos []TodoFacts `json:"todos"`
	// Quota is the usage in the current rolling window.
	Quota QuotaFacts `json:"quota"`
	// Progress is what the recent rounds say about progress.
	Progress ProgressFacts `json:"progress"`
}

// GoalFacts is a goal's runtime status.
type GoalFacts struct {
	// ID is the goal's id (spec field goals.<id>).
	ID string `json:"id"`
	// InSpec is false when the spec declares no such goal.
	InSpec bool `json:"in_spec"`
	// Status is "active", "paused", "done" or "archived".
	Status string `json:"status"`
	// Reason is why the status was set ("" when active).
	Reason string `json:"reason"`
}

// AgentFacts is what is known of the asking agent.
type AgentFacts struct {
	// ID is the agent's id (spec field agents.<id>).
	ID string `json:"id"`
	// Known is true when the spec declares the agent or it is registered.
	Known bool `json:"known"`
	// Goals are the goals a human registered it for (`loopx agent register
	// ID --goal G`, the registration's goals; [] when none): with the
	// spec's goals.<g>.agents, data.loopx.lib.agent_on_goal decides
	// whether it may work on the goal.
	Goals []string `json:"goals"`
	// Role and Mode come from the spec or the registration.
	Role string `json:"role"`
	Mode string `json:"mode"`
}

// GateFacts is one open gate of the goal.
type GateFacts struct {
	// ID is the gate's id ("g-4f9a"; "<goal>/<name>" for spec gates).
	ID   string `json:"id"`
	Name string `json:"name"` // spec gate name, "" for runtime gates
	// Question is what the answerer is asked; Options are the answers.
	Question string   `json:"question"`
	Options  []string `json:"options"`
	// Scope says what the gate blocks: kind "goal" (everyone on the goal),
	// "agent" (only Agent), "todo" (only Todo) or "action" (only the
	// Guards actions, checked by permission decisions).
	Scope  GateScope `json:"scope"`
	Guards []string  `json:"guards"`
	// RaisedBy is who raised it ("human", "spec", "loopx", an agent id)
	// and RaisedAt when.
	RaisedBy  string `json:"raised_by"`
	RaisedAt  string `json:"raised_at"`
	ExpiresAt string `json:"expires_at"` // "" = never
	// Reason is why the gate was raised by loopx itself ("stall" for the
	// stall gate; "" otherwise).
	Reason string `json:"reason"`
}

// GateScope is what a gate blocks.
type GateScope struct {
	// Kind is "goal", "agent", "todo" or "action"; Agents and Todos are the
	// agent and todo ids it blocks.
	Kind   string   `json:"kind"`
	Agents []string `json:"agents"`
	Todos  []string `json:"todos"`
}

// TodoFacts is one todo that is not done or cancelled.
type TodoFacts struct {
	// ID is the todo's id ("t-4f9a") and Title what is to be done.
	ID     string `json:"id"`
	Title  string `json:"title"`
	Kind   string `json:"kind"`   // task | monitor | gate | action
	Status string `json:"status"` // open | claimed | blocked
	// Priority is 0 (P0, most urgent) to 4 (P4).
	Priority int `json:"priority"`
	// CreatedAt orders todos of equal priority (older first).
	CreatedAt string `json:"created_at"`
	// DepsOpen lists the depends_on ids that are not done yet.
	DepsOpen []string `json:"deps_open"`
	// Lease is the current claim, nil when unclaimed or released.
	Lease *LeaseFacts `json:"lease"`
	// Due is true for a monitor whose next check time has come.
	Due bool `json:"due"`
	// NextDueAt is a monitor's next check time ("" for other kinds).
	NextDueAt string `json:"next_due_at"`
	// Labels are free-form tags. "review" marks a todo for reviewers;
	// "for:<agent>" hands it to that agent.
	Labels []string `json:"labels"`
	// ScopeConflict is the id of a todo held by a live lease of another
	// agent whose write scope overlaps this todo's ("" = none).
	ScopeConflict string `json:"scope_conflict"`
}

// LeaseFacts is a todo's claim.
type LeaseFacts struct {
	// Holder is the agent holding the lease until ExpiresAt.
	Holder    string `json:"holder"`
	ExpiresAt string `json:"expires_at"`
	// Live is true while ExpiresAt is in the future.
	Live bool `json:"live"`
	// Version is +1 on every change of the lease; Epoch +1 per new holder.
	Version uint64 `json:"version"`
	Epoch   uint64 `json:"epoch"`
}

// QuotaFacts is the usage of the goal's quota in the rolling window that
// ends at Now. Limits live in data.loopx.spec.goals[goal].quota.
type QuotaFacts struct {
	// WindowStart is Now minus the window.
	WindowStart string `json:"window_start"`
	// Rounds, Tokens and CostUSD are charged sums in the window (refunds
	// subtracted).
	Rounds int64 `json:"rounds"`
	// RoundsInFlight counts open rounds holding a live lease: not charged
	// yet, but the rounds quota counts them (rule data.loopx.run.quota) so
	// that concurrent starts cannot overrun it.
	RoundsInFlight int64   `json:"rounds_in_flight"`
	Tokens         int64   `json:"tokens"`
	CostUSD        float64 `json:"cost_usd"`
	// ComputeSeconds is the summed duration of rounds in the window.
	ComputeSeconds float64 `json:"compute_seconds"`
	// ComputeLimitSeconds is compute × window in seconds.
	ComputeLimitSeconds float64 `json:"compute_limit_seconds"`
	// ResetsAt is when the oldest charge in the window ages out ("" when
	// nothing is charged).
	ResetsAt string `json:"resets_at"`
	// LastRoundAt is when the goal's last round started ("" = never).
	LastRoundAt string `json:"last_round_at"`
	// NextRoundAt is LastRoundAt + min_interval ("" when none applies).
	NextRoundAt string `json:"next_round_at"`
	// MinIntervalElapsed is false while Now is before NextRoundAt.
	MinIntervalElapsed bool `json:"min_interval_elapsed"`
}

// ProgressFacts is what recent rounds say about progress.
type ProgressFacts struct {
	// ConsecutiveNoProgress counts the goal's latest finished rounds in a row
	// that ended no_change or failed, since the last progress round or the
	// last answered stall gate.
	ConsecutiveNoProgress int64 `json:"consecutive_no_progress"`
	// LastOutcome is this agent's last finished round outcome on the goal ("" = none).
	LastOutcome string `json:"last_outcome"`
	// LastTodo is the todo of that round ("" = none).
	LastTodo string `json:"last_todo"`
	// ChangedSinceLast is true when the goal's state, the spec or the
	// policy changed since that round finished (or a monitor became due).
	ChangedSinceLast bool `json:"changed_since_last"`
}

// ClaimFacts is input.claim, the request of a claim query
// (data.loopx.claim.decision): which mutation asks, about which todo. The
// engine asks it inside the transaction of the mutation it guards.
type ClaimFacts struct {
	// Op is the mutation: "claim" (loopx todo claim), "round_start" (the
	// claim of a round start's selected todo), "transfer" (a lease handed
	// from From to input.agent), "renew" (the holder extending its lease:
	// checked against the agent only), "finish" (a charged or done round finish),
	// "done" (marking a todo done) or "evidence" (evidence for a guarded
	// action). The last three are checked against gates only.
	Op string `json:"op"`
	// From is a transfer's current holder ("" otherwise).
	From string `json:"from"`
	// Round and Outcome name a finish ("" otherwise); Done is a finish that
	// would complete its todo (--done).
	Round   string `json:"round"`
	Outcome string `json:"outcome"`
	Done    bool   `json:"done,omitempty"`
	// Status is the status a settle asks for: blocked, cancelled or open
	// ("" for other ops).
	Status string `json:"status,omitempty"`
	// Human is a done asked by a human (whose request names the todo's
	// live holder as input.agent, for its gates).
	Human bool `json:"human,omitempty"`
	// Action is the guarded action of an evidence record ("" otherwise).
	Action string `json:"action"`
	// Todo is the todo asked about; nil for a round without a todo and for
	// evidence.
	Todo *ClaimTodo `json:"todo"`
}

// ClaimTodo is the todo of a claim query: its facts as input.state.todos
// lists them (for any status, done and cancelled included), plus its goal,
// its status note and the scope it conflicts with.
type ClaimTodo struct {
	TodoFacts
	// Goal is the id of the todo's goal.
	Goal string `json:"goal"`
	// Note is the note set with its status ("blocked: waiting for legal").
	Note string `json:"note"`
	// EverySeconds is a monitor's cadence in seconds (0 for other kinds).
	EverySeconds int64 `json:"every_seconds,omitempty"`
	// Conflict is the first todo of any goal held by a live lease of another
	// agent whose write scope overlaps this todo's; nil when none.
	Conflict *ConflictFacts `json:"conflict"`
}

// ConflictFacts is a scope overlap between the claimed todo and a todo held
// by another agent's live lease.
type ConflictFacts struct {
	// Todo, Holder and ExpiresAt describe the held todo and its lease.
	Todo      string `json:"todo"`
	Holder    string `json:"holder"`
	ExpiresAt string `json:"expires_at"`
	// Scope is the claimed todo's glob and OtherScope the held todo's glob
	// that overlap.
	Scope      string `json:"scope"`
	OtherScope string `json:"other_scope"`
}

// PathFacts is one path of a permission request, as the policy sees it in
// input.permission.paths (computed in Go, so that Rego compares names only).
type PathFacts struct {
	// Path is the path relative to the project root, slash-separated and
	// cleaned ("api/v2/x.go"; "." is the root itself), or the cleaned
	// absolute path when it is outside the project.
	Path string `json:"path"`
	// Resolved is Path with symlinks resolved (on the longest existing
	// prefix; the rest is kept as written): relative to the project root
	// when inside it, absolute when outside. A regular file with more than
	// one hard link that is the same file as one under loopx/ or .loopx/
	// resolves to that file (writing either writes both).
	Resolved string `json:"resolved"`
	// OutsideProject is true when Path escapes the project root (".."
	// traversal, an absolute path elsewhere).
	OutsideProject bool `json:"outside_project"`
	// SymlinkOutside is true when Path is inside but Resolved is not (or
	// cannot be resolved: fail closed).
	SymlinkOutside bool `json:"symlink_outside"`
	// ContainsProject is true for a path outside the project that contains
	// it (the root's parent, "/"): writing or removing it touches loopx/ and
	// .loopx/ too.
	ContainsProject bool `json:"contains_project"`
	// ViaCommand is true for a file a shell command writes (a redirection or
	// a file mutator's operand): such paths are checked against loopx's own
	// directories and scope.deny only, not against scope.write or the
	// project boundary (a shell may write /tmp and /dev/null).
	ViaCommand bool `json:"via_command"`
	// Mentioned is true for a path an opaque command names without loopx
	// knowing whether it writes it: a path-like word or token of the line
	// (containing "/", a dot-file name, or the name of an existing file),
	// including tokens inside inline code ('loopx/loopx.cue' in python -c
	// "open('loopx/loopx.cue','w')"). Always with ViaCommand. The policy
	// denies an opaque command that names a protected path.
	Mentioned bool `json:"mentioned"`
	// Home are the path's names relative to the user's home directory
	// ($HOME, symlinks resolved too), slash-separated, "." for the home
	// itself: of the path as written and of its symlink target, when inside
	// the home (omitted otherwise). The policy protects the user-level host
	// settings by these names (~/.claude/settings*.json, ~/.claude.json,
	// ~/.codex/config.toml, ~/.codex/hooks.json) and any directory holding one.
	Home []string `json:"home,omitempty"`
	// ContainsHome is true for a path that contains the user's home
	// directory (its parent, "/"): writing or removing it reaches the
	// user-level host settings.
	ContainsHome bool `json:"contains_home,omitempty"`
	// LoopxState is true for a path in loopx's own state directory outside
	// the project ($XDG_STATE_HOME/loopx: each project's anchor — the
	// chain head, the read model, a server's record, socket and token),
	// as written or with its symlinks resolved, or one that contains it.
	LoopxState bool `json:"loopx_state,omitempty"`
}
