package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/gates"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/testproject"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// wait bounds every wait on the watcher; nothing here sleeps.
const wait = 10 * time.Second

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

const specSrc = `agents: a1: {host: "shell", role: "executor"}
goals: g1: {
	objective: "Test the watcher"
	agents: ["a1"]
	quota: {window: "24h", rounds: %ROUNDS%, min_interval: "%MIN%"}
}
`

func spec(rounds, minInterval string) string {
	return strings.NewReplacer("%ROUNDS%", rounds, "%MIN%", minInterval).Replace(specSrc)
}

const policyV1 = `package loopx.user.should_run

deny contains {"code": "frozen", "message": "frozen"} if input.agent == "nobody-1"
`

// project is a temp project (internal/testproject) with a spec and a user
// policy under loopx/policies/, and the watcher's settable clock.
type project struct {
	root  string
	clock *ManualClock
}

func newProject(t *testing.T, specText string) *project {
	t.Helper()
	p := &project{root: testproject.New(t, specText).Root, clock: NewManualClock(t0)}
	p.write(t, "loopx/policies/policy.rego", policyV1)
	return p
}

func (p *project) path(rel string) string { return filepath.Join(p.root, filepath.FromSlash(rel)) }

func (p *project) write(t *testing.T, rel, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p.path(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.path(rel), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// save writes rel as an editor does: a temp file renamed over the original.
func (p *project) save(t *testing.T, rel, data string) {
	t.Helper()
	tmp := p.path(rel) + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p.path(rel)); err != nil {
		t.Fatal(err)
	}
}

// engine is another process's view: an engine on the same project and
// clock, released after use.
func (p *project) engine(t *testing.T) *engine.Engine {
	t.Helper()
	e := engine.New(engine.Options{Root: p.root, Now: p.clock.Now})
	if err := e.SpecErr(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func (p *project) addTodo(t *testing.T, title string) records.Todo {
	t.Helper()
	e := p.engine(t)
	td, err := e.AddTodo(todos.Input{Goal: "g1", Title: title, Priority: 2})
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	return td
}

// commit adds a todo straight through the kernel, as another process
// would even while the spec on disk is broken or gone.
func (p *project) commit(t *testing.T, title string) {
	t.Helper()
	s, err := kernel.Open(p.path(".loopx"), kernel.Options{Now: p.clock.Now, LockTimeout: wait})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(func(tx *kernel.Tx) error {
		_, err := tx.AddTodo(records.Todo{Goal: "g1", Title: title, Priority: 2})
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// running is a watcher running in the background with its reports on
// channels.
type running struct {
	w        *Watcher
	evals    chan Evaluation
	changes  chan Change
	rescans  chan Rescan
	notices  chan Notice
	receipts chan rounds.Receipt
	cancel   context.CancelFunc
	done     chan error
}

func start(t *testing.T, p *project, o Options) *running {
	t.Helper()
	r := &running{evals: make(chan Evaluation, 100), changes: make(chan Change, 100), rescans: make(chan Rescan, 100),
		notices: make(chan Notice, 100), receipts: make(chan rounds.Receipt, 100), done: make(chan error, 1)}
	o.Root, o.Clock = p.root, p.clock
	if o.Goal == "" {
		o.Goal = "g1"
	}
	o.OnEvaluate = func(e Evaluation) { r.evals <- e }
	o.OnChange = func(c Change) { r.changes <- c }
	o.OnRescan = func(s Rescan) { r.rescans <- s }
	o.OnNotice = func(n Notice) { r.notices <- n }
	o.OnRound = func(rc rounds.Receipt) { r.receipts <- rc }
	w, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r.w = w
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(wait):
			t.Error("watcher did not stop")
		}
	})
	if e := next(t, r.evals, "the start evaluation"); e.Trigger != TriggerStart {
		t.Fatalf("first evaluation has trigger %q, want start", e.Trigger)
	}
	return r
}

func next[T any](t *testing.T, ch chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// none fails when ch holds anything (call it after a barrier).
func none[T any](t *testing.T, ch chan T, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("unexpected %s: %+v", what, v)
	default:
	}
}

// settle waits for a rescan that found no change: every event queued
// before it has been handled. Call it once earlier changes were reported
// (their rescan would otherwise absorb this one).
func (r *running) settle(t *testing.T, p *project) {
	t.Helper()
	data, err := os.ReadFile(p.path("loopx/loopx.cue"))
	if err != nil {
		t.Fatal(err)
	}
	p.write(t, "loopx/loopx.cue", string(data)) // an identical rewrite
	for {
		if s := next(t, r.rescans, "a rescan"); !s.Changed {
			return
		}
	}
}

// TestWatch_RenameSavesAndMoveAreThreeEvaluations: two editor saves (temp +
// rename) and an mv onto the policy file are exactly three re-evaluations;
// a touch, an identical rewrite and editor debris are none.
func TestWatch_RenameSavesAndMoveAreThreeEvaluations(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	p.addTodo(t, "first")
	r := start(t, p, Options{})
	for i, src := range []string{"2", "3"} {
		p.save(t, "loopx/policies/policy.rego", strings.Replace(policyV1, "nobody-1", "nobody-"+src, 1))
		if e := next(t, r.evals, "a re-evaluation"); e.Trigger != TriggerPolicy {
			t.Fatalf("save %d: trigger %q, want policy", i+1, e.Trigger)
		}
	}
	other := filepath.Join(t.TempDir(), "other.rego")
	if err := os.WriteFile(other, []byte(strings.Replace(policyV1, "nobody-1", "nobody-4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, p.path("loopx/policies/policy.rego")); err != nil {
		t.Skipf("mv across directories: %v", err)
	}
	if e := next(t, r.evals, "the mv re-evaluation"); e.Trigger != TriggerPolicy {
		t.Fatalf("mv: trigger %q, want policy", e.Trigger)
	}
	// touch, an identical rewrite, editor debris: nothing to re-decide.
	now := time.Now()
	if err := os.Chtimes(p.path("loopx/policies/policy.rego"), now, now); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".policy.rego.swp", "policy.rego~", "4913", "x.rego.tmp"} {
		p.write(t, "loopx/policies/"+name, "garbage {")
	}
	data, _ := os.ReadFile(p.path("loopx/policies/policy.rego"))
	p.write(t, "loopx/policies/policy.rego", string(data))
	r.settle(t, p)
	none(t, r.evals, "evaluation after touch / identical rewrite / debris")
	// The verdict never changed; the policy edits are not adopted,
	// which the decision says once, at the first save.
	if c := next(t, r.changes, "the start change"); c.Trigger != TriggerStart || c.Verdict != "run" {
		t.Fatalf("start change = %s %s", c.Trigger, c.Verdict)
	}
	if c := next(t, r.changes, "the pending change"); c.Trigger != TriggerPolicy || c.Verdict != "run" || !c.HasReason("rules_pending") {
		t.Fatalf("pending change = %s %s %+v", c.Trigger, c.Verdict, c.Reasons)
	}
	none(t, r.changes, "changed decision")
}

// TestNewSubdirectory_IsWatched: a directory created under loopx/ after
// the start is watched too (fsnotify is not recursive).
func TestNewSubdirectory_IsWatched(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	r := start(t, p, Options{})
	p.write(t, "loopx/policies/team/freeze.rego", strings.Replace(policyV1, "nobody-1", "nobody-5", 1))
	if e := next(t, r.evals, "the new file's evaluation"); e.Trigger != TriggerPolicy {
		t.Fatalf("trigger %q", e.Trigger)
	}
	p.save(t, "loopx/policies/team/freeze.rego", strings.Replace(policyV1, "nobody-1", "nobody-6", 1))
	if e := next(t, r.evals, "the edit's evaluation"); e.Trigger != TriggerPolicy {
		t.Fatalf("trigger %q", e.Trigger)
	}
}

// TestBadSpecEdit_KeepsLastGoodUntilFixed: an invalid spec is reported
// once with its position; the last good spec keeps deciding (stale_spec);
// a fix re-decides with trigger spec.
func TestBadSpecEdit_KeepsLastGoodUntilFixed(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	p.addTodo(t, "first")
	r := start(t, p, Options{})
	next(t, r.changes, "the start change")

	bad := strings.Replace(spec("5", "0s"), "min_interval", "min_intervl", 1)
	p.save(t, "loopx/loopx.cue", bad)
	if s := next(t, r.rescans, "the bad rescan"); !s.Changed || s.Valid {
		t.Fatalf("bad edit rescan = %+v", s)
	}
	n := next(t, r.notices, "the spec error")
	if n.Level != "error" || !strings.Contains(n.Message, "loopx/loopx.cue:5:") || !strings.Contains(n.Message, "min_intervl") {
		t.Fatalf("notice = %+v, want the positioned error", n)
	}
	// The same bad content again: not reported again.
	p.write(t, "loopx/loopx.cue", bad)
	r.settle(t, p)
	none(t, r.notices, "second report of the same error")
	none(t, r.evals, "evaluation on a bad edit")

	// A state change is decided by the last good spec, marked stale.
	p.commit(t, "second")
	e := next(t, r.evals, "the state evaluation")
	if e.Trigger != TriggerState || !e.Decisions[0].Revision.StaleSpec || e.Decisions[0].Verdict != "run" {
		t.Fatalf("state evaluation = %s %+v", e.Trigger, e.Decisions[0])
	}

	// Fixed (and changed: a quota of 0 rounds): re-decided at once.
	p.save(t, "loopx/loopx.cue", spec("0", "0s"))
	e = next(t, r.evals, "the fix evaluation")
	if e.Trigger != TriggerSpec || e.Decisions[0].Revision.StaleSpec || e.Decisions[0].Verdict != "skip" {
		t.Fatalf("fix evaluation = %s %+v", e.Trigger, e.Decisions[0])
	}
	if c := next(t, r.changes, "the changed decision"); c.Trigger != TriggerSpec || c.Verdict != "skip" {
		t.Fatalf("change = %s %s", c.Trigger, c.Verdict)
	}
	if n := next(t, r.notices, "the recovery notice"); n.Level != "info" {
		t.Fatalf("notice = %+v", n)
	}
}

// TestBadPolicyEdit_IsReportedWithPosition: a user policy that does not
// parse keeps the last good version active.
func TestBadPolicyEdit_IsReportedWithPosition(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	r := start(t, p, Options{})
	p.save(t, "loopx/policies/policy.rego", "package loopx.user.should_run\n\ndeny contains x if {\n")
	n := next(t, r.notices, "the policy error")
	if n.Level != "error" || !strings.Contains(n.Message, "loopx/policies/policy.rego:") {
		t.Fatalf("notice = %+v", n)
	}
	none(t, r.evals, "evaluation on a bad policy")
	p.save(t, "loopx/policies/policy.rego", policyV1)
	if n := next(t, r.notices, "the back-to-good notice"); n.Level != "info" {
		t.Fatalf("notice = %+v", n)
	}
	r.settle(t, p)
	none(t, r.evals, "evaluation when the policy is back to the active version")
}

// TestNeverConsultedPackage_IsABadPolicyInWatchToo: the watcher validates
// policies through the engine, so a package no query reads (a typo) is
// refused as everywhere else: reported at its position, and the
// last good policy stays active.
func TestNeverConsultedPackage_IsABadPolicyInWatchToo(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	r := start(t, p, Options{})
	p.save(t, "loopx/policies/policy.rego", strings.Replace(policyV1, "loopx.user.should_run", "loopx.user.shouldrun", 1))
	n := next(t, r.notices, "the policy error")
	if n.Level != "error" || !strings.Contains(n.Message, "loopx/policies/policy.rego:1:1: policy_unreachable") {
		t.Fatalf("notice = %+v", n)
	}
	none(t, r.evals, "evaluation on a never-consulted package")
}

// TestGateAnsweredElsewhere_WaitHumanToRunOnState: a gate answered through
// another engine (another process's Update) re-decides the watcher's agent
// from wait_human to run, with trigger state, without any timer.
func TestGateAnsweredElsewhere_WaitHumanToRunOnState(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	p.addTodo(t, "first")
	e := p.engine(t)
	g, err := e.RaiseGate(gates.Input{Goal: "g1", Question: "Merge the v2 branch into main now?", By: "human"})
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	r := start(t, p, Options{Agent: "a1"})
	if c := next(t, r.changes, "the start change"); c.Verdict != "wait_human" {
		t.Fatalf("start verdict = %s", c.Verdict)
	}
	if _, err := e.AnswerGate(gates.Answer{Gate: g.ID, Option: "approve", Actor: "human", Channel: engine.TypedBack(g.ID)}); err != nil {
		t.Fatal(err)
	}
	e.Release()
	c := next(t, r.changes, "the run decision")
	if c.Trigger != TriggerState || c.Verdict != "run" || c.Todo == nil {
		t.Fatalf("after the answer: %s %s %+v", c.Trigger, c.Verdict, c.Todo)
	}
}

// TestTimer_MinIntervalElapsedReDecides: a skip with next_check_at arms a
// timer on the (settable) clock; moving the clock there re-decides to run.
func TestTimer_MinIntervalElapsedReDecides(t *testing.T) {
	p := newProject(t, spec("5", "10m"))
	p.addTodo(t, "first")
	p.addTodo(t, "second")
	e := p.engine(t)
	st, err := e.StartRound(context.Background(), "g1", "a1")
	if err != nil || st.Round == nil {
		t.Fatalf("start round: %v %+v", err, st.Decision)
	}
	if _, err := e.FinishRound(context.Background(), st.Round.ID, rounds.FinishRequest{Outcome: records.OutcomeProgress, Done: true}); err != nil {
		t.Fatal(err)
	}
	e.Release()
	r := start(t, p, Options{})
	c := next(t, r.changes, "the start change")
	if c.Verdict != "skip" || c.NextCheckAt == nil || *c.NextCheckAt != "2026-11-29T10:10:00Z" {
		t.Fatalf("start: %s next %v", c.Verdict, c.NextCheckAt)
	}
	p.clock.Advance(9 * time.Minute)
	if n := p.clock.Pending(); n != 1 { // armed before the start evaluation was reported
		t.Fatalf("%d timers waiting at 10:09, want the one for 10:10", n)
	}
	none(t, r.evals, "evaluation before the timer")
	p.clock.Advance(time.Minute)
	ev := next(t, r.evals, "the timer evaluation")
	if ev.Trigger != TriggerTimer || ev.Decisions[0].Verdict != "run" {
		t.Fatalf("timer evaluation = %s %s", ev.Trigger, ev.Decisions[0].Verdict)
	}
	if p.clock.Pending() != 0 {
		t.Fatalf("%d timers armed with nothing left to wait for", p.clock.Pending())
	}
}

// TestSpecDirRemoved_KeepsRunningAndResumes: a deleted loopx/ is an error
// notice; the last good spec keeps deciding; its return is picked up.
func TestSpecDirRemoved_KeepsRunningAndResumes(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	p.addTodo(t, "first")
	r := start(t, p, Options{})
	saved := filepath.Join(t.TempDir(), "loopx")
	if err := os.Rename(p.path("loopx"), saved); err != nil {
		t.Fatal(err)
	}
	if n := next(t, r.notices, "the removal error"); n.Level != "error" || !strings.Contains(n.Message, "removed") {
		t.Fatalf("notice = %+v", n)
	}
	p.commit(t, "second")
	if e := next(t, r.evals, "a state evaluation"); e.Trigger != TriggerState || !e.Decisions[0].Revision.StaleSpec {
		t.Fatalf("evaluation = %s %+v", e.Trigger, e.Decisions[0].Revision)
	}
	if err := os.Rename(saved, p.path("loopx")); err != nil {
		t.Fatal(err)
	}
	p.save(t, "loopx/loopx.cue", spec("0", "0s"))
	for {
		e := next(t, r.evals, "the spec evaluation")
		if e.Trigger == TriggerSpec {
			if e.Decisions[0].Verdict != "skip" || e.Decisions[0].Revision.StaleSpec {
				t.Fatalf("after return: %+v", e.Decisions[0])
			}
			break
		}
	}
}

// TestOverflow_WarnsAndRescans: an event-queue overflow is a warning and a
// full rescan that picks up what the lost events would have said.
func TestOverflow_WarnsAndRescans(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	r := start(t, p, Options{})
	r.w.fw.Errors <- fsnotify.ErrEventOverflow
	if n := next(t, r.notices, "the overflow warning"); n.Level != "warning" || !strings.Contains(n.Message, "overflow") {
		t.Fatalf("notice = %+v", n)
	}
	next(t, r.rescans, "the rescan")
}

// TestExec_CancelFinishesTheRoundFailedAndReleasesTheLease: --exec runs a
// round when the verdict is run; cancelling (SIGINT/SIGTERM in the CLI)
// stops the command, records the round failed and releases its lease.
func TestExec_CancelFinishesTheRoundFailedAndReleasesTheLease(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	td := p.addTodo(t, "first")
	started := &signalWriter{want: "started", ch: make(chan struct{})}
	r := start(t, p, Options{Agent: "a1", Exec: []string{"sh", "-c", "echo started; exec sleep 30"}, ExecStdout: started})
	select {
	case <-started.ch:
	case <-time.After(wait):
		t.Fatal("the agent command did not start")
	}
	r.cancel()
	if err := next(t, r.done, "the watcher to stop"); err != nil {
		t.Fatalf("Run = %v", err)
	}
	rc := next(t, r.receipts, "the round's receipt")
	if rc.Round.Status != records.RoundFinished || rc.Round.Outcome != records.OutcomeFailed || !strings.Contains(rc.Round.Summary, "interrupted") {
		t.Fatalf("round = %+v", rc.Round)
	}
	e := p.engine(t)
	got, err := e.Todo(td.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Lease == nil || !got.Lease.Released {
		t.Fatalf("lease after cancel = %+v", got.Lease)
	}
	r.done <- nil // for the cleanup
}

// TestExec_RunsRoundsWhileRunThenIdles: with --exec, each run verdict
// runs one round (one at a time); after the last todo the verdict is skip
// and the watcher waits without running anything more.
func TestExec_RunsRoundsWhileRunThenIdles(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	p.addTodo(t, "first")
	p.addTodo(t, "second")
	r := start(t, p, Options{Agent: "a1", Exec: []string{"sh", "-c", "echo $LOOPX_TODO >> work.txt"}})
	for i := 0; i < 2; i++ {
		if rc := next(t, r.receipts, "a round"); rc.Round.Outcome != records.OutcomeProgress {
			t.Fatalf("round %d = %+v", i+1, rc.Round)
		}
	}
	next(t, r.changes, "the start change")
	if c := next(t, r.changes, "the second todo"); c.Verdict != "run" || c.Todo == nil || c.Todo.Title != "second" {
		t.Fatalf("after round 1: %s %+v", c.Verdict, c.Todo)
	}
	c := next(t, r.changes, "the skip decision")
	if c.Verdict != "skip" || c.Trigger != TriggerState || !c.HasReason("no_todo") {
		t.Fatalf("after the rounds: %s %s %+v", c.Trigger, c.Verdict, c.Reasons)
	}
	r.settle(t, p)
	none(t, r.receipts, "round after skip")
	if b, _ := os.ReadFile(p.path("work.txt")); strings.Count(string(b), "t-") != 2 {
		t.Fatalf("work.txt = %q, want two rounds' lines", b)
	}
}

// TestExec_CommandThatCannotStartStopsTheWatch: as with `loopx run`, an
// agent command that cannot start ends the watch with a usage error (the
// round is preflight_failed, not charged) instead of retrying forever.
func TestExec_CommandThatCannotStartStopsTheWatch(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	p.addTodo(t, "first")
	r := start(t, p, Options{Agent: "a1", Exec: []string{filepath.Join(p.root, "no-such-agent")}})
	err := next(t, r.done, "the watcher to stop")
	var ue *errs.Error
	if !(errs.IsKind(err, errs.Usage) && errors.As(err, &ue)) {
		t.Fatalf("Run = %v, want a usage error", err)
	}
	if rc := next(t, r.receipts, "the receipt"); rc.Round.Outcome != records.OutcomePreflightFailed || rc.Charged {
		t.Fatalf("round = %+v charged %v", rc.Round, rc.Charged)
	}
	r.done <- nil // for the cleanup
}

type signalWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	want string
	ch   chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.ch) })
	}
	return len(b), nil
}

// TestNew_Refusals: no spec is a usage error naming the path; --exec needs
// a goal and an agent; an unknown goal is refused.
func TestNew_Refusals(t *testing.T) {
	root := t.TempDir()
	_, err := New(Options{Root: root})
	var ue *errs.Error
	if !(errs.IsKind(err, errs.Usage) && errors.As(err, &ue)) || !strings.Contains(err.Error(), filepath.Join(root, "loopx")) {
		t.Fatalf("no spec: %v", err)
	}
	p := newProject(t, spec("5", "0s"))
	if _, err := New(Options{Root: p.root, Exec: []string{"true"}}); !(errs.IsKind(err, errs.Usage) && errors.As(err, &ue)) {
		t.Fatalf("exec without pair: %v", err)
	}
	if _, err := New(Options{Root: p.root, Goal: "nope"}); !(errs.IsKind(err, errs.Usage) && errors.As(err, &ue)) {
		t.Fatalf("unknown goal: %v", err)
	}
}

// TestAdoptedElsewhere_ReDecidesUnderTheNewRules: a policy edit is pending
// (the watcher keeps deciding under the adopted revision); once another
// process adopts it, the watcher re-decides under the new rules.
func TestAdoptedElsewhere_ReDecidesUnderTheNewRules(t *testing.T) {
	p := newProject(t, spec("5", "0s"))
	p.addTodo(t, "first")
	r := start(t, p, Options{Agent: "a1"})
	if c := next(t, r.changes, "the start change"); c.Verdict != "run" {
		t.Fatalf("start verdict = %s", c.Verdict)
	}
	p.save(t, "loopx/policies/policy.rego", strings.ReplaceAll(policyV1, "nobody-1", "a1"))
	pending := next(t, r.changes, "the pending edit")
	if pending.Verdict != "run" || pending.Trigger != TriggerPolicy {
		t.Fatalf("the edit, not adopted: %s %s", pending.Trigger, pending.Verdict)
	}
	e := p.engine(t)
	if _, err := e.Adopt(context.Background(), adopt.Options{}); err != nil {
		t.Fatal(err)
	}
	e.Release()
	// The adoption's commit is a state change: the watcher decides under
	// the adopted rules at its next decision, whichever event comes first
	// (the commit, or a decision that read the store's new rules), so the
	// trigger may be either.
	c := next(t, r.changes, "the decision under the adopted policy")
	if c.Verdict == "run" || (c.Trigger != TriggerPolicy && c.Trigger != TriggerState) || c.Revision.Policy == pending.Revision.Policy {
		t.Fatalf("after the adoption: %s %s %+v %+v", c.Trigger, c.Verdict, c.Reasons, c.Revision)
	}
}
