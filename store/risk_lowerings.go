// Queries of mnemo_risk_lowerings: rules risk findings the model lowered.

package store

import (
	"cmp"
	"context"
	"fmt"
)

func (q queries) InsertRiskLowering(ctx context.Context, l RiskLowering) (bool, error) {
	n, err := q.e.exec(ctx, `INSERT INTO mnemo_risk_lowerings (id, user_id, app, session_id, message_id, from_class, from_severity,
		to_class, to_severity, frame, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (session_id, message_id) DO NOTHING`,
		cmp.Or(l.ID, NewID()), l.UserID, l.App, l.SessionID, l.MessageID, l.FromClass, l.FromSeverity, l.ToClass, l.ToSeverity,
		l.Frame, l.CreatedAt)
	if err != nil {
		return false, fmt.Errorf("insert risk lowering: %w", err)
	}
	return n > 0, nil
}

func (q queries) ListRiskLowerings(ctx context.Context, sessionID string) ([]RiskLowering, error) {
	return queryAll(ctx, q, `SELECT id, user_id, app, session_id, message_id, from_class, from_severity, to_class, to_severity,
		frame, created_at FROM mnemo_risk_lowerings WHERE session_id = $1 ORDER BY created_at, id`, []any{sessionID},
		func(r rows) (RiskLowering, error) {
			var l RiskLowering
			err := r.Scan(&l.ID, &l.UserID, &l.App, &l.SessionID, &l.MessageID, &l.FromClass, &l.FromSeverity, &l.ToClass,
				&l.ToSeverity, &l.Frame, scanTime{&l.CreatedAt})
			return l, err
		})
}
