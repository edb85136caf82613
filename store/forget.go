package store

import (
	"context"
	"fmt"
)

// Forgetting is what a user's forget and memory off need beyond a
// memory's row: every version of a key, the text a session in progress
// left (its rolling summaries and buffered turns), and single cues.
type Forgetting interface {
	// DeleteKeyMemories forgets every memory of a user under keys, whatever
	// its status (the versions a newer statement replaced too), with the
	// statements of those keys, and returns how many memories went.
	DeleteKeyMemories(ctx context.Context, userID string, keys []string) (int64, error)
	// DeleteCue deletes one cue of a user; ErrNotFound when it is not theirs.
	DeleteCue(ctx context.Context, userID, id string) error
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

func (q queries) DeleteKeyMemories(ctx context.Context, userID string, keys []string) (int64, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	// A statement belongs to a memory of its key, and goes with it by
	// cascade; the statements are named by key as well, so that none is left
	// whichever memory it was moved to. Many keys go in several statements.
	args, lists := q.inLists([]any{userID}, keys)
	var n int64
	for i := range args {
		in := " AND key IN (" + lists[i] + ")"
		if _, err := q.e.exec(ctx, "DELETE FROM mnemo_memory_statements WHERE user_id = $1"+in, args[i]...); err != nil {
			return n, fmt.Errorf("forget statements: %w", err)
		}
		k, err := q.e.exec(ctx, "DELETE FROM mnemo_memories WHERE user_id = $1"+in, args[i]...)
		if err != nil {
			return n, fmt.Errorf("forget key: %w", err)
		}
		n += k
	}
	return n, nil
}

func (q queries) DeleteCue(ctx context.Context, userID, id string) error {
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_cues WHERE user_id = $1 AND id = $2", userID, id)
	return mustAffect(n, err, "delete cue")
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
