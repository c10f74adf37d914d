package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// cleanups are what a benchmark must undo even when a signal ends it:
// the servers it started (`loopx serve --detach` outlives its parent)
// and the temporary directory they serve.
var (
	cleanupMu sync.Mutex
	cleanups  []func()
)

// startServer starts `loopx serve --detach` in root and returns its stop,
// which runs once: deferred by the caller, or on a signal (onSignal).
func startServer(bin, root string) (stop func(), err error) {
	if _, err := output(bin, root, "serve", "--detach"); err != nil {
		return nil, fmt.Errorf("loopx serve --detach: %w", err)
	}
	stop = sync.OnceFunc(func() { _, _ = output(bin, root, "serve", "stop") })
	atExit(stop)
	return stop, nil
}

// atExit adds f to what a signal runs before the benchmark exits, in
// reverse order (onSignal); f must be safe to run after its caller's own
// defer ran it.
func atExit(f func()) {
	cleanupMu.Lock()
	cleanups = append(cleanups, f)
	cleanupMu.Unlock()
}

// onSignal stops the servers started so far and exits when the benchmark
// is interrupted, terminated, or the reader of its output goes away
// (SIGPIPE: `loopx-bench serve | head`); without it a killed benchmark
// left its server running.
func onSignal() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	go func() {
		s := <-c
		cleanupMu.Lock()
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
		cleanupMu.Unlock()
		fmt.Fprintf(os.Stderr, "loopx-bench: %v: stopped\n", s)
		os.Exit(1)
	}()
}
