package lint

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synth returns n characters of alphabet, pseudo-random from a fixed seed:
// the synthetic secrets are assembled at run time, so that this file holds
// none, and are the same on every run.
func synth(seed uint64, alphabet string, n int) string {
	r := rand.New(rand.NewPCG(seed, 29))
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upalnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	lower   = "abcdefghijklmnopqrstuvwxyz"
	hexdig  = "0123456789abcdef"
	b64     = alnum + "+/"
	urlsafe = alnum + "-_"
)

// syntheticSecrets are lines as they leak into published files, one
// credential each.
func syntheticSecrets() []struct{ name, text string } {
	return []struct{ name, text string }{
		{"github classic token", "GITHUB_TOKEN=ghp_" + synth(1, alnum, 36)},
		{"github fine-grained token", "token: github_pat_11" + synth(2, upalnum, 20) + "_" + synth(3, alnum, 59)},
		{"github oauth token", `"oauth": "gho_` + synth(4, alnum, 36) + `"`},
		{"openai project key", "OPENAI_API_KEY=sk-proj-" + synth(5, urlsafe, 48)},
		{"anthropic key", "export ANTHROPIC_API_KEY=sk-ant-api03-" + synth(6, urlsafe, 93) + "AA"},
		{"slack bot token", `slack_token = "xoxb-` + synth(7, "0123456789", 12) + "-" + synth(8, "0123456789", 13) + "-" + synth(9, alnum, 24) + `"`},
		{"slack webhook", "webhook: https://hooks.slack.com/services/T" + synth(10, upalnum, 8) + "/B" + synth(11, upalnum, 8) + "/" + synth(12, alnum, 24)},
		{"aws access key id", "aws_access_key_id = AKIA" + synth(13, upalnum, 16)},
		{"aws secret access key", "AWS_SECRET_ACCESS_KEY=" + synth(14, b64, 40)},
		{"private key block", "-----BEGIN RSA PRIVATE KEY-----\n" + synth(15, b64, 64) + "\n" + synth(16, b64, 64) + "\n-----END RSA PRIVATE KEY-----"},
		{"stripe live key", `stripe.api_key = "sk_live_` + synth(17, alnum, 24) + `"`},
		{"google api key", `const key = "AIza` + synth(18, urlsafe, 35) + `";`},
		{"gitlab token", "GITLAB_TOKEN=glpat-" + synth(19, urlsafe, 20)},
		{"npm token", "//registry.npmjs.org/:_authToken=npm_" + synth(20, alnum, 36)},
		{"password literal", "db_password: Qx7" + synth(21, alnum, 13)},
		{"sendgrid key", "SENDGRID_API_KEY=SG." + synth(22, urlsafe, 22) + "." + synth(23, urlsafe, 43)},
		{"twilio key", "twilio_api_key = SK" + synth(24, hexdig, 32)},
		{"pypi token", "password = pypi-AgEIcHlwaS5vcmc" + synth(25, urlsafe, 60)},
		{"bearer header", `curl -H "Authorization: Bearer ` + synth(26, alnum, 32) + `" https://api.example.com`},
		{"hugging face token", "HF_TOKEN=hf_" + synth(27, lower+strings.ToUpper(lower), 34)},
		{"digitalocean token", "DO_TOKEN=dop_v1_" + synth(28, hexdig, 64)},
		{"client secret", `client_secret: "` + synth(29, alnum, 32) + `"`},
	}
}

// Every synthetic secret is an error on its first line: the detector's
// rules and loopx's own assignment check together find them all.
func TestScanText_SyntheticSecretsAllFound(t *testing.T) {
	cases := syntheticSecrets()
	if len(cases) < 20 {
		t.Fatalf("the corpus has %d cases, want at least 20", len(cases))
	}
	found := 0
	for _, tc := range cases {
		fs := ScanText("config.env", []byte(tc.text+"\n"), ScanOptions{})
		ok := false
		for _, f := range fs {
			if f.Rule == CategoryCredential && f.Severity == SeverityError && f.Location.Row == 1 {
				ok = true
			}
			secret := tc.text[len(tc.text)-12:]
			if strings.Contains(f.Message, secret) {
				t.Errorf("%s: message %q echoes the secret", tc.name, f.Message)
			}
		}
		if ok {
			found++
		} else {
			t.Errorf("%s: no credential error in %+v", tc.name, fs)
		}
	}
	t.Logf("synthetic secrets found: %d of %d", found, len(cases))
}

// benignLines are what published files hold that is no credential:
// digests, ids, versions, code that handles secrets without holding one,
// documentation of where a secret goes.
var benignLines = []string{
	"sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"github.com/spf13/cobra v1.10.2 h1:cUMFqBvVzf1PFHXF2+g8jNeBKrGqhw6Y5S8XhBlRJdg=",
	"commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
	"id: 01J9ZK3Q4W5E6R7T8Y9U0I1O2P",
	"uuid = 123e4567-e89b-12d3-a456-426614174000",
	"password := os.Getenv(\"DB_PASSWORD\")",
	"token, err := auth.NewToken(ctx, cfg.Issuer)",
	"api_key: ${{ secrets.API_KEY }}",
	"Set `OPENAI_API_KEY` in your environment before running the agent.",
	"The secret key is read from $XDG_CONFIG_HOME/app/key and never logged.",
	"if password == \"\" { return errMissingPassword }",
	"password: string",
	"secretName: app-credentials",
	"keyName := \"default\"",
	"access_token_url = https://github.com/login/oauth/access_token",
	"the token bucket refills at 10 tokens per second",
	"AKIAIOSFODNN7EXAMPLE is the documentation's example key id",
	"export const API_VERSION = \"2024-06-01\";",
	"color: #3b82f6; background: #0f172a;",
	"integrity=\"sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC\"",
	"docker pull ghcr.io/owner/image@sha256:4f0c2f6b4e2c2f0e1e6b4d0c5a5f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f",
	"func (s *Store) Secret(name string) ([]byte, error) {",
	"keyring.Get(service, user)",
	"passwordless login via magic link",
	"x-api-key header: see docs/auth.md",
	"JWT_SECRET=${JWT_SECRET:?set it}",
	"The private key stays on your machine; only the public key is uploaded.",
	"ssh-keygen -t ed25519 -C \"you@example.com\"",
	"token: <your token>",
	"password: changeme",
	"aws_access_key_id = $AWS_ACCESS_KEY_ID",
	"Bearer tokens expire after an hour.",
	"base64 of the logo: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	"const maxKeyLength = 256",
	"tokens: 128000",
	"secret_length = 32",
	"public_key = \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\"",
	"checksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"",
	"request_id=req_8f14e45fceea167a5a36dedd4bea2543",
	"loopx gate answer g-2 --option approve",
}

// The benign corpus: hand-written lines and this repository's own
// documentation. No line may be a credential error (loopx check exits 1 on
// an error, and a user's CI must not start failing on their docs); the
// warnings, almost all of them the detector's generic rule, stay under 2%
// of the lines.
func TestScanText_BenignCorpusFalsePositives(t *testing.T) {
	type file struct{ name, text string }
	files := []file{{"benign.txt", strings.Join(benignLines, "\n") + "\n"}}
	docs, _ := filepath.Glob("../docs/*.md")
	for _, p := range append(docs, "../README.md") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{filepath.Base(p), string(b)})
	}
	lines, errs, warns := 0, 0, 0
	for _, f := range files {
		lines += strings.Count(f.text, "\n")
		for _, h := range ScanText(f.name, []byte(f.text), ScanOptions{TicketPrefixes: []string{}}) {
			if h.Rule != CategoryCredential {
				continue
			}
			if h.Severity == SeverityError {
				errs++
				t.Errorf("false positive: %s %s", h.Location, h.Message)
			} else {
				warns++
			}
		}
	}
	rate := float64(warns) / float64(lines)
	t.Logf("benign corpus: %d lines, %d credential errors, %d warnings (%.2f%%)", lines, errs, warns, 100*rate)
	if rate > 0.02 {
		t.Errorf("credential warnings on %.2f%% of benign lines, want at most 2%%", 100*rate)
	}
}
