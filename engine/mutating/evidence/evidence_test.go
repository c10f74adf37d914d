package evidence

import (
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
)

func TestCheck(t *testing.T) {
	root := filepath.FromSlash("/work/project")
	for _, tc := range []struct {
		name              string
		in                records.Evidence
		code              string
		kind, status, ref string
	}{
		{"defaults", records.Evidence{Summary: "ok"}, "", "note", "info", ""},
		{"as given", records.Evidence{Summary: "ok", Kind: "test", Status: "pass", Ref: "ci/123"}, "", "test", "pass", "ci/123"},
		{"a path inside the project", records.Evidence{Summary: "ok", Ref: filepath.Join(root, "out", "r.txt")}, "", "note", "info", "out/r.txt"},
		{"a path outside", records.Evidence{Summary: "ok", Ref: filepath.FromSlash("/etc/passwd")}, "", "note", "info", filepath.FromSlash("/etc/passwd")},
		{"no summary", records.Evidence{Summary: "  "}, "empty_summary", "", "", ""},
		{"a bad status", records.Evidence{Summary: "ok", Status: "green"}, "bad_status", "", "", ""},
		{"a bad kind", records.Evidence{Summary: "ok", Kind: "vibe"}, "bad_kind", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Check(tc.in, root)
			if errs.CodeOf(err) != tc.code || (tc.code == "") != (err == nil) {
				t.Fatalf("%v", err)
			}
			if err == nil && (ev.Kind != tc.kind || ev.Status != tc.status || ev.Ref != tc.ref) {
				t.Fatalf("%+v", ev)
			}
		})
	}
}
