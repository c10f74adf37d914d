package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// npmClient returns node's path and the directory $env names, where the
// npm package pkg (e.g. "@open-policy-agent/opa") is installed from
// testdata/<testdata>/package-lock.json. It skips the test when either is
// missing, and fails it instead under CI=true, where .ci/run installs them.
func npmClient(t *testing.T, env, pkg, testdata string) (node, dir string) {
	t.Helper()
	dir = os.Getenv(env)
	node, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not on PATH"
	case dir == "":
		missing = env + " is not set"
	default:
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			missing = "no " + pkg + " under " + env + "=" + dir
		}
	}
	if missing != "" {
		how := "install it with: d=$(mktemp -d); cp cmd/loopx/testdata/" + testdata + "/package*.json $d; npm ci --prefix $d; export " + env + "=$d"
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s cannot run under CI: %s (%s)", t.Name(), missing, how)
		}
		t.Skipf("%s; %s", missing, how)
	}
	return node, dir
}
