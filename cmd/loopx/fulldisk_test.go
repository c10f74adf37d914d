package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFullDisk_RefusedWritesAreNeverAppliedLater puts a project's .loopx/
// on a small tmpfs of its own (a private mount namespace: run as root, as
// CI is), fills it, and adds todos until loopx refuses them: every `todo
// add` that exited 0 is in the store once the disk has room again, none
// that failed is, and doctor finds the chain and the event log whole. The
// count is in the test's output.
func TestFullDisk_RefusedWritesAreNeverAppliedLater(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	dir := project(t, 1)
	if err := os.Mkdir(filepath.Join(dir, ".loopx"), 0o755); err != nil {
		t.Fatal(err)
	}
	const adds = 40
	script := fmt.Sprintf(`set -u
mount -t tmpfs -o size=512k tmpfs .loopx || exit 97
loopx todo add --goal g1 seed >/dev/null 2>&1 || exit 98
dd if=/dev/zero of=.loopx/filler bs=4k >/dev/null 2>&1
truncate -s -32K .loopx/filler
i=0
while [ $i -lt %d ]; do
	loopx todo add --goal g1 "todo $i" >/dev/null 2>.loopx-err
	echo "add $i $?"
	i=$((i+1))
done
rm .loopx/filler
loopx doctor >/dev/null 2>&1; echo "doctor $?"
echo "list $(loopx todo list --goal g1 --json | tr -d '\n')"
echo "refusal $(head -c 300 .loopx-err | tr -d '\n')"
`, adds)
	out := inMountNamespace(t, dir, script)
	acked, refused := map[string]bool{}, map[string]bool{}
	var doctor, refusal string
	var list []struct{ Title string }
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 3 && f[0] == "add":
			title := "todo " + f[1]
			switch f[2] {
			case "0":
				acked[title] = true
			case "3":
				refused[title] = true
			default:
				t.Fatalf("todo add %s exited %s (want 0, or 3 for a full disk)", f[1], f[2])
			}
		case len(f) == 2 && f[0] == "doctor":
			doctor = f[1]
		case strings.HasPrefix(sc.Text(), "refusal "):
			refusal = strings.TrimPrefix(sc.Text(), "refusal ")
		case strings.HasPrefix(sc.Text(), "list "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(sc.Text(), "list ")), &list); err != nil {
				t.Fatalf("todo list: %v\n%s", err, out)
			}
		}
	}
	if len(acked) == 0 || len(refused) == 0 {
		t.Fatalf("%d acknowledged, %d refused: the disk did not fill as planned\n%s", len(acked), len(refused), out)
	}
	in := map[string]bool{}
	for _, td := range list {
		in[td.Title] = true
	}
	lost, late := 0, 0
	for title := range acked {
		if !in[title] {
			lost++
		}
	}
	for title := range refused {
		if in[title] {
			late++
		}
	}
	t.Logf("full disk: %d todo add acknowledged, %d refused; acknowledged writes lost %d, refused writes applied later %d; doctor exit %s; the last refusal: %s", len(acked), len(refused), lost, late, doctor, refusal)
	if lost != 0 || late != 0 || doctor != "0" {
		t.Fatalf("acknowledged writes lost %d, refused writes applied later %d, doctor exit %s; want 0, 0, 0\n%s", lost, late, doctor, out)
	}
}
