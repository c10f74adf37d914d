package decisionlog

import (
	"bytes"
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopx-dev/loopx/internal/nofollow"
)

// pruneStored removes the stored inputs and bundles that no decision-log
// file (current or rotated) names any more, after a rotation dropped the
// oldest file. keepInput is the hex of an input stored for a line not
// written yet; the bundles this Log stored are kept too. Failures leave
// files behind, never fail a decision.
func (l *Log[I, Q]) pruneStored(keepInput string) {
	inputs := map[string]bool{keepInput: true}
	bundles := map[string]map[string]bool{PolicyBundle: {}, SpecBundle: {}}
	for name, rev := range l.stored {
		if m := bundles[name]; m != nil {
			m[strings.TrimPrefix(rev, "sha256:")] = true
		}
	}
	markers := [][2]any{
		{[]byte(`"custom":{"input":"sha256:`), inputs},
		{[]byte(`"` + PolicyBundle + `":{"revision":"sha256:`), bundles[PolicyBundle]},
		{[]byte(`"` + SpecBundle + `":{"revision":"sha256:`), bundles[SpecBundle]},
	}
	for _, p := range l.Files() {
		if _, err := Scan(p, func(line []byte) bool {
			for _, m := range markers {
				if h := hexAfter(line, m[0].([]byte)); h != "" {
					m[1].(map[string]bool)[h] = true
				}
			}
			return true
		}); err != nil {
			return // keep everything rather than remove what a line names
		}
	}
	root, sd := l.under()
	removeUnnamed(root, filepath.Join(sd, InputsDirName), inputs, ".json")
	for name, keep := range bundles {
		removeUnnamed(root, filepath.Join(sd, BundlesDirName, name), keep, "")
	}
}

// hexAfter returns the 64 hex digits following marker in line, "" when
// there are none.
func hexAfter(line, marker []byte) string {
	i := bytes.Index(line, marker)
	if i < 0 || len(line) < i+len(marker)+64 {
		return ""
	}
	h := string(line[i+len(marker) : i+len(marker)+64])
	if !isHex64(h) {
		return ""
	}
	return h
}

// removeUnnamed removes the entries of root/dir named <hex><suffix> whose
// hex keep does not hold; other entries (temp files of writers in
// progress, start with ".") are left alone. No link below root is
// followed: a linked directory is left alone, a link inside is removed
// itself (internal/nofollow).
func removeUnnamed(root, dir string, keep map[string]bool, suffix string) {
	ents, err := nofollow.ReadDir(root, dir)
	if err != nil {
		return
	}
	for _, ent := range ents {
		h, ok := strings.CutSuffix(ent.Name(), suffix)
		if !ok || !isHex64(h) || keep[h] {
			continue
		}
		_ = nofollow.RemoveAll(root, filepath.Join(dir, ent.Name()))
	}
}

// pruneInputsBySize removes the oldest stored inputs (by modification
// time) while root/dir holds more than max bytes of them, down to three
// quarters of max, following no link below root (as removeUnnamed).
func pruneInputsBySize(root, dir string, max int64) {
	ents, err := nofollow.ReadDir(root, dir)
	if err != nil {
		return
	}
	type file struct {
		name  string
		size  int64
		mtime int64
	}
	var files []file
	var total int64
	for _, ent := range ents {
		h, ok := strings.CutSuffix(ent.Name(), ".json")
		if !ok || !isHex64(h) {
			continue
		}
		fi, err := ent.Info()
		if err != nil {
			continue
		}
		files = append(files, file{ent.Name(), fi.Size(), fi.ModTime().UnixNano()})
		total += fi.Size()
	}
	if total <= max {
		return
	}
	slices.SortFunc(files, func(a, b file) int {
		return cmp.Or(cmp.Compare(a.mtime, b.mtime), strings.Compare(a.name, b.name))
	})
	for _, f := range files {
		if total <= max/4*3 {
			return
		}
		if nofollow.RemoveAll(root, filepath.Join(dir, f.name)) == nil {
			total -= f.size
		}
	}
}
