// Queries of mnemo_records: the per-user records a preset derives.

package store

import (
	"context"
	"fmt"
)

func (q queries) ListRecords(ctx context.Context, userID string, kinds []string) ([]Record, error) {
	all, err := queryAll(ctx, q, "SELECT user_id, app, kind, key, data, session_id, updated_at, stated_at FROM mnemo_records WHERE user_id = $1 ORDER BY kind, key",
		[]any{userID}, func(r rows) (Record, error) {
			var x Record
			err := r.Scan(&x.UserID, &x.App, &x.Kind, &x.Key, scanJSON{&x.Data}, &x.SessionID, scanTime{&x.UpdatedAt}, scanTime{&x.StatedAt})
			return x, err
		})
	return only(all, err, kinds, func(r Record) string { return r.Kind })
}

func (q queries) UpsertRecord(ctx context.Context, r Record) error {
	_, err := q.e.exec(ctx, `INSERT INTO mnemo_records (user_id, app, kind, key, data, session_id, updated_at, stated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (user_id, kind, key) DO UPDATE SET data = excluded.data, session_id = excluded.session_id, updated_at = excluded.updated_at,
		stated_at = excluded.stated_at`,
		r.UserID, r.App, r.Kind, r.Key, jsonArg(r.Data, "{}"), r.SessionID, r.UpdatedAt, statedOr(r.StatedAt, r.UpdatedAt))
	if err != nil {
		return fmt.Errorf("upsert record %s: %w", r.Kind, err)
	}
	return nil
}

func (q queries) DeleteRecord(ctx context.Context, userID, kind, key string) error {
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_records WHERE user_id = $1 AND kind = $2 AND key = $3", userID, kind, key); err != nil {
		return fmt.Errorf("delete record %s: %w", kind, err)
	}
	return nil
}
