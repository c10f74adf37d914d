package engine

import (
	"context"
	"sync"

	"github.com/loopx-dev/loopx/engine/deciding/decision"
	"github.com/loopx-dev/loopx/engine/deciding/input"
	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/mutating/audit"
	"github.com/loopx-dev/loopx/engine/trust"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/open-policy-agent/opa/v1/rego"
)

// actingRule is the acting decision's entry rule.
const actingRule = "data.loopx.identity.acting"

// actingQuery is actingRule prepared once per process: it reads only its
// input and the built-in bundle (no spec, no user policy), so one
// preparation serves every engine (an MCP server opens one per call).
var actingQuery = sync.OnceValues(func() (*rego.PreparedEvalQuery, error) {
	return (&Rules{}).compileRef(context.Background(), actingRule, nil)
})

// PrepareActing prepares the acting decision in the background (once per
// process), so that a caller on a latency budget (a hook) overlaps it with
// reading its input and opening the project; ActAs waits for it.
func PrepareActing() { go func() { _, _ = actingQuery() }() }

// ActAs decides who a command acts as (data.loopx.identity.acting, compiled
// with the built-in bundle only: no user policy takes part). Go gathers
// the facts (the caller's ancestry, except for a session call, which acts
// as the agent bound at its start); the rule judges them. It returns the
// agent the command acts as: the one named, else the session's bound
// agent, else the one agent the ancestry carries, else "" (no agent: a
// human acting for an agent names it). Errors: errs.No
// agent_mismatch (the processes above run as another agent, or as
// several; a session bound to another agent) or unbound_session, each
// audited as an identity.refused event; errs.No bad_request or
// policy_error when the rule cannot judge (fail closed).
func (e *Engine) ActAs(ctx context.Context, in trust.ActRequest) (string, error) {
	// The rule first: not compiled under the lock the runners' read takes.
	pq, err := actingQuery()
	if err != nil {
		return "", err
	}
	facts := e.actingFacts(in)
	input := input.Input{Query: query.GateAnswer.Name, Now: records.RFC3339(e.Now()), Goal: in.Goal, Agent: in.Agent, Answer: facts}
	return e.actedAs(in, facts, e.evalPrepared(ctx, pq, actingRule, query.GateAnswer, input))
}

// actingFacts is input.answer of the acting decision for in: the actor it
// names and the caller's channel (its ancestry, read by Go).
func (e *Engine) actingFacts(in trust.ActRequest) *input.AnswerFacts {
	ch := input.Channel{Kind: "agent", Ancestry: []trust.Process{}, ActingAgents: []string{}}
	if in.Mode != "session" {
		acting := e.acting(in.Fast)
		ch.Ancestry, ch.ActingAgents, ch.AgentAncestor = acting.Ancestry, acting.Agents, acting.Agentish
		ch.AncestryChecked = !e.ancestry.Off
	}
	actor := ""
	if in.Agent != "" {
		actor = "agent:" + in.Agent
	}
	return &input.AnswerFacts{Actor: actor, Channel: ch, Acting: &input.ActingFacts{Mode: in.Mode, Bound: in.Bound, FromEnv: in.FromEnv}}
}

// actedAs is ActAs's answer for the acting decision d on facts: the agent
// it allows, else its refusal, audited.
func (e *Engine) actedAs(in trust.ActRequest, facts *input.AnswerFacts, d decision.Decision) (string, error) {
	if d.Allow {
		return d.Agent, nil
	}
	err := e.Refusal(d)
	e.auditActing(in, facts.Channel, err)
	return "", err
}

// auditActing appends an identity.refused event for a refused act, in its
// own transaction: the agent it named, what it tried, the reason and the
// ancestry the rule judged. A store that cannot be written loses only the
// event (the act is refused either way).
func (e *Engine) auditActing(in trust.ActRequest, ch input.Channel, err error) {
	e.audit(err, "agent:"+in.Agent+" "+in.What, func(tx *kernel.Tx, re *errs.Error) error {
		return audit.Identity(tx, in, ch.ActingAgents, ch.Ancestry, re)
	})
}

// Acting is trust.ReadAncestry of the caller with the runners the state
// records on rounds: who acts.
func (e *Engine) Acting() trust.Acting { return e.acting(false) }

// acting is Acting; fast reads the recorded runners from the read model
// (runnerAgents).
func (e *Engine) acting(fast bool) trust.Acting {
	if e.ancestry.Off {
		return trust.ReadAncestry(e.ancestry, nil)
	}
	return trust.ReadAncestry(e.ancestry, e.runnerAgents(fast))
}

// runnerAgents looks up the agent of a runner id recorded on rounds ("" for
// none), in the store's round index; with fast, in the read model while it
// matches the store and the store is not open (a hook, on its latency
// budget: see ActInput.Fast). An unreadable store yields none (the
// caller's decision then fails closed on the store's health anyway).
func (e *Engine) runnerAgents(fast bool) func(id string) string {
	if fast && e.sess.store == nil {
		if rm := e.sess.loadReadModel(e.Now()); rm != nil {
			return func(id string) string {
				for _, g := range rm.Goals {
					if a := g.Runners[id]; a != "" {
						return a
					}
				}
				return ""
			}
		}
	}
	return func(id string) string {
		var agent string
		_ = e.view(func(tx *kernel.Tx) error {
			var err error
			agent, _, err = tx.RunnerAgent(id)
			return err
		})
		return agent
	}
}
