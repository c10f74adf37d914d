package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
)

// TestPermission_LinksGitConfigVerbsAndRunners decides commands that
// reach loopx/ through a link, rewrite git's configuration, hide a
// human-only verb or run a program through a runner's flag, under
// broadGrantSpec, in a project with
// loopx/, a symlink lnk to loopx/ and a symlink lnkcue to loopx/loopx.cue:
// none is allowed; each row names the verdicts it may get.
func TestPermission_LinksGitConfigVerbsAndRunners(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, broadGrantSpec)
	root := e.Root()
	for _, d := range []string{"loopx", "src", "d"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "loopx", "loopx.cue"), []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"lnk": "loopx", "lnkcue": "loopx/loopx.cue"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	for _, tc := range []struct{ kind, line, verdict string }{
		// (1) relative symlink targets and copied symlinks
		{"symlink", `mkdir -p d && ln -s ../loopx d/l && echo x > d/l/loopx.cue`, "deny"},
		{"symlink", `ln -s ../loopx src/up && echo x > src/up/a.cue`, "deny"},
		{"symlink", `ln -sf ../loopx/loopx.cue src/c`, "deny"},
		{"symlink", `ln -s -t src ../loopx`, "deny"},
		{"symlink", `cp -P lnk l3 && echo x > l3/a.cue`, "deny"},
		{"symlink", `cp -d lnkcue l5 && echo x > l5`, "deny"},
		{"symlink", `cp -a lnk l6`, "deny"},
		{"symlink", `cp --preserve=links lnkcue l7`, "deny"},
		{"symlink", `ln -s ../shared web/shared`, "allow"},
		// (2) git: attached -c, --git-dir/--work-tree, config writes
		{"git", `git -ccore.pager=evil log`, "ask|deny"},
		{"git", `git -ccore.hooksPath=/tmp/h commit -m x`, "ask|deny"},
		{"git", `git -calias.x='!sh x' x`, "ask|deny"},
		{"git", `git --git-dir=/tmp/evil/.git status`, "ask|deny"},
		{"git", `git --work-tree /tmp/w status`, "ask|deny"},
		{"git", `git config --unset core.bare`, "deny"},
		{"git", `git config user.name x`, "deny"},
		{"git", `git config core.hooksPath /tmp/h`, "deny"},
		{"git", `git config --local alias.st '!sh evil.sh'`, "deny"},
		{"git", `git remote add o /tmp/r`, "deny"},
		{"git", `git branch --set-upstream-to=o/main`, "deny"},
		{"git", `git branch -u o/main`, "deny"},
		{"git", `git config user.name`, "allow"},
		{"git", `git config --get user.name`, "allow"},
		{"git", `git remote -v`, "allow"},
		{"git", `git branch -a`, "allow"},
		{"git", `git -c color.ui=never log`, "allow"},
		// (3) human-only verbs behind go run and expansions
		{"verb", `go run ./cmd/loopx gate answer g-1 --option approve`, "deny"},
		{"verb", `go run ./cmd/loopx adopt`, "deny"},
		{"verb", `go run -race ./cmd/loopx dashboard`, "deny"},
		{"verb", `loopx ${V:-adopt}`, "deny"},
		{"verb", `loopx "$(echo gate)" answer g-1`, "deny"},
		{"verb", `loopx gate ${A:-answer} g-1`, "deny"},
		{"verb", `loopx doctor --accept-$X`, "deny"},
		{"verb", `loopx agent $(echo register) x`, "deny"},
		{"verb", `printf 'gate\nanswer\n' | xargs loopx`, "deny"},
		{"verb", `go run ./cmd/loopx status`, "allow"},
		{"verb", `go test -run adopt ./...`, "allow"},
		// (5) runner flags, program files, extract/download
		{"runner", `go build -ldflags=-extld=/tmp/evil .`, "ask|deny"},
		{"runner", `go build -ldflags='-linkmode=external -extld=/tmp/evil' .`, "ask|deny"},
		{"runner", `sort --compress-program=/tmp/evil -S 1 big.txt`, "ask|deny"},
		{"runner", `sort $(cat opts) x`, "ask|deny"},
		{"runner", `git clone -u 'sh evil.sh' /tmp/r x`, "ask|deny"},
		{"runner", `git grep -O'sh evil.sh' foo`, "ask|deny"},
		{"runner", `git grep --open-files-in-pager=sh x`, "ask|deny"},
		{"runner", `lldb -o 'platform shell rm -rf x'`, "ask|deny"},
		{"runner", `lldb -o'platform shell x' ./app`, "ask|deny"},
		{"runner", `lldb --one-line-on-crash=bt ./app`, "ask|deny"},
		{"runner", `go build -ldflags='-s -w' ./...`, "allow"},
		{"runner", `sort -u names.txt`, "allow"},
		{"runner", `git grep -n foo`, "allow"},
		{"file", `echo 'BEGIN{system("x")}' > x.awk && awk -f x.awk f`, "ask|deny"},
		{"file", `echo 'e x' > x.sed && sed -f x.sed f`, "ask|deny"},
		{"file", `awk -f tools/sum.awk data.txt`, "allow"},
		{"file", `sed -f tools/fix.sed a.txt`, "allow"},
		{"extract", `scp h:x src/a`, "ask|deny"},
		{"extract", `pax -r < x.pax`, "ask|deny"},
		{"extract", `ar x lib.a`, "ask|deny"},
		{"extract", `ar t lib.a`, "allow"},
		{"extract", `scp build/app h:/srv/app`, "allow"},
		// found trying the fixes: rsync -l takes no value, scp -S runs a
		// program, git submodule writes .git/config, cargo run's arguments
		{"extract", `rsync -l lnk l4`, "ask|deny"},
		{"runner", `scp -S /tmp/evil build/app h:/srv/app`, "ask|deny"},
		{"git", `git submodule add /tmp/r s`, "deny"},
		{"git", `git submodule update --init`, "deny"},
		{"git", `git submodule update`, "allow"},
		{"verb", `cargo run -- gate answer g-1`, "deny"},
	} {
		d := permission(t, e, "claude", toolcall.Call{Tool: "Bash", Command: tc.line})
		if !slices.Contains(strings.Split(tc.verdict, "|"), d.Verdict) {
			t.Errorf("%s %q: %s %+v, want %s", tc.kind, tc.line, d.Verdict, d.Reasons, tc.verdict)
		}
	}
}
