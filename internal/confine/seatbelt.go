package confine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// sandboxExec is macOS's sandbox-exec, or why it cannot confine here: it
// is missing, or a profile of the kind Profile writes does not run.
func sandboxExec() (string, error) {
	const path = "/usr/bin/sandbox-exec"
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s is not there: %v", path, err)
	}
	if out, err := exec.Command(path, "-p", "(version 1)\n(allow default)\n(deny file-write* (subpath \"/\"))\n", "/usr/bin/true").CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s cannot make a sandbox here: %v %s", path, err, strings.TrimSpace(string(out)))
	}
	return path, nil
}

// Profile is the macOS sandbox (sandbox-exec, Seatbelt) profile of l, from
// the same plan as the Linux sandbox: every write refused but below the
// work tree, git's common directory, the home's writable paths, the
// spec's writable paths and the temporary directories; below those the
// protected paths refused again (their existing matches, and for a glob
// the name without its '*', as Prepare protects them: a missing one is
// refused too, no placeholder needed); the hidden directories neither
// readable nor writable; the ssh-agent's socket not connectable. What it
// cannot do that Linux's does: no PID namespace (processes outside are
// visible and signalable), no private /tmp or runtime directory (their
// sockets stay reachable), no new session. Untested: loopx's tests run
// on Linux.
func Profile(l Layout) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n")
	writable := []string{"/dev", "/private/tmp", "/private/var/folders", l.Root}
	if l.GitDir != "" {
		writable = append(writable, l.GitDir)
	}
	for _, h := range l.HomeWritable {
		writable = append(writable, filepath.Join(l.Home, h))
	}
	writable = append(writable, l.Writable...)
	if l.Broker != "" {
		writable = append(writable, l.Broker)
	}
	b.WriteString("(allow file-write*")
	for _, w := range writable {
		fmt.Fprintf(&b, "\n  (subpath %s)", sbplString(w))
	}
	b.WriteString(")\n(deny file-write*")
	for _, t := range targets(l) {
		paths := []string{t.path}
		if t.glob {
			paths, _ = doublestar.FilepathGlob(t.path, doublestar.WithNoFollow())
		}
		for _, p := range paths {
			op := "literal"
			if t.dir || isDir(p) {
				op = "subpath"
			}
			fmt.Fprintf(&b, "\n  (%s %s)", op, sbplString(p))
		}
	}
	b.WriteString(")\n")
	for _, h := range l.Hidden {
		fmt.Fprintf(&b, "(deny file-read* file-write* (subpath %s))\n", sbplString(h))
	}
	for _, s := range l.Sockets {
		fmt.Fprintf(&b, "(deny network-outbound (remote unix-socket (path-literal %s)))\n", sbplString(s))
	}
	return b.String()
}

// sbplString quotes s as a profile's string literal.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
