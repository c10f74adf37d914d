package rulebook

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// AgentOnGoal is the library rule that decides whether an agent may work
// on a goal (policies/loopx/lib/agents.rego), for every query and for
// `loopx hooks install --goal`.
const AgentOnGoal = "data.loopx.lib.agent_on_goal"

// EvalBool evaluates pq, prepared for the boolean rule ref, on the input
// in. Errors: the evaluation's; ref undefined or not a boolean.
func EvalBool(ctx context.Context, pq *rego.PreparedEvalQuery, ref string, in ast.Value) (bool, error) {
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(in))
	if err != nil {
		return false, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return false, fmt.Errorf("%s is undefined for this input", ref)
	}
	b, ok := rs[0].Expressions[0].Value.(bool)
	if !ok {
		return false, fmt.Errorf("%s is %v, not a boolean", ref, rs[0].Expressions[0].Value)
	}
	return b, nil
}
