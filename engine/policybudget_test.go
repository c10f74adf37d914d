package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
)

// TestUserPolicy_ForbiddenBuiltinsRefused: a user policy that calls a
// built-in reaching the network, the clock or randomness does not compile:
// check and policy test name the built-in at its file:line:col and say
// the time is input.now, and every decision denies with policy_error.
func TestUserPolicy_ForbiddenBuiltinsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body, want string }{
		{"http.send", `http.send({"method": "GET", "url": "http://127.0.0.1:9/allow"}).status_code == 200`,
			"leak.rego:4:2: rego_type_error: built-in http.send is not available to loopx policies: it reaches the network"},
		{"net.lookup_ip_addr", `count(net.lookup_ip_addr("example.com")) > 0`,
			"leak.rego:4:8: rego_type_error: built-in net.lookup_ip_addr is not available to loopx policies: it reaches the network"},
		{"time.now_ns", `time.now_ns() > 0`,
			"leak.rego:4:2: rego_type_error: built-in time.now_ns is not available to loopx policies: it reads the clock"},
		{"rand.intn", `rand.intn("x", 10) == 3`,
			"leak.rego:4:2: rego_type_error: built-in rand.intn is not available to loopx policies: it reads randomness"},
		{"uuid.rfc4122", `uuid.rfc4122("x") != ""`,
			"leak.rego:4:2: rego_type_error: built-in uuid.rfc4122 is not available to loopx policies: it reads randomness"},
		{"opa.runtime", `opa.runtime().env.HOME != ""`,
			"leak.rego:4:2: rego_type_error: built-in opa.runtime is not available to loopx policies: it reads the process's environment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, c := newEngine(t, testSpec)
			addTodos(t, e, "a")
			writeUserPolicy(t, e, "leak.rego", "package loopx.user.should_run\n\ndeny contains \"leak\" if {\n\t"+tc.body+"\n}\n")
			writeUserPolicy(t, e, "leak_test.rego", "package loopx.user.should_run_test\n\ntest_nothing if true\n")
			e = reopen(t, e, c)
			probs, err := e.CheckPolicies()
			if err != nil || len(probs) != 1 || !strings.Contains(probs[0].String(), tc.want) || !strings.Contains(probs[0].Message, "the time is input.now") {
				t.Fatalf("check: %v %v\nwant %q", probs, err, tc.want)
			}
			rep, err := e.TestPolicies(context.Background())
			if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].String(), tc.want) {
				t.Fatalf("policy test: %+v %v", rep, err)
			}
			d := decide(t, e, "a1")
			if d.Verdict != "deny" || !d.HasReason("policy_error") || !strings.Contains(d.Reasons[0].Message, "built-in "+tc.name+" is not available") {
				t.Fatalf("decision: %s %+v", d.Verdict, d.Reasons)
			}
		})
	}
	if got := strings.Join(rulebook.ForbiddenBuiltins(), " "); !strings.Contains(got, "http.send") || strings.Contains(got, "net.cidr_contains") {
		t.Errorf("ForbiddenBuiltins = %s", got)
	}
}

// spinPolicy never ends in any useful time: 10^10 iterations over two
// small arrays (no memory grows while it runs).
const spinPolicy = `package loopx.user.should_run

deny contains "spin" if {
	some i in numbers.range(1, 100000)
	some j in numbers.range(1, 100000)
	i + j < 0
}
`

// TestUserPolicy_DeadlineCutsEvaluation: a never-ending user policy is
// stopped at project.policy_deadline and the decision denies with
// policy_error (fail closed); a policy test of it errors the same way.
func TestUserPolicy_DeadlineCutsEvaluation(t *testing.T) {
	t.Parallel()
	e, c := newEngine(t, "project: policy_deadline: \"100ms\"\n"+testSpec)
	addTodos(t, e, "a")
	writeUserPolicy(t, e, "spin.rego", spinPolicy)
	writeUserPolicy(t, e, "spin_test.rego", "package loopx.user.should_run_test\n\ntest_spin if count(data.loopx.user.should_run.deny) == 0\n")
	e = reopen(t, e, c)
	if got := e.rules.PolicyDeadline().String(); got != "100ms" {
		t.Fatalf("deadline = %s", got)
	}
	d := decide(t, e, "a1")
	if d.Verdict != "deny" || !d.HasReason("policy_error") || !strings.Contains(d.Reasons[0].Message, "passed its deadline of 100ms (spec field project.policy_deadline)") {
		t.Fatalf("decision: %s %+v", d.Verdict, d.Reasons)
	}
	rep, err := e.TestPolicies(context.Background())
	if err != nil || rep.Errors != 1 || rep.OK() || !strings.HasPrefix(rep.Results[0].Error, "stopped at the policy deadline of 100ms (spec field project.policy_deadline): ") {
		t.Fatalf("policy test: %+v %v", rep, err)
	}
}
