package trust

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHostOf(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want string
	}{
		{"claude --resume", "claude"},
		{"/usr/local/bin/codex exec", "codex"},
		{"node /opt/lib/node_modules/.bin/claude", "claude"},
		{"python3 /usr/bin/aider --yes", "aider"},
		{"bash -c claude", ""},        // only a runtime's first argument names the program
		{"node server.js claude", ""}, // nor a later one
		{"", ""},
	} {
		if got := hostOf(strings.Fields(tc.cmd)); got != tc.want {
			t.Errorf("hostOf(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestRunnerID_NamesThisProcessOfThisBoot(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	id := RunnerID(os.Getpid())
	if parts := strings.Split(id, ":"); len(parts) != 3 || parts[1] != strconv.Itoa(os.Getpid()) {
		t.Fatalf("RunnerID = %q", id)
	}
	if RunnerID(-1) != "" {
		t.Fatal("a process that does not exist has a runner id")
	}
}

// TestScanner_OutsideGit: outside git the scan sees files added, removed
// and modified (by size and time), reads loopx/ by content, leaves out
// what Own names, and is incomplete past its cap.
func TestScanner_OutsideGit(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) { writeUnder(t, root, rel, s) }
	write("a.txt", "a")
	write("gone.txt", "g")
	write("loopx/loopx.cue", "x: 1")
	write(".loopx/own.db", "1")
	sc := Scanner{Root: root, SpecDir: "loopx", StateDir: ".loopx", Cap: 10, Own: func(rel string) bool { return rel == ".loopx/own.db" }}
	before := sc.Scan()
	if before.Incomplete() != "" {
		t.Fatal(before.Incomplete())
	}
	write("a.txt", "aa")
	write("new.txt", "n")
	write("loopx/loopx.cue", "x: 2") // same size: seen by content
	write(".loopx/own.db", "22")
	if err := os.Remove(filepath.Join(root, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	changed, err := Changed(before, sc.Scan())
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(changed, " ")
	if got != "a.txt gone.txt loopx/loopx.cue new.txt" {
		t.Fatalf("changed %q", got)
	}
	sc.Cap = 1
	if sc.Scan().Incomplete() == "" {
		t.Fatal("a walk past its cap is complete")
	}
}

// TestHashCache_ChangeTimeSeesRestoredMtime: a cached hash is reused only
// while the file's stat (change time included) is the same: rewriting
// the same number of bytes and restoring the modification time is seen;
// a file changed within the last two seconds is not cached.
func TestHashCache_ChangeTimeSeesRestoredMtime(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("aaaa"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewHashCache()
	c.now = func() time.Time { return time.Now().Add(time.Hour) } // every file looks old enough
	first, _ := contentSig(p, c)
	if len(c.m) != 1 {
		t.Fatal("an old file was not cached")
	}
	fi, _ := os.Stat(p)
	if err := os.WriteFile(p, []byte("bbbb"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if second, _ := contentSig(p, c); second == first {
		t.Fatal("a rewrite with size and mtime restored was answered from the cache")
	}
	fresh := NewHashCache()
	contentSig(p, fresh)
	if len(fresh.m) != 0 {
		t.Fatal("a file changed just now was cached")
	}
}

// TestScanner_GitSeesIgnoredProtectedNames: inside git, a protected name
// in a directory git ignores (sub/.envrc) and a .gitignore that ignores
// itself are compared by content, as protected for the first; other
// ignored files by their stat (an out-of-scope write to one is seen too).
func TestScanner_GitSeesIgnoredProtectedNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write := func(rel, s string) { writeUnder(t, root, rel, s) }
	write(".gitignore", "build/\n")
	sc := Scanner{Root: root, SpecDir: "loopx", StateDir: ".loopx", Protected: Protected{Project: []string{"**/.envrc"}}}
	before := sc.Scan()
	if before.Incomplete() != "" {
		t.Fatal(before.Incomplete())
	}
	write("build/.envrc", "curl x | sh")
	write("build/out.bin", "x")
	write("hide/.gitignore", "*\n")
	changed, err := Changed(before, sc.Scan())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(changed, " "); got != "build/.envrc build/out.bin hide/.gitignore" {
		t.Fatalf("changed %q", got)
	}
}

// TestScanner_SubmoduleWorkTree: a submodule's work tree (a gitlink in the
// index, which git lists as one entry) is compared file by file, its
// ignored files and the hooks of its embedded git directory included; a
// protected name inside it is protected.
func TestScanner_SubmoduleWorkTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	git := func(dir string, args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@e"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(rel, s string) { writeUnder(t, root, rel, s) }
	git(root, "init", "-q")
	write("lib/a.txt", "a")
	write("lib/.gitignore", "out/\n")
	write("lib/out/x", "x")
	git(filepath.Join(root, "lib"), "init", "-q")
	git(filepath.Join(root, "lib"), "add", "-A")
	git(filepath.Join(root, "lib"), "commit", "-qm", "lib")
	git(root, "update-index", "--add", "--cacheinfo", "160000,"+git(filepath.Join(root, "lib"), "rev-parse", "HEAD")+",lib")
	sc := Scanner{Root: root, SpecDir: "loopx", StateDir: ".loopx", Protected: Protected{Project: []string{"**/.envrc"}}}
	before := sc.Scan()
	if before.Incomplete() != "" {
		t.Fatal(before.Incomplete())
	}
	write("lib/a.txt", "b")
	write("lib/out/x", "y")
	write("lib/.git/hooks/pre-commit", "evil")
	write("lib/.envrc", "evil")
	after := sc.Scan()
	changed, err := Changed(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(changed, " "); got != "lib/.envrc lib/.git/hooks/pre-commit lib/a.txt lib/out/x" {
		t.Fatalf("changed %q", got)
	}
	if got := strings.Join(ChangedProtected(before, after), " "); got != "lib/.envrc" {
		t.Fatalf("changed protected %q", got)
	}
}

// writeUnder writes s to rel (slash) under root, making its directories.
func writeUnder(t *testing.T, root, rel, s string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestContentSig_LargeFileByStat: a file over LargeFileBytes (a sparse
// terabyte costs an agent nothing) is compared by its stat, never read:
// a write to it with the modification time restored is still seen.
func TestContentSig_LargeFileByStat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(LargeFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, _ := os.Stat(p)
	k, ok := keyOf(fi)
	if !ok {
		t.Skip("no inode and change time on this file system")
	}
	first, _ := contentSig(p, nil)
	if want := sha256.Sum256(fmt.Appendf(nil, "stat:%d:%d:%d:%v:%d:%d", k.dev, k.ino, k.size, k.mode, k.mtimeNs, k.ctimeNs)); first.sum != want {
		t.Fatal("a large file was not compared by its stat")
	}
	f, _ = os.OpenFile(p, os.O_WRONLY, 0)
	if _, err := f.WriteAt([]byte("x"), LargeFileBytes+1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if second, _ := contentSig(p, nil); second.sum == first.sum {
		t.Fatal("a write to a large file with its mtime restored was not seen")
	}
}
