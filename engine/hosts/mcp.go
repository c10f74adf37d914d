package hosts

import (
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// PathWords make a tool_input key a path key: the key is split into words
// (at "_", "-", ".", spaces and lower-to-upper case changes: "save_to",
// "outputFile", "File-Path") and names files when one of its words is one
// of these, or when, without case and separators, it contains one of
// PathParts ("notebookpath", "savefile", "workdir").
var PathWords = []string{
	"path", "paths", "pathname", "file", "files", "filename", "filenames", "filepath", "filepaths",
	"dir", "dirs", "directory", "directories", "folder", "folders", "location", "root", "cwd", "workdir",
	"src", "srcs", "source", "sources", "from", "dest", "dst", "destination", "destinations", "target", "targets",
	"fp", "fpath", "fname", "fnames", "pathspec", "loc", "filespec",
	"to", "into", "out", "output", "outputs", "outfile", "outdir", "save", "uri", "url",
}

// PathParts are the key parts that make a key a path key wherever they
// appear in it (without case and separators).
var PathParts = []string{"path", "file", "dir", "folder"}

// DestinationWords are the words (and DestinationParts the parts) of the
// path keys that name where a tool writes ("destination", "save_to",
// "output_path", "new_path", "outfile"). A read-only tool (ReadOnlyTool)
// is still checked on these.
var DestinationWords = []string{"dest", "dst", "destination", "destinations", "target", "targets", "to", "into",
	"out", "output", "outputs", "outfile", "outdir", "save", "new"}

// DestinationParts are the key parts that make a path key a destination
// key wherever they appear in it ("savepath", "outputfile", "destdir").
var DestinationParts = []string{"dest", "dst", "target", "output", "save"}

// ReadOnlyVerbs are the first words of the MCP tool names that only read.
// The tool name (the part after mcp__<server>__) is split into words at "_",
// "-", "." and lower-to-upper case changes ("read_file", "readFile",
// "list-directory"); when its first word is one of these and none of its
// words is one of WriteWords, only its destination keys are checked.
var ReadOnlyVerbs = []string{"read", "get", "list", "search", "find", "view", "show", "describe", "stat", "glob", "grep", "tree"}

// WriteWords are words that make a tool name a writer wherever they appear
// ("search_and_replace", "get_or_create", "read_then_delete",
// "ReadFileThenOverwrite").
var WriteWords = []string{"write", "overwrite", "edit", "replace", "delete", "remove", "rm", "move", "mv", "rename",
	"create", "update", "set", "put", "apply", "patch", "save", "store", "upload", "append", "insert", "copy", "cp",
	"modify", "change", "exec", "execute", "run", "make", "mkdir", "touch", "truncate", "chmod", "chown", "link",
	"unlink", "download", "clone", "checkout", "commit", "push", "merge", "import", "install", "extract", "unzip",
	"restore", "export", "dump", "sync", "transfer", "generate", "render", "convert",
	"clobber", "erase", "wipe", "purge", "destroy", "drop", "trash", "shred", "nuke", "zap", "clear", "reset",
	"revert", "rewrite", "upsert", "amend", "persist", "emit", "add", "new", "post", "send", "format", "fix",
	"unpack", "decompress", "untar", "fill", "flush", "spawn", "launch", "shell", "cmd", "kill", "mutate",
	"chgrp", "stash", "rollback", "migrate", "deploy", "publish", "del", "mod", "w", "wr"}

// MCPPaths returns the files an MCP tool's input names, as the permission
// request's paths (each is then checked as a write, like Edit's file_path):
// every string under a path key (PathWords, PathParts), at any depth of
// tool_input — in objects, in arrays, in objects in arrays, in arrays of
// arrays — in a stable order (an object's keys sorted, depth first). The
// strings of an array under a path key are paths; an object under any key
// is searched again by its own keys (a "content" inside a "files" entry is
// not a path). A file:// URL is read as its path (percent-decoded); other
// URLs ("https://…") and blank strings are not files. For a read-only tool
// (ReadOnlyTool) only the destination keys (DestinationWords,
// DestinationParts) count. Values of other types (numbers, booleans) name
// no file.
func MCPPaths(tool string, in map[string]json.RawMessage) []string {
	isKey := isPathKey
	if ReadOnlyTool(tool) {
		isKey = isDestinationKey
	}
	var out []string
	for _, k := range sortedKeys(in) {
		var v any
		if json.Unmarshal(in[k], &v) == nil {
			collectPaths(v, isKey(k), isKey, &out)
		}
	}
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

// normKey is a field name without case, "_", "-", "." and spaces
// ("filePath", "file_path" and "File-Path" are one key).
func normKey(k string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "", ".", "", " ", "").Replace(k))
}

// isPathKey reports whether the tool_input key k names files (PathWords, PathParts).
func isPathKey(k string) bool {
	return hasWordOrPart(k, PathWords, PathParts)
}

// isDestinationKey reports whether k names where a tool writes: a path
// key with a DestinationWords word or a DestinationParts part.
func isDestinationKey(k string) bool {
	return isPathKey(k) && hasWordOrPart(k, DestinationWords, DestinationParts)
}

func hasWordOrPart(k string, words, parts []string) bool {
	for _, w := range toolWords(k) {
		if slices.Contains(words, w) {
			return true
		}
	}
	n := normKey(k)
	for _, p := range parts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// collectPaths appends the paths in v: its strings when under is true (v
// sits under a path key, directly or in arrays), and whatever the objects
// inside v name by their own keys.
func collectPaths(v any, under bool, isKey func(string) bool, out *[]string) {
	switch x := v.(type) {
	case string:
		if under {
			addPath(x, out)
		}
	case []any:
		for _, e := range x {
			collectPaths(e, under, isKey, out)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			collectPaths(x[k], isKey(k), isKey, out)
		}
	}
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
