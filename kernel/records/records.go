package records

import "time"

// Goal statuses (runtime, kept in the store; the goal itself is declared in the spec).
const (
	GoalActive   = "active"
	GoalPaused   = "paused"
	GoalDone     = "done"
	GoalArchived = "archived"
)

// Todo kinds and statuses.
const (
	KindTask    = "task"
	KindMonitor = "monitor"
	KindGate    = "gate"
	KindAction  = "action"

	TodoOpen      = "open"
	TodoClaimed   = "claimed"
	TodoDone      = "done"
	TodoBlocked   = "blocked"
	TodoCancelled = "cancelled"
)

// Round outcomes. Progress and failed are charged; the others are not.
const (
	OutcomeProgress        = "progress"
	OutcomeFailed          = "failed"
	OutcomeNoChange        = "no_change"
	OutcomePreflightFailed = "preflight_failed"
	OutcomeDryRun          = "dry_run"
)

// Gate statuses besides the chosen option ("approve", "reject", …).
const (
	GateOpen      = "open"
	GateExpired   = "expired"
	GateCancelled = "cancelled"
)

// GoalState is a goal's runtime record (key goal:<id>).
type GoalState struct {
	ID string `json:"id"`
	// Status is GoalActive, GoalPaused, GoalDone or GoalArchived.
	Status string `json:"status"`
	// Reason says why the status was last set.
	Reason string `json:"reason,omitempty"`
	// Rev is the store revision of the last mutation of the goal's records;
	// rounds remember it to detect "nothing changed since".
	Rev       uint64    `json:"rev"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Todo is one unit of work (key todo:<goal>:<id>).
type Todo struct {
	ID string `json:"id"`
	// Seq is the store sequence number at creation: it orders todos created
	// at the same instant by insertion.
	Seq   uint64 `json:"seq"`
	Goal  string `json:"goal"`
	Title string `json:"title"`
	// Kind is KindTask, KindMonitor, KindGate or KindAction.
	Kind string `json:"kind"`
	// Status is TodoOpen, TodoClaimed, TodoDone, TodoBlocked or TodoCancelled.
	Status string `json:"status"`
	// Priority is 0 (P0, most urgent) to 4 (P4).
	Priority  int      `json:"priority"`
	DependsOn []string `json:"depends_on,omitempty"`
	Labels    []string `json:"labels,omitempty"`
	// Scope lists the doublestar globs (relative to the project root) the
	// todo writes; two agents never hold todos whose scopes overlap.
	Scope []string `json:"scope,omitempty"`
	// SpecName is set for todos seeded from the spec (goals.<g>.todos.<name>).
	SpecName string `json:"spec_name,omitempty"`
	// EverySeconds is a monitor's cadence in seconds.
	EverySeconds int64 `json:"every_seconds,omitempty"`
	// NextDueAt is when a monitor is next due (zero = due now).
	NextDueAt time.Time `json:"next_due_at,omitzero"`
	// LastResultHash is the result hash a monitor's last poll reported.
	LastResultHash string `json:"last_result_hash,omitempty"`
	// Lease is the current or last claim; Released marks a tombstone.
	Lease *Lease `json:"lease,omitempty"`
	// Note says why the todo was blocked, cancelled or done.
	Note      string    `json:"note,omitempty"`
	CreatedBy string    `json:"created_by,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Lease is an agent's hold on a todo. Version grows on every
// change and never resets; Epoch grows with every new holder.
type Lease struct {
	Holder     string    `json:"holder"`
	Version    uint64    `json:"version"`
	Epoch      uint64    `json:"epoch"`
	AcquiredAt time.Time `json:"acquired_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	// Released is true once the holder released it (a tombstone keeping Version).
	Released bool `json:"released,omitempty"`
	// Round is the round the lease was taken for, if any.
	Round string `json:"round,omitempty"`
	// TTLSeconds is the lease's time to live as last granted; a renew or a
	// round start without a TTL grants it again.
	TTLSeconds int64 `json:"ttl_seconds,omitempty"`
	// IdempotencyKey is the key of the claim that created the lease: a
	// retried claim with the same key returns this lease unchanged.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// LiveAt reports whether the lease holds at t (not released, not expired).
func (l *Lease) LiveAt(t time.Time) bool {
	return l != nil && !l.Released && t.Before(l.ExpiresAt)
}

// Gate is a gate instance (key gate:<goal>:<id>): a spec gate materialised
// in the store, or a gate raised at runtime by an agent, a human or policy.
type Gate struct {
	ID   string `json:"id"`
	Goal string `json:"goal"`
	// Seq is the store sequence number at creation (orders records made at
	// the same instant).
	Seq uint64 `json:"seq"`
	// Name is the spec gate name (goals.<g>.gates.<name>), "" for runtime gates.
	Name      string   `json:"name,omitempty"`
	Question  string   `json:"question"`
	Options   []string `json:"options"`
	Answerers []string `json:"answerers"`
	Guards    []string `json:"guards,omitempty"`
	// ScopeKind is "goal", "agent", "todo" or "action".
	ScopeKind   string   `json:"scope_kind"`
	ScopeAgents []string `json:"scope_agents,omitempty"`
	ScopeTodos  []string `json:"scope_todos,omitempty"`
	// Status is GateOpen, GateExpired, GateCancelled or the chosen option.
	Status   string    `json:"status"`
	RaisedBy string    `json:"raised_by"`
	RaisedAt time.Time `json:"raised_at"`
	// Reason is why loopx raised it itself ("stall"), "" otherwise.
	Reason    string    `json:"reason,omitempty"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	OnExpiry  string    `json:"on_expiry,omitempty"`
	// Answer is set once the gate is answered or expired.
	Answer *Answer `json:"answer,omitempty"`
	// Adopt is the revision of loopx/ an adoption gate asks about (raised
	// when an agent's round changed loopx/ in a way that loosens the rules):
	// approving it adopts that revision. nil for every other gate.
	Adopt *GateAdopt `json:"adopt,omitempty"`
}

// GateAdopt names the loopx/ revision an adoption gate would adopt.
type GateAdopt struct {
	// Spec and Policy are Rules.SpecHash and Rules.PolicyHash.
	Spec   string `json:"spec"`
	Policy string `json:"policy"`
}

// Answer records how a gate was closed.
type Answer struct {
	Option string    `json:"option"`
	By     string    `json:"by"`
	Note   string    `json:"note,omitempty"`
	At     time.Time `json:"at"`
}

// Evidence is a record that something happened (key ev:<goal>:<id>).
type Evidence struct {
	ID   string `json:"id"`
	Goal string `json:"goal"`
	// Seq is the store sequence number at creation (orders records made at
	// the same instant).
	Seq uint64 `json:"seq"`
	// Kind is "test", "pr", "log", "metric", "check" or "note".
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
	// Ref is a path, URL or command the evidence points at.
	Ref string `json:"ref,omitempty"`
	// Status is "pass", "fail" or "info".
	Status string `json:"status,omitempty"`
	Todo   string `json:"todo,omitempty"`
	Round  string `json:"round,omitempty"`
	By     string `json:"by,omitempty"`
	// Action is the guarded action it records ("git.merge"), if any: open
	// gates guarding it refuse the evidence.
	Action    string    `json:"action,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Round is one bounded agent turn (key round:<goal>:<id>).
type Round struct {
	ID   string `json:"id"`
	Goal string `json:"goal"`
	// Seq is the store sequence number at creation (orders records made at
	// the same instant).
	Seq   uint64 `json:"seq"`
	Agent string `json:"agent"`
	Todo  string `json:"todo,omitempty"`
	// Status is "open" or "finished".
	Status     string    `json:"status"`
	DecisionID string    `json:"decision_id,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Outcome is one of the Outcome* constants once finished.
	Outcome string `json:"outcome,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Tokens and CostUSD are what the agent reported using.
	Tokens  int64   `json:"tokens,omitempty"`
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Charged is true when the finish charged quota.
	Charged bool `json:"charged"`
	// GoalRevAfter is the store revision the finish committed as; a later
	// goal revision means the goal's state changed since.
	GoalRevAfter uint64 `json:"goal_rev_after,omitempty"`
	// SpecRev and PolicyRev are the revisions the finish saw.
	SpecRev   string `json:"spec_rev,omitempty"`
	PolicyRev string `json:"policy_rev,omitempty"`
	// ResultHash is what a monitor poll reported.
	ResultHash string `json:"result_hash,omitempty"`
	// Evidence lists evidence ids recorded with the finish.
	Evidence []string `json:"evidence,omitempty"`
	// Runner names the loopx process that runs the round's command
	// (`loopx run`, `loopx watch --exec`) as "BOOT:PID:START" (engine
	// RunnerID); "" for rounds an agent host started itself. Processes
	// descending from it act as the round's agent.
	Runner  string `json:"runner,omitempty"`
	Handoff string `json:"handoff,omitempty"`
}

// RoundOpen, RoundFinished and RoundAbandoned are Round statuses.
const (
	RoundOpen     = "open"
	RoundFinished = "finished"
	// RoundAbandoned is a round closed by loopx after its lease was lost
	// before it finished (never charged).
	RoundAbandoned = "abandoned"
)

// LedgerEntry is one charge or refund against a goal's quota
// (key ledger:<goal>:<seq>). Refunds carry negative amounts.
type LedgerEntry struct {
	Seq   uint64    `json:"seq"`
	Goal  string    `json:"goal"`
	Round string    `json:"round,omitempty"`
	Agent string    `json:"agent,omitempty"`
	At    time.Time `json:"at"`
	// Rounds is 1 for a charged round, -1 for a refund, 0 for none.
	Rounds  int64   `json:"rounds"`
	Tokens  int64   `json:"tokens"`
	CostUSD float64 `json:"cost_usd"`
	// ComputeSeconds is the wall time the round occupied.
	ComputeSeconds float64 `json:"compute_seconds"`
	// Reason is the outcome charged ("progress", "failed") or "no_change" etc. at charge 0.
	Reason string `json:"reason"`
}

// Handoff is what the next round must know (key handoff:<goal>:<seq>).
type Handoff struct {
	ID        string    `json:"id"`
	Goal      string    `json:"goal"`
	Round     string    `json:"round,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Summary   string    `json:"summary"`
	NextTodo  string    `json:"next_todo,omitempty"`
	For       string    `json:"for,omitempty"`
	Questions []string  `json:"questions,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Agent is a peer loopx has seen or a human registered (key agent:<id>).
type Agent struct {
	ID   string `json:"id"`
	Host string `json:"host"`
	Role string `json:"role"`
	Mode string `json:"mode"`
	// Registered is true once a human registered the agent (`loopx agent
	// register`): only then does the record make it known, and Goals
	// name the goals it was registered for. A record loopx writes when
	// an agent acts (its heartbeat) grants nothing: an agent the spec no
	// longer declares is unknown again.
	Registered   bool      `json:"registered,omitempty"`
	Goals        []string  `json:"goals,omitempty"`
	RegisteredAt time.Time `json:"registered_at,omitzero"`
	LastSeenAt   time.Time `json:"last_seen_at,omitzero"`
	CurrentRound string    `json:"current_round,omitempty"`
}

// Event is one entry of the append-only audit log (key event:<seq>).
type Event struct {
	Seq  uint64    `json:"seq"`
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	Goal string    `json:"goal,omitempty"`
	// Actor is who caused it: an agent id, "human" or "loopx".
	Actor string `json:"actor,omitempty"`
	// Subject is the id of the record it concerns.
	Subject string         `json:"subject,omitempty"`
	Message string         `json:"message,omitempty"`
	Data    map[string]any `json:"data,omitempty"`
}

// GatePoll counts the refused polls of one agent under one open gate (key
// poll:<goal>:<gate>:<agent>): an agent host that asks `loopx round start`
// again and again while a gate holds it back. The first poll is audited
// (a gate_violation event); the next ones only count here, so the audit
// log and the review packet do not fill with them. A poll record is no
// change to the goal: writing it leaves GoalState.Rev as it was (the
// "nothing changed since your last round" check reads that).
type GatePoll struct {
	Goal  string `json:"goal"`
	Gate  string `json:"gate"`
	Agent string `json:"agent"`
	// Count is the number of refused polls, the first included (>= 1).
	Count int64 `json:"count"`
	// FirstAt and LastAt are the instants of the first and the latest poll.
	FirstAt time.Time `json:"first_at"`
	LastAt  time.Time `json:"last_at"`
}
