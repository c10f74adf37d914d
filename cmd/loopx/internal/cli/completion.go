package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopx-dev/loopx/engine/hosts/registry"
	"github.com/loopx-dev/loopx/engine/mutating/evidence"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
)

// flagValues are the values shell completion offers for a flag, keyed by
// the command's path and the flag's name ("todo add --priority"). Each list
// is the one the command's validation accepts, taken from where that
// validation lives, so completion never offers a value the command refuses.
func flagValues() map[string][]string {
	presets := func() []string {
		var out []string
		for _, p := range scaffold.Presets() {
			out = append(out, p.Name)
		}
		return out
	}()
	return map[string][]string{
		"todo add --priority":    todos.Priorities,
		"todo add --kind":        todos.Kinds,
		"round finish --outcome": rounds.Outcomes,
		"evidence add --kind":    evidence.Kinds,
		"evidence add --status":  evidence.Statuses,
		"hooks install --host":   registry.HookHosts(),
		"hooks uninstall --host": registry.HookHosts(),
		"agent register --host":  registry.Names(),
		"init --host":            registry.Names(),
		"init --preset":          presets,
		"check --format":         {"text", "json", "sarif"},
	}
}

// registerFlagCompletions makes every flag of flagValues complete to its
// values (cobra's __complete, behind `loopx completion bash|zsh|fish`).
func registerFlagCompletions(root *cobra.Command) {
	for key, values := range flagValues() {
		path, flag, _ := strings.Cut(key, " --")
		c, _, err := root.Find(strings.Fields(path))
		if err != nil || c.Flags().Lookup(flag) == nil {
			continue // a renamed command or flag: the completion test names it
		}
		_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
}
