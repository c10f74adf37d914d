package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/toolcall"
	"github.com/loopx-dev/loopx/specs"
)

// readCorpus reads a command corpus: one command line per line, "#"
// comments and blank lines skipped, a line starting with a tab continuing
// the previous command (joined with a newline, the tab removed).
func readCorpus(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\t") && len(cmds) > 0:
			cmds[len(cmds)-1] += "\n" + line[1:]
		case strings.TrimSpace(line) == "", strings.HasPrefix(line, "#"):
		default:
			cmds = append(cmds, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// readmeBenign matches docs/hosts.md's statement of the benign corpus figure.
var readmeBenign = regexp.MustCompile(`benign corpus\]\([^)]*\)\s+\((\d+)\s+command\s+lines[^)]*\),\s+(\d+)\s+become\s+ask\s+or\s+deny`)

// TestPermission_BenignCorpus decides every command line of a day of
// ordinary agent work (testdata/benign_commands.txt) as a Bash call under
// the spec `loopx init` scaffolds, and computes the share that becomes ask
// or deny: the cost of "opaque commands are never allowed" and of the
// scaffold's own patterns. Nothing is granted by default, so no line may be
// allow; docs/hosts.md states the share, and this test keeps it true.
func TestPermission_BenignCorpus(t *testing.T) {
	t.Parallel()
	cmds := readCorpus(t, "testdata/benign_commands.txt")
	if len(cmds) < 100 {
		t.Fatalf("the corpus has %d command lines, want at least 100", len(cmds))
	}
	spec := string(specs.Scaffold(specs.ScaffoldOptions{Project: "p", Goal: "g1", Agent: "claude", Host: "claude-code"}))
	e, _ := newEngine(t, spec)
	byVerdict := map[string][]string{}
	for _, c := range cmds {
		d, err := e.Permission(context.Background(), "g1", "claude", toolcall.Call{Tool: "Bash", Command: c})
		if err != nil {
			t.Fatal(err)
		}
		byVerdict[d.Verdict] = append(byVerdict[d.Verdict], c)
		if d.Verdict == "ask" || d.Verdict == "deny" {
			codes := make([]string, 0, len(d.Reasons))
			for _, r := range d.Reasons {
				codes = append(codes, r.Code)
			}
			t.Logf("%s %v: %q", d.Verdict, codes, c)
		}
	}
	if n := len(byVerdict["allow"]); n > 0 {
		t.Errorf("%d lines are allow under a spec that grants nothing: %q", n, byVerdict["allow"])
	}
	objected := len(byVerdict["ask"]) + len(byVerdict["deny"])
	if objected+len(byVerdict["defer"]) != len(cmds) {
		t.Errorf("verdicts %v do not add up to %d lines", byVerdict, len(cmds))
	}
	t.Logf("%d of %d benign lines (%.1f%%) become ask (%d) or deny (%d); %d defer",
		objected, len(cmds), 100*float64(objected)/float64(len(cmds)), len(byVerdict["ask"]), len(byVerdict["deny"]), len(byVerdict["defer"]))

	readme, err := os.ReadFile("../docs/hosts.md")
	if err != nil {
		t.Fatal(err)
	}
	m := readmeBenign.FindSubmatch(readme)
	if m == nil {
		t.Fatalf("docs/hosts.md does not state the benign corpus figure (want %q)", readmeBenign)
	}
	total, _ := strconv.Atoi(string(m[1]))
	stated, _ := strconv.Atoi(string(m[2]))
	if total != len(cmds) || stated != objected {
		t.Errorf("docs/hosts.md says %d of %d benign lines become ask or deny; measured %s", stated, total, fmt.Sprintf("%d of %d", objected, len(cmds)))
	}
}
