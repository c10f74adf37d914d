package claudecode

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/hosts"
)

var sb = hosts.Sandbox{Protected: []string{"loopx/**", "**/.claude/settings*.json"}, Anchor: "/state/loopx/projects/p-1"}

// TestMergeSandbox_NeverLoosens is the settings merge's table: what
// install --sandbox writes into settings.json, what it keeps of the
// user's (a stricter value, an extra deny), and that uninstall gives the
// file back byte for byte.
func TestMergeSandbox_NeverLoosens(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		// want are key=value checks on the merged document (JSON values).
		want map[string]string
		// edits are the keys install recorded.
		edits string
	}{
		{"empty file", "",
			map[string]string{"sandbox.enabled": "true", "sandbox.allowUnsandboxedCommands": "false", "sandbox.autoAllowBashIfSandboxed": "false", "sandbox.failIfUnavailable": "true"},
			"sandbox sandbox.enabled sandbox.autoAllowBashIfSandboxed sandbox.allowUnsandboxedCommands sandbox.failIfUnavailable sandbox.filesystem sandbox.filesystem.denyWrite sandbox.filesystem.denyRead permissions permissions.deny"},
		{"the user's stricter and equal values stay", "{\n  \"sandbox\": {\n    \"enabled\": true,\n    \"autoAllowBashIfSandboxed\": false\n  }\n}\n",
			map[string]string{"sandbox.enabled": "true", "sandbox.autoAllowBashIfSandboxed": "false"},
			"sandbox.enabled sandbox.autoAllowBashIfSandboxed sandbox.allowUnsandboxedCommands sandbox.failIfUnavailable sandbox.filesystem sandbox.filesystem.denyWrite sandbox.filesystem.denyRead permissions permissions.deny"},
		{"a looser value is tightened and recorded", "{\n  \"sandbox\": {\n    \"enabled\": false,\n    \"allowUnsandboxedCommands\": true\n  },\n  \"model\": \"opus\"\n}\n",
			map[string]string{"sandbox.enabled": "true", "sandbox.allowUnsandboxedCommands": "false", "model": `"opus"`},
			"sandbox.enabled sandbox.autoAllowBashIfSandboxed sandbox.allowUnsandboxedCommands sandbox.failIfUnavailable sandbox.filesystem sandbox.filesystem.denyWrite sandbox.filesystem.denyRead permissions permissions.deny"},
		{"the user's extra deny stays, loopx's are added", "{\n  \"permissions\": {\n    \"deny\": [\n      \"Read(./.env)\",\n      \"Edit(./loopx/**)\"\n    ]\n  }\n}\n",
			map[string]string{"permissions.deny[0]": `"Read(./.env)"`, "permissions.deny[1]": `"Edit(./loopx/**)"`},
			"sandbox sandbox.enabled sandbox.autoAllowBashIfSandboxed sandbox.allowUnsandboxedCommands sandbox.failIfUnavailable sandbox.filesystem sandbox.filesystem.denyWrite sandbox.filesystem.denyRead permissions.deny"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Adapter{}
			out, edits, err := a.MergeSandbox([]byte(tc.doc), sb)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, e := range edits {
				keys = append(keys, e.Key)
			}
			if got := strings.Join(keys, " "); got != tc.edits {
				t.Errorf("edits %s\nwant  %s", got, tc.edits)
			}
			var doc map[string]any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				if got := at(doc, k); got != want {
					t.Errorf("%s = %s, want %s\n%s", k, got, want, out)
				}
			}
			deny := at(doc, "permissions.deny")
			for _, d := range []string{`"Edit(./loopx/**)"`, `"NotebookEdit(./**/.claude/settings*.json)"`} {
				if !strings.Contains(deny, d) {
					t.Errorf("permissions.deny lacks %s: %s", d, deny)
				}
			}
			if strings.Count(deny, `"Edit(./loopx/**)"`) != 1 {
				t.Errorf("an entry the user had is added twice: %s", deny)
			}
			if w := at(doc, "sandbox.filesystem.denyWrite"); !strings.Contains(w, `"./loopx"`) || !strings.Contains(w, `"./**/.claude/settings*.json"`) {
				t.Errorf("denyWrite %s", w)
			}
			if r := at(doc, "sandbox.filesystem.denyRead"); r != `["/state/loopx/projects/p-1"]` {
				t.Errorf("denyRead %s", r)
			}
			if drift := a.CheckSandbox(out, edits); len(drift) != 0 {
				t.Errorf("drift right after install: %v", drift)
			}
			again, more, err := a.MergeSandbox(out, sb)
			if err != nil || string(again) != string(out) || slices.ContainsFunc(more, func(e hosts.SandboxEdit) bool { return !e.Kept }) {
				t.Errorf("a second install changed something: %v %+v", err, more)
			}
			back, err := a.UnmergeSandbox(out, edits)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.doc
			if want == "" {
				want = "{}\n"
			}
			if string(back) != want {
				t.Errorf("uninstall gave\n%s\nwant\n%s", back, want)
			}
		})
	}
}

// TestCheckSandbox_Drift: doctor's lines for a sandbox setting switched
// off, a deny removed, the sandbox object deleted.
func TestCheckSandbox_Drift(t *testing.T) {
	a := Adapter{}
	out, edits, err := a.MergeSandbox(nil, sb)
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(string(out), `"enabled": true`, `"enabled": false`, 1)
	got := strings.Join(a.CheckSandbox([]byte(off), edits), "\n")
	if got != "sandbox.enabled is false, not true as installed" {
		t.Errorf("switched off: %q", got)
	}
	noDeny := strings.Replace(string(out), `"Edit(./loopx/**)",`, ``, 1)
	if got := strings.Join(a.CheckSandbox([]byte(noDeny), edits), "\n"); got != `permissions.deny lacks "Edit(./loopx/**)", which install added` {
		t.Errorf("deny removed: %q", got)
	}
	if got := a.CheckSandbox([]byte(`{}`), edits); len(got) < 5 || got[0] != "sandbox.enabled was removed (install set it to true)" {
		t.Errorf("all removed: %q", got)
	}
	// The user's own enabled: true, which install kept, is watched too.
	user := "{\n  \"sandbox\": {\n    \"enabled\": true\n  }\n}\n"
	out, edits, err = a.MergeSandbox([]byte(user), sb)
	if err != nil {
		t.Fatal(err)
	}
	off = strings.Replace(string(out), `"enabled": true`, `"enabled": false`, 1)
	if got := strings.Join(a.CheckSandbox([]byte(off), edits), "\n"); got != "sandbox.enabled is false, not true as installed" {
		t.Errorf("the user's kept value switched off: %q", got)
	}
}

// at is the JSON of doc's value at a dotted key ("a.b", "a.b[1]").
func at(doc map[string]any, key string) string {
	var v any = doc
	for _, k := range strings.Split(key, ".") {
		idx := -1
		if i := strings.Index(k, "["); i >= 0 {
			idx = int(k[i+1] - '0')
			k = k[:i]
		}
		m, _ := v.(map[string]any)
		v = m[k]
		if idx >= 0 {
			l, _ := v.([]any)
			if idx >= len(l) {
				return "<none>"
			}
			v = l[idx]
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}
