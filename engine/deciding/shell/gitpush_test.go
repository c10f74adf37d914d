package shell

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestGitActions_PushHoweverSpelled: a push is git.push whatever its
// spelling (git's own program by path, an alias read from the
// configuration, send-pack, a remote helper), and git.push.force too when
// it may overwrite or delete what the remote holds; a git subcommand loopx
// cannot resolve is opaque.
func TestGitActions_PushHoweverSpelled(t *testing.T) {
	cfg := &GitConfig{Aliases: map[string]string{"p": "push", "fp": "push --force", "sp": "!git push origin +main",
		"st": "status", "loop": "loop"}}
	const push, force = "git.push", "git.push.force"
	for _, tc := range []struct {
		line    string
		cfg     *GitConfig
		actions []string
		opaque  bool
	}{
		{line: "git push origin main", actions: []string{push}},
		{line: "/usr/lib/git-core/git-push origin main", actions: []string{push}},
		{line: "git-send-pack --force host:repo main", actions: []string{push, force}},
		{line: "git send-pack host:repo +main", actions: []string{push, force}},
		{line: "git push -f origin main", actions: []string{push, force}},
		{line: "git push origin main --force", actions: []string{push, force}},
		{line: "git push origin +main", actions: []string{push, force}},
		{line: "git push -uf origin main", actions: []string{push, force}},
		{line: "git push --forc origin main", actions: []string{push, force}},
		{line: "git push --force-with-lease origin main", actions: []string{push, force}},
		{line: "git push --force-with-lease=main:abc origin main", actions: []string{push, force}},
		{line: "git push --mirror backup", actions: []string{push, force}},
		{line: "git push origin :old", actions: []string{push, force}},
		{line: "git push --delete origin old", actions: []string{push, force}},
		{line: "git push -d origin old", actions: []string{push, force}},
		{line: "git push --prune origin", actions: []string{push, force}},
		{line: "git push origin $BRANCH", actions: []string{push, force}, opaque: true},
		{line: "git -c 'remote.origin.push=+refs/heads/*:refs/heads/*' push", actions: []string{push, force}},
		{line: "git push", cfg: &GitConfig{ForcePush: true}, actions: []string{push, force}},
		{line: "git push origin main", cfg: &GitConfig{ForcePush: true}, actions: []string{push}},
		{line: "git push", actions: []string{push}},
		{line: "git push -o force origin main", actions: []string{push}},
		{line: "git push --no-force origin main", actions: []string{push}},
		{line: "git push --tags origin", actions: []string{push}},
		{line: "git subtree push --prefix=x origin main", actions: []string{push}},
		{line: "git lfs push origin main", actions: []string{push}},
		{line: "git remote-https origin https://example.com/r.git", actions: []string{push, force}, opaque: true},
		{line: "git p origin main", cfg: cfg, actions: []string{push}},
		{line: "git P origin main", cfg: cfg, actions: []string{push}},
		{line: "git fp origin main", cfg: cfg, actions: []string{push, force}},
		{line: "git sp", cfg: cfg, actions: []string{push, force}},
		{line: "git st", cfg: cfg},
		{line: "git p origin main", opaque: true}, // no configuration read
		{line: "git p origin main", cfg: &GitConfig{Aliases: cfg.Aliases, Unsure: true}, opaque: true}, // an include could override it
		{line: "git -C ../other p origin main", cfg: cfg, opaque: true},                                // another repository's aliases
		{line: "git p origin $B", cfg: cfg, opaque: true},
		{line: "git frobnicate", opaque: true},
		{line: "git loop", cfg: cfg, opaque: true},
		{line: "git status", actions: nil},
		{line: "git commit -qam x && git merge side", actions: []string{"git.commit", "git.merge"}},
	} {
		cl := ReadWith(tc.line, Options{Git: tc.cfg})
		if !reflect.DeepEqual(cl.Actions, tc.actions) || (len(cl.Opaque) > 0) != tc.opaque {
			t.Errorf("%q → actions %q, opaque %q; want %q, opaque %v", tc.line, cl.Actions, cl.Opaque, tc.actions, tc.opaque)
		}
		for i, acts := range cl.ArgvActions {
			for _, a := range acts {
				if !slices.Contains(cl.Actions, a) {
					t.Errorf("%q: argv %d's action %s is not among the line's", tc.line, i, a)
				}
			}
		}
	}
}

// TestNormalisedArgv: glob patterns match the normalised argv: the
// program's base name (git's own programs as git subcommands), leading
// NAME=value words and wrappers dropped, git's -C DIR and -c KEY=VALUE
// dropped.
func TestNormalisedArgv(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"git push origin main", "git push origin main"},
		{"/usr/bin/git push origin main", "git push origin main"},
		{"/usr/lib/git-core/git-push origin main", "git push origin main"},
		{"FOO=1 BAR=2 git push origin main", "git push origin main"},
		{"git -C sub -c core.quotepath=off push origin main", "git push origin main"},
		{"env FOO=1 /usr/local/bin/npm publish", "npm publish"},
		{"sudo -u deploy npm publish --tag next", "npm publish --tag next"},
		{"nice -n 5 timeout 10 ./bin/loopx status", "loopx status"},
		{"command git tag v1", "git tag v1"},
	} {
		cl := Read(tc.line)
		if len(cl.Argvs) == 0 || strings.Join(cl.Argvs[len(cl.Argvs)-1], " ") != tc.want {
			t.Errorf("%q → %q, want %q", tc.line, cl.Commands, tc.want)
		}
	}
}

// TestParseGitConfig: what git reads, loopx reads the same; what it does
// not read exactly (includes, malformed lines) makes the result unsure.
func TestParseGitConfig(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		aliases    map[string]string
		force      bool
		unsure     bool
		hooks      []string // core.hooksPath values
		includes   []string
	}{
		{name: "aliases", text: "[alias]\n\tp = push\n\tCO = checkout  # a comment\n\tsq = \"!git rebase -i \\\"$1\\\"\" ; c\n",
			aliases: map[string]string{"p": "push", "co": "checkout", "sq": `!git rebase -i "$1"`}},
		{name: "the last one wins", text: "[alias]\np = status\n[alias]\np = push\n", aliases: map[string]string{"p": "push"}},
		{name: "continuation", text: "[alias]\n\tp = pu\\\nsh\n", aliases: map[string]string{"p": "push"}},
		{name: "on the header's line", text: "[alias] p = push\n", aliases: map[string]string{"p": "push"}},
		{name: "a subsection is no alias", text: "[alias \"x\"]\n\tp = push\n", aliases: map[string]string{}},
		{name: "a forcing push refspec", text: "[remote \"origin\"]\n\turl = x\n\tpush = +refs/heads/*:refs/heads/*\n", aliases: map[string]string{}, force: true},
		{name: "a mirror", text: "[remote \"backup\"]\n\tmirror\n", aliases: map[string]string{}, force: true},
		{name: "the old subsection form", text: "[remote.origin]\n\tmirror = true\n", aliases: map[string]string{}, force: true},
		{name: "a plain push refspec", text: "[remote \"origin\"]\n\tpush = refs/heads/main\n", aliases: map[string]string{}},
		{name: "an include", text: "[include]\n\tpath = ~/x\n[alias]\n\tp = push\n", aliases: map[string]string{}, unsure: true, includes: []string{"~/x"}},
		{name: "an includeIf", text: "[alias]\n\tp = push\n[includeIf \"gitdir:~/w/\"]\n\tpath = w\n", aliases: map[string]string{"p": "push"}, unsure: true, includes: []string{"w"}},
		{name: "hooks paths, after an include too", text: "[core]\n\thooksPath = .githooks\n[include]\n\tpath = x\n[Core]\n\tHOOKSPATH = \"~/h\"\n[core \"x\"]\n\thookspath = no\n",
			aliases: map[string]string{}, unsure: true, hooks: []string{".githooks", "~/h"}, includes: []string{"x"}},
		{name: "an unterminated quote", text: "[alias]\n\tp = \"push\n", aliases: map[string]string{}, unsure: true},
		{name: "outside any section", text: "p = push\n", aliases: map[string]string{}, unsure: true},
		{name: "an unknown escape", text: "[alias]\n\tp = pu\\sh\n", aliases: map[string]string{}, unsure: true},
	} {
		c, err := ParseGitConfig(tc.text)
		if !reflect.DeepEqual(c.Aliases, tc.aliases) || c.ForcePush != tc.force || c.Unsure != tc.unsure || (err != nil) != tc.unsure ||
			!reflect.DeepEqual(c.HooksPaths, tc.hooks) || !reflect.DeepEqual(c.Includes, tc.includes) {
			t.Errorf("%s: %+v (err %v); want aliases %v force %v unsure %v", tc.name, c, err, tc.aliases, tc.force, tc.unsure)
		}
	}
}

// FuzzParseGitConfig: the parser of a file an agent may write never panics
// and an error always makes the result unsure.
func FuzzParseGitConfig(f *testing.F) {
	for _, s := range []string{"[alias]\n\tp = push\n", "[remote \"o\"]\n\tpush = +a:b\n", "[a.b]\nc\n", "[x \"y\\\"\"] k = \"v\\\n w\" ;c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseGitConfig(s)
		if err != nil && !c.Unsure {
			t.Fatalf("an error without unsure: %v", err)
		}
	})
}
