package codex

import (
	"strings"
	"testing"
)

// TestAskNote_DependsOnTheReason: the advice of a Codex ask fits why it
// asks; an opaque line is never told to add a grant (nothing grants it).
func TestAskNote_DependsOnTheReason(t *testing.T) {
	for _, tc := range []struct {
		codes []string
		want  string
	}{
		{[]string{"command_opaque"}, "Codex cannot ask for confirmation, so loopx blocks this call (an ask). loopx cannot read this command line, so no spec setting allows it: a human must run it themselves, or the agent may rewrite it so that loopx can read it (plain commands: no $(…), eval, `| sh`, inline -c/-e code)"},
		{[]string{"command_ask"}, "Codex cannot ask for confirmation, so loopx blocks this call (an ask). The spec asks a human for it (goals.g1.scope.commands.ask): a human must run it themselves, or take the pattern out of scope.commands.ask; then the agent may retry"},
		{[]string{"command_not_allowed", "user_warning"}, "Codex cannot ask for confirmation, so loopx blocks this call (an ask). It matches no pattern of goals.g1.scope.commands.allow: a human must run it themselves, or add a matching pattern there; then the agent may retry"},
		{nil, "Codex cannot ask for confirmation, so loopx blocks this call (an ask). A human must run it themselves"},
	} {
		if got := AskNote("g1", tc.codes); got != tc.want {
			t.Errorf("AskNote(%v)\n got %q\nwant %q", tc.codes, got, tc.want)
		}
		if strings.Contains(AskNote("g1", tc.codes), "grant") {
			t.Errorf("AskNote(%v) suggests a grant, which never overrides an ask", tc.codes)
		}
	}
}
