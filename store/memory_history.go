// Queries of mnemo_memory_history: the audit rows of memory writes.

package store

import (
	"cmp"
	"context"
	"fmt"
)

func (q queries) InsertMemoryChange(ctx context.Context, c MemoryChange) error {
	if c.Action == actionForget {
		cs, err := q.hashForgetKeys(ctx, []MemoryChange{c})
		if err != nil {
			return err
		}
		c = cs[0]
		if _, err := q.e.exec(ctx, olderForgetsSQL, c.UserID, c.Key, c.MemoryID, c.At); err != nil {
			return fmt.Errorf("record memory change: %w", err)
		}
	}
	_, err := q.e.exec(ctx, `INSERT INTO mnemo_memory_history (id, memory_id, user_id, action, actor, session_id, at, key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, cmp.Or(c.ID, NewID()), c.MemoryID, c.UserID, c.Action, c.Actor, c.SessionID, c.At, c.Key)
	if err != nil {
		return fmt.Errorf("record memory change: %w", err)
	}
	return nil
}

// memoryChangeRow is an audit row, in memoryChangeCols' order.
func memoryChangeRow(c MemoryChange) []any {
	return []any{cmp.Or(c.ID, NewID()), c.MemoryID, c.UserID, c.Action, c.Actor, c.SessionID, c.At, c.Key}
}

func (q queries) InsertMemoryChanges(ctx context.Context, cs []MemoryChange) error {
	cs, err := q.hashForgetKeys(ctx, cs)
	if err != nil {
		return err
	}
	_, err = q.insertRows(ctx, "INSERT INTO mnemo_memory_history ("+memoryChangeCols+")", 8, len(cs),
		func(i int) []any { return memoryChangeRow(cs[i]) }, "")
	if err != nil {
		return fmt.Errorf("record memory changes: %w", err)
	}
	return nil
}

func scanMemoryChange(r rows) (MemoryChange, error) {
	var c MemoryChange
	err := r.Scan(&c.ID, &c.MemoryID, &c.UserID, &c.Action, &c.Actor, &c.SessionID, scanTime{&c.At}, &c.Key)
	return c, err
}

func (q queries) ListMemoryChanges(ctx context.Context, userID string) ([]MemoryChange, error) {
	return queryAll(ctx, q, "SELECT id, memory_id, user_id, action, actor, session_id, at, key FROM mnemo_memory_history WHERE user_id = $1 ORDER BY at, id",
		[]any{userID}, scanMemoryChange)
}

// memoryChangeCols and memoryChangeOrder are what ListMemoryChanges lists, in its order.
const (
	memoryChangeCols  = "id, memory_id, user_id, action, actor, session_id, at, key"
	memoryChangeOrder = " ORDER BY at, id"
)

func (q queries) ListMemoryChangesOf(ctx context.Context, userID, action string) ([]MemoryChange, error) {
	if action == actionForget {
		return queryAll(ctx, q, "SELECT "+memoryChangeCols+" FROM mnemo_memory_history WHERE user_id = $1"+forgetsOnly+memoryChangeOrder,
			[]any{userID}, scanMemoryChange)
	}
	return queryAll(ctx, q, "SELECT "+memoryChangeCols+" FROM mnemo_memory_history WHERE user_id = $1 AND action = $2"+memoryChangeOrder,
		[]any{userID, action}, scanMemoryChange)
}

// actionForget is the action of a forget marker. forgetsOnly selects the
// markers with the action in the SQL's text: only then can the planners
// (Postgres's generic plans, SQLite's) use their partial index (0011).
const (
	actionForget = "forget"
	forgetsOnly  = " AND action = 'forget'"
)
