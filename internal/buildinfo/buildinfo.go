// Package buildinfo says which loopx a binary is: the version it was built
// as, read from the Go build information when no version was linked in.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Unversioned is the version of a build that names nothing better: no
// version linked in, no module version and no VCS revision recorded.
const Unversioned = "dev"

// Version is linked, unless it is "" or Unversioned, else what the running
// binary's build information names (Describe of debug.ReadBuildInfo).
func Version(linked string) string {
	if linked != "" && linked != Unversioned {
		return linked
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Unversioned
	}
	return Describe(bi)
}

// Describe is the version bi names: the main module's version when it has
// one (a tagged release, `go install …@v1.2.3`, or the pseudo-version Go
// stamps from the VCS, "+dirty" when the work tree had changes); else, from
// the vcs.revision and vcs.modified settings, "dev (abc1234)" or
// "dev (abc1234, modified)" (the revision cut to 12 characters); else
// Unversioned (a test binary, a build with -buildvcs=false). A nil bi is
// Unversioned.
func Describe(bi *debug.BuildInfo) string {
	if bi == nil {
		return Unversioned
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return Unversioned
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	parts := []string{rev}
	if modified {
		parts = append(parts, "modified")
	}
	return Unversioned + " (" + strings.Join(parts, ", ") + ")"
}
