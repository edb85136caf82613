// Queries of mnemo_weekly_analytics, listed per user.

package store

import (
	"context"
	"fmt"
)

func (q queries) ListWeeks(ctx context.Context, userID, before string, limit int) ([]AggregateRow, error) {
	sql := "SELECT user_id, app, week_ending, data, updated_at FROM mnemo_weekly_analytics WHERE user_id = $1"
	args := []any{userID}
	if before != "" {
		sql += " AND week_ending < $2"
		args = append(args, before)
	}
	args = append(args, limit)
	sql += fmt.Sprintf(" ORDER BY week_ending DESC LIMIT $%d", len(args))
	rows, err := queryAll(ctx, q, sql, args, scanAggregate)
	if err != nil {
		return nil, fmt.Errorf("list weeks: %w", err)
	}
	return nonNil(rows), nil
}
