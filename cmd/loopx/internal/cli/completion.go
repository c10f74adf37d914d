package cli

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/hosts/registry"
	"github.com/loopx-dev/loopx/engine/mutating/evidence"
	"github.com/loopx-dev/loopx/engine/mutating/rounds"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/engine/mutating/todos"
	"github.com/loopx-dev/loopx/specs"
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
// values (cobra's __complete, behind `loopx completion bash|zsh|fish`), and
// every --goal and --agent flag to the ids the project's spec declares.
func (a *app) registerFlagCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for flag, ids := range map[string]func(*specs.Spec) []string{
			"goal":  func(s *specs.Spec) []string { return slices.Sorted(maps.Keys(s.Goals)) },
			"agent": func(s *specs.Spec) []string { return slices.Sorted(maps.Keys(s.Agents)) },
		} {
			if c.LocalFlags().Lookup(flag) != nil {
				_ = c.RegisterFlagCompletionFunc(flag, a.specCompletion(ids))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for key, gates := range stateArgs {
		words := strings.Fields(key)
		c, _, err := root.Find(words)
		if err != nil || c.Name() != words[len(words)-1] {
			continue // a renamed command: the completion test names it
		}
		c.ValidArgsFunction = a.stateCompletion(gates)
	}
	if c, _, err := root.Find([]string{"evidence", "add"}); err == nil && c.Flags().Lookup("todo") != nil {
		_ = c.RegisterFlagCompletionFunc("todo", a.stateCompletion(false))
	}
	for key, values := range flagValues() {
		path, flag, _ := strings.Cut(key, " --")
		c, _, err := root.Find(strings.Fields(path))
		if err != nil || c.Flags().Lookup(flag) == nil {
			continue // a renamed command or flag: the completion test names it
		}
		_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
}

// stateArgs are the commands whose first argument is a todo id (false)
// or a gate id (true), which completion offers from the project's state.
var stateArgs = map[string]bool{
	"todo show": false, "todo claim": false, "todo done": false, "todo block": false, "todo cancel": false,
	"todo reopen": false, "todo renew": false, "todo release": false, "todo transfer": false, "decide claim": false,
	"gate show": true, "gate answer": true, "decide gate-answer": true,
}

// stateCompletion completes the first argument to the ids of the open
// gates (gates) or of the todos not done or cancelled, read from the
// project's read model alone (engine.OpenIDs: no store opened, no lock,
// nothing written). No project, or no read model describing the store,
// completes to nothing, quietly.
func (a *app) stateCompletion(gates bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		root, err := a.root()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		now, err := a.clock()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		todos, open := engine.OpenIDs(root, a.opts.StateHome, now(), a.opts.Resident)
		if gates {
			return open, cobra.ShellCompDirectiveNoFileComp
		}
		return todos, cobra.ShellCompDirectiveNoFileComp
	}
}

// specCompletion completes to ids read from the project's spec files
// (specs.Load: it reads loopx/*.cue and writes nothing, no cache, no store).
// A project that is not found or a spec that does not load completes to
// nothing: completion must never fail loudly in the user's shell.
func (a *app) specCompletion(ids func(*specs.Spec) []string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		root, err := a.root()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		l, err := specs.Load(filepath.Join(root, scaffold.SpecDirName))
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return ids(l.Spec), cobra.ShellCompDirectiveNoFileComp
	}
}
