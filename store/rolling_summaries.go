// Queries of mnemo_rolling_summaries: summaries of a session in progress.

package store

import (
	"context"
	"fmt"
)

const rollingCols = "session_id, user_id, app, summary, messages_covered, updated_at"

func scanRolling(r rows) (RollingSummary, error) {
	var s RollingSummary
	err := r.Scan(&s.SessionID, &s.UserID, &s.App, scanJSON{&s.Summary}, &s.MessagesCovered, scanTime{&s.UpdatedAt})
	return s, err
}

func (q queries) UpsertRollingSummary(ctx context.Context, s RollingSummary) (bool, error) {
	n, err := q.e.exec(ctx, "INSERT INTO mnemo_rolling_summaries ("+rollingCols+`) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary, messages_covered = excluded.messages_covered, updated_at = excluded.updated_at
		WHERE mnemo_rolling_summaries.messages_covered < excluded.messages_covered`,
		s.SessionID, s.UserID, s.App, jsonArg(s.Summary, "{}"), s.MessagesCovered, s.UpdatedAt)
	if err != nil {
		return false, fmt.Errorf("upsert rolling summary: %w", err)
	}
	return n > 0, nil
}

func (q queries) GetRollingSummary(ctx context.Context, sessionID string) (RollingSummary, error) {
	var s RollingSummary
	err := q.queryOne(ctx, "SELECT "+rollingCols+" FROM mnemo_rolling_summaries WHERE session_id = $1", []any{sessionID},
		func(r rows) (err error) { s, err = scanRolling(r); return err })
	return s, err
}

func (q queries) LatestRollingSummary(ctx context.Context, userID string) (RollingSummary, error) {
	var s RollingSummary
	err := q.queryOne(ctx, "SELECT "+rollingCols+" FROM mnemo_rolling_summaries WHERE user_id = $1 ORDER BY updated_at DESC, session_id DESC LIMIT 1",
		[]any{userID}, func(r rows) (err error) { s, err = scanRolling(r); return err })
	return s, err
}
