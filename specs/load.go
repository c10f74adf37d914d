// Package specs owns the loopx spec: the embedded CUE schema, and loading,
// validating and exporting a project's loopx/*.cue files into a [Spec].
package specs

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/presets"
)

// maxSpecFileBytes bounds one spec file: far above any spec a person
// writes, far below what would exhaust memory before CUE's own budget runs.
const maxSpecFileBytes = 16 << 20

// schemaSource is the CUE schema every spec is unified with (#Spec).
//
//go:embed schema.cue
var schemaSource []byte

// SchemaSource returns the embedded CUE schema (specs/schema.cue) that Load
// unifies every spec with.
func SchemaSource() []byte { return append([]byte(nil), schemaSource...) }

// SchemaFile is the schema's file name in the loopx source tree, as CUE
// errors about the schema name it.
const SchemaFile = schemaFile

const (
	schemaFile = "specs/schema.cue"
	// cacheFormat versions the hash and the cache files: change it whenever
	// Load's output for the same inputs changes (derived fields, defaults in Go).
	cacheFormat = "loopx-spec-v1"
	// evaluatorUses bounds how many loads share one CUE context: a context only
	// grows, so a long-running process gets a fresh one now and then.
	evaluatorUses = 64
)

// Loaded is a loaded and validated spec.
type Loaded struct {
	// Spec is the validated spec with defaults and derived *_seconds fields.
	Spec *Spec
	// JSON is json.Marshal(Spec): the document policies see as data.loopx.spec.
	JSON []byte
	// Hash is "sha256:<hex>" over the schema, the presets and the spec files'
	// names and contents: it changes exactly when the result of Load can.
	Hash string
	// Files are the spec files that were loaded, relative to the project root
	// ("loopx/loopx.cue"), sorted.
	Files []string
	// Cached is true when Spec was decoded from the cache (LoadCached)
	// rather than evaluated: it is only as trustworthy as the cache file,
	// which anyone who can write .loopx/ can forge, so callers compare its
	// ExportHash with one they trust before relying on it.
	Cached bool
	// CacheErr is why the cache file of this result could not be written
	// (LoadCached, LoadFresh): a *nofollow.LinkError when a link is at
	// .loopx/cache or the file; nil when it was written, or not tried.
	// The result is good all the same: only the next load is slower.
	CacheErr error
}

// ExportHash is "sha256:<hex>" over JSON, the exported spec: what a
// trusted record of an export (the adopted rules) is compared with.
func (l *Loaded) ExportHash() string { return ExportHash(l.JSON) }

// ExportHash is "sha256:<hex>" over an exported spec's bytes (Loaded.JSON).
func ExportHash(js []byte) string {
	h := sha256.Sum256(js)
	return "sha256:" + hex.EncodeToString(h[:])
}

// Load loads the spec in specDir (a project's loopx/ directory): every *.cue
// file directly in it, sorted by name (names starting with "." or "_" are
// ignored), compiled with the schema's definitions in scope, unified with
// #Spec, with each goal's preset applied, validated concretely and checked
// further in Go (gate questions, on_expiry, monitors' every, ids, durations).
//
// On failure the error is an [Errors] holding every problem found, each
// positioned in the user's files (File relative to specDir's parent).
// Load never panics.
func Load(specDir string) (*Loaded, error) {
	src, errs := readSpec(specDir)
	if errs != nil {
		return nil, errs
	}
	return src.load()
}

// specSource is the spec files of one project, read but not evaluated.
type specSource struct {
	dir   string // the spec directory as given
	files []srcFile
	hash  string // "sha256:<hex>"
}

type srcFile struct {
	name string // relative to the project root, slash-separated
	data []byte
}

// readSpec reads the *.cue files of specDir and computes their hash.
func readSpec(specDir string) (*specSource, Errors) {
	abs, err := filepath.Abs(specDir)
	if err != nil {
		abs = filepath.Clean(specDir)
	}
	base := filepath.Base(abs)
	noSpec := func(format string, args ...any) Errors {
		return Errors{newError(base, 0, 0, "", CodeNoSpec, fmt.Sprintf(format, args...))}
	}
	entries, err := os.ReadDir(specDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, noSpec("no spec directory %s/ (run `loopx init`)", base)
		}
		return nil, noSpec("cannot read the spec directory: %v", err)
	}
	src := &specSource{dir: specDir}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".cue") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		full := filepath.Join(specDir, name)
		if !e.Type().IsRegular() {
			st, err := os.Stat(full) // follow symlinks
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
		}
		data, err := regularfile.ReadFile(full, maxSpecFileBytes)
		rel := base + "/" + name
		if err != nil {
			return nil, Errors{newError(rel, 0, 0, "", CodeNoSpec, fmt.Sprintf("cannot read spec file: %v", err))}
		}
		src.files = append(src.files, srcFile{name: rel, data: data})
	}
	if len(src.files) == 0 {
		return nil, noSpec("no .cue files in %s/ (run `loopx init`)", base)
	}
	src.sortAndHash()
	return src, nil
}

// sortAndHash sorts s's files by name and computes its hash.
func (s *specSource) sortAndHash() {
	sort.Slice(s.files, func(i, j int) bool { return s.files[i].name < s.files[j].name })
	h := sha256.New()
	h.Write(staticDigest())
	for _, f := range s.files {
		fmt.Fprintf(h, "file %d %s\n%d\n", len(f.name), f.name, len(f.data))
		h.Write(f.data)
	}
	s.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// LoadFiles is Load of specDir as though it held exactly files (names in
// specDir, contents; none is read from disk): how a spec is vetted before
// it is written (`loopx init`). Its Hash is the one Load gives once they
// are written, so the process does not evaluate them again then.
func LoadFiles(specDir string, files map[string][]byte) (*Loaded, error) {
	abs, err := filepath.Abs(specDir)
	if err != nil {
		abs = filepath.Clean(specDir)
	}
	base := filepath.Base(abs)
	if len(files) == 0 {
		return nil, Errors{newError(base, 0, 0, "", CodeNoSpec, fmt.Sprintf("no .cue files in %s/ (run `loopx init`)", base))}
	}
	src := &specSource{dir: specDir}
	for name, data := range files {
		src.files = append(src.files, srcFile{name: base + "/" + name, data: data})
	}
	src.sortAndHash()
	return src.load()
}

func (s *specSource) names() []string {
	out := make([]string, len(s.files))
	for i, f := range s.files {
		out[i] = f.name
	}
	return out
}

// staticDigest is the digest of everything built into the binary that
// shapes Load's result: the cache format, the schema and every preset.
var staticDigest = sync.OnceValue(func() []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\nschema %d\n", cacheFormat, len(schemaSource))
	h.Write(schemaSource)
	for _, n := range presets.Names() {
		b, _ := presets.Source(n)
		fmt.Fprintf(h, "preset %s %d\n", n, len(b))
		h.Write(b)
	}
	return h.Sum(nil)
})

// evaluator is a CUE context with the schema compiled in it. It is not safe
// for concurrent use: evalMu guards the current one.
type evaluator struct {
	ctx     *cue.Context
	root    cue.Value // the schema file (its definitions are the user's scope)
	spec    cue.Value // #Spec
	presets map[string]cue.Value
	uses    int
}

var (
	evalMu  sync.Mutex
	current *evaluator
	// evaluations counts CUE evaluations of user specs (tests check that a
	// cache hit does none).
	evaluations atomic.Int64
)

func newEvaluator() (*evaluator, error) {
	// Pin the evaluator: CUE_EXPERIMENT and CUE_DEBUG in the environment must
	// not change what a spec means.
	ctx := cuecontext.New(cuecontext.EvaluatorVersion(cuecontext.EvalV3), cuecontext.CUE_DEBUG(""))
	root := ctx.CompileBytes(schemaSource, cue.Filename(schemaFile))
	if err := root.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	spec := root.LookupPath(cue.MakePath(cue.Def("#Spec")))
	if err := spec.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema: #Spec: %w", err)
	}
	return &evaluator{ctx: ctx, root: root, spec: spec, presets: map[string]cue.Value{}}, nil
}

// def returns the schema definition name ("#Goal").
func (ev *evaluator) def(name string) cue.Value {
	return ev.root.LookupPath(cue.MakePath(cue.Def(name)))
}

// preset returns preset name compiled in ev's context.
func (ev *evaluator) preset(name string) (cue.Value, bool, error) {
	if v, ok := ev.presets[name]; ok {
		return v, true, nil
	}
	src, ok := presets.Source(name)
	if !ok {
		return cue.Value{}, false, nil
	}
	v := ev.ctx.CompileBytes(src, cue.Filename(presetFile(name)))
	if err := v.Err(); err != nil {
		return cue.Value{}, true, err
	}
	ev.presets[name] = v
	return v, true, nil
}

func presetFile(name string) string { return "presets/" + name + ".cue" }

// load evaluates s: in a child process under the budget set with
// SetBudget, else in-process; a spec this process evaluated already (the
// same files at the same place: evaluated) is not evaluated again.
func (s *specSource) load() (*Loaded, error) {
	key := s.evalKey()
	if l := evaluated.get(key, s); l != nil {
		return l, nil
	}
	var l *Loaded
	var err error
	if b := currentBudget(); b != nil {
		l, err = s.evalInChild(b)
	} else {
		l, err = s.loadInProcess()
	}
	if err == nil {
		evaluated.put(key, l)
	}
	return l, err
}

// evaluatedKeep is how many evaluated specs a process keeps (evaluated).
const evaluatedKeep = 8

// evaluated keeps the specs this process evaluated successfully, newest
// last: one command often evaluates the same files more than once (`loopx
// init` vets its scaffold, loads what it wrote and adopts it), and each
// evaluation of a process under a budget is a child process of its own.
// Unlike the cache file (LoadCached), nobody but this process can write
// it, so a result from it is as trustworthy as an evaluation. SetBudget
// empties it: a budget can turn a success into a failure.
var evaluated evalMemo

// evalMemo is a small list of evaluated specs by evalKey.
type evalMemo struct {
	mu      sync.Mutex
	entries []evalEntry
}

type evalEntry struct {
	key  string
	json []byte // the exported spec (Loaded.JSON)
}

// evalKey is what an evaluation of s depends on: its hash (the schema,
// the presets, the files' names and contents) and what the sandbox check
// reads besides (checkSandbox: the project root, the home and state
// directories).
func (s *specSource) evalKey() string {
	abs, err := filepath.Abs(s.dir)
	if err != nil {
		abs = s.dir
	}
	home, _ := os.UserHomeDir()
	state, _ := anchor.StateDir()
	return strings.Join([]string{s.hash, abs, home, state}, "\x00")
}

// get returns a result for key, decoded afresh (a caller may change its
// Spec), or nil.
func (m *evalMemo) get(key string, s *specSource) *Loaded {
	m.mu.Lock()
	var js []byte
	for _, e := range m.entries {
		if e.key == key {
			js = e.json
		}
	}
	m.mu.Unlock()
	if js == nil {
		return nil
	}
	var spec Spec
	if json.Unmarshal(js, &spec) != nil {
		return nil
	}
	return &Loaded{Spec: &spec, JSON: js, Hash: s.hash, Files: s.names()}
}

func (m *evalMemo) put(key string, l *Loaded) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = slices.DeleteFunc(m.entries, func(e evalEntry) bool { return e.key == key })
	if len(m.entries) >= evaluatedKeep {
		m.entries = m.entries[1:]
	}
	m.entries = append(m.entries, evalEntry{key: key, json: l.JSON})
}

func (m *evalMemo) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = nil
}

// loadInProcess evaluates s with the current evaluator (creating one if
// needed).
func (s *specSource) loadInProcess() (l *Loaded, err error) {
	evalMu.Lock()
	defer evalMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			current = nil // its state is suspect
			l, err = nil, Errors{newError(s.files[0].name, 1, 1, "", CodeInternal,
				fmt.Sprintf("internal error while evaluating the spec: %v", r))}
		}
	}()
	ev, err := currentEvaluator()
	if err != nil {
		return nil, Errors{newError(s.files[0].name, 1, 1, "", CodeInternal, err.Error())}
	}
	evaluations.Add(1)
	ld := &loader{ev: ev, src: s, index: posIndex{}, userFiles: map[string]bool{}}
	return ld.run()
}

// currentEvaluator returns the shared evaluator for one more use, replaced
// by a fresh one every evaluatorUses uses. The caller holds evalMu.
func currentEvaluator() (*evaluator, error) {
	if current == nil || current.uses >= evaluatorUses {
		ev, err := newEvaluator()
		if err != nil {
			return nil, err
		}
		current = ev
	}
	current.uses++
	return current, nil
}

// loader is the state of one evaluation.
type loader struct {
	ev        *evaluator
	src       *specSource
	index     posIndex
	userFiles map[string]bool
	errs      Errors
	// presetFiles maps a preset's file name to the preset name, for presets in use.
	presetFiles map[string]string
	// user is the user's own value (before presets), for messages.
	user cue.Value
}

func (l *loader) run() (*Loaded, error) {
	// 1. Parse every file; syntax errors stop here (nothing can be built).
	var asts []*ast.File
	for _, f := range l.src.files {
		l.userFiles[f.name] = true
		af, err := parser.ParseFile(f.name, f.data)
		if err != nil {
			for _, e := range cueerrors.Errors(err) {
				pe := l.posError(e.Position(), nil, CodeSyntax, errMsg(e))
				if pe.Location.File != f.name && !l.isUserPos(e.Position()) {
					pe.Location.File, pe.Location.Line, pe.Location.Col = f.name, 1, 1
				}
				l.add(pe)
			}
			continue
		}
		if name := af.PackageName(); name != "" && name != "loopx" {
			pos := af.Pos()
			for _, d := range af.Decls {
				if pk, ok := d.(*ast.Package); ok {
					pos = pk.Pos()
				}
			}
			l.add(l.posError(pos, nil, CodePackage, fmt.Sprintf("package %s: a spec file is package loopx or has no package clause (the schema's package is loopx; cue vet refuses other packages)", name)))
			continue
		}
		asts = append(asts, af)
		l.index.addFile(af)
	}
	if len(l.errs) > 0 {
		return nil, normalize(l.errs)
	}

	// 2. Build the user's files as one instance, the schema in scope.
	inst := build.NewContext().NewInstance("", nil)
	for _, af := range asts {
		if err := inst.AddSyntax(af); err != nil {
			l.addCUE(err, nil)
		}
	}
	if len(l.errs) > 0 {
		return nil, normalize(l.errs)
	}
	user := l.ev.ctx.BuildInstance(inst, cue.Scope(l.ev.root))
	if err := user.Err(); err != nil {
		// An error in the user's own value (a reference not found, a
		// conflict, a closed #Goal the user embedded) still leaves the rest
		// of it to check: go on, so that every error is reported in one run.
		l.addCUE(err, nil)
	}

	// 3. Apply presets, unify with #Spec, validate.
	l.user = user
	user = l.applyPresets(user)
	spec := l.ev.spec.Unify(user)
	cueErr := spec.Validate(cue.Concrete(true))
	if cueErr != nil {
		l.addCUE(cueErr, nil)
		// CUE may stop at the first error of a struct: validate each
		// entity on its own to report everything in one run, keeping only
		// errors about fields not reported yet.
		found := len(l.errs)
		l.validateParts(user)
		l.errs = append(l.errs[:found], newPaths(l.errs[:found], l.errs[found:])...)
		// Nor does it report every field a closed definition does not allow.
		l.checkClosed(l.user, l.ev.spec, nil)
	}
	l.checkRequired(user)
	l.checkSemantics(spec)
	if len(l.errs) > 0 {
		return nil, normalize(l.errs)
	}

	// 4. Export, decode, derive.
	data, err := spec.MarshalJSON()
	if err != nil {
		l.addCUE(err, nil)
		return nil, normalize(l.errs)
	}
	var out Spec
	if err := json.Unmarshal(data, &out); err != nil {
		l.addJSON(err)
		return nil, normalize(l.errs)
	}
	l.derive(&out)
	if len(l.errs) > 0 {
		return nil, normalize(l.errs)
	}
	js, err := json.Marshal(&out)
	if err != nil {
		return nil, Errors{newError(l.src.files[0].name, 1, 1, "", CodeInternal, err.Error())}
	}
	return &Loaded{Spec: &out, JSON: js, Hash: l.src.hash, Files: l.src.names()}, nil
}

func (l *loader) add(e *Error) { l.errs = append(l.errs, e) }

// posError builds an Error at pos, or, when pos is not in a user file, at
// the user's declaration nearest to path (the enclosing label), or at the
// start of the first file.
func (l *loader) posError(pos token.Pos, path []string, code, msg string) *Error {
	if !l.isUserPos(pos) {
		pos, _ = l.index.nearest(path)
	}
	if l.isUserPos(pos) {
		return newError(pos.Filename(), pos.Line(), max(pos.Column(), 1), strings.Join(path, "."), code, msg)
	}
	return newError(l.src.files[0].name, 1, 1, strings.Join(path, "."), code, msg)
}

func (l *loader) isUserPos(p token.Pos) bool {
	return p.IsValid() && p.Line() > 0 && l.userFiles[p.Filename()]
}

// errMsg returns a CUE error's message without its path prefix.
func errMsg(e cueerrors.Error) string {
	format, args := e.Msg()
	return fmt.Sprintf(format, args...)
}

// cueIssue is one CUE error, converted but not yet positioned.
type cueIssue struct {
	path    []string
	code    string
	msg     string
	pos     token.Pos // the first position in the user's files, or NoPos
	presets []string  // presets whose files the error points into
	header  bool      // "N errors in empty disjunction:"
}

// addCUE converts CUE errors: path cleaned (definition prefix stripped) and
// prefixed, code classified, message made plain, position moved to the
// user's files. The errors of one failed disjunction (a header and one error
// per alternative, at the field or below) become one error that says what
// the field wants.
func (l *loader) addCUE(err error, prefix []string) {
	var issues []cueIssue
	for _, e := range cueerrors.Errors(err) {
		is := cueIssue{
			path: append(append([]string(nil), prefix...), cleanPath(e.Path())...),
			code: CodeInvalid,
			msg:  errMsg(e),
		}
		switch {
		case disjunctRe().MatchString(is.msg):
			is.header = true
		case strings.Contains(is.msg, "field not allowed"):
			is.code = CodeUnknownField
			is.msg = l.unknownFieldMsg(is.path)
		case strings.Contains(is.msg, "field is required but not present"):
			is.code = CodeMissingField
			is.msg = missingMsg(is.path)
		case isQuestion(is.path):
			if m := questionRe().FindStringSubmatch(is.msg); m != nil {
				is.code = CodeVagueQuestion
				is.msg = vagueQuestionMsg(m[1])
			}
		}
		for _, p := range cueerrors.Positions(e) {
			if !is.pos.IsValid() && l.isUserPos(p) {
				is.pos = p
			}
			if name, ok := l.presetFiles[p.Filename()]; ok && !slices.Contains(is.presets, name) {
				is.presets = append(is.presets, name)
			}
		}
		issues = append(issues, is)
	}

	// Fold each outermost disjunction's errors into one.
	var headers [][]string
	for _, is := range issues {
		if is.header && !underAny(is.path, headers) {
			headers = append(headers, is.path)
		}
	}
	for _, h := range headers {
		folded := cueIssue{path: h, code: CodeInvalid}
		var msgs []string
		for _, is := range issues {
			if !hasPrefix(is.path, h) || is.code != CodeInvalid {
				continue
			}
			if !folded.pos.IsValid() {
				folded.pos = is.pos
			}
			for _, p := range is.presets {
				if !slices.Contains(folded.presets, p) {
					folded.presets = append(folded.presets, p)
				}
			}
			if !is.header && !slices.Contains(msgs, is.msg) {
				msgs = append(msgs, l.polish(is.path, is.msg))
			}
		}
		switch help := fieldHelp(h); {
		case len(folded.presets) > 0:
			folded.msg = "invalid value" + l.userValue(h) + l.presetValue(h, folded.presets)
			folded.presets = nil // named already
		case help != "":
			folded.msg = "invalid value" + l.userValue(h) + ": want " + help
		case len(msgs) > 0:
			folded.msg = shorten(strings.Join(msgs, "; "))
		default:
			folded.msg = "invalid value" + l.userValue(h)
		}
		l.addIssue(folded)
	}
	for _, is := range issues {
		if is.code == CodeInvalid && underAny(is.path, headers) {
			continue
		}
		if is.code == CodeInvalid {
			is.msg = l.polish(is.path, is.msg)
		}
		l.addIssue(is)
	}
}

func (l *loader) addIssue(is cueIssue) {
	if len(is.presets) > 0 && is.code == CodeInvalid {
		is.msg += fmt.Sprintf(" (conflicts with preset %s)", quoteList(is.presets))
	}
	l.add(l.posError(is.pos, is.path, is.code, is.msg))
}

// userValue renders the user's value at path for a message (" 2", "
// \"24x\"", "" when unknown), shortened.
func (l *loader) userValue(path []string) string {
	if !l.user.Exists() {
		return ""
	}
	v := lookup(l.user, path...)
	if !v.Exists() || v.Err() != nil || v.IncompleteKind()&cue.StructKind != 0 {
		return "" // an error or a struct says nothing useful in one line
	}
	s := fmt.Sprint(v)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return " " + s
}

// newPaths returns the errors of more whose path neither equals, contains
// nor lies within the path of an error in have.
func newPaths(have, more Errors) Errors {
	var out Errors
	for _, m := range more {
		dup := false
		for _, h := range have {
			if m, h := m.Location.Field, h.Location.Field; m == h || strings.HasPrefix(m, h+".") || strings.HasPrefix(h, m+".") {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, m)
		}
	}
	return out
}

// presetValue renders what the goal's preset sets at path, for a conflict
// message: `: preset "pr-watch" wants ["gh pr merge*", ...string]`.
func (l *loader) presetValue(path []string, names []string) string {
	if len(path) < 3 || path[0] != "goals" || len(names) != 1 {
		return fmt.Sprintf(" (conflicts with preset %s)", quoteList(names))
	}
	p, ok, err := l.ev.preset(names[0])
	if !ok || err != nil {
		return ""
	}
	v := lookup(p, path[2:]...)
	if !v.Exists() {
		return fmt.Sprintf(" (conflicts with preset %q)", names[0])
	}
	s := strings.Join(strings.Fields(fmt.Sprint(v)), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return fmt.Sprintf(": preset %q wants %s", names[0], s)
}

func hasPrefix(path, prefix []string) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

func underAny(path []string, prefixes [][]string) bool {
	for _, p := range prefixes {
		if hasPrefix(path, p) {
			return true
		}
	}
	return false
}

// cleanPath strips the schema's definition prefix ("#Spec") and unquotes labels.
func cleanPath(p []string) []string {
	out := make([]string, 0, len(p))
	for i, s := range p {
		if i == 0 && strings.HasPrefix(s, "#") {
			continue
		}
		if len(s) >= 2 && s[0] == '"' {
			if u, err := unquote(s); err == nil {
				s = u
			}
		}
		out = append(out, s)
	}
	return out
}

func missingMsg(path []string) string {
	if len(path) == 0 {
		return "missing required field"
	}
	return fmt.Sprintf("missing required field %q", path[len(path)-1])
}

// addJSON converts an error decoding the exported spec (a number out of
// range for its Go type).
func (l *loader) addJSON(err error) {
	var te *json.UnmarshalTypeError
	var path []string
	if errors.As(err, &te) && te.Field != "" {
		path = strings.Split(te.Field, ".")
		err = fmt.Errorf("value %s does not fit %s", te.Value, te.Type)
	}
	l.add(l.posError(token.NoPos, path, CodeInvalid, err.Error()))
}

// lookup returns v at the given path of plain string labels.
func lookup(v cue.Value, path ...string) cue.Value {
	sels := make([]cue.Selector, len(path))
	for i, p := range path {
		sels[i] = cue.Str(p)
	}
	return v.LookupPath(cue.MakePath(sels...))
}

// fieldNames lists the regular field names of struct v ("" list if v is not a struct).
func fieldNames(v cue.Value) []string {
	it, err := v.Fields()
	if err != nil {
		return nil
	}
	var out []string
	for it.Next() {
		if s := it.Selector(); s.IsString() {
			out = append(out, s.Unquoted())
		}
	}
	return out
}
