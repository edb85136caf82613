// Queries of mnemo_cues: significant changes recorded for the next session.

package store

import (
	"cmp"
	"context"
	"fmt"
)

func (q queries) InsertCue(ctx context.Context, c Cue) error {
	_, err := q.e.exec(ctx, `INSERT INTO mnemo_cues (id, user_id, app, kind, field, detail, session_id, created_at, resolved_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (session_id, kind, field) DO NOTHING`,
		cmp.Or(c.ID, NewID()), c.UserID, c.App, c.Type, c.Field, jsonArg(c.Detail, "{}"), c.SessionID, c.CreatedAt, c.ResolvedAt)
	if err != nil {
		return fmt.Errorf("insert cue: %w", err)
	}
	return nil
}

// cueCols are a cue's columns, in scanCue's order; c is the alias of
// mnemo_cues.
const cueCols = "c.id, c.user_id, c.app, c.kind, c.field, c.detail, c.session_id, c.created_at, c.resolved_at"

func scanCue(r rows) (Cue, error) {
	var c Cue
	err := r.Scan(&c.ID, &c.UserID, &c.App, &c.Type, &c.Field, scanJSON{&c.Detail}, &c.SessionID, scanTime{&c.CreatedAt}, scanNullTime{&c.ResolvedAt})
	return c, err
}

func (q queries) ListCues(ctx context.Context, userID string, unresolvedOnly bool) ([]Cue, error) {
	sql := "SELECT " + cueCols + " FROM mnemo_cues c WHERE c.user_id = $1"
	if unresolvedOnly {
		sql += " AND c.resolved_at IS NULL"
	}
	return queryAll(ctx, q, sql+" ORDER BY c.created_at, c.id", []any{userID}, scanCue)
}

// ListSessionCues finds the cues by the unique (session_id, kind, field)
// index; the join keeps those of the session's user.
func (q queries) ListSessionCues(ctx context.Context, sessionID string) ([]Cue, error) {
	return queryAll(ctx, q, "SELECT "+cueCols+` FROM mnemo_sessions s JOIN mnemo_cues c ON c.user_id = s.user_id
		WHERE s.id = $1 AND c.session_id = $1 ORDER BY c.created_at, c.id`, []any{sessionID}, scanCue)
}

func (q queries) DeleteCues(ctx context.Context, userID string) (int64, error) {
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_cues WHERE user_id = $1", userID)
	if err != nil {
		return 0, fmt.Errorf("delete cues: %w", err)
	}
	return n, nil
}
