package jobs_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// finishAtOnce is a queue whose weekly-analytics runs finish the moment
// they are enqueued, as a fast worker may take and finish one while the
// tick that enqueued it is still going: in the enqueuing transaction, the
// run's ledger row says done, its marks are cleared and the week's
// insights are marked dirty, as a finished run does.
type finishAtOnce struct{ queue.Queue }

func (q finishAtOnce) InsertTx(ctx context.Context, tx store.Tx, args river.JobArgs, opts *river.InsertOpts) (queue.Inserted, error) {
	ins, err := q.Queue.InsertTx(ctx, tx, args, opts)
	a, ok := args.(jobs.BatchArgs)
	if err != nil || !ok || a.Batch != jobs.BatchWeeklyAnalytics {
		return ins, err
	}
	seq, err := tx.DirtySeq(ctx, a.Batch, a.Period)
	if err != nil {
		return ins, err
	}
	if err := tx.UpsertBatchRun(ctx, store.BatchRun{Batch: a.Batch, Period: a.Period, ScheduledFor: a.At, StartedAt: &a.At, FinishedAt: &a.At, Outcome: jobs.LedgerOK}); err != nil {
		return ins, err
	}
	if err := tx.ClearDirty(ctx, a.Batch, a.Period, seq); err != nil {
		return ins, err
	}
	_, err = tx.MarkDirty(ctx, store.DirtyMark{Batch: jobs.BatchInsights, Period: a.Period, At: a.At, Reason: jobs.ReasonAnalytics})
	return ins, err
}

// TestTickRerunsWhatWasDirtyWhenItBegan: a tick re-runs the periods that
// were dirty when it began. A week's analytics re-run that a worker
// finishes while the tick is still going marks the week's insights; they
// run again on the next tick, however fast the worker was (the race behind
// TestLateSessionReaggregates' "the tick enqueued 4 re-runs; want 3").
func TestTickRerunsWhatWasDirtyWhenItBegan(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			clk := &clock{t: time.Date(2026, 11, 16, 14, 0, 0, 0, time.UTC)} // Monday after the 12:00 and 13:30 runs
			withSchedules(t, x, clk)
			const week = "2026-11-15"
			for batch, at := range map[string]time.Time{jobs.BatchWeeklyAnalytics: time.Date(2026, 11, 16, 12, 0, 0, 0, time.UTC),
				jobs.BatchInsights: time.Date(2026, 11, 16, 13, 30, 0, 0, time.UTC)} {
				if err := x.st.UpsertBatchRun(ctx, store.BatchRun{Batch: batch, Period: week, ScheduledFor: at, StartedAt: &at, FinishedAt: &at, Outcome: jobs.LedgerOK}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := x.st.MarkDirty(ctx, store.DirtyMark{Batch: jobs.BatchWeeklyAnalytics, Period: week, At: clk.Now(), Reason: jobs.ReasonLateSession}); err != nil {
				t.Fatal(err)
			}
			q := finishAtOnce{x.q}
			reruns := func(batch string) int {
				t.Helper()
				n := 0
				for _, j := range batchJobs(t, x.q, batch) {
					var a jobs.BatchArgs
					if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
						t.Fatal(err)
					}
					if a.Period == week && a.Rerun > 0 {
						n++
					}
				}
				return n
			}

			if _, err := jobs.Tick(ctx, x.deps, q, clk.Now()); err != nil {
				t.Fatal(err)
			}
			if a, i := reruns(jobs.BatchWeeklyAnalytics), reruns(jobs.BatchInsights); a != 1 || i != 0 {
				t.Fatalf("the tick re-ran the week's analytics %d times and its insights %d; want 1 and 0 (the insights on the next tick)", a, i)
			}
			if _, err := jobs.Tick(ctx, x.deps, q, clk.Now()); err != nil {
				t.Fatal(err)
			}
			if a, i := reruns(jobs.BatchWeeklyAnalytics), reruns(jobs.BatchInsights); a != 1 || i != 1 {
				t.Fatalf("after the next tick: %d analytics and %d insights re-runs; want 1 and 1", a, i)
			}
		})
	}
}
