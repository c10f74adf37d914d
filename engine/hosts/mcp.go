package hosts

import (
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// PathFields are the tool_input fields of an MCP tool (mcp__<server>__<tool>)
// that name files, compared without case, "_" and "-" ("filePath" is
// "file_path"). Their values (a string, or an array of strings), at the
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
// "list-directory"); when its first word is one of these and none of its
// words is one of WriteWords, its PathFields are not checked as writes —
// except DestinationFields, which are.
var ReadOnlyVerbs = []string{"read", "get", "list", "search", "find", "view", "show", "describe", "stat", "glob", "grep", "tree"}

// WriteWords are words that make a tool name a writer wherever they appear
// ("search_and_replace", "get_or_create", "read_then_delete").
var WriteWords = []string{"write", "edit", "replace", "delete", "remove", "rm", "move", "mv", "rename", "create", "update",
	"set", "put", "apply", "patch", "save", "upload", "append", "insert", "copy", "cp", "modify", "change", "exec",
	"execute", "run", "make", "mkdir", "touch", "truncate", "chmod", "chown", "link", "unlink", "download", "clone", "checkout", "commit", "push", "merge"}

// MCPPaths returns the files an MCP tool's input names, as the permission
// request's paths (each is then checked as a write, like Edit's file_path):
// the values of the PathFields keys (without case, "_" or "-"; strings or arrays of
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
// first word of its name after mcp__<server>__ is one of ReadOnlyVerbs and
// no word is one of WriteWords.
func ReadOnlyTool(tool string) bool {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return false
	}
	_, name, ok := strings.Cut(rest, "__")
	if !ok {
		return false
	}
	words := toolWords(name)
	if len(words) == 0 || !slices.Contains(ReadOnlyVerbs, words[0]) {
		return false
	}
	for _, w := range words {
		if slices.Contains(WriteWords, w) {
			return false
		}
	}
	return true
}

// toolWords splits a tool name into lower-cased words at "_", "-", ".",
// spaces and lower-to-upper case changes.
func toolWords(name string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
	}
	for i, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush(i)
			start = i + 1
		case i > start && r >= 'A' && r <= 'Z' && !(name[i-1] >= 'A' && name[i-1] <= 'Z'):
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return words
}

// normKey is a field name without case, "_" and "-" ("filePath",
// "file_path" and "File-Path" are one key).
func normKey(k string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
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
	n := normKey(k)
	for _, x := range keys {
		if n == normKey(x) {
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
