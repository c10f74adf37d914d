package engine

import (
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/specs"
)

// VetReport is what `loopx vet` reports of a valid project: the spec
// files read (relative to the root), the spec's hash, and its goals (ids,
// and how many the loaded spec declares).
type VetReport struct {
	Files     []string
	Hash      string
	GoalIDs   []string
	SpecGoals int
}

// Vet validates the spec in loopx/ as it is on disk and compiles the user
// policies with the built-in bundle. Errors: the spec's errs.List (every
// error with file:line:col and field), the budget error already spent on
// open (not spent again), or an errs.List of the policy problems (kind
// Input, code the problem's, the field its rule).
func (e *Engine) Vet() (VetReport, error) {
	if err := e.SpecErr(); specs.IsBudget(err) {
		return VetReport{}, err // spent once already: not again
	}
	l, err := specs.Load(e.SpecDir())
	if err != nil {
		return VetReport{}, err
	}
	probs, err := e.CheckPolicies()
	if len(probs) > 0 {
		list := make(errs.List, 0, len(probs))
		for _, p := range probs {
			list = append(list, &errs.Error{Kind: errs.Input, Code: p.Code, Message: p.Message,
				Location: errs.Location{File: p.File, Line: p.Row, Col: p.Col, Field: p.Rule}})
		}
		return VetReport{}, list
	}
	if err != nil {
		return VetReport{}, err
	}
	return VetReport{Files: l.Files, Hash: l.Hash, GoalIDs: e.GoalIDs(), SpecGoals: len(l.Spec.Goals)}, nil
}
