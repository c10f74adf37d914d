package hosts

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// PathFields are the tool_input fields of an MCP tool (mcp__<server>__<tool>)
// that name files. Their values (a string, or an array of strings), at the
// top level of tool_input or one level down (inside an object, or inside the
// objects of an array), are the paths MCPPaths returns.
var PathFields = []string{
	"path", "paths", "file_path", "file_paths", "filepath", "filename", "notebook_path",
	"dir", "directory", "source", "source_path", "src", "old_path",
	"destination", "destination_path", "dest", "target", "target_path", "new_path", "output_path",
}

// DestinationFields are the PathFields that name where a tool writes. A
// read-only tool (ReadOnlyTool) is still checked on these.
var DestinationFields = []string{"destination", "destination_path", "dest", "target", "target_path", "new_path", "output_path"}

// ReadOnlyVerbs are the first words of the MCP tool names that only read.
// The tool name (the part after mcp__<server>__) is split into words at "_",
// "-", "." and lower-to-upper case changes ("read_file", "readFile",
// "list-directory"); when its first word is one of these, its PathFields
// are not checked as writes — except DestinationFields, which are.
var ReadOnlyVerbs = []string{"read", "get", "list", "search", "find", "view", "show", "describe", "stat", "glob", "grep", "tree"}

// MCPPaths returns the files an MCP tool's input names, as the permission
// request's paths (each is then checked as a write, like Edit's file_path):
// the values of the PathFields keys (case-insensitive; strings or arrays of
// strings; nested one level in objects and arrays of objects), in a stable
// order (the keys sorted, depth first). A file:// URL is read as its path;
// other URLs ("https://…") and empty strings are not files. For a read-only
// tool (ReadOnlyTool) only the DestinationFields are returned. Values of
// other types (numbers, booleans) name no file.
func MCPPaths(tool string, in map[string]json.RawMessage) []string {
	keys := PathFields
	if ReadOnlyTool(tool) {
		keys = DestinationFields
	}
	var out []string
	collectPaths(in, keys, 1, &out)
	return out
}

// ReadOnlyTool reports whether an MCP tool's name says it only reads: the
// first word of its name after mcp__<server>__ is one of ReadOnlyVerbs.
func ReadOnlyTool(tool string) bool {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return false
	}
	_, name, ok := strings.Cut(rest, "__")
	if !ok {
		return false
	}
	w := firstWord(name)
	for _, v := range ReadOnlyVerbs {
		if w == v {
			return true
		}
	}
	return false
}

// firstWord is the lower-cased first word of a tool name.
func firstWord(name string) string {
	for i, r := range name {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			return strings.ToLower(name[:i])
		}
		if i > 0 && r >= 'A' && r <= 'Z' {
			return strings.ToLower(name[:i])
		}
	}
	return strings.ToLower(name)
}

func collectPaths(obj map[string]json.RawMessage, keys []string, depth int, out *[]string) {
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		raw := obj[k]
		if isKey(k, keys) {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				addPath(s, out)
				continue
			}
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) == nil {
				for _, e := range list {
					var s string
					if json.Unmarshal(e, &s) == nil {
						addPath(s, out)
					}
				}
				continue
			}
		}
		if depth == 0 {
			continue
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) == nil && inner != nil {
			collectPaths(inner, keys, depth-1, out)
			continue
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil {
			for _, e := range list {
				if json.Unmarshal(e, &inner) == nil && inner != nil {
					collectPaths(inner, keys, depth-1, out)
				}
				inner = nil
			}
		}
	}
}

func isKey(k string, keys []string) bool {
	for _, x := range keys {
		if strings.EqualFold(k, x) {
			return true
		}
	}
	return false
}

// addPath appends s when it names a file: not blank, not a URL other than
// file://.
func addPath(s string, out *[]string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if i := strings.Index(s, "://"); i > 0 && !strings.ContainsAny(s[:i], "/\\ ") {
		if !strings.EqualFold(s[:i], "file") {
			return // https://…, s3://…: not a file of this machine
		}
		if u, err := url.Parse(s); err == nil && u.Path != "" {
			s = u.Path
		} else {
			s = s[i+3:] // unparsable: keep the rest as written (fail closed)
		}
		if strings.TrimSpace(s) == "" {
			return
		}
	}
	*out = append(*out, s)
}
