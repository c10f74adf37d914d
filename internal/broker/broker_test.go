package broker

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

func TestReadRequest(t *testing.T) {
	for _, tc := range []struct {
		name, line, err string
	}{
		{"ok", `{"v":3,"argv":["todo","add"],"env":{"NO_COLOR":"1"},"cwd":"/w","deadline_ms":5}`, ""},
		{"other version", `{"v":2,"argv":[],"cwd":"/w"}`, "protocol version 2, this loopx speaks 3"},
		{"identity in env", `{"v":3,"argv":[],"env":{"LOOPX_AGENT":"other"},"cwd":"/w"}`, `"LOOPX_AGENT" is not passed`},
		{"unknown field", `{"v":3,"argv":[],"cwd":"/w","agent":"human"}`, `unknown field "agent"`},
		{"relative cwd", `{"v":3,"argv":[],"cwd":"w"}`, "not an absolute, clean path"},
		{"unclean cwd", `{"v":3,"argv":[],"cwd":"/w/../x"}`, "not an absolute, clean path"},
		{"negative deadline", `{"v":3,"argv":[],"cwd":"/w","deadline_ms":-1}`, "negative"},
		{"two values", `{"v":3,"argv":[],"cwd":"/w"} {}`, "more than one JSON value"},
		{"not JSON", `argv`, "invalid character"},
		{"no newline", `{"v":3,"argv":[],"cwd":"/w"`, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := tc.line
			if tc.name != "no newline" {
				line += "\n"
			}
			_, err := ReadRequest(bufio.NewReader(strings.NewReader(line)))
			if tc.err == "" {
				if err != nil {
					t.Fatalf("ReadRequest: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("ReadRequest = %v, want ErrBadRequest with %q", err, tc.err)
			}
		})
	}
}

func TestReadRequest_LongHeaderIsRefused(t *testing.T) {
	line := `{"v":1,"argv":["` + strings.Repeat("a", wire.MaxHeader) + `"],"cwd":"/"}` + "\n"
	_, err := ReadRequest(bufio.NewReader(strings.NewReader(line)))
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("ReadRequest = %v, want the header refused as too long", err)
	}
}

func FuzzReadRequest(f *testing.F) {
	f.Add([]byte(`{"v":1,"argv":["status"],"cwd":"/w"}` + "\n"))
	f.Add([]byte(`{"v":1,"argv":[],"env":{"TERM":"x"},"cwd":"/"}` + "\nstdin"))
	f.Add([]byte("x\x00\xff\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := ReadRequest(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return
		}
		// What is accepted is checked, and survives a round trip.
		if Check(req) != nil {
			t.Fatalf("accepted a request Check refuses: %+v", req)
		}
		var buf bytes.Buffer
		if err := wire.WriteRequest(&buf, req); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRequest(bufio.NewReader(&buf)); err != nil {
			t.Fatalf("round trip of %+v: %v", req, err)
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	var buf bytes.Buffer
	_ = wire.WriteFrame(&buf, wire.FrameStdout, []byte("hello"))
	_ = wire.WriteFrame(&buf, wire.FrameExit, []byte(`{"code":1}`))
	f.Add(buf.Bytes())
	f.Add([]byte{'x', 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for {
			kind, payload, err := wire.ReadFrame(r)
			if err != nil {
				return
			}
			if len(payload) > wire.MaxFrame || !strings.ContainsRune("oepxicrskwdqn", rune(kind)) {
				t.Fatalf("accepted frame %q of %d bytes", kind, len(payload))
			}
		}
	})
}

// serve starts s on a socket in a temporary directory and returns its
// path; the server stops with the test.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "b.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return sock
}

func TestCall_IdentityComesFromTheServer(t *testing.T) {
	dir := t.TempDir()
	s := &Server{Exe: "/bin/sh", Dir: dir, Env: []string{"LOOPX_AGENT=a1", "NO_COLOR=server", "PATH=" + os.Getenv("PATH")},
		Peer: func(pid, uid int) error {
			if pid != os.Getpid() || uid != os.Getuid() {
				return fmt.Errorf("peer %d/%d is not this test", pid, uid)
			}
			return nil
		}}
	sock := serve(t, s)
	req := wire.Request{V: wire.Version, Argv: []string{"-c", `echo "$LOOPX_AGENT $NO_COLOR $PWD"; cat; echo err >&2; exit 7`}, Cwd: "/",
		Env: map[string]string{"NO_COLOR": "client"}}
	var out, errb bytes.Buffer
	code, err := Call(sock, req, strings.NewReader("from stdin\n"), &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	// The agent is the server's; NO_COLOR (a passed variable) the client's;
	// a cwd outside the work tree runs in the work tree.
	if want := "a1 client " + dir + "\nfrom stdin\n"; out.String() != want || errb.String() != "err\n" || code != 7 {
		t.Fatalf("Call = %d, stdout %q, stderr %q; want 7, %q, \"err\\n\"", code, out.String(), errb.String(), want)
	}
}

func TestCall_RefusedPeerGetsExit1(t *testing.T) {
	sock := serve(t, &Server{Exe: "/bin/true", Dir: t.TempDir(), Peer: func(pid, uid int) error {
		return errors.New("not this round's sandbox")
	}})
	req, err := wire.NewRequest([]string{"status"})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code, err := Call(sock, req, nil, &out, &errb)
	if err != nil || code != 1 || errb.String() != "loopx broker: refused: not this round's sandbox\n" || out.Len() != 0 {
		t.Fatalf("Call = %d, %v, stderr %q", code, err, errb.String())
	}
}

func TestDescendsFrom(t *testing.T) {
	if !DescendsFrom(os.Getpid(), os.Getppid()) || !DescendsFrom(os.Getpid(), os.Getpid()) {
		t.Fatal("this process does not descend from its parent or itself")
	}
	if DescendsFrom(os.Getppid(), os.Getpid()) {
		t.Fatal("the parent descends from this process")
	}
}

// TestAnswers_KeyRunsOnce: a keyed command whose connection ends after it
// ran (before its exit frame) is not run again: the retry of the same
// process with the same key gets the first answer; another command under
// that key, or a key the server does not keep, is refused (exit 3), not
// run.
func TestAnswers_KeyRunsOnce(t *testing.T) {
	var mu sync.Mutex
	runs := 0
	s := &Server{
		Peer: func(pid, uid int) error { return nil },
		Run: func(ctx context.Context, s *Session) int {
			mu.Lock()
			runs++
			mu.Unlock()
			fmt.Fprintf(s.Stdout, "ran %s\n", s.Request.Argv[0])
			fmt.Fprintln(s.Stderr, "note")
			return 4
		},
		Answers:    NewAnswers(),
		DropAnswer: func(s *Session) bool { return !s.Request.Retry },
	}
	sock := serve(t, s)
	req, err := wire.NewRequest([]string{"add"})
	if err != nil {
		t.Fatal(err)
	}
	req.Key = strings.Repeat("ab", wire.KeyLen/2)
	var out, errb bytes.Buffer
	if _, err := Call(sock, req, nil, &out, &errb); !errors.Is(err, wire.ErrAnswerLost) {
		t.Fatalf("first call: %v, want ErrAnswerLost", err)
	}
	req.Retry = true
	out.Reset()
	errb.Reset()
	code, err := Call(sock, req, nil, &out, &errb)
	if err != nil || code != 4 || out.String() != "ran add\n" || errb.String() != "note\n" {
		t.Fatalf("retry = %d, %v, %q, %q; want the first answer (4, \"ran add\\n\", \"note\\n\")", code, err, out.String(), errb.String())
	}
	other := req
	other.Argv = []string{"remove"}
	unknown := req
	unknown.Key = strings.Repeat("cd", wire.KeyLen/2)
	for _, r := range []wire.Request{other, unknown} {
		errb.Reset()
		if code, err := Call(sock, r, nil, io.Discard, &errb); err != nil || code != 3 || !strings.Contains(errb.String(), "not run") {
			t.Errorf("retry %v = %d, %v, %q; want refused (3, not run)", r.Argv, code, err, errb.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if runs != 1 {
		t.Fatalf("the command ran %d times, want once", runs)
	}
}

// TestAnswers_Bounded: the answers kept stay within MaxAnswers; the
// oldest is forgotten first.
func TestAnswers_Bounded(t *testing.T) {
	as := NewAnswers()
	key := func(i int) string { return fmt.Sprintf("%0*x", wire.KeyLen, i) }
	for i := range MaxAnswers + 10 {
		a, fresh := as.begin(wire.Request{Key: key(i)}, proc{1, 1})
		if !fresh {
			t.Fatalf("key %d is not fresh", i)
		}
		as.finish(a, 0)
	}
	if len(as.byKey) != MaxAnswers || len(as.ended) != MaxAnswers {
		t.Fatalf("%d answers kept, want %d", len(as.byKey), MaxAnswers)
	}
	if _, ok := as.byKey[key(0)]; ok {
		t.Fatal("the oldest answer is still kept")
	}
	if a, _ := as.begin(wire.Request{Key: key(0), Retry: true}, proc{1, 1}); a != nil {
		t.Fatal("a forgotten key's retry got an answer")
	}
}
