package cli

import (
	"slices"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/query"
)

// prewarm returns, for the commands agents run before every turn or tool
// call (decide should-run, a PreToolUse hook, round start and finish,
// run, todo claim), what starts compiling in the background the built-in
// policy the command decides first (engine.Warm) and, for a command
// acting as an agent, its identity check (engine.PrepareActing; a
// PreToolUse hook decides both in one policy: engine.WarmHook); nil for
// any other command. Main calls it before cobra builds its command tree
// and parses the flags: a few milliseconds off each of those commands.
// It reads only the leading words of args (the process's arguments): a
// command line it does not recognise starts nothing and compiles as it
// always did; a wrong guess costs CPU, never an answer, since a warm
// compile is taken only by the same entry rules without user policies.
func prewarm(args []string) func() {
	words := func(w ...string) bool { return len(args) >= len(w) && slices.Equal(args[:len(w)], w) }
	switch {
	case words("decide", "should-run"):
		return func() { engine.Warm(query.ShouldRun) }
	case words("hook") && (slices.Contains(args, "PreToolUse") || slices.Contains(args, "--event=PreToolUse")):
		return engine.WarmHook
	case words("round", "start"), words("run"):
		return func() { engine.Warm(query.ShouldRun, query.Claim); engine.PrepareActing() }
	case words("todo", "claim"):
		return func() { engine.Warm(query.Claim); engine.PrepareActing() }
	case words("round", "finish"):
		return engine.PrepareActing
	}
	return nil
}
