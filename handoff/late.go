package handoff

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// ReasonLateSession is the dirty mark's reason for a session that ended
// after a batch ran that should have covered it. It names a cause, never a user.
const ReasonLateSession = "late session"

// MarkLateSession marks dirty, in the caller's transaction, the batch
// periods that have run and should have covered a session of app that
// ended at endedAt (the batches its kind feeds): every weekly-analytics week
// scheduled after it (its week, and the later weeks whose streak it may
// change) and the newest trends. The scheduler re-runs them on its next
// tick; a session that ended after every run marks nothing.
func MarkLateSession(ctx context.Context, tx store.Batcher, app *prompts.App, endedAt, now time.Time) error {
	var marks []store.DirtyMark
	for _, batch := range extract.KindOfApp(app).Batches() {
		m := store.DirtyMark{Batch: batch, After: endedAt, At: now, Reason: ReasonLateSession}
		// Trends are the user's latest: only the newest run needs redoing.
		m.Latest = batch == aggregate.BatchTrends
		marks = append(marks, m)
	}
	return tx.MarkDirtyAll(ctx, marks)
}
