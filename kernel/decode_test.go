package kernel

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/kernel/records"
)

// TestDecodeTodo_AsEncodingJSON: decodeTodo (goccy/go-json) gives the
// todo encoding/json gives, for records with every field set or left out,
// odd titles (quotes, escapes, control characters, non-ASCII, invalid
// UTF-8), times in other zones, leases released or not; and it fails
// where encoding/json fails.
func TestDecodeTodo_AsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 11))
	titles := []string{"plain", `quo"te \back`, "tab\tnew\nline", "é ü 中文 🚀", "bad \xff utf8", "<html>&amp;", ""}
	zone := time.FixedZone("X", 5*3600+1800)
	for i := range 500 {
		td := records.Todo{ID: fmt.Sprintf("t-%04x", rng.IntN(1<<16)), Seq: rng.Uint64(), Goal: "g1",
			Title: titles[rng.IntN(len(titles))], Kind: []string{"task", "monitor", "gate", "action"}[rng.IntN(4)],
			Status: []string{"open", "claimed", "done", "blocked", "cancelled"}[rng.IntN(5)], Priority: rng.IntN(5) - 1,
			CreatedAt: time.Unix(rng.Int64N(1<<33), rng.Int64N(1e9)).In(zone), UpdatedAt: time.Unix(rng.Int64N(1<<33), 0).UTC()}
		if rng.IntN(2) == 0 {
			td.DependsOn, td.Labels, td.Scope = []string{"t-1", "t-2"}, []string{"review", "for:a1"}, []string{"api/**"}
			td.SpecName, td.EverySeconds, td.NextDueAt, td.LastResultHash = "guide", 3600, time.Unix(rng.Int64N(1<<33), 7).UTC(), "sha256:ab"
			td.Note, td.CreatedBy = titles[rng.IntN(len(titles))], "a2"
		}
		if rng.IntN(2) == 0 {
			td.Lease = &records.Lease{Holder: "a1", Version: rng.Uint64N(9), Epoch: 1, AcquiredAt: time.Unix(rng.Int64N(1<<33), 0).UTC(),
				ExpiresAt: time.Unix(rng.Int64N(1<<33), 0).UTC(), Released: rng.IntN(2) == 0, Round: "r-1", TTLSeconds: 2700, IdempotencyKey: "k"}
		}
		raw, err := json.Marshal(td)
		if err != nil {
			t.Fatal(err)
		}
		for _, payload := range []string{string(raw), strings.Replace(string(raw), `"priority":`, `"Priority":`, 1), `{"extra":1,` + string(raw[1:])} {
			var want, got records.Todo
			if err := json.Unmarshal([]byte(payload), &want); err != nil {
				t.Fatal(err)
			}
			if err := decodeTodo(payload, &got); err != nil {
				t.Fatalf("case %d: %v\n%s", i, err, payload)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d: decoded\n%+v\nencoding/json\n%+v\nfrom %s", i, got, want, payload)
			}
		}
	}
	for _, bad := range []string{`{"id":`, `{"priority":"x"}`, `[1]`, `{"created_at":"yesterday"}`, ``} {
		var a, b records.Todo
		if errA, errB := json.Unmarshal([]byte(bad), &a), decodeTodo(bad, &b); (errA == nil) != (errB == nil) {
			t.Errorf("%q: encoding/json %v, decodeTodo %v", bad, errA, errB)
		}
	}
}
