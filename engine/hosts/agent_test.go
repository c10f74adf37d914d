package hosts

import (
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
)

func TestCheckAgent(t *testing.T) {
	hostOf := map[string]string{"a1": "claude-code", "a2": "claude-code"}
	for _, tc := range []struct {
		name, host, agent string
		code, says        string
	}{
		{"declared", "claude-code", "a1", "", ""},
		{"undeclared", "claude-code", "a3", "unknown_agent", "agents: a3: {host: \"claude-code\""},
		{"an id CUE quotes", "codex", "my-agent", "unknown_agent", "agents: \"my-agent\": {host: \"codex\""},
		{"another host", "codex", "a1", "agent_host_mismatch", "--host claude-code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckAgent(hostOf, tc.host, tc.agent)
			if errs.CodeOf(err) != tc.code || (tc.code == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.says)) {
				t.Fatalf("%v, want %s saying %s", err, tc.code, tc.says)
			}
		})
	}
}

func TestCheckRegistration(t *testing.T) {
	for _, tc := range []struct{ id, host, mode, code string }{
		{"a1", "shell", "", ""},
		{"ci.bot-2", "codex", "monitor_only", ""},
		{"-a", "shell", "", "bad_agent"},
		{"a b", "shell", "", "bad_agent"},
		{"a1", "vim", "", "bad_host"},
		{"a1", "shell", "lazy", "bad_mode"},
	} {
		if err := CheckRegistration(tc.id, tc.host, tc.mode, []string{"claude-code", "codex", "cursor", "shell", "other"}); errs.CodeOf(err) != tc.code {
			t.Errorf("%+v: %v", tc, err)
		}
	}
}

// CheckVerdict gives a blank reason its default and cuts a reason longer
// than inert.MaxText (a reason may quote the agent's own input).
func TestCheckVerdict(t *testing.T) {
	long := strings.Repeat("a", 120000)
	for _, tc := range []struct {
		verdict, reason string
		wantLen         int
		wantPrefix      string
		err             bool
	}{
		{verdict: "deny", reason: "", wantPrefix: "loopx deny"},
		{verdict: "ask", reason: "a human decides", wantPrefix: "a human decides"},
		{verdict: "deny", reason: "unknown agent " + long, wantLen: 10000, wantPrefix: "unknown agent aaa"},
		{verdict: "run", err: true},
	} {
		got, err := CheckVerdict(tc.verdict, tc.reason)
		if (err != nil) != tc.err {
			t.Errorf("%s: err %v, want error %v", tc.verdict, err, tc.err)
			continue
		}
		if !strings.HasPrefix(got, tc.wantPrefix) || (tc.wantLen > 0 && (len([]rune(got)) > tc.wantLen || !strings.HasSuffix(got, "more characters)"))) {
			t.Errorf("%s %.20q: got %.40q (%d characters)", tc.verdict, tc.reason, got, len([]rune(got)))
		}
	}
}
