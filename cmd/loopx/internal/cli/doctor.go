package cli

import (
	"context"
	"fmt"
	"github.com/loopx-dev/loopx/internal/frontend/gateanswer"
	"io"
	"strings"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/reporting/render"
	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/kernel/records"
	"github.com/spf13/cobra"
)

// doctorOptions are the flags of `loopx doctor`.
type doctorOptions struct {
	accept  bool
	salvage bool
}

// validate checks the flags alone (no project opened).
func (o *doctorOptions) validate() error {
	if o.accept && o.salvage {
		return usagef("--accept-store and --salvage contradict each other: --salvage re-anchors the store it rebuilds")
	}
	return nil
}

// runDoctor checks the spec, the store, recovered torn writes, the
// installed hooks and the clock, and reports each problem (exit 1 when
// any). --accept-store first asks the built-in repair rule.
func (a *app) runDoctor(ctx context.Context, o *doctorOptions) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if o.accept {
		// A human-only repair that loses what the chain recorded after
		// the store's revision: decided by the built-in rule
		// data.loopx.repair.accept_store, confirmed by typing "accept"
		// on the controlling terminal.
		if err := gateanswer.AcceptStore(ctx, e, a.caller(), a.terminal()); err != nil {
			return err
		}
	}
	var salvaged *records.SalvageReport
	if o.salvage {
		if err := a.humanOnly(ctx, e, "doctor --salvage", false, "store.salvage_refused", ".loopx/"); err != nil {
			return err
		}
		sr, err := e.Salvage()
		if err != nil {
			return err
		}
		salvaged = &sr
	}
	r, err := e.Doctor(o.accept)
	if err != nil {
		return err
	}
	rep := map[string]any{"root": r.Root, "spec_ok": r.SpecErr == nil, "store": r.Store, "revision": r.Revision, "chain": r.Chain,
		"recovered": r.Recovered, "corrupt_records": r.Corrupt, "hooks": r.Hooks,
		"events":     map[string]any{"records": r.Events.Records, "bytes": r.Events.Size, "ok": r.EventsErr == nil},
		"read_model": map[string]any{"edited": r.ReadModelEdited}, "protected": map[string]any{"changed": r.ProtectedChanged}}
	if r.EventsErr != nil {
		rep["events"].(map[string]any)["error"] = r.EventsErr.Error()
	}
	if r.SpecErr != nil {
		rep["spec_error"] = r.SpecErr.Error()
	}
	if r.ClockBehind {
		rep["clock_behind"] = map[string]any{"now": r.Now, "newest_commit": r.NewestCommit}
	}
	if salvaged != nil {
		rep["salvaged"] = salvaged
	}
	if line := e.Pending().Line(); line != "" {
		rep["rules_pending"] = line
	}
	if err := a.print(rep, func(w io.Writer) {
		if salvaged != nil && salvaged.Events != nil {
			fmt.Fprintf(w, "salvaged: %s\n", engine.RepairMessage(*salvaged.Events))
		} else if salvaged != nil {
			fmt.Fprintf(w, "salvaged: kept revision %d, %d later transaction(s) lost; the damaged file is %s\n", salvaged.Kept, salvaged.Dropped, salvaged.Backup)
		}
		fmt.Fprintf(w, "store %s: revision %d\n", r.Store, r.Revision)
		fmt.Fprintf(w, "chain: %s\n", render.ChainLine(r.Chain))
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
			fmt.Fprintf(w, "events: %v (every record before it verifies; a human cuts the damaged records with `loopx doctor --salvage`, or restores .loopx/events.log from a backup)\n", r.EventsErr)
		} else {
			fmt.Fprintf(w, "events: %d records, chain verified\n", r.Events.Records)
		}
		if r.SpecErr != nil {
			fmt.Fprintf(w, "spec: %v\n", r.SpecErr)
		} else {
			fmt.Fprintln(w, "spec: ok")
		}
		if line := e.Pending().Line(); line != "" {
			fmt.Fprintln(w, line)
		}
		if r.ClockBehind {
			fmt.Fprintln(w, strings.TrimPrefix(clockBehindLine(r.Now, r.NewestCommit), "loopx: "))
		}
		if r.ReadModelEdited {
			fmt.Fprintln(w, "read model: edited outside loopx (it did not hold what the store holds): removed; decisions read the store until the next write rewrites it")
		}
		if len(r.ProtectedChanged) > 0 {
			fmt.Fprintf(w, "protected: changed since %s, by whom unknown: %s (the next round of loopx run stops and raises a gate a human answers)\n",
				r.ProtectedSince, strings.Join(r.ProtectedChanged, ", "))
		}
		for _, p := range r.Hooks {
			switch p.Kind {
			case "sandbox_drift":
				fmt.Fprintf(w, "sandbox: %s: %s (the host's own sandbox no longer confines as installed; a human restores it with `%s`)\n", p.Settings, p.Problem, p.Fix)
			case "sandbox_prerequisite":
				fmt.Fprintf(w, "sandbox: %s: %s (%s)\n", p.Settings, p.Problem, p.Fix)
			default:
				fmt.Fprintf(w, "hooks: %s: %s (the host no longer asks loopx there; a human re-installs them with `%s`)\n", p.Settings, p.Problem, p.Fix)
			}
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
bad record is named (events: line). The read model (readmodel.json in the
anchor directory, which decisions and hooks read instead of the store) is
compared with the store: one edited outside loopx is removed and reported
(read model: line). The protected files outside loopx/ and .loopx/ (git's
hooks and config, the hosts' settings, the files that run a human's next
command) are compared with what the last round of loopx run left: a
change since, by whoever, is reported (protected: line), and the next
round stops on it. Exit 0 when healthy, 1 when a problem was found, 3
when the store cannot be opened.

Doctor verifies the store's whole hash chain: every
transaction's block, its link to the one before, its records in the file
and the chain head against the anchor ($XDG_STATE_HOME/loopx/projects/
<name>-<hash>/anchor.json), naming the first bad transaction (chain:
line).

A store that is missing, behind or off the chain the anchor records
(restored from a backup, truncated or replaced), moved elsewhere, or
whose records fail their checksums is refused everywhere (exit 3, should_run
denies), so that spent quota and open gates never silently disappear;
each refusal is logged in the anchor directory and becomes a store.refused
event (loopx review) once a human repairs the store. After checking why,
--accept-store continues from the store as it is and re-anchors it
(audited: store.accepted). --salvage rebuilds a damaged store from every
transaction that verifies (the damaged file is kept as
.loopx/state.db.damaged) and re-anchors it (audited: store.salvaged). Both are
human-only repairs, decided by the built-in channel rule
data.loopx.repair.decision alone (no user policy takes part, so a broken one
cannot lock the human out): refused (exit 1) from inside an agent round
(LOOPX_ROUND/LOOPX_AGENT) or from a process that descends from an agent.`,
		Example: "  loopx doctor --json\n  loopx doctor --accept-store\n  loopx doctor --salvage",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return a.runDoctor(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.accept, "accept-store", false, "accept and re-anchor the store as it is: missing, behind or off the anchored chain (human only; after checking why)")
	c.Flags().BoolVar(&o.salvage, "salvage", false, "rebuild a damaged store from every transaction that verifies, keep the damaged file, re-anchor (human only)")
	return c
}
