package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine/deciding/query"
	"github.com/loopx-dev/loopx/engine/reporting/contract"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

func (a *app) evidenceCmd() *cobra.Command {
	c := &cobra.Command{Use: "evidence", Short: "Record and list evidence (test runs, PRs, logs, notes)"}
	c.AddCommand(a.evidenceAddCmd(), a.evidenceListCmd())
	return c
}

// evidenceAddOptions are the flags and summary of `loopx evidence add`.
type evidenceAddOptions struct {
	records.Evidence
}

// validate checks the flags alone (no project opened); the engine checks
// the kind, status and action.
func (o *evidenceAddOptions) validate() error { return nil }

// runEvidenceAdd records the evidence as the acting agent or human
// (engine.AddEvidence).
func (a *app) runEvidenceAdd(ctx context.Context, o *evidenceAddOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	ev := o.Evidence
	e.Prepare(ctx, true, query.Claim) // before the identity check takes the lock
	if ev.By, err = a.actor(ctx, e, "evidence add", ev.Goal); err != nil {
		return err
	}
	saved, err := e.AddEvidence(ev)
	if err != nil {
		return err
	}
	return a.print(contract.EvidenceOf(saved), func(w io.Writer) { fmt.Fprintf(w, "recorded %s %s\n", saved.ID, saved.Summary) })
}

func (a *app) evidenceAddCmd() *cobra.Command {
	o := &evidenceAddOptions{}
	c := &cobra.Command{
		Use: "add --goal G SUMMARY", Short: "Record evidence", Args: cobra.MinimumNArgs(1),
		Example: `  loopx evidence add --goal g1 --kind test --status pass --ref "go test ./..." "all tests pass"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Summary = strings.Join(args, " ")
			if err := o.validate(); err != nil {
				return err
			}
			return a.runEvidenceAdd(cmd.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Goal, "goal", "", "the goal (required)")
	f.StringVar(&o.Kind, "kind", "note", "test, pr, log, metric, check or note")
	f.StringVar(&o.Status, "status", "info", "pass, fail or info")
	f.StringVar(&o.Ref, "ref", "", "a path, URL or command it points at")
	f.StringVar(&o.Todo, "todo", "", "the todo it concerns")
	f.StringVar(&o.Action, "action", "", "the guarded action it records (e.g. git.push); refused while a gate guards it")
	return c
}
