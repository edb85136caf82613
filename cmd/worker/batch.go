package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/store"
)

type batchFlags struct {
	period string
	now    string
}

func registerBatchFlags(fs *flag.FlagSet) {
	f := &batchFlags{}
	fs.StringVar(&f.period, "period", "", "the period to run: its scheduled instant (RFC 3339) or, for weekly batches, its week_ending date (default: the latest at or before --now)")
	fs.StringVar(&f.now, "now", "", "the time to act as now, RFC 3339 (default: the clock)")
	cmdFlags.Store(fs, f)
}

// batchCmd runs `batch list` and `batch run NAME`.
func batchCmd(ctx context.Context, e *env) error {
	f := flagsOf[batchFlags](e.flags)
	if len(e.args) == 0 {
		return usageError{errors.New("want list or run NAME")}
	}
	now := time.Now().UTC()
	if f.now != "" {
		t, err := time.Parse(time.RFC3339, f.now)
		if err != nil {
			return usageError{fmt.Errorf("--now %q is not RFC 3339", f.now)}
		}
		now = t.UTC()
	}
	var sys *system
	var err error
	if e.args[0] == "list" {
		sys, err = buildReading(ctx, e.cfg, e.log)
	} else {
		sys, err = build(ctx, e.cfg, e.log, false)
	}
	if err != nil {
		return err
	}
	defer sys.store.Close()
	sys.deps.Now = func() time.Time { return now }
	switch e.args[0] {
	case "list":
		states, err := jobs.States(ctx, sys.deps, now)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "BATCH\tSCHEDULE\tPOLICY\tLAST RUN\tOUTCOME\tSKIPPED\tNEXT RUN\tMISSED\tLATE DATA")
		for _, s := range states {
			spec := s.Schedule.Spec()
			policy := string(spec.Policy)
			if spec.Window > 0 {
				policy += " " + spec.Window.String()
			}
			last, outcome := "never", "-"
			if s.Last != nil {
				last, outcome = s.Last.Period, s.Last.Outcome
			}
			missed := fmt.Sprint(len(s.Missed))
			if len(s.Missed) > 0 {
				missed += " (" + s.Missed[0].Name
				if len(s.Missed) > 1 {
					missed += " … " + s.Missed[len(s.Missed)-1].Name
				}
				missed += ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Schedule.String(), policy, last, outcome,
				skippedUsers(s.Skipped), s.Next.In(spec.Zone).Format(time.RFC3339), missed, lateData(s))
		}
		return tw.Flush()
	case "run":
		if len(e.args) != 2 {
			return usageError{errors.New("batch run wants one batch name")}
		}
		rows, err := jobs.RunBatch(ctx, sys.deps, e.args[1], f.period, now)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: %d rows\n", e.args[1], rows)
		return nil
	}
	return usageError{fmt.Errorf("unknown batch action %q: want list or run", e.args[0])}
}

// skippedUsers says how many users the last run left out because it could
// not read their data, and why: "2 (event 1, profile 1)"; "-" for none.
func skippedUsers(s store.BatchSkips) string {
	if s.Skipped == 0 {
		return "-"
	}
	reasons := slices.Sorted(maps.Keys(s.Reasons))
	parts := make([]string, 0, len(reasons))
	for _, r := range reasons {
		parts = append(parts, fmt.Sprintf("%s %d", r, s.Reasons[r]))
	}
	return fmt.Sprintf("%d (%s)", s.Skipped, strings.Join(parts, ", "))
}

// lateData says which periods' input changed after they ran: those the
// scheduler re-runs, and the stale ones beyond the catch-up window.
func lateData(s jobs.BatchState) string {
	var parts []string
	if n := len(s.Dirty); n > 0 {
		parts = append(parts, fmt.Sprintf("%d to re-run", n))
	}
	if n := len(s.Stale); n > 0 {
		stale := fmt.Sprintf("%d stale (%s", n, s.Stale[0].Period)
		if n > 1 {
			stale += " … " + s.Stale[n-1].Period
		}
		parts = append(parts, stale+")")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
