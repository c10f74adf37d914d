// Package contract is the shape of loopx's output: the records the --json
// documents and the MCP tools' structured outputs show, as types of their
// own, built from the kernel's records by the functions here. The store's
// records may change their shape; what a script reads changes only when
// these types do (the goldens under cmd/loopx/testdata/contract hold them).
// Each type has the fields and JSON names its record has today; a record
// that changes breaks the conversion here, which is where the contract is
// kept.
package contract

import (
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// Todo is a todo as the --json documents and MCP outputs show it (todo
// list, todo show, todo add, …).
type Todo struct {
	ID string `json:"id"`
	// Seq is the store sequence number at creation: it orders todos created
	// at the same instant by insertion.
	Seq   uint64 `json:"seq"`
	Goal  string `json:"goal"`
	Title string `json:"title"`
	// Kind is "task", "monitor", "gate" or "action".
	Kind string `json:"kind"`
	// Status is "open", "claimed", "done", "blocked" or "cancelled".
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

// Lease is a todo's current or last lease as Todo shows it.
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

// GoalState is a goal's recorded status as the --json documents show it
// (goal pause, resume, done, archive).
type GoalState struct {
	ID string `json:"id"`
	// Status is "active", "paused", "done" or "archived".
	Status string `json:"status"`
	// Reason says why the status was last set.
	Reason string `json:"reason,omitempty"`
	// Rev is the store revision of the last change to the goal's records.
	Rev       uint64    `json:"rev"`
	UpdatedAt time.Time `json:"updated_at"`
}

// GoalStateOf is st as the contract shows it.
func GoalStateOf(st records.GoalState) GoalState {
	return GoalState{ID: st.ID, Status: st.Status, Reason: st.Reason, Rev: st.Rev, UpdatedAt: st.UpdatedAt}
}

// LeaseResult is what todo claim, renew, release and transfer print: the
// todo and its lease after the operation.
type LeaseResult struct {
	Todo  Todo  `json:"todo"`
	Lease Lease `json:"lease"`
	// Replayed is true when nothing changed: a retried claim with the same
	// idempotency key, a claim of a lease the agent already holds, or a
	// retried release.
	Replayed bool `json:"replayed"`
	// Previous is the lease this operation replaced (null for a first
	// claim and for replays).
	Previous *Lease `json:"previous"`
}

// LeaseResultOf is a lease operation's result (its todo, its lease, the
// lease it replaced) as the contract shows it.
func LeaseResultOf(t records.Todo, l records.Lease, replayed bool, previous *records.Lease) LeaseResult {
	return LeaseResult{Todo: TodoOf(t), Lease: *leaseOf(&l), Replayed: replayed, Previous: leaseOf(previous)}
}

// RoundStart is what round start prints (and the MCP round_start tool
// returns): the should_run decision and, on "run", the opened round and
// its claimed todo (null otherwise), and the stall gate the start raised,
// if any. D is the decision's type, which the deciding layer owns (this
// package imports nothing of the engine).
type RoundStart[D any] struct {
	Decision D      `json:"decision"`
	Round    *Round `json:"round"`
	Todo     *Todo  `json:"todo"`
	Gate     *Gate  `json:"gate,omitempty"`
}

// Receipt is what round finish prints (and the MCP round_finish tool
// returns): the settled round, whether it was charged, the ledger entry,
// its todo, the handoff, the next todo it names and a stall gate it
// raised.
type Receipt struct {
	Round    Round        `json:"round"`
	Charged  bool         `json:"charged"`
	Ledger   *LedgerEntry `json:"ledger"`
	Todo     *Todo        `json:"todo"`
	Handoff  *Handoff     `json:"handoff"`
	NextTodo *Todo        `json:"next_todo"`
	Gate     *Gate        `json:"gate"`
	// Replayed is true when the round was finished already: the stored
	// receipt, nothing charged again.
	Replayed bool `json:"replayed"`
}

// LedgerEntry is one charge or refund against a goal's quota as Receipt
// shows it; refunds carry negative amounts.
type LedgerEntry struct {
	Seq   uint64    `json:"seq"`
	Goal  string    `json:"goal"`
	Round string    `json:"round,omitempty"`
	Agent string    `json:"agent,omitempty"`
	At    time.Time `json:"at"`
	// Rounds is 1 for a charged round, -1 for a refund, 0 for none;
	// ComputeSeconds is the wall time the round occupied.
	Rounds         int64   `json:"rounds"`
	Tokens         int64   `json:"tokens"`
	CostUSD        float64 `json:"cost_usd"`
	ComputeSeconds float64 `json:"compute_seconds"`
	// Reason is the outcome charged ("progress", "failed"), or why nothing
	// was ("no_change", …).
	Reason string `json:"reason"`
}

// LedgerEntryOf is l as the contract shows it.
func LedgerEntryOf(l records.LedgerEntry) LedgerEntry {
	return LedgerEntry{Seq: l.Seq, Goal: l.Goal, Round: l.Round, Agent: l.Agent, At: l.At, Rounds: l.Rounds, Tokens: l.Tokens,
		CostUSD: l.CostUSD, ComputeSeconds: l.ComputeSeconds, Reason: l.Reason}
}

// Ptr is f of *p, nil for nil: a record a document may leave null.
func Ptr[T, U any](p *T, f func(T) U) *U {
	if p == nil {
		return nil
	}
	u := f(*p)
	return &u
}

// Prompt is what loopx prompt prints (and the MCP prompt tool returns):
// a bounded-turn prompt and what it was built from.
type Prompt struct {
	Goal  string `json:"goal"`
	Agent string `json:"agent"`
	// Verdict is the should_run verdict the prompt reflects.
	Verdict    string `json:"verdict"`
	DecisionID string `json:"decision_id"`
	// Todo is the selected todo on "run" (null otherwise).
	Todo *Todo `json:"todo"`
	// Round is the open round the prompt is for ("" outside `loopx run`).
	Round string `json:"round,omitempty"`
	// Text is the prompt (Markdown); Chars its length in characters.
	Text  string `json:"text"`
	Chars int    `json:"chars"`
	// Truncated is true when items were left out to respect the bound.
	Truncated bool `json:"truncated"`
}

// Gate is a gate as the --json documents show it (gate list, gate show,
// gate raise, …).
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
	// Status is "open", "expired", "cancelled" or the chosen option.
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
	// Spec and Policy are the adopted rules' spec and policy hashes.
	Spec   string `json:"spec"`
	Policy string `json:"policy"`
}

// Answer is how a gate was closed.
type Answer struct {
	Option string    `json:"option"`
	By     string    `json:"by"`
	Note   string    `json:"note,omitempty"`
	At     time.Time `json:"at"`
}

// Evidence is a piece of evidence as the --json documents and MCP
// outputs show it (evidence list, evidence add).
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

// Round is a round as the --json documents show it (round show).
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
	// Outcome is "progress", "failed", "no_change", "preflight_failed"
	// or "dry_run" once finished.
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

// Agent is an agent record as the --json documents show it (agent
// register, agent list).
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

// Event is an audit event as `loopx events --json` shows it.
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

// GatePoll counts one agent's refused polls under one open gate, as gate
// list, gate show and events show them.
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

// Handoff is what the next round must know, as `loopx handoff show --json`
// shows it.
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

// TodoOf is t as the contract shows it.
func TodoOf(t records.Todo) Todo {
	return Todo{ID: t.ID, Seq: t.Seq, Goal: t.Goal, Title: t.Title, Kind: t.Kind, Status: t.Status, Priority: t.Priority,
		DependsOn: t.DependsOn, Labels: t.Labels, Scope: t.Scope, SpecName: t.SpecName, EverySeconds: t.EverySeconds,
		NextDueAt: t.NextDueAt, LastResultHash: t.LastResultHash, Lease: leaseOf(t.Lease), Note: t.Note,
		CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

func leaseOf(l *records.Lease) *Lease {
	if l == nil {
		return nil
	}
	return &Lease{Holder: l.Holder, Version: l.Version, Epoch: l.Epoch, AcquiredAt: l.AcquiredAt, ExpiresAt: l.ExpiresAt,
		Released: l.Released, Round: l.Round, TTLSeconds: l.TTLSeconds, IdempotencyKey: l.IdempotencyKey}
}

// Todos are ts as the contract shows them, in order; nil for nil.
func Todos(ts []records.Todo) []Todo { return mapAll(ts, TodoOf) }

// GateOf is g as the contract shows it.
func GateOf(g records.Gate) Gate {
	out := Gate{ID: g.ID, Goal: g.Goal, Seq: g.Seq, Name: g.Name, Question: g.Question, Options: g.Options,
		Answerers: g.Answerers, Guards: g.Guards, ScopeKind: g.ScopeKind, ScopeAgents: g.ScopeAgents, ScopeTodos: g.ScopeTodos,
		Status: g.Status, RaisedBy: g.RaisedBy, RaisedAt: g.RaisedAt, Reason: g.Reason, ExpiresAt: g.ExpiresAt, OnExpiry: g.OnExpiry}
	if a := g.Answer; a != nil {
		out.Answer = &Answer{Option: a.Option, By: a.By, Note: a.Note, At: a.At}
	}
	if a := g.Adopt; a != nil {
		out.Adopt = &GateAdopt{Spec: a.Spec, Policy: a.Policy}
	}
	return out
}

// Gates are gs as the contract shows them, in order; nil for nil.
func Gates(gs []records.Gate) []Gate { return mapAll(gs, GateOf) }

// EvidenceOf is ev as the contract shows it.
func EvidenceOf(ev records.Evidence) Evidence {
	return Evidence{ID: ev.ID, Goal: ev.Goal, Seq: ev.Seq, Kind: ev.Kind, Summary: ev.Summary, Ref: ev.Ref, Status: ev.Status,
		Todo: ev.Todo, Round: ev.Round, By: ev.By, Action: ev.Action, CreatedAt: ev.CreatedAt}
}

// Evidences are evs as the contract shows them, in order; nil for nil.
func Evidences(evs []records.Evidence) []Evidence { return mapAll(evs, EvidenceOf) }

// RoundOf is r as the contract shows it.
func RoundOf(r records.Round) Round {
	return Round{ID: r.ID, Goal: r.Goal, Seq: r.Seq, Agent: r.Agent, Todo: r.Todo, Status: r.Status, DecisionID: r.DecisionID,
		StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Outcome: r.Outcome, Summary: r.Summary, Tokens: r.Tokens,
		CostUSD: r.CostUSD, Charged: r.Charged, GoalRevAfter: r.GoalRevAfter, SpecRev: r.SpecRev, PolicyRev: r.PolicyRev,
		ResultHash: r.ResultHash, Evidence: r.Evidence, Runner: r.Runner, Handoff: r.Handoff}
}

// AgentOf is a as the contract shows it.
func AgentOf(a records.Agent) Agent {
	return Agent{ID: a.ID, Host: a.Host, Role: a.Role, Mode: a.Mode, Registered: a.Registered, Goals: a.Goals,
		RegisteredAt: a.RegisteredAt, LastSeenAt: a.LastSeenAt, CurrentRound: a.CurrentRound}
}

// EventOf is ev as the contract shows it.
func EventOf(ev records.Event) Event {
	return Event{Seq: ev.Seq, At: ev.At, Kind: ev.Kind, Goal: ev.Goal, Actor: ev.Actor, Subject: ev.Subject, Message: ev.Message, Data: ev.Data}
}

// HandoffOf is h as the contract shows it.
func HandoffOf(h records.Handoff) Handoff {
	return Handoff{ID: h.ID, Goal: h.Goal, Round: h.Round, Agent: h.Agent, Summary: h.Summary, NextTodo: h.NextTodo,
		For: h.For, Questions: h.Questions, CreatedAt: h.CreatedAt}
}

// Handoffs are hs as the contract shows them, in order; nil for nil.
func Handoffs(hs []records.Handoff) []Handoff { return mapAll(hs, HandoffOf) }

// GatePollOf is p as the contract shows it.
func GatePollOf(p records.GatePoll) GatePoll {
	return GatePoll{Goal: p.Goal, Gate: p.Gate, Agent: p.Agent, Count: p.Count, FirstAt: p.FirstAt, LastAt: p.LastAt}
}

// mapAll is f of each of in, in order; nil when in is nil (a JSON null,
// as the record list showed).
func mapAll[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, 0, len(in))
	for _, x := range in {
		out = append(out, f(x))
	}
	return out
}
