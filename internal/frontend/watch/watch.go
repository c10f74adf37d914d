// Package watch owns `loopx watch`: it keeps one engine (the
// exported spec and the prepared policy) and re-decides should_run for the
// (goal, agent) pairs in scope whenever a spec or policy file under loopx/
// changes, the kernel commits a change (.loopx/state.rev, from any
// process), or a decision's next_check_at or a monitor's due time arrives;
// it reports the decisions that changed and, with Exec, drives rounds.
package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel/records"

	"github.com/fsnotify/fsnotify"
	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
)

// Trigger says what made the watcher re-decide.
type Trigger string

// Triggers of a re-decision.
const (
	// TriggerStart is the first decision of each pair when watching starts.
	TriggerStart Trigger = "start"
	// TriggerSpec is a changed spec file (loopx/*.cue).
	TriggerSpec Trigger = "spec"
	// TriggerPolicy is a changed policy file (loopx/**/*.rego).
	TriggerPolicy Trigger = "policy"
	// TriggerState is a kernel commit by any process (.loopx/state.rev).
	TriggerState Trigger = "state"
	// TriggerTimer is a next_check_at, monitor due time or gate expiry.
	TriggerTimer Trigger = "timer"
)

// DefaultDebounce is how long file events must be quiet before loopx/ is
// rescanned: one editor save is a burst of events.
const DefaultDebounce = 100 * time.Millisecond

// stateDebounce merges the markers of commits made in a quick burst.
const stateDebounce = 10 * time.Millisecond

// pollEvery is the rescan period used only while some directory could not
// be watched (inotify limits): never otherwise.
const pollEvery = 2 * time.Second

// Change is a decision that differs from the pair's previous one (verdict,
// todo or reasons), with what triggered it: `loopx watch --json` prints it
// as one line, the decision's fields plus "trigger".
type Change struct {
	// Decision is the new decision (its fields are the line's fields).
	decision.Decision
	// Trigger is what made the watcher re-decide.
	Trigger Trigger `json:"trigger"`
}

// Evaluation is one re-decision of every pair in scope, whether or not a
// decision changed.
type Evaluation struct {
	// Trigger is what made the watcher re-decide.
	Trigger Trigger
	// Decisions are the pairs' decisions, ordered by goal then agent.
	Decisions []decision.Decision
	// Changed is how many of them differ from the previous ones.
	Changed int
}

// Rescan reports one debounced scan of loopx/.
type Rescan struct {
	// Changed is false when the files hash as before (a touch, an identical
	// rewrite, debris): nothing is re-decided then.
	Changed bool
	// Missing is true while loopx/ does not exist.
	Missing bool
	// Valid is false when the new content does not validate (the last good
	// spec and policy stay active).
	Valid bool
}

// Notice is a message for people (stderr): Level is "info", "warning" or
// "error".
type Notice struct {
	// Level is "info", "warning" or "error".
	Level string
	// Message may span lines (one positioned error per line).
	Message string
}

// Status is the watcher's state after each evaluation, for a status line.
type Status struct {
	// Decisions are the current decisions, ordered by goal then agent.
	Decisions []decision.Decision
	// NextTimer is when the timer fires next (zero: no timer).
	NextTimer time.Time
	// Stale is true while the spec or a policy on disk is broken or missing
	// and the last good version decides.
	Stale bool
	// Running is true while an Exec round runs.
	Running bool
}

// Options configure a Watcher.
type Options struct {
	// Root is the project root.
	Root string
	// Goal limits the watch to one goal ("" = every goal of the spec).
	Goal string
	// Agent limits it to one agent ("" = every agent on each goal).
	Agent string
	// Clock is the time source (nil = RealClock).
	Clock Clock
	// Debounce is the quiet time before a rescan (0 = DefaultDebounce).
	Debounce time.Duration
	// LockTimeout bounds waits for the state lock (0 = kernel default).
	LockTimeout time.Duration
	// StateHome and Resident are engine.Options': where the anchor
	// directories live ("" = the default) and the store a server keeps
	// open (nil = none: each decision opens it).
	StateHome string
	Resident  *engine.Resident
	// Exec is the agent command run for each round while the verdict for
	// (Goal, Agent) is run, as `loopx run` runs it (both must be set).
	Exec []string
	// ExecStdout and ExecStderr receive the command's output (nil = discard).
	ExecStdout, ExecStderr io.Writer
	// ExecCaller is the process the rounds are run for when a server runs
	// watch for its client (zero: this process; runround.Options.Caller).
	ExecCaller runround.Caller

	// OnChange receives every changed decision.
	OnChange func(Change)
	// OnEvaluate receives every re-decision (tests, benchmarks).
	OnEvaluate func(Evaluation)
	// OnRescan receives every debounced rescan of loopx/.
	OnRescan func(Rescan)
	// OnRound receives the receipt of every Exec round.
	OnRound func(rounds.Receipt)
	// OnNotice receives messages for people: positioned spec and policy
	// errors (once per content), warnings, recoveries.
	OnNotice func(Notice)
	// OnStatus receives the state after each evaluation and round.
	OnStatus func(Status)
}

type pair struct{ goal, agent string }

// Watcher re-decides should_run when the spec, the policies or the kernel
// state change, or a timer is due. It is not safe for concurrent use: Run
// it once.
type Watcher struct {
	o                       Options
	root, specDir, stateDir string
	clock                   Clock

	eng   *engine.Engine
	good  content // what the active engine was built from
	seen  content // what the last scan found
	stale bool

	pairs []pair
	last  map[pair]decision.Decision
	// lastMarker is the change marker last read (kernel.ReadMarker).
	lastMarker string
	errSeen    string

	fw       *fsnotify.Watcher
	dirs     map[string]bool
	failed   map[string]bool // directories that could not be watched (warned once)
	degraded bool

	timerC    <-chan time.Time
	timerStop func()
	timerAt   time.Time
	lastFire  time.Time

	running   bool
	hold      string // with Exec: the decision (decisionKey) on which a round failed to start
	pending   Trigger
	roundDone chan roundResult
	fatal     error
}

type roundResult struct {
	res runround.Result
	err error
}

// New prepares a watcher for the project at o.Root: it loads the spec and
// checks the user policies once. Errors: an errs.Usage error (exit 2) when
// the project has no spec (its message names the path), a goal that is not
// in the spec, user policies that do not compile, or Exec without Goal and
// Agent; the spec's specs.Errors when it does not validate.
func New(o Options) (*Watcher, error) {
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, err
	}
	if o.Clock == nil {
		o.Clock = RealClock{}
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if len(o.Exec) > 0 && (o.Goal == "" || o.Agent == "") {
		return nil, engine.Usagef("exec_needs_pair", "watch --exec needs --goal and --agent")
	}
	w := &Watcher{o: o, root: root, specDir: filepath.Join(root, scaffold.SpecDirName),
		stateDir: filepath.Join(root, scaffold.StateDirName), clock: o.Clock,
		last: map[pair]decision.Decision{}, dirs: map[string]bool{}, failed: map[string]bool{}, roundDone: make(chan roundResult, 1)}
	c, err := scan(root)
	if err != nil {
		return nil, err
	}
	if c.missing {
		return nil, engine.Usagef("no_spec", "no spec to watch: %s does not exist (run `loopx init`)", w.specDir)
	}
	eng := w.newEngine()
	if err := eng.SpecErr(); err != nil {
		if m, _ := filepath.Glob(filepath.Join(w.specDir, "*.cue")); len(m) == 0 {
			return nil, engine.Usagef("no_spec", "no spec to watch: no .cue files in %s (run `loopx init`)", w.specDir)
		}
		return nil, err
	}
	if probs := policyProblems(eng); len(probs) > 0 {
		return nil, engine.Usagef("policy_error", "user policies do not compile:\n%s", strings.Join(probs, "\n"))
	}
	if o.Goal != "" {
		if err := eng.RequireGoal(o.Goal); err != nil {
			return nil, err
		}
	}
	w.eng, w.good, w.seen = eng, c, c
	w.pairs = w.computePairs()
	if len(w.pairs) == 0 {
		return nil, engine.Usagef("nothing_to_watch", "no goal in the spec has agent %q", o.Agent)
	}
	return w, nil
}

func (w *Watcher) newEngine() *engine.Engine {
	e := engine.New(engine.Options{Root: w.root, Now: w.clock.Now, LockTimeout: w.o.LockTimeout, StateHome: w.o.StateHome, Resident: w.o.Resident})
	_ = e.AdoptTightening() // an edit that only tightens takes effect at once
	return e
}

// Pairs returns the (goal, agent) pairs in scope as "goal/agent", sorted.
func (w *Watcher) Pairs() []string {
	out := make([]string, len(w.pairs))
	for i, p := range w.pairs {
		out[i] = p.goal + "/" + p.agent
	}
	return out
}

// Run watches until ctx is done and returns nil then. A running Exec round
// is finished first (engine.Run records it failed on cancellation and
// releases its lease). It returns an error when watching cannot start
// (no inotify instance), or when an Exec round cannot start its command.
func (w *Watcher) Run(ctx context.Context) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("cannot watch %s: %w (too many inotify instances? raise fs.inotify.max_user_instances)", w.root, err)
	}
	defer fw.Close()
	w.fw = fw
	defer w.stopTimer()
	defer func() { _ = w.eng.Release() }() // the engine active at the end
	if fs := remoteFS(w.root); fs != "" {
		w.notice("warning", fmt.Sprintf("%s is on %s: file events from other machines (or the host) are not seen; changes made there are picked up only by a state commit or a timer", w.root, fs))
	}
	// .loopx/ is made without following a link (internal/nofollow): a
	// link there stops the watch, saying what was found (not audited: the
	// store is in that directory, and is never written through the link).
	if err := nofollow.MkdirAll(w.root, scaffold.StateDirName, 0o755); err != nil {
		if _, re := audit.LinkRefusal(err); re != nil {
			return re
		}
		return err
	}
	w.addAll()
	w.lastMarker, _ = kernel.ReadMarker(w.stateDir)
	w.evaluate(ctx, TriggerStart)

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	stateT := time.NewTimer(time.Hour)
	stateT.Stop()
	var debounceC, stateC, pollC <-chan time.Time
	var poll *time.Ticker
	defer func() {
		if poll != nil {
			poll.Stop()
		}
	}()
	for w.fatal == nil {
		if w.degraded && poll == nil {
			poll = time.NewTicker(pollEvery)
			pollC = poll.C
		}
		select {
		case <-ctx.Done():
			if w.running {
				w.roundFinished(ctx, <-w.roundDone)
			}
			return w.fatal
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("file watcher closed")
			}
			spec, state := w.handle(ev)
			if spec {
				debounce.Reset(w.o.Debounce)
				debounceC = debounce.C
			}
			if state {
				stateT.Reset(stateDebounce)
				stateC = stateT.C
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return errors.New("file watcher closed")
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.notice("warning", "file events overflowed the inotify queue (fs.inotify.max_queued_events): rescanning everything")
			} else {
				w.notice("warning", "file watcher: "+err.Error()+": rescanning everything")
			}
			w.addAll()
			w.rescan(ctx)
			w.checkState(ctx)
		case <-debounceC:
			debounceC = nil
			w.rescan(ctx)
		case <-stateC:
			stateC = nil
			w.checkState(ctx)
		case t := <-w.timerC:
			w.timerC, w.timerAt = nil, time.Time{}
			w.lastFire = t
			w.evaluate(ctx, TriggerTimer)
		case r := <-w.roundDone:
			w.roundFinished(ctx, r)
		case <-pollC:
			w.addAll()
			if !w.degraded {
				poll.Stop()
				poll, pollC = nil, nil
			}
			w.rescan(ctx)
			w.checkState(ctx)
		}
	}
	return w.fatal
}

// handle classifies one file event: spec (rescan loopx/ after the
// debounce) or state (read state.rev). It adds watches on new directories.
func (w *Watcher) handle(ev fsnotify.Event) (spec, state bool) {
	if ev.Op == fsnotify.Chmod { // touch, chmod: never a content change
		return false, false
	}
	dir, name := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	switch {
	case dir == w.stateDir:
		return false, name == kernel.RevFile
	case dir == w.root:
		switch name {
		case scaffold.SpecDirName:
			if ev.Has(fsnotify.Create) {
				w.addTree(w.specDir)
			} else {
				w.forget(w.specDir)
			}
			return true, false
		case scaffold.StateDirName:
			if ev.Has(fsnotify.Create) {
				w.add(w.stateDir)
			} else {
				w.forget(w.stateDir)
			}
			return false, true
		}
		return false, false
	case ev.Name == w.specDir || strings.HasPrefix(ev.Name, w.specDir+string(filepath.Separator)):
		if debris(name) {
			return false, false
		}
		if ev.Has(fsnotify.Create) {
			if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
				w.addTree(ev.Name)
				return true, false
			}
		}
		if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && w.dirs[ev.Name] {
			w.forget(ev.Name)
			return true, false
		}
		return relevant(name), false
	}
	return false, false
}

// addAll (re)adds the watches: the root (for loopx/ and .loopx/ coming and
// going), .loopx/ (for state.rev) and every directory under loopx/.
func (w *Watcher) addAll() {
	w.degraded = false
	w.add(w.root)
	w.add(w.stateDir)
	w.addTree(w.specDir)
}

func (w *Watcher) addTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && debris(d.Name()) {
			return filepath.SkipDir
		}
		w.add(p)
		return nil
	})
}

func (w *Watcher) add(dir string) {
	if w.dirs[dir] {
		return
	}
	err := w.fw.Add(dir)
	switch {
	case err == nil:
		w.dirs[dir] = true
		if w.failed[dir] {
			delete(w.failed, dir)
			w.notice("info", "watching "+dir+" again")
		}
		return
	case errors.Is(err, os.ErrNotExist):
		return
	}
	w.degraded = true
	if w.failed[dir] {
		return // warned already
	}
	w.failed[dir] = true
	if errors.Is(err, syscall.ENOSPC) {
		w.notice("warning", fmt.Sprintf("cannot watch %s: the inotify watch limit is reached (raise fs.inotify.max_user_watches); rescanning every %s instead until it can", dir, pollEvery))
	} else {
		w.notice("warning", fmt.Sprintf("cannot watch %s: %v; rescanning every %s instead until it can", dir, err, pollEvery))
	}
}

// forget drops the watches on dir and below (removed or renamed away).
func (w *Watcher) forget(dir string) {
	for d := range w.dirs {
		if d == dir || strings.HasPrefix(d, dir+string(filepath.Separator)) {
			_ = w.fw.Remove(d)
			delete(w.dirs, d)
		}
	}
}

// rescan hashes loopx/ and, when its content differs from the active
// engine's, builds a new engine: a valid one replaces the active one and
// every pair is re-decided; an invalid one is reported once and the last
// good engine stays active (decisions are marked stale).
func (w *Watcher) rescan(ctx context.Context) {
	c, err := scan(w.root)
	if err != nil {
		w.notice("error", "reading "+w.specDir+": "+err.Error())
		return
	}
	if c.same(w.seen) {
		w.rescanned(Rescan{Missing: c.missing, Valid: !w.stale})
		return
	}
	w.seen = c
	if c.missing {
		w.stale = true
		w.notice("error", fmt.Sprintf("%s was removed: deciding with the last good spec until it returns", w.specDir))
		w.rescanned(Rescan{Changed: true, Missing: true})
		w.status()
		return
	}
	if c.same(w.good) {
		if w.stale {
			w.stale = false
			w.notice("info", "spec and policies are back to the active version")
			w.status()
		}
		w.rescanned(Rescan{Changed: true, Valid: true})
		return
	}
	trigger := TriggerPolicy
	if c.spec != w.good.spec {
		trigger = TriggerSpec
	}
	var probs []string
	if c.policy != w.good.policy {
		probs = policyProblems(w.newEngine())
	}
	var ne *engine.Engine
	if len(probs) == 0 {
		ne = w.newEngine()
		// The files on disk, not the rules in effect: an engine keeps the
		// adopted revision when they do not load (adopt.Pending).
		_, diskErr := ne.DiskSpec()
		if err := cmp.Or(ne.SpecErr(), diskErr); err != nil {
			probs = strings.Split(err.Error(), "\n")
			trigger = TriggerSpec
		}
	}
	if len(probs) > 0 {
		if ne != nil {
			_ = ne.Close() // New may have opened the store to read the adopted rules
		}
		w.stale = true
		what := "spec"
		if trigger == TriggerPolicy {
			what = "policy"
		}
		w.notice("error", fmt.Sprintf("the %s edit does not validate; the last good %s stays active until it is fixed:\n%s", what, what, strings.Join(probs, "\n")))
		w.rescanned(Rescan{Changed: true})
		w.status()
		return
	}
	if w.stale {
		w.notice("info", fmt.Sprintf("the %s is valid again", trigger))
	}
	if !w.running {
		_ = w.eng.Close()
	}
	w.eng, w.good, w.stale = ne, c, false
	w.pairs = w.computePairs()
	for p := range w.last {
		if !slices.Contains(w.pairs, p) {
			delete(w.last, p)
		}
	}
	w.rescanned(Rescan{Changed: true, Valid: true})
	w.evaluate(ctx, trigger)
}

func (w *Watcher) rescanned(r Rescan) {
	if w.o.OnRescan != nil {
		w.o.OnRescan(r)
	}
}

// checkState re-decides when state.rev names a commit not seen last (its
// revision and chain head: a store rolled back and accepted again reuses
// a revision number),
// under the store's adopted rules when another process moved them
// (engine.FollowRules).
func (w *Watcher) checkState(ctx context.Context) {
	marker, err := kernel.ReadMarker(w.stateDir)
	if err != nil {
		return // not written yet, or mid-replace: the rename's event follows
	}
	if marker != w.lastMarker {
		w.lastMarker = marker
		trigger := TriggerState
		// Another process may have moved the rules in effect (an adoption,
		// a restore, a tightening adopted, a store accepted by doctor):
		// decide under the store's adopted revision, not the one loaded.
		if !w.running && w.eng.FollowRules(ctx) {
			trigger = TriggerPolicy
			w.pairs = w.computePairs()
			for p := range w.last {
				if !slices.Contains(w.pairs, p) {
					delete(w.last, p)
				}
			}
		}
		w.evaluate(ctx, trigger)
	}
}

// computePairs lists the (goal, agent) pairs in scope from the active spec.
func (w *Watcher) computePairs() []pair {
	sp, _ := w.eng.Spec()
	var goals []string
	if w.o.Goal != "" {
		goals = []string{w.o.Goal}
	} else if sp != nil && sp.Spec != nil {
		for g := range sp.Spec.Goals {
			goals = append(goals, g)
		}
		slices.Sort(goals)
	}
	var out []pair
	for _, g := range goals {
		var onGoal []string
		if sp != nil && sp.Spec != nil {
			if gs, ok := sp.Spec.Goals[g]; ok {
				onGoal = slices.Clone(gs.Agents)
				if len(onGoal) == 0 {
					for a := range sp.Spec.Agents {
						onGoal = append(onGoal, a)
					}
				}
			}
		}
		slices.Sort(onGoal)
		switch {
		case w.o.Agent != "" && (w.o.Goal != "" || slices.Contains(onGoal, w.o.Agent)):
			out = append(out, pair{g, w.o.Agent})
		case w.o.Agent == "":
			for _, a := range onGoal {
				out = append(out, pair{g, a})
			}
		}
	}
	return out
}

// evaluate re-decides every pair, reports the changed decisions, re-arms
// the timer and, with Exec, starts a round when the verdict is run. While a
// round runs it only notes the trigger for after the round.
func (w *Watcher) evaluate(ctx context.Context, trigger Trigger) {
	if ctx.Err() != nil {
		return
	}
	if w.running {
		if w.pending == "" || w.pending == TriggerState || w.pending == TriggerTimer {
			w.pending = trigger
		}
		return
	}
	ev := Evaluation{Trigger: trigger, Decisions: make([]decision.Decision, 0, len(w.pairs))}
	decideErr := ""
	for _, p := range w.pairs {
		w.eng.SeedSpecTodos(p.goal)
		d, err := w.eng.Decide(ctx, engine.Request{Query: query.ShouldRun, Goal: p.goal, Agent: p.agent})
		if err != nil && decideErr == "" {
			decideErr = err.Error()
		}
		d.Revision.StaleSpec = w.stale
		prev, ok := w.last[p]
		if !ok || decisionKey(prev) != decisionKey(d) {
			ev.Changed++
			if w.o.OnChange != nil {
				w.o.OnChange(Change{Decision: d, Trigger: trigger})
			}
		}
		w.last[p] = d
		ev.Decisions = append(ev.Decisions, d)
	}
	if decideErr != w.errSeen {
		if decideErr != "" {
			w.notice("error", "deciding: "+decideErr)
		}
		w.errSeen = decideErr
	}
	due := w.dueTimes(ev.Decisions)
	_ = w.eng.Release() // let other processes write while we wait
	w.arm(due)
	if w.o.OnEvaluate != nil {
		w.o.OnEvaluate(ev)
	}
	w.status()
	if len(w.o.Exec) > 0 {
		d, ok := w.last[pair{w.o.Goal, w.o.Agent}]
		if w.hold != "" && (!ok || decisionKey(d) != w.hold || trigger == TriggerSpec || trigger == TriggerPolicy) {
			w.hold = ""
		}
		if ok && d.Verdict == "run" && w.hold == "" {
			w.startRound(ctx)
		}
	}
}

// decisionKey is what makes a decision "changed": verdict, todo, reasons.
func decisionKey(d decision.Decision) string {
	var b strings.Builder
	b.WriteString(d.Verdict)
	if d.Todo != nil {
		b.WriteString("\x00" + d.Todo.ID)
	}
	for _, r := range d.Reasons {
		b.WriteString("\x00" + r.Code + "\x01" + r.Message)
	}
	return b.String()
}

// due is an instant at which a decision may change. coarse instants come
// from decisions (RFC 3339, whole seconds: up to 1 s early).
type due struct {
	at     time.Time
	coarse bool
}

// dueTimes collects the decisions' next_check_at, the monitors' due times
// and the open gates' expiries of the goals in scope (read-only).
func (w *Watcher) dueTimes(ds []decision.Decision) []due {
	var out []due
	for _, d := range ds {
		if d.NextCheckAt != nil {
			if t, err := time.Parse(time.RFC3339, *d.NextCheckAt); err == nil {
				out = append(out, due{at: t, coarse: true})
			}
		}
	}
	st, err := w.eng.Store()
	if err != nil {
		return out
	}
	goals := map[string]bool{}
	for _, p := range w.pairs {
		goals[p.goal] = true
	}
	_ = st.View(func(tx *kernel.Tx) error {
		for g := range goals {
			if ts, err := tx.Todos(g); err == nil {
				for _, t := range ts {
					if t.Kind == records.KindMonitor && t.Status != records.TodoDone && t.Status != records.TodoCancelled && !t.NextDueAt.IsZero() {
						out = append(out, due{at: t.NextDueAt})
					}
				}
			}
			if gs, err := tx.Gates(g); err == nil {
				for _, gt := range gs {
					if gt.Status == records.GateOpen && !gt.ExpiresAt.IsZero() {
						out = append(out, due{at: gt.ExpiresAt})
					}
				}
			}
		}
		return nil
	})
	return out
}

// arm sets the timer to the earliest instant still ahead. An instant is
// ahead when it is after both now and the last firing; a coarse one gets a
// second chance one second later (its decision rounded it down).
func (w *Watcher) arm(ds []due) {
	floor := w.clock.Now()
	if w.lastFire.After(floor) {
		floor = w.lastFire
	}
	var next time.Time
	for _, d := range ds {
		at := d.at
		if !at.After(floor) && d.coarse {
			at = at.Add(time.Second)
		}
		if at.After(floor) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	if next.Equal(w.timerAt) && w.timerC != nil {
		return
	}
	w.stopTimer()
	if !next.IsZero() {
		w.timerC, w.timerStop = w.clock.At(next)
		w.timerAt = next
	}
}

func (w *Watcher) stopTimer() {
	if w.timerStop != nil {
		w.timerStop()
	}
	w.timerC, w.timerStop, w.timerAt = nil, nil, time.Time{}
}

// startRound runs one round of (Goal, Agent) in the background as `loopx
// run --max-rounds 1` does; evaluations wait until it is finished.
func (w *Watcher) startRound(ctx context.Context) {
	w.running = true
	eng := w.eng
	o := runround.Options{Goal: w.o.Goal, Agent: w.o.Agent, Cmd: w.o.Exec, MaxRounds: 1,
		Stdout: orDiscard(w.o.ExecStdout), Stderr: orDiscard(w.o.ExecStderr), Caller: w.o.ExecCaller}
	w.status()
	go func() {
		res, err := eng.Run(ctx, o)
		w.roundDone <- roundResult{res, err}
	}()
}

func orDiscard(wr io.Writer) io.Writer {
	if wr == nil {
		return io.Discard
	}
	return wr
}

// roundFinished reports a round and re-decides (the round changed state).
// A command that cannot start stops the watch (as it stops `loopx run`).
func (w *Watcher) roundFinished(ctx context.Context, r roundResult) {
	w.running = false
	for _, rc := range r.res.Receipts {
		if w.o.OnRound != nil {
			w.o.OnRound(rc)
		}
	}
	stalled := false
	switch {
	case errors.Is(r.err, context.Canceled), errors.Is(r.err, context.DeadlineExceeded):
	case errs.IsKind(r.err, errs.Usage):
		w.fatal = r.err
		return
	case r.err != nil:
		w.notice("error", "round: "+r.err.Error())
		stalled = true
	case r.res.Rounds == 0:
		stalled = true
		if r.res.Last != nil {
			w.notice("info", fmt.Sprintf("no round started: the round's own decision was %s", r.res.Last.Verdict))
		}
	}
	trigger := w.pending
	if trigger == "" {
		trigger = TriggerState
	}
	w.pending = ""
	if stalled {
		// Do not retry on the same decision (a refusal that repeats would
		// spin): wait until it changes, or the spec or policy does.
		if d, ok := w.last[pair{w.o.Goal, w.o.Agent}]; ok {
			w.hold = decisionKey(d)
		}
	}
	w.evaluate(ctx, trigger)
	w.status()
}

func (w *Watcher) notice(level, msg string) {
	if w.o.OnNotice != nil {
		w.o.OnNotice(Notice{Level: level, Message: msg})
	}
}

func (w *Watcher) status() {
	if w.o.OnStatus == nil {
		return
	}
	s := Status{NextTimer: w.timerAt, Stale: w.stale, Running: w.running}
	for _, p := range w.pairs {
		if d, ok := w.last[p]; ok {
			s.Decisions = append(s.Decisions, d)
		}
	}
	w.o.OnStatus(s)
}
