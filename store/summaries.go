// Queries of mnemo_session_summaries: a session's summary per prompt version.

package store

import (
	"context"
	"encoding/json"
)

const summaryCols = "session_id, prompt_version, user_id, app, source, data, created_at"

// summaryRow names a summary's row, to which its sealed data is bound.
func summaryRow(s Summary) string { return "summary:" + s.SessionID + ":" + s.PromptVersion }

func scanSummary(r rows) (Summary, error) {
	var s Summary
	err := r.Scan(&s.SessionID, &s.PromptVersion, &s.UserID, &s.App, &s.Source, scanJSON{&s.Data}, scanTime{&s.CreatedAt})
	return s, err
}

func (q queries) UpsertSummary(ctx context.Context, s Summary) error {
	st, err := q.upsertSummaryStep(s)
	if err != nil {
		return err
	}
	return q.runStep(ctx, st)
}

// upsertSummaryStep is UpsertSummary's statement, its data sealed.
func (q queries) upsertSummaryStep(s Summary) (step, error) {
	data, err := q.sealJSON(s.App, summaryRow(s), json.RawMessage(jsonArg(s.Data, "{}")))
	if err != nil {
		return step{}, err
	}
	return step{what: "upsert summary", sql: "INSERT INTO mnemo_session_summaries (" + summaryCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (session_id, prompt_version) DO UPDATE SET source = excluded.source, data = excluded.data, created_at = excluded.created_at`,
		args: []any{s.SessionID, s.PromptVersion, s.UserID, s.App, s.Source, jsonArg(data, "{}"), s.CreatedAt}}, nil
}

func (q queries) GetSummary(ctx context.Context, sessionID string) (Summary, error) {
	var s Summary
	err := q.queryOne(ctx, "SELECT "+summaryCols+" FROM mnemo_session_summaries WHERE session_id = $1 ORDER BY created_at DESC, prompt_version DESC LIMIT 1",
		[]any{sessionID}, func(r rows) (err error) {
			if s, err = scanSummary(r); err != nil {
				return err
			}
			s.Data, err = q.openJSON(s.App, summaryRow(s), s.Data)
			return err
		})
	return s, err
}

func (q queries) ListSummaries(ctx context.Context, userID string, limit int) ([]Summary, error) {
	return queryAll(ctx, q, `SELECT s.session_id, s.prompt_version, s.user_id, s.app, s.source, s.data, s.created_at, x.ended_at
		FROM mnemo_session_summaries s JOIN mnemo_sessions x ON x.id = s.session_id
		WHERE s.user_id = $1 ORDER BY x.ended_at DESC, s.session_id DESC, s.created_at DESC LIMIT $2`,
		[]any{userID, limit}, func(r rows) (Summary, error) {
			var s Summary
			if err := r.Scan(&s.SessionID, &s.PromptVersion, &s.UserID, &s.App, &s.Source, scanJSON{&s.Data}, scanTime{&s.CreatedAt},
				scanTime{&s.SessionAt}); err != nil {
				return s, err
			}
			var err error
			s.Data, err = q.openJSON(s.App, summaryRow(s), s.Data)
			return s, err
		})
}
