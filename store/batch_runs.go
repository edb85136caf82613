// Queries of mnemo_batch_runs: the ledger of scheduled batches.

package store

import (
	"cmp"
	"context"
	"fmt"
)

const batchCols = "batch, period, scheduled_for, started_at, finished_at, rows_touched, outcome"

// batchSelect reads batchCols and the cursor, empty for none.
const batchSelect = batchCols + ", COALESCE(page_cursor, '')"

func scanBatchRun(r rows) (BatchRun, error) {
	var b BatchRun
	err := r.Scan(&b.Batch, &b.Period, scanTime{&b.ScheduledFor}, scanNullTime{&b.StartedAt}, scanNullTime{&b.FinishedAt}, &b.RowsTouched, &b.Outcome, &b.Cursor)
	return b, err
}

func (q queries) UpsertBatchRun(ctx context.Context, b BatchRun) error {
	_, err := q.e.exec(ctx, "INSERT INTO mnemo_batch_runs ("+batchCols+`, page_cursor) VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($8, ''))
		ON CONFLICT (batch, period) DO UPDATE SET started_at = COALESCE(excluded.started_at, mnemo_batch_runs.started_at),
			finished_at = excluded.finished_at, rows_touched = excluded.rows_touched, outcome = excluded.outcome,
			page_cursor = excluded.page_cursor`,
		b.Batch, b.Period, b.ScheduledFor, b.StartedAt, b.FinishedAt, b.RowsTouched, cmp.Or(b.Outcome, "pending"), b.Cursor)
	if err != nil {
		return fmt.Errorf("upsert batch run: %w", err)
	}
	return nil
}

func (q queries) SetBatchCursor(ctx context.Context, batch, period, cursor string) error {
	n, err := q.e.exec(ctx, "UPDATE mnemo_batch_runs SET page_cursor = NULLIF($3, '') WHERE batch = $1 AND period = $2", batch, period, cursor)
	if err != nil {
		return fmt.Errorf("set batch cursor: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("set batch cursor of %s %s: %w", batch, period, ErrNotFound)
	}
	return nil
}

func (q queries) GetBatchRun(ctx context.Context, batch, period string) (BatchRun, error) {
	var b BatchRun
	err := q.queryOne(ctx, "SELECT "+batchSelect+" FROM mnemo_batch_runs WHERE batch = $1 AND period = $2",
		[]any{batch, period}, func(r rows) (err error) {
			b, err = scanBatchRun(r)
			return err
		})
	return b, err
}

func (q queries) ListBatchRuns(ctx context.Context, batch string, limit int) ([]BatchRun, error) {
	return queryAll(ctx, q, "SELECT "+batchSelect+" FROM mnemo_batch_runs WHERE batch = $1 ORDER BY scheduled_for DESC LIMIT $2",
		[]any{batch, limit}, scanBatchRun)
}
