package lint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// SARIF 2.1.0 constants.
const (
	// SARIFVersion is sarifLog.version.
	SARIFVersion = "2.1.0"
	// SARIFSchema is sarifLog.$schema: the official OASIS schema (Errata 01).
	SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// SARIFColumnKind is run.columnKind, the unit of every region's
	// startColumn: UTF-16 code units (a character outside the Basic
	// Multilingual Plane, such as an emoji, is two columns), as editors and
	// code-scanning services count them. SARIF 2.1.0 §3.14.17 requires it
	// in a run with results.
	SARIFColumnKind = "utf16CodeUnits"
)

// SARIFLog is a SARIF 2.1.0 log (the parts loopx fills in), ready to be
// encoded as JSON for a code-scanning upload.
type SARIFLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []SARIFRun `json:"runs"`
}

// SARIFRun is one run of one tool. ColumnKind is always SARIFColumnKind.
type SARIFRun struct {
	Tool       SARIFTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []SARIFResult `json:"results"`
}

// SARIFTool is the run's tool.
type SARIFTool struct {
	Driver SARIFDriver `json:"driver"`
}

// SARIFDriver is the tool's main component and the rules it can report.
type SARIFDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []SARIFRule `json:"rules"`
}

// SARIFRule is a reportingDescriptor: one rule the tool checks.
type SARIFRule struct {
	ID               string       `json:"id"`
	Name             string       `json:"name,omitempty"`
	ShortDescription SARIFMessage `json:"shortDescription"`
	FullDescription  SARIFMessage `json:"fullDescription"`
	// Help says what to do about a result of the rule (RuleHelp).
	Help                 SARIFMessage `json:"help"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

// SARIFMessage is a plain-text message.
type SARIFMessage struct {
	Text string `json:"text"`
}

// SARIFResult is one finding.
type SARIFResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   SARIFMessage    `json:"message"`
	Locations []SARIFLocation `json:"locations,omitempty"`
	// PartialFingerprints identify the result across runs, so that a
	// code-scanning service matches it to the same result of an earlier
	// upload when lines move: under FingerprintKey, the SHA-256 (hex, first
	// 32 digits) of the rule id, the file and the text of the result's line
	// (its message when it has no line), then ":" and the occurrence of
	// that hash in this run (1, 2, …).
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

// FingerprintKey is the key of a result's partial fingerprint
// (SARIFResult.PartialFingerprints), versioned: a change of how it is
// computed gets a new key.
const FingerprintKey = "loopxFindingHash/v1"

// SARIFLocation is a result's location in a file.
type SARIFLocation struct {
	PhysicalLocation SARIFPhysicalLocation `json:"physicalLocation"`
}

// SARIFPhysicalLocation is a file and a region in it.
type SARIFPhysicalLocation struct {
	ArtifactLocation SARIFArtifactLocation `json:"artifactLocation"`
	Region           *SARIFRegion          `json:"region,omitempty"`
}

// SARIFArtifactLocation names a file by its URI relative to the project
// root (uriBaseId %SRCROOT%): a relative reference (RFC 3986 §4.2) whose
// path segments are percent-encoded UTF-8 (see ArtifactURI).
type SARIFArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// SARIFRegion is a 1-based line and column; the column counts UTF-16 code
// units (run.columnKind) and is omitted (0) when loopx cannot convert it.
type SARIFRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// The ids of check's own rules (CheckRules).
const (
	RuleSpec       = "spec"
	RulePolicy     = "policy"
	RulePolicyTest = "policy-test"
	RuleReplay     = "replay"
	RuleAudit      = "audit"
)

// CheckRules describes the rules of `loopx check` that are not Rego lint
// rules or scan categories: the spec, the policies, their tests and the
// replay of the decision log. It is the one place their severities are
// written (CheckRule).
func CheckRules() []RuleInfo {
	return []RuleInfo{
		{ID: RuleSpec, Severity: SeverityError, Description: "The spec (loopx/*.cue) must validate against the schema: every error with file:line:col and the field path (`loopx vet`)."},
		{ID: RulePolicy, Severity: SeverityError, Description: "Every policy must compile: the built-in bundle and the user policies (loopx/policies/*.rego, package loopx.user.<query>); a user package no query consults and a user rule nothing reaches are errors."},
		{ID: RulePolicyTest, Severity: SeverityError, Description: "The project's policy tests (loopx/policies/*_test.rego) must pass (`loopx policy test`)."},
		{ID: RuleReplay, Severity: SeverityWarning, Description: "A logged decision that the current spec, policies and state decide differently (`loopx check --replay`)."},
		{ID: RuleAudit, Severity: SeverityError, Description: "The state store's hash chain must verify whole and end at the head its anchor records (`loopx check --audit`, `loopx doctor`)."},
	}
}

// CheckRule is a finding of check's own rule id (one of CheckRules) with
// that rule's severity and msg. It panics on another id (a programming
// error).
func CheckRule(id, msg string) Finding {
	for _, r := range CheckRules() {
		if r.ID == id {
			return Finding{Rule: id, Severity: r.Severity, Message: msg}
		}
	}
	panic("lint: no check rule " + id)
}

// AllRules lists every rule `loopx check` can report: CheckRules, the
// Rego lint Rules and the ScanCategories.
func AllRules() []RuleInfo {
	out := CheckRules()
	out = append(out, Rules()...)
	return append(out, ScanCategories()...)
}

// ToSARIF builds the SARIF log of findings. rules describes the rules
// (AllRules); a finding whose rule is not among them gets a descriptor of
// its own. Locations are relative to the project root (%SRCROOT%), and root
// holds the project's files (os.DirFS of the root): a finding's column,
// which counts UTF-8 bytes, is converted to UTF-16 code units (SARIFColumnKind)
// from the text of its line. When the line cannot be read (root nil, the
// file gone or changed) the region keeps its line and drops the column
// rather than give a column in the wrong unit.
func ToSARIF(findings []Finding, rules []RuleInfo, version string, root fs.FS) SARIFLog {
	drv := SARIFDriver{Name: "loopx", Version: version, InformationURI: "https://github.com/loopx-dev/loopx", Rules: []SARIFRule{}}
	index := map[string]int{}
	addRule := func(r RuleInfo) {
		if _, ok := index[r.ID]; ok {
			return
		}
		index[r.ID] = len(drv.Rules)
		sr := SARIFRule{ID: r.ID, Name: ruleName(r.ID), ShortDescription: SARIFMessage{Text: firstSentence(r.Description)},
			FullDescription: SARIFMessage{Text: r.Description}, Help: SARIFMessage{Text: RuleHelp(r.ID)}}
		sr.DefaultConfiguration.Level = level(r.Severity)
		drv.Rules = append(drv.Rules, sr)
	}
	for _, r := range rules {
		addRule(r)
	}
	results := make([]SARIFResult, 0, len(findings))
	cols := columnConverter{root: root, files: map[string][]byte{}}
	seen := map[string]int{}
	for _, f := range findings {
		if l := f.Location; l != nil && LocalOnly(l.File) {
			continue
		}
		if _, ok := index[f.Rule]; !ok {
			addRule(RuleInfo{ID: f.Rule, Severity: f.Severity, Description: f.Rule})
		}
		res := SARIFResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: level(f.Severity), Message: SARIFMessage{Text: f.Message}}
		if f.Ref != "" && !strings.Contains(f.Message, f.Ref) {
			res.Message.Text += " (" + f.Ref + ")"
		}
		if l := f.Location; l != nil && l.File != "" {
			pl := SARIFPhysicalLocation{ArtifactLocation: SARIFArtifactLocation{URI: ArtifactURI(l.File), URIBaseID: "%SRCROOT%"}}
			if l.Row > 0 {
				pl.Region = &SARIFRegion{StartLine: l.Row, StartColumn: cols.utf16(l.File, l.Row, l.Col)}
			}
			res.Locations = []SARIFLocation{{PhysicalLocation: pl}}
		}
		h := fingerprint(f, cols)
		seen[h]++
		res.PartialFingerprints = map[string]string{FingerprintKey: fmt.Sprintf("%s:%d", h, seen[h])}
		results = append(results, res)
	}
	return SARIFLog{Version: SARIFVersion, Schema: SARIFSchema,
		Runs: []SARIFRun{{Tool: SARIFTool{Driver: drv}, ColumnKind: SARIFColumnKind, Results: results}}}
}

// LocalOnly reports whether file (relative to the project root,
// slash-separated) is loopx's local state, .loopx/ (the decision log, the
// store), which `loopx init` keeps out of git: a CI checkout never has it,
// so a finding there (a replayed decision) is left out of SARIF and shows
// only in check's text and --json.
func LocalOnly(file string) bool {
	return file == ".loopx" || strings.HasPrefix(file, ".loopx/")
}

// fingerprint is the hash of a result's partial fingerprint
// (SARIFResult.PartialFingerprints): rule, file and the text of its line
// (trimmed; its message when the line cannot be read or it has none).
func fingerprint(f Finding, cols columnConverter) string {
	h := sha256.New()
	file, text := "", f.Message
	if l := f.Location; l != nil {
		file = l.File
		if line, ok := cols.line(l.File, l.Row); ok {
			text = strings.TrimSpace(string(line))
		}
	}
	fmt.Fprintf(h, "%s\x00%s\x00%s", f.Rule, file, text)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// RuleHelp says what to do about a result of rule id: the SARIF rule's
// help text, which a code-scanning service shows beside the result.
func RuleHelp(id string) string {
	switch id {
	case RuleSpec:
		return "Fix the spec at the file:line:col and field the result names; `loopx vet` lists every error of the spec at once."
	case RulePolicy:
		return "Fix the policy at the position the result names; `loopx check` compiles the built-in bundle and every user policy (docs/policies.md)."
	case RulePolicyTest:
		return "Run `loopx policy test` to see the failing test, then fix the policy or the test."
	case RuleReplay:
		return "A policy or spec change turns a logged verdict: review the change with `loopx check --replay` before adopting it with `loopx adopt`."
	case RuleAudit:
		return "Run `loopx doctor` to see where the state's hash chain breaks; it says how to repair it."
	case CategoryCredential:
		return "Remove the credential from the file and rotate it (it is exposed once published); read it from the environment or a secret store instead."
	case CategoryPrivateIP:
		return "Replace the address with a host name or a documentation address (192.0.2.0/24, RFC 5737)."
	case CategoryPrivatePath:
		return "Use a path relative to the project, or $HOME / %USERPROFILE%, instead of a user's home directory."
	case CategoryTicketID:
		return "Remove the internal ticket id from the published file, or set the ticket prefixes with `loopx check --ticket-prefixes`."
	}
	return "Fix the spec field the result names (loopx/*.cue) and run `loopx check` again; docs/policies.md lists every lint rule and what it asks for."
}

// columnConverter converts byte columns to UTF-16 columns, reading each
// file once.
type columnConverter struct {
	root  fs.FS
	files map[string][]byte // nil: unreadable
}

// utf16 converts the 1-based byte column col of line row of file (a
// slash-separated path relative to the root) to a 1-based column in UTF-16
// code units; 0 when col is 0 or cannot be converted (the file cannot be
// read, the line is shorter, col falls inside a character).
func (c columnConverter) utf16(file string, row, col int) int {
	if col < 1 {
		return 0
	}
	line, ok := c.line(file, row)
	if !ok {
		return 0
	}
	if col-1 > len(line) { // col-1 == len(line) is the line's end
		return 0
	}
	if col-1 < len(line) && !utf8.RuneStart(line[col-1]) {
		return 0
	}
	prefix := line[:col-1]
	units := 0
	for len(prefix) > 0 {
		r, size := utf8.DecodeRune(prefix)
		if n := utf16.RuneLen(r); n > 0 {
			units += n
		} else {
			units++ // an invalid byte: editors show it as one U+FFFD
		}
		prefix = prefix[size:]
	}
	return units + 1
}

// line is line row (1-based) of file, without its newline; false when
// there is no root, the file cannot be read or has fewer lines.
func (c columnConverter) line(file string, row int) ([]byte, bool) {
	if row < 1 || c.root == nil {
		return nil, false
	}
	data, ok := c.files[file]
	if !ok {
		name := path.Clean(file)
		if fs.ValidPath(name) {
			data, _ = fs.ReadFile(c.root, name)
		}
		c.files[file] = data
	}
	if data == nil {
		return nil, false
	}
	line := data
	for i := 1; i < row; i++ {
		nl := bytes.IndexByte(line, '\n')
		if nl < 0 {
			return nil, false
		}
		line = line[nl+1:]
	}
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	return bytes.TrimSuffix(line, []byte("\r")), true
}

// level maps a severity to a SARIF level.
func level(severity string) string {
	if severity == SeverityWarning {
		return "warning"
	}
	return "error"
}

// ruleName is a rule id in PascalCase ("goal-without-quota" → GoalWithoutQuota).
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == '/' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// ArtifactURI turns a slash-separated relative file path into the relative
// reference artifactLocation.uri holds (RFC 3986 §4.2): every byte of the
// UTF-8 path except the unreserved characters (A-Z a-z 0-9 - . _ ~) and
// "/" is percent-encoded ("docs/naïve [1].md" is
// "docs/na%C3%AFve%20%5B1%5D.md"), so that the reference has no scheme, no
// query and no fragment, and decodes back to the path byte for byte.
func ArtifactURI(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// WriteText writes findings for people, one per line:
// "file:row:col: rule: message" (scan hits too: the column is where the
// hit starts; "file:row" when a finding has no column), "(warning)" after
// the rule of a warning, the ref when the message does not name it.
func WriteText(w io.Writer, findings []Finding) {
	for _, f := range findings {
		loc := f.Location.String()
		if loc == "" {
			loc = f.Ref
		}
		rule := f.Rule
		if f.Severity == SeverityWarning {
			rule += " (warning)"
		}
		if loc == "" {
			fmt.Fprintf(w, "%s: %s\n", rule, f.Message)
			continue
		}
		fmt.Fprintf(w, "%s: %s: %s\n", loc, rule, f.Message)
	}
}
