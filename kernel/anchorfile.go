package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopx-dev/loopx/internal/anchor"
	"github.com/loopx-dev/loopx/internal/atomicfile"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/kernel/records"
)

// maxAnchorBytes and maxRefusalsBytes bound the anchor record and the
// refusal log read whole; larger files are refused as unreadable.
const (
	maxAnchorBytes   = 16 << 20
	maxRefusalsBytes = 64 << 20
)

// AnchorFile is the anchor record's name in the project's anchor directory
// (internal/anchor): the chain head this project last committed, the
// store's backend and location. It is written atomically (temp file +
// rename, mode 0600) after every commit, under the state lock.
const AnchorFile = "anchor.json"

// RefusalsFile is the refusal log in the anchor directory: one JSON line
// per refused open of the store (what was found, when). The store cannot
// take an audit event while it is refused; `loopx doctor --accept-store`
// and `--salvage` move these lines into the store as store.refused events
// (loopx review lists them), and every refusal message names the file.
const RefusalsFile = "refusals.jsonl"

// Backend is the store backend this package implements, as recorded in the
// anchor.
const Backend = "buntdb"

// Refusal is one line of the refusal log.
type Refusal struct {
	At time.Time `json:"at"`
	// Code is what was found: store_missing, store_behind, store_off_chain,
	// store_checksum, store_unanchored, store_moved, store_schema,
	// store_corrupt, link_refused (a link at .loopx/, state.lock or
	// state.db, never followed).
	Code    string `json:"code"`
	Message string `json:"message"`
}

// AnchorDirOf is the anchor directory of the store in dir: that of the
// project whose state directory dir is (its parent, when dir is named
// .loopx), else that of dir itself (a store outside a project: tests,
// benchmarks). Errors: those of anchor.Dir.
func AnchorDirOf(dir string) (string, error) {
	if filepath.Base(dir) == ".loopx" {
		return anchor.Dir(filepath.Dir(dir))
	}
	return anchor.Dir(dir)
}

// ReadAnchor returns the anchor record in anchorDir; ok is false when there
// is none. Errors: unreadable or malformed record.
func ReadAnchor(anchorDir string) (a records.Anchor, ok bool, err error) {
	b, err := regularfile.ReadFile(filepath.Join(anchorDir, AnchorFile), maxAnchorBytes)
	if errors.Is(err, os.ErrNotExist) {
		return a, false, nil
	}
	if err != nil {
		return a, false, err
	}
	if err := json.Unmarshal(b, &a); err != nil || a.Version != 1 {
		return a, true, fmt.Errorf("malformed anchor %s", filepath.Join(anchorDir, AnchorFile))
	}
	return a, true, nil
}

// writeAnchor replaces the anchor record (creating the directory 0700),
// following no link below the user's state directory (mkdirAnchor,
// atomicfile.WriteBelow). Errors: *nofollow.LinkError; writing.
func writeAnchor(anchorDir string, a records.Anchor) error {
	if err := mkdirAnchor(anchorDir); err != nil {
		return err
	}
	a.Version = 1
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	base, rel := anchor.Below(anchorDir)
	return atomicfile.WriteBelow(base, filepath.Join(rel, AnchorFile), append(b, '\n'))
}

// mkdirAnchor creates the anchor directory and its missing parents (0700)
// without following a link below the state directory it is in
// (anchor.Below: loopx/projects/<name>-<hash>); the state directory itself
// is the user's and made as os.MkdirAll does. Errors:
// *nofollow.LinkError; creating.
func mkdirAnchor(anchorDir string) error {
	base, rel := anchor.Below(anchorDir)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return err
	}
	return nofollow.MkdirAll(base, rel, 0o700)
}

// removeRefusals removes the refusal log once its lines are in the store,
// following no link below the state directory.
func removeRefusals(anchorDir string) {
	base, rel := anchor.Below(anchorDir)
	_ = nofollow.RemoveAll(base, filepath.Join(rel, RefusalsFile))
}

// logRefusal appends r to the refusal log unless its last line says the
// same (a hook asking every second must not grow it without bound).
func logRefusal(anchorDir string, r Refusal) {
	if anchorDir == "" {
		return
	}
	if prev, err := ReadRefusals(anchorDir); err == nil && len(prev) > 0 {
		last := prev[len(prev)-1]
		if last.Code == r.Code && last.Message == r.Message {
			return
		}
	}
	if mkdirAnchor(anchorDir) != nil {
		return
	}
	b, _ := json.Marshal(r)
	// Never through a link placed in the anchor directory or above it.
	base, rel := anchor.Below(anchorDir)
	_ = nofollow.AppendFile(base, filepath.Join(rel, RefusalsFile), append(b, '\n'), 0o600)
}

// LogWhileRefused keeps r in the refusal log of the store in dir (its
// anchor directory, AnchorDirOf) when writing r to the store as an event
// failed with err because the store is refused (ErrRolledBack,
// ErrTampered, ErrSchemaTooNew, ErrSchemaUnknown): an attempt made
// meanwhile (an agent trying doctor --accept-store) reaches review as a
// store.refused event once a human repairs the store. Other errors (a
// lock timeout) keep nothing. It reports whether r was kept.
func LogWhileRefused(dir string, err error, r Refusal) bool {
	for _, sentinel := range []error{ErrRolledBack, ErrTampered, ErrSchemaTooNew, ErrSchemaUnknown} {
		if errors.Is(err, sentinel) {
			adir, aerr := AnchorDirOf(dir)
			if aerr != nil {
				return false
			}
			logRefusal(adir, r)
			return true
		}
	}
	return false
}

// logLinkRefusal keeps a link found where the store in dir is opened
// (err wraps a *nofollow.LinkError) in its refusal log, code
// link_refused: the store is not open, so it cannot take the event.
func logLinkRefusal(dir string, o Options, err error) {
	var le *nofollow.LinkError
	if !errors.As(err, &le) {
		return
	}
	adir := o.AnchorDir
	if adir == "" {
		var aerr error
		if adir, aerr = AnchorDirOf(dir); aerr != nil {
			return
		}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	logRefusal(adir, Refusal{At: now().UTC(), Code: "link_refused", Message: le.Error()})
}

// ReadRefusals returns the refusal log's lines (none when there is no log;
// malformed lines are skipped).
func ReadRefusals(anchorDir string) ([]Refusal, error) {
	b, err := regularfile.ReadFile(filepath.Join(anchorDir, RefusalsFile), maxRefusalsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Refusal
	for _, line := range strings.Split(string(b), "\n") {
		var r Refusal
		if line != "" && json.Unmarshal([]byte(line), &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}
