package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/lease"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
)

// forgeModelRules rewrites the adopted rules in the read model's first
// line with edit and recomputes the line's checksum, as an agent outside
// a sandbox can (the file's stamp and head still name the store).
func forgeModelRules(t *testing.T, e *Engine, edit func(rules map[string]any)) {
	t.Helper()
	forgeModel(t, e, func(m map[string]any) {
		rules, ok := m["rules"].(map[string]any)
		if !ok {
			t.Fatalf("no adopted rules in the read model: %v", m)
		}
		edit(rules)
	})
}

// forgeModel rewrites the read model's first line, decoded, with edit, and
// recomputes its checksum.
func forgeModel(t *testing.T, e *Engine, edit func(m map[string]any)) {
	t.Helper()
	forgeLine(t, e, func(doc []byte) []byte {
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		forged, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return forged
	})
}

// forgeLine rewrites the read model's first line (its JSON, without the
// checksum) with edit and recomputes the checksum, as an agent outside a
// sandbox can.
func forgeLine(t *testing.T, e *Engine, edit func(doc []byte) []byte) {
	t.Helper()
	path := e.sess.readModelPath()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	core, rest, _ := bytes.Cut(b, []byte{'\n'})
	doc := edit(core[:bytes.LastIndexByte(core, ' ')])
	sum := sha256.Sum256(doc)
	if err := os.WriteFile(path, slices.Concat(doc, []byte(" "+hex.EncodeToString(sum[:])+"\n"), rest), 0o600); err != nil {
		t.Fatal(err)
	}
}

// storedRules are the adopted rules in root's store.
func storedRules(t *testing.T, root string, c *testproject.Clock) records.Rules {
	t.Helper()
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	defer e.Close()
	var r records.Rules
	if err := e.view(func(tx *kernel.Tx) (err error) { r, _, err = tx.Rules(); return err }); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestModelRules_WritesDecideOnTheStoresRules (a tester's finding): a read
// model rewritten, checksum and all, to drop the adopted user policies
// does not reach a write: the claim and the round start, decided under
// the store's lock, deny as the adopted policies say, and an event tells
// a human the read model named other rules than the store.
func TestModelRules_WritesDecideOnTheStoresRules(t *testing.T) {
	t.Parallel()
	root, c := adoptedProject(t)
	writeFile(t, filepath.Join(root, scaffold.SpecDirName, rulebook.DirName, "deny.rego"),
		"package loopx.user.claim\n\ndeny contains \"no claims at all\" if true\n")
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	mustAdopt(t, e)
	todo := addTodos(t, e, "Write the guide")[0]
	e.Close()

	for _, write := range []string{"claim", "round start"} {
		f := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
		decide(t, f, "a1") // on a stale read model (the last write's refusal was audited after it) it reads the store
		f.Close()          // and its read model is current
		forgeModelRules(t, f, func(r map[string]any) { r["policies"], r["policy_hash"] = map[string]any{}, "sha256:forged" })
		g := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
		if user, _ := g.UserModules(); len(user) != 0 {
			t.Fatalf("the forged model was not read (user policies %d): the test proves nothing", len(user))
		}
		var err error
		if write == "claim" {
			_, err = g.ClaimTodo(lease.ClaimRequest{Todo: todo.ID, Agent: "a1"})
		} else {
			var res rounds.StartResult
			res, err = g.StartRound(context.Background(), "g1", "a1")
			if err == nil && res.Round != nil {
				err = errString("round " + res.Round.ID + " started")
			}
			// should_run's selection asks the adopted claim policy too:
			// the only todo is denied, so nothing is selected.
			if err == nil && res.Decision.HasReason("no_todo") && strings.Contains(res.Decision.Reasons[0].Message, "denied by a claim policy") {
				err = errString("no claims at all (should_run: " + res.Decision.Reasons[0].Message + ")")
			}
		}
		if err == nil || !strings.Contains(err.Error(), "no claims at all") {
			t.Fatalf("%s under a forged read model: %v, want the adopted policy's deny", write, err)
		}
		evs, err := g.Events(reportdata.EventFilter{Kind: "rules"})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range evs {
			if ev.Kind == "rules.readmodel_mismatch" {
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: no rules.readmodel_mismatch event among %+v", write, evs)
		}
		g.Close()
	}
	if r := storedRules(t, root, c); len(r.Policies) == 0 {
		t.Fatal("the adopted policies were lost")
	}
}

// TestModelRules_NothingAdoptedOnTheModelsWord (a tester's finding): a
// loosening edit of loopx/ stays pending when the read model is
// rewritten to name rules that make the edit look like a tightening: a
// decision resolves the rules again from the store and adopts nothing.
func TestModelRules_NothingAdoptedOnTheModelsWord(t *testing.T) {
	t.Parallel()
	root, c := adoptedProject(t)
	before := storedRules(t, root, c)
	writeSpec(t, root, strings.Replace(adoptBase, "rounds: 3", "rounds: 1000", 1))
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	if e.Pending() == nil {
		t.Fatal("raising the quota is not pending")
	}
	forgeModelRules(t, e, func(r map[string]any) {
		spec := mustJSON(t, r["spec_json"])
		loose := bytes.Replace(spec, []byte(`"rounds":3`), []byte(`"rounds":100000`), 1)
		if bytes.Equal(loose, spec) {
			t.Fatalf("no quota to forge in %s", spec)
		}
		r["spec_json"] = json.RawMessage(loose)
		r["spec_hash"] = "sha256:forged"
	})
	e.Close()
	g := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	decide(t, g, "a1")
	if g.Pending() == nil {
		t.Fatal("the loosening edit is no longer pending")
	}
	g.Close()
	if after := storedRules(t, root, c); after.SpecHash != before.SpecHash {
		t.Fatalf("adopted %s on the read model's word (was %s)", after.SpecHash, before.SpecHash)
	}
}

// errString is an error with a fixed message.
type errString string

func (e errString) Error() string { return string(e) }

// TestAgent_RemovedFromTheSpecIsUnknownAgain (a tester's finding): an
// agent that acted (its heartbeat wrote a record) and is then removed
// from the spec is unknown: should_run denies it and its claims are
// refused. A human's registration still makes an agent the spec does not
// declare known, for the goals it names.
func TestAgent_RemovedFromTheSpecIsUnknownAgain(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	ts := addTodos(t, e, "one", "two")
	if _, err := e.ClaimTodo(lease.ClaimRequest{Todo: ts[0].ID, Agent: "a2"}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	spec := strings.Replace(testSpec, "\ta2: {host: \"shell\", role: \"executor\"}\n", "", 1)
	writeSpec(t, e.Root(), strings.Replace(spec, `agents: ["a1", "a2"]`, `agents: ["a1"]`, 1))
	f := newAdopting(t, e.Root(), c)
	if f.Pending() != nil {
		t.Fatalf("removing an agent is pending: %+v", f.Pending())
	}
	if d := decide(t, f, "a2"); d.Verdict != "deny" || d.Reasons[0].Code != "unknown_agent" {
		t.Fatalf("should_run for a removed agent: %s %+v", d.Verdict, d.Reasons)
	}
	if _, err := f.ClaimTodo(lease.ClaimRequest{Todo: ts[1].ID, Agent: "a2"}); err == nil {
		t.Fatal("a removed agent claimed a todo")
	}
	// Nor can it keep the todo it holds by renewing its lease.
	if _, err := f.RenewLease(lease.Request{Todo: ts[0].ID, Agent: "a2", ExpectedVersion: 1}); !strings.HasSuffix(errCode(err), "unknown_agent") {
		t.Fatalf("a removed agent renewed its lease: %v", err)
	}
	if _, err := f.RegisterAgent(records.Agent{ID: "a2", Host: "shell", Goals: []string{"g1"}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if d := decide(t, New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now}), "a2"); d.Verdict == "deny" {
		t.Fatalf("a registered agent: %s %+v", d.Verdict, d.Reasons)
	}
}

// TestModelRules_AModelOfAnotherRevisionIsNotRead (a tester's finding): a
// read model rewritten to claim another revision than the anchored one,
// its checksum recomputed, is not read by a decision (which reads the
// store and evaluates the adopted policies).
func TestModelRules_AModelOfAnotherRevisionIsNotRead(t *testing.T) {
	t.Parallel()
	root, c := adoptedProject(t)
	writeFile(t, filepath.Join(root, scaffold.SpecDirName, rulebook.DirName, "deny.rego"),
		"package loopx.user.should_run\n\ndeny contains \"no rounds at all\" if true\n")
	e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	mustAdopt(t, e)
	addTodos(t, e, "Write the guide")
	e.Close()
	forgeModel(t, e, func(m map[string]any) {
		rules := m["rules"].(map[string]any)
		rules["policies"], rules["policy_hash"] = map[string]any{}, "sha256:forged"
		rev, _ := m["rev"].(json.Number).Int64()
		m["rev"] = rev + 1
	})
	g := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now})
	defer g.Close()
	if d := decide(t, g, "a1"); d.Verdict != "deny" || d.Reasons[0].Message != "no rounds at all" {
		t.Fatalf("a decision under a model of another revision: %s %+v", d.Verdict, d.Reasons)
	}
}

// TestDoctor_ReportsAndRemovesAnEditedReadModel: `loopx doctor` compares
// the read model with the store; one rewritten outside loopx (checksum
// recomputed) is reported, unhealthy, and removed; a genuine one is not.
func TestDoctor_ReportsAndRemovesAnEditedReadModel(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, testSpec)
	addTodos(t, e, "one")
	e.Close()
	f := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	if r, err := f.Doctor(false); err != nil || r.ReadModelEdited || !r.Healthy() {
		t.Fatalf("a genuine read model: %+v, %v", r, err)
	}
	f.Close()
	// A goal paused in place (the line's other bytes kept), its checksum
	// recomputed.
	forgeLine(t, e, func(doc []byte) []byte {
		return bytes.Replace(doc, []byte(`"status":"active"`), []byte(`"status":"paused"`), 1)
	})
	g := New(Options{Root: e.Root(), StateHome: stateHome(e.Root()), Now: c.Now})
	defer g.Close()
	r, err := g.Doctor(false)
	if err != nil || !r.ReadModelEdited || r.Healthy() {
		t.Fatalf("an edited read model: edited %v, healthy %v, %v", r.ReadModelEdited, r.Healthy(), err)
	}
	if _, err := os.Stat(e.sess.readModelPath()); !os.IsNotExist(err) {
		t.Fatalf("the edited read model was kept: %v", err)
	}
}
