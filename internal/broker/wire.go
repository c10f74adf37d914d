package broker

import (
	"io"
	"net"

	"github.com/loopx-dev/loopx/internal/broker/wire"
)

// The protocol's messages and its client side live in package wire
// (which a process can use before its heavy packages are initialised);
// these are their names here.

// Version is wire.Version.
const Version = wire.Version

// SocketEnv and DefaultSocket are wire's.
const (
	SocketEnv     = wire.SocketEnv
	DefaultSocket = wire.DefaultSocket
)

// MaxHeader and MaxFrame are wire's.
const (
	MaxHeader = wire.MaxHeader
	MaxFrame  = wire.MaxFrame
)

// KeyLen is wire.KeyLen.
const KeyLen = wire.KeyLen

// Frame kinds (wire's).
const (
	FrameStdout    = wire.FrameStdout
	FrameStderr    = wire.FrameStderr
	FramePrompt    = wire.FramePrompt
	FrameExit      = wire.FrameExit
	FrameStdin     = wire.FrameStdin
	FrameStdinEnd  = wire.FrameStdinEnd
	FrameReply     = wire.FrameReply
	FrameSpawn     = wire.FrameSpawn
	FrameKill      = wire.FrameKill
	FrameSpawned   = wire.FrameSpawned
	FrameDone      = wire.FrameDone
	FrameInterrupt = wire.FrameInterrupt
)

// PassedEnv is wire.PassedEnv.
var PassedEnv = wire.PassedEnv

// ErrAnswerLost is wire.ErrAnswerLost.
var ErrAnswerLost = wire.ErrAnswerLost

type (
	// Request is wire.Request.
	Request = wire.Request
	// Spawn is wire.Spawn.
	Spawn = wire.Spawn
	// Spawned is wire.Spawned.
	Spawned = wire.Spawned
	// Done is wire.Done.
	Done = wire.Done
	// Prompt is wire.Prompt.
	Prompt = wire.Prompt
	// Reply is wire.Reply.
	Reply = wire.Reply
	// Exit is wire.Exit.
	Exit = wire.Exit
	// Asker is wire.Asker.
	Asker = wire.Asker
	// Starter is wire.Starter.
	Starter = wire.Starter
)

// Socket is wire.Socket.
func Socket() string { return wire.Socket() }

// NewRequest is wire.NewRequest.
func NewRequest(argv []string) (Request, error) { return wire.NewRequest(argv) }

// WriteRequest is wire.WriteRequest.
func WriteRequest(w io.Writer, req Request) error { return wire.WriteRequest(w, req) }

// WriteFrame is wire.WriteFrame.
func WriteFrame(w io.Writer, kind byte, payload []byte) error {
	return wire.WriteFrame(w, kind, payload)
}

// ReadFrame is wire.ReadFrame.
func ReadFrame(r io.Reader) (kind byte, payload []byte, err error) { return wire.ReadFrame(r) }

// CallConn is wire.CallConn.
func CallConn(uc *net.UnixConn, socket string, req Request, stdin io.Reader, stdout, stderr io.Writer, ask Asker) (int, error) {
	return wire.CallConn(uc, socket, req, stdin, stdout, stderr, ask)
}

// CallConnWith is wire.CallConnWith.
func CallConnWith(uc *net.UnixConn, socket string, req Request, stdin io.Reader, stdout, stderr io.Writer, ask Asker, start Starter, interrupt <-chan struct{}) (int, error) {
	return wire.CallConnWith(uc, socket, req, stdin, stdout, stderr, ask, start, interrupt)
}
