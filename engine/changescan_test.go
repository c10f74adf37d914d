package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/loopx-dev/loopx/internal/testproject"

	"github.com/loopx-dev/loopx/engine/mutating/runround"
	"github.com/loopx-dev/loopx/engine/reporting/reportdata"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
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

// TestRun_WhatTheAgentChanged: each way an agent may hide a change from the change scan,
// run as `loopx run`'s agent command (a shell script), is seen — the round
// fails and a human sees it in the audit log — or, when loopx cannot see
// every change, the round fails closed (charged, audited) before the
// command runs.
func TestRun_WhatTheAgentChanged(t *testing.T) {
	t.Parallel()
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
			script: "sed -i 's/rounds: 3/rounds: 300/' loopx/loopx.cue", want: records.OutcomeFailed, gate: true},
		{name: "no git, more files than the cap: fails closed, the command never runs", files: 150,
			script: "sed -i 's/rounds: 3/rounds: 300/' loopx/loopx.cue; touch ran", want: records.OutcomeFailed, incomplete: true},
		{name: "no git, the agent writes past the cap: fails closed", files: 90,
			script: "mkdir more; for i in $(seq 1 20); do echo > more/$i; done", want: records.OutcomeFailed, incomplete: true},
		{name: "a policy under loopx/policies/node_modules is watched", git: true,
			script: "mkdir -p loopx/policies/node_modules/x && printf 'package loopx.user.should_run\\n' > loopx/policies/node_modules/x/p.rego",
			want:   records.OutcomeFailed, gate: true},
		{name: "git hook written", git: true,
			script: "printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", want: records.OutcomeFailed, gate: true},
		{name: "git config changed", git: true,
			script: "git config core.hooksPath /nonexistent/hooks", want: records.OutcomeFailed, gate: true},
		{name: "untracked files hidden by .git/info/exclude", git: true,
			script: "echo '*' >> .git/info/exclude", want: records.OutcomeFailed, gate: true},
		{name: "gitignored host settings", git: true, setup: "printf '.claude/\\n' > .gitignore && git add .gitignore && git -c user.name=t -c user.email=t@e commit -qm ig",
			script: "mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.local.json", want: records.OutcomeFailed, gate: true},
		{name: "codex hooks without git",
			script: "mkdir -p .codex && echo '{}' > .codex/hooks.json", want: records.OutcomeFailed, gate: true},
		{name: "a file added under .loopx", git: true,
			script: "echo x > .loopx/extra.json", want: records.OutcomeFailed, gate: true},
		{name: "loopx's own writes in the round are not a change", git: true,
			script: "", want: records.OutcomeNoChange},
		{name: "a dirty file edited again is progress", git: true, setup: "echo one > notes.txt",
			script: "echo two > notes.txt", want: records.OutcomeProgress},
		{name: "a dirty file left alone is no change", git: true, setup: "echo one > notes.txt",
			script: "true", want: records.OutcomeNoChange},
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
			c := testproject.NewClock()
			e := New(Options{Root: root, StateHome: stateHome(root), Now: c.Now, MaxScanFiles: 100})
			t.Cleanup(func() { e.Close() })
			addTodos(t, e, "a")
			if tc.setup != "" {
				if out, err := exec.Command("sh", "-c", "cd "+root+" && "+tc.setup).CombinedOutput(); err != nil {
					t.Fatalf("setup: %v %s", err, out)
				}
			}
			script := tc.script
			res, err := e.Run(context.Background(), runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1,
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
			evs, err := e.Events(reportdata.EventFilter{Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.gate || tc.incomplete; (len(evs) > 0) != want {
				t.Fatalf("%s events: %d, want some: %v", kind, len(evs), want)
			}
		})
	}
}

// scopedSpec is testSpec with a write scope (src/**): a write elsewhere
// is a scope violation.
const scopedSpec = `agents: {
	a1: {host: "shell", role: "executor"}
}
goals: g1: {
	objective: "Test the engine"
	agents: ["a1"]
	quota: {window: "24h", rounds: 3, min_interval: "0s"}
	stall: max_no_progress: 2
	scope: write: ["src/**"]
}
project: sandbox: mode: "off" // what loopx run's change check sees of an unconfined agent; the sandbox is tested in cmd/loopx (TestConfine)
`

// gitSh runs a setup script in root (not by the agent), failing the test
// on an error.
func gitSh(t *testing.T, root, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", script, err, out)
	}
}

// plumbingCommit is a shell snippet that commits, with git's plumbing and
// a private index, loopx/loopx.cue with its quota raised and
// .claude/settings.json removed: neither the work tree nor the index
// changes, only the commit $c exists.
const plumbingCommit = `export GIT_INDEX_FILE=$PWD/.git/agent-index; git read-tree HEAD &&
b=$(sed 's/rounds: 3/rounds: 300/' loopx/loopx.cue | git hash-object -w --stdin) &&
git update-index --cacheinfo 100644,$b,loopx/loopx.cue && git update-index --force-remove .claude/settings.json &&
c=$(git commit-tree $(git write-tree) -p HEAD -m agent) && unset GIT_INDEX_FILE && rm -f .git/agent-index`

// claudeJSON is a ~/.claude.json as Claude Code keeps it: its own state
// (startups, a project's history) beside the MCP servers it runs.
const claudeJSON = `{
  "numStartups": 3,
  "mcpServers": {},
  "projects": {"/w/p": {"history": [], "allowedTools": []}}
}
`

// TestRun_CommittedAndHiddenChanges: what an agent commits, amends,
// merges back, hides behind index flags or brings in by moving a ref is
// judged like a work-tree change, and loopx's own check runs no filter
// the agent configured.
func TestRun_CommittedAndHiddenChanges(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// One home for every case, none of which writes it; the cases run in
	// parallel (each its own project and store).
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_AUTHOR_NAME", "agent")
	t.Setenv("GIT_AUTHOR_EMAIL", "agent@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "agent")
	t.Setenv("GIT_COMMITTER_EMAIL", "agent@example.com")
	for _, tc := range []struct {
		name   string
		script string // the agent command (git's identity is set)
		want   string
		gate   bool
		// summary is what the round's summary must hold ("": anything).
		summary string
		// setup runs after the first commit, as the human (not the agent).
		setup string
	}{
		{name: "an out-of-scope edit committed", script: "echo x >> docs/b.txt && git commit -qam c", want: records.OutcomeFailed},
		{name: "an out-of-scope edit amended into HEAD", script: "echo x >> docs/b.txt && git commit -qa --amend --no-edit", want: records.OutcomeFailed},
		{name: "a branch merged back", script: "git checkout -qb side && echo x >> docs/b.txt && git commit -qam s && git checkout -q - && git merge -q side", want: records.OutcomeFailed},
		{name: "hidden by assume-unchanged", script: "git update-index --assume-unchanged docs/b.txt && echo x >> docs/b.txt", want: records.OutcomeFailed},
		{name: "hidden by skip-worktree", script: "git update-index --skip-worktree docs/b.txt && echo x >> docs/b.txt", want: records.OutcomeFailed},
		{name: "only staged, the work tree as it was", script: "b=$(echo x | git hash-object -w --stdin) && git update-index --cacheinfo 100644,$b,docs/b.txt", want: records.OutcomeFailed},
		{name: "HEAD moved to an agent-built commit rewriting loopx/ and removing the hooks",
			script: plumbingCommit + " && git update-ref HEAD $c", want: records.OutcomeFailed, gate: true},
		{name: "a new branch bringing in an agent-built commit", script: plumbingCommit + " && git branch later $c", want: records.OutcomeFailed, gate: true},
		{name: "an in-scope edit committed is progress", script: "echo x >> src/a.txt && git commit -qam c", want: records.OutcomeProgress},
		{name: "a fetch is no change", script: "git fetch -q . HEAD:refs/remotes/origin/x", want: records.OutcomeNoChange},
		{name: "a hook in the hooks directory core.hooksPath names", setup: "git config core.hooksPath tools/hooks && mkdir -p tools/hooks && echo true > tools/hooks/pre-commit && git add tools && git commit -qm h",
			script: "echo evil >> tools/hooks/pre-commit", want: records.OutcomeFailed, gate: true},
		{name: "a hook in an ignored hooks directory", setup: "git config core.hooksPath build/hooks && mkdir -p build/hooks && echo 'build/' > .gitignore",
			script: "echo evil > build/hooks/pre-commit", want: records.OutcomeFailed, gate: true},
		{name: "husky's script beside its hooks directory", setup: "git config core.hooksPath .husky/_ && mkdir -p .husky/_ && echo '*' > .husky/_/.gitignore && echo 'npm test' > .husky/pre-commit && git add .husky && git commit -qm h",
			script: "echo evil >> .husky/pre-commit", want: records.OutcomeFailed, gate: true},
		{name: "an included config file in scope moving the hooks path", setup: "git config include.path ../src/git.cfg",
			script: "printf '[core]\\n\\thooksPath = src/h\\n' > src/git.cfg", want: records.OutcomeFailed, gate: true},
		{name: "a submodule's update command in .gitmodules", script: "printf '[submodule \"x\"]\\n\\tpath = x\\n\\tupdate = !sh evil\\n' > .gitmodules",
			want: records.OutcomeFailed, gate: true},
		{name: "a rebase's todo list left for the human's --continue", script: "mkdir -p .git/rebase-merge && echo 'exec sh evil' > .git/rebase-merge/git-rebase-todo",
			want: records.OutcomeFailed, gate: true},
		{name: "an agent-built commit under a remote-tracking ref", script: plumbingCommit + " && git update-ref refs/remotes/origin/main $c",
			want: records.OutcomeFailed, gate: true},
		{name: "an agent-built commit left as MERGE_HEAD", script: plumbingCommit + " && echo $c > .git/MERGE_HEAD", want: records.OutcomeFailed, gate: true},
		{name: "an agent-built commit left as FETCH_HEAD", script: plumbingCommit + ` && printf '%s\t\tbranch main of x\n' $c > .git/FETCH_HEAD`,
			want: records.OutcomeFailed, gate: true},
		{name: "an unreadable MERGE_HEAD", script: "echo nonsense > .git/MERGE_HEAD", want: records.OutcomeFailed,
			summary: "wrote outside its scope (.git/MERGE_HEAD): .git/MERGE_HEAD is outside scope.write src/**"},
		{name: "a remote-tracking ref moved to a commit of the work already there is no change",
			script: "git update-ref refs/remotes/origin/main HEAD && git fetch -q . HEAD", want: records.OutcomeNoChange},
		{name: "a git note is named by its ref", script: "git notes add -m hi HEAD", want: records.OutcomeFailed,
			summary: "wrote outside its scope (.git/refs/notes/commits): .git/refs/notes/commits is outside scope.write src/**"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeSpec(t, root, scopedSpec)
			for rel, body := range map[string]string{"src/a.txt": "a\n", "docs/b.txt": "b\n", ".claude/settings.json": "{}\n"} {
				if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			gitInit(t, root)
			if tc.setup != "" {
				gitSh(t, root, tc.setup)
			}
			e := New(Options{Root: root, StateHome: stateHome(root), Now: testproject.NewClock().Now})
			t.Cleanup(func() { e.Close() })
			addTodos(t, e, "a")
			res, err := e.Run(context.Background(), runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1,
				Cmd: []string{"sh", "-ec", tc.script}, Stdout: os.Stderr, Stderr: os.Stderr})
			if err != nil {
				t.Fatal(err)
			}
			rc := res.Receipts[0]
			r, err := e.Round(rc.Round.ID)
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != tc.want || (rc.Gate != nil) != tc.gate {
				t.Fatalf("outcome %s (%s), gate %v; want %s, gate %v", r.Outcome, r.Summary, rc.Gate != nil, tc.want, tc.gate)
			}
			if tc.summary != "" && r.Summary != tc.summary {
				t.Fatalf("summary %q, want %q", r.Summary, tc.summary)
			}
			evs, err := e.Events(reportdata.EventFilter{Kind: "scope_violation"})
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.want == records.OutcomeFailed; (len(evs) > 0) != want {
				t.Fatalf("scope_violation events: %d, want some: %v", len(evs), want)
			}
		})
	}
}

// TestRun_MCPServerInClaudeJSON: an MCP server an agent adds to
// ~/.claude.json (which the human's next Claude Code session runs) is a
// protected write, though loopx compares only that part of the file.
func TestRun_MCPServerInClaudeJSON(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(claudeJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeSpec(t, root, scopedSpec)
	gitInit(t, root)
	e := New(Options{Root: root, StateHome: stateHome(root), Now: testproject.NewClock().Now})
	t.Cleanup(func() { e.Close() })
	addTodos(t, e, "a")
	script := `sed -i 's/"history": \[\]/"history": [], "mcpServers": {"x": {"command": "sh"}}/' "$HOME/.claude.json"`
	res, err := e.Run(context.Background(), runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1,
		Cmd: []string{"sh", "-ec", script}, Stdout: os.Stderr, Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	rc := res.Receipts[0]
	if r, err := e.Round(rc.Round.ID); err != nil || r.Outcome != records.OutcomeFailed || rc.Gate == nil {
		t.Fatalf("outcome %s (%s), gate %v, %v; want failed with a gate", r.Outcome, r.Summary, rc.Gate != nil, err)
	}
}

// TestRun_CheckRunsNoFilterOfTheAgent: a clean filter the agent configures
// (user config and .git/info/attributes) never runs inside loopx's change
// check, so it cannot plant a hook there; the configuration itself is a
// protected write.
func TestRun_CheckRunsNoFilterOfTheAgent(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	root := t.TempDir()
	writeSpec(t, root, testSpec)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitInit(t, root)
	e := New(Options{Root: root, StateHome: stateHome(root), Now: testproject.NewClock().Now})
	t.Cleanup(func() { e.Close() })
	addTodos(t, e, "a")
	script := `git config --global filter.x.clean 'sh -c "printf planted > .git/hooks/pre-commit; cat"' &&
git config filter.y.clean 'sh -c "printf planted > .git/hooks/post-checkout; cat"' &&
printf '* filter=x\n' > .git/info/attributes && printf 'a.txt filter=y\n' > .gitattributes && echo more >> a.txt`
	res, err := e.Run(context.Background(), runround.Options{Goal: "g1", Agent: "a1", MaxRounds: 1,
		Cmd: []string{"sh", "-ec", script}, Stdout: os.Stderr, Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	for _, hook := range []string{"pre-commit", "post-checkout"} {
		if _, err := os.Stat(filepath.Join(root, ".git", "hooks", hook)); err == nil {
			t.Fatalf("loopx's check ran the agent's clean filter: .git/hooks/%s planted", hook)
		}
	}
	rc := res.Receipts[0]
	r, err := e.Round(rc.Round.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != records.OutcomeFailed || rc.Gate == nil {
		t.Fatalf("outcome %s (%s), gate %v; want failed with a gate", r.Outcome, r.Summary, rc.Gate != nil)
	}
}
