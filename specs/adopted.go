package specs

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Sources reads the spec files of specDir (those Load reads) without
// evaluating CUE: their contents keyed by path relative to the project root
// ("loopx/loopx.cue"), and the hash Load would give them. Errors: Errors
// (CodeNoSpec) when the directory cannot be read.
func Sources(specDir string) (map[string]string, string, error) {
	src, errs := readSpec(specDir)
	if errs != nil {
		return nil, "", errs
	}
	out := make(map[string]string, len(src.files))
	for _, f := range src.files {
		out[f.name] = string(f.data)
	}
	return out, src.hash, nil
}

// FromExport rebuilds a Loaded from an exported spec (Loaded.JSON) kept
// elsewhere, e.g. the adopted revision in kernel state: no CUE is
// evaluated. files are the spec files' paths (sorted here). Errors: the
// JSON does not decode into a Spec.
func FromExport(hash string, files []string, js []byte) (*Loaded, error) {
	var s Spec
	if err := json.Unmarshal(js, &s); err != nil {
		return nil, fmt.Errorf("adopted spec %s: %w", hash, err)
	}
	fs := append([]string(nil), files...)
	sort.Strings(fs)
	return &Loaded{Spec: &s, JSON: js, Hash: hash, Files: fs}, nil
}
