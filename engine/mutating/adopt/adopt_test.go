package adopt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel/records"
)

func TestChangedFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b map[string]string
		want []string
	}{
		{"same", map[string]string{"x": "1"}, map[string]string{"x": "1"}, nil},
		{"added", map[string]string{}, map[string]string{"x": "1"}, []string{"x"}},
		{"removed", map[string]string{"x": "1"}, nil, []string{"x"}},
		{"changed and sorted", map[string]string{"b": "1", "a": "1", "c": "1"}, map[string]string{"b": "2", "a": "2", "c": "1"}, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ChangedFiles(tc.a, tc.b); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPolicyFilesHash(t *testing.T) {
	a := PolicyFilesHash(map[string]string{"p/a.rego": "x", "p/b.rego": "y"})
	for _, tc := range []struct {
		name  string
		files map[string]string
		same  bool
	}{
		{"same files", map[string]string{"p/b.rego": "y", "p/a.rego": "x"}, true},
		{"content changed", map[string]string{"p/a.rego": "x", "p/b.rego": "z"}, false},
		{"path renamed", map[string]string{"p/a.rego": "x", "p/c.rego": "y"}, false},
		{"content moved across the separator", map[string]string{"p/a.rego": "xp/b.rego", "": "y"}, false},
		{"none", map[string]string{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := PolicyFilesHash(tc.files)
			if !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
				t.Fatalf("hash %q", h)
			}
			if (h == a) != tc.same {
				t.Fatalf("%s vs %s: same = %v, want %v", h, a, h == a, tc.same)
			}
		})
	}
}

const base = `{"project": {"name": "p"}, "agents": {"a1": {"host": "shell", "role": "executor"}},
 "goals": {"g1": {"objective": "Ship it", "agents": ["a1"],
  "quota": {"window": "24h", "window_seconds": 86400, "rounds": 3, "compute": 1, "min_interval": "0s", "min_interval_seconds": 0},
  "stall": {"max_no_progress": 3}}}}`

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name      string
		old, new  string
		loosens   bool
		ref, code string
	}{
		{"unchanged", base, base, false, "", ""},
		{"fewer rounds tightens", base, strings.Replace(base, `"rounds": 3`, `"rounds": 2`, 1), false, "goals.g1.quota.rounds", "tightens"},
		{"more rounds loosens", base, strings.Replace(base, `"rounds": 3`, `"rounds": 9`, 1), true, "goals.g1.quota.rounds", "loosens"},
		{"the goal's agents emptied loosens", base, strings.Replace(base, `"agents": ["a1"]`, `"agents": []`, 1), true, "goals.g1.agents", "loosens"},
		{"an old export that is not JSON loosens", `{`, base, true, "", "loosens"},
		{"a new export that is not JSON loosens", base, `not json`, true, "", "loosens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loosens, tightens := Classify(context.Background(), []byte(tc.old), []byte(tc.new))
			if (len(loosens) > 0) != tc.loosens {
				t.Fatalf("loosens %+v, want loosening %v", loosens, tc.loosens)
			}
			got := loosens
			if !tc.loosens {
				got = tightens
			}
			if tc.code == "" {
				if len(got) > 0 {
					t.Fatalf("changes %+v, want none", got)
				}
				return
			}
			if len(got) == 0 || got[0].Code != tc.code || got[0].Ref != tc.ref || got[0].Rule != Query || !strings.HasSuffix(got[0].Message, ": "+tc.code) {
				t.Fatalf("first reason %+v, want code %s ref %s", got, tc.code, tc.ref)
			}
		})
	}
}

func TestPendingSummaryAndReason(t *testing.T) {
	cur := records.Rules{SpecHash: "sha256:aaaaaaaaaaaaaaaa", PolicyHash: "sha256:p1"}
	disk := records.Rules{SpecHash: "sha256:bbbbbbbbbbbbbbbb", PolicyHash: "sha256:p2"}
	for _, tc := range []struct {
		name     string
		p        *Pending
		summary  string
		inReason string
	}{
		{"loosens", NewPending(cur, disk, []Reason{{Ref: "goals.g1.quota", Message: "rounds 3 → 9"}, {Ref: "x", Message: "x widened"}}, ""),
			"goals.g1.quota: rounds 3 → 9; x widened", "loosens them (goals.g1.quota: rounds 3 → 9; x widened)"},
		{"files do not load", NewPending(cur, disk, nil, "loopx/loopx.cue:1:1: bad"),
			"the spec files do not load: loopx/loopx.cue:1:1: bad", "do not load (loopx/loopx.cue:1:1: bad)"},
		{"only tightens", &Pending{OnlyTightens: true, Loosens: []Reason{}}, "it only tightens them", "loosens them (it only tightens them)"},
		{"only tightens, listed", &Pending{OnlyTightens: true, Loosens: []Reason{}, Tightens: []Reason{{Ref: "goals.g1.quota.rounds", Message: "goals.g1.quota.rounds: 3 → 2: tightens"}}},
			"it only tightens them: goals.g1.quota.rounds: 3 → 2: tightens", "(it only tightens them: goals.g1.quota.rounds: 3 → 2: tightens)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s := tc.p.Summary(); s != tc.summary {
				t.Fatalf("summary %q, want %q", s, tc.summary)
			}
			r := tc.p.Reason()
			if r.Code != "rules_pending" || r.Rule != Query || !strings.Contains(r.Message, tc.inReason) {
				t.Fatalf("reason %+v, want it to say %q", r, tc.inReason)
			}
			if tc.p.Loosens == nil {
				t.Fatal("Loosens is nil (JSON null)")
			}
		})
	}
}

func TestGateEvent(t *testing.T) {
	disk := records.Rules{SpecHash: "s1", PolicyHash: "p1", SpecJSON: []byte(`{}`)}
	g := records.Gate{ID: "gate-1", Goal: "g1", Adopt: &records.GateAdopt{Spec: "s1", Policy: "p1"}}
	for _, tc := range []struct {
		name string
		g    records.Gate
		disk records.Rules
		ok   bool
		want string
	}{
		{"still the revision asked about", g, disk, true, "rules.adopted"},
		{"files do not load", g, disk, false, "rules.not_adopted"},
		{"spec changed since", g, records.Rules{SpecHash: "s2", PolicyHash: "p1", SpecJSON: []byte(`{}`)}, true, "rules.not_adopted"},
		{"policies changed since", g, records.Rules{SpecHash: "s1", PolicyHash: "p2", SpecJSON: []byte(`{}`)}, true, "rules.not_adopted"},
		{"no export", g, records.Rules{SpecHash: "s1", PolicyHash: "p1"}, true, "rules.not_adopted"},
		{"not an adoption gate", records.Gate{ID: "gate-2"}, disk, true, "rules.not_adopted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, adopted := GateEvent(tc.g, tc.disk, tc.ok, "human")
			if ev.Kind != tc.want || adopted != (tc.want == "rules.adopted") {
				t.Fatalf("event %+v adopted %v, want %s", ev, adopted, tc.want)
			}
		})
	}
}

func TestWriteBack(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("loopx/loopx.cue", "edited")
	write("loopx/extra.cue", "added by an agent")
	write("loopx/policies/a.rego", "same")
	cur := records.Rules{SpecFiles: map[string]string{"loopx/loopx.cue": "adopted"},
		Policies: map[string]string{"loopx/policies/a.rego": "same", "loopx/policies/gone.rego": "restored"}}
	disk := records.Rules{SpecFiles: map[string]string{"loopx/loopx.cue": "edited", "loopx/extra.cue": "added by an agent"},
		Policies: map[string]string{"loopx/policies/a.rego": "same"}}
	changed, err := WriteBack(root, disk, cur)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"loopx/extra.cue", "loopx/loopx.cue", "loopx/policies/gone.rego"}; !slices.Equal(changed, want) {
		t.Fatalf("changed %v, want %v", changed, want)
	}
	for p, want := range map[string]string{"loopx/loopx.cue": "adopted", "loopx/policies/a.rego": "same", "loopx/policies/gone.rego": "restored", "loopx/extra.cue": ""} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if want == "" {
			if !os.IsNotExist(err) {
				t.Fatalf("%s still there: %v", p, err)
			}
			continue
		}
		if err != nil || string(b) != want {
			t.Fatalf("%s = %q %v, want %q", p, b, err, want)
		}
	}
	if changed, err := WriteBack(root, cur, cur); err != nil || changed == nil || len(changed) != 0 {
		t.Fatalf("nothing to write: %v %v", changed, err)
	}
}

// TestWriteBack_LinkedDirectoryIsRefused: loopx/policies as a link to a
// directory of the user's: a policy the adopted revision lacks is not
// removed from it, nor one it has written into it.
func TestWriteBack_LinkedDirectoryIsRefused(t *testing.T) {
	for _, cur := range []records.Rules{
		{SpecFiles: map[string]string{}, Policies: map[string]string{}},
		{SpecFiles: map[string]string{}, Policies: map[string]string{"loopx/policies/user.rego": "x", "loopx/policies/new.rego": "restored"}},
	} {
		root, victim := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(victim, "user.rego"), []byte("the user's"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(root, "loopx"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(root, "loopx", "policies")); err != nil {
			t.Fatal(err)
		}
		disk := records.Rules{Policies: map[string]string{"loopx/policies/user.rego": "the user's"}}
		if _, err := WriteBack(root, disk, cur); !errors.Is(err, nofollow.ErrLink) {
			t.Errorf("write back through a linked policies/: %v, want a link refused", err)
		}
		ents, _ := os.ReadDir(victim)
		b, _ := os.ReadFile(filepath.Join(victim, "user.rego"))
		if len(ents) != 1 || string(b) != "the user's" {
			t.Errorf("the user's directory changed: %d entries, user.rego %q", len(ents), b)
		}
	}
}

func TestProtectedPathsAndGateQuestion(t *testing.T) {
	reasons := []Reason{{Code: "outside_scope", Message: "web/x.js is outside"}, {Code: "protected_path", Message: "loopx/loopx.cue and .git/hooks/pre-commit are protected"}}
	got := ProtectedPaths(reasons, []string{"web/x.js", "loopx/loopx.cue", ".git/hooks/pre-commit"})
	if !slices.Equal(got, []string{"loopx/loopx.cue", ".git/hooks/pre-commit"}) {
		t.Fatalf("protected %v", got)
	}
	if got := ProtectedPaths(reasons[:1], []string{"web/x.js"}); got == nil || len(got) != 0 {
		t.Fatalf("none protected: %v", got)
	}
	loosens := NewPending(records.Rules{}, records.Rules{SpecHash: "s2", PolicyHash: "p2"}, []Reason{{Ref: "goals.g1.quota", Message: "more rounds"}}, "")
	for _, tc := range []struct {
		name      string
		protected []string
		p         *Pending
		says      string
		adopts    bool
	}{
		{"no rules file", []string{".git/hooks/pre-commit"}, loosens, "changed protected files (", false},
		{"nothing pending", []string{"loopx/loopx.cue"}, nil, "changed protected files (", false},
		{"files that do not load", []string{"loopx/loopx.cue"}, NewPending(records.Rules{}, records.Rules{}, nil, "bad"), "changed protected files (", false},
		{"a loosening edit", []string{"loopx/loopx.cue", ".git/hooks/pre-commit"}, loosens,
			"changed loopx's own spec or policies (loopx/loopx.cue) and other protected files (.git/hooks/pre-commit) in round r1, and the change loosens the rules: goals.g1.quota: more rounds.", true},
	} {
		q, rev := GateQuestion("a1", "r1", "loopx", tc.protected, tc.p)
		if !strings.Contains(q, tc.says) || (rev != nil) != tc.adopts || (rev != nil && (rev.Spec != "s2" || rev.Policy != "p2")) {
			t.Errorf("%s: %q %+v", tc.name, q, rev)
		}
	}
}
