package lint

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// GenericSecretRule is the detector rule that matches any assignment of a
// high-entropy value to a secret-sounding key. It is noisy on prose and
// code, so a hit of that rule alone is a warning (a credential error needs
// another rule, or loopx's own assignment check, to agree).
const GenericSecretRule = "generic-api-key"

// credentialDetector is the secret detector over its default rule set
// (about 220 rules, one per kind of credential), built once per process on
// the first scan: building it compiles every rule's pattern, which a
// command that scans nothing never pays for. The detector's own logging is
// silenced: the scan reports through Findings only.
var credentialDetector = sync.OnceValues(func() (*detect.Detector, error) {
	logging.Logger = zerolog.Nop()
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("secret detector rules: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("secret detector rules: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("secret detector rules: %w", err)
	}
	return detect.NewDetector(cfg), nil
})

// credentialKinds maps the detector's rule ids (or an id's prefix, ending
// in "-") onto the kind of credential loopx names in its messages; a rule
// not listed is named by its id, hyphens as spaces.
var credentialKinds = []struct{ id, kind string }{
	{"github-", "GitHub token"},
	{"openai-api-key", "secret key (sk-…)"},
	{"anthropic-", "secret key (sk-…)"},
	{"slack-webhook-url", "Slack webhook URL"},
	{"slack-", "Slack token"},
	{"aws-access-token", "AWS access key id"},
	{"private-key", "private key"},
	{"curl-auth-", "Authorization header"},
	{GenericSecretRule, "secret-like value"},
}

// credentialKind is the loopx name of the detector's rule id.
func credentialKind(id string) string {
	for _, k := range credentialKinds {
		if id == k.id || strings.HasSuffix(k.id, "-") && strings.HasPrefix(id, k.id) {
			return k.kind
		}
	}
	return strings.ReplaceAll(id, "-", " ")
}

// detectedCredential is one credential the detector found: the 0-based
// line, the 0-based byte column in that line, the rule id and the secret.
type detectedCredential struct {
	line, col int
	rule      string
	secret    string
}

// detectCredentials runs the secret detector over one file's contents,
// named name (its path decides the detector's own path allowlist: lock
// files, vendored sources). lines are data split at "\n" with "\r"
// trimmed. A detector that could not be built finds nothing.
func detectCredentials(name, data string, lines []string) []detectedCredential {
	d, err := credentialDetector()
	if err != nil {
		return nil
	}
	var out []detectedCredential
	for _, f := range d.Detect(detect.Fragment{Raw: data, FilePath: name}) {
		row := f.StartLine
		if row < 0 || row >= len(lines) {
			continue
		}
		col := -1
		for _, s := range []string{f.Secret, f.Match} {
			if s == "" {
				continue
			}
			first, _, _ := strings.Cut(s, "\n")
			if col = strings.Index(lines[row], first); col >= 0 {
				break
			}
		}
		if col < 0 {
			col = 0
		}
		out = append(out, detectedCredential{line: row, col: col, rule: f.RuleID, secret: f.Secret})
	}
	return out
}

// reportDetected adds one detector finding to its line's findings: a
// placeholder or an environment variable is a warning, the generic rule
// alone is a warning, every other rule an error.
func reportDetected(c detectedCredential, add addFunc) {
	kind := credentialKind(c.rule)
	switch {
	case isEnvRef(c.secret):
		add(CategoryCredential, c.col, true, fmt.Sprintf("%s refers to an environment variable (%s), not a literal: keep it that way", kind, shorten(c.secret)))
	case isPlaceholder(c.secret):
		add(CategoryCredential, c.col, true, fmt.Sprintf("%s %s looks like a placeholder: make sure it is not a real one", kind, redact(c.secret)))
	case c.rule == GenericSecretRule:
		add(CategoryCredential, c.col, true, fmt.Sprintf("%s %s assigned to a secret-sounding name: make sure it is not a credential", kind, redact(c.secret)))
	default:
		add(CategoryCredential, c.col, false, fmt.Sprintf("%s %s: remove it and rotate it", kind, redact(c.secret)))
	}
}
