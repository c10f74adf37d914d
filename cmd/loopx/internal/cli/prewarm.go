package cli

import (
	"slices"

	"github.com/loopx-dev/loopx/engine"
)

// prewarm starts, in the background, compiling the built-in policy the
// command in args (the process's arguments) decides first (engine.Warm)
// and, for a command acting as an agent, its identity check
// (engine.PrepareActing), before cobra builds its command tree and parses
// the flags: a few milliseconds off the commands agents run before every
// turn and tool call. It reads only the leading words. A command line it
// does not recognise starts nothing (the command compiles as it always
// did); a wrong guess costs CPU, never an answer, since a warm compile is
// taken only by the same entry rules without user policies.
func prewarm(args []string) {
	words := func(w ...string) bool { return len(args) >= len(w) && slices.Equal(args[:len(w)], w) }
	switch {
	case words("decide", "should-run"):
		engine.Warm("should_run")
	case words("hook") && slices.Contains(args, "PreToolUse"):
		engine.Warm("permission")
		engine.PrepareActing()
	case words("round", "start"), words("run"):
		engine.Warm("should_run", "claim")
		engine.PrepareActing()
	case words("todo", "claim"):
		engine.Warm("claim")
		engine.PrepareActing()
	case words("round", "finish"):
		engine.PrepareActing()
	}
}
