package specs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CodeBudget: evaluating the spec ran out of its memory or time budget (a
// comprehension over millions of values, say). The spec is unusable, so
// decisions deny with health spec_error.
const CodeBudget = "budget_exceeded"

// ChildCommand is the hidden first argument with which the loopx binary
// runs as a spec evaluator child (ServeChild): `loopx __spec-eval`.
const ChildCommand = "__spec-eval"

// Defaults of the spec budget (Budget).
const (
	DefaultMemoryBudget = 512 << 20 // bytes of address space the child may add
	DefaultTimeBudget   = 5 * time.Second
)

// Budget bounds the evaluation of a spec not found in the cache: it runs in
// a child process (Exe with the single argument ChildCommand) that may grow
// its address space by at most Memory bytes (RLIMIT_AS, set by the child on
// itself before it reads the spec) and is killed after Timeout. Blowing
// either is an Errors with CodeBudget naming the spec files.
type Budget struct {
	// Exe is the binary to run (the running loopx, os.Executable).
	Exe string
	// Arg0 is the child's argv[0] (loopx's own, so that test binaries that
	// dispatch on it run loopx).
	Arg0 string
	// Memory is the child's address-space budget in bytes.
	Memory int64
	// Timeout is the child's wall-time budget.
	Timeout time.Duration
}

var (
	budgetMu sync.Mutex
	budget   *Budget
)

// SetBudget makes every later evaluation of a spec not in the cache (Load,
// LoadCached) run in a child process under b; nil evaluates in-process (Go
// tests of library packages). The loopx binary's main sets it.
func SetBudget(b *Budget) {
	budgetMu.Lock()
	defer budgetMu.Unlock()
	budget = b
	evaluated.forget()
}

func currentBudget() *Budget {
	budgetMu.Lock()
	defer budgetMu.Unlock()
	return budget
}

// BudgetFromEnv returns the budget for the running binary: the defaults,
// lowered (never raised) by LOOPX_SPEC_MEMORY_MB and LOOPX_SPEC_TIMEOUT (a
// Go duration); a value above the default, or malformed, keeps the
// default. When the running executable cannot be found, Exe is "" and
// every evaluation fails (closed) with CodeBudget.
func BudgetFromEnv() *Budget {
	exe, _ := os.Executable()
	b := &Budget{Exe: exe, Arg0: os.Args[0], Memory: DefaultMemoryBudget, Timeout: DefaultTimeBudget}
	if mb, err := strconv.ParseInt(os.Getenv("LOOPX_SPEC_MEMORY_MB"), 10, 64); err == nil && mb > 0 && mb<<20 < b.Memory {
		b.Memory = mb << 20
	}
	if d, err := time.ParseDuration(os.Getenv("LOOPX_SPEC_TIMEOUT")); err == nil && d > 0 && d < b.Timeout {
		b.Timeout = d
	}
	return b
}

// childRequest is what the parent sends the child on stdin: the spec files
// it read and hashed, so the child evaluates exactly those bytes.
type childRequest struct {
	Dir    string      `json:"dir"`
	Hash   string      `json:"hash"`
	Files  []childFile `json:"files"`
	Memory int64       `json:"memory"`
}

type childFile struct {
	Name string `json:"name"`
	Data []byte `json:"data"`
}

// childReply is what the child writes on stdout: the loaded spec or its errors.
type childReply struct {
	Spec   *Spec  `json:"spec,omitempty"`
	Errors Errors `json:"errors,omitempty"`
}

// evalInChild evaluates s in a child process under b.
func (s *specSource) evalInChild(b *Budget) (*Loaded, error) {
	req := childRequest{Dir: s.dir, Hash: s.hash, Memory: b.Memory}
	for _, f := range s.files {
		req.Files = append(req.Files, childFile{Name: f.name, Data: f.data})
	}
	in, err := json.Marshal(req)
	if err != nil {
		return nil, s.budgetErr(CodeInternal, err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.Exe, ChildCommand)
	cmd.Args[0] = b.Arg0
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitedBuffer{b: &stderr, n: 4096}
	runErr := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, s.budgetErr(CodeBudget, fmt.Sprintf("evaluating the spec took longer than its time budget (%s); a comprehension over a large range, or a very large spec? (%s)", b.Timeout, s.fileList()))
	case runErr != nil && b.Memory > 0 && outOfAddressSpace(stderr.String()):
		return nil, s.budgetErr(CodeBudget, fmt.Sprintf("evaluating the spec needed more than its memory budget (%d MiB); a comprehension over a large range? (%s)", b.Memory>>20, s.fileList()))
	case runErr != nil:
		return nil, s.budgetErr(CodeBudget, fmt.Sprintf("evaluating the spec failed in its budgeted child process (%v; %s): %s", runErr, s.fileList(), firstLine(stderr.String())))
	}
	var rep childReply
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, s.budgetErr(CodeInternal, fmt.Sprintf("the spec evaluator's answer does not decode: %v", err))
	}
	if len(rep.Errors) > 0 {
		return nil, rep.Errors
	}
	if rep.Spec == nil {
		return nil, s.budgetErr(CodeInternal, "the spec evaluator answered nothing")
	}
	js, err := json.Marshal(rep.Spec)
	if err != nil {
		return nil, s.budgetErr(CodeInternal, err.Error())
	}
	return &Loaded{Spec: rep.Spec, JSON: js, Hash: s.hash, Files: s.names()}, nil
}

// budgetErr is an error at the first spec file (the child cannot say which
// file's values it was evaluating when it ran out).
func (s *specSource) budgetErr(code, msg string) Errors {
	return Errors{newError(s.files[0].name, 1, 1, "", code, msg)}
}

// fileList names the spec files evaluated together.
func (s *specSource) fileList() string {
	return "spec files: " + strings.Join(s.names(), ", ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// limitedBuffer keeps the first n bytes written to it (a crashing child's
// stderr can be megabytes of goroutine dumps).
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// outOfAddressSpace reports whether a budgeted child's crash (its stderr)
// is its address-space limit running out: the Go runtime says "out of
// memory" when an allocation fails, but an allocation that fails inside
// the runtime elsewhere (a stack, a signal stack) crashes it with SIGSEGV
// or SIGBUS instead. The evaluator does not crash otherwise.
func outOfAddressSpace(stderr string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "SIGSEGV", "SIGBUS"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// ServeChild is the child side of a budgeted evaluation (`loopx
// __spec-eval`): it reads a request on in, limits its own address space to
// what it uses now plus the request's budget (RLIMIT_AS; the Go runtime
// then dies with "out of memory" rather than the machine swapping), sets a
// matching soft Go memory limit, evaluates in-process and writes the reply
// on out. It returns the process exit code.
func ServeChild(in io.Reader, out, errw io.Writer) int {
	var req childRequest
	if err := json.NewDecoder(in).Decode(&req); err != nil || len(req.Files) == 0 {
		fmt.Fprintf(errw, "loopx %s: a request on stdin: %v\n", ChildCommand, err)
		return 2
	}
	if req.Memory > 0 {
		debug.SetMemoryLimit(req.Memory * 3 / 4)
		if err := limitAddressSpace(req.Memory); err != nil {
			fmt.Fprintf(errw, "loopx %s: cannot limit memory: %v\n", ChildCommand, err)
			return 3
		}
	}
	src := &specSource{dir: req.Dir, hash: req.Hash}
	for _, f := range req.Files {
		src.files = append(src.files, srcFile{name: f.Name, data: f.Data})
	}
	var rep childReply
	l, err := src.loadInProcess()
	var errs Errors
	switch {
	case errors.As(err, &errs):
		rep.Errors = errs
	case err != nil:
		rep.Errors = src.budgetErr(CodeInternal, err.Error())
	default:
		rep.Spec = l.Spec
	}
	if err := json.NewEncoder(out).Encode(rep); err != nil {
		return 3
	}
	return 0
}

// IsBudget reports whether err is a spec that blew its evaluation budget
// (an Errors whose first error has CodeBudget).
func IsBudget(err error) bool {
	var errs Errors
	return errors.As(err, &errs) && len(errs) > 0 && errs[0].Code == CodeBudget
}
