// Command loopx-bench times loopx commands as whole processes, the way
// agent hosts run them (design §14 budgets):
//
//	go run ./cmd/loopx-bench decide [-runs 20] [-todos 200] [-evidence 5000]
//	go run ./cmd/loopx-bench status [-runs 20] [-todos 1000] [-evidence 50000]
//	go run ./cmd/loopx-bench hook [-runs 20] [-todos 200] [-evidence 5000]
//	go run ./cmd/loopx-bench watch [-runs 20] [-idle 60s]
//
// hook pipes a PreToolUse payload (Bash "git push origin main") to
// `loopx hook claude-code`, as Claude Code does before every tool call.
//
// It builds loopx into a temporary directory, makes a project of the given
// size through the kernel (fast bulk load), runs the command once to warm
// the spec cache and the page cache, then times -runs runs and prints the
// median, p90 and min in milliseconds.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/kernel"
)

const spec = `agents: a1: {host: "shell", role: "executor"}
goals: g1: {
	objective: "Benchmark the decision path"
	agents: ["a1"]
	quota: {window: "24h", rounds: 100000, min_interval: "0s"}
}
`

// hookPayload is a PreToolUse payload (Claude Code's shape); %s is the cwd.
const hookPayload = `{"session_id":"bench","transcript_path":"/dev/null","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push origin main","description":"push"},"tool_use_id":"toolu_bench"}`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loopx-bench decide|status|hook [-runs N] [-todos N] [-evidence N]")
		os.Exit(2)
	}
	what := os.Args[1]
	if what == "watch" {
		os.Exit(watchMain(os.Args[2:])) // watch.go
	}
	fs := flag.NewFlagSet(what, flag.ExitOnError)
	runs := fs.Int("runs", 20, "timed runs")
	todos := fs.Int("todos", 200, "todos in the project")
	evidence := fs.Int("evidence", 5000, "evidence records in the project")
	if what == "status" {
		fs.Lookup("todos").DefValue, fs.Lookup("evidence").DefValue = "1000", "50000"
		*todos, *evidence = 1000, 50000
	}
	_ = fs.Parse(os.Args[2:])
	var args []string
	switch what {
	case "decide":
		args = []string{"decide", "should-run", "--goal", "g1", "--agent", "a1"}
	case "status":
		args = []string{"status"}
	case "hook":
		args = []string{"hook", "claude-code", "--event", "PreToolUse", "--goal", "g1", "--agent", "a1"}
	default:
		fmt.Fprintf(os.Stderr, "unknown benchmark %q (decide, status, hook)\n", what)
		os.Exit(2)
	}
	if err := run(args, *runs, *todos, *evidence); err != nil {
		fmt.Fprintln(os.Stderr, "loopx-bench:", err)
		os.Exit(1)
	}
}

func run(args []string, runs, todos, evidence int) error {
	tmp, err := os.MkdirTemp("", "loopx-bench-")
	if err != nil {
		return err
	}
	if os.Getenv("LOOPX_BENCH_KEEP") == "" {
		defer os.RemoveAll(tmp)
	} else {
		defer fmt.Println("kept", tmp)
	}
	bin := filepath.Join(tmp, "loopx")
	build := exec.Command("go", "build", "-o", bin, "./cmd/loopx")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building loopx (run from the repository root): %w", err)
	}
	root := filepath.Join(tmp, "project")
	if err := makeProject(root, todos, evidence); err != nil {
		return err
	}
	fi, _ := os.Stat(filepath.Join(root, ".loopx", kernel.DBFile))
	fmt.Printf("project: %d todos, %d evidence records, state.db %.1f MB\n", todos, evidence, float64(fi.Size())/1e6)
	once := func() (time.Duration, error) {
		c := exec.Command(bin, args...)
		c.Dir = root
		if args[0] == "hook" {
			c.Stdin = strings.NewReader(fmt.Sprintf(hookPayload, root))
		}
		t := time.Now()
		err := c.Run()
		d := time.Since(t)
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() <= 1 {
			err = nil
		}
		return d, err
	}
	for i := 0; i < 3; i++ {
		if _, err := once(); err != nil {
			return fmt.Errorf("loopx %v: %w", args, err)
		}
	}
	times := make([]time.Duration, 0, runs)
	for i := 0; i < runs; i++ {
		d, err := once()
		if err != nil {
			return err
		}
		times = append(times, d)
	}
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Printf("loopx %v: %d runs, median %.1f ms, p90 %.1f ms, min %.1f ms\n", args, runs,
		ms(times[len(times)/2]), ms(times[len(times)*9/10]), ms(times[0]))
	return nil
}

func makeProject(root string, todos, evidence int) error {
	if err := os.MkdirAll(filepath.Join(root, "loopx"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "loopx", "loopx.cue"), []byte(spec), 0o644); err != nil {
		return err
	}
	s, err := kernel.Open(filepath.Join(root, ".loopx"), kernel.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	const batch = 1000
	for done := 0; done < todos+evidence; done += batch {
		err := s.Update(func(tx *kernel.Tx) error {
			for i := done; i < done+batch && i < todos+evidence; i++ {
				var err error
				if i < todos {
					_, err = tx.AddTodo(kernel.Todo{Goal: "g1", Title: fmt.Sprintf("todo %d", i), Priority: i % 5})
				} else {
					_, err = tx.AddEvidence(kernel.Evidence{Goal: "g1", Kind: "test", Status: "pass",
						Summary: fmt.Sprintf("go test ./... run %d passed", i), Ref: "go test ./..."})
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return s.Shrink()
}
