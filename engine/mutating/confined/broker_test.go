package confined

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/open-policy-agent/opa/v1/rego"
)

// TestBrokerAllows_AsksTheRule: the broker's answer is the rule's
// (data.loopx.broker.decision): a listed command runs, an unlisted one or
// any with --project is refused with the rule's message.
func TestBrokerAllows_AsksTheRule(t *testing.T) {
	for _, tt := range []struct {
		command string
		project bool
		want    string // "" allowed, else the refusal's message
	}{
		{"loopx round finish", false, ""},
		{"loopx hook", false, ""},
		{"loopx gate answer", false, ""},
		{"loopx run", false, "loopx run cannot run from inside the agent's confinement (it would run programs or write files outside it); a human runs it outside"},
		{"loopx hooks install", false, "loopx hooks install cannot run from inside the agent's confinement (it would run programs or write files outside it); a human runs it outside"},
		{"loopx status", true, "loopx status --project: a confined agent's loopx calls act on its own project only"},
	} {
		err := BrokerAllows(tt.command, tt.project, nil)
		if tt.want == "" {
			if err != nil {
				t.Errorf("BrokerAllows(%q, %v) = %v, want nil", tt.command, tt.project, err)
			}
			continue
		}
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != "broker_refused" || e.Kind != errs.No || e.Message != tt.want {
			t.Errorf("BrokerAllows(%q, %v) = %#v, want broker_refused %q", tt.command, tt.project, err, tt.want)
		}
	}
}

// TestBrokerAllows_FailsClosed: a rule that does not compile, errs, is
// undefined or answers in another shape refuses every command.
func TestBrokerAllows_FailsClosed(t *testing.T) {
	prep := func(query, module string) func() (*rego.PreparedEvalQuery, error) {
		return func() (*rego.PreparedEvalQuery, error) {
			pq, err := rego.New(rego.Query(query), rego.Module("x.rego", module), rego.StrictBuiltinErrors(true)).PrepareForEval(context.Background())
			return &pq, err
		}
	}
	for name, p := range map[string]func() (*rego.PreparedEvalQuery, error){
		"no compile": func() (*rego.PreparedEvalQuery, error) { return nil, errors.New("broken") },
		"undefined":  prep("d := data.x.decision(input.command, input.project)", "package x\ndecision(c, p) := {\"allow\": true} if false\n"),
		"error":      prep("d := data.x.decision(input.command, input.project)", "package x\ndecision(c, p) := {\"allow\": to_number(\"no\")}\n"),
		"not object": prep("d := data.x.decision(input.command, input.project)", "package x\ndecision(c, p) := true\n"),
		"no message": prep("d := data.x.decision(input.command, input.project)", "package x\ndecision(c, p) := {\"allow\": false}\n"),
		"allow text": prep("d := data.x.decision(input.command, input.project)", "package x\ndecision(c, p) := {\"allow\": \"yes\"}\n"),
	} {
		err := brokerAllows(p, "loopx round finish", false, nil)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != "broker_refused" || !strings.HasPrefix(e.Message, "loopx round finish cannot run from inside the agent's confinement: ") {
			t.Errorf("%s: brokerAllows = %v, want a broker_refused refusal", name, err)
		}
	}
}

// TestResolvePathArg: a brokered command's file argument is inside only
// when it resolves (links followed) into the work tree and not into what
// the sandbox hides.
func TestResolvePathArg(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "home")
	state := filepath.Join(root, ".local", "state", "loopx") // the project is the home directory
	for _, d := range []string{filepath.Join(root, "src"), state, filepath.Join(base, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(root, "src", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(state, filepath.Join(root, "src", "st")); err != nil {
		t.Fatal(err)
	}
	hidden := []string{state}
	for _, tt := range []struct {
		value, dir string
		outside    bool
	}{
		{"-", root, false},
		{"src", root, false},
		{"new.json", filepath.Join(root, "src"), false}, // missing: its directory decides
		{"../elsewhere", root, true},
		{"src/out", root, true},
		{"src/out/x.json", root, true},
		{"src/st", root, true},
		{state + "/projects/p-1/anchor.json", root, true},
		{"/etc/passwd", root, true},
		{"nodir/x", root, true}, // cannot be resolved: outside
		{"/nonexistent/x", root, true},
	} {
		if got := ResolvePathArg(root, tt.dir, tt.value, hidden); got.Outside != tt.outside || got.Value != tt.value {
			t.Errorf("ResolvePathArg(%q in %s) = %+v, want outside %v", tt.value, tt.dir, got, tt.outside)
		}
	}
}
