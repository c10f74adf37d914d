package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/internal/regularfile"
)

// MaxSettingsBytes bounds a host settings file or install record read
// (a larger one is not a settings file a host or loopx wrote).
const MaxSettingsBytes = 16 << 20

// RecordFile (in .loopx/) records the hook entries `loopx hooks
// install` wrote, per settings file, so that `loopx doctor` can tell when
// they were removed or changed (an agent switching its hooks off).
const RecordFile = "hooks.json"

// Installed is one settings file's record in RecordFile.
type Installed struct {
	// Host is claude-code or codex.
	Host string `json:"host"`
	// Settings is the settings file: relative to the project root when it
	// is inside it, else absolute.
	Settings string `json:"settings"`
	// Hooks are the entries loopx installed there.
	Hooks []InstalledHook `json:"hooks"`
	// SandboxFile is the file `hooks install --sandbox` wrote the host's
	// own sandbox settings in (as Settings: relative to the project root
	// when inside it), "" when it was not asked to.
	SandboxFile string `json:"sandbox_file,omitempty"`
	// Sandbox are the edits it made there (the adapter's MergeSandbox),
	// gathered over every install --sandbox since the first.
	Sandbox []SandboxEdit `json:"sandbox,omitempty"`
	// Original is the settings file as it was before the first install
	// merged loopx's entries into it ("" when there was none): uninstall
	// writes it back when what it leaves holds the same JSON, so the
	// user's layout (inline arrays, other indentation) returns byte for
	// byte (Restore).
	Original string `json:"original,omitempty"`
}

// InstalledHook is one installed entry (Hook in JSON).
type InstalledHook struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// Problem is what `loopx doctor` reports about installed hooks: the
// settings file and what is wrong with one of loopx's entries in it.
type Problem struct {
	Host     string `json:"host"`
	Settings string `json:"settings"`
	Problem  string `json:"problem"`
	// Fix is the command that installs the entries again.
	Fix string `json:"fix"`
	// Kind is "" for a hook entry, "sandbox_drift" for a sandbox setting
	// install --sandbox made that changed or went since, and
	// "sandbox_prerequisite" for a program the host's sandbox needs that
	// is missing.
	Kind string `json:"kind,omitempty"`
}

// Record records in stateDir's RecordFile that hooks were installed for
// host in the settings file rel (relative to the project root when it is
// inside it, else absolute), replacing an earlier record of the same file
// but keeping its sandbox edits: sbFile and sb are what install --sandbox
// wrote now ("" and none without --sandbox), added to the earlier ones
// (MergeEdits). original is the settings file before this install: kept
// as the record's Original unless an earlier record of the file has one.
// The file is replaced atomically.
func Record(stateDir, host, rel string, hooks []Hook, sbFile string, sb []SandboxEdit, original []byte) error {
	recs, err := ReadInstalled(stateDir)
	if err != nil {
		return err
	}
	rec := Installed{Host: host, Settings: rel, Original: string(original)}
	for _, r := range recs {
		if r.Settings == rel && r.SandboxFile != "" && (sbFile == "" || sbFile == r.SandboxFile) {
			rec.SandboxFile, rec.Sandbox = r.SandboxFile, r.Sandbox
		}
		if r.Settings == rel && r.Original != "" {
			rec.Original = r.Original
		}
	}
	if sbFile != "" {
		rec.SandboxFile, rec.Sandbox = sbFile, MergeEdits(rec.Sandbox, sb)
	}
	for _, h := range hooks {
		rec.Hooks = append(rec.Hooks, InstalledHook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout})
	}
	out := []Installed{rec}
	for _, r := range recs {
		if r.Settings != rel {
			out = append(out, r)
		}
	}
	return writeRecords(stateDir, out)
}

// Unrecord drops stateDir's record of the settings file rel (`loopx hooks
// uninstall`: doctor no longer expects loopx's entries there) and reports
// whether there was one. The file is replaced atomically.
func Unrecord(stateDir, rel string) (bool, error) {
	recs, err := ReadInstalled(stateDir)
	if err != nil {
		return false, err
	}
	out := recs[:0:0]
	for _, r := range recs {
		if r.Settings != rel {
			out = append(out, r)
		}
	}
	if len(out) == len(recs) {
		return false, nil
	}
	return true, writeRecords(stateDir, out)
}

// writeRecords replaces stateDir's RecordFile with recs, sorted by
// settings file.
func writeRecords(stateDir string, out []Installed) error {
	if out == nil {
		out = []Installed{}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Settings < out[j].Settings })
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	base, rel := nofollow.Split(stateDir, 1) // no link followed below the project root
	return nofollow.WriteFile(base, filepath.Join(rel, RecordFile), append(b, '\n'), 0o644)
}

// ReadInstalled returns the install records in stateDir (none when hooks
// were never installed). A record file that does not decode is an error.
func ReadInstalled(stateDir string) ([]Installed, error) {
	b, err := regularfile.ReadFile(filepath.Join(stateDir, RecordFile), MaxSettingsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []Installed
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(stateDir, RecordFile), err)
	}
	return recs, nil
}

// CheckInstalled compares every installation recorded in stateDir with
// its settings file now (the host's CheckSettings; a relative Settings is
// under root): a file that is gone, unreadable, or whose loopx entries are
// missing or changed is a problem. Where install --sandbox wrote the
// host's own sandbox settings, each setting changed or removed since is a
// problem (the host's CheckSandbox), and so is each program the host's
// sandbox needs that is not on PATH (SandboxNeeds: bwrap, …), as the
// host then refuses to run its sandboxed commands. lookup finds a recorded host's adapter
// (the registry's); a host it does not know is checked as Claude Code's
// protocol (CheckSettings). No records, no problems.
func CheckInstalled(root, stateDir string, lookup func(host string) (Adapter, bool)) ([]Problem, error) {
	recs, err := ReadInstalled(stateDir)
	if err != nil {
		return nil, err
	}
	var out []Problem
	for _, r := range recs {
		path := r.Settings
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		want := make([]Hook, 0, len(r.Hooks))
		fix := "loopx hooks install --host " + r.Host
		for i, h := range r.Hooks {
			want = append(want, Hook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout})
			if args, ok := strings.CutPrefix(h.Command, HookCommand(r.Host, h.Event, "")); ok && i == 0 {
				fix += args
			}
		}
		check, def := CheckSettings, ""
		if a, ok := lookup(r.Host); ok {
			check, def = a.CheckSettings, a.SettingsFile()
		}
		if r.Settings != def {
			fix += " --settings " + r.Settings
		}
		b, err := regularfile.ReadFile(path, MaxSettingsBytes)
		if err != nil {
			msg := fmt.Sprintf("cannot read it (%v): every loopx hook is gone", err)
			if errors.Is(err, os.ErrNotExist) {
				msg = "the file is gone: every loopx hook is gone"
			}
			out = append(out, Problem{Host: r.Host, Settings: r.Settings, Problem: msg, Fix: fix})
			continue
		}
		for _, p := range check(b, want) {
			out = append(out, Problem{Host: r.Host, Settings: r.Settings, Problem: p, Fix: fix})
		}
		if a, ok := lookup(r.Host); ok && r.SandboxFile != "" {
			out = append(out, checkSandbox(root, r, a, fix)...)
		}
	}
	return out, nil
}

// checkSandbox is CheckInstalled's part for the sandbox settings of r.
func checkSandbox(root string, r Installed, a Adapter, fix string) []Problem {
	fix += " --sandbox"
	path := r.SandboxFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	var out []Problem
	b, err := regularfile.ReadFile(path, MaxSettingsBytes)
	if err != nil {
		msg := fmt.Sprintf("cannot read it (%v): the sandbox settings loopx installed are gone", err)
		if errors.Is(err, os.ErrNotExist) {
			msg = "the file is gone: the sandbox settings loopx installed are gone"
		}
		out = append(out, Problem{Host: r.Host, Settings: r.SandboxFile, Problem: msg, Fix: fix, Kind: "sandbox_drift"})
	} else {
		for _, p := range a.CheckSandbox(b, r.Sandbox) {
			out = append(out, Problem{Host: r.Host, Settings: r.SandboxFile, Problem: p, Fix: fix, Kind: "sandbox_drift"})
		}
	}
	for _, prog := range a.SandboxNeeds() {
		if _, err := exec.LookPath(prog); err != nil {
			out = append(out, Problem{Host: r.Host, Settings: r.SandboxFile,
				Problem: fmt.Sprintf("%s is not on PATH: the host's own sandbox, which install --sandbox turned on, cannot start here", prog),
				Fix:     installHint(prog), Kind: "sandbox_prerequisite"})
		}
	}
	return out
}

// installHint says how to install prog (Debian's package names).
func installHint(prog string) string {
	pkg := map[string]string{"bwrap": "bubblewrap"}[prog]
	if pkg == "" {
		pkg = prog
	}
	return "install " + pkg + " (Debian: apt-get install " + pkg + ")"
}

// Restore returns original in place of out when both hold the same JSON
// value (objects compared by their members, numbers by their text): what
// uninstall leaves is then the file as the user had it before the first
// install, byte for byte, layout included. Otherwise (the user changed the
// file since, or there is no original) it returns out.
func Restore(out []byte, original string) []byte {
	if original == "" {
		return out
	}
	a, errA := decodeNumbers(out)
	b, errB := decodeNumbers([]byte(original))
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		return out
	}
	return []byte(original)
}

// decodeNumbers decodes one JSON document, numbers as json.Number.
func decodeNumbers(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON document")
	}
	return v, nil
}
