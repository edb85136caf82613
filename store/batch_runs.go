// Queries of mnemo_batch_runs: the ledger of scheduled batches.

package store

import (
	"cmp"
	"context"
	"fmt"
)

const batchCols = "batch, period, scheduled_for, started_at, finished_at, rows_touched, outcome"

func scanBatchRun(r rows) (BatchRun, error) {
	var b BatchRun
	err := r.Scan(&b.Batch, &b.Period, scanTime{&b.ScheduledFor}, scanNullTime{&b.StartedAt}, scanNullTime{&b.FinishedAt}, &b.RowsTouched, &b.Outcome)
	return b, err
}

func (q queries) UpsertBatchRun(ctx context.Context, b BatchRun) error {
	_, err := q.e.exec(ctx, "INSERT INTO mnemo_batch_runs ("+batchCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (batch, period) DO UPDATE SET started_at = COALESCE(excluded.started_at, mnemo_batch_runs.started_at),
			finished_at = excluded.finished_at, rows_touched = excluded.rows_touched, outcome = excluded.outcome`,
		b.Batch, b.Period, b.ScheduledFor, b.StartedAt, b.FinishedAt, b.RowsTouched, cmp.Or(b.Outcome, "pending"))
	if err != nil {
		return fmt.Errorf("upsert batch run: %w", err)
	}
	return nil
}

func (q queries) GetBatchRun(ctx context.Context, batch, period string) (BatchRun, error) {
	var b BatchRun
	err := q.queryOne(ctx, "SELECT "+batchCols+" FROM mnemo_batch_runs WHERE batch = $1 AND period = $2",
		[]any{batch, period}, func(r rows) (err error) {
			b, err = scanBatchRun(r)
			return err
		})
	return b, err
}

func (q queries) ListBatchRuns(ctx context.Context, batch string, limit int) ([]BatchRun, error) {
	return queryAll(ctx, q, "SELECT "+batchCols+" FROM mnemo_batch_runs WHERE batch = $1 ORDER BY scheduled_for DESC LIMIT $2",
		[]any{batch, limit}, scanBatchRun)
}
