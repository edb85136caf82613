// Package workerviews wires the views to the worker: it builds the
// views.Config that api.Server.MountViews takes from the workers'
// dependencies, so that neither api nor views imports package jobs.
package workerviews

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/views"
)

// Config is what the views read of the worker d. d's Queue must be set
// before the call when the operations page is to show queue depths.
func Config(d *jobs.Deps) views.Config {
	cfg := views.Config{
		Store:            d.Store,
		Apps:             d.Apps,
		Queue:            d.Queue,
		Schedules:        d.Schedules,
		AppsFeeding:      d.AppsFeeding,
		MonthlyBudgetUSD: d.MonthlyBudgetUSD,
		Decay:            d.Batch.Decay,
		Now:              d.Now,
		BatchStates: func(ctx context.Context, now time.Time) ([]views.BatchState, error) {
			states, err := jobs.States(ctx, d, now)
			if err != nil {
				return nil, err
			}
			out := make([]views.BatchState, len(states))
			for i, s := range states {
				out[i] = views.BatchState{Name: s.Name, Schedule: s.Schedule, Last: s.Last, Next: s.Next,
					Missed: s.Missed, Dirty: s.Dirty, Stale: s.Stale, Skipped: s.Skipped}
			}
			return out, nil
		},
	}
	if d.LLM != nil {
		cfg.Model = d.LLM.Model()
	}
	return cfg
}
