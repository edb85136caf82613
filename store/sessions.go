// Queries of mnemo_sessions: the sessions handed over, their status and jobs.

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

const sessionCols = `id, user_id, app, status, started_at, ended_at, timezone, message_count, body_sha256, jobs,
	transcript_retained, retain_until, closed_at, processed_at, updated_at`

func scanSession(r rows) (Session, error) {
	var s Session
	var jobs json.RawMessage
	if err := r.Scan(sessionDest(&s, &jobs)...); err != nil {
		return s, err
	}
	return s, s.decodeJobs(jobs)
}

// sessionDest are the scan destinations of sessionCols; the jobs column
// goes to jobs, for decodeJobs.
func sessionDest(s *Session, jobs *json.RawMessage) []any {
	return []any{&s.ID, &s.UserID, &s.App, &s.Status, scanTime{&s.StartedAt}, scanTime{&s.EndedAt}, &s.Timezone,
		&s.MessageCount, &s.BodySHA256, scanJSON{jobs}, &s.TranscriptRetained, scanNullTime{&s.RetainUntil},
		scanNullTime{&s.ClosedAt}, scanNullTime{&s.ProcessedAt}, scanTime{&s.UpdatedAt}}
}

// decodeJobs sets s.Jobs from the jobs column.
func (s *Session) decodeJobs(jobs json.RawMessage) error {
	if len(jobs) > 0 {
		if err := json.Unmarshal(jobs, &s.Jobs); err != nil {
			return fmt.Errorf("decode session jobs: %w", err)
		}
	}
	return nil
}

func (q queries) CreateSession(ctx context.Context, s Session) error {
	jobs, err := json.Marshal(nonNil(s.Jobs))
	if err != nil {
		return err
	}
	return q.later(ctx, step{what: "create session", sql: `INSERT INTO mnemo_sessions (` + sessionCols + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
		args: []any{s.ID, s.UserID, s.App, s.Status, s.StartedAt, s.EndedAt, s.Timezone, s.MessageCount, s.BodySHA256, string(jobs),
			s.TranscriptRetained, s.RetainUntil, s.ClosedAt, s.ProcessedAt, s.UpdatedAt}})
}

func (q queries) getSession(ctx context.Context, id, suffix string) (Session, error) {
	var s Session
	err := q.queryOne(ctx, "SELECT "+sessionCols+" FROM mnemo_sessions WHERE id = $1"+suffix, []any{id}, func(r rows) (err error) {
		s, err = scanSession(r)
		return err
	})
	return s, err
}

func (q queries) GetSession(ctx context.Context, id string) (Session, error) {
	return q.getSession(ctx, id, "")
}

func (q queries) GetSessionForUpdate(ctx context.Context, id string) (Session, error) {
	return q.getSession(ctx, id, " FOR UPDATE")
}

func (q queries) SetSessionJobs(ctx context.Context, id string, jobs []JobRef, at time.Time) error {
	b, err := json.Marshal(nonNil(jobs))
	if err != nil {
		return err
	}
	n, err := q.e.exec(ctx, "UPDATE mnemo_sessions SET jobs = $2, updated_at = $3 WHERE id = $1", id, string(b), at)
	return mustAffect(n, err, "set session jobs")
}

func (q queries) SetSessionStatus(ctx context.Context, id, status string, at time.Time) error {
	n, err := q.e.exec(ctx, `UPDATE mnemo_sessions SET status = $2, updated_at = $3,
		processed_at = CASE WHEN $2 = 'processed' THEN $3 ELSE processed_at END WHERE id = $1`, id, status, at)
	return mustAffect(n, err, "set session status")
}

func (q queries) SetSessionProcessed(ctx context.Context, id string, retained bool, until *time.Time, at time.Time) error {
	return q.runStep(ctx, sessionProcessedStep(id, retained, until, at))
}

// sessionProcessedStep is SetSessionProcessed's statement, which must find
// the session.
func sessionProcessedStep(id string, retained bool, until *time.Time, at time.Time) step {
	return step{what: "set session processed", sql: `UPDATE mnemo_sessions SET status = 'processed', processed_at = $4, updated_at = $4,
		transcript_retained = $2, retain_until = $3 WHERE id = $1`, args: []any{id, retained, until, at}, want: 1}
}

func (q queries) SetTranscriptRetention(ctx context.Context, id string, retained bool, until *time.Time, at time.Time) error {
	n, err := q.e.exec(ctx, "UPDATE mnemo_sessions SET transcript_retained = $2, retain_until = $3, updated_at = $4 WHERE id = $1",
		id, retained, until, at)
	return mustAffect(n, err, "set transcript retention")
}

func (q queries) CloseActiveSession(ctx context.Context, s Session) error {
	jobs, err := json.Marshal(nonNil(s.Jobs))
	if err != nil {
		return err
	}
	n, err := q.e.exec(ctx, `UPDATE mnemo_sessions SET status = $2, started_at = $3, ended_at = $4, timezone = $5, message_count = $6,
		body_sha256 = $7, jobs = $8, transcript_retained = $9, closed_at = $10, updated_at = $11
		WHERE id = $1 AND status = 'active' AND user_id = $12`,
		s.ID, s.Status, s.StartedAt, s.EndedAt, s.Timezone, s.MessageCount, s.BodySHA256, string(jobs), s.TranscriptRetained, s.ClosedAt, s.UpdatedAt, s.UserID)
	if err != nil {
		return fmt.Errorf("close active session: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("close active session %s: %w", s.ID, ErrConflict)
	}
	return nil
}
