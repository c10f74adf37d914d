package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/engine/mutating/adopt"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/policies"
)

// scanner is the change scan (trust.Scanner) over the bundle's protected set (policies.Protected).
func (e *Engine) scanner() trust.Scanner {
	set := policies.Protected()
	project, home := set.Compared()
	return trust.Scanner{Root: e.root, SpecDir: scaffold.SpecDirName, StateDir: scaffold.StateDirName, Cap: e.scanCap, Own: scaffold.LoopxWrites, LoopxState: e.loopxStateDir(),
		Protected: trust.Protected{Project: project, Home: home}, Home: trust.HomeDir(), HostParts: set.ComparedParts()}
}

// checkWrites asks the permission policy whether agent may have written
// paths (tool "Write"). It returns the denying decision, or nil when the
// writes are allowed (or none). loopx run uses it after every agent
// command: a shell agent has no hook to ask first, so loopx checks after.
func (e *Engine) checkWrites(ctx context.Context, goal, agent string, paths []string) (*decision.Decision, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	d, err := e.Permission(ctx, goal, agent, toolcall.Call{Tool: "Write", Paths: paths})
	if err != nil {
		return nil, err
	}
	if d.Verdict == "deny" {
		return &d, nil
	}
	return nil, nil
}

// recordScopeViolation audits writes outside the agent's scope and, when
// they touched protected files, raises a goal gate that keeps before (the
// rules the round started under): a reject restores them.
func (e *Engine) recordScopeViolation(goal, agent, round string, paths []string, d *decision.Decision, before *records.Rules) (*records.Gate, error) {
	var reasons []string
	for _, r := range d.Reasons {
		reasons = append(reasons, r.Message)
	}
	// The paths the permission policy named as protected (loopx's own,
	// git's hooks and config, the hosts' settings): a human decides
	// whether agents continue after an agent changed them.
	protected := adopt.ProtectedPaths(d.Reasons, paths)
	if len(protected) > 0 {
		// The adoption gate: what the edit loosens, if
		// anything; a tightening edit is adopted by refreshRules itself.
		e.refreshRules(context.Background())
		if e.rules.pending != nil {
			// The question lists what loosens: judged on the files
			// evaluated anew, not on a cache the command could have edited.
			e.resolveFresh(context.Background())
		}
	}
	question, adoptRev := adopt.GateQuestion(agent, round, scaffold.SpecDirName, protected, e.rules.pending)
	var gate *records.Gate
	err := e.update(func(tx *kernel.Tx) (err error) {
		gate, err = adopt.RecordViolation(tx, goal, agent, round, paths, reasons, d.DecisionID, protected, question, adoptRev, before)
		return err
	})
	return gate, err
}

// protectedSeen is the protected set as the last round left it (or a
// human approved it); ok is false when none was recorded.
func (e *Engine) protectedSeen() (p kernel.ProtectedSeen, ok bool, err error) {
	err = e.view(func(tx *kernel.Tx) (err error) {
		p, ok, err = tx.ProtectedSeen()
		return err
	})
	return p, ok, err
}

// sawProtected records files (trust.Scan.ProtectedDigests) as the
// protected set round left.
func (e *Engine) sawProtected(round string, files map[string]string) error {
	return e.update(func(tx *kernel.Tx) error {
		return tx.PutProtectedSeen(kernel.ProtectedSeen{Files: files, Round: round, At: tx.Now()})
	})
}

// recordBetweenRounds audits that paths of the protected set changed
// between rounds (a scope_violation.between_rounds event: by whom is
// unknown) and raises goal's gate whose approval records now as the
// protected set seen (a reject records nothing: the next round stops
// again until the files are restored or a gate is approved).
func (e *Engine) recordBetweenRounds(goal, round string, paths []string, now map[string]string) (*records.Gate, error) {
	var gate records.Gate
	err := e.update(func(tx *kernel.Tx) (err error) {
		if err := tx.AppendEvent(records.Event{Kind: "scope_violation.between_rounds", Goal: goal, Actor: "loopx", Subject: round,
			Message: "protected files changed between rounds, by whom unknown: " + strings.Join(paths, ", "),
			Data:    map[string]any{"paths": paths}}); err != nil {
			return err
		}
		gate, err = tx.AddGate(records.Gate{Goal: goal, ScopeKind: "goal", RaisedBy: "loopx", Reason: "protected_path",
			Question: fmt.Sprintf("Protected files changed between rounds, by whom unknown (not in a round loopx saw): %s. Keep them as they are now and let agents continue (approve), or keep agents stopped until you restore them (reject)?",
				strings.Join(paths, ", ")),
			Options: []string{"approve", "reject"}, Answerers: []string{"human"}})
		if err != nil {
			return err
		}
		return tx.PutGateProtected(gate.ID, kernel.ProtectedSeen{Files: now, At: tx.Now()})
	})
	return &gate, err
}
