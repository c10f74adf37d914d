package confine

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layout makes a work tree with loopx's files and git's directory, a home
// with Claude Code's state, and a state directory, and returns their
// layout.
func layout(t *testing.T) Layout {
	t.Helper()
	base := t.TempDir()
	root, home, state := filepath.Join(base, "w"), filepath.Join(base, "home"), filepath.Join(base, "state", "loopx")
	for _, d := range []string{root + "/loopx", root + "/.loopx", root + "/.git/hooks", home + "/.claude", state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{root + "/.git/config", home + "/.claude/settings.json", home + "/.claude.json"} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Layout{Root: root, GitDir: root + "/.git", Home: home, HomeWritable: []string{".claude", ".claude.json", ".codex"},
		ProjectProtected: []string{"loopx/**", ".loopx/**", "**/.claude/settings*.json", "**/.codex/hooks.json", "**/.codex/config.toml",
			".git/hooks/**", ".git/config", ".git/config.worktree", ".git/worktrees/*/config*", "**/.envrc"},
		HomeProtected: []string{".claude/settings*.json", ".codex/config.toml", ".gitconfig"},
		Hidden:        []string{state},
	}
}

func TestPrepare_Mounts(t *testing.T) {
	l := layout(t)
	s, err := Prepare("/usr/bin/bwrap", l)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Mounts()
	// Each entry must be there, in this order: writable before the
	// read-only files inside it, hidden last.
	want := []string{
		"ro /", "hidden /tmp", "rw " + l.Root, "rw " + l.Home + "/.claude", "rw " + l.Home + "/.claude.json",
		"ro " + l.Root + "/loopx", "ro " + l.Root + "/.loopx", "ro " + l.Root + "/.claude", "ro " + l.Root + "/.codex",
		"ro " + l.Root + "/.git/hooks", "ro " + l.Root + "/.git/config", "ro " + l.Root + "/.envrc",
		"ro " + l.Home + "/.claude/settings.json", "hidden " + l.Hidden[0],
	}
	at := 0
	for _, w := range want {
		i := slices.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("mount %q missing or out of order in\n%s", w, strings.Join(got, "\n"))
		}
		at += i + 1
	}
	for _, no := range []string{"ro " + l.Root + "/.git/config.worktree", "ro " + l.Home + "/.gitconfig", "rw " + l.Home + "/.codex"} {
		if slices.Contains(got, no) {
			t.Errorf("mount %q: not wanted (missing and not below a writable path, or read-only already)", no)
		}
	}
	// The missing protected paths below the work tree got placeholders:
	// .claude/ and .codex/ (directories), .envrc (a file).
	wantPH := []string{l.Root + "/.claude", l.Root + "/.codex", l.Root + "/.envrc"}
	if !slices.Equal(s.Placeholders, wantPH) {
		t.Fatalf("placeholders %v, want %v", s.Placeholders, wantPH)
	}
	Cleanup(s.Placeholders)
	for _, p := range wantPH {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("Cleanup left %s", p)
		}
	}
}

func TestCleanup_KeepsWhatIsNoLongerEmpty(t *testing.T) {
	dir := t.TempDir()
	f, d := filepath.Join(dir, ".envrc"), filepath.Join(dir, ".codex")
	if err := os.WriteFile(f, []byte("export X=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(d, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	Cleanup([]string{f, d})
	for _, p := range []string{f, d} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("Cleanup removed %s, which holds something", p)
		}
	}
}

func TestPrepare_VisibleSocketIsHidden(t *testing.T) {
	l := layout(t)
	sock := filepath.Join(l.Root, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix socket here: %v", err)
	}
	defer ln.Close()
	l.Sockets = []string{sock}
	s, err := Prepare("/usr/bin/bwrap", l)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Mounts(), "ro "+sock) {
		t.Fatalf("the socket %s is not covered: %v", sock, s.Mounts())
	}
	Cleanup(s.Placeholders)
}

// TestSandbox_WritesOnlyWhereWritable runs a shell in the sandbox (where
// bubblewrap confines): the work tree is writable, loopx/ and the git
// hooks are not, a missing protected file cannot be created, the hidden
// directory shows nothing.
func TestSandbox_WritesOnlyWhereWritable(t *testing.T) {
	bwrap, err := Bwrap()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no confinement under CI: %v", err)
		}
		t.Skip(err)
	}
	l := layout(t)
	if err := os.WriteFile(filepath.Join(l.Hidden[0], "token"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Prepare(bwrap, l)
	if err != nil {
		t.Fatal(err)
	}
	defer Cleanup(s.Placeholders)
	script := `try() { if sh -c "$1" 2>/dev/null; then echo "$1: yes"; else echo "$1: no"; fi; }
try 'echo x > work.txt'
try 'echo x > loopx/x'
try 'echo x > .git/hooks/pre-commit'
try 'echo x > .envrc'
try 'mkdir .codex/x'
try 'echo x > ` + l.Home + `/.claude/history'
try 'echo x > ` + l.Home + `/.claude/settings.json'
try 'cat ` + l.Hidden[0] + `/token'
try 'echo x > ` + l.Home + `/.bashrc'
`
	argv := s.Command([]string{"/bin/sh", "-c", script})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = l.Root
	cmd.Env = s.Env(os.Environ(), "")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := `echo x > work.txt: yes
echo x > loopx/x: no
echo x > .git/hooks/pre-commit: no
echo x > .envrc: no
mkdir .codex/x: no
echo x > ` + l.Home + `/.claude/history: yes
echo x > ` + l.Home + `/.claude/settings.json: no
cat ` + l.Hidden[0] + `/token: no
echo x > ` + l.Home + `/.bashrc: yes
`
	if string(out) != want {
		t.Fatalf("inside the sandbox:\n%s\nwant:\n%s", out, want)
	}
	// The home directory here is below /tmp, which is private inside: a
	// write there lands in the sandbox's own /tmp, never in the home.
	if _, err := os.Lstat(filepath.Join(l.Home, ".bashrc")); err == nil {
		t.Errorf("the sandbox wrote %s/.bashrc", l.Home)
	}
}

// TestSandbox_HidesSecrets runs a shell in the sandbox: the credential
// stores in Hidden (a directory, a file) show nothing, the rest of the
// home directory shows.
func TestSandbox_HidesSecrets(t *testing.T) {
	bwrap, err := Bwrap()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no confinement under CI: %v", err)
		}
		t.Skip(err)
	}
	l := layout(t)
	// The home directory is below the private /tmp here: shown again, as
	// a home outside /tmp is.
	l.Visible = append(l.Visible, l.Home)
	for f, content := range map[string]string{".ssh/id_ed25519": "KEY", ".git-credentials": "https://u:TOKEN@example.com", ".aws/credentials": "TOKEN", "notes.txt": "seen"} {
		p := filepath.Join(l.Home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l.Hidden = append(l.Hidden, l.Home+"/.ssh", l.Home+"/.git-credentials", l.Home+"/.aws", l.Home+"/.netrc")
	s, err := Prepare(bwrap, l)
	if err != nil {
		t.Fatal(err)
	}
	defer Cleanup(s.Placeholders)
	script := `for f in .ssh/id_ed25519 .git-credentials .aws/credentials .netrc notes.txt; do
	printf '%s: %s\n' "$f" "$(cat "$HOME/$f" 2>/dev/null)"
done
`
	argv := s.Command([]string{"/bin/sh", "-c", script})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = l.Root
	cmd.Env = append(s.Env(os.Environ(), ""), "HOME="+l.Home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := `.ssh/id_ed25519: 
.git-credentials: 
.aws/credentials: 
.netrc: 
notes.txt: seen
`
	if string(out) != want {
		t.Fatalf("inside the sandbox:\n%s\nwant:\n%s", out, want)
	}
}

// TestSandbox_HostCodeIsReadOnly runs a shell in the sandbox: in the
// host's writable home directory, its state is writable, and what runs
// code or instructs the agent (hook scripts, commands, CLAUDE.md) is not,
// existing or not.
func TestSandbox_HostCodeIsReadOnly(t *testing.T) {
	bwrap, err := Bwrap()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no confinement under CI: %v", err)
		}
		t.Skip(err)
	}
	l := layout(t)
	l.HomeProtected = append(l.HomeProtected, ".claude/hooks/**", ".claude/commands/**", ".claude/CLAUDE.md")
	if err := os.MkdirAll(l.Home+"/.claude/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.Home+"/.claude/hooks/fmt.sh", []byte("gofmt -w .\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Prepare(bwrap, l)
	if err != nil {
		t.Fatal(err)
	}
	defer Cleanup(s.Placeholders)
	script := `try() { if sh -c "$1" 2>/dev/null; then echo "$1: yes"; else echo "$1: no"; fi; }
try 'echo x > .claude/history.jsonl'
try 'echo x > .claude/hooks/fmt.sh'
try 'echo x > .claude/hooks/new.sh'
try 'mkdir -p .claude/commands && echo x > .claude/commands/review.md'
try 'echo x > .claude/CLAUDE.md'
`
	argv := s.Command([]string{"/bin/sh", "-c", script})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = l.Home
	cmd.Env = s.Env(os.Environ(), "")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := `echo x > .claude/history.jsonl: yes
echo x > .claude/hooks/fmt.sh: no
echo x > .claude/hooks/new.sh: no
mkdir -p .claude/commands && echo x > .claude/commands/review.md: no
echo x > .claude/CLAUDE.md: no
`
	if string(out) != want {
		t.Fatalf("inside the sandbox:\n%s\nwant:\n%s", out, want)
	}
}

// TestShown_PathDirectoriesAndWhatTheyLinkTo: a PATH directory a private
// directory hides is shown, with the directory it shares with what its
// programs link to (npm's node_modules/.bin), never the private directory
// itself nor a directory it does not hide.
func TestShown_PathDirectoriesAndWhatTheyLinkTo(t *testing.T) {
	priv := t.TempDir()
	nm := filepath.Join(priv, "hosts", "node_modules")
	for _, d := range []string{nm + "/.bin", nm + "/@x/host/bin", priv + "/own/bin", priv + "/elsewhere"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(nm+"/@x/host/bin/host.js", nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{nm + "/.bin/host": "../@x/host/bin/host.js", priv + "/own/bin/far": "../../elsewhere", priv + "/own/bin/gone": "../nothing"} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name    string
		visible []string
		want    []string
	}{
		{"npm's .bin with the packages it links into", []string{nm + "/.bin"}, []string{nm}},
		{"a link whose shared directory is the private one", []string{priv + "/own/bin"}, []string{priv + "/own/bin"}},
		{"not hidden", []string{"/usr/bin"}, nil},
		{"missing", []string{priv + "/nope"}, nil},
		{"below another shown", []string{nm + "/.bin", nm + "/@x/host/bin"}, []string{nm}},
	} {
		if got := shown(tt.visible, []string{priv}); !slices.Equal(got, tt.want) {
			t.Errorf("%s: shown(%v) = %v, want %v", tt.name, tt.visible, got, tt.want)
		}
	}
}

// TestProfile_SamePlan: the macOS profile refuses every write but where
// the Linux sandbox allows one, refuses the protected paths again, a
// missing one too, and hides the hidden directories and sockets.
func TestProfile_SamePlan(t *testing.T) {
	l := layout(t)
	l.Sockets = []string{"/tmp/agent.sock"}
	p := Profile(l)
	for _, want := range []string{
		"(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*",
		"(subpath \"" + l.Root + "\")",
		"(subpath \"" + l.Home + "/.claude\")",
		"(subpath \"" + l.Root + "/loopx\")",
		"(subpath \"" + l.Root + "/.git/hooks\")",
		"(literal \"" + l.Root + "/.git/config\")",
		"(literal \"" + l.Root + "/.envrc\")", // missing: refused all the same
		"(literal \"" + l.Home + "/.claude/settings.json\")",
		"(deny file-read* file-write* (subpath \"" + l.Hidden[0] + "\"))",
		"(deny network-outbound (remote unix-socket (path-literal \"/tmp/agent.sock\")))",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the profile lacks %q:\n%s", want, p)
		}
	}
	if strings.Index(p, "(deny file-write*\n") < strings.Index(p, "(allow file-write*") {
		t.Errorf("the protected paths are refused before the writable ones are allowed (the last rule wins):\n%s", p)
	}
	if got := sbplString(`a"b\c`); got != `"a\"b\\c"` {
		t.Errorf("sbplString = %s", got)
	}
}
