package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/spf13/cobra"
)

// doctorOptions are the flags of `loopx doctor`.
type doctorOptions struct {
	accept bool
}

// validate checks the flags alone (no project opened).
func (o *doctorOptions) validate() error { return nil }

// runDoctor checks the spec, the store, recovered torn writes, the
// installed hooks and the clock, and reports each problem (exit 1 when
// any). --accept-store first asks the built-in repair rule.
func (a *app) runDoctor(ctx context.Context, o *doctorOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.accept {
		// A human-only repair: decided by the built-in channel rule
		// (data.loopx.gate.repair), never by user policies.
		if err := a.humanOnly(ctx, e, "doctor --accept-store", false, "store.accept_refused", ".loopx/"); err != nil {
			return err
		}
	}
	r, err := e.Doctor(o.accept)
	if err != nil {
		return err
	}
	rep := map[string]any{"root": r.Root, "spec_ok": r.SpecErr == nil, "store": r.Store, "revision": r.Revision,
		"recovered": r.Recovered, "corrupt_records": r.Corrupt, "hooks": r.Hooks,
		"events": map[string]any{"records": r.Events.Records, "bytes": r.Events.Size, "ok": r.EventsErr == nil}}
	if r.EventsErr != nil {
		rep["events"].(map[string]any)["error"] = r.EventsErr.Error()
	}
	if r.SpecErr != nil {
		rep["spec_error"] = r.SpecErr.Error()
	}
	if r.ClockBehind {
		rep["clock_behind"] = map[string]any{"now": r.Now, "newest_commit": r.NewestCommit}
	}
	if err := a.print(rep, func(w io.Writer) {
		fmt.Fprintf(w, "store %s: revision %d\n", r.Store, r.Revision)
		if rec := r.Recovered; rec != nil && (rec.EventsCompleted || rec.EventsDropped > 0 || rec.EventsSalvaged != "") {
			fmt.Fprintf(w, "recovered at %s: %s\n", rec.At.Format("2006-01-02T15:04:05Z"), rec.Message())
		} else if rec != nil {
			done := "every complete transaction kept"
			if rec.Completed {
				done = "the last transaction was completed from its journal"
			}
			fmt.Fprintf(w, "recovered: a torn tail of %d bytes was dropped on open at %s (%s)\n", rec.DroppedBytes, rec.At.Format("2006-01-02T15:04:05Z"), done)
		}
		for _, k := range r.Corrupt {
			fmt.Fprintf(w, "corrupt record: %s (its value does not decode; restore state.db from a backup)\n", k)
		}
		if r.EventsErr != nil {
			fmt.Fprintf(w, "events: %v (restore .loopx/events.log from a backup; every record before it verifies)\n", r.EventsErr)
		} else {
			fmt.Fprintf(w, "events: %d records, chain verified\n", r.Events.Records)
		}
		if r.SpecErr != nil {
			fmt.Fprintf(w, "spec: %v\n", r.SpecErr)
		} else {
			fmt.Fprintln(w, "spec: ok")
		}
		if r.ClockBehind {
			fmt.Fprintln(w, strings.TrimPrefix(clockBehindLine(r.Now, r.NewestCommit), "loopx: "))
		}
		for _, p := range r.Hooks {
			fmt.Fprintf(w, "hooks: %s: %s (the host no longer asks loopx there; a human re-installs them with `%s`)\n", p.Settings, p.Problem, p.Fix)
		}
	}); err != nil {
		return err
	}
	if !r.Healthy() {
		return reported(errs.No)
	}
	return nil
}

func (a *app) doctorCmd() *cobra.Command {
	o := &doctorOptions{}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the project: spec, state store, recovered torn writes, installed hooks",
		Long: `Doctor opens the store and reports its path, revision, and whether a torn
tail (an incomplete last write, e.g. after kill -9 or a power cut) was ever
dropped on open. It also compares the hook entries ` + "`loopx hooks install`" + ` wrote
(recorded in .loopx/hooks.json) with the host settings files now, and
reports each entry that is missing or changed (deleted, its matcher
narrowed, its timeout or type edited: the host then runs tool calls
without asking loopx). A system clock earlier than the store's newest
commit (moved back) is reported as a clock: line. The audit event log
(.loopx/events.log) is read whole: every record's checksum, the hash
chain, and that it ends where the store's last commit left it; the first
bad record is named (events: line). Exit 0 when healthy, 1
when a problem was found, 3 when the store cannot be opened.

A store that is missing or behind the last revision the project committed
(restored from a backup, truncated or replaced) is refused everywhere, so
that spent quota and open gates never silently disappear; after checking
why, --accept-store continues from the store as it is (audited). It is a
human-only repair, decided by the built-in channel rule
data.loopx.gate.repair alone (no user policy takes part, so a broken one
cannot lock the human out): refused (exit 1) from inside an agent round
(LOOPX_ROUND/LOOPX_AGENT) or from a process that descends from an agent.`,
		Example: "  loopx doctor --json\n  loopx doctor --accept-store",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runDoctor(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.accept, "accept-store", false, "accept a store behind the last committed revision (after checking why)")
	return c
}
