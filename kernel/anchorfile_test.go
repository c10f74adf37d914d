package kernel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLogWhileRefused: a refusal that could not be audited because the
// store is refused waits in the refusal log; any other write failure, or
// none, keeps nothing.
func TestLogWhileRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		kept bool
	}{
		{"rolled back", StoreError("state.db", fmt.Errorf("%w: behind", ErrRolledBack)), true},
		{"tampered", StoreError("state.db", fmt.Errorf("%w: off chain", ErrTampered)), true},
		{"schema too new", fmt.Errorf("open: %w", ErrSchemaTooNew), true},
		{"schema unknown", ErrSchemaUnknown, true},
		{"lock timeout", ErrLockTimeout, false},
		{"other", errors.New("disk full"), false},
		{"written", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".loopx")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			r := Refusal{At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Code: "bad_channel", Message: "agent:a1 loopx doctor --accept-store: refused"}
			if got := LogWhileRefused(dir, tc.err, r); got != tc.kept {
				t.Fatalf("kept %v, want %v", got, tc.kept)
			}
			adir, err := AnchorDirOf(dir)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := ReadRefusals(adir)
			if err != nil || (len(rs) == 1) != tc.kept || (tc.kept && rs[0] != r) {
				t.Fatalf("refusal log %+v, %v; kept %v", rs, err, tc.kept)
			}
		})
	}
}
