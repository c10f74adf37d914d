package main

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// inMountNamespace runs the shell script in the project dir, in a private
// mount namespace of its own (unshare --mount: the mounts it makes end
// with it), with loopx on PATH and no project, agent, round or test clock
// inherited from the test's environment; it returns the script's combined
// output. It skips the test unless it runs as root (CI does) with unshare
// installed, and, outside CI, when the script exits 97: its way of saying
// that this machine refused the first mount. Any other failure fails the
// test.
func inMountNamespace(t *testing.T, dir, script string) []byte {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting in a mount namespace needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare (util-linux)")
	}
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LOOPX_PROJECT="+dir, "LOOPX_AGENT=", "LOOPX_ROUND=", "LOOPX_NOW=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 97 && os.Getenv("CI") == "" {
			t.Skipf("no mounting in a mount namespace here: %s", out)
		}
		t.Fatalf("%v\n%s", err, out)
	}
	return out
}
