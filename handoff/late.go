package handoff

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// ReasonLateSession is the dirty mark's reason for a session that ended
// after a batch ran that should have covered it. It names a cause, never a user.
const ReasonLateSession = "late session"

// MarkLateSession marks dirty, in the caller's transaction, the batch
// periods that have run and should have covered a session of app that
// ended at endedAt: of each batch app's kind declares that reads its
// sessions (batch.Reads), every period scheduled after it (for weekly
// analytics, its week and the later weeks whose streak it may change), or
// only the newest for a batch that is the user's latest state
// (LatestOnly: trends). The scheduler re-runs them on its next tick; a
// session that ended after every run marks nothing.
func MarkLateSession(ctx context.Context, tx store.Batcher, app *prompts.App, endedAt, now time.Time) error {
	var marks []store.DirtyMark
	for _, b := range batch.Of(extract.KindOfApp(app)) {
		if !b.ReadsSessions() {
			continue
		}
		marks = append(marks, store.DirtyMark{Batch: b.Name, After: endedAt, At: now, Reason: ReasonLateSession, Latest: b.LatestOnly})
	}
	return tx.MarkDirtyAll(ctx, marks)
}
