package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/mutating/scaffold"
	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/internal/nofollow"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/hosts"
	"github.com/loopx-dev/loopx/engine/hosts/registry"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/specs"
)

// InstallOptions say which entries to install where.
type InstallOptions struct {
	// Host is the host's name, one whose hooks loopx answers
	// (registry.HookHost: claude-code or codex).
	Host string
	// Settings is the settings file ("" = the host's SettingsFile under
	// the project root).
	Settings string
	// Goal and Agent are written into each entry's command ("" = the
	// hook's defaults at hook time); the agent checked against the spec is
	// Agent, else the host's DefaultAgent ("claude" / "codex").
	Goal, Agent string
	// AgentAncestor describes the nearest ancestor process that runs as
	// an agent ("" when none, trust.Acting): changing installed entries
	// is then refused.
	AgentAncestor func() string
	// Sandbox (--sandbox) also writes the host's own sandbox and
	// permission settings (the adapter's MergeSandbox), never loosening
	// one the user set.
	Sandbox bool
}

// InstallResult is `loopx hooks install --json`'s document.
type InstallResult struct {
	Host     string         `json:"host"`
	Settings string         `json:"settings"`
	Agent    string         `json:"agent"`
	Commands []string       `json:"commands"`
	Changes  []hosts.Change `json:"changes"`
	Wrote    bool           `json:"wrote"`
	// Enable lists what the user still has to do in the host for the hooks
	// to run.
	Enable []string `json:"enable"`
	// Sandbox is what --sandbox wrote (absent without --sandbox).
	Sandbox *SandboxResult `json:"sandbox,omitempty"`
	// SandboxNote says, without --sandbox, which loopx calls need `loopx
	// run` once the host's own sandbox is on (text output only).
	SandboxNote string `json:"-"`
	// Granted are the goals whose agent-channel grant install wrote into
	// GrantFile (none when every goal granted it already).
	Granted   []string `json:"granted,omitempty"`
	GrantFile string   `json:"grant_file,omitempty"`
	// GrantNotes say, for each goal that grants commands of its own but
	// not loopx's agent-channel ones, what to add (install does not edit
	// a list a human wrote).
	GrantNotes []string `json:"grant_notes,omitempty"`
}

// SandboxResult is what `hooks install --sandbox` did to the host's own
// sandbox settings.
type SandboxResult struct {
	// File is the settings file written.
	File string `json:"file"`
	// Edits are the settings set or added now (none when all were in
	// place: the user's own values that are as strict stay unrecorded).
	Edits []hosts.SandboxEdit `json:"edits"`
	// Wrote is true when the file was rewritten.
	Wrote bool `json:"wrote"`
}

// CheckInstall checks the options alone, before a project is opened, and
// returns the entries to install. Errors (errs.Usage): no or an unknown
// host, a goal or agent that does not fit a hook command.
func CheckInstall(o InstallOptions) ([]hosts.Hook, error) {
	host, err := checkHost("install", o.Host)
	if err != nil {
		return nil, err
	}
	var args []string
	if o.Goal != "" {
		args = append(args, "--goal", shellWord(o.Goal))
	}
	if o.Agent != "" {
		args = append(args, "--agent", shellWord(o.Agent))
	}
	return host.Hooks(strings.Join(args, " ")), nil
}

// Install merges hooks (CheckInstall's) into the settings file of e's
// project and records them (engine.RecordHooks), after checking that the
// agent is declared in the spec with the host and may work on the goal
// (requireAgent).
// Changing loopx's entries already installed (another goal or agent, a
// restored matcher) is refused when the command descends from an agent:
// an agent could re-point its own hook at an agent with more grants.
// Errors: errs.Usage (settings that are not a JSON object, an unknown
// goal or agent); errs.No hooks_change_refused; the file system's.
func Install(e *engine.Engine, o InstallOptions, hooks []hosts.Hook) (InstallResult, error) {
	root := e.Root()
	host, err := checkHost("install", o.Host)
	if err != nil {
		return InstallResult{}, err
	}
	agent := o.Agent
	if agent == "" {
		agent = host.DefaultAgent()
	}
	if err := requireAgent(e, o.Host, o.Goal, agent); err != nil {
		return InstallResult{}, err
	}
	path := o.Settings
	if path == "" {
		path = filepath.Join(root, filepath.FromSlash(host.SettingsFile()))
	}
	old, err := readSettings(e, root, o.Settings, path)
	if err != nil {
		return InstallResult{}, err
	}
	out, changes, err := host.MergeSettings(old, hooks)
	if err != nil {
		return InstallResult{}, errs.Usagef("usage", "%s: %v", path, err)
	}
	for _, c := range changes {
		if c.Status != "updated" {
			continue
		}
		if who := o.AgentAncestor(); who != "" {
			return InstallResult{}, errs.New(errs.No, "hooks_change_refused", fmt.Sprintf(
				"%s: this would change loopx's installed %s hook, and this command descends from an agent (%s): run it in your own terminal", path, c.Event, who))
		}
	}
	res := InstallResult{Host: o.Host, Settings: path, Agent: agent, Changes: changes, Enable: host.EnableSteps(root)}
	for _, h := range hooks {
		res.Commands = append(res.Commands, h.Command)
	}
	var sbPath, sbNamed string
	var sbOld, sbOut []byte
	if !o.Sandbox {
		res.SandboxNote = host.SandboxNote()
	} else if host.SandboxFile() != "" {
		// The sandbox settings go where the hooks go when the host keeps
		// both in one file (Claude Code), else in the host's own file.
		sbPath, sbNamed = path, o.Settings
		if host.SandboxFile() != host.SettingsFile() {
			sbPath, sbNamed = filepath.Join(root, filepath.FromSlash(host.SandboxFile())), ""
		}
		facts, err := e.SandboxFacts()
		if err != nil {
			return InstallResult{}, err
		}
		sbOld = out
		if sbPath != path {
			if sbOld, err = readSettings(e, root, sbNamed, sbPath); err != nil {
				return InstallResult{}, err
			}
		}
		var edits []hosts.SandboxEdit
		if sbOut, edits, err = host.MergeSandbox(sbOld, facts); err != nil {
			return InstallResult{}, errs.Usagef("usage", "%s: %v", sbPath, err)
		}
		if edits == nil {
			edits = []hosts.SandboxEdit{}
		}
		res.Sandbox = &SandboxResult{File: sbPath, Edits: edits}
		if sbPath == path {
			out = sbOut
		}
		res.Sandbox.Wrote = !bytes.Equal(sbOld, sbOut)
	}
	if !bytes.Equal(old, out) {
		if err := writeSettings(e, root, o.Settings, path, out); err != nil {
			return InstallResult{}, err
		}
		res.Wrote = true
	}
	if res.Sandbox != nil && sbPath != path && res.Sandbox.Wrote {
		if err := writeSettings(e, root, sbNamed, sbPath, sbOut); err != nil {
			return InstallResult{}, err
		}
	}
	var sbEdits []hosts.SandboxEdit
	if res.Sandbox != nil {
		sbEdits = res.Sandbox.Edits
	}
	if err := e.RecordHooks(o.Host, path, old, hooks, sbPath, sbEdits); err != nil {
		return InstallResult{}, err
	}
	if ans, err := host.PermissionAnswer("allow", "", o.Goal, nil); err == nil && ans != nil {
		// Only for a host that honours an allow (not Codex: a grant
		// would change nothing it does).
		if err := grantAgentChannel(e, o.Goal, agent, &res); err != nil {
			return InstallResult{}, err
		}
	}
	return res, nil
}

// grantAgentChannel grants loopx's agent-channel commands
// (specs.AgentChannel) to the goals the hooks decide for (goal, or every
// goal of the spec on disk agent may work on) whose spec grants no command
// at all, in loopx/agent_channel.cue (specs.AgentChannelFile), so that the
// hook answers allow for the agent's round start and finish instead of
// leaving each to the host's prompt. It is a grant in loopx/, which loosens
// the rules: pending until a human runs `loopx adopt`, and removed by
// deleting its line. A goal that grants commands of its own gets a note
// saying what to add. The file is left as it was if the spec would not
// load with it. Errors: the file system's.
func grantAgentChannel(e *engine.Engine, goal, agent string, res *InstallResult) error {
	disk, err := e.DiskSpec()
	if err != nil || disk == nil || disk.Spec == nil {
		return nil // the spec's own errors are reported elsewhere
	}
	var grant []string
	for _, id := range slices.Sorted(maps.Keys(disk.Spec.Goals)) {
		g := disk.Spec.Goals[id]
		if goal != "" && id != goal || goal == "" && len(g.Agents) > 0 && !slices.Contains(g.Agents, agent) {
			continue
		}
		switch cmds := g.Scope.Grant.Commands; {
		case specs.GrantsAgentChannel(cmds):
		case len(cmds) == 0:
			grant = append(grant, id)
		default:
			res.GrantNotes = append(res.GrantNotes, fmt.Sprintf("goal %s grants commands of its own but not loopx's agent-channel ones, so the host asks you for each round start and finish: add %s to goals.%s.scope.grant.commands (a human then runs `loopx adopt`)",
				id, strings.Join(quoted(specs.AgentChannel), ", "), id))
		}
	}
	if len(grant) == 0 {
		return nil
	}
	rel := filepath.Join(scaffold.SpecDirName, specs.AgentChannelFile)
	path := filepath.Join(e.Root(), rel)
	before, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	text := string(before)
	if len(before) > 0 && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += specs.AgentChannelGrants(grant, len(before) == 0)
	if err := atomicfile.WriteBelow(e.Root(), rel, []byte(text)); err != nil {
		return err
	}
	if _, err := specs.Load(e.SpecDir()); err != nil {
		// Written next to a spec it conflicts with: take it back.
		if len(before) == 0 {
			_ = os.Remove(path)
		} else {
			_ = atomicfile.WriteBelow(e.Root(), rel, before)
		}
		res.GrantNotes = append(res.GrantNotes, fmt.Sprintf("could not grant loopx's agent-channel commands to %s in %s: %v", strings.Join(grant, ", "), rel, err))
		return nil
	}
	res.Granted, res.GrantFile = grant, rel
	return nil
}

// quoted quotes each of ss as a CUE string.
func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// checkHost returns the adapter of host for `hooks VERB`. Errors
// (errs.Usage usage): no host, or one whose hooks loopx does not answer.
func checkHost(verb, host string) (hosts.Adapter, error) {
	if host == "" {
		return nil, errs.Usagef("usage", "hooks %s needs --host %s", verb, strings.Join(registry.HookHosts(), " or --host "))
	}
	a, err := registry.HookHost(host)
	if err != nil {
		return nil, errs.Usagef("usage", "%v", err)
	}
	return a, nil
}

// shellWord quotes s for a settings command line when it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// requireAgent checks, before `loopx hooks install`, that the agent the
// hook will decide for is declared in the spec with the installed host
// (hosts.CheckAgent) and, when goal is given, may work on that goal as
// every decision decides it (engine.AgentOnGoal: the spec's
// goals.<g>.agents and the agent's registration), so that the hook does
// not deny every call. Errors: the spec's; errs.Usage unknown_goal,
// unknown_agent, agent_host_mismatch, agent_not_on_goal; the store's or
// the policy's when the rule cannot be evaluated.
func requireAgent(e *engine.Engine, host, goal, agent string) error {
	sp, err := e.Spec()
	if err != nil {
		return err
	}
	hostOf := map[string]string{}
	for id, a := range sp.Spec.Agents {
		hostOf[id] = a.Host
	}
	if err := hosts.CheckAgent(hostOf, host, agent); err != nil {
		if errs.CodeOf(err) == "unknown_agent" && pendingDeclares(e, func(sp *specs.Spec) bool { _, ok := sp.Agents[agent]; return ok }) {
			return hosts.AgentPending(agent)
		}
		return err
	}
	if goal == "" {
		return nil
	}
	if err := e.RequireGoal(goal); err != nil {
		return err
	}
	on, err := e.AgentOnGoal(context.Background(), goal, agent)
	if err != nil {
		return err
	}
	if !on {
		if pendingDeclares(e, func(sp *specs.Spec) bool { g, ok := sp.Goals[goal]; return ok && slices.Contains(g.Agents, agent) }) {
			return hosts.OnGoalPending(agent, goal)
		}
		return hosts.NotOnGoal(agent, goal, sp.Spec.Goals[goal].Agents)
	}
	return nil
}

// pendingDeclares reports whether rule changes wait in loopx/ for a
// human's adoption and the spec on disk satisfies has: what the hook needs
// is written, and only `loopx adopt` stands between it and the hook.
func pendingDeclares(e *engine.Engine, has func(*specs.Spec) bool) bool {
	if e.Pending() == nil {
		return false
	}
	disk, err := e.DiskSpec()
	return err == nil && disk != nil && disk.Spec != nil && has(disk.Spec)
}

// settingsBase returns the directory a settings file is reached from
// without following links, and the file's path below it: the project root
// for the host's own settings file, the directory of a file named with
// --settings (the user named it).
func settingsBase(root, named, path string) (string, string) {
	if named != "" {
		return filepath.Dir(path), filepath.Base(path)
	}
	rel, err := nofollow.Rel(root, path)
	if err != nil {
		return filepath.Dir(path), filepath.Base(path)
	}
	return root, rel
}

// readSettings reads the settings file at path (nil when there is none),
// refusing a link at it or at a directory below its base (settingsBase):
// loopx never writes a host's settings through a link an agent may have
// placed. A link found is audited (engine.AuditLink) and is errs.No
// settings_link, saying what was found. Errors: that; reading.
func readSettings(e *engine.Engine, root, named, path string) ([]byte, error) {
	base, rel := settingsBase(root, named, path)
	f, err := nofollow.OpenFile(base, rel, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, settingsError(e, err)
	}
	defer f.Close()
	return io.ReadAll(f)
}

// writeSettings writes out over the settings file at path in place (it
// keeps its mode), creating it and its directories when missing, without
// following a link (as readSettings). Errors: errs.No settings_link; writing.
func writeSettings(e *engine.Engine, root, named, path string, out []byte) error {
	base, rel := settingsBase(root, named, path)
	if err := nofollow.MkdirAll(base, filepath.Dir(rel), 0o755); err != nil {
		return settingsError(e, err)
	}
	f, err := nofollow.OpenFile(base, rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return settingsError(e, err)
	}
	_, werr := f.Write(out)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// settingsError is err, audited and made errs.No settings_link when it is
// a link found (nofollow.ErrLink).
func settingsError(e *engine.Engine, err error) error {
	if !errors.Is(err, nofollow.ErrLink) {
		return err
	}
	link, re := audit.LinkRefusal(err)
	e.AuditRefusal("fs.link_refused", "writing the host's settings", "loopx", link, re)
	return errs.New(errs.No, "settings_link", err.Error()+"; remove the link and write a plain settings file there, then install again")
}
