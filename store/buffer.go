// Queries of mnemo_buffer: a session's rolling buffer of sealed turns.

package store

import (
	"context"
	"fmt"
)

const bufferCols = "session_id, seq, user_id, message_id, key_id, nonce, ciphertext, sha256, created_at"

func (q queries) AppendBuffer(ctx context.Context, msgs []BufferMessage) (int, error) {
	added := 0
	for _, m := range msgs {
		n, err := q.e.exec(ctx, "INSERT INTO mnemo_buffer ("+bufferCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT DO NOTHING`, m.SessionID, m.Seq, m.UserID, m.MessageID, m.KeyID, m.Nonce, m.Ciphertext, m.SHA256, m.CreatedAt)
		if err != nil {
			return added, fmt.Errorf("append buffer: %w", err)
		}
		added += int(n)
	}
	return added, nil
}

func (q queries) ListBuffer(ctx context.Context, sessionID string) ([]BufferMessage, error) {
	return queryAll(ctx, q, "SELECT "+bufferCols+" FROM mnemo_buffer WHERE session_id = $1 ORDER BY seq", []any{sessionID},
		func(r rows) (BufferMessage, error) {
			var m BufferMessage
			err := r.Scan(&m.SessionID, &m.Seq, &m.UserID, &m.MessageID, &m.KeyID, &m.Nonce, &m.Ciphertext, &m.SHA256, scanTime{&m.CreatedAt})
			return m, err
		})
}

func (q queries) CountBuffer(ctx context.Context, sessionID string) (int, error) {
	var n int
	err := q.queryOne(ctx, "SELECT COUNT(*) FROM mnemo_buffer WHERE session_id = $1", []any{sessionID}, func(r rows) error { return r.Scan(&n) })
	return n, err
}

func (q queries) BufferHead(ctx context.Context, sessionID string, messageIDs []string) (BufferHead, error) {
	h := BufferHead{Known: map[string]bool{}}
	// The primary key (session_id, seq) answers MAX from its last entry.
	err := q.queryOne(ctx, "SELECT COALESCE(MAX(seq) + 1, 0) FROM mnemo_buffer WHERE session_id = $1", []any{sessionID},
		func(r rows) error { return r.Scan(&h.Next) })
	if err != nil || len(messageIDs) == 0 {
		return h, err
	}
	// The unique (session_id, message_id) index answers each id; many ids
	// go in several statements.
	args, lists := q.inLists([]any{sessionID}, messageIDs)
	var known []string
	for i := range args {
		ids, err := queryAll(ctx, q, "SELECT message_id FROM mnemo_buffer WHERE session_id = $1 AND message_id IN ("+lists[i]+")",
			args[i], func(r rows) (string, error) {
				var id string
				return id, r.Scan(&id)
			})
		if err != nil {
			return h, err
		}
		known = append(known, ids...)
	}
	for _, id := range known {
		h.Known[id] = true
	}
	return h, nil
}
