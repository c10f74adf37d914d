package confined

import (
	"context"
	"errors"
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
		err := BrokerAllows(tt.command, tt.project)
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
		err := brokerAllows(p, "loopx round finish", false)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != "broker_refused" || !strings.HasPrefix(e.Message, "loopx round finish cannot run from inside the agent's confinement: ") {
			t.Errorf("%s: brokerAllows = %v, want a broker_refused refusal", name, err)
		}
	}
}
