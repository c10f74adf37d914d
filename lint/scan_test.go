package lint

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tokens are assembled at run time so that this file holds none.
var (
	ghToken  = "ghp_" + strings.Repeat("a1B2", 9)
	skToken  = "sk-proj-" + strings.Repeat("Zq9", 8)
	xoxToken = "xoxb-" + "1234567890-abcdefghij"
	awsKey   = "AKIA" + "Z7QPLM3NB4XW2K9D"
)

func TestScanText_Categories(t *testing.T) {
	cases := []struct {
		name, line string
		want       string // "category severity" or "" for no hit
		msg        string // a substring of the message
	}{
		{"github token", "token: " + ghToken, "credential error", `GitHub token "ghp_…"`},
		{"fine-grained github token", "GITHUB=github_pat_11ABCDEFG0_" + strings.Repeat("x9Kq", 6), "credential error", "GitHub token"},
		{"fine-grained placeholder", "GITHUB=github_pat_11ABCDEFG0_exampleexampleexample", "credential warning", "placeholder"},
		{"sk key", "OPENAI_API_KEY=" + skToken, "credential error", `secret key (sk-…) "sk-p…"`},
		{"slack", `url = "` + xoxToken + `"`, "credential error", "Slack token"},
		{"aws key id", "aws_access_key_id = " + awsKey, "credential error", `AWS access key id "AKIA…"`},
		{"aws documentation example", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "credential warning", "placeholder"},
		{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----", "credential error", "private key"},
		{"password literal", "password=hunter2", "credential error", `password with a literal value "hunt…"`},
		{"passwd yaml", "  passwd: s3cr3t-Value", "credential error", "passwd with a literal value"},
		{"password json", `{"password": "correct horse"}`, "credential error", "password with a literal value"},
		{"env file key", "DB_PASSWORD=Tr0ub4dor&3", "credential error", "password"},
		{"api key literal", `api_key = "9f8e7d6c5b4a3210"`, "credential error", "api_key"},
		{"bearer literal", `curl -H "Authorization: Bearer abc123def456"`, "credential error", "Authorization: Bearer with a literal value"},
		// downgrades: environment variables and placeholders
		{"password env var", "password: $DB_PASSWORD", "credential warning", "environment variable"},
		{"password braces", "password=${DB_PASSWORD}", "credential warning", "environment variable"},
		{"password getenv", `password := os.Getenv("PW")`, "credential warning", "environment variable"},
		{"password ci secret", "password: ${{ secrets.PW }}", "credential warning", "environment variable"},
		{"bearer env", `curl -H "Authorization: Bearer $TOKEN"`, "credential warning", "environment variable"},
		{"bearer name in prose", "Every request carries it as `Authorization: Bearer TOKEN`.", "credential warning", "placeholder"},
		{"password name", "password: YOUR_PASSWORD", "credential warning", "placeholder"},
		{"password placeholder", "password: changeme", "credential warning", "placeholder"},
		{"password angle placeholder", "password=<password>", "credential warning", "placeholder"},
		{"token xxx", "token: ghp_" + strings.Repeat("x", 36), "credential warning", "placeholder"},
		{"sk placeholder", "key: sk-" + strings.Repeat("X", 24), "credential warning", "placeholder"},
		// not credentials
		{"password comparison", `if password == "" {`, "", ""},
		{"password type", "password: string", "", ""},
		{"password from code", "password = cfg.Password", "", ""},
		{"password prose", "Set the `password:` field", "", ""},
		{"hyphenated word", "ask-for-review-before-merging-everything", "", ""},
		// private IPs
		{"10/8", "host: 10.1.2.3", "private-ip error", "private IPv4 address 10.1.2.3"},
		{"172.16/12", "ssh admin@172.20.0.5", "private-ip error", "172.20.0.5"},
		{"192.168/16", "http://192.168.1.10:8080/", "private-ip error", "192.168.1.10"},
		{"cidr range", "allow 10.0.0.0/8", "private-ip warning", "private network range 10.0.0.0/8"},
		{"public ip", "8.8.8.8 and 172.32.0.1 and 127.0.0.1", "", ""},
		{"version string", "v1.10.0.1.2 and 310.1.2.3", "", ""},
		{"bad octet", "10.300.2.1", "", ""},
		// home paths
		{"linux home", "log: /home/alice/projects/x.log", "private-path error", `user "alice"`},
		{"mac home", `"/Users/bob/work"`, "private-path error", `user "bob"`},
		{"file url", "file:///home/carol/notes.txt", "private-path error", "carol"},
		{"windows home", `C:\Users\dave\Desktop`, "private-path error", "dave"},
		{"home placeholder", "/home/<user>/.config", "private-path warning", "placeholder user"},
		{"home env", "/home/$USER/.cache", "private-path warning", "placeholder user"},
		{"home url path", "https://example.com/home/about", "", ""},
		{"shared", "/Users/Shared/x", "", ""},
		// ticket ids
		{"jira", "fixes JIRA-1234", "ticket-id error", "internal ticket id JIRA-1234"},
		{"incident", "see INC-7 and SEC-88", "ticket-id error", "INC-7"},
		{"other prefix", "see ABC-123 and UTF-8", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := ScanText("f.txt", []byte(tc.line+"\n"), ScanOptions{})
			if tc.want == "" {
				if len(fs) != 0 {
					t.Fatalf("%q: want no hit, got %+v", tc.line, fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("%q: want one hit %s, got %+v", tc.line, tc.want, fs)
			}
			f := fs[0]
			if got := f.Rule + " " + f.Severity; got != tc.want || !strings.Contains(f.Message, tc.msg) {
				t.Fatalf("%q: got %s %q, want %s containing %q", tc.line, got, f.Message, tc.want, tc.msg)
			}
			if f.Location.File != "f.txt" || f.Location.Row != 1 || f.Location.Col < 1 {
				t.Fatalf("location %+v", f.Location)
			}
		})
	}
}

func TestScanText_NeverEchoesASecret(t *testing.T) {
	for _, line := range []string{"token: " + ghToken, "password=hunter2hunter2", "k=" + skToken, "Authorization: Basic dXNlcjpwYXNz"} {
		for _, f := range ScanText("f", []byte(line), ScanOptions{}) {
			if strings.Contains(f.Message, strings.SplitN(line, "=", 2)[len(strings.SplitN(line, "=", 2))-1][5:]) {
				t.Errorf("message %q echoes the secret of %q", f.Message, line)
			}
		}
	}
}

func TestScanText_OneHitPerLineAndCategoryErrorsFirst(t *testing.T) {
	fs := ScanText("f", []byte("a\npassword: $X password=hunter2 10.0.0.1 10.0.0.2\n"), ScanOptions{})
	if len(fs) != 2 || fs[0].Rule != CategoryCredential || fs[0].Severity != SeverityError || fs[0].Location.Row != 2 ||
		fs[1].Rule != CategoryPrivateIP || fs[1].Message != "private IPv4 address 10.0.0.1" {
		t.Fatalf("%+v", fs)
	}
}

func TestScanText_TicketPrefixesConfigurable(t *testing.T) {
	text := []byte("ABC-12 and JIRA-3\n")
	if fs := ScanText("f", text, ScanOptions{TicketPrefixes: []string{"ABC"}}); len(fs) != 1 || !strings.Contains(fs[0].Message, "ABC-12") {
		t.Fatalf("%+v", fs)
	}
	if fs := ScanText("f", text, ScanOptions{TicketPrefixes: []string{}}); len(fs) != 0 {
		t.Fatalf("empty prefix list: %+v", fs)
	}
}

func TestScan_FilesSkipsBinaryAndListsOutsideGit(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/a.md", "ok\nserver 192.168.0.7\n")
	write("bin/blob", "password=hunter2\x00\x01")
	write(".loopx/decisions.jsonl", "password=hunter2\n")
	write(".git/config", "password=hunter2\n")
	files, err := PublishedFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files, ",") != "bin/blob,docs/a.md" {
		t.Fatalf("PublishedFiles outside git = %v", files)
	}
	hits, skipped, err := Scan(root, files, ScanOptions{})
	if err != nil || skipped != 1 || len(hits) != 1 || hits[0].Location.String() != "docs/a.md:2:8" {
		t.Fatalf("hits %+v skipped %d err %v", hits, skipped, err)
	}
	if _, err := ExpandScanPaths(root, []string{"nope"}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing path: %v", err)
	}
	if got, err := ExpandScanPaths(root, []string{"docs", "docs/a.md"}); err != nil || strings.Join(got, ",") != "docs/a.md" {
		t.Fatalf("ExpandScanPaths = %v %v", got, err)
	}
}

func TestPublishedFiles_GitTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	for _, n := range []string{"tracked.txt", "untracked.txt"} {
		if err := os.WriteFile(filepath.Join(root, n), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "tracked.txt")
	files, err := PublishedFiles(root)
	if err != nil || strings.Join(files, ",") != "tracked.txt" {
		t.Fatalf("PublishedFiles in git = %v %v", files, err)
	}
}
