package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestDescribe(t *testing.T) {
	rev := "0191670c5e2b8d7a9f1e3c4b5a6d7e8f9a0b1c2d"
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "dev"},
		{"tagged module", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"vcs pseudo-version wins over settings", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201194421-0191670c5e2b+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}}, "v0.0.0-20261201194421-0191670c5e2b+dirty"},
		{"devel with revision", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}}, "dev (0191670c5e2b)"},
		{"devel with modified revision", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: rev}}}, "dev (0191670c5e2b, modified)"},
		{"short revision kept whole", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc1234"}}}, "dev (abc1234)"},
		{"devel without vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"modified without revision", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}}, "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Describe(tt.bi); got != tt.want {
				t.Errorf("Describe = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVersion_LinkedWins(t *testing.T) {
	if got := Version("v9.9.9"); got != "v9.9.9" {
		t.Errorf("Version(v9.9.9) = %q", got)
	}
	// A test binary records neither a module version nor a VCS revision.
	bi, _ := debug.ReadBuildInfo()
	if got, want := Version("dev"), Describe(bi); got != want {
		t.Errorf("Version(dev) = %q, want %q", got, want)
	}
}
