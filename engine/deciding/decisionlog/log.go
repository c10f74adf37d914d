// Package decisionlog is loopx's decision log: .loopx/decisions.jsonl (one OPA
// decision-log event a line), its rotated files, and the inputs and bundles
// stored beside it so that `opa eval` reproduces every logged result. It
// writes, reads, rotates and prunes them; what a line's input and quota
// mean is the engine's (the type parameters of Entry and Log).
package decisionlog

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/oklog/ulid/v2"
)

// FileName is the decision log's name in the state directory (.loopx/).
const FileName = "decisions.jsonl"

// MaxBytes is the size at which decisions.jsonl is rotated.
const MaxBytes = 16 << 20

// Keep is how many rotated decision logs are kept (decisions.jsonl.1 …).
const Keep = 3

// Names beside the decision log (in .loopx/): the evaluated inputs and the
// bundles the logged decisions name, content-addressed.
const (
	// InputsDirName holds <hex>.json: a decision's whole input as the
	// policy evaluated it, named by the SHA-256 of its bytes.
	InputsDirName = "inputs"
	// BundlesDirName holds loopx/<hex>/ (the policy bundle: built-in and
	// user modules) and spec/<hex>/ (the exported spec at data.loopx.spec),
	// OPA bundle directories named by their revision's hex.
	BundlesDirName = "bundles"
	// InstanceFileName holds the project's decision-log id (labels.id).
	InstanceFileName = "instance-id"
)

// InputsMaxBytes bounds the stored inputs: when they grow past it, the
// oldest are removed (their lines stay; explain says the input is gone).
const InputsMaxBytes = 256 << 20

// inputsCheckEvery is how often (in bytes appended to the decision log) the
// inputs directory is measured against InputsMaxBytes.
const inputsCheckEvery = 256 << 10

// Bundle names of a decision-log line's bundles map.
const (
	// PolicyBundle is the policy bundle: the built-in modules and the
	// project's user policies (loopx/policies/*.rego, tests excluded).
	PolicyBundle = "loopx"
	// SpecBundle is the data bundle holding the exported spec at
	// data.loopx.spec.
	SpecBundle = "spec"
)

// ErasedState is the JSON pointer of the input a line leaves out: the
// kernel snapshot, kept in the stored input (custom.input).
const ErasedState = "/input/state"

// Entry is one line of .loopx/decisions.jsonl, an OPA decision-log event
// (github.com/open-policy-agent/opa/v1/plugins/logs.EventV1: every line
// decodes as one, unknown fields refused):
//
//   - labels: {"id": the project's id (.loopx/instance-id), "version": loopx's version};
//   - decision_id: the decision's ULID;
//   - revision: the policy bundle's revision (OPA's legacy single-revision field);
//   - bundles: {"loopx": {"revision": policy hash}, "spec": {"revision": spec hash}};
//   - path: the query's entry rule ("loopx/run/decision");
//   - input: the request (I: query, now, goal, agent, health, permission, …),
//     without the kernel snapshot; erased says so: ["/input/state"];
//   - result: the entry rule's value exactly as the policy gave it;
//   - timestamp: when it was decided;
//   - custom: what loopx adds (Custom): the stored input's hash, the store
//     revision, the quota summary (Q).
//
// `opa eval` of data.<path> with the two bundles and the stored input
// (.loopx/inputs/<hex>.json) gives result again (docs/decisions.md: the decision log).
type Entry[I, Q any] struct {
	Labels     map[string]string         `json:"labels"`
	DecisionID string                    `json:"decision_id"`
	Revision   string                    `json:"revision,omitempty"`
	Bundles    map[string]BundleRevision `json:"bundles,omitempty"`
	Path       string                    `json:"path"`
	Input      I                         `json:"input"`
	// Result is the value of data.<Path> as the policy gave it (a decision
	// object: verdict, allow, reasons, todo, next_check_at, charge), or the
	// engine's fail-closed deny in the same shape when the policy could not
	// be evaluated (Custom.DecidedBy "loopx").
	Result json.RawMessage `json:"result"`
	// Erased lists the JSON pointers left out of the line: the kernel
	// snapshot, ["/input/state"].
	Erased    []string  `json:"erased,omitempty"`
	Timestamp time.Time `json:"timestamp"`
	Custom    Custom[Q] `json:"custom"`
	// Legacy is true for a line in loopx's earlier format (revision an
	// object, input_hash), read for explain and replay; it has no stored
	// input. Not written.
	Legacy bool `json:"-"`
}

// BundleRevision is a bundle's entry in a decision-log line (OPA's
// logs.BundleInfoV1).
type BundleRevision struct {
	// Revision is "sha256:<hex>": the policy hash (bundle "loopx") or the
	// spec hash (bundle "spec").
	Revision string `json:"revision,omitempty"`
}

// Custom is what a decision-log line adds to OPA's fields (the event's
// custom object); Q is the quota summary's type.
type Custom[Q any] struct {
	// Input is "sha256:<hex>" of the stored input, the whole input the
	// policy evaluated: .loopx/inputs/<hex>.json ("" for legacy lines).
	Input string `json:"input,omitempty"`
	// State is the store's global revision the decision saw
	// (input.state.revision).
	State uint64 `json:"state"`
	// Quota is the decision's quota summary (nil when none applies).
	Quota *Q `json:"quota,omitempty"`
	// DecidedBy is "loopx" when the policy could not be evaluated (it did
	// not compile or failed) and result is loopx's fail-closed deny; ""
	// when result is the policy's value.
	DecidedBy string `json:"decided_by,omitempty"`
}

// InputPath is the stored input's file (.loopx/inputs/<hex>.json) under
// stateDir, "" when the line names none.
func (le *Entry[I, Q]) InputPath(stateDir string) string {
	h, ok := strings.CutPrefix(le.Custom.Input, "sha256:")
	if !ok || !isHex64(h) {
		return ""
	}
	return filepath.Join(stateDir, InputsDirName, h+".json")
}

// BundlePath is the directory of bundle name ("loopx" or "spec") this line
// names under stateDir (.loopx/bundles/<name>/<hex>), "" when none.
func (le *Entry[I, Q]) BundlePath(stateDir, name string) string {
	h, ok := strings.CutPrefix(le.Bundles[name].Revision, "sha256:")
	if !ok || !isHex64(h) {
		return ""
	}
	return filepath.Join(stateDir, BundlesDirName, name, h)
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// Log is a project's decision log in its state directory (.loopx/): the
// current and rotated files, the stored inputs and bundles, the instance
// id. I is the type of a line's input (the request without the kernel
// snapshot), Q the quota summary's. A Log is used by one goroutine at a
// time; lines of concurrent processes never interleave (one write each).
type Log[I, Q any] struct {
	dir     string
	version string
	legacy  func(line []byte) (Entry[I, Q], bool)
	// stored maps a bundle name to the revision this Log knows is stored.
	stored   map[string]string
	instance string
	// later are the appends Later kept for Flush.
	later []func() error
}

// New is the decision log of state directory dir (.loopx/). version is
// written as labels.version; legacy, when not nil, reads a line of an
// earlier format that Parse does not accept (ok false for anything else).
// Nothing is created before the first Append.
func New[I, Q any](dir, version string, legacy func(line []byte) (Entry[I, Q], bool)) *Log[I, Q] {
	return &Log[I, Q]{dir: dir, version: version, legacy: legacy}
}

// Path is the current decision log (.loopx/decisions.jsonl).
func (l *Log[I, Q]) Path() string { return filepath.Join(l.dir, FileName) }

// Bundle is a bundle a line names, to be stored beside the log once per
// revision.
type Bundle struct {
	// Name is PolicyBundle or SpecBundle.
	Name string
	// Revision is "sha256:<hex>", the bundle's content hash.
	Revision string
	// Files gives the bundle's files (slash-separated paths relative to
	// the bundle's root) and its roots (the .manifest's); called only when
	// the revision is not stored yet.
	Files func() (files map[string][]byte, roots []string, err error)
}

// Append adds le to the decision log as one JSON line (a single write, so
// concurrent writers do not interleave lines), rotating by size. It sets
// the line's labels, its bundles map and custom.input: input, the whole
// input the policy evaluated, is stored once under .loopx/inputs/<sha256>.json
// (not rewritten when that file exists), and the bundles under
// .loopx/bundles/<name>/<hex>/. Errors: the state directory, the stored
// input or bundles, or the log file cannot be written.
func (l *Log[I, Q]) Append(le Entry[I, Q], input []byte, bundles ...Bundle) error {
	l.Flush()
	return l.append(le, input, bundles...)
}

// Later keeps an Append for Flush: a writer that holds the state lock logs
// after letting go of it, so that no other process waits on the lock for
// the write. Append, Read and Find flush first, so that the log keeps the
// order of this Log's lines and its readers see them.
func (l *Log[I, Q]) Later(le Entry[I, Q], input []byte, bundles ...Bundle) error {
	l.later = append(l.later, func() error { return l.append(le, input, bundles...) })
	return nil
}

// Flush makes the appends Later kept, in order, and returns the first
// error (each is tried).
func (l *Log[I, Q]) Flush() error {
	kept := l.later
	l.later = nil
	var first error
	for _, f := range kept {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// append is Append without the flush.
func (l *Log[I, Q]) append(le Entry[I, Q], input []byte, bundles ...Bundle) error {
	root, sd := l.under()
	if err := nofollow.MkdirAll(root, sd, 0o755); err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	sum := sha256.Sum256(input)
	inHex := hex.EncodeToString(sum[:])
	if err := writeOnce(root, filepath.Join(sd, InputsDirName, inHex+".json"), input); err != nil {
		return fmt.Errorf("decision log: storing the input: %w", err)
	}
	le.Bundles = map[string]BundleRevision{}
	for _, b := range bundles {
		if err := l.storeBundle(b); err != nil {
			return fmt.Errorf("decision log: storing the bundles: %w", err)
		}
		le.Bundles[b.Name] = BundleRevision{Revision: b.Revision}
	}
	le.Labels = map[string]string{"id": l.instanceID(), "version": l.version}
	le.Custom.Input = "sha256:" + inHex
	line, err := json.Marshal(le)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	path := l.Path()
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
		if size+int64(len(line)) > MaxBytes {
			rotate(root, filepath.Join(sd, FileName))
			l.pruneStored(inHex)
			size = 0
		}
	}
	f, err := nofollow.OpenFile(root, filepath.Join(sd, FileName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("decision log %s: %w", path, werr)
	}
	if size/inputsCheckEvery != (size+int64(len(line)))/inputsCheckEvery {
		pruneInputsBySize(root, filepath.Join(sd, InputsDirName), InputsMaxBytes)
	}
	return nil
}

// under returns the directory the log's state directory is in (the
// project root, which loopx trusts) and the state directory's name in it:
// every write below is made there without following a link
// (internal/nofollow).
func (l *Log[I, Q]) under() (root, rel string) {
	return filepath.Dir(l.dir), filepath.Base(l.dir)
}

// writeOnce writes data to root/rel unless it exists (content-addressed
// files never change): a temp file beside it renamed into place, so a
// reader never sees a partial file; no link below root is followed.
func writeOnce(root, rel string, data []byte) error {
	if _, err := os.Lstat(filepath.Join(root, rel)); err == nil {
		return nil
	}
	// Unflushed, as the log's lines are: a decision's answer never waits
	// on a disk flush.
	return nofollow.WriteFileUnflushed(root, rel, data, 0o600)
}

// storeBundle writes b as an OPA bundle directory
// .loopx/bundles/<name>/<hex>/ (a .manifest with the revision and roots,
// and files), built into a temp directory and renamed into place, once per
// revision (a Log checks each revision once).
func (l *Log[I, Q]) storeBundle(b Bundle) error {
	h, ok := strings.CutPrefix(b.Revision, "sha256:")
	if !ok || !isHex64(h) {
		return fmt.Errorf("bundle %s: revision %q is not sha256:<hex>", b.Name, b.Revision)
	}
	if l.stored[b.Name] == b.Revision {
		return nil
	}
	dir := filepath.Join(l.dir, BundlesDirName, b.Name, h)
	if _, err := os.Lstat(filepath.Join(dir, ".manifest")); err == nil {
		l.markBundle(b.Name, b.Revision)
		return nil
	}
	contents, roots, err := b.Files()
	if err != nil {
		return err
	}
	man, err := json.MarshalIndent(bundleManifest{Revision: b.Revision, Roots: roots, RegoVersion: 1}, "", "  ")
	if err != nil {
		return err
	}
	// Built below the project root without following a link
	// (internal/nofollow): a linked bundles directory is refused.
	root, sd := l.under()
	rel := filepath.Join(sd, BundlesDirName, b.Name, h)
	if err := nofollow.MkdirAll(root, filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+h[:12]+"."+hex.EncodeToString(rnd[:])+".tmp")
	if err := nofollow.MkdirAll(root, tmp, 0o755); err != nil {
		return err
	}
	defer nofollow.RemoveAll(root, tmp)
	if err := nofollow.WriteFile(root, filepath.Join(tmp, ".manifest"), append(man, '\n'), 0o644); err != nil {
		return err
	}
	for p, b := range contents {
		if err := nofollow.WriteFile(root, filepath.Join(tmp, filepath.FromSlash(p)), b, 0o644); err != nil {
			return err
		}
	}
	if err := nofollow.Rename(root, tmp, rel); err != nil {
		if errors.Is(err, nofollow.ErrLink) {
			return err
		}
		if _, serr := os.Lstat(filepath.Join(dir, ".manifest")); serr != nil {
			return err
		} // another process stored it first
	}
	l.markBundle(b.Name, b.Revision)
	return nil
}

func (l *Log[I, Q]) markBundle(name, rev string) {
	if l.stored == nil {
		l.stored = map[string]string{}
	}
	l.stored[name] = rev
}

// bundleManifest is an OPA bundle's .manifest.
type bundleManifest struct {
	Revision    string   `json:"revision"`
	Roots       []string `json:"roots"`
	RegoVersion int      `json:"rego_version"`
}

// instanceID is the project's decision-log id (labels.id): a ULID made once
// and kept in .loopx/instance-id, the same for every process of the
// project. A failure to keep it gives "unknown", never a failed decision.
func (l *Log[I, Q]) instanceID() string {
	if l.instance != "" {
		return l.instance
	}
	p := filepath.Join(l.dir, InstanceFileName)
	read := func() string {
		b, err := regularfile.ReadFile(p, 1<<10)
		if id := strings.TrimSpace(string(b)); err == nil && len(id) == 26 {
			if _, err := ulid.ParseStrict(id); err == nil {
				return id
			}
		}
		return ""
	}
	if id := read(); id != "" {
		l.instance = id
		return id
	}
	// Made in a temp file and linked into place: a reader never sees a
	// partial id, and of two processes making it at once one link wins.
	id := ulid.MustNew(ulid.Timestamp(time.Now()), rand.Reader).String()
	// Written and linked below the project root without following a link
	// (internal/nofollow).
	root, sd := l.under()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(sd, "."+InstanceFileName+"."+hex.EncodeToString(rnd[:])+".tmp")
	f, err := nofollow.OpenFile(root, tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err == nil {
		_, werr := f.WriteString(id + "\n")
		cerr := f.Close()
		if werr == nil && cerr == nil {
			err = nofollow.Link(root, tmp, filepath.Join(sd, InstanceFileName))
		}
		_ = nofollow.RemoveAll(root, tmp)
		if err == nil {
			l.instance = id
			return id
		}
		if errors.Is(err, fs.ErrExist) {
			if id := read(); id != "" {
				l.instance = id
				return id
			}
		}
	}
	return "unknown"
}

func rotate(root, rel string) {
	for i := Keep - 1; i >= 1; i-- {
		_ = nofollow.Rename(root, fmt.Sprintf("%s.%d", rel, i), fmt.Sprintf("%s.%d", rel, i+1))
	}
	_ = nofollow.Rename(root, rel, rel+".1")
}
