// Queries of mnemo_extraction_runs: extraction attempts and their cost.

package store

import (
	"cmp"
	"context"
	"time"
)

const runCols = `id, session_id, user_id, app, model, prompt_version, source, outcome, input_tokens, output_tokens,
	cost_usd, duration_ms, attempt, final, error, created_at`

func (q queries) InsertExtractionRun(ctx context.Context, r ExtractionRun) error {
	return q.runStep(ctx, insertRunStep(r))
}

// insertRunStep is InsertExtractionRun's statement.
func insertRunStep(r ExtractionRun) step {
	return step{what: "record extraction run", sql: "INSERT INTO mnemo_extraction_runs (" + runCols + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		args: []any{cmp.Or(r.ID, NewID()), r.SessionID, r.UserID, r.App, r.Model, r.PromptVersion, r.Source, r.Outcome, r.InputTokens,
			r.OutputTokens, r.CostUSD, r.DurationMS, r.Attempt, r.Final, r.Error, r.CreatedAt}}
}

func (q queries) ListExtractionRuns(ctx context.Context, sessionID string) ([]ExtractionRun, error) {
	return queryAll(ctx, q, "SELECT "+runCols+" FROM mnemo_extraction_runs WHERE session_id = $1 ORDER BY created_at, id",
		[]any{sessionID}, func(r rows) (ExtractionRun, error) {
			var x ExtractionRun
			err := r.Scan(&x.ID, &x.SessionID, &x.UserID, &x.App, &x.Model, &x.PromptVersion, &x.Source, &x.Outcome,
				&x.InputTokens, &x.OutputTokens, &x.CostUSD, &x.DurationMS, &x.Attempt, &x.Final, &x.Error, scanTime{&x.CreatedAt})
			return x, err
		})
}

func (q queries) SumExtractionCost(ctx context.Context, from, to time.Time) (float64, error) {
	var sum float64
	err := q.queryOne(ctx, "SELECT COALESCE(SUM(cost_usd), 0) FROM mnemo_extraction_runs WHERE created_at >= $1 AND created_at < $2",
		[]any{from, to}, func(r rows) error { return r.Scan(&sum) })
	return sum, err
}
