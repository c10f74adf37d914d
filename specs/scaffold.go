package specs

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/literal"

	"github.com/loopx-dev/loopx/presets"
)

// ScaffoldOptions are the answers `loopx init` has for a new loopx.cue.
// Every field may be empty.
type ScaffoldOptions struct {
	// Project is project.name.
	Project string
	// Goal is the id of the first goal ("" = none yet: an example is
	// commented out).
	Goal string
	// Objective is the goal's objective ("" = a placeholder sentence).
	Objective string
	// Agent is the id of the first agent ("" = none yet: commented example).
	Agent string
	// Host is the agent's host ("" = "other").
	Host string
	// Preset is the goal's preset ("" = none).
	Preset string
}

// AgentChannel are the scope.grant.commands patterns of loopx's own
// agent-channel commands (what the Stop hook and the prompt tell an agent
// to run): a new spec grants them, so the host does not prompt the human
// for each round; a human removes the line to be asked again. Human-only
// verbs (gate answer, adopt, doctor, todo done, hooks uninstall…) are not
// here, and the permission policy denies them before any grant.
var AgentChannel = []string{
	"loopx round start *", "loopx round finish *",
	"loopx decide *", "loopx prompt *",
	"loopx evidence add *",
	"loopx todo claim *", "loopx todo renew *", "loopx todo release *",
	"loopx gate raise *",
}

// AgentChannelFile is the spec file `loopx hooks install` writes the
// agent-channel grant of goals into when their spec grants no command.
const AgentChannelFile = "agent_channel.cue"

// AgentChannelGrants returns the lines of AgentChannelFile that grant
// AgentChannel to each of goals (one line each), after the file's own
// comment when header: a visible grant a human removes to be asked again.
func AgentChannelGrants(goals []string, header bool) string {
	var b strings.Builder
	if header {
		b.WriteString("// loopx's own agent-channel commands (round start and finish, decide,\n" +
			"// prompt, evidence add, todo claim/renew/release, gate raise) run without\n" +
			"// the host's prompt for these goals: written by `loopx hooks install`.\n" +
			"// Remove a goal's line, or this file, to be asked for each again.\n")
	}
	for _, g := range goals {
		fmt.Fprintf(&b, "goals: %s: scope: grant: commands: %s\n", label(g), agentChannelGrant())
	}
	return b.String()
}

// GrantsAgentChannel reports whether commands (a goal's
// scope.grant.commands) hold every AgentChannel pattern, or "*".
func GrantsAgentChannel(commands []string) bool {
	if slices.Contains(commands, "*") {
		return true
	}
	for _, c := range AgentChannel {
		if !slices.Contains(commands, c) {
			return false
		}
	}
	return true
}

// agentChannelGrant is the scope.grant.commands line of AgentChannel.
func agentChannelGrant() string {
	q := make([]string, len(AgentChannel))
	for i, c := range AgentChannel {
		q[i] = quote(c)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

var bareLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`) })

var cueKeywords = map[string]bool{
	"package": true, "import": true, "for": true, "in": true, "if": true, "let": true,
	"true": true, "false": true, "null": true, "func": true,
}

// label renders a field label: bare when it is a plain identifier, quoted otherwise.
func label(s string) string {
	if bareLabel().MatchString(s) && !cueKeywords[s] {
		return s
	}
	return literal.String.Quote(s)
}

func quote(s string) string { return literal.String.Quote(s) }

// Scaffold returns the source of a new, commented loopx/loopx.cue (the
// schema's field names) that Load accepts as long as the ids, host and preset given
// are valid (Load reports them otherwise). With an empty Goal or Agent, the
// spec has no goal or agent, and a commented-out example instead.
func Scaffold(o ScaffoldOptions) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	w("// The loopx spec (policy as code): agents, goals, their budgets and the human\n")
	w("// decisions agents stop at. loopx reads every *.cue file in this directory;\n")
	w("// `loopx check` validates them. Durations: \"90s\", \"10m\", \"24h\", \"7d\", \"2w\".\n\n")
	w("project: name: %s\n\n", quote(o.Project))

	w("// Agents are peers that work on goals. host: claude-code, codex, cursor,\n")
	w("// shell or other; role: executor (default), reviewer, proposer, evaluator…;\n")
	w("// mode: active (default) or monitor_only.\n")
	if o.Agent == "" {
		w("agents: {\n")
		w("\t// codex: {host: \"codex\", role: \"executor\"}\n")
		w("}\n\n")
	} else {
		host := o.Host
		if host == "" {
			host = "other"
		}
		w("agents: {\n")
		w("\t%s: {host: %s, role: \"executor\"}\n", label(o.Agent), quote(host))
		w("}\n\n")
	}

	w("// Goals are long-running objectives, each with its own quota, scope, gates\n")
	w("// and todos.\n")
	if o.Goal == "" {
		w("goals: {\n")
		w("\t// \"ship-v2\": {\n")
		w("\t// \tobjective: \"Ship the v2 API with a migration guide\"\n")
		w("\t// \tpreset:    \"issue-fix\" // one of: %s\n", strings.Join(presets.Names(), ", "))
		w("\t// \tquota: {window: \"24h\", rounds: 24, min_interval: \"10m\"}\n")
		w("\t// \tscope: deny: [\".loopx/**\", \"loopx/**\", \".env\", \"secrets/**\"]\n")
		w("\t// }\n")
		w("}\n")
		return formatted(b.String())
	}

	objective := o.Objective
	if objective == "" {
		objective = "Describe what this goal achieves, in one sentence"
	}
	w("goals: %s: {\n", label(o.Goal))
	w("\tobjective: %s\n", quote(objective))
	if o.Agent != "" {
		w("\t// Agents allowed on this goal (empty: every agent above).\n")
		w("\tagents: [%s]\n", quote(o.Agent))
	} else {
		w("\t// Agents allowed on this goal (empty: every agent declared).\n")
		w("\tagents: []\n")
	}
	if o.Preset != "" {
		if d := presets.Describe(o.Preset); d != "" {
			w("\n\t// %s\n", d)
		}
		w("\t// The preset sets quota, scope, gates and todos as defaults: a field\n")
		w("\t// written here replaces the preset's default.\n")
		w("\tpreset: %s\n", quote(o.Preset))
		w("\t// loopx's own agent-channel commands run without the host's prompt\n")
		w("\t// (remove the line to be asked for each).\n")
		w("\tscope: grant: commands: %s\n", agentChannelGrant())
		w("}\n")
		return formatted(b.String())
	}
	w(`
	// Budget per rolling window; leave a limit out for no limit.
	quota: {
		window:       "24h" // the rolling window
		rounds:       24    // charged rounds (bounded agent turns) per window
		min_interval: "0s"  // minimum time between round starts (e.g. "10m")
		compute:      1.0   // share of the window's wall time rounds may use; 0 pauses
		// tokens:   2_000_000
		// cost_usd: 20
	}

	// After this many rounds in a row without progress, a gate asks a human.
	stall: max_no_progress: 3

	// What agents may write and run (globs relative to the project root).
	// write, deny and commands only restrict: loopx answers deny or ask, and
	// a call nothing objects to is "defer", left to the agent host's own
	// permission prompt. loopx/, .loopx/ and the hosts' hook settings are
	// always protected; a command loopx cannot read (opaque: $(…), | sh,
	// python -c, find -exec…) is never allowed.
	scope: {
		write: ["**"]
		deny: [".loopx/**", "loopx/**", ".env", "secrets/**"]
		commands: {
			deny: ["git.push.force"] // a force push, however spelled (-f, --force, +main, --mirror, …)
			ask: ["git push*"]
			// opaque: "deny" // an opaque command: "ask" (default) or "deny"
		}
		// grant answers allow (the host skips its prompt) for a call it covers
		// whole: a tool by name, a readable command line whose every simple
		// command matches, or files that all match (and are inside write).
		// grant: {
		// 	commands: ["go test*", "go build*", "git status*", "git diff*"]
		// 	tools:    ["WebFetch"]
		// 	paths:    ["docs/**"]
		// }
		// loopx's own agent-channel commands run without the host's prompt
		// (remove the line to be asked for each).
		grant: commands: %s
	}

	// Gates are concrete questions a human (or "agent:<id>") answers before
	// the guarded actions run.
	gates: {
		// merge: {
		// 	question:      "Merge this work into the main branch?"
		// 	guards:        ["git.merge", "git.push"]
		// 	answerers:     ["human"]
		// 	expires_after: "72h"
		// 	on_expiry:     "reject"
		// }
	}

	// Evidence (test runs, PRs, notes) goes stale after this long.
	evidence: stale_after: "72h"
}
`, agentChannelGrant())
	return formatted(b.String())
}

// formatted returns src formatted as CUE (src itself if it does not parse,
// which Load then reports).
func formatted(src string) []byte {
	out, err := format.Source([]byte(src), format.Simplify())
	if err != nil {
		return []byte(src)
	}
	return out
}
