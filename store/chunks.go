// Queries of mnemo_transcript_chunks: a session's sealed transcript.

package store

import (
	"context"
	"fmt"
)

const chunkCols = "session_id, seq, user_id, key_id, nonce, ciphertext, sha256, created_at"

func (q queries) InsertChunks(ctx context.Context, chunks []Chunk) error {
	steps, err := q.insertSteps("insert transcript chunks", "INSERT INTO mnemo_transcript_chunks ("+chunkCols+")", 8, len(chunks), func(i int) []any {
		c := chunks[i]
		return []any{c.SessionID, c.Seq, c.UserID, c.KeyID, c.Nonce, c.Ciphertext, c.SHA256, c.CreatedAt}
	}, "")
	if err != nil {
		return fmt.Errorf("insert transcript chunks: %w", err)
	}
	return q.later(ctx, steps...)
}

func scanChunk(r rows) (Chunk, error) {
	var c Chunk
	err := r.Scan(&c.SessionID, &c.Seq, &c.UserID, &c.KeyID, &c.Nonce, &c.Ciphertext, &c.SHA256, scanTime{&c.CreatedAt})
	return c, err
}

// listChunksSQL lists a session's transcript chunks ($1) in order.
const listChunksSQL = "SELECT " + chunkCols + " FROM mnemo_transcript_chunks WHERE session_id = $1 ORDER BY seq"

func (q queries) ListChunks(ctx context.Context, sessionID string) ([]Chunk, error) {
	return queryAll(ctx, q, listChunksSQL, []any{sessionID}, scanChunk)
}

// deleteChunksSQL deletes a session's transcript ($1).
const deleteChunksSQL = "DELETE FROM mnemo_transcript_chunks WHERE session_id = $1"

func (q queries) DeleteChunks(ctx context.Context, sessionID string) (int64, error) {
	n, err := q.e.exec(ctx, deleteChunksSQL, sessionID)
	if err != nil {
		return 0, fmt.Errorf("delete transcript: %w", err)
	}
	return n, nil
}
