package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"os"

	"github.com/loopx-dev/loopx/internal/regularfile"
)

// maxHostStateBytes bounds a host state file hashed in parts
// (~/.claude.json grows with history; larger is hashed whole instead).
const maxHostStateBytes = 256 << 20

// This file compares the parts of a host's state file that run code (the
// MCP servers in ~/.claude.json) and nothing else of it: the host
// rewrites the rest itself while it runs.

// maxHostState caps a host state file read whole (bytes); a larger one
// is compared in full.
const maxHostState = 64 << 20

// partsSig is the signature of the parts (key paths, "*" any one key) of
// the JSON object in file p: the sha256 of every value they reach, with
// its path, in a canonical encoding (keys sorted); ok is false when p does
// not exist. A file that is not a regular file, is larger than
// maxHostState or does not parse as a JSON object is signed by its whole
// content (contentSig): loopx cannot tell its parts apart, so any change
// counts.
func partsSig(p string, parts [][]string, cache *HashCache) (fileSig, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileSig{}, false
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxHostState {
		return contentSig(p, cache)
	}
	ck := p + "\x00parts"
	if sum, ok := cache.get(ck, fi); ok {
		return fileSig{size: -1, mtime: int64(fi.Mode()), sum: sum}, true
	}
	b, err := regularfile.ReadFile(p, maxHostStateBytes)
	if err != nil {
		return contentSig(p, cache)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil || dec.More() {
		return contentSig(p, cache)
	}
	found := map[string]any{}
	for _, keys := range parts {
		collectParts(doc, keys, "", found)
	}
	canon, err := json.Marshal(found) // map keys sorted
	if err != nil {
		return contentSig(p, cache)
	}
	sig := fileSig{size: -1, mtime: int64(fi.Mode()), sum: sha256.Sum256(canon)}
	cache.put(ck, fi, sig.sum) // a write while it was read changes the stat the cache is keyed by
	return sig, true
}

// collectParts adds to found every value below v that keys reach, under
// its path (each key JSON-quoted, so that no key can pass for two).
func collectParts(v any, keys []string, path string, found map[string]any) {
	if len(keys) == 0 {
		found[path] = v
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	step := func(k string) {
		q, _ := json.Marshal(k)
		collectParts(obj[k], keys[1:], path+"/"+string(q), found)
	}
	if keys[0] != "*" {
		if _, ok := obj[keys[0]]; ok {
			step(keys[0])
		}
		return
	}
	for k := range obj {
		step(k)
	}
}
