package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// watchSpec has a second agent that answers the benchmark's gates.
const watchSpec = `agents: {
	a1: {host: "shell", role: "executor"}
	a2: {host: "shell", role: "reviewer"}
}
goals: g1: {
	objective: "Benchmark the watcher"
	agents: ["a1", "a2"]
	quota: {window: "24h", rounds: %d, min_interval: "0s"}
}
`

// watchMain runs `loopx-bench watch [-runs 20] [-idle 60s]`: it starts
// `loopx watch --json` as a process and times (1) a spec saved by rename
// to the changed decision line on its stdout, (2) a gate answered by
// another `loopx gate answer` process to the run line, and (3) the CPU the
// idle watcher uses (utime+stime from /proc/PID/stat) over -idle.
func watchMain(args []string) int {
	fs := flag.NewFlagSet("watch", flag.ExitOnError)
	runs := fs.Int("runs", 20, "timed saves and gate answers")
	idle := fs.Duration("idle", 60*time.Second, "how long to measure the idle watcher's CPU")
	_ = fs.Parse(args)
	if err := benchWatch(*runs, *idle); err != nil {
		fmt.Fprintln(os.Stderr, "loopx-bench watch:", err)
		return 1
	}
	return 0
}

type watchLine struct {
	Verdict string `json:"verdict"`
	Trigger string `json:"trigger"`
	at      time.Time
}

func benchWatch(runs int, idle time.Duration) error {
	tmp, err := os.MkdirTemp("", "loopx-bench-watch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "loopx")
	build := exec.Command("go", "build", "-o", bin, "./cmd/loopx")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building loopx (run from the repository root): %w", err)
	}
	root := filepath.Join(tmp, "project")
	specPath := filepath.Join(root, "loopx", "loopx.cue")
	save := func(rounds int) error {
		tmpf := specPath + ".tmp"
		if err := os.WriteFile(tmpf, fmt.Appendf(nil, watchSpec, rounds), 0o644); err != nil {
			return err
		}
		return os.Rename(tmpf, specPath)
	}
	if err := os.MkdirAll(filepath.Dir(specPath), 0o755); err != nil {
		return err
	}
	if err := save(24); err != nil {
		return err
	}
	loopx := func(args ...string) (string, error) {
		c := exec.Command(bin, args...)
		c.Dir = root
		c.Env = append(os.Environ(), "LOOPX_AGENT=", "LOOPX_ROUND=")
		out, err := c.CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("loopx %v: %w: %s", args, err, out)
		}
		return string(out), nil
	}
	if _, err := loopx("todo", "add", "--goal", "g1", "Benchmark todo"); err != nil {
		return err
	}

	w := exec.Command(bin, "watch", "--goal", "g1", "--agent", "a1", "--json")
	w.Dir, w.Stderr = root, io.Discard
	out, err := w.StdoutPipe()
	if err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return err
	}
	defer func() { _ = w.Process.Signal(os.Interrupt); _ = w.Wait() }()
	lines := make(chan watchLine, 100)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l watchLine
			if json.Unmarshal(sc.Bytes(), &l) == nil {
				l.at = time.Now()
				lines <- l
			}
		}
		close(lines)
	}()
	expect := func(trigger, verdict string) (watchLine, error) {
		select {
		case l, ok := <-lines:
			if !ok {
				return l, errors.New("loopx watch exited")
			}
			if l.Trigger != trigger || l.Verdict != verdict {
				return l, fmt.Errorf("got %s/%s, want %s/%s", l.Trigger, l.Verdict, trigger, verdict)
			}
			return l, nil
		case <-time.After(10 * time.Second):
			return watchLine{}, fmt.Errorf("no %s/%s line within 10 s", trigger, verdict)
		}
	}
	if _, err := expect("start", "run"); err != nil {
		return err
	}

	var specLat []time.Duration
	for i := 0; i < runs; i++ {
		rounds, verdict := 0, "skip"
		if i%2 == 1 {
			rounds, verdict = 24, "run"
		}
		t := time.Now()
		if err := save(rounds); err != nil {
			return err
		}
		l, err := expect("spec", verdict)
		if err != nil {
			return fmt.Errorf("spec save %d: %w", i, err)
		}
		specLat = append(specLat, l.at.Sub(t))
	}
	if runs%2 == 1 {
		if err := save(24); err != nil {
			return err
		}
		if _, err := expect("spec", "run"); err != nil {
			return err
		}
	}

	var gateLat, gateAfterExit []time.Duration
	for i := 0; i < runs; i++ {
		o, err := loopx("gate", "raise", "--goal", "g1", "--question", "Merge the v2 branch into main now?", "--answerers", "agent:a2", "--json")
		if err != nil {
			return err
		}
		var g struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(o), &g); err != nil || g.ID == "" {
			return fmt.Errorf("gate raise printed %q", o)
		}
		if _, err := expect("state", "wait_human"); err != nil {
			return fmt.Errorf("gate raise %d: %w", i, err)
		}
		t := time.Now()
		if _, err := loopx("gate", "answer", g.ID, "--option", "approve", "--as", "agent:a2"); err != nil {
			return err
		}
		exited := time.Now()
		l, err := expect("state", "run")
		if err != nil {
			return fmt.Errorf("gate answer %d: %w", i, err)
		}
		gateLat = append(gateLat, l.at.Sub(t))
		gateAfterExit = append(gateAfterExit, l.at.Sub(exited))
	}

	before, err := procCPU(w.Process.Pid)
	if err != nil {
		return err
	}
	start := time.Now()
	select {
	case l := <-lines:
		return fmt.Errorf("the idle watcher printed %+v", l)
	case <-time.After(idle):
	}
	after, err := procCPU(w.Process.Pid)
	if err != nil {
		return err
	}
	wall := time.Since(start)

	fmt.Printf("spec save → decision line: %s\n", summary(specLat))
	fmt.Printf("gate answered by another process → run line: %s (from the answer's exit: %s)\n", summary(gateLat), summary(gateAfterExit))
	fmt.Printf("idle watcher: %s CPU over %s (%.3f%%), 0 lines printed\n", after-before, wall.Round(time.Second),
		100*float64(after-before)/float64(wall))
	return nil
}

func summary(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return fmt.Sprintf("%d runs, median %.1f ms, p90 %.1f ms, max %.1f ms", len(s), ms(s[len(s)/2]), ms(s[len(s)*9/10]), ms(s[len(s)-1]))
}

// procCPU is the user+system CPU time of process pid (Linux /proc).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading CPU time (Linux only): %w", err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// Fields after the command: state is f[0]; utime and stime are fields
	// 14 and 15 of the whole line, f[11] and f[12] here, in clock ticks.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	const tick = 10 * time.Millisecond // CLK_TCK = 100 on Linux
	return time.Duration(ut+st) * tick, nil
}
