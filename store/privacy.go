package store

import (
	"context"
	"fmt"
	"time"
)

// Export is a user's data export; its archive is stored sealed, in chunks.
type Export struct {
	ID         string
	UserID     string
	Status     string // pending, done, failed
	Error      string
	CreatedAt  time.Time
	FinishedAt *time.Time
}

// Erasure is a pending request to erase a user.
type Erasure struct {
	ID          string
	UserID      string
	RequestedAt time.Time
}

// Privacy is what user data controls read and write.
type Privacy interface {
	SetMemoryDisabled(ctx context.Context, userID string, disabled bool, at time.Time) error
	// DeleteMemory forgets one memory of a user; ErrNotFound if it is not theirs.
	DeleteMemory(ctx context.Context, userID, id string) error
	// DeleteMemories forgets a user's memories of one category and returns how many.
	DeleteMemories(ctx context.Context, userID, category string) (int64, error)
	// DeleteProfile removes a user's profile and its history (a fresh start).
	DeleteProfile(ctx context.Context, userID string) error

	CreateExport(ctx context.Context, e Export) error
	GetExport(ctx context.Context, id string) (Export, error)
	FinishExport(ctx context.Context, id, status, errText string, chunks []Chunk, at time.Time) error
	ListExportChunks(ctx context.Context, id string) ([]Chunk, error)

	// ListUserSessions lists a user's sessions, oldest first.
	ListUserSessions(ctx context.Context, userID string) ([]Session, error)
	// ListUserWeekly lists a user's weekly analytics, oldest first.
	ListUserWeekly(ctx context.Context, userID string) ([]AggregateRow, error)

	// SessionsWithOldKeys lists up to limit sessions with transcript chunks
	// sealed under another key than keyID.
	SessionsWithOldKeys(ctx context.Context, keyID string, limit int) ([]string, error)

	// SessionsWithTranscripts pages an app's sessions that still hold a
	// transcript, by id.
	SessionsWithTranscripts(ctx context.Context, app, after string, limit int) ([]string, error)

	CreateErasure(ctx context.Context, e Erasure) error
	GetErasure(ctx context.Context, id string) (Erasure, error)
	// EraseUser deletes the user and, by cascade, every row of theirs, then
	// the erasure request itself.
	EraseUser(ctx context.Context, erasureID, userID string) error
}

func (q queries) SetMemoryDisabled(ctx context.Context, userID string, disabled bool, at time.Time) error {
	n, err := q.e.exec(ctx, "UPDATE mnemo_users SET memory_disabled = $2, updated_at = $3 WHERE id = $1", userID, disabled, at)
	return mustAffect(n, err, "set memory disabled")
}

func (q queries) DeleteMemory(ctx context.Context, userID, id string) error {
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_memories WHERE user_id = $1 AND id = $2", userID, id)
	return mustAffect(n, err, "forget memory")
}

func (q queries) DeleteMemories(ctx context.Context, userID, category string) (int64, error) {
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_memories WHERE user_id = $1 AND category = $2", userID, category)
	if err != nil {
		return 0, fmt.Errorf("forget category: %w", err)
	}
	return n, nil
}

func (q queries) DeleteProfile(ctx context.Context, userID string) error {
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_profile_history WHERE user_id = $1", userID); err != nil {
		return fmt.Errorf("delete profile history: %w", err)
	}
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_profiles WHERE user_id = $1", userID)
	return mustAffect(n, err, "delete profile")
}

func (q queries) CreateExport(ctx context.Context, e Export) error {
	if _, err := q.e.exec(ctx, "INSERT INTO mnemo_exports (id, user_id, status, created_at) VALUES ($1, $2, $3, $4)",
		e.ID, e.UserID, e.Status, e.CreatedAt); err != nil {
		return fmt.Errorf("create export: %w", err)
	}
	return nil
}

func (q queries) GetExport(ctx context.Context, id string) (Export, error) {
	var e Export
	err := q.queryOne(ctx, "SELECT id, user_id, status, error, created_at, finished_at FROM mnemo_exports WHERE id = $1", []any{id},
		func(r rows) error {
			return r.Scan(&e.ID, &e.UserID, &e.Status, &e.Error, scanTime{&e.CreatedAt}, scanNullTime{&e.FinishedAt})
		})
	return e, err
}

func (q queries) FinishExport(ctx context.Context, id, status, errText string, chunks []Chunk, at time.Time) error {
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_export_chunks WHERE export_id = $1", id); err != nil {
		return err
	}
	for _, c := range chunks {
		if _, err := q.e.exec(ctx, "INSERT INTO mnemo_export_chunks (export_id, seq, key_id, nonce, ciphertext, sha256) VALUES ($1, $2, $3, $4, $5, $6)",
			id, c.Seq, c.KeyID, c.Nonce, c.Ciphertext, c.SHA256); err != nil {
			return fmt.Errorf("store export chunk: %w", err)
		}
	}
	n, err := q.e.exec(ctx, "UPDATE mnemo_exports SET status = $2, error = $3, finished_at = $4 WHERE id = $1", id, status, errText, at)
	return mustAffect(n, err, "finish export")
}

func (q queries) ListExportChunks(ctx context.Context, id string) ([]Chunk, error) {
	return queryAll(ctx, q, "SELECT export_id, seq, key_id, nonce, ciphertext, sha256 FROM mnemo_export_chunks WHERE export_id = $1 ORDER BY seq",
		[]any{id}, func(r rows) (Chunk, error) {
			var c Chunk
			return c, r.Scan(&c.SessionID, &c.Seq, &c.KeyID, &c.Nonce, &c.Ciphertext, &c.SHA256)
		})
}

func (q queries) CreateErasure(ctx context.Context, e Erasure) error {
	if _, err := q.e.exec(ctx, "INSERT INTO mnemo_erasures (id, user_id, requested_at) VALUES ($1, $2, $3)", e.ID, e.UserID, e.RequestedAt); err != nil {
		return fmt.Errorf("request erasure: %w", err)
	}
	return nil
}

func (q queries) GetErasure(ctx context.Context, id string) (Erasure, error) {
	var e Erasure
	err := q.queryOne(ctx, "SELECT id, user_id, requested_at FROM mnemo_erasures WHERE id = $1", []any{id},
		func(r rows) error { return r.Scan(&e.ID, &e.UserID, scanTime{&e.RequestedAt}) })
	return e, err
}

func (q queries) EraseUser(ctx context.Context, erasureID, userID string) error {
	// Sessions cascade to transcript chunks, events, summaries and runs; the
	// user row to everything else of theirs.
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_users WHERE id = $1", userID); err != nil {
		return fmt.Errorf("erase user: %w", err)
	}
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_erasures WHERE id = $1 OR user_id = $2", erasureID, userID); err != nil {
		return fmt.Errorf("erase user: %w", err)
	}
	return nil
}

func (q queries) ListUserSessions(ctx context.Context, userID string) ([]Session, error) {
	return queryAll(ctx, q, "SELECT "+sessionCols+" FROM mnemo_sessions WHERE user_id = $1 ORDER BY started_at, id", []any{userID}, scanSession)
}

func (q queries) ListUserWeekly(ctx context.Context, userID string) ([]AggregateRow, error) {
	return queryAll(ctx, q, "SELECT user_id, app, week_ending, data, updated_at FROM mnemo_weekly_analytics WHERE user_id = $1 ORDER BY week_ending",
		[]any{userID}, scanAggregate)
}

func (q queries) SessionsWithOldKeys(ctx context.Context, keyID string, limit int) ([]string, error) {
	return queryAll(ctx, q, "SELECT DISTINCT session_id FROM mnemo_transcript_chunks WHERE key_id <> $1 ORDER BY session_id LIMIT $2",
		[]any{keyID, limit}, func(r rows) (string, error) {
			var id string
			return id, r.Scan(&id)
		})
}

func (q queries) SessionsWithTranscripts(ctx context.Context, app, after string, limit int) ([]string, error) {
	return queryAll(ctx, q, `SELECT id FROM mnemo_sessions WHERE app = $1 AND transcript_retained AND id > $2 ORDER BY id LIMIT $3`,
		[]any{app, after, limit}, func(r rows) (string, error) {
			var id string
			return id, r.Scan(&id)
		})
}
