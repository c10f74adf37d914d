package scaffold

import (
	"strings"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/presets"
)

// Preset is one embedded preset as `loopx preset list|show` shows it: its
// name, what it is for (the first line of its header comment, without the
// name), and for show its CUE source and the goal fields it sets.
type Preset struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Source      string            `json:"source,omitempty"`
	Settings    []presets.Setting `json:"settings,omitempty"`
}

// PresetSetting is one goal field a preset sets (presets.Setting).
type PresetSetting = presets.Setting

// PresetNames are the names of the embedded presets, sorted.
func PresetNames() []string { return presets.Names() }

// Presets lists every embedded preset with its description (no source).
func Presets() []Preset {
	out := []Preset{}
	for _, n := range presets.Names() {
		out = append(out, Preset{Name: n, Description: presetDescription(n)})
	}
	return out
}

// LookupPreset is preset name with its source and settings. Errors:
// errs.Usage unknown_preset naming the known ones; a preset that does not
// compile (a bug caught by the presets' tests).
func LookupPreset(name string) (Preset, error) {
	src, ok := presets.Source(name)
	if !ok {
		return Preset{}, errs.Usagef("unknown_preset", "unknown preset %q (known: %s)", name, strings.Join(presets.Names(), ", "))
	}
	settings, err := presets.Settings(name)
	if err != nil {
		return Preset{}, err
	}
	return Preset{Name: name, Description: presetDescription(name), Source: string(src), Settings: settings}, nil
}

func presetDescription(name string) string {
	return strings.TrimPrefix(presets.Describe(name), name+": ")
}
