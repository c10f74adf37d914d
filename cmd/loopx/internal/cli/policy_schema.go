package cli

import (
	"context"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/deciding/rulebook"
	"github.com/spf13/cobra"
)

// policySchemaOptions are the argument of `loopx policy schema`.
type policySchemaOptions struct {
	name string
}

// validate checks the argument alone: a query's name in either spelling
// (should-run) is its query (should_run); the engine knows the rest.
func (o *policySchemaOptions) validate() error {
	if q, ok := rulebook.LookupQuery(o.name); ok {
		o.name = q.Name
	}
	return nil
}

// runPolicySchema prints the JSON schema (engine.PolicySchema); it needs
// no project.
func (a *app) runPolicySchema(_ context.Context, o *policySchemaOptions) error {
	b, err := engine.PolicySchema(o.name)
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(b)
	return err
}

func (a *app) policySchemaCmd() *cobra.Command {
	o := &policySchemaOptions{}
	return &cobra.Command{
		Use:   "schema QUERY|spec",
		Short: "Print the JSON schema policies are type-checked with",
		Long: `Schema prints the JSON schema (draft-07) of a query's input (should_run,
permission) or, for "spec", of data.loopx.spec: the schemas OPA
type-checks every policy with, each field with its description. They are
generated from the types loopx fills, so they are exactly what a policy
sees. Objects are closed: a
reference to a field a schema does not declare is a compile error. Below a
map keyed by id (data.loopx.spec.goals[g], agents, gates) OPA checks
nothing.

In package loopx.user.should_run (and loopx.run) input is the should_run
input; in loopx.user.permission the permission input; in other packages
(loopx.user.lib, tests) the input of any query.

Exit codes: 0 printed; 2 an unknown name.`,
		Example: `  loopx policy schema permission
  loopx policy schema should_run | jq '.properties.state.properties | keys'
  loopx policy schema spec`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return a.runPolicySchema(cmd.Context(), o)
		},
	}
}
