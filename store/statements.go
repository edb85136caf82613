// Queries of mnemo_memory_statements: each time a memory was said.

package store

import (
	"cmp"
	"context"
	"fmt"
)

const statementCols = `id, memory_id, user_id, key, value, category, importance, confidence, expires_at, stated_at,
	session_id, message_id, weight, event_date, wording, created_at`

func scanStatement(r rows) (Statement, error) {
	var s Statement
	err := r.Scan(&s.ID, &s.MemoryID, &s.UserID, &s.Key, &s.Value, &s.Category, &s.Importance, &s.Confidence,
		scanNullTime{&s.ExpiresAt}, scanTime{&s.StatedAt}, &s.SessionID, &s.MessageID, &s.Weight, &s.EventDate,
		&s.Wording, scanTime{&s.CreatedAt})
	return s, err
}

// statementOrder is the order ListStatements lists in.
const statementOrder = " ORDER BY stated_at, id"

func (q queries) ListStatements(ctx context.Context, userID string, keys []string) ([]Statement, error) {
	all, err := queryAll(ctx, q, "SELECT "+statementCols+" FROM mnemo_memory_statements WHERE user_id = $1"+statementOrder,
		[]any{userID}, scanStatement)
	return only(all, err, keys, func(s Statement) string { return s.Key })
}

func (q queries) InsertStatement(ctx context.Context, s Statement) error {
	_, err := q.e.exec(ctx, "INSERT INTO mnemo_memory_statements ("+statementCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		cmp.Or(s.ID, NewID()), s.MemoryID, s.UserID, s.Key, s.Value, s.Category, s.Importance, s.Confidence, s.ExpiresAt,
		s.StatedAt, s.SessionID, s.MessageID, max(s.Weight, 1), s.EventDate, s.Wording, s.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert memory statement: %w", err)
	}
	return nil
}

// statementRow is a statement's row, in statementCols' order.
func statementRow(s Statement) []any {
	return []any{cmp.Or(s.ID, NewID()), s.MemoryID, s.UserID, s.Key, s.Value, s.Category, s.Importance, s.Confidence, s.ExpiresAt,
		s.StatedAt, s.SessionID, s.MessageID, max(s.Weight, 1), s.EventDate, s.Wording, s.CreatedAt}
}

func (q queries) InsertStatements(ctx context.Context, ss []Statement) error {
	_, err := q.insertRows(ctx, "INSERT INTO mnemo_memory_statements ("+statementCols+")", 16, len(ss), func(i int) []any {
		return statementRow(ss[i])
	}, "")
	if err != nil {
		return fmt.Errorf("insert memory statements: %w", err)
	}
	return nil
}

func (q queries) MoveStatement(ctx context.Context, s Statement) error {
	return q.runStep(ctx, moveStatementStep(s))
}

// foldSteps are the statements of a timeline's compaction: each fold
// rewritten, then the statements folded into it deleted, a thousand per
// statement; each must find every row it names.
func foldSteps(userID string, folds []Statement, folded []string) []step {
	var steps []step
	for _, f := range folds {
		steps = append(steps, step{what: "fold memory statements", sql: `UPDATE mnemo_memory_statements SET weight = $3,
			importance = $4, confidence = $5, expires_at = $6, event_date = $7, wording = $8 WHERE user_id = $1 AND id = $2`,
			args: []any{userID, f.ID, max(f.Weight, 1), f.Importance, f.Confidence, f.ExpiresAt, f.EventDate, f.Wording}, want: 1})
	}
	for start := 0; start < len(folded); start += 1000 {
		ids := folded[start:min(len(folded), start+1000)]
		args := make([]any, 0, len(ids)+1)
		args = append(args, userID)
		for _, id := range ids {
			args = append(args, id)
		}
		steps = append(steps, step{what: "delete folded memory statements",
			sql:  "DELETE FROM mnemo_memory_statements WHERE user_id = $1 AND id IN (" + placeholders(2, len(ids)) + ")",
			args: args, want: int64(len(ids))})
	}
	return steps
}

// moveStatementStep is MoveStatement's statement, which must find the
// statement.
func moveStatementStep(s Statement) step {
	return step{what: "move memory statement", sql: "UPDATE mnemo_memory_statements SET memory_id = $3 WHERE user_id = $1 AND id = $2",
		args: []any{s.UserID, s.ID, s.MemoryID}, want: 1}
}
