package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
)

// gitInit makes root a git work tree with everything committed.
func gitInit(t *testing.T, root string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

// manyFiles writes n small files under root/dir.
func manyFiles(t *testing.T, root, dir string, n int) {
	t.Helper()
	d := filepath.Join(root, dir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRun_WhatTheAgentChanged: each attack of issue 12 on the change scan,
// run as `loopx run`'s agent command (a shell script), is seen — the round
// fails and a human sees it in the audit log — or, when loopx cannot see
// every change, the round fails closed (charged, audited) before the
// command runs.
func TestRun_WhatTheAgentChanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		// git makes the project a git work tree; files adds that many
		// files under bulk/ first (the walk's cap is 100).
		git    bool
		files  int
		setup  string // run before the round (not by the agent)
		script string // the agent command
		// want is the outcome; gate whether a protected_path gate is
		// raised; incomplete whether the scan failed closed; ran whether
		// the command ran.
		want       string
		gate       bool
		incomplete bool
	}{
		{name: "git, more files than the cap: the quota raise in loopx/ is seen", git: true, files: 150,
			script: "sed -i 's/rounds: 3/rounds: 300/' loopx/loopx.cue", want: kernel.OutcomeFailed, gate: true},
		{name: "no git, more files than the cap: fails closed, the command never runs", files: 150,
			script: "sed -i 's/rounds: 3/rounds: 300/' loopx/loopx.cue; touch ran", want: kernel.OutcomeFailed, incomplete: true},
		{name: "no git, the agent writes past the cap: fails closed", files: 90,
			script: "mkdir more; for i in $(seq 1 20); do echo > more/$i; done", want: kernel.OutcomeFailed, incomplete: true},
		{name: "a policy under loopx/policies/node_modules is watched", git: true,
			script: "mkdir -p loopx/policies/node_modules/x && printf 'package loopx.user.should_run\\n' > loopx/policies/node_modules/x/p.rego",
			want:   kernel.OutcomeFailed, gate: true},
		{name: "git hook written", git: true,
			script: "printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", want: kernel.OutcomeFailed, gate: true},
		{name: "git config changed", git: true,
			script: "git config core.hooksPath /tmp", want: kernel.OutcomeFailed, gate: true},
		{name: "untracked files hidden by .git/info/exclude", git: true,
			script: "echo '*' >> .git/info/exclude", want: kernel.OutcomeFailed, gate: true},
		{name: "gitignored host settings", git: true, setup: "printf '.claude/\\n' > .gitignore && git add .gitignore && git -c user.name=t -c user.email=t@e commit -qm ig",
			script: "mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.local.json", want: kernel.OutcomeFailed, gate: true},
		{name: "codex hooks without git",
			script: "mkdir -p .codex && echo '{}' > .codex/hooks.json", want: kernel.OutcomeFailed, gate: true},
		{name: "a file added under .loopx", git: true,
			script: "echo x > .loopx/extra.json", want: kernel.OutcomeFailed, gate: true},
		{name: "loopx's own writes in the round are not a change", git: true,
			script: "", want: kernel.OutcomeNoChange},
		{name: "a dirty file edited again is progress", git: true, setup: "echo one > notes.txt",
			script: "echo two > notes.txt", want: kernel.OutcomeProgress},
		{name: "a dirty file left alone is no change", git: true, setup: "echo one > notes.txt",
			script: "true", want: kernel.OutcomeNoChange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeSpec(t, root, testSpec)
			if tc.files > 0 {
				manyFiles(t, root, "bulk", tc.files)
			}
			if tc.git {
				gitInit(t, root)
			}
			c := newClock()
			e := New(Options{Root: root, Now: c.now, MaxScanFiles: 100})
			t.Cleanup(func() { e.Close() })
			addTodos(t, e, "a")
			if tc.setup != "" {
				if out, err := exec.Command("sh", "-c", "cd "+root+" && "+tc.setup).CombinedOutput(); err != nil {
					t.Fatalf("setup: %v %s", err, out)
				}
			}
			script := tc.script
			res, err := e.Run(context.Background(), RunOptions{Goal: "g1", Agent: "a1", MaxRounds: 1,
				Cmd: []string{"sh", "-c", script}, Stdout: os.Stderr, Stderr: os.Stderr})
			var re *errs.Error
			if tc.incomplete {
				if !(errs.IsKind(err, errs.No) && errors.As(err, &re)) || re.Code != "change_scan_incomplete" {
					t.Fatalf("err = %v, want change_scan_incomplete", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if len(res.Receipts) != 1 {
				t.Fatalf("receipts: %+v", res)
			}
			rc := res.Receipts[0]
			r, err := e.Round(rc.Round.ID)
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != tc.want {
				t.Fatalf("outcome %s (%s), want %s", r.Outcome, r.Summary, tc.want)
			}
			if (rc.Gate != nil) != tc.gate {
				t.Fatalf("gate %+v, want gate %v (round %s: %s)", rc.Gate, tc.gate, r.Outcome, r.Summary)
			}
			kind := "scope_violation"
			if tc.incomplete {
				kind = "scope_violation.scan_incomplete"
				if !r.Charged {
					t.Fatal("a round that failed closed is charged")
				}
				if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
					t.Fatal("the command ran although loopx could not see what it changes")
				}
			}
			evs, err := e.Events(EventFilter{Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.gate || tc.incomplete; (len(evs) > 0) != want {
				t.Fatalf("%s events: %d, want some: %v", kind, len(evs), want)
			}
		})
	}
}
