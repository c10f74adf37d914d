package hosts

import (
	"bytes"
	"fmt"
	"slices"
)

// Removed is one of loopx's entries UnmergeSettings took out of a
// settings document.
type Removed struct {
	// Event is the hook event (PreToolUse, Stop, SessionStart, …).
	Event string `json:"event"`
	// Matcher is its group's matcher ("" when the group has none).
	Matcher string `json:"matcher,omitempty"`
	// Command is the entry's command (`loopx hook …`).
	Command string `json:"command"`
}

// UnmergeSettings removes every command hook that runs `loopx hook …`
// (IsLoopxHook), under every event, from a settings document (Claude
// Code's settings.json, Codex's hooks.json) and keeps everything else in
// its order: other keys, other events, the user's own hooks beside
// loopx's in a group. A group left without hooks by the removal goes, an
// event left without groups goes, and "hooks" left empty goes; what was
// empty before stays. It returns the document unchanged (the same bytes)
// when it holds no loopx hook, else re-encoded with two-space indentation,
// and what it removed in document order. An empty document is an empty
// result. Errors: the document is not JSON, or settings/hooks/an event's
// list have the wrong type.
func UnmergeSettings(settings []byte) ([]byte, []Removed, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return settings, nil, nil
	}
	root, err := decodeSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	hv, ok := root.get("hooks")
	if !ok || hv == nil {
		return settings, nil, nil
	}
	hk, ok := hv.(*object)
	if !ok {
		return nil, nil, fmt.Errorf(`settings "hooks" is not an object`)
	}
	var removed []Removed
	for _, event := range slices.Clone(hk.keys) {
		ev, _ := hk.get(event)
		if ev == nil {
			continue
		}
		groups, ok := ev.([]any)
		if !ok {
			return nil, nil, fmt.Errorf(`settings "hooks.%s" is not a list`, event)
		}
		kept := filterEntries(groups, func(matcher string, entry *object, cmd string) bool {
			if entry == nil || !IsLoopxHook(cmd) {
				return true
			}
			removed = append(removed, Removed{Event: event, Matcher: matcher, Command: cmd})
			return false
		})
		switch {
		case len(kept) == len(groups):
		case len(kept) == 0:
			hk.delete(event)
		default:
			hk.set(event, kept)
		}
	}
	if len(removed) == 0 {
		return settings, nil, nil
	}
	if len(hk.keys) == 0 {
		root.delete("hooks")
	}
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, root, ""); err != nil {
		return nil, nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), removed, nil
}

// delete removes k, keeping the other keys' order.
func (o *object) delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
}
