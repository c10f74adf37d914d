package codex

import (
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/hosts"
)

// TestMergeSandbox_Mode is the config.toml merge's table: the mode install
// sets, a user's stricter mode kept, a looser one tightened, and the file
// given back byte for byte by uninstall.
func TestMergeSandbox_Mode(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"empty", "", "sandbox_mode = \"workspace-write\"\n"},
		{"no mode", "model = \"o3\"\n\n[features]\nhooks = true\n", "sandbox_mode = \"workspace-write\"\nmodel = \"o3\"\n\n[features]\nhooks = true\n"},
		{"read-only is stricter: kept", "sandbox_mode = 'read-only'\n", "sandbox_mode = 'read-only'\n"},
		{"workspace-write already", "sandbox_mode=\"workspace-write\" # mine\n", "sandbox_mode=\"workspace-write\" # mine\n"},
		{"full access is looser: tightened", "model = \"o3\"\nsandbox_mode = \"danger-full-access\"  # yolo\n[sandbox_workspace_write]\nnetwork_access = true\n",
			"model = \"o3\"\nsandbox_mode = \"workspace-write\"\n[sandbox_workspace_write]\nnetwork_access = true\n"},
		{"a table's sandbox_mode is not the top level's", "[profiles.x]\nsandbox_mode = \"danger-full-access\"\n", "sandbox_mode = \"workspace-write\"\n[profiles.x]\nsandbox_mode = \"danger-full-access\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Adapter{}
			out, edits, err := a.MergeSandbox([]byte(tc.doc), hosts.Sandbox{})
			if err != nil || string(out) != tc.want {
				t.Fatalf("%v\n%s\nwant\n%s", err, out, tc.want)
			}
			if d := a.CheckSandbox(out, edits); len(d) != 0 {
				t.Errorf("drift right after install: %v", d)
			}
			back, err := a.UnmergeSandbox(out, edits)
			if err != nil || string(back) != tc.doc {
				t.Errorf("uninstall gave %q, want %q (%v)", back, tc.doc, err)
			}
		})
	}
	if _, _, err := (Adapter{}).MergeSandbox([]byte("sandbox_mode = 1\n"), hosts.Sandbox{}); err == nil || !strings.Contains(err.Error(), "not a string") {
		t.Errorf("a mode that is no string: %v", err)
	}
	a := Adapter{}
	out, edits, _ := a.MergeSandbox(nil, hosts.Sandbox{})
	loose := strings.Replace(string(out), "workspace-write", "danger-full-access", 1)
	if d := strings.Join(a.CheckSandbox([]byte(loose), edits), ""); d != `sandbox_mode is "danger-full-access", not "workspace-write" as installed` {
		t.Errorf("drift %q", d)
	}
	if d := strings.Join(a.CheckSandbox([]byte(""), edits), ""); d != `sandbox_mode was removed (install set it to "workspace-write")` {
		t.Errorf("drift %q", d)
	}
}
