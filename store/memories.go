// Queries of mnemo_memories: a user's remembered facts.

package store

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"
)

const memoryCols = `id, user_id, app, key, value, category, importance, confidence, status, supersedes_id,
	source_session_id, source_message_id, confirmations, expires_at, last_used_at, created_at, updated_at,
	stated_at, invalidated_at, invalidated_by, event_date, wording`

func scanMemory(r rows) (Memory, error) {
	var m Memory
	err := r.Scan(&m.ID, &m.UserID, &m.App, &m.Key, &m.Value, &m.Category, &m.Importance, &m.Confidence, &m.Status,
		&m.SupersedesID, &m.SourceSessionID, &m.SourceMessageID, &m.Confirmations, scanNullTime{&m.ExpiresAt},
		scanNullTime{&m.LastUsedAt}, scanTime{&m.CreatedAt}, scanTime{&m.UpdatedAt},
		scanTime{&m.StatedAt}, scanNullTime{&m.InvalidatedAt}, &m.InvalidatedBy, &m.EventDate, &m.Wording)
	return m, err
}

// memoryOrder is the order ListMemories lists in.
const memoryOrder = " ORDER BY importance DESC, created_at, id"

func (q queries) ListMemories(ctx context.Context, userID string, f MemoryFilter) ([]Memory, error) {
	sql := "SELECT " + memoryCols + " FROM mnemo_memories WHERE user_id = $1"
	args := []any{userID}
	if f.AsOf != nil {
		// Valid time is decided in Go (Memory.ValidAt), so that both
		// databases answer alike; the candidates are the rows stated by then.
		f.All = true
	}
	if !f.All {
		args = append(args, cmp.Or(f.Status, MemoryActive))
		sql += fmt.Sprintf(" AND status = $%d", len(args))
	}
	if f.Category != "" {
		args = append(args, f.Category)
		sql += fmt.Sprintf(" AND category = $%d", len(args))
	}
	sql += memoryOrder
	all, err := queryAll(ctx, q, sql, args, scanMemory)
	if err != nil || f.AsOf == nil {
		return all, err
	}
	out := all[:0]
	for _, m := range all {
		if m.ValidAt(*f.AsOf) {
			out = append(out, m)
		}
	}
	return out, nil
}

// packMemoryCols are the columns ListPackMemories reads.
const packMemoryCols = `id, key, value, category, importance, expires_at, last_used_at, updated_at, stated_at, event_date`

func (q queries) ListPackMemories(ctx context.Context, userID string) ([]PackMemory, error) {
	// No ORDER BY: sorting thousands of rows (by a text id under the
	// database's collation on Postgres) cost more than the read itself, and
	// the pack does not depend on the order.
	//
	// The status is a literal, not a parameter: a generic plan of
	// "status = $2" cannot use the partial index on (user_id, key) WHERE
	// status = 'active', and reads every user's active memories instead.
	return queryAll(ctx, q, "SELECT "+packMemoryCols+" FROM mnemo_memories WHERE user_id = $1 AND status = '"+MemoryActive+"'",
		[]any{userID}, scanPackMemory)
}

// scanPackMemory reads packMemoryCols.
func scanPackMemory(r rows) (m PackMemory, err error) {
	err = r.Scan(&m.ID, &m.Key, &m.Value, &m.Category, &m.Importance, scanNullTime{&m.ExpiresAt},
		scanNullTime{&m.LastUsedAt}, scanTime{&m.UpdatedAt}, scanTime{&m.StatedAt}, &m.EventDate)
	return m, err
}

// markUsedBatch bounds the ids of one MarkMemoriesUsed statement.
const markUsedBatch = 1000

func (q queries) MarkMemoriesUsed(ctx context.Context, userID string, ids []string, at time.Time) error {
	for len(ids) > 0 {
		n := min(len(ids), markUsedBatch)
		args := []any{userID, at}
		var in strings.Builder
		for i, id := range ids[:n] {
			if i > 0 {
				in.WriteString(", ")
			}
			args = append(args, id)
			fmt.Fprintf(&in, "$%d", len(args))
		}
		if _, err := q.e.exec(ctx, "UPDATE mnemo_memories SET last_used_at = $2 WHERE user_id = $1 AND id IN ("+in.String()+")", args...); err != nil {
			return fmt.Errorf("mark memories used: %w", err)
		}
		ids = ids[n:]
	}
	return nil
}

func (q queries) GetMemory(ctx context.Context, userID, id string) (Memory, error) {
	var m Memory
	err := q.queryOne(ctx, "SELECT "+memoryCols+" FROM mnemo_memories WHERE user_id = $1 AND id = $2",
		[]any{userID, id}, func(r rows) (err error) {
			m, err = scanMemory(r)
			return err
		})
	return m, err
}

func (q queries) InsertMemory(ctx context.Context, m Memory) error {
	_, err := q.e.exec(ctx, "INSERT INTO mnemo_memories ("+memoryCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
		m.ID, m.UserID, m.App, m.Key, m.Value, m.Category, m.Importance, m.Confidence, m.Status, m.SupersedesID,
		m.SourceSessionID, m.SourceMessageID, m.Confirmations, m.ExpiresAt, m.LastUsedAt, m.CreatedAt, m.UpdatedAt,
		statedOr(m.StatedAt, m.CreatedAt), m.InvalidatedAt, m.InvalidatedBy, m.EventDate, m.Wording)
	if err != nil {
		return fmt.Errorf("insert memory: %w", err)
	}
	return nil
}

// memoryInsertRow is a memory's row, in memoryCols' order.
func memoryInsertRow(m Memory) []any {
	return []any{m.ID, m.UserID, m.App, m.Key, m.Value, m.Category, m.Importance, m.Confidence, m.Status, m.SupersedesID,
		m.SourceSessionID, m.SourceMessageID, m.Confirmations, m.ExpiresAt, m.LastUsedAt, m.CreatedAt, m.UpdatedAt,
		statedOr(m.StatedAt, m.CreatedAt), m.InvalidatedAt, m.InvalidatedBy, m.EventDate, m.Wording}
}

func (q queries) InsertMemories(ctx context.Context, ms []Memory) error {
	_, err := q.insertRows(ctx, "INSERT INTO mnemo_memories ("+memoryCols+")", 22, len(ms), func(i int) []any {
		return memoryInsertRow(ms[i])
	}, "")
	if err != nil {
		return fmt.Errorf("insert memories: %w", err)
	}
	return nil
}

func (q queries) UpdateMemory(ctx context.Context, m Memory) error {
	n, err := q.e.exec(ctx, `UPDATE mnemo_memories SET value = $3, importance = $4, confidence = $5, status = $6,
		confirmations = $7, expires_at = $8, last_used_at = $9, updated_at = $10, stated_at = $11, invalidated_at = $12,
		invalidated_by = $13, supersedes_id = $14, event_date = $15, wording = $16, category = $17, source_session_id = $18,
		source_message_id = $19 WHERE user_id = $1 AND id = $2`,
		m.UserID, m.ID, m.Value, m.Importance, m.Confidence, m.Status, m.Confirmations, m.ExpiresAt, m.LastUsedAt, m.UpdatedAt,
		statedOr(m.StatedAt, m.CreatedAt), m.InvalidatedAt, m.InvalidatedBy, m.SupersedesID, m.EventDate, m.Wording,
		m.Category, m.SourceSessionID, m.SourceMessageID)
	return mustAffect(n, err, "update memory")
}
