package store

import (
	"context"
	"fmt"
)

// Forgetting is what a user's forget and memory off need of the text a
// session in progress left: its rolling summaries and buffered turns.
type Forgetting interface {
	// ListRollingSummaries lists a user's rolling summaries, oldest first.
	ListRollingSummaries(ctx context.Context, userID string) ([]RollingSummary, error)
	// ReplaceRollingSummary writes s.Summary over the rolling summary of
	// s.SessionID, whatever it covers: a forget rewrites it without what the
	// user forgot. ErrNotFound when the user has no such summary.
	ReplaceRollingSummary(ctx context.Context, s RollingSummary) error
	// DeleteUserRolling deletes every buffered turn and rolling summary of
	// a user (memory off) and returns how many rows went.
	DeleteUserRolling(ctx context.Context, userID string) (int64, error)
}

func (q queries) ListRollingSummaries(ctx context.Context, userID string) ([]RollingSummary, error) {
	return queryAll(ctx, q, "SELECT "+rollingCols+" FROM mnemo_rolling_summaries WHERE user_id = $1 ORDER BY updated_at, session_id",
		[]any{userID}, scanRolling)
}

func (q queries) ReplaceRollingSummary(ctx context.Context, s RollingSummary) error {
	n, err := q.e.exec(ctx, "UPDATE mnemo_rolling_summaries SET summary = $3 WHERE session_id = $1 AND user_id = $2",
		s.SessionID, s.UserID, jsonArg(s.Summary, "{}"))
	return mustAffect(n, err, "replace rolling summary")
}

func (q queries) DeleteUserRolling(ctx context.Context, userID string) (int64, error) {
	// The buffer is keyed by session: its user's sessions find it.
	turns, err := q.e.exec(ctx, `DELETE FROM mnemo_buffer WHERE session_id IN (SELECT id FROM mnemo_sessions WHERE user_id = $1)
		AND user_id = $1`, userID)
	if err != nil {
		return 0, fmt.Errorf("delete buffer: %w", err)
	}
	sums, err := q.e.exec(ctx, "DELETE FROM mnemo_rolling_summaries WHERE user_id = $1", userID)
	if err != nil {
		return turns, fmt.Errorf("delete rolling summaries: %w", err)
	}
	return turns + sums, nil
}
