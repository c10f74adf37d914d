package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"
)

// Hook is one hook entry loopx installs in a host's settings:
// hooks.<Event>[] = {"matcher": Matcher, "hooks": [{"type": "command",
// "command": Command, "timeout": Timeout}]}.
type Hook struct {
	// Event is the hook event (PreToolUse, Stop, SessionStart).
	Event string
	// Matcher selects tools (PreToolUse) or sources (SessionStart); "" =
	// every occurrence of the event (no matcher key).
	Matcher string
	// Command is the shell command the host runs.
	Command string
	// Timeout is the host's limit for the command, in seconds.
	Timeout int
}

// HookTimeout is the timeout (seconds) loopx's hook entries declare. A host
// treats a timed-out hook as "proceed", so loopx's own waits (the state
// lock) must stay below it.
const HookTimeout = 10

// SessionStartMatcher selects every SessionStart source.
const SessionStartMatcher = "startup|resume|clear|compact"

// HookCommand is the command of loopx's hook entry for host and event:
// "loopx hook HOST --event EVENT" followed by args (already shell-quoted
// flags such as "--goal g1 --agent claude"; may be empty). The event is in
// the command so that loopx knows it even when the payload is unreadable.
func HookCommand(host, event, args string) string {
	c := "loopx hook " + host + " --event " + event
	if args != "" {
		c += " " + args
	}
	return c
}

// CheckSettings reports how a settings document (Claude Code's
// settings.json or Codex's hooks.json) differs from the hooks loopx
// installed: one message per hook whose entry is missing (no group of the
// event runs its command) or changed (the command is there, but under
// another matcher or with another timeout, or the hook is not a command
// hook). A document that is not a JSON object with an object "hooks" is
// one problem. No problems means every entry is in place.
func CheckSettings(settings []byte, want []Hook) []string {
	v, err := decodeOrdered(settings)
	if err != nil {
		return []string{fmt.Sprintf("the settings are not JSON (%v): every loopx hook is gone", err)}
	}
	root, ok := v.(*object)
	if !ok {
		return []string{"the settings are not a JSON object: every loopx hook is gone"}
	}
	hv, _ := root.get("hooks")
	hk, ok := hv.(*object)
	if !ok {
		return []string{`the settings have no "hooks" object: every loopx hook is gone`}
	}
	var problems []string
	for _, h := range want {
		ev, _ := hk.get(h.Event)
		groups, _ := ev.([]any)
		found, changed := false, ""
		for _, g := range groups {
			grp, ok := g.(*object)
			if !ok {
				continue
			}
			mv, hasMatcher := grp.get("matcher")
			matcher, _ := mv.(string)
			hs, _ := grp.get("hooks")
			list, _ := hs.([]any)
			for _, x := range list {
				xo, ok := x.(*object)
				if !ok {
					continue
				}
				c, _ := xo.get("command")
				if cmd, _ := c.(string); cmd != h.Command {
					continue
				}
				t, _ := xo.get("type")
				tv, _ := xo.get("timeout")
				switch {
				case t != "command":
					changed = fmt.Sprintf("its type is %v, not command", t)
				case (h.Matcher == "" && hasMatcher && matcher != "" && matcher != "*") || (h.Matcher != "" && matcher != h.Matcher):
					changed = fmt.Sprintf("its matcher is %q, not %q", matcher, h.Matcher)
				case fmt.Sprint(tv) != fmt.Sprint(h.Timeout):
					changed = fmt.Sprintf("its timeout is %v, not %d", tv, h.Timeout)
				default:
					found = true
				}
			}
		}
		switch {
		case found:
		case changed != "":
			problems = append(problems, fmt.Sprintf("%s hook `%s` changed: %s", h.Event, h.Command, changed))
		default:
			problems = append(problems, fmt.Sprintf("%s hook `%s` is missing", h.Event, h.Command))
		}
	}
	return problems
}

// Change says what MergeSettings did with one hook: Status is "added",
// "updated" (a loopx hook command with other arguments was replaced in
// place) or "unchanged".
type Change struct {
	// Event is the hook event.
	Event string `json:"event"`
	// Status is "added", "updated" or "unchanged".
	Status string `json:"status"`
}

// IsLoopxHook reports whether a settings command runs `loopx hook …`
// (argv[0]'s base name loopx, then "hook").
func IsLoopxHook(command string) bool {
	f := strings.Fields(command)
	return len(f) >= 2 && path.Base(f[0]) == "loopx" && f[1] == "hook"
}

// HasLoopxHook reports whether a settings document (Claude Code's
// settings.json, Codex's hooks.json) has at least one command hook that
// runs `loopx hook` (IsLoopxHook) under any event; false for a document
// that is not such JSON.
func HasLoopxHook(doc []byte) bool {
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(doc, &s) != nil {
		return false
	}
	for _, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if IsLoopxHook(h.Command) {
					return true
				}
			}
		}
	}
	return false
}

// decodeSettings decodes a settings document keeping its keys' order: an
// empty one (only spaces) is an empty object. Errors: it is not JSON, or
// not a JSON object.
func decodeSettings(doc []byte) (*object, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return &object{vals: map[string]any{}}, nil
	}
	v, err := decodeOrdered(doc)
	if err != nil {
		return nil, fmt.Errorf("settings are not JSON: %w", err)
	}
	o, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("settings are not a JSON object")
	}
	return o, nil
}

// MergeSettings merges hooks into a settings document (Claude Code's
// settings.json or Codex's hooks.json; empty = {}) and returns the new
// document, indented with two spaces, with every other key, hook and the
// keys' order kept. A hook whose event already has a loopx hook command is
// left in place, its command, type and timeout set to loopx's ("updated"
// when any differed); one under another matcher (an edited or narrowed
// matcher) is moved to a group of its own with loopx's matcher. Merging
// twice adds nothing. Errors: the document is not JSON, or settings/hooks/the
// event's list have the wrong type.
func MergeSettings(settings []byte, hooks []Hook) ([]byte, []Change, error) {
	root, err := decodeSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	hv, ok := root.get("hooks")
	if !ok || hv == nil {
		hv = &object{vals: map[string]any{}}
		root.set("hooks", hv)
	}
	hk, ok := hv.(*object)
	if !ok {
		return nil, nil, fmt.Errorf(`settings "hooks" is not an object`)
	}
	var changes []Change
	for _, h := range hooks {
		ev, _ := hk.get(h.Event)
		if ev == nil {
			ev = []any{}
		}
		groups, ok := ev.([]any)
		if !ok {
			return nil, nil, fmt.Errorf(`settings "hooks.%s" is not a list`, h.Event)
		}
		status := "added"
		kept := filterEntries(groups, func(matcher string, xo *object, cmd string) bool {
			if xo == nil || !IsLoopxHook(cmd) || status != "added" {
				return true
			}
			// loopx's entry for this event: keep it in place when only
			// its command, timeout or type differ; move it to a group
			// of its own when its group's matcher is not loopx's.
			if matcher != h.Matcher {
				status = "updated"
				return false
			}
			t, _ := xo.get("type")
			tv, _ := xo.get("timeout")
			status = "unchanged"
			if cmd != h.Command || t != "command" || fmt.Sprint(tv) != fmt.Sprint(h.Timeout) {
				xo.set("type", "command")
				xo.set("command", h.Command)
				xo.set("timeout", json.Number(fmt.Sprint(h.Timeout)))
				status = "updated"
			}
			return true
		})
		groups = kept
		hk.set(h.Event, groups)
		if status == "added" || (status == "updated" && !hasCommand(groups, h.Command)) {
			entry := &object{vals: map[string]any{}}
			entry.set("type", "command")
			entry.set("command", h.Command)
			entry.set("timeout", json.Number(fmt.Sprint(h.Timeout)))
			group := &object{vals: map[string]any{}}
			if h.Matcher != "" {
				group.set("matcher", h.Matcher)
			}
			group.set("hooks", []any{entry})
			hk.set(h.Event, append(groups, group))
		}
		changes = append(changes, Change{Event: h.Event, Status: status})
	}
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, root, ""); err != nil {
		return nil, nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), changes, nil
}

// object is a JSON object that keeps its keys' order.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

// filterEntries returns groups (a hook event's list of matcher groups)
// with each hook entry kept when keep says so: keep gets the group's
// matcher, the entry (nil when it is not an object) and its command. A
// group whose entries changed keeps the rest, one left with none is
// dropped; a group that is not an object, or whose hooks are not a list,
// is kept as it is. Shared by install (updating loopx's entry in place)
// and uninstall (removing loopx's entries).
func filterEntries(groups []any, keep func(matcher string, entry *object, cmd string) bool) []any {
	kept := groups[:0:0]
	for _, g := range groups {
		grp, ok := g.(*object)
		if !ok {
			kept = append(kept, g)
			continue
		}
		mv, _ := grp.get("matcher")
		matcher, _ := mv.(string)
		hs, _ := grp.get("hooks")
		list, ok := hs.([]any)
		if !ok {
			kept = append(kept, g)
			continue
		}
		rest := list[:0:0]
		for _, x := range list {
			xo, _ := x.(*object)
			c, _ := xo.get2("command")
			cmd, _ := c.(string)
			if keep(matcher, xo, cmd) {
				rest = append(rest, x)
			}
		}
		if len(rest) == 0 && len(list) > 0 {
			continue
		}
		if len(rest) != len(list) {
			grp.set("hooks", rest)
		}
		kept = append(kept, g)
	}
	return kept
}

// get2 is get on a possibly nil object.
func (o *object) get2(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	return o.get(k)
}

// hasCommand reports whether any group's hooks run command.
func hasCommand(groups []any, command string) bool {
	for _, g := range groups {
		grp, ok := g.(*object)
		if !ok {
			continue
		}
		hs, _ := grp.get("hooks")
		list, _ := hs.([]any)
		for _, x := range list {
			if xo, ok := x.(*object); ok {
				if c, _ := xo.get("command"); c == command {
					return true
				}
			}
		}
	}
	return false
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// decodeOrdered decodes one JSON document into *object, []any, string,
// json.Number, bool and nil values; trailing data is an error.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON document")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := &object{vals: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.set(kt.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return t, nil
}

// encodeOrdered writes v indented by two spaces per level.
func encodeOrdered(w *bytes.Buffer, v any, indent string) error {
	inner := indent + "  "
	switch x := v.(type) {
	case *object:
		if len(x.keys) == 0 {
			w.WriteString("{}")
			return nil
		}
		w.WriteString("{\n")
		for i, k := range x.keys {
			w.WriteString(inner)
			if err := encodeScalar(w, k); err != nil {
				return err
			}
			w.WriteString(": ")
			if err := encodeOrdered(w, x.vals[k], inner); err != nil {
				return err
			}
			if i < len(x.keys)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "}")
	case []any:
		if len(x) == 0 {
			w.WriteString("[]")
			return nil
		}
		w.WriteString("[\n")
		for i, e := range x {
			w.WriteString(inner)
			if err := encodeOrdered(w, e, inner); err != nil {
				return err
			}
			if i < len(x)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "]")
	default:
		return encodeScalar(w, v)
	}
	return nil
}

func encodeScalar(w *bytes.Buffer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	w.Write(bytes.TrimRight(b.Bytes(), "\n"))
	return nil
}
