package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopx-dev/loopx/kernel"
)

// fileSig is what tells a file changed: size and modification time.
type fileSig struct {
	size  int64
	mtime int64
	// sum is a content hash, kept for loopx's own files (loopx/), whose
	// edits must be seen even when size and mtime are restored.
	sum [32]byte
}

// treeState maps the project's files (slash paths relative to the root)
// outside .loopx/, .git/ and node_modules/ to their signatures — at most
// 50,000 files — so that `loopx run` sees what an agent command wrote.
func (e *Engine) treeState() map[string]fileSig {
	out := map[string]fileSig{}
	_ = filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case StateDirName, ".git", "node_modules":
				if p != e.root {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if len(out) >= 50000 {
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			rel, _ := filepath.Rel(e.root, p)
			rel = filepath.ToSlash(rel)
			sig := fileSig{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
			if strings.HasPrefix(rel, SpecDirName+"/") {
				if b, err := os.ReadFile(p); err == nil {
					sig.sum = sha256.Sum256(b)
				}
			}
			out[rel] = sig
		}
		return nil
	})
	return out
}

// changedPaths lists the paths added, removed or modified between two tree
// states, sorted.
func changedPaths(before, after map[string]fileSig) []string {
	var out []string
	for p, s := range after {
		if b, ok := before[p]; !ok || b != s {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// checkWrites asks the permission policy whether agent may have written
// paths (tool "Write"). It returns the denying decision, or nil when the
// writes are allowed (or none). loopx run uses it after every agent
// command: a shell agent has no hook to ask first, so loopx checks after.
func (e *Engine) checkWrites(ctx context.Context, goal, agent string, paths []string) (*Decision, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	d, err := e.Permission(ctx, goal, agent, PermissionInput{Tool: "Write", Paths: paths})
	if err != nil {
		return nil, err
	}
	if d.Verdict == "deny" {
		return &d, nil
	}
	return nil, nil
}

// recordScopeViolation audits writes outside the agent's scope and, when
// they touched loopx's own spec or policies (loopx/), raises a goal gate:
// a human decides whether agents continue under a spec an agent changed.
func (e *Engine) recordScopeViolation(goal, agent, round string, paths []string, d *Decision) (*kernel.Gate, error) {
	var reasons []string
	for _, r := range d.Reasons {
		reasons = append(reasons, r.Message)
	}
	protected := []string{}
	for _, p := range paths {
		if strings.HasPrefix(p, SpecDirName+"/") {
			protected = append(protected, p)
		}
	}
	question := fmt.Sprintf("Agent %s changed loopx's own spec or policies (%s) in round %s. Keep these changes and let agents continue?",
		agent, strings.Join(protected, ", "), round)
	var adopt *kernel.GateAdopt
	if len(protected) > 0 {
		// The adoption gate (design §16): what the edit loosens, if
		// anything; a tightening edit is adopted by refreshRules itself.
		e.refreshRules(context.Background())
		if p := e.pending; p != nil {
			adopt = &kernel.GateAdopt{Spec: p.Disk.Spec, Policy: p.Disk.Policy}
			question = fmt.Sprintf("Agent %s changed loopx's own spec or policies (%s) in round %s, and the change loosens the rules: %s. Adopt these changes (approve adopts them, reject keeps the rules in effect)?",
				agent, strings.Join(protected, ", "), round, p.Summary())
		}
	}
	var gate *kernel.Gate
	err := e.update(func(tx *kernel.Tx) error {
		if err := tx.AppendEvent(kernel.Event{Kind: "scope_violation", Goal: goal, Actor: agent, Subject: round,
			Message: strings.Join(reasons, "; "), Data: map[string]any{"paths": paths, "decision_id": d.DecisionID}}); err != nil {
			return err
		}
		if len(protected) == 0 {
			return nil
		}
		g, err := tx.AddGate(kernel.Gate{Goal: goal, ScopeKind: "goal", RaisedBy: "loopx", Reason: "protected_path",
			Question: question, Adopt: adopt,
			Options: []string{"approve", "reject"}, Answerers: []string{"human"}})
		gate = &g
		return err
	})
	return gate, err
}
