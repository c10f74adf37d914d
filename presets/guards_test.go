package presets

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// derivedActions are the action names the engine derives from tools and
// commands (engine.permissionRequest / commandAction): a gate guarding
// one of them is enforced by permission decisions without the agent
// naming the action itself.
var derivedActions = map[string]bool{"fs.write": true, "shell.exec": true, "git.push": true, "git.push.force": true, "git.merge": true,
	"git.commit": true, "git.tag": true, "npm.publish": true, "loopx.gate.answer": true}

// TestPresets_GateGuardsAreActionNames: a preset's gate guards name
// actions ("npm.publish"), not command patterns ("npm publish*"); actions
// of the families loopx derives (fs, shell, git, npm, loopx) must be ones
// it derives, others (research.promote) are explicit actions an agent or
// guarded evidence names.
func TestPresets_GateGuardsAreActionNames(t *testing.T) {
	actionRe := regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z0-9_-]+)+$`)
	for _, n := range Names() {
		settings, err := Settings(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for _, s := range settings {
			if !strings.HasPrefix(s.Path, "gates.") || !strings.HasSuffix(s.Path, ".guards") {
				continue
			}
			var guards []string
			if err := json.Unmarshal(s.Value, &guards); err != nil {
				t.Fatalf("%s %s: %v", n, s.Path, err)
			}
			for _, g := range guards {
				family, _, _ := strings.Cut(g, ".")
				switch {
				case !actionRe.MatchString(g):
					t.Errorf("%s %s: %q is not an action name (like git.push)", n, s.Path, g)
				case map[string]bool{"fs": true, "shell": true, "git": true, "npm": true, "loopx": true}[family] && !derivedActions[g]:
					t.Errorf("%s %s: %q is no action loopx derives (known: fs.write, shell.exec, git.push, git.merge, git.commit, git.tag, npm.publish)", n, s.Path, g)
				}
			}
		}
	}
}

func TestSettings_DefaultsFixedValuesAndConstraints(t *testing.T) {
	s, err := Settings("daily-triage")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Setting{}
	for _, x := range s {
		got[x.Path] = x
	}
	if r := got["quota.rounds"]; string(r.Value) != "1" || !r.Default || r.Constraint == "" {
		t.Errorf("quota.rounds = %+v", r)
	}
	if w := got["quota.window"]; string(w.Value) != `"24h"` || !w.Default || w.Constraint != "" {
		t.Errorf("quota.window = %+v", w)
	}
	s, _ = Settings("release")
	for _, x := range s {
		if x.Path == "gates.publish.guards" && (x.Default || string(x.Value) != `["npm.publish","git.tag"]`) {
			t.Errorf("release guards = %+v", x)
		}
	}
	if _, err := Settings("nope"); err == nil || !strings.Contains(err.Error(), "known: auto-research") {
		t.Errorf("unknown preset: %v", err)
	}
}

// TestPresets_DenyForcePushByAction: every preset's scope.commands.deny
// holds the action git.push.force (a force push however spelled).
func TestPresets_DenyForcePushByAction(t *testing.T) {
	for _, n := range Names() {
		settings, err := Settings(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		found := false
		for _, s := range settings {
			var deny []string
			if s.Path == "scope.commands.deny" && json.Unmarshal(s.Value, &deny) == nil {
				found = slices.Contains(deny, "git.push.force")
			}
		}
		if !found {
			t.Errorf("preset %s does not deny git.push.force", n)
		}
	}
}

// protections are the scaffold's scope.deny patterns (specs.Scaffold):
// loopx's own files, .env and secrets/.
var protections = []string{".loopx/**", "loopx/**", ".env", "secrets/**"}

// TestPresets_KeepScaffoldProtections: every preset's scope.deny holds
// the scaffold's protections, or denies every path ("**"), so a goal made
// from a preset never leaves .env or secrets/ to the host's prompt.
func TestPresets_KeepScaffoldProtections(t *testing.T) {
	for _, n := range Names() {
		t.Run(n, func(t *testing.T) {
			settings, err := Settings(n)
			if err != nil {
				t.Fatal(err)
			}
			var deny []string
			for _, s := range settings {
				if s.Path == "scope.deny" {
					if err := json.Unmarshal(s.Value, &deny); err != nil {
						t.Fatal(err)
					}
				}
			}
			if slices.Contains(deny, "**") {
				return
			}
			for _, p := range protections {
				if !slices.Contains(deny, p) {
					t.Errorf("preset %s: scope.deny %q lacks %q", n, deny, p)
				}
			}
		})
	}
}
