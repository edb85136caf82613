package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/transcript"
)

// RollingSummaryWorker keeps a session's rolling summary: the deterministic
// summary of its buffered turns so far and how many turns it covers. A later
// job never loses to an earlier one: the store keeps the summary covering
// the most turns.
type RollingSummaryWorker struct {
	river.WorkerDefaults[queue.RollingSummaryArgs]
	deps *Deps
}

// Work summarises the buffer.
func (w *RollingSummaryWorker) Work(ctx context.Context, job *river.Job[queue.RollingSummaryArgs]) error {
	d := w.deps
	sess, err := d.session(ctx, job.Args.SessionID)
	if err != nil {
		return err
	}
	app := d.Apps[sess.App]
	if app == nil {
		return river.JobCancel(fmt.Errorf("app %q is not configured", sess.App))
	}
	msgs, err := transcript.OpenBuffer(ctx, d.Store, d.Keys, sess.ID)
	if err != nil {
		return err
	}
	upto := min(job.Args.Upto, len(msgs))
	if upto == 0 {
		return nil // the buffer expired before we got to it
	}
	msgs = msgs[:upto]
	now := d.now()
	res := extract.Rules(app, extract.Session{ID: sess.ID, UserID: sess.UserID, App: sess.App, StartedAt: msgs[0].At,
		EndedAt: msgs[upto-1].At, Timezone: sess.Timezone, Messages: msgs}, now)
	// Written under the user's lock, against what they asked since the
	// buffer was read: with memory off nothing is kept, and what they forgot
	// (said before the forget) is neither mentioned nor told.
	return d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		user, err := tx.GetUserForUpdate(ctx, sess.UserID)
		if err != nil || user.MemoryDisabled {
			return err
		}
		f, err := memory.LoadForgets(ctx, tx, sess.UserID)
		if err != nil {
			return err
		}
		kept := make([]extract.Memory, 0, len(res.Memories))
		var gone []extract.Mention
		for _, m := range res.Memories {
			if f.Forgot(m) {
				gone = append(gone, extract.Mention{Key: m.Key, Value: m.Value})
				continue
			}
			kept = append(kept, m)
		}
		summary := maps.Clone(res.SessionSummary)
		extract.UnmentionDropped(summary, gone, kept)
		keys := make([]string, 0, len(kept))
		for _, m := range kept {
			keys = append(keys, m.Key)
		}
		summary["mentioned"] = keys
		// What was said, not only about what: the context pack shows "name:
		// Priya; lives in: Seattle". The rules never mine a message with
		// sensitive data, and RollingFacts leaves out what the merge policy
		// would refuse.
		summary["facts"] = extract.RollingFacts(kept)
		summary["messages_covered"] = upto
		b, err := json.Marshal(summary)
		if err != nil {
			return err
		}
		_, err = tx.UpsertRollingSummary(ctx, store.RollingSummary{SessionID: sess.ID, UserID: sess.UserID, App: sess.App,
			Summary: b, MessagesCovered: upto, UpdatedAt: now})
		return err
	})
}
