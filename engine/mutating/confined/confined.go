// Package confined is loopx run's wall: it confines each round's agent
// command with package confine (the protected list decides what is
// read-only inside, loopx's state directory is hidden) and serves the
// command's own loopx calls on a broker socket bound into the sandbox
// (package broker), run outside as the round's agent and nothing else.
package confined

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/loopx-dev/loopx/engine/mutating/agentloop"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/broker"
	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/loopx-dev/loopx/internal/confine"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/safegit"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/loopx-dev/loopx/policies"
	"github.com/loopx-dev/loopx/specs"
	"github.com/open-policy-agent/opa/v1/rego"
)

// BrokeredEnv is set (to "1") in the environment of every loopx command
// the broker runs: such a command runs only what an agent's confinement may
// have run outside it (cmd/loopx's brokered check).
const BrokeredEnv = "LOOPX_BROKERED"

// HomeWritable are the home directory's paths an agent host or a
// toolchain writes while it runs, writable inside (their settings, hooks
// and MCP server lists stay read-only: the protected list's home part):
// Claude Code's ~/.claude/ and ~/.claude.json, Codex's ~/.codex/, and the
// usual caches.
var HomeWritable = []string{".claude", ".claude.json", ".codex", ".cache", ".npm", "go/pkg/mod", ".cargo/registry"}

// Options configure a Wall.
type Options struct {
	// Root is the project root (the work tree).
	Root string
	// Bwrap is bubblewrap's executable (confine.Bwrap).
	Bwrap string
	// Writable are the globs of further paths the spec grants (spec field
	// project.sandbox.writable: absolute, or "~/" for the home directory),
	// expanded as each wall is made; a match inside Root adds nothing.
	Writable []string
	// Audit records an audit event (a refused broker caller).
	Audit func(records.Event)
	// Env is the environment of the process that asked for the rounds,
	// whose PATH, HOME and SSH_AUTH_SOCK the layout reads (nil: this
	// process's).
	Env []string
	// Run, when set, runs each brokered loopx call in this process (a
	// loopx serve running loopx run for its client) instead of a loopx
	// process: the session, its caller the peer inside the sandbox (as
	// the kernel names it), and env, the round's environment with
	// BrokeredEnv, which is who the caller is. It returns the exit code.
	Run func(ctx context.Context, s *broker.Session, env []string) int
}

// getenv is key in o.Env (the first one), else this process's.
func (o Options) getenv(key string) string {
	if o.Env == nil {
		return os.Getenv(key)
	}
	for _, kv := range o.Env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// Wall confines rounds' commands (agentloop.Wall).
type Wall struct {
	o      Options
	layout confine.Layout
	exe    string
	lock   string // the anchor's sandbox lock: shared while a sandbox runs
}

var _ agentloop.Wall = (*Wall)(nil)

// New returns the wall of the project at o.Root: the layout from the
// protected list, the repository's git directory and hooks path, the
// home directory and loopx's state directory. Errors: no home directory,
// the project's anchor directory or loopx's executable cannot be found.
func New(o Options) (*Wall, error) {
	root, err := anchor.RealRoot(o.Root)
	if err != nil {
		return nil, err
	}
	home, err := os.UserHomeDir()
	if o.Env != nil {
		if home = o.getenv("HOME"); home == "" {
			err = errors.New("$HOME is not defined")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("confinement: no home directory: %w", err)
	}
	dir, err := anchor.Dir(root)
	if err != nil {
		return nil, err
	}
	stateBase, _ := anchor.Below(dir)
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("confinement: loopx's own executable: %w", err)
	}
	set := policies.Protected()
	var homeProtected []string
	for _, h := range set.Home {
		if !contains(set.HostState, h) { // rewritten whole by its host: writable (HomeWritable)
			homeProtected = append(homeProtected, h)
		}
	}
	homeProtected = append(homeProtected, set.HostCode...)
	l := confine.Layout{Root: root, Home: home, HomeWritable: HomeWritable, Writable: expand(o.Writable, home, root),
		ProjectProtected: set.Project(), HomeProtected: homeProtected,
		Hidden:  hidden(filepath.Join(stateBase, "loopx"), home, set),
		Visible: append(filepath.SplitList(o.getenv("PATH")), filepath.Dir(exe)),
	}
	for i, v := range l.Visible {
		l.Visible[i] = filepath.Clean(v)
	}
	if s := o.getenv("SSH_AUTH_SOCK"); filepath.IsAbs(s) {
		l.Sockets = append(l.Sockets, s)
	}
	l.GitDir, l.HooksPath = gitPaths(root)
	return &Wall{o: o, layout: l, exe: exe, lock: filepath.Join(dir, "sandbox.lock")}, nil
}

// under are the paths below home the relative names rel stand for.
func under(home string, rel []string) []string {
	out := make([]string, 0, len(rel))
	for _, r := range rel {
		out = append(out, filepath.Join(home, filepath.FromSlash(r)))
	}
	return out
}

// gitPaths are the work tree's common git directory and the hooks
// directory its config names (absolute), "" when not in git or none.
func gitPaths(root string) (gitDir, hooks string) {
	g := safegit.Git{Dir: root}
	out, err := g.Run("rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", ""
	}
	gitDir = filepath.Clean(strings.TrimSpace(string(out)))
	out, err = g.Run("config", "--file", filepath.Join(gitDir, "config"), "--get", "core.hooksPath")
	if h := strings.TrimSpace(string(out)); err == nil && h != "" {
		if strings.HasPrefix(h, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				h = filepath.Join(home, h[2:])
			}
		}
		if !filepath.IsAbs(h) {
			h = filepath.Join(root, h)
		}
		hooks = filepath.Clean(h)
	}
	return gitDir, hooks
}

// Layout is the wall's layout (without a round's broker).
func (w *Wall) Layout() confine.Layout { return w.layout }

// Enter makes round r's sandbox: placeholders for missing protected paths,
// a broker socket in a private directory, bound at confine.BrokerDir, that
// runs loopx outside with env (the round's identity) and BrokeredEnv for
// callers inside this sandbox only. Errors: the placeholders, the socket
// or the lock cannot be made.
func (w *Wall) Enter(ctx context.Context, r *records.Round, argv, env []string) (agentloop.Entered, error) {
	if err := confine.CloseInherited(); err != nil {
		return agentloop.Entered{}, err
	}
	lock, err := os.OpenFile(w.lock, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return agentloop.Entered{}, err
	}
	dir, err := socketDir(w.layout.Root)
	if err != nil {
		lock.Close()
		return agentloop.Entered{}, err
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "broker.sock"), Net: "unix"})
	if err != nil {
		lock.Close()
		os.RemoveAll(dir)
		return agentloop.Entered{}, err
	}
	layout := w.layout
	layout.Broker = dir
	sb, err := w.prepare(lock, layout)
	if err != nil {
		l.Close()
		lock.Close()
		os.RemoveAll(dir)
		return agentloop.Entered{}, err
	}
	var sandbox atomic.Int64
	srv := &broker.Server{Exe: w.exe, Dir: w.layout.Root, Env: append(withoutBroker(env), BrokeredEnv+"=1"),
		Peer: func(pid, uid int) error {
			root := int(sandbox.Load())
			if uid == os.Getuid() && root > 0 && broker.DescendsFrom(pid, root) {
				return nil
			}
			err := fmt.Errorf("process %d (uid %d) is not inside round %s's sandbox", pid, uid, r.ID)
			if w.o.Audit != nil {
				w.o.Audit(records.Event{Kind: "broker.refused", Goal: r.Goal, Actor: "loopx", Subject: r.ID, Message: err.Error(),
					Data: map[string]any{"pid": pid, "uid": uid}})
			}
			return err
		}}
	if w.o.Run != nil {
		env := srv.Env
		srv.Run = func(ctx context.Context, s *broker.Session) int { return w.o.Run(ctx, s, env) }
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = srv.Serve(sctx, l)
	}()
	return agentloop.Entered{
		Argv:    sb.Command(argv),
		Env:     sb.Env(env, wire.SocketEnv),
		Started: func(pid int) { sandbox.Store(int64(pid)) },
		Leave: func() {
			cancel()
			wg.Wait()
			os.RemoveAll(dir)
			// The placeholders go only when no other sandbox of this work
			// tree runs: removing one detaches the mount another holds.
			if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
				confine.Cleanup(w.placeholders(lock))
				_ = lock.Truncate(0)
			}
			lock.Close()
		},
	}, nil
}

// withoutBroker is env without a broker socket of its own (a loopx run
// inside another's confinement).
func withoutBroker(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, wire.SocketEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Brokered reports whether this process is a loopx command the broker
// runs for a confined agent (BrokeredEnv set).
func Brokered() bool { return os.Getenv(BrokeredEnv) != "" }

// brokerRule is the broker's entry rule: may a confined agent's loopx
// call run outside its confinement (package loopx.broker).
const brokerRule = "data.loopx.broker.decision"

// brokerQuery is brokerRule over input.command, input.project and
// input.paths, prepared once per process over only the module it reaches.
var brokerQuery = sync.OnceValues(func() (*rego.PreparedEvalQuery, error) {
	return rulebook.PrepareBuiltin(context.Background(), "d := "+brokerRule+"(input.command, input.project, input.paths)", brokerRule)
})

// hidden are the paths not visible inside the sandbox at all: loopx's
// state directory stateDir (every anchor directory is below it) and the
// credential stores of the home directory home (set.Secrets).
func hidden(stateDir, home string, set policies.ProtectedSet) []string {
	return append([]string{stateDir}, under(home, set.Secrets)...)
}

// HiddenPaths are the paths the sandbox hides, for this process's
// environment (loopx's state directory, the home's credential stores):
// what a brokered command must not read for the agent. None when neither
// is known.
func HiddenPaths() []string {
	home, _ := os.UserHomeDir()
	stateDir, err := anchor.StateDir()
	if err != nil {
		stateDir = ""
	}
	var out []string
	for _, p := range hidden(stateDir, home, policies.Protected()) {
		if p != "" && filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	return out
}

// PathArg is one value given to a brokered command's flag (or one of its
// positional arguments), with whether it names a place outside the work
// tree (Outside) once resolved: relative to the caller's directory, links
// followed (a missing last name: its directory's links). The broker rule
// says which flags name files (data.loopx.broker.path_flags).
type PathArg struct {
	Value   string `json:"value"`
	Outside bool   `json:"outside"`
}

// ResolvePathArg is value as a PathArg for a command run in dir for the
// project at root: "-" (standard input) is inside; anything that
// resolves outside root or into one of hidden (HiddenPaths: the anchor
// directory may lie in the work tree when the project is the home
// directory), or cannot be resolved, is outside.
func ResolvePathArg(root, dir, value string, hidden []string) PathArg {
	if value == "-" {
		return PathArg{Value: value}
	}
	p := value
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		d, derr := filepath.EvalSymlinks(filepath.Dir(p))
		if derr != nil {
			return PathArg{Value: value, Outside: true}
		}
		real = filepath.Join(d, filepath.Base(p))
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		r = filepath.Clean(root)
	}
	within := func(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) }
	if !within(real, r) {
		return PathArg{Value: value, Outside: true}
	}
	for _, h := range hidden {
		if hr, err := filepath.EvalSymlinks(h); err == nil {
			h = hr
		}
		if within(real, filepath.Clean(h)) {
			return PathArg{Value: value, Outside: true}
		}
	}
	return PathArg{Value: value}
}

// BrokerAllows asks the broker rule (data.loopx.broker.decision) whether
// the command the broker runs may run: its command path (cobra's, "loopx
// round finish"), whether it names a project of its own (project: a
// --project flag was given) and the values of its flags (paths: flag
// name, "" for the positional arguments, to its values resolved by
// ResolvePathArg). Errors: errs.No broker_refused with the rule's message
// when it says no, or saying why when the rule cannot be asked (it fails
// closed: undefined, an error, a result of another shape).
func BrokerAllows(command string, project bool, paths map[string][]PathArg) error {
	return brokerAllows(brokerQuery, command, project, paths)
}

// brokerAllows is BrokerAllows over the query prepare returns.
func brokerAllows(prepare func() (*rego.PreparedEvalQuery, error), command string, project bool, paths map[string][]PathArg) error {
	refuse := func(why string) error {
		return errs.Refusedf("broker_refused", "%s cannot run from inside the agent's confinement: %s", command, why)
	}
	pq, err := prepare()
	if err != nil {
		return refuse(fmt.Sprintf("%s does not compile: %v", brokerRule, err))
	}
	if paths == nil {
		paths = map[string][]PathArg{}
	}
	rs, err := pq.Eval(context.Background(), rego.EvalInput(map[string]any{"command": command, "project": project, "paths": paths}))
	if err != nil {
		return refuse(fmt.Sprintf("%s: %v", brokerRule, err))
	}
	if len(rs) != 1 {
		return refuse(brokerRule + " is undefined")
	}
	d, ok := rs[0].Bindings["d"].(map[string]any)
	if !ok {
		return refuse(brokerRule + " is not an object")
	}
	switch allow, _ := d["allow"].(bool); {
	case allow:
		return nil
	default:
		if msg, ok := d["message"].(string); ok && msg != "" {
			return errs.Refusedf("broker_refused", "%s", msg)
		}
		return refuse(brokerRule + " refuses without a message")
	}
}

// expand returns the paths the globs match now ("~/" is home; "dir/**"
// is dir), without those inside root (writable already).
func expand(globs []string, home, root string) []string {
	var out []string
	for _, g := range globs {
		if rest, ok := strings.CutPrefix(g, "~/"); ok {
			g = filepath.Join(home, rest)
		}
		// "dir/**" is the directory, bound once, not each file below it.
		g = strings.TrimSuffix(g, "/**")
		matches, _ := doublestar.FilepathGlob(g, doublestar.WithNoFollow())
		for _, m := range matches {
			if m != root && !strings.HasPrefix(m, root+"/") {
				out = append(out, filepath.Clean(m))
			}
		}
	}
	return out
}

// socketDir makes a private directory (0700) for a broker socket: in the
// temporary directory, or in /tmp when that is in the work tree root or a
// socket's path there would pass the 108 bytes a unix socket's name may
// have.
func socketDir(root string) (string, error) {
	base := filepath.Clean(os.TempDir())
	if len(base) > 60 || base == root || strings.HasPrefix(base, root+"/") {
		base = "/tmp"
	}
	return os.MkdirTemp(base, "loopx-broker-")
}

// prepare makes the sandbox of l under an exclusive lock on the anchor's
// sandbox lock (lock), records the placeholders it made in that file (one
// path a line) for the last sandbox out to remove, and holds the lock
// shared until Leave.
func (w *Wall) prepare(lock *os.File, l confine.Layout) (*confine.Sandbox, error) {
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	sb, err := confine.Prepare(w.o.Bwrap, l)
	if err == nil && len(sb.Placeholders) > 0 {
		if _, serr := lock.Seek(0, io.SeekEnd); serr == nil {
			_, err = lock.WriteString(strings.Join(sb.Placeholders, "\n") + "\n")
		}
	}
	if lerr := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH); err == nil {
		err = lerr
	}
	return sb, err
}

// Sweep removes the placeholders a sandbox of this work tree recorded and
// left behind (its loopx run was killed before it could) when no sandbox
// of the work tree runs now, as the last sandbox out does: only those
// still as they were made (confine.Cleanup), so an agent's git status
// and commits do not pick them up. Errors are ignored: a placeholder left
// is swept at the next start.
func (w *Wall) Sweep() {
	lock, err := os.OpenFile(w.lock, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return // none recorded
	}
	defer lock.Close()
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // a sandbox runs: the last one out removes them
	}
	if ps := w.placeholders(lock); len(ps) > 0 {
		confine.Cleanup(ps)
		_ = lock.Truncate(0)
	}
}

// placeholders are the paths the lock file records.
func (w *Wall) placeholders(lock *os.File) []string {
	b, err := os.ReadFile(lock.Name())
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range strings.Split(string(b), "\n") {
		if filepath.IsAbs(p) && (p == w.layout.Root || strings.HasPrefix(p, w.layout.Root+"/") || strings.HasPrefix(p, w.layout.Home+"/") || (w.layout.GitDir != "" && strings.HasPrefix(p, w.layout.GitDir+"/"))) {
			out = append(out, p)
		}
	}
	return out
}

// ForRun returns the wall for loopx run as spec field project.sandbox (sb)
// says: nil (unconfined) when its mode is off, or when it is auto and
// bubblewrap cannot confine here; either is said on stderr ("loopx: the
// agent command runs unconfined: …") and audited (sandbox.off,
// sandbox.unavailable) at every start, for goal and agent. o.Bwrap is
// found here. Errors: mode required and no confinement here (errs.No
// sandbox_unavailable, audited); audit's; the wall cannot be set up
// although bubblewrap works.
func ForRun(sb specs.Sandbox, o Options, goal, agent string, stderr io.Writer, audit func(records.Event) error) (agentloop.Wall, error) {
	unconfined := func(kind, why string) error {
		msg := "the agent command runs unconfined: " + why
		if stderr != nil {
			fmt.Fprintf(stderr, "loopx: %s\n", msg)
		}
		return audit(records.Event{Kind: kind, Goal: goal, Actor: "loopx", Subject: agent, Message: msg})
	}
	if sb.Mode == specs.SandboxOff {
		return nil, unconfined("sandbox.off", "project.sandbox.mode is off")
	}
	bwrap, err := confine.Bwrap()
	if err != nil && sb.Mode == specs.SandboxRequired {
		refusal := errs.Refusedf("sandbox_unavailable", "project.sandbox.mode is required and the agent command cannot be confined here: %v", err)
		if aerr := audit(records.Event{Kind: "sandbox.unavailable", Goal: goal, Actor: "loopx", Subject: agent, Message: refusal.Message}); aerr != nil {
			return nil, aerr
		}
		return nil, refusal
	}
	if err != nil {
		return nil, unconfined("sandbox.unavailable", err.Error())
	}
	o.Bwrap, o.Writable = bwrap, sb.Writable
	w, err := New(o)
	if err != nil {
		return nil, err
	}
	w.Sweep()
	return w, nil
}
