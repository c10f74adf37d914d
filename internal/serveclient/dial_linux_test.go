package serveclient_test

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/broker/wire"
	"github.com/loopx-dev/loopx/internal/frontend/serve"
	"github.com/loopx-dev/loopx/internal/serveclient"
)

// TestCall_SaysWhatServeCallSays: a server that resets the connection
// (it closes with the request unread), one that stops answering (the
// deadline) and one that ends before the exit frame give serveclient.Call
// the same error text as serve.Call (package net), and the same kinds.
func TestCall_SaysWhatServeCallSays(t *testing.T) {
	for _, c := range []struct {
		name  string
		serve func(net.Conn)
	}{
		{"reset", func(c net.Conn) { time.Sleep(50 * time.Millisecond); c.Close() }},
		{"silent", func(c net.Conn) { time.Sleep(time.Second); c.Close() }},
		{"ended", func(c net.Conn) {
			_ = wire.WriteFrame(c, wire.FrameStdout, []byte("half"))
			time.Sleep(50 * time.Millisecond)
			_, _ = io.Copy(io.Discard, c)
			c.Close()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "s.sock")
			l, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			go func() {
				for {
					conn, err := l.Accept()
					if err != nil {
						return
					}
					go c.serve(conn)
				}
			}()
			r := serveclient.Record{PID: os.Getpid(), Socket: sock}
			req := wire.Request{V: wire.Version, Argv: []string{"status"}, Cwd: "/"}
			// A payload bigger than the socket's buffers: the server's
			// close finds it unread.
			big := make([]byte, 4<<20)
			var got [2]error
			for i, call := range []serveclient.CallFunc{serve.Call, serveclient.Call} {
				var stdin io.Reader
				if c.name == "reset" {
					stdin = bytesReader(big)
				}
				_, got[i] = call(r, req, 300*time.Millisecond, stdin, io.Discard, io.Discard, nil)
			}
			if got[0] == nil || got[1] == nil || got[0].Error() != got[1].Error() {
				t.Fatalf("serve.Call: %v\nserveclient.Call: %v", got[0], got[1])
			}
			for _, target := range []error{os.ErrDeadlineExceeded, wire.ErrAnswerLost, io.ErrUnexpectedEOF} {
				if errorsIs(got[0], target) != errorsIs(got[1], target) {
					t.Errorf("errors.Is(%v): serve.Call %v, serveclient.Call %v", target, errorsIs(got[0], target), errorsIs(got[1], target))
				}
			}
		})
	}
}
