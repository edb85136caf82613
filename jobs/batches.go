package jobs

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/transcript"
)

// engineBatches are the engine's own batches, over its tables rather than
// a kind's data, declared as the kinds declare theirs (batch.Declarer) and
// listed after them. Their Run reads d's settings, queue and keys; d is nil
// when only the declarations are read (names and default schedules), and
// then Run is never called.
func engineBatches(d *Deps) []batch.Batch {
	run := func(fn func(context.Context, *Deps, schedule.Period, time.Time) (int64, error)) func(context.Context, batch.Env, schedule.Period, time.Time) (int64, error) {
		return func(ctx context.Context, _ batch.Env, p schedule.Period, now time.Time) (int64, error) {
			return fn(ctx, d, p, now)
		}
	}
	return []batch.Batch{
		{Name: BatchMemoryTTL, Spec: "5 * * * *; latest", Run: run(runMemoryTTL)},
		{Name: BatchBufferCleanup, Spec: "10 * * * *; latest", Run: run(runBufferCleanup)},
		{Name: BatchSessionExpiry, Spec: "*/5 * * * *; latest", Run: run(runSessionExpiry)},
		{Name: BatchRetention, Spec: "0 5 * * *; latest", Run: run(runRetention)},
	}
}

// BatchConfig tunes the scheduled batches.
type BatchConfig struct {
	// Rows is how many rows one bounded transaction touches (default 1000).
	Rows int
	// SweepRows is how many rows one transaction of the set-based sweeps
	// (memory-ttl, the transcripts of buffer-cleanup, retention) takes:
	// one statement a page, whatever its size, so a larger page spreads
	// each commit and each statement's fixed work over more rows. Default
	// 10 000 on Postgres, where a page's row locks are the page's own rows
	// and block no other user's writes; Rows on SQLite, where a page holds
	// the database's one write lock for its whole length.
	SweepRows int
	// BufferMaxAge is how long a buffered turn lives (default 24 h).
	BufferMaxAge time.Duration
	// SessionIdle expires a session without activity for this long (default 2 h).
	SessionIdle time.Duration
	// KeepBookkeeping is how long extraction runs, batch runs and inactive
	// memories are kept (default 400 days); the audit log of memory writes is
	// kept as long.
	KeepBookkeeping time.Duration
	// ExportTTL is how long a user's export is served after it was
	// requested (default 7 days); retention deletes it then.
	ExportTTL time.Duration
	// InsightsK suppresses insight groups of fewer users (default 5).
	InsightsK int
	// Decay is the decay policy of the kinds' decay rules (decay.Rule); zero fields take decay's defaults.
	Decay decay.Policy
}

func (c BatchConfig) rows() int { return cmp.Or(c.Rows, 1000) }

// sweepRows is SweepRows or its default for st's database.
func (c BatchConfig) sweepRows(st store.Store) int {
	if c.SweepRows > 0 {
		return c.SweepRows
	}
	if st.Dialect() == store.DialectPostgres {
		return 10_000
	}
	return c.rows()
}
func (c BatchConfig) bufferMaxAge() time.Duration {
	return cmp.Or(c.BufferMaxAge, 24*time.Hour)
}
func (c BatchConfig) sessionIdle() time.Duration { return cmp.Or(c.SessionIdle, 2*time.Hour) }
func (c BatchConfig) keep() time.Duration        { return cmp.Or(c.KeepBookkeeping, 400*24*time.Hour) }
func (c BatchConfig) k() int                     { return cmp.Or(c.InsightsK, 5) }
func (c BatchConfig) exportTTL() time.Duration   { return cmp.Or(c.ExportTTL, DefaultExportTTL) }

// DefaultExportTTL is how long an export is served when no setting says.
const DefaultExportTTL = 7 * 24 * time.Hour

// runMemoryTTL takes memories past their expiry out of the active set.
func runMemoryTTL(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	return sweep(ctx, d, d.Batch.sweepRows(d.Store), func(ctx context.Context, tx store.Tx, key store.SweepKey, limit int) (int64, store.SweepKey, error) {
		return tx.ExpireMemoriesAfter(ctx, now, key, limit)
	})
}

// sweep drains a keyset sweep one page a transaction, each page after the
// last row the previous one took. The pages commit lazily
// (store.Batcher.LazyCommit): a crash may lose the last pages' commits
// (never part of one), and that loses nothing, because a sweep is
// idempotent and its batch runs again. The rows a lost page had taken
// are still due — still active past their expiry, or still retained past
// their retention — and the next run takes them, with their audit rows,
// as if the lost run had stopped before them; an expired memory's audit
// row commits with its update, so neither is ever kept without the other.
func sweep(ctx context.Context, d *Deps, limit int, page func(ctx context.Context, tx store.Tx, key store.SweepKey, limit int) (int64, store.SweepKey, error)) (int64, error) {
	var key store.SweepKey
	return batch.Drain(ctx, limit, func(ctx context.Context) (n int64, err error) {
		var next store.SweepKey
		err = d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if err := tx.LazyCommit(ctx); err != nil {
				return err
			}
			n, next, err = page(ctx, tx, key, limit)
			return err
		})
		if err == nil {
			key = next
		}
		return n, err
	})
}

// runBufferCleanup deletes rolling buffers older than their age and
// transcripts whose retention ended.
func runBufferCleanup(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	limit := d.Batch.rows()
	buf, err := batch.Drain(ctx, limit, func(ctx context.Context) (int64, error) {
		return d.Store.DeleteBufferBefore(ctx, now.Add(-d.Batch.bufferMaxAge()), limit)
	})
	if err != nil {
		return buf, err
	}
	tr, err := sweep(ctx, d, d.Batch.sweepRows(d.Store), func(ctx context.Context, tx store.Tx, key store.SweepKey, limit int) (int64, store.SweepKey, error) {
		return tx.ExpireTranscriptsAfter(ctx, now, key, limit)
	})
	return buf + tr, err
}

// runSessionExpiry expires sessions that stopped receiving turns and runs
// them through the close pipeline: their buffered turns become the
// transcript and an extraction job is enqueued, in one transaction each.
func runSessionExpiry(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	q := d.Queue
	if q == nil {
		return 0, errNoQueue
	}
	limit := min(d.Batch.rows(), 200)
	return batch.Drain(ctx, limit, func(ctx context.Context) (int64, error) {
		idle, err := d.Store.IdleSessions(ctx, now.Add(-d.Batch.sessionIdle()), limit)
		if err != nil {
			return 0, err
		}
		for _, s := range idle {
			err := d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				msgs, err := transcript.OpenBuffer(ctx, tx, d.Keys, s.ID)
				if err != nil {
					return err
				}
				end := s.UpdatedAt
				if n := len(msgs); n > 0 && msgs[n-1].At.After(end) {
					end = msgs[n-1].At
				}
				if err := transcript.Store(ctx, tx, d.Keys, s.ID, s.UserID, msgs, now); err != nil {
					return err
				}
				if err := MarkLateSession(ctx, tx, d.Apps[s.App], end, now); err != nil {
					return err
				}
				ins, err := q.InsertTx(ctx, tx, queue.ExtractArgs{SessionID: s.ID}, nil)
				if err != nil {
					return err
				}
				closedAt := now
				s.Status, s.EndedAt, s.MessageCount, s.TranscriptRetained, s.ClosedAt, s.UpdatedAt = store.StatusExpired, end, len(msgs), true, &closedAt, now
				s.Jobs = []store.JobRef{{ID: ins.ID, Kind: ins.Kind}}
				return tx.CloseActiveSession(ctx, s)
			})
			if err != nil {
				return 0, err
			}
		}
		return int64(len(idle)), nil
	})
}

// runRetention deletes Mnemo's own bookkeeping past its retention, and
// users' exports past their expiry.
func runRetention(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	limit := d.Batch.rows()
	cutoff := now.Add(-d.Batch.keep())
	total, err := batch.Drain(ctx, limit, func(ctx context.Context) (int64, error) {
		return d.Store.DeleteExpiredExports(ctx, now, now.Add(-d.Batch.exportTTL()), limit)
	})
	if err != nil {
		return total, err
	}
	for _, what := range []string{"extraction_runs", "batch_runs", "memory_history", "inactive_memories"} {
		n, err := sweep(ctx, d, d.Batch.sweepRows(d.Store), func(ctx context.Context, tx store.Tx, key store.SweepKey, limit int) (int64, store.SweepKey, error) {
			return tx.DeleteOlderAfter(ctx, what, cutoff, key, limit)
		})
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// AppsFeeding lists, sorted, the configured apps whose kind declares the
// batch (batch.Declarer): the apps a run of it is for.
func (d *Deps) AppsFeeding(name string) []string {
	return d.appsOfKind(func(k extract.Kind) bool { return batch.Declares(k, name) })
}

// appsOfKind lists, sorted, the configured apps whose kind is.
func (d *Deps) appsOfKind(is func(extract.Kind) bool) []string {
	var out []string
	for name, a := range d.Apps {
		if is(extract.KindOfApp(a)) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
