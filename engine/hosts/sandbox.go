package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Sandbox is what `loopx hooks install --sandbox` asks a host's own
// sandbox to keep from an agent: the project's protected paths (writes
// denied) and loopx's anchor directory (reads denied).
type Sandbox struct {
	// Protected are the protected set's project globs (policies'
	// loopx.protected: loopx's own files, the hosts' settings, git's files
	// that run code), relative to the project root, slash-separated.
	Protected []string
	// Anchor is the project's anchor directory, absolute (its chain head
	// and read model: outside the project, an agent reads nothing there).
	Anchor string
}

// SandboxEdit is one change install --sandbox made to a host's settings,
// recorded so that uninstall takes out exactly that and doctor sees drift.
type SandboxEdit struct {
	// Key is the setting's key path, dot-separated ("sandbox.enabled",
	// "permissions.deny"; Codex: "sandbox_mode").
	Key string `json:"key"`
	// Set is the value loopx set (JSON), "" for a list or a container.
	Set json.RawMessage `json:"set,omitempty"`
	// Old is the value Set replaced (JSON, the user's looser one), ""
	// when loopx added the key.
	Old json.RawMessage `json:"old,omitempty"`
	// Items are the entries loopx appended to the list at Key (the user's
	// own entries are not recorded and stay).
	Items []string `json:"items,omitempty"`
	// Created is true when loopx created the object or list at Key; it
	// goes at uninstall once empty.
	Created bool `json:"created,omitempty"`
	// Line is the whole line Set replaced in a line-based file (Codex's
	// config.toml), which uninstall writes back byte for byte.
	Line string `json:"line,omitempty"`
	// Kept is true for a user's value already as strict as Set: install
	// left it, uninstall leaves it, doctor reports it changed.
	Kept bool `json:"kept,omitempty"`
}

// SandboxWant is one setting a host's sandbox needs from install
// --sandbox: a scalar Value at Key (always the strictest value the key
// takes, so setting it never loosens), or Items appended to the list at
// Key.
type SandboxWant struct {
	// Key is the key path in the settings document.
	Key []string
	// Value is the scalar to set (nil for a list).
	Value any
	// Items are the list entries to have.
	Items []string
}

// MergeJSONSandbox sets wants in a JSON settings document (empty = {})
// and returns it re-encoded with two-space indentation and the edits
// made. It never loosens: a scalar already at the wanted value is left
// alone (recorded as Kept: the user's, which doctor still checks), one at another value is set
// and its old value recorded; a list keeps every entry the user had and
// gains only the missing wanted ones; objects and lists are created when
// missing (recorded as Created). Errors: the document is not a JSON
// object, or a key on a path holds another type.
func MergeJSONSandbox(doc []byte, wants []SandboxWant) ([]byte, []SandboxEdit, error) {
	root, err := decodeSettings(doc)
	if err != nil {
		return nil, nil, err
	}
	var edits []SandboxEdit
	for _, w := range wants {
		parent := root
		for i, k := range w.Key[:len(w.Key)-1] {
			v, ok := parent.get(k)
			if !ok || v == nil {
				child := &object{vals: map[string]any{}}
				parent.set(k, child)
				if !hasCreated(edits, strings.Join(w.Key[:i+1], ".")) {
					edits = append(edits, SandboxEdit{Key: strings.Join(w.Key[:i+1], "."), Created: true})
				}
				v = child
			}
			o, ok := v.(*object)
			if !ok {
				return nil, nil, fmt.Errorf("settings %q is not an object", strings.Join(w.Key[:i+1], "."))
			}
			parent = o
		}
		key, last := strings.Join(w.Key, "."), w.Key[len(w.Key)-1]
		cur, has := parent.get(last)
		if w.Value == nil {
			list, ok := cur.([]any)
			created := false
			if !has || cur == nil {
				list, ok, created = []any{}, true, true
			}
			if !ok {
				return nil, nil, fmt.Errorf("settings %q is not a list", key)
			}
			var added []string
			for _, it := range w.Items {
				if !slices.Contains(list, any(it)) {
					list = append(list, it)
					added = append(added, it)
				}
			}
			if len(added) > 0 || created {
				parent.set(last, list)
				edits = append(edits, SandboxEdit{Key: key, Items: added, Created: created})
			}
			continue
		}
		set, _ := json.Marshal(w.Value)
		if has && jsonEqual(cur, w.Value) {
			edits = append(edits, SandboxEdit{Key: key, Set: set, Kept: true})
			continue
		}
		e := SandboxEdit{Key: key, Set: set}
		if has {
			e.Old, _ = json.Marshal(cur)
		}
		parent.set(last, w.Value)
		edits = append(edits, e)
	}
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, root, ""); err != nil {
		return nil, nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), edits, nil
}

// hasCreated reports whether edits already create key.
func hasCreated(edits []SandboxEdit, key string) bool {
	for _, e := range edits {
		if e.Key == key && e.Created {
			return true
		}
	}
	return false
}

// jsonEqual compares a decoded value (decodeOrdered's) with a Go scalar.
func jsonEqual(cur, want any) bool {
	a, err1 := json.Marshal(plain(cur))
	b, err2 := json.Marshal(want)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// plain turns decodeOrdered's *object into a map for marshalling.
func plain(v any) any {
	switch x := v.(type) {
	case *object:
		m := map[string]any{}
		for k, val := range x.vals {
			m[k] = plain(val)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// UnmergeJSONSandbox takes out of a JSON settings document exactly what
// edits (MergeJSONSandbox's) put in, newest first: appended list entries
// are removed (the user's stay), a replaced scalar gets its old value
// back, an added key goes, and an object or list loopx created goes once
// empty. What the user changed since is left as it is. It returns the
// document unchanged (the same bytes) when there is nothing to undo.
// Errors: the document is not a JSON object.
func UnmergeJSONSandbox(doc []byte, edits []SandboxEdit) ([]byte, error) {
	if len(edits) == 0 || len(bytes.TrimSpace(doc)) == 0 {
		return doc, nil
	}
	root, err := decodeSettings(doc)
	if err != nil {
		return nil, err
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if e.Kept {
			continue // the user's
		}
		path := strings.Split(e.Key, ".")
		parent, last := lookupParent(root, path)
		if parent == nil {
			continue
		}
		cur, has := parent.get(last)
		if !has {
			continue
		}
		switch {
		case len(e.Items) > 0 || (e.Created && e.Set == nil):
			if list, ok := cur.([]any); ok {
				for _, it := range e.Items {
					if j := slices.Index(list, any(it)); j >= 0 {
						list = slices.Delete(list, j, j+1)
					}
				}
				parent.set(last, list)
				if e.Created && len(list) == 0 {
					parent.delete(last)
				}
			} else if o, ok := cur.(*object); ok && e.Created && len(o.keys) == 0 {
				parent.delete(last)
			}
		case e.Set != nil:
			var set any
			if json.Unmarshal(e.Set, &set) != nil || !jsonEqual(cur, set) {
				continue // changed since install: the user's now
			}
			if e.Old == nil {
				parent.delete(last)
				continue
			}
			old, err := decodeOrdered(e.Old)
			if err != nil {
				continue
			}
			parent.set(last, old)
		}
	}
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, root, ""); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// lookupParent returns the object holding path's last key, and that key;
// nil when a key on the way is missing or not an object.
func lookupParent(root *object, path []string) (*object, string) {
	o := root
	for _, k := range path[:len(path)-1] {
		v, _ := o.get(k)
		next, ok := v.(*object)
		if !ok {
			return nil, ""
		}
		o = next
	}
	return o, path[len(path)-1]
}

// CheckJSONSandbox says how a JSON settings document drifted from what
// edits set: a scalar changed or removed, a list entry loopx added gone.
// One line per drift; none when everything is in place.
func CheckJSONSandbox(doc []byte, edits []SandboxEdit) []string {
	v, err := decodeOrdered(doc)
	root, ok := v.(*object)
	if err != nil || !ok {
		return []string{"the settings are not a JSON object: every sandbox setting loopx installed is gone"}
	}
	var out []string
	for _, e := range edits {
		parent, last := lookupParent(root, strings.Split(e.Key, "."))
		var cur any
		has := false
		if parent != nil {
			cur, has = parent.get(last)
		}
		switch {
		case e.Set != nil:
			var set any
			_ = json.Unmarshal(e.Set, &set)
			if !has {
				out = append(out, fmt.Sprintf("%s was removed (install set it to %s)", e.Key, e.Set))
			} else if !jsonEqual(cur, set) {
				now, _ := json.Marshal(plain(cur))
				out = append(out, fmt.Sprintf("%s is %s, not %s as installed", e.Key, now, e.Set))
			}
		case len(e.Items) > 0:
			list, _ := cur.([]any)
			for _, it := range e.Items {
				if !slices.Contains(list, any(it)) {
					out = append(out, fmt.Sprintf("%s lacks %q, which install added", e.Key, it))
				}
			}
		}
	}
	return out
}

// MergeEdits adds a new install's edits to an earlier one's record: an
// earlier edit of a key is kept (its Old is what uninstall restores, and
// a value loopx set reads as Kept the second time), a new list's items
// are added to the earlier record's.
func MergeEdits(old, add []SandboxEdit) []SandboxEdit {
	out := slices.Clone(old)
	for _, e := range add {
		i := slices.IndexFunc(out, func(o SandboxEdit) bool { return o.Key == e.Key && (o.Set == nil) == (e.Set == nil) })
		if i < 0 {
			out = append(out, e)
			continue
		}
		for _, it := range e.Items {
			if !slices.Contains(out[i].Items, it) {
				out[i].Items = append(out[i].Items, it)
			}
		}
	}
	return out
}
