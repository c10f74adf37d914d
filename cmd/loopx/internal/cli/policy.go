package cli

import (
	"github.com/spf13/cobra"
)

func (a *app) policyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "policy",
		Short: "Test the project's policies and try a query by hand",
		Long: `User policies live in loopx/policies/*.rego (Rego v1), beside the built-in
bundle: package loopx.user.should_run, loopx.user.permission,
loopx.user.claim or loopx.user.gate_answer (one per query), with
"deny contains reason if …" and "warn contains reason if …" (a reason is a
string or {code, message}); helpers go in loopx.user.lib. Tests are
*_test.rego files beside them.

Policies are type-checked against the JSON schema of each query's input
and of data.loopx.spec ("loopx policy schema"): a reference to a field
that does not exist (input.permission.comand) is an error with
file:line:col in vet, check and policy test, and every decision denies
(policy_error) until it is fixed. Policies may not call http.send,
net.lookup_ip_addr, opa.runtime, time.now_ns, rand.intn, uuid.rfc4122 or
OPA's other non-deterministic built-ins (the time is input.now), and one
evaluation runs at most project.policy_deadline (default 2s).`,
	}
	c.AddCommand(a.policyTestCmd(), a.policyEvalCmd(), a.policySchemaCmd())
	return c
}
