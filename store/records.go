// Queries of mnemo_records: the per-user records a preset derives.

package store

import (
	"context"
	"fmt"
)

// recordCols are a record's columns, in scanRecord's order; r is the
// alias of mnemo_records.
const recordCols = "r.user_id, r.app, r.kind, r.key, r.data, r.session_id, r.updated_at, r.stated_at"

func scanRecord(r rows) (Record, error) {
	var x Record
	err := r.Scan(&x.UserID, &x.App, &x.Type, &x.Key, scanJSON{&x.Data}, &x.SessionID, scanTime{&x.UpdatedAt}, scanTime{&x.StatedAt})
	return x, err
}

func (q queries) ListRecords(ctx context.Context, userID string, kinds []string) ([]Record, error) {
	all, err := queryAll(ctx, q, "SELECT "+recordCols+" FROM mnemo_records r WHERE r.user_id = $1 ORDER BY r.kind, r.key",
		[]any{userID}, scanRecord)
	return only(all, err, kinds, func(r Record) string { return r.Type })
}

// ListSessionRecords reads the session's row for its user, so that the
// records are found by the primary key's user_id prefix.
func (q queries) ListSessionRecords(ctx context.Context, sessionID string) ([]Record, error) {
	return queryAll(ctx, q, "SELECT "+recordCols+` FROM mnemo_sessions s JOIN mnemo_records r ON r.user_id = s.user_id
		WHERE s.id = $1 AND r.session_id = $1 ORDER BY r.kind, r.key`, []any{sessionID}, scanRecord)
}

func (q queries) UpsertRecord(ctx context.Context, r Record) error {
	_, err := q.e.exec(ctx, `INSERT INTO mnemo_records (user_id, app, kind, key, data, session_id, updated_at, stated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (user_id, kind, key) DO UPDATE SET data = excluded.data, session_id = excluded.session_id, updated_at = excluded.updated_at,
		stated_at = excluded.stated_at`,
		r.UserID, r.App, r.Type, r.Key, jsonArg(r.Data, "{}"), r.SessionID, r.UpdatedAt, statedOr(r.StatedAt, r.UpdatedAt))
	if err != nil {
		return fmt.Errorf("upsert record %s: %w", r.Type, err)
	}
	return nil
}

func (q queries) DeleteRecord(ctx context.Context, k RecordKey) error {
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_records WHERE user_id = $1 AND kind = $2 AND key = $3", k.UserID, k.Type, k.Key); err != nil {
		return fmt.Errorf("delete record %s: %w", k.Type, err)
	}
	return nil
}
