package specs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
)

// maxCacheFileBytes bounds a cached exported spec (a larger file is not
// one loopx wrote: it is ignored and the spec evaluated again).
const maxCacheFileBytes = 64 << 20

// cacheKeep is how many spec-*.json files a cache directory keeps.
const cacheKeep = 16

// cacheFile is the on-disk form of a cached Load result.
type cacheFile struct {
	Hash  string   `json:"hash"`
	Files []string `json:"files"`
	Spec  *Spec    `json:"spec"`
}

// LoadCached is Load with a cache of the exported spec keyed by its Hash
// (.loopx/cache/). It reads the spec files and hashes them
// without evaluating any CUE; if cacheDir/spec-<hex>.json holds that hash,
// the spec is decoded from it. Otherwise it calls Load and, on success,
// writes the result atomically (temp file + rename, creating cacheDir); a
// corrupt cache file is ignored and rewritten, errors are never cached, and
// a cache that cannot be written is not an error. Old cache files beyond
// the newest 16 are removed. It returns what Load returns.
func LoadCached(specDir, cacheDir string) (*Loaded, error) {
	src, errs := readSpec(specDir)
	if errs != nil {
		return nil, errs
	}
	return loadCachedFrom(src, cacheDir)
}

// loadCachedFrom is LoadCached for the spec files src read.
func loadCachedFrom(src *specSource, cacheDir string) (*Loaded, error) {
	hexHash := strings.TrimPrefix(src.hash, "sha256:")
	path := filepath.Join(cacheDir, "spec-"+hexHash+".json")
	if l := readCache(path, src); l != nil {
		return l, nil
	}
	failed := filepath.Join(cacheDir, "spec-"+hexHash+".budget.json")
	if errs := readBudgetFailure(failed, src.hash); errs != nil {
		return nil, errs
	}
	l, err := src.load()
	if IsBudget(err) {
		writeBudgetFailure(cacheDir, failed, src.hash, err.(Errors))
	}
	if err != nil {
		return nil, err
	}
	writeCache(cacheDir, path, l)
	return l, nil
}

// budgetFailure records a spec that blew its budget, so that the next
// decisions fail at once instead of spending the budget again: it holds
// while the budget is not larger than the one that was blown. (A forged
// record can only make loopx refuse a spec: fail closed.)
type budgetFailure struct {
	Hash    string        `json:"hash"`
	Memory  int64         `json:"memory"`
	Timeout time.Duration `json:"timeout"`
	Errors  Errors        `json:"errors"`
}

func readBudgetFailure(path, hash string) Errors {
	b := currentBudget()
	if b == nil {
		return nil
	}
	data, err := regularfile.ReadFile(path, maxCacheFileBytes)
	if err != nil {
		return nil
	}
	var f budgetFailure
	if json.Unmarshal(data, &f) != nil || f.Hash != hash || len(f.Errors) == 0 || b.Memory > f.Memory || b.Timeout > f.Timeout {
		return nil
	}
	for _, e := range f.Errors {
		if e == nil || e.Location.File == "" {
			return nil // a record of an older loopx, or not one at all
		}
		e.Kind = errs.Input // a spec error, whatever the file says
	}
	return f.Errors
}

func writeBudgetFailure(dir, path, hash string, es Errors) {
	b := currentBudget()
	if b == nil {
		return
	}
	data, err := json.Marshal(budgetFailure{Hash: hash, Memory: b.Memory, Timeout: b.Timeout, Errors: es})
	if err != nil {
		return
	}
	base, rel := nofollow.Split(path, 3) // <project>/.loopx/cache/<file>, no link followed
	_ = nofollow.WriteFileUnflushed(base, rel, data, 0o644)
}

func readCache(path string, src *specSource) *Loaded {
	data, err := regularfile.ReadFile(path, maxCacheFileBytes)
	if err != nil {
		return nil
	}
	var c cacheFile
	if err := json.Unmarshal(data, &c); err != nil || c.Hash != src.hash || c.Spec == nil {
		return nil
	}
	js, err := json.Marshal(c.Spec)
	if err != nil {
		return nil
	}
	return &Loaded{Spec: c.Spec, JSON: js, Hash: src.hash, Files: src.names(), Cached: true}
}

// CachePath is the cache file LoadCached reads and writes for a spec of
// hash ("sha256:<hex>") in cacheDir.
func CachePath(cacheDir, hash string) string {
	return filepath.Join(cacheDir, "spec-"+strings.TrimPrefix(hash, "sha256:")+".json")
}

// LoadFresh is Load (evaluated, in the budgeted child when a budget is
// set; the cache is never read) that also replaces the cache file for the
// result's hash in cacheDir: what adoption evaluates, and how a cache
// entry found forged is replaced. It returns what Load returns.
func LoadFresh(specDir, cacheDir string) (*Loaded, error) {
	l, err := Load(specDir)
	if err != nil {
		return nil, err
	}
	writeCache(cacheDir, CachePath(cacheDir, l.Hash), l)
	return l, nil
}

// writeCache writes l's cache file path in dir (no link followed) and
// prunes the cache; a failure is kept in l.CacheErr.
func writeCache(dir, path string, l *Loaded) {
	data, err := json.Marshal(cacheFile{Hash: l.Hash, Files: l.Files, Spec: l.Spec})
	if err != nil {
		l.CacheErr = err
		return
	}
	base, rel := nofollow.Split(path, 3) // <project>/.loopx/cache/<file>, no link followed
	if l.CacheErr = nofollow.WriteFileUnflushed(base, rel, data, 0o644); l.CacheErr != nil {
		return
	}
	pruneCache(dir, path)
}

// pruneCache removes the oldest spec-*.json files beyond cacheKeep, never keep.
func pruneCache(dir, keep string) {
	matches, err := filepath.Glob(filepath.Join(dir, "spec-*.json"))
	if err != nil || len(matches) <= cacheKeep {
		return
	}
	type entry struct {
		path string
		mod  int64
	}
	var es []entry
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil {
			es = append(es, entry{m, st.ModTime().UnixNano()})
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].mod > es[j].mod })
	for _, e := range es[min(cacheKeep, len(es)):] {
		if e.path != keep {
			base, rel := nofollow.Split(e.path, 3) // <project>/.loopx/cache/<file>, no link followed
			_ = nofollow.RemoveAll(base, rel)
		}
	}
}
