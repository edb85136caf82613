package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store"
)

// ExportWorker builds an export's archive and stores it sealed.
type ExportWorker struct {
	river.WorkerDefaults[queue.ExportArgs]
	deps *Deps
}

// Work builds the archive.
func (w *ExportWorker) Work(ctx context.Context, job *river.Job[queue.ExportArgs]) error {
	d := w.deps
	e, err := d.Store.GetExport(ctx, job.Args.ExportID)
	if errors.Is(err, store.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("export %s no longer exists", job.Args.ExportID))
	}
	if err != nil {
		return err
	}
	if e.Status != "pending" {
		return nil
	}
	now := d.now()
	a, err := memory.BuildArchive(ctx, d.Store, d.Keys, e.UserID, now)
	if err != nil {
		return err
	}
	plain, err := json.Marshal(a)
	if err != nil {
		return err
	}
	sealed, err := d.Keys.Seal("export/"+e.ID, plain, 0)
	if err != nil {
		return err
	}
	chunks := make([]store.Chunk, len(sealed))
	for i, c := range sealed {
		chunks[i] = store.Chunk{Seq: c.Seq, KeyID: c.KeyID, Nonce: c.Nonce, Ciphertext: c.Ciphertext, SHA256: c.SHA256}
	}
	expires, err := archiveExpiry(ctx, d, e)
	if err != nil {
		return err
	}
	return d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.GetExport(ctx, e.ID); err != nil {
			// Deleted while it was built (the user forgot something or
			// turned memory off): store nothing.
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return err
		}
		return tx.FinishExport(ctx, e.ID, store.ExportResult{Status: "done", Chunks: chunks, FinishedAt: now, ExpiresAt: &expires})
	})
}

// archiveExpiry is when an export stops being served: the export TTL after
// it was requested, or sooner, when a transcript or buffered turn it holds is
// due to be deleted (a transcript's retention, the rolling buffer's age). A
// transcript that processing will delete (a session not yet processed)
// deletes the exports requested since it was handed over then (see
// settleTranscript).
func archiveExpiry(ctx context.Context, d *Deps, e store.Export) (time.Time, error) {
	expires := e.CreatedAt.Add(d.Batch.exportTTL())
	sessions, err := d.Store.ListUserSessions(ctx, e.UserID)
	if err != nil {
		return expires, err
	}
	for _, s := range sessions {
		if s.TranscriptRetained && s.RetainUntil != nil && s.RetainUntil.Before(expires) {
			expires = *s.RetainUntil
		}
		if s.Status != store.StatusActive {
			continue
		}
		buf, err := d.Store.ListBuffer(ctx, s.ID)
		if err != nil {
			return expires, err
		}
		for _, b := range buf {
			if until := b.CreatedAt.Add(d.Batch.bufferMaxAge()); until.Before(expires) {
				expires = until
			}
		}
	}
	return expires, nil
}

// EraseWorker erases a user: the bulk of their rows in bounded
// transactions, then the rest with the user and River's jobs that name
// them in one.
type EraseWorker struct {
	river.WorkerDefaults[queue.EraseArgs]
	deps *Deps
}

// erasePage is how many of a user's rows an erasure deletes a transaction
// before it deletes the user.
const erasePage = 1000

// eraseRecheck is how long an erasure waits for River jobs of the user that
// were running when it erased (they finish, or cancel themselves as their
// session is gone) before it deletes them too.
const eraseRecheck = time.Second

// Work erases. River's jobs that name the user (their args: a session,
// export or user id; a finished job's log lines and errors) are deleted by
// pages after the transaction that deletes the user, the request kept
// until the last page. A job still running cannot be deleted under its
// worker (a job that just finished stays "running" until River's completer
// records it): the erasure then keeps the session and export ids those jobs
// name (not the user's id) and snoozes until they have finished, then
// deletes them and itself.
func (w *EraseWorker) Work(ctx context.Context, job *river.Job[queue.EraseArgs]) error {
	d := w.deps
	e, err := d.Store.GetErasure(ctx, job.Args.ErasureID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // already done
	}
	if err != nil {
		return err
	}
	if e.Refs == nil {
		// The bulk of the user's rows goes first, a bounded transaction a
		// page, so that other writers (SQLite has one) wait for a page, not
		// for the whole erasure. An erasure killed here resumes here; the
		// user is readable until the transaction below, as before the
		// erasure is done (its job completes only after it).
		for {
			n, err := d.Store.DeleteUserRows(ctx, e.UserID, erasePage)
			if err != nil {
				return err
			}
			if n == 0 {
				break
			}
		}
	}
	first := e.Refs == nil
	if first {
		// The user goes in one transaction: the last of their rows, and
		// the weeks marked dirty. The request is kept, now with the ids
		// River's jobs name the user by, until those jobs are scrubbed
		// below.
		refs, err := eraseUserTx(ctx, d, e)
		if err != nil {
			return err
		}
		e.Refs = &refs
	}
	// River's jobs that name the user, a page a statement outside any
	// transaction: River keeps a month of finished jobs, and reading them
	// all in the transaction above would hold it (on SQLite, the writer:
	// every handoff) for as long. A killed erasure reads them again.
	var running int64
	for after, done := int64(0), false; !done; {
		var r int64
		if _, r, after, done, err = d.Store.ScrubJobsPage(ctx, *e.Refs, after, scrubPage); err != nil {
			return err
		}
		running += r
	}
	if err := d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		if err := tx.DeleteErasure(ctx, e.ID); err != nil || running == 0 {
			return err
		}
		// Kept until the running jobs are gone: the session and export
		// ids only (every job naming the user names one of them), not the
		// user's id.
		left := store.JobRefs{SessionIDs: e.Refs.SessionIDs, ExportIDs: e.Refs.ExportIDs}
		return tx.CreateErasure(ctx, store.Erasure{ID: e.ID, RequestedAt: e.RequestedAt, Refs: &left})
	}); err != nil {
		return err
	}
	if first || running == 0 {
		if err := eraseTraces(ctx, d); err != nil {
			return err
		}
	}
	if running > 0 {
		return river.JobSnooze(eraseRecheck)
	}
	return nil
}

// scrubPage is how many of River's jobs an erasure reads a statement.
const scrubPage = 1000

// eraseUserTx deletes erasure e's user, with the rows DeleteUserRows left
// (the sessions, and what cascades from them), in one transaction; it marks the weeks their weekly analytics
// fed dirty, and replaces the request by one holding the ids River's
// jobs name the user by (returned).
func eraseUserTx(ctx context.Context, d *Deps, e store.Erasure) (refs store.JobRefs, err error) {
	err = d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		if refs, err = userJobRefs(ctx, tx, e.UserID); err != nil {
			return err
		}
		// The batches that read the user's weekly analytics (those weekly
		// analytics feed: insights) are re-run without them: their weeks
		// are marked dirty in the erasure's transaction.
		weeks, err := tx.ListUserWeekly(ctx, e.UserID)
		if err != nil {
			return err
		}
		reg, err := d.batches()
		if err != nil {
			return err
		}
		weekly, _ := reg.Get(BatchWeeklyAnalytics)
		for _, w := range weeks {
			for _, fed := range weekly.Feeds {
				if _, err := tx.MarkDirty(ctx, store.DirtyMark{Batch: fed, Period: w.WeekEnding, At: d.now(), Reason: ReasonErasure}); err != nil {
					return err
				}
			}
		}
		if err := tx.EraseUser(ctx, e.ID, e.UserID); err != nil {
			return err
		}
		// The request again, in place of the one EraseUser deleted, with
		// the ids to scrub (the user's among them) until Work's pages of
		// finished jobs are done.
		return tx.CreateErasure(ctx, store.Erasure{ID: e.ID, RequestedAt: e.RequestedAt, Refs: &refs})
	})
	return refs, err
}

// eraseTraces removes the old copies of erased rows the database keeps.
func eraseTraces(ctx context.Context, d *Deps) error {
	// An embedded database keeps old page images in its log until a checkpoint.
	if c, ok := d.Store.(interface{ Checkpoint(context.Context) error }); ok {
		return c.Checkpoint(ctx)
	}
	// Postgres: the deleted rows leave the heap and indexes now, rather than
	// at autovacuum's next pass. Best effort: the erasure is done either way.
	if v, ok := d.Store.(interface{ Vacuum(context.Context) error }); ok {
		if err := v.Vacuum(ctx); err != nil {
			d.log().WarnContext(ctx, "vacuum after erase", slog.String("error", err.Error()))
		}
	}
	return nil
}

// userJobRefs lists the ids by which River's jobs name a user.
func userJobRefs(ctx context.Context, q store.Privacy, userID string) (store.JobRefs, error) {
	refs := store.JobRefs{UserID: userID, SessionIDs: []string{}, ExportIDs: []string{}}
	sessions, err := q.ListUserSessions(ctx, userID)
	if err != nil {
		return refs, err
	}
	for _, s := range sessions {
		refs.SessionIDs = append(refs.SessionIDs, s.ID)
	}
	exports, err := q.ListUserExports(ctx, userID)
	if err != nil {
		return refs, err
	}
	for _, x := range exports {
		refs.ExportIDs = append(refs.ExportIDs, x.ID)
	}
	return refs, nil
}

// exportsHolding is the earliest request time of an export that may hold a
// session's transcript: its transcript is stored when it is closed (or
// expired); without that time, every export of the user may.
func exportsHolding(sess store.Session) time.Time {
	if sess.ClosedAt != nil {
		return *sess.ClosedAt
	}
	return time.Time{}
}
