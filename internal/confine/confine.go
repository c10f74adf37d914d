// Package confine builds the operating system's wall around an agent
// command on Linux: a bubblewrap sandbox with its own PID namespace in
// which the work tree is writable except loopx's and git's own files and
// the agent hosts' settings, the home directory is read-only except the
// hosts' state and what the spec grants, /tmp and /run are private, and
// loopx's state directory (the anchor) is not there at all. Which files
// are protected comes from the caller (the one protected list); this
// package only turns paths into mounts.
package confine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// BrokerDir is where the sandbox shows the directory holding the broker's
// socket (the socket is BrokerDir/broker.sock).
const BrokerDir = "/run/loopx"

// bwrapPaths are where bubblewrap is looked for, system locations first:
// a bwrap an agent put earlier in PATH is never the one loopx runs.
var bwrapPaths = []string{"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"}

// TestBwrapEnv names, in a test build only (a binary `go test` built,
// testing.Testing), the list of places (separated as PATH is) bubblewrap
// is looked for instead of bwrapPaths: a script makes bubblewrap missing
// with it. A release build ignores it.
const TestBwrapEnv = "LOOPX_TEST_BWRAP"

// lookIn are the places Bwrap looks for bubblewrap: bwrapPaths, or in a
// test build those TestBwrapEnv lists.
func lookIn() []string {
	if v := os.Getenv(TestBwrapEnv); v != "" && testing.Testing() {
		return filepath.SplitList(v)
	}
	return bwrapPaths
}

// Bwrap returns bubblewrap's executable, or why there is none usable: not
// installed, or it cannot make a sandbox here (no user namespaces for an
// unprivileged user, a container that forbids them). The answer is found
// once per process by running a sandbox of the kind Command makes.
// On macOS it is sandbox-exec's instead (seatbelt.go).
var Bwrap = sync.OnceValues(func() (string, error) {
	if runtime.GOOS == "darwin" {
		return sandboxExec()
	}
	path := ""
	for _, p := range lookIn() {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			path = p
			break
		}
	}
	if path == "" {
		return "", errors.New("bubblewrap (bwrap) is not installed (Debian and Ubuntu: apt-get install bubblewrap)")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--unshare-pid", "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--", "/bin/true")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" {
			why = err.Error()
		}
		return "", fmt.Errorf("%s cannot make a sandbox here: %s (unprivileged users need user namespaces: sysctl kernel.unprivileged_userns_clone=1, or AppArmor's kernel.apparmor_restrict_unprivileged_userns=0)", path, why)
	}
	return path, nil
})

// Layout is what a sandbox is made of: every path absolute and clean.
type Layout struct {
	// Root is the work tree, writable inside (its real path).
	Root string
	// GitDir is git's common directory of the work tree ("" outside git):
	// writable inside when it is outside Root (a linked worktree), its
	// hooks, config, info, modules and worktrees' configs read-only.
	GitDir string
	// HooksPath is the hooks directory the repository's config names
	// (core.hooksPath, absolute; "" when none): read-only inside.
	HooksPath string
	// Home is the user's home directory: read-only inside but for
	// HomeWritable and Writable.
	Home string
	// HomeWritable are paths relative to Home writable inside when they
	// exist (the agent hosts' state, toolchain caches).
	HomeWritable []string
	// Writable are further paths writable inside (the spec's grants,
	// expanded), each outside Root.
	Writable []string
	// ProjectProtected are the protected globs relative to Root (a "**/"
	// one is applied at Root, one starting with ".git/" to GitDir).
	ProjectProtected []string
	// HomeProtected are the protected globs relative to Home; they matter
	// where Home is writable inside.
	HomeProtected []string
	// Hidden are paths not visible inside at all: directories (loopx's
	// state directory, which holds the anchors and any token of loopx's;
	// the home's credential stores) show empty, files as /dev/null.
	Hidden []string
	// Visible are directories shown read-only inside although a private
	// /tmp or /run would hide them (the PATH directories loopx and the
	// agent's tools run from).
	Visible []string
	// Broker is the directory holding the broker's socket, shown at
	// BrokerDir ("" for none).
	Broker string
	// Sockets are pathname sockets to hide wherever they are (the
	// ssh-agent's socket).
	Sockets []string
}

// mount is one bubblewrap mount operation: op ("--bind", "--ro-bind",
// "--tmpfs") from src (bind only) to dst.
type mount struct{ op, src, dst string }

// Sandbox is a prepared sandbox: the mounts of a Layout and the
// placeholders made for protected paths that did not exist.
type Sandbox struct {
	bwrap  string
	mounts []mount
	// profile is the sandbox-exec profile on macOS (seatbelt.go), in place
	// of mounts; broker is then the broker's directory as it is.
	profile, broker string
	// Placeholders are the protected paths that did not exist, made empty
	// (a file, or a directory for a directory or a missing parent) so
	// that they are mounted read-only inside and cannot be created there;
	// Cleanup removes those still empty once no sandbox needs them.
	Placeholders []string
}

// Prepare returns the sandbox of l, making a placeholder for every
// protected path that does not exist below a writable one (bubblewrap
// can only mount read-only what exists). bwrap is bubblewrap's executable
// (Bwrap). Errors: a placeholder cannot be made.
func Prepare(bwrap string, l Layout) (*Sandbox, error) {
	if runtime.GOOS == "darwin" {
		return &Sandbox{bwrap: bwrap, profile: Profile(l), broker: l.Broker}, nil
	}
	s := &Sandbox{bwrap: bwrap}
	add := func(op, src, dst string) { s.mounts = append(s.mounts, mount{op, src, dst}) }
	add("--ro-bind", "/", "/")
	add("--dev", "", "/dev")
	add("--proc", "", "/proc")
	private := []string{"/tmp", "/run", "/dev/shm"}
	if fi, err := os.Lstat("/var/run"); err == nil && fi.IsDir() {
		private = append(private, "/var/run")
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) && !under(x, "/run") {
		private = append(private, filepath.Clean(x))
	}
	for _, p := range private {
		if isDir(p) {
			add("--tmpfs", "", p)
		}
	}
	// What a private directory hid that the agent runs from.
	for _, v := range shown(l.Visible, private) {
		add("--ro-bind", v, v)
	}
	writable := []string{l.Root}
	add("--bind", l.Root, l.Root)
	if l.GitDir != "" && !under(l.GitDir, l.Root) && isDir(l.GitDir) {
		writable = append(writable, l.GitDir)
		add("--bind", l.GitDir, l.GitDir)
	}
	for _, h := range l.HomeWritable {
		p := filepath.Join(l.Home, h)
		if exists(p) {
			writable = append(writable, p)
			add("--bind", p, p)
		}
	}
	for _, p := range l.Writable {
		if exists(p) {
			writable = append(writable, p)
			add("--bind", p, p)
		}
	}
	isWritable := func(p string) bool {
		return slices.ContainsFunc(writable, func(w string) bool { return under(p, w) })
	}
	readOnly := func(p string, dir bool) error {
		if !isWritable(p) {
			return nil // read-only already (below / or the home directory)
		}
		if _, err := os.Lstat(p); err == nil {
			add("--ro-bind", p, p)
			return nil
		}
		if parent := filepath.Dir(p); parent != l.Root && emptyDir(parent) {
			// An empty directory (another sandbox's placeholder) is made
			// read-only whole rather than given a file of its own.
			add("--ro-bind", parent, parent)
			return nil
		}
		ph, err := s.placeholder(p, dir, isWritable)
		if err != nil {
			return err
		}
		add("--ro-bind", ph, ph)
		return nil
	}
	for _, t := range targets(l) {
		if t.glob {
			matches, _ := doublestar.FilepathGlob(t.path, doublestar.WithNoFollow())
			for _, m := range matches {
				if err := readOnly(m, false); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := readOnly(t.path, t.dir); err != nil {
			return nil, err
		}
	}
	for _, h := range l.Hidden {
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			add("--tmpfs", "", h)
		} else if err == nil {
			add("--ro-bind", "/dev/null", h)
		}
	}
	for _, sock := range l.Sockets {
		if fi, err := os.Stat(sock); err == nil && fi.Mode()&fs.ModeSocket != 0 && isVisible(sock, private, l.Hidden, append(writable, l.Visible...)) {
			add("--ro-bind", "/dev/null", sock)
		}
	}
	if l.Broker != "" {
		add("--bind", l.Broker, BrokerDir)
	}
	return s, nil
}

// shown are the directories of visible (the PATH directories) that a
// private directory hides, to be shown read-only, parents first: each
// such directory, and with it the directory it shares with what its
// programs link to when that is hidden too (npm's node_modules/.bin links
// into node_modules: a host installed below /tmp runs inside), unless
// that shared directory is a private one itself.
func shown(visible, private []string) []string {
	hidden := func(p string) bool { return slices.ContainsFunc(private, func(d string) bool { return under(p, d) }) }
	var out []string
	for _, v := range visible {
		if !isDir(v) || !hidden(v) {
			continue
		}
		out = append(out, v)
		entries, _ := os.ReadDir(v)
		for _, e := range entries {
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			t, err := filepath.EvalSymlinks(filepath.Join(v, e.Name()))
			if err != nil || !hidden(t) || under(t, v) {
				continue
			}
			if c := commonDir(v, t); hidden(c) && !slices.Contains(private, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	// A directory below another one shown is shown with it.
	return slices.DeleteFunc(out, func(p string) bool {
		return slices.ContainsFunc(out, func(q string) bool { return q != p && under(p, q) })
	})
}

// commonDir is the deepest directory both a and b are in (absolute, clean).
func commonDir(a, b string) string {
	for d := a; ; d = filepath.Dir(d) {
		if under(b, d) {
			return d
		}
		if d == filepath.Dir(d) {
			return d
		}
	}
}

// target is one protected path: a file, a directory (dir), or a glob
// whose existing matches are protected one by one (glob).
type target struct {
	path      string
	dir, glob bool
}

// targets turns the protected globs of l into paths. A glob's wildcard-free
// directory prefix decides: "x/**" protects the directory x; a literal
// protects that file; a glob with wildcards below a directory protects
// that directory in the work tree (the project's .claude/ holds only
// settings and command files), and its existing matches plus the name
// without its '*' in the home directory and in git's directory (whose
// other files the agent's git writes).
func targets(l Layout) []target {
	var out []target
	resolve := func(base, rel string, wholeDir bool) {
		prefix, rest := splitGlob(rel)
		p := filepath.Join(base, filepath.FromSlash(prefix))
		switch {
		case rest == "":
			out = append(out, target{path: p})
		case rest == "**":
			out = append(out, target{path: p, dir: true})
		case wholeDir && prefix != "":
			out = append(out, target{path: p, dir: true})
		default:
			out = append(out, target{path: filepath.Join(base, filepath.FromSlash(rel)), glob: true})
			if lit := strings.ReplaceAll(rest, "*", ""); !strings.ContainsAny(lit, "?[{/") && prefix != "" {
				out = append(out, target{path: filepath.Join(p, lit)})
			}
		}
	}
	for _, g := range l.ProjectProtected {
		g = strings.TrimPrefix(g, "**/")
		if rel, ok := strings.CutPrefix(g, ".git/"); ok {
			if l.GitDir == "" {
				continue
			}
			if rel == "config.worktree" || strings.HasPrefix(rel, "worktrees/") {
				// Read only when the (read-only) config enables it: an
				// existing one is protected, a missing one does nothing.
				out = append(out, target{path: filepath.Join(l.GitDir, filepath.FromSlash(rel)), glob: true})
				continue
			}
			resolve(l.GitDir, rel, true)
			continue
		}
		resolve(l.Root, g, true)
	}
	if l.HooksPath != "" {
		out = append(out, target{path: l.HooksPath, dir: true})
	}
	for _, g := range l.HomeProtected {
		resolve(l.Home, g, false)
	}
	return out
}

// splitGlob splits a slash-separated glob into its wildcard-free
// directory prefix and the rest ("" when the glob is a literal path).
func splitGlob(g string) (prefix, rest string) {
	parts := strings.Split(g, "/")
	for i, p := range parts {
		if strings.ContainsAny(p, "*?[{") {
			return strings.Join(parts[:i], "/"), strings.Join(parts[i:], "/")
		}
	}
	return g, ""
}

// placeholder makes the missing protected path p (a directory when dir)
// empty, or, when its parent is missing too, the topmost missing
// directory above it below a writable path; it returns what it made.
func (s *Sandbox) placeholder(p string, dir bool, writable func(string) bool) (string, error) {
	top := p
	for parent := filepath.Dir(top); !exists(parent) && writable(filepath.Dir(parent)); parent = filepath.Dir(top) {
		top, dir = parent, true
	}
	if !exists(filepath.Dir(top)) {
		return "", fmt.Errorf("no directory to make a placeholder for %s in", p)
	}
	var err error
	if dir {
		err = os.Mkdir(top, 0o755)
	} else {
		var f *os.File
		f, err = os.OpenFile(top, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil && filepath.Base(top) == "commondir" {
			_, err = f.WriteString(CommondirPlaceholder)
		}
		if err == nil {
			err = f.Close()
		}
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("placeholder for the protected path %s: %w", p, err)
	}
	if err == nil {
		s.Placeholders = append(s.Placeholders, top)
	}
	return top, nil
}

// CommondirPlaceholder is what the placeholder of a git directory's
// missing commondir holds: git refuses to run with an empty one, and "."
// names the git directory itself, which is what no commondir means.
const CommondirPlaceholder = ".\n"

// IsPlaceholder reports whether the file p (fi its Lstat) holds what a
// placeholder holds: nothing, or CommondirPlaceholder for a commondir.
func IsPlaceholder(p string, fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	if fi.Size() == 0 {
		return true
	}
	if filepath.Base(p) != "commondir" || fi.Size() != int64(len(CommondirPlaceholder)) {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && string(b) == CommondirPlaceholder
}

// Cleanup removes the placeholders paths (Prepare's, of this sandbox or
// others) that are still empty directories or hold what they were made
// with (IsPlaceholder), deepest first;
// another sandbox's mounts on them go with them, so the caller calls it
// only when no other sandbox of the work tree runs.
func Cleanup(paths []string) {
	paths = slices.Clone(paths)
	slices.SortFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			_ = os.Remove(p) // fails unless empty
		} else if IsPlaceholder(p, fi) {
			_ = os.Remove(p)
		}
	}
}

// Command returns the bubblewrap command line that runs argv in the
// sandbox: its own PID namespace and /proc, a new session (no
// TIOCSTI into the caller's terminal), killed with its parent, and no
// capabilities (bubblewrap keeps them all for root unless told: root
// inside could unmount the read-only binds and the private /tmp).
func (s *Sandbox) Command(argv []string) []string {
	if s.profile != "" {
		return append([]string{s.bwrap, "-p", s.profile}, argv...)
	}
	out := []string{s.bwrap, "--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent", "--cap-drop", "ALL"}
	for _, m := range s.mounts {
		out = append(out, m.op)
		if m.src != "" {
			out = append(out, m.src)
		}
		out = append(out, m.dst)
	}
	return append(append(out, "--"), argv...)
}

// CloseInherited marks every file descriptor of this process above 2
// close-on-exec, so that none passes into a sandbox started after it: a
// descriptor the shell that started loopx left open (exec 8<dir) reaches,
// through /proc/self/fd, what the sandbox hides. Go opens its own
// close-on-exec; what a command is given on purpose (exec.Cmd's Stdin,
// ExtraFiles) is duplicated into the child whatever the flag. Errors:
// /proc/self/fd cannot be read.
func CloseInherited() error {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("the inherited file descriptors: %w", err)
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd) // the directory's own, closed by now, fails harmlessly
		}
	}
	return nil
}

// droppedEnv are the variables that name what the sandbox hides: the
// ssh-agent, the user's runtime directory and session bus, terminal
// multiplexers' servers, a docker daemon.
var droppedEnv = []string{"SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "TMUX", "TMUX_PANE", "STY", "DOCKER_HOST", "TMPDIR"}

// Env returns env for the sandbox: without droppedEnv, with TMPDIR=/tmp
// (the private one) and, with a broker, its socket (socketEnv, e.g.
// LOOPX_BROKER) at BrokerDir/broker.sock.
func (s *Sandbox) Env(env []string, socketEnv string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(droppedEnv, k) && k != socketEnv {
			out = append(out, kv)
		}
	}
	out = append(out, "TMPDIR=/tmp")
	switch {
	case socketEnv == "":
	case s.profile != "" && s.broker != "": // no mount: the socket where it is
		out = append(out, socketEnv+"="+filepath.Join(s.broker, "broker.sock"))
	default:
		out = append(out, socketEnv+"="+BrokerDir+"/broker.sock")
	}
	return out
}

// Mounts lists the sandbox's mounts for people, one per line ("rw PATH",
// "ro PATH", "hidden PATH"), in the order bubblewrap applies them.
func (s *Sandbox) Mounts() []string {
	var out []string
	for _, m := range s.mounts {
		switch m.op {
		case "--bind":
			out = append(out, "rw "+m.dst)
		case "--ro-bind":
			out = append(out, "ro "+m.dst)
		case "--tmpfs":
			out = append(out, "hidden "+m.dst)
		}
	}
	return out
}

func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func emptyDir(p string) bool {
	entries, err := os.ReadDir(p)
	return err == nil && len(entries) == 0
}

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

// isVisible reports whether p shows inside: not in a hidden directory,
// and outside every private one or in a path bound back (shown).
func isVisible(p string, private, hidden, shown []string) bool {
	in := func(dirs []string) bool { return slices.ContainsFunc(dirs, func(d string) bool { return under(p, d) }) }
	return !in(hidden) && (!in(private) || in(shown))
}
