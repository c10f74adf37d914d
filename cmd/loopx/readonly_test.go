package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/kernel"
)

// TestFault_ReadOnlyStoreAndAnchorDirectory makes, in a private mount
// namespace (run as root, as CI is), first the project's .loopx/ read-only
// (a read-only bind mount over it), then its anchor directory, then hides
// the anchor directory (an empty read-only tmpfs over the directory it is
// in: missing, and it cannot be made again), adding todos in each state
// and between them. Every `todo add` that exited 0 is in the store once
// the mounts are gone, none that failed is, the failures exit 3 (the store
// is unusable), and doctor finds the store, its chain and the event log
// whole. The counts are in the test's output.
func TestFault_ReadOnlyStoreAndAnchorDirectory(t *testing.T) {
	t.Parallel() // its own project; it waits on the processes it starts
	dir := project(t, 1)
	mustLoopx(t, dir, "todo", "add", "--goal", "g1", "seed")
	adir, err := kernel.AnchorDirOf(filepath.Join(dir, ".loopx"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(adir, kernel.AnchorFile)); err != nil {
		t.Fatalf("no anchor after the first write: %v", err)
	}
	script := fmt.Sprintf(`set -u
adir=%q
adds() {
	i=0
	while [ $i -lt 2 ]; do
		loopx todo add --goal g1 "$1 $i" >/dev/null 2>.loopx-err
		echo "add $1-$i $? $(head -c 300 .loopx-err | tr '\n' ' ')"
		i=$((i+1))
	done
}
adds writable
mount --bind .loopx .loopx && mount -o remount,bind,ro .loopx || exit 97
adds store-read-only
umount .loopx || exit 96
adds writable-again
mount --bind "$adir" "$adir" && mount -o remount,bind,ro "$adir" || exit 97
adds anchor-read-only
umount "$adir" || exit 96
adds writable-once-more
mount -t tmpfs -o ro,size=64k tmpfs "$(dirname "$adir")" || exit 97
adds anchor-missing
umount "$(dirname "$adir")" || exit 96
adds writable-at-last
loopx doctor >.loopx-doctor 2>&1; echo "doctor $? $(tr '\n' ' ' <.loopx-doctor)"
echo "list $(loopx todo list --goal g1 --json | tr -d '\n')"
`, adir)
	out := inMountNamespace(t, dir, script)
	acked, refused := map[string]bool{}, map[string]string{}
	var doctor string
	var list []struct{ Title string }
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "add":
			// "add STAGE-N CODE …" is the todo titled "STAGE N".
			i := strings.LastIndex(f[1], "-")
			title := f[1][:i] + " " + f[1][i+1:]
			switch f[2] {
			case "0":
				acked[title] = true
			case "3":
				refused[title] = strings.Join(f[3:], " ")
			default:
				t.Fatalf("todo add %q exited %s (want 0, or 3 for a store loopx cannot write): %s", title, f[2], line)
			}
		case len(f) >= 2 && f[0] == "doctor":
			doctor = strings.Join(f[1:], " ")
		case strings.HasPrefix(line, "list "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "list ")), &list); err != nil {
				t.Fatalf("todo list: %v\n%s", err, out)
			}
		}
	}
	in := map[string]int{}
	for _, td := range list {
		in[td.Title]++
	}
	lost, late := 0, 0
	for title := range acked {
		if in[title] != 1 {
			lost++
			t.Errorf("acknowledged %q is in the store %d time(s)", title, in[title])
		}
	}
	for title, why := range refused {
		if in[title] != 0 {
			late++
			t.Errorf("refused %q (%s) is in the store", title, why)
		}
	}
	for _, stage := range []string{"store-read-only", "anchor-read-only", "anchor-missing"} {
		for i := 0; i < 2; i++ {
			title := fmt.Sprintf("%s %d", stage, i)
			if acked[title] {
				t.Errorf("%q was acknowledged: loopx wrote with %s", title, stage)
			}
		}
	}
	for _, stage := range []string{"writable", "writable-again", "writable-once-more", "writable-at-last"} {
		if !acked[stage+" 0"] {
			t.Errorf("%q was refused (%s): the store did not take writes again", stage+" 0", refused[stage+" 0"])
		}
	}
	t.Logf("read-only .loopx/, read-only and missing anchor directory: %d todo add acknowledged, %d refused; acknowledged writes lost %d, refused writes applied later %d; doctor: %s", len(acked), len(refused), lost, late, doctor)
	for title, why := range refused {
		if strings.HasSuffix(title, " 0") {
			t.Logf("refused %q: %s", title, why)
		}
	}
	if !strings.HasPrefix(doctor, "0 ") {
		t.Errorf("doctor after the mounts are gone: %s", doctor)
	}
	if t.Failed() {
		t.Logf("%s", out)
	}
}
