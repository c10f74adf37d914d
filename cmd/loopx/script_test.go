package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/cmd/loopx/internal/cli"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/anchor/anchortest"
	"github.com/loopx-dev/loopx/internal/buntdb"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// The suite may run inside Claude Code, Codex or a loopx round: the
	// ancestry walk of the commands it starts stops at the test binary, so
	// they see only the processes the tests start.
	// loopx run inside the test process (cli.RunWith) starts its walk at
	// the test binary's parent: it stops there, seeing no ancestor, as a
	// command the test binary starts does.
	stop := os.Getenv("LOOPX_TEST_ANCESTRY_STOP")
	if stop == "" {
		os.Setenv("LOOPX_TEST_ANCESTRY_STOP", strconv.Itoa(os.Getpid()))
		cli.Ancestry.StopAt = os.Getppid()
	} else {
		cli.Ancestry.StopAt, _ = strconv.Atoi(stop)
	}
	// The Go tests' projects get their anchor directories under a temporary
	// XDG_STATE_HOME (scripts set their own in Setup); commands the tests
	// start inherit it.
	testscript.Main(scriptsParallel{anchortest.M{M: m}}, map[string]func(){"loopx": func() { os.Exit(cli.Main()) }, "unixconnect": unixConnect, "drive": drive})
}

// scriptsParallel runs the package's tests with more parallel tests than
// processors unless -test.parallel is given: most of a script's time is
// spent waiting on the loopx processes it starts, their locks and timers,
// not on this process's CPU, so GOMAXPROCS scripts at a time leave the
// processors idle.
type scriptsParallel struct{ anchortest.M }

// scriptsPerProcessor is how many parallel tests run per processor.
const scriptsPerProcessor = 2

func (m scriptsParallel) Run() int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(scriptsPerProcessor*runtime.GOMAXPROCS(0)))
	}
	return m.M.Run()
}

// TestScripts runs the CLI scripts in testdata/script. Set
// LOOPX_UPDATE_GOLDEN=1 to rewrite cmp goldens inside the scripts (review
// the diff).
func TestScripts(t *testing.T) {
	t.Parallel() // each script its own work directory and state directory; beside the multi-process tests
	testscript.Run(t, scriptParams(t, "testdata/script"))
}

// scriptParams are the parameters of the CLI scripts in dir: the
// environment every script starts with, the conditions and the commands.
func scriptParams(t *testing.T, dir string) testscript.Params {
	bin := asAgentBin(t)
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("LOOPX_UPDATE_GOLDEN") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("LOOPX_NOW", "2026-11-29T10:00:00Z")
			env.Setenv("LOOPX_PROJECT", "")
			// The anchor directory (internal/anchor) of every project a
			// script makes is under the script's own work directory.
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".xdg-state"))
			env.Setenv("LOOPX_ROUND", "")
			env.Setenv("LOOPX_AGENT", "")
			env.Setenv("LOOPX_TEST_ANCESTRY_STOP", strconv.Itoa(os.Getpid()))
			if v := os.Getenv("LOOPX_TEST_SERVED"); v != "" {
				env.Setenv("LOOPX_TEST_SERVED", v) // the served pass: stopServed
			}
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			base := map[string]string{}
			for _, kv := range env.Vars {
				k, v, _ := strings.Cut(kv, "=")
				base[k] = v
			}
			env.Values[baselineKey{}] = base
			return nil
		},
		// [pty]: a pseudo-terminal can be opened (ttyin needs one; the human
		// gate confirmation reads the controlling terminal). [bwrap]:
		// bubblewrap confines here (confinement.go).
		Condition: func(cond string) (bool, error) {
			if cond == "bwrap" {
				return bwrapCondition()
			}
			if cond == "served" {
				// The served pass (LOOPX_TEST_SERVED): every command goes
				// through a server. A script that edits the store's files
				// with plain file commands while it runs skips itself.
				return os.Getenv("LOOPX_TEST_SERVED") != "", nil
			}
			if cond != "pty" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			f, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
			if err != nil {
				if os.Getenv("CI") != "" {
					// In CI the human-channel scripts must run, never skip.
					return false, fmt.Errorf("no pseudo-terminal under CI: %v", err)
				}
				return false, nil
			}
			f.Close()
			return true, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitcode,
			"cmpjson":  cmdCmpJSON,
			"cmpnorm":  cmdCmpNorm,
			"corrupt":  cmdCorrupt,
			"chop":     cmdChop,
			"jsonget":  cmdJSONGet,
			"rawgate":  cmdRawGate,
			"oldstore": cmdOldStore,
			"holdlock": cmdHoldLock,
			"droplock": cmdDropLock,
			"listen":   cmdListen,
			"spawn":    cmdSpawn,
			"outside":  cmdOutside,
		},
	}
}

// cmdExitcode runs a command and asserts its exact exit code:
// exitcode N prog args... (loopx runs in the test process when it can:
// inProcess).
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog args...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	inproc, why := inProcess(ts, args[2:])
	if args[1] == "loopx" && !inproc {
		ts.Logf("loopx runs as a process: %s", why)
	}
	if args[1] == "loopx" && inproc {
		got = runInProcess(ts, args[2:])
	} else if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", got, want, ts.ReadFile("stdout"), ts.ReadFile("stderr"))
	}
}

var (
	reULID = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)
	reHash = regexp.MustCompile(`sha256:[0-9a-f]{64}|sha256:[0-9a-f]{12}\b`) // full, or shortened for people
	// reID is a record id, also right after a JSON string's \n escape.
	reID  = regexp.MustCompile(`(?:\\n|\b)[tregh]-[0-9a-f]{4,16}\b`)
	reTmp = regexp.MustCompile(`"(/[^"]*)?/(script-[^"/]+|loopx-demo-[^"/]+)[^"]*"`)
)

// normalize replaces what varies between runs: ULIDs, sha256 hashes, and
// record ids (numbered by first appearance, so links stay checkable).
func normalize(s, workdir string) string {
	s = strings.ReplaceAll(s, workdir, "$WORK")
	s = reULID.ReplaceAllString(s, "ULID")
	s = reHash.ReplaceAllString(s, "sha256:HASH")
	seen := map[string]string{}
	return reID.ReplaceAllStringFunc(s, func(m string) string {
		esc, id := "", m
		if strings.HasPrefix(m, `\n`) {
			esc, id = `\n`, m[2:]
		}
		if v, ok := seen[id]; ok {
			return esc + v
		}
		v := fmt.Sprintf("%c-#%d", id[0], len(seen)+1)
		seen[id] = v
		return esc + v
	})
}

// cmdCmpJSON compares a file (stdout, stderr or a file) that holds JSON
// with a golden after normalising both: cmpjson stdout golden.json
func cmdCmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpjson FILE GOLDEN")
	}
	got := normalize(ts.ReadFile(args[0]), ts.Getenv("WORK"))
	want := ts.ReadFile(args[1])
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		ts.Fatalf("cmpjson: %s is not JSON: %v\n%s", args[0], err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		ts.Fatalf("cmpjson: %s is not JSON: %v", args[1], err)
	}
	gb, wb := indentJSON(g), indentJSON(w)
	if (string(gb) == string(wb)) == neg {
		ts.Fatalf("cmpjson: %s and %s differ:\n--- got\n%s\n--- want\n%s", args[0], args[1], gb, wb)
	}
}

// cmdCmpNorm compares a text file (stdout, stderr or a file) with a golden
// exactly, after normalising the file as cmpjson does ($WORK, ULIDs,
// hashes, record ids): cmpnorm stdout golden.txt
func cmdCmpNorm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpnorm FILE GOLDEN")
	}
	got := normalize(ts.ReadFile(args[0]), ts.Getenv("WORK"))
	want := ts.ReadFile(args[1])
	if (got == want) == neg {
		ts.Fatalf("cmpnorm: %s and %s differ:\n--- got\n%s--- want\n%s", args[0], args[1], got, want)
	}
}

// cmdCorrupt overwrites 16 bytes in the middle of a file, at the start of
// the first record (a line starting with '*', as buntdb's log writes them)
// after the middle, with bytes no record format parses (a damaged disk, a
// bad copy): corrupt FILE
func cmdCorrupt(ts *testscript.TestScript, neg bool, args []string) {
	stopServed(ts)
	if neg || len(args) != 1 {
		ts.Fatalf("usage: corrupt FILE")
	}
	path := ts.MkAbs(args[0])
	b, err := os.ReadFile(path)
	ts.Check(err)
	if len(b) < 64 {
		ts.Fatalf("corrupt: %s is too small (%d bytes)", args[0], len(b))
	}
	at := len(b) / 2
	if i := bytes.Index(b[at:], []byte("\r\n*")); i >= 0 {
		at += i + 2
	}
	copy(b[at:], "\x00\xff#garbage\r\n\x00\xfe!!!!")
	ts.Check(os.WriteFile(path, b, 0o644))
}

// cmdChop cuts the last N bytes off a file (a torn write): chop FILE N
func cmdChop(ts *testscript.TestScript, neg bool, args []string) {
	stopServed(ts)
	if neg || len(args) != 2 {
		ts.Fatalf("usage: chop FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	fi, err := os.Stat(path)
	ts.Check(err)
	if fi.Size() < int64(n) {
		ts.Fatalf("chop: %s has only %d bytes", args[0], fi.Size())
	}
	ts.Check(os.Truncate(path, fi.Size()-int64(n)))
}

// cmdJSONGet sets an environment variable from a field of the last stdout:
// jsonget VAR path.to.field (numeric elements index arrays).
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jsonget VAR PATH")
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("jsonget: stdout is not JSON: %v", err)
	}
	for _, p := range strings.Split(args[1], ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				ts.Fatalf("jsonget: no element %q", p)
			}
			v = x[i]
		default:
			ts.Fatalf("jsonget: no field %q in %v", p, v)
		}
	}
	s, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		s = string(b)
	}
	ts.Setenv(args[0], s)
}

func indentJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return b.String()
}

// cmdRawGate writes an open gate straight into the project's store,
// bypassing loopx's input checks (as a store written by an older loopx,
// or an agent writing state.db outside a sandbox, would hold one), and
// sets $GATE to its id: rawgate GOAL QUESTION (QUESTION is a Go string
// literal body: \x1b is ESC).
func cmdRawGate(ts *testscript.TestScript, neg bool, args []string) {
	stopServed(ts)
	if neg || len(args) != 2 {
		ts.Fatalf("usage: rawgate GOAL QUESTION")
	}
	q, err := strconv.Unquote(`"` + args[1] + `"`)
	ts.Check(err)
	adir, err := anchor.DirIn(ts.Getenv("XDG_STATE_HOME"), ts.MkAbs("."))
	ts.Check(err)
	s, err := kernel.Open(ts.MkAbs(".loopx"), kernel.Options{AnchorDir: adir, Now: func() time.Time { return time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC) }})
	ts.Check(err)
	defer s.Close()
	ts.Check(s.Update(func(tx *kernel.Tx) error {
		g, err := tx.AddGate(records.Gate{Goal: args[0], Question: q, Options: []string{"approve", "reject"},
			Answerers: []string{"human"}, ScopeKind: "goal", RaisedBy: "a1"})
		ts.Setenv("GATE", g.ID)
		return err
	}))
}

// asAgentBin writes the as-agent helper into a temporary directory and
// returns it: `as-agent ID CMD…` runs CMD below a process whose start
// environment carries LOOPX_AGENT=ID, as an agent host started by a human
// with that variable would (an agent acts only as the agent its ancestors
// run as; trust.Acting).
func asAgentBin(t *testing.T) string {
	dir := t.TempDir()
	script := "#!/bin/sh\nid=$1; shift\nexec env LOOPX_AGENT=\"$id\" sh -c '\"$@\"; exit $?' sh \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "as-agent"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cmdHoldLock takes an exclusive flock on a file (created if missing) from
// the test's process, as another process would, and releases it when the
// script ends: holdlock FILE
func cmdHoldLock(ts *testscript.TestScript, neg bool, args []string) {
	stopServed(ts)
	if neg || len(args) != 1 {
		ts.Fatalf("usage: holdlock FILE")
	}
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_RDWR|os.O_CREATE, 0o600)
	ts.Check(err)
	ts.Check(syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	heldLocks.Store(ts.MkAbs(args[0]), f)
	ts.Defer(func() { f.Close() })
}

// heldLocks are the files holdlock holds, by absolute path.
var heldLocks sync.Map

// cmdDropLock releases a lock holdlock took: droplock FILE
func cmdDropLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: droplock FILE")
	}
	f, ok := heldLocks.LoadAndDelete(ts.MkAbs(args[0]))
	if !ok {
		ts.Fatalf("droplock: %s is not held", args[0])
	}
	ts.Check(f.(*os.File).Close())
}

// cmdOldStore turns the project's store into one as loopx wrote it before
// the event log (schema 1): every audit event of .loopx/events.log goes
// back into state.db as a key event:<seq>, the journal loses its log
// fields, the schema stamp is 1, and events.log is removed: oldstore
func cmdOldStore(ts *testscript.TestScript, neg bool, args []string) {
	stopServed(ts)
	if neg || len(args) != 0 {
		ts.Fatalf("usage: oldstore")
	}
	dir := ts.MkAbs(".loopx")
	raw, err := os.ReadFile(filepath.Join(dir, kernel.EventsFile))
	ts.Check(err)
	db, err := buntdb.Open(filepath.Join(dir, kernel.DBFile))
	ts.Check(err)
	defer db.Close()
	ts.Check(db.Update(func(tx *buntdb.Tx) error {
		// Schema 1 values carry no checksum (kernel/chain.go): strip them.
		var keys, vals []string
		if err := tx.Ascend("", func(k, v string) bool {
			keys, vals = append(keys, k), append(vals, v)
			return true
		}); err != nil {
			return err
		}
		for i, k := range keys {
			v := vals[i]
			if k == "meta:schema" || k == "meta:journal" || k == "meta:shrink_base" || len(v) < 17 || v[16] != ':' {
				continue
			}
			if _, _, err := tx.Set(k, v[17:], nil); err != nil {
				return err
			}
		}
		for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
			var rec struct {
				Event json.RawMessage `json:"event"`
			}
			payload := line[:bytes.LastIndexByte(line, ' ')]
			if err := json.Unmarshal(payload, &rec); err != nil {
				return err
			}
			var ev records.Event
			if err := json.Unmarshal(rec.Event, &ev); err != nil {
				return err
			}
			if _, _, err := tx.Set(fmt.Sprintf("event:%020d", ev.Seq), string(rec.Event), nil); err != nil {
				return err
			}
		}
		rev, err := tx.Get("meta:rev")
		if err != nil {
			return err
		}
		if _, _, err := tx.Set("meta:journal", `{"rev":`+rev+`,"sets":[]}`, nil); err != nil {
			return err
		}
		_, _, err = tx.Set("meta:schema", "1", nil)
		return err
	}))
	ts.Check(os.Remove(filepath.Join(dir, kernel.EventsFile)))
	// A store of schema 1 predates the anchor.
	adir, err := anchor.DirIn(ts.Getenv("XDG_STATE_HOME"), ts.MkAbs("."))
	ts.Check(err)
	ts.Check(os.Remove(filepath.Join(adir, kernel.AnchorFile)))
}

// stopServed stops, in the served pass (LOOPX_TEST_SERVED), the server of
// the script's project before a command edits the store's files behind
// its back; the next loopx command starts another.
func stopServed(ts *testscript.TestScript) {
	if os.Getenv("LOOPX_TEST_SERVED") == "" {
		return
	}
	root, err := scaffold.FindRoot(ts.MkAbs("."))
	if err != nil {
		return
	}
	if dir, err := anchor.DirIn(ts.Getenv("XDG_STATE_HOME"), root); err == nil {
		cli.StopTestServer(dir)
	}
}
