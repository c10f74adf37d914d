package rulebook

import (
	"context"
	"testing"

	"github.com/loopx-dev/loopx/policies"
)

// TestPrepare_BuiltIn: every query's entry rule prepares over the
// built-in bundle alone, with or without a spec; a spec that is not JSON
// is an error.
func TestPrepare_BuiltIn(t *testing.T) {
	var s *Schemas // the built-in bundle alone needs no schemas
	for q, ref := range policies.Queries {
		for _, tc := range []struct {
			name string
			spec []byte
			bad  bool
		}{{"no spec", nil, false}, {"spec", []byte(`{"project": {"name": "p"}, "goals": {}}`), false}, {"spec not JSON", []byte(`{`), true}} {
			area := q
			if q == "gate_answer" {
				area = "gate"
			}
			pq, err := s.Prepare(context.Background(), ref, area, tc.spec, nil)
			if (err != nil) != tc.bad || (err == nil && pq == nil) {
				t.Errorf("%s, %s: %v", q, tc.name, err)
			}
		}
	}
}
