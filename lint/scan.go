package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/loopx-dev/loopx/internal/regularfile"
	"github.com/loopx-dev/loopx/internal/safegit"
)

// Publication-scan categories: the Rule of a scan Finding.
const (
	// CategoryCredential is a credential the secret detector's default
	// rules find (lint/secrets.go), a token-like literal (ghp_…, sk-…,
	// xoxb-…), an AWS access key id, a private key block, a password, API
	// key or secret with a literal value, or an Authorization header with
	// credentials.
	CategoryCredential = "credential"
	// CategoryPrivateIP is a private IPv4 address (10/8, 172.16/12, 192.168/16).
	CategoryPrivateIP = "private-ip"
	// CategoryPrivatePath is an absolute path into a user's home directory
	// (/home/<user>/…, /Users/<user>/…, C:\Users\<user>\…).
	CategoryPrivatePath = "private-path"
	// CategoryTicketID is an internal ticket id: <PREFIX>-<number> for a
	// prefix of ScanOptions.TicketPrefixes.
	CategoryTicketID = "ticket-id"
)

// DefaultTicketPrefixes are the ticket-id prefixes scanned for when none
// are configured: conservative, so that ordinary words never match.
var DefaultTicketPrefixes = []string{"JIRA", "INC", "SEC"}

// DefaultMaxFileBytes is the size above which a file is not scanned.
const DefaultMaxFileBytes = 4 << 20

// ScanOptions configure the publication scan.
type ScanOptions struct {
	// TicketPrefixes are the internal ticket-id prefixes ("JIRA" matches
	// "JIRA-123"); nil means DefaultTicketPrefixes, an empty non-nil slice
	// turns the category off.
	TicketPrefixes []string
	// MaxFileBytes skips larger files (0 = DefaultMaxFileBytes).
	MaxFileBytes int64
}

// ScanCategories describes the scan categories for SARIF's rules.
func ScanCategories() []RuleInfo {
	return []RuleInfo{
		{ID: CategoryCredential, Severity: SeverityError, Description: "A credential in a file to be published: one of the secret detector's rules (about 220 services' tokens and keys), a token-like literal (ghp_…, github_pat_…, sk-…, xox[bp]-…), an AWS access key id, a private key, a password, API key or secret with a literal value, or an Authorization header with credentials. References to environment variables and obvious placeholders are warnings."},
		{ID: CategoryPrivateIP, Severity: SeverityError, Description: "A private IPv4 address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16) in a file to be published; a CIDR range is a warning."},
		{ID: CategoryPrivatePath, Severity: SeverityError, Description: "An absolute path into a user's home directory (/home/<user>/…, /Users/<user>/…, C:\\Users\\<user>\\…) in a file to be published; placeholders such as <user> or $USER are warnings."},
		{ID: CategoryTicketID, Severity: SeverityError, Description: "An internal ticket id (<PREFIX>-<number>, for the configured prefixes; default JIRA, INC, SEC) in a file to be published."},
	}
}

// PublishedFiles lists the files a publication scan looks at by default,
// relative to root and slash-separated, sorted: the files git tracks when
// root is inside a git work tree (git run with a configuration no agent can
// reach: package safegit), otherwise every regular file under root
// outside .loopx/ and .git/.
func PublishedFiles(root string) ([]string, error) {
	if out, err := (safegit.Git{Dir: root}).Run("ls-files", "-z"); err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		slices.Sort(files)
		return files, nil
	}
	return walkFiles(root, ".")
}

// walkFiles lists the regular files under root/dir (relative to root),
// skipping .git and .loopx directories.
func walkFiles(root, dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); (n == ".git" || n == ".loopx") && p != filepath.Join(root, dir) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	slices.Sort(files)
	return files, err
}

// ExpandScanPaths turns the paths given to `check --scan` (relative to
// root, or absolute) into files relative to root: a directory is walked
// (skipping .git and .loopx). A path that does not exist is an error
// wrapping fs.ErrNotExist.
func ExpandScanPaths(root string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(p) {
			abs = filepath.Join(root, p)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("--scan %s: %w", p, err)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = abs
		}
		if !fi.IsDir() {
			out = append(out, filepath.ToSlash(rel))
			continue
		}
		files, err := walkFiles(root, rel)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Scan reads each file (relative to root, or absolute) and returns its
// hits, sorted. Binary files (a NUL byte in the first 8000 bytes), files
// larger than MaxFileBytes and files that vanished are skipped; they are
// counted in skipped. Other read errors are returned.
func Scan(root string, files []string, o ScanOptions) (hits []Finding, skipped int, err error) {
	limit := o.MaxFileBytes
	if limit <= 0 {
		limit = DefaultMaxFileBytes
	}
	for _, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, filepath.FromSlash(f))
		}
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && (!fi.Mode().IsRegular() || fi.Size() > limit)) {
			skipped++
			continue
		}
		if err != nil {
			return nil, skipped, err
		}
		data, err := regularfile.ReadFile(p, limit) // swapped for a FIFO or grown since the stat: skipped
		if errors.Is(err, regularfile.ErrNotRegular) || errors.Is(err, regularfile.ErrTooLarge) || errors.Is(err, fs.ErrNotExist) {
			skipped++
			continue
		}
		if err != nil {
			return nil, skipped, err
		}
		head := data
		if len(head) > 8000 {
			head = head[:8000]
		}
		if bytes.IndexByte(head, 0) >= 0 {
			skipped++
			continue
		}
		hits = append(hits, ScanText(f, data, o)...)
	}
	Sort(hits)
	return hits, skipped, nil
}

var (
	// Token-like literals: the kind and the pattern of the literal.
	tokenPatterns = sync.OnceValue(func() []tokenPattern {
		return []tokenPattern{
			{"GitHub token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{22,255})\b`)},
			{"secret key (sk-…)", regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`)},
			{"Slack token", regexp.MustCompile(`\bxox[abporsx]-[A-Za-z0-9-]{10,}`)},
			{"AWS access key id", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
			{"private key", regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`)},
		}
	})
	// Assignments of a secret: the key, the operator, then the value.
	assignRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:\b|_)(password|passwd|passphrase|api[_-]?key|secret[_-]?access[_-]?key|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token)["']?\s*(:=|=>|==|!=|=|:)[ \t]*`)
	})
	authRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bauthorization\b["']?\s*[:=]\s*["']?(bearer|basic|token)\s+`)
	})
	ipv4Re   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}`) })
	homeRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(/home|/Users)/([^/\s"'` + "`" + `,;:)\]}]+)`) })
	winHome  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b[a-z]:\\Users\\([^\\\s"']+)`) })
	digitRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]`) })
	codeLike = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$|[()\[\]]`)
	})
)

// tokenPattern is a kind of token-like literal and its pattern.
type tokenPattern struct {
	kind string
	re   *regexp.Regexp
}

// typeWords are values that name a type or nothing, not a secret
// (`password: string`, `password = None`).
var typeWords = map[string]bool{"string": true, "str": true, "int": true, "bool": true, "null": true, "nil": true,
	"none": true, "true": true, "false": true, "undefined": true, "bytes": true, "secret": true, "password": true, "optional": true}

// capsName matches a value that is a capitalised name of what belongs
// there (TOKEN, API_KEY, YOUR_SECRET): letters and underscores only, no
// digit or lower case as a real secret has, naming a secret's kind.
var capsName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Z_]*(TOKEN|SECRET|PASSWORD|PASSWD|KEY|PASS)[A-Z_]*$`)
})

// placeholderWords mark a value as an obvious placeholder (a warning).
var placeholderWords = []string{"xxx", "changeme", "change_me", "change-me", "example", "placeholder", "dummy",
	"your_", "your-", "yourtoken", "redacted", "***", "...", "…", "replace_me", "replace-me", "todo", "fixme", "sample", "fake", "test123"}

// ScanText scans one file's contents, named name in the findings: the
// secret detector over the whole text (a credential may span lines), then
// loopx's own checks line by line; at most one finding per line and
// category, an error before a warning. It is Scan without the file system.
func ScanText(name string, data []byte, o ScanOptions) []Finding {
	prefixes := o.TicketPrefixes
	if prefixes == nil {
		prefixes = DefaultTicketPrefixes
	}
	var ticketRe *regexp.Regexp
	if len(prefixes) > 0 {
		qs := make([]string, len(prefixes))
		for i, p := range prefixes {
			qs[i] = regexp.QuoteMeta(strings.TrimSuffix(p, "-"))
		}
		ticketRe = regexp.MustCompile(`\b(?:` + strings.Join(qs, "|") + `)-[0-9]+\b`)
	}
	text := string(data)
	lines := strings.Split(text, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	detected := map[int][]detectedCredential{}
	for _, c := range detectCredentials(name, text, lines) {
		detected[c.line] = append(detected[c.line], c)
	}
	var out []Finding
	for i, line := range lines {
		best := map[string]Finding{}
		add := func(cat string, col int, warn bool, msg string) {
			f := Finding{Rule: cat, Severity: SeverityError, Message: msg, Location: &Location{File: name, Row: i + 1, Col: col + 1}}
			if warn {
				f.Severity = SeverityWarning
			}
			old, ok := best[cat]
			if !ok || (old.Severity == SeverityWarning && f.Severity == SeverityError) {
				best[cat] = f
			}
		}
		scanCredentials(line, add)
		for _, c := range detected[i] {
			reportDetected(c, add)
		}
		scanIPs(line, add)
		scanHomes(line, add)
		if ticketRe != nil {
			for _, m := range ticketRe.FindAllStringIndex(line, -1) {
				add(CategoryTicketID, m[0], false, fmt.Sprintf("internal ticket id %s", line[m[0]:m[1]]))
			}
		}
		for _, cat := range []string{CategoryCredential, CategoryPrivateIP, CategoryPrivatePath, CategoryTicketID} {
			if f, ok := best[cat]; ok {
				out = append(out, f)
			}
		}
	}
	return out
}

type addFunc func(cat string, col int, warn bool, msg string)

func scanCredentials(line string, add addFunc) {
	for _, tp := range tokenPatterns() {
		for _, m := range tp.re.FindAllStringIndex(line, -1) {
			tok := line[m[0]:m[1]]
			placeholder := isPlaceholder(tok)
			if !placeholder && tp.kind != "private key" && !digitRe().MatchString(tok) {
				continue // a hyphenated word, not a key
			}
			if placeholder {
				add(CategoryCredential, m[0], true, fmt.Sprintf("%s %s looks like a placeholder: make sure it is not a real one", tp.kind, redact(tok)))
				continue
			}
			add(CategoryCredential, m[0], false, fmt.Sprintf("%s %s: remove it and rotate it", tp.kind, redact(tok)))
		}
	}
	for _, m := range assignRe().FindAllStringSubmatchIndex(line, -1) {
		key, op := strings.ToLower(line[m[2]:m[3]]), line[m[4]:m[5]]
		if op == "==" || op == "!=" {
			continue
		}
		val, col := value(line, m[1])
		if val == "" || val != strings.TrimSpace(val) || !strings.ContainsFunc(val, unicode.IsLetter) && !digitRe().MatchString(val) || typeWords[strings.ToLower(val)] {
			// nothing, punctuation, a type, or prose between quotes ("` with a value`")
			continue
		}
		if !strings.Contains(key, "pass") && len(val) < 8 {
			continue
		}
		checkValue(add, col, key, val, quoted(line, m[1]))
	}
	for _, m := range authRe().FindAllStringSubmatchIndex(line, -1) {
		val, col := value(line, m[1])
		if val == "" {
			continue
		}
		checkValue(add, col, "Authorization: "+line[m[2]:m[3]], val, true)
	}
}

// checkValue reports the literal value val of a secret named key.
func checkValue(add addFunc, col int, key, val string, isQuoted bool) {
	switch {
	case isEnvRef(val):
		add(CategoryCredential, col, true, fmt.Sprintf("%s refers to an environment variable (%s), not a literal: keep it that way", key, shorten(val)))
	case isPlaceholder(val):
		add(CategoryCredential, col, true, fmt.Sprintf("%s is set to a placeholder (%s): make sure it is not a real one", key, shorten(val)))
	case !isQuoted && codeLike().MatchString(val):
		// password = cfg.Password, token: getToken(): code, not a literal.
	default:
		add(CategoryCredential, col, false, fmt.Sprintf("%s with a literal value %s: remove it and rotate it", key, redact(val)))
	}
}

// value returns the value starting at i (quotes stripped, up to the closing
// quote or the first space, comma or semicolon) and its column.
func value(line string, i int) (string, int) {
	rest := line[i:]
	if rest == "" {
		return "", i
	}
	if q := rest[0]; q == '"' || q == '\'' || q == '`' {
		if j := strings.IndexByte(rest[1:], q); j >= 0 {
			return rest[1 : 1+j], i + 1
		}
		return "", i // an unclosed quote: prose, not a value
	}
	for _, open := range []string{"${{", "${"} {
		if strings.HasPrefix(rest, open) {
			closing := strings.Repeat("}", len(open)-1)
			if j := strings.Index(rest, closing); j >= 0 {
				return rest[:j+len(closing)], i
			}
		}
	}
	end := strings.IndexAny(rest, " \t,;\"'")
	if end < 0 {
		end = len(rest)
	}
	return rest[:end], i
}

func quoted(line string, i int) bool {
	return i < len(line) && strings.ContainsRune("\"'`", rune(line[i]))
}

// isEnvRef reports whether v refers to an environment variable or a CI
// secret instead of holding a literal.
func isEnvRef(v string) bool {
	if strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") && strings.HasSuffix(v, "%") && len(v) > 2 {
		return true
	}
	for _, s := range []string{"os.Getenv", "os.environ", "process.env", "getenv(", "ENV[", "env("} {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}

func isPlaceholder(v string) bool {
	if capsName().MatchString(strings.TrimRight(v, "`'\".:)")) {
		return true // TOKEN, API_KEY: a name standing for the value
	}
	l := strings.ToLower(v)
	if strings.HasPrefix(l, "<") && strings.HasSuffix(l, ">") || strings.HasPrefix(l, "{{") {
		return true
	}
	for _, w := range placeholderWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// redact shows the first 4 characters of a secret, never the rest.
func redact(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return `"…"`
	}
	return strconv.Quote(string(r[:4]) + "…")
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

func scanIPs(line string, add addFunc) {
	for _, m := range ipv4Re().FindAllStringIndex(line, -1) {
		if m[0] > 0 && (isDigit(line[m[0]-1]) || line[m[0]-1] == '.') {
			continue
		}
		if m[1] < len(line) && (isDigit(line[m[1]]) || line[m[1]] == '.' && m[1]+1 < len(line) && isDigit(line[m[1]+1])) {
			continue
		}
		ip := line[m[0]:m[1]]
		var o [4]int
		ok := true
		for i, part := range strings.Split(ip, ".") {
			n, err := strconv.Atoi(part)
			if err != nil || n > 255 || len(part) > 1 && part[0] == '0' {
				ok = false
				break
			}
			o[i] = n
		}
		if !ok || !(o[0] == 10 || o[0] == 172 && o[1] >= 16 && o[1] <= 31 || o[0] == 192 && o[1] == 168) {
			continue
		}
		if m[1] < len(line) && line[m[1]] == '/' {
			add(CategoryPrivateIP, m[0], true, fmt.Sprintf("private network range %s%s: a range, not a host; check that it says nothing about your network", ip, cidrSuffix(line[m[1]:])))
			continue
		}
		add(CategoryPrivateIP, m[0], false, fmt.Sprintf("private IPv4 address %s", ip))
	}
}

func cidrSuffix(s string) string {
	end := 1
	for end < len(s) && end < 3 && isDigit(s[end]) {
		end++
	}
	return s[:end]
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// placeholderUsers are home-directory names that stand for anyone.
var placeholderUsers = map[string]bool{"user": true, "username": true, "you": true, "me": true, "name": true,
	"someone": true, "example": true, "runner": true, "foo": true, "jdoe": true}

func scanHomes(line string, add addFunc) {
	for _, m := range homeRe().FindAllStringSubmatchIndex(line, -1) {
		if m[0] > 0 {
			prev := line[m[0]-1]
			fileURL := prev == '/' && strings.HasSuffix(line[:m[0]], "file://")
			if !fileURL && !strings.ContainsRune(" \t\"'=(:[,`<>{|", rune(prev)) {
				continue // part of a longer path or a URL (example.com/home/…)
			}
		}
		user := line[m[4]:m[5]]
		if user == "Shared" || user == "linuxbrew" {
			continue
		}
		path := line[m[2]:m[3]] + "/" + user + "/…"
		if isEnvRef(user) || isPlaceholder(user) || placeholderUsers[strings.ToLower(user)] {
			add(CategoryPrivatePath, m[0], true, fmt.Sprintf("home directory path %s with a placeholder user: prefer a relative path or $HOME", path))
			continue
		}
		add(CategoryPrivatePath, m[0], false, fmt.Sprintf("absolute path into the home directory of user %q (%s): use a path relative to the project or $HOME", user, path))
	}
	for _, m := range winHome().FindAllStringSubmatchIndex(line, -1) {
		user := line[m[2]:m[3]]
		if strings.EqualFold(user, "Public") {
			continue
		}
		if isEnvRef(user) || isPlaceholder(user) || placeholderUsers[strings.ToLower(user)] {
			add(CategoryPrivatePath, m[0], true, fmt.Sprintf(`home directory path C:\Users\%s\… with a placeholder user: prefer %%USERPROFILE%%`, user))
			continue
		}
		add(CategoryPrivatePath, m[0], false, fmt.Sprintf(`absolute path into the home directory of user %q (C:\Users\%s\…): use a path relative to the project or %%USERPROFILE%%`, user, user))
	}
}
