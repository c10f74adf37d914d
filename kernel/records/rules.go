package records

import (
	"encoding/json"
	"time"
)

// Project is the project's own record: how it was created.
type Project struct {
	// Demo is true for a project `loopx demo` created (scaffold.Options.Demo):
	// only there is the demo's own gate answer (channel "demo") accepted.
	Demo bool `json:"demo"`
}

// Rules is the adopted revision of a project's loopx/ directory:
// the rules decisions, hooks, `run` and `watch` evaluate, whatever
// the files on disk say now. It holds the content, not only the hashes, so
// that the rules in effect survive an edit of loopx/ and can be written back
// (`loopx adopt --restore`). The kernel stores it as given; the engine
// decides what is adopted.
type Rules struct {
	// SpecHash is the spec's content hash ("sha256:…", specs.Loaded.Hash).
	SpecHash string `json:"spec_hash"`
	// SpecJSON is the exported spec (data.loopx.spec): decisions read it
	// without evaluating CUE.
	SpecJSON json.RawMessage `json:"spec_json"`
	// ExportHash is "sha256:<hex>" over SpecJSON (specs.ExportHash): a
	// cached export of the spec is used only when its hash equals this one
	// ("" in a store from before it was recorded: computed from SpecJSON).
	ExportHash string `json:"export_hash,omitempty"`
	// SpecFiles maps each spec file ("loopx/loopx.cue") to its content.
	SpecFiles map[string]string `json:"spec_files"`
	// PolicyHash is the hash over Policies (engine's policy revision).
	PolicyHash string `json:"policy_hash"`
	// Policies maps each user policy file under loopx/policies/ to its
	// content: policies and their tests ("…_test.rego"), so that a changed
	// test is a change of the rules like any policy change.
	Policies map[string]string `json:"policies"`
	// AdoptedAt is when this revision was adopted; By who adopted it
	// ("loopx" for an automatic adoption, "human").
	AdoptedAt time.Time `json:"adopted_at"`
	By        string    `json:"by"`
}
