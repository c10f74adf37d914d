package shell

import (
	"os/user"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/shell/shelltest"
)

// shellForms is the corpus of disguised and common command lines (see
// shelltest.Forms); the cat* constants name its categories.
var shellForms = shelltest.Forms

const (
	catPush         = shelltest.Push
	catWrite        = shelltest.Write
	catOpaque       = shelltest.Opaque
	catBenign       = shelltest.Benign
	catBenignOpaque = shelltest.BenignOpaque
)

// protectedWrite reports a write into loopx's own directories (or one that
// contains them, such as "."), as the permission policy sees it.
func protectedWrite(w string) bool {
	c := path.Clean(w)
	if c == "." {
		return true
	}
	for _, own := range []string{"loopx", ".loopx"} {
		if c == own || strings.HasPrefix(c, own+"/") {
			return true
		}
		if ok, _ := path.Match(c, own); ok && strings.ContainsAny(c, "*?[") {
			return true
		}
	}
	return false
}

func hasCommand(cl Line, prefix string) bool {
	for _, c := range cl.Commands {
		if c == prefix || strings.HasPrefix(c, prefix+" ") {
			return true
		}
	}
	return false
}

func TestReadCommandLine_Forms(t *testing.T) {
	counts := map[string]int{}
	for _, f := range shellForms {
		counts[f.Cat]++
		cl := Read(f.Line)
		short := f.Line
		if len(short) > 80 {
			short = short[:80] + "…"
		}
		opaque := len(cl.Opaque) > 0
		switch f.Cat {
		case catPush:
			if !opaque && !hasCommand(cl, "git push") {
				t.Errorf("push form %q: neither opaque nor `git push`: commands %q", short, cl.Commands)
			}
		case catWrite:
			protected := false
			for _, w := range slices.Concat(cl.Writes, cl.Mentioned, cl.Names) {
				protected = protected || protectedWrite(w)
			}
			if !opaque && !protected {
				t.Errorf("write form %q: neither opaque nor a protected write or mention: writes %q mentioned %q", short, cl.Writes, slices.Concat(cl.Mentioned, cl.Names))
			}
		case catOpaque, catBenignOpaque:
			if !opaque {
				t.Errorf("%s form %q: not opaque: commands %q writes %q", f.Cat, short, cl.Commands, cl.Writes)
			}
		case catBenign:
			if opaque || !cl.Parsed {
				t.Errorf("benign form %q: opaque %q (parsed %v)", short, cl.Opaque, cl.Parsed)
			}
			for _, w := range cl.Writes {
				if protectedWrite(w) {
					t.Errorf("benign form %q writes protected %q", short, w)
				}
			}
			if len(cl.Argvs) == 0 && !strings.HasPrefix(f.Line, "#") {
				t.Errorf("benign form %q: no command read", short)
			}
		}
		if len(cl.Argvs) != len(cl.Commands) {
			t.Errorf("%q: %d argvs but %d commands", short, len(cl.Argvs), len(cl.Commands))
		}
		for i, argv := range cl.Argvs {
			if len(argv) == 0 || strings.Join(argv, " ") != cl.Commands[i] {
				t.Errorf("%q: argv %q does not match command %q", short, argv, cl.Commands[i])
			}
		}
	}
	t.Logf("forms by category: %v (total %d)", counts, len(shellForms))
	if counts[catPush]+counts[catWrite]+counts[catOpaque]+counts[catBenign] < 150 {
		t.Errorf("want at least 150 forms, have %v", counts)
	}
}

// TestReadCommandLine_Details pins what the reader yields for forms whose
// exact reading matters, and the plumbing pushes that map to git.push.
func TestReadCommandLine_Details(t *testing.T) {
	for _, tc := range []struct {
		line     string
		commands []string
		writes   []string
		opaque   []string
	}{
		{`g"i"t pu''sh`, []string{"git push"}, nil, nil},
		{`\git push`, []string{"git push"}, nil, nil},
		{`/usr/bin/git -C . push --force`, []string{"git push --force"}, nil, nil},
		{`sudo -u me nice -n 5 timeout 10 git push`, []string{"git push"}, nil, nil},
		{`{git,push}`, []string{"git push"}, nil, nil},
		{`touch {a,b}/x`, []string{"touch a/x b/x"}, []string{"a/x", "b/x"}, nil},
		{`echo $'a\x2fb'`, []string{"echo a/b"}, nil, nil},
		{`$'\x67it' push`, []string{"git push"}, nil, nil},
		{`rm -rf $HOME`, []string{"rm -rf ~"}, []string{"~"}, nil},
		{`echo x > "$HOME"/.claude/settings.json`, []string{"echo x"}, []string{"~/.claude/settings.json"}, nil},
		{`cd api && echo x > ${PWD}/y`, []string{"cd api", "echo x"}, []string{"api/y"}, nil},
		{`echo x > "$HOME"x`, []string{"echo x"}, nil, []string{`redirection target built from "$HOME"x`}},
		{`cd loopx && echo x > loopx.cue`, []string{"cd loopx", "echo x"}, []string{"loopx/loopx.cue"}, nil},
		{`cd loopx; rm a`, []string{"cd loopx", "rm a"}, []string{"loopx/a", "a"}, nil},
		{`cd loopx || rm a`, []string{"cd loopx", "rm a"}, []string{"a"}, nil},
		{`(cd loopx && rm a); rm b`, []string{"cd loopx", "rm a", "rm b"}, []string{"loopx/a", "b"}, nil},
		{`cd a && cd ../b && rm c`, []string{"cd a", "cd ../b", "rm c"}, []string{"b/c"}, nil},
		{`cd /tmp && rm x`, []string{"cd /tmp", "rm x"}, []string{"/tmp/x"}, nil},
		{`cd $D && rm x`, []string{"cd $D", "rm x"}, nil, []string{"writes x relative to a directory loopx cannot tell (cd -, cd $X, popd)"}},
		{`cp -t loopx a b`, []string{"cp -t loopx a b"}, []string{"loopx"}, []string{"cp -t writes into the directory loopx"}},
		{`mv a b c/`, []string{"mv a b c/"}, []string{"a", "b", "c/"}, nil},
		{`ln -s /tmp/x`, []string{"ln -s /tmp/x"}, []string{"/tmp/x", "x"}, nil},
		{`curl -O https://example.com/a/b.tgz?x=1`, []string{"curl -O https://example.com/a/b.tgz?x=1"}, []string{"b.tgz"}, []string{"curl -O writes a download loopx cannot see"}},
		{`tar xf x.tar -C src`, []string{"tar xf x.tar -C src"}, []string{"src"}, []string{"tar extracts files named inside the archive (loopx cannot list them) into src"}},
		{`git restore --staged loopx`, []string{"git restore --staged loopx"}, nil, nil},
		{`git rm --cached loopx/x`, []string{"git rm --cached loopx/x"}, nil, nil},
		{`echo | xargs -I{} git push`, []string{"echo", "xargs -I{} git push", "git push"}, nil, []string{"xargs runs a command with arguments read from its input"}},
		{`python3 -c 'x'`, []string{"python3 -c x"}, nil, []string{"inline python code (-c)"}},
		{`git -c core.pager=cat log`, []string{"git log"}, nil, []string{"git -c core.pager can run commands"}},
		{`git stash`, []string{"git stash"}, nil, []string{"git stash push without a pathspec rewrites the working tree (loopx/ included)"}},
		{`LD_PRELOAD=/x.so ls`, []string{"ls"}, nil, []string{"sets LD_PRELOAD, which changes what programs run or where they write"}},
	} {
		cl := Read(tc.line)
		if !reflect.DeepEqual(cl.Commands, tc.commands) || !reflect.DeepEqual(cl.Writes, tc.writes) || !reflect.DeepEqual(cl.Opaque, tc.opaque) {
			t.Errorf("Read(%q)\n got commands %q writes %q opaque %q\nwant commands %q writes %q opaque %q",
				tc.line, cl.Commands, cl.Writes, cl.Opaque, tc.commands, tc.writes, tc.opaque)
		}
	}
	for line, action := range map[string]string{"git send-pack origin main": "git.push", "git subtree push --prefix=d origin main": "git.push",
		"git lfs push origin main": "git.push", "git http-push https://example.com/r main": "git.push"} {
		if cl := Read(line); !reflect.DeepEqual(cl.Actions, []string{action}) {
			t.Errorf("%q: actions %q, want %s", line, cl.Actions, action)
		}
	}
}

// TestReadCommandLine_MentionsPaths: an opaque line names its path-like
// tokens, those inside inline code and quoted strings included.
func TestReadCommandLine_MentionsPaths(t *testing.T) {
	for _, tc := range []struct {
		line      string
		mentioned []string
	}{
		{`python3 -c "open('loopx/loopx.cue','w').write('x')"`, []string{"loopx/loopx.cue"}},
		{`node -e "require('fs').writeFileSync('.loopx/state.db','')"`, []string{".loopx/state.db"}},
		{`echo 'open("loopx/loopx.cue","w")' | python3`, []string{"loopx/loopx.cue"}},
		{"python3 - <<EOF\nimport shutil\nshutil.rmtree('.loopx')\nEOF", []string{".loopx"}},
		{`cd loopx && python3 -c "open('x/y','w')"`, []string{"x/y", "loopx/x/y"}},
		{`cat lo""opx/loopx.cue | python3`, []string{"loopx/loopx.cue"}},
		{`find . -exec rm {} +`, nil},
	} {
		cl := Read(tc.line)
		if len(cl.Opaque) == 0 {
			t.Errorf("%q is not opaque", tc.line)
		}
		for _, m := range tc.mentioned {
			if !slices.Contains(cl.Mentioned, m) {
				t.Errorf("%q: mentioned %q lacks %q", tc.line, cl.Mentioned, m)
			}
		}
		if tc.mentioned == nil && len(cl.Mentioned) > 0 {
			t.Errorf("%q: mentioned %q, want none", tc.line, cl.Mentioned)
		}
	}
	if cl := Read(`python3 -c 'print(1)'; loopx status`); slices.Contains(cl.Names, "loopx") {
		t.Errorf("a command word is not a mention: names %q", cl.Names)
	}
	if cl := Read(`git status`); len(cl.Mentioned)+len(cl.Names) > 0 {
		t.Errorf("a readable line mentions nothing: %q %q", cl.Mentioned, cl.Names)
	}
}

// TestRead_OpaqueCommandsAreReported: at the reader, the three
// forms are opaque or name the protected write.
func TestRead_OpaqueCommandsAreReported(t *testing.T) {
	if cl := Read(`echo Z2l0IHB1c2g= | base64 -d | sh`); len(cl.Opaque) == 0 {
		t.Errorf("base64 | sh: not opaque")
	}
	if cl := Read(`python3 -c "os.system('git push')"`); len(cl.Opaque) == 0 {
		t.Errorf("python3 -c: not opaque")
	}
	if cl := Read(`cd loopx && echo x > loopx.cue`); !reflect.DeepEqual(cl.Writes, []string{"loopx/loopx.cue"}) {
		t.Errorf("cd loopx && echo > loopx.cue: writes %q", cl.Writes)
	}
}

// TestReadCommandLine_TildeUser: ~user is that user's home directory, as
// the shell expands it (rm -rf ~root removes /root and the host settings
// in it); ~ of a name that is no user stays unknown (opaque).
func TestReadCommandLine_TildeUser(t *testing.T) {
	u, err := user.Lookup("root")
	if err != nil {
		t.Skipf("no root user in the password database: %v", err)
	}
	if cl := Read(`rm -rf ~root`); !reflect.DeepEqual(cl.Writes, []string{u.HomeDir}) || len(cl.Opaque) != 0 {
		t.Errorf("rm -rf ~root: writes %q opaque %q, want writes [%s] and readable", cl.Writes, cl.Opaque, u.HomeDir)
	}
	if cl := Read(`echo x > ~root/.claude/settings.json`); !reflect.DeepEqual(cl.Writes, []string{u.HomeDir + "/.claude/settings.json"}) {
		t.Errorf("~root/.claude/settings.json: writes %q", cl.Writes)
	}
	if cl := Read(`rm -rf ~no-such-user-loopx`); len(cl.Opaque) == 0 {
		t.Errorf("~no-such-user-loopx: readable (writes %q), want opaque", cl.Writes)
	}
}

func TestReadCommandLine(t *testing.T) {
	for _, tc := range []struct {
		line     string
		commands []string
		actions  []string
		writes   []string
		parsed   bool
	}{
		{"git push origin main", []string{"git push origin main"}, []string{"git.push"}, nil, true},
		{"  git   -C ../x  push", []string{"git push"}, []string{"git.push"}, nil, true},
		{"make && GIT_TRACE=1 /usr/bin/git merge dev; gh pr merge 12 --squash", []string{"make", "git merge dev", "gh pr merge 12 --squash"}, []string{"git.merge"}, nil, true},
		{"npm publish --tag next | tee out.log", []string{"npm publish --tag next", "tee out.log"}, []string{"npm.publish"}, []string{"out.log"}, true},
		{"./loopx gate answer g-1 --option approve", []string{"loopx gate answer g-1 --option approve"}, []string{"loopx.gate.answer"}, nil, true},
		{"env X=1 loopx --project . gate answer g-1", []string{"loopx --project . gate answer g-1"}, []string{"loopx.gate.answer"}, nil, true},
		{`sh -c "loopx gate answer g-1 --option approve"`, []string{"sh -c loopx gate answer g-1 --option approve", "loopx gate answer g-1 --option approve"}, []string{"loopx.gate.answer"}, nil, true},
		{`bash -lc 'cd x && sudo -u me git push'`, []string{"bash -lc cd x && sudo -u me git push", "cd x", "git push"}, []string{"git.push"}, nil, true},
		{`echo $(loopx gate answer g-1)`, []string{"loopx gate answer g-1", "echo $()"}, []string{"loopx.gate.answer"}, nil, true},
		{"echo `git push`", []string{"git push", "echo $()"}, []string{"git.push"}, nil, true},
		{`eval "git push"`, []string{"eval git push", "git push"}, []string{"git.push"}, nil, true},
		{`xargs -I {} timeout 5s git push`, []string{"xargs -I {} timeout 5s git push", "git push"}, []string{"git.push"}, nil, true},
		{`echo hi > loopx/loopx.cue 2>/dev/null 2>&1`, []string{"echo hi"}, nil, []string{"loopx/loopx.cue", "/dev/null"}, true},
		{`echo hi >>.loopx/x &> b.log`, []string{"echo hi"}, nil, []string{".loopx/x", "b.log"}, true},
		{`rm -rf .loopx && mv a b && cp -r x loopx/ && sed -i 's/a/b/' loopx/loopx.cue`, []string{"rm -rf .loopx", "mv a b", "cp -r x loopx/", "sed -i s/a/b/ loopx/loopx.cue"}, nil, []string{".loopx", "a", "b", "x", "loopx/", "loopx/loopx.cue"}, true},
		{`git commit -m "don't git push; ok"`, []string{"git commit -m don't git push; ok"}, []string{"git.commit"}, nil, true},
		{"git commit -m \"$(cat <<'EOF'\nIt's fixed.\n\ngit push later\nEOF\n)\"", []string{"cat", "git commit -m $()"}, []string{"git.commit"}, nil, true},
		{"cat <<EOF > notes.md\nloopx gate answer g-1\nEOF\ngit status", []string{"cat", "git status"}, nil, []string{"notes.md"}, true},
		{`echo 'unclosed`, nil, nil, nil, false},
		{`echo $(git push`, nil, nil, nil, false},
		{"# just a comment", nil, nil, nil, true},
		{`for f in a b; do git tag v1; done`, []string{"git tag v1"}, []string{"git.tag"}, nil, true},
	} {
		cl := Read(tc.line)
		if !reflect.DeepEqual(cl.Commands, tc.commands) || !reflect.DeepEqual(cl.Actions, tc.actions) ||
			!reflect.DeepEqual(cl.Writes, tc.writes) || cl.Parsed != tc.parsed {
			t.Errorf("Read(%q)\n got commands %q actions %q writes %q parsed %v\nwant commands %q actions %q writes %q parsed %v",
				tc.line, cl.Commands, cl.Actions, cl.Writes, cl.Parsed, tc.commands, tc.actions, tc.writes, tc.parsed)
		}
	}
}

func TestReadCommandLine_DeepNestingIsUnparsed(t *testing.T) {
	line := "git push"
	for range maxShellDepth + 2 {
		line = "sh -c " + shellQuote(line)
	}
	if cl := Read(line); cl.Parsed {
		t.Fatalf("nesting deeper than %d must be unparsed: %+v", maxShellDepth, cl)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestGitGlobalOptionsDoNotHideTheSubcommand(t *testing.T) {
	for _, line := range []string{"git -C . push --force origin main", "git -c core.pager=cat --no-pager push --force", "git --git-dir=.git push --force"} {
		cl := Read(line)
		if len(cl.Commands) != 1 || !strings.HasPrefix(cl.Commands[0], "git push --force") {
			t.Errorf("%q → %q", line, cl.Commands)
		}
		if !reflect.DeepEqual(cl.Actions, []string{"git.push", "git.push.force"}) {
			t.Errorf("%q → actions %v", line, cl.Actions)
		}
	}
}
