package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// queries implements Querier over an execer; Postgres, SQLite and their
// transactions embed it.
type queries struct {
	e execer
	// sealer seals derived data of the apps that ask for it (nil: none).
	sealer Sealer
}

// NewID returns a new time-ordered identifier.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// queryOne runs q and scans its single row with scan; no row is ErrNotFound.
func (q queries) queryOne(ctx context.Context, sql string, args []any, scan func(r rows) error) error {
	r, err := q.e.query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer r.Close()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return err
		}
		return ErrNotFound
	}
	if err := scan(r); err != nil {
		return translate(err)
	}
	return r.Err()
}

// queryAll runs q and scans every row with scan.
func queryAll[T any](ctx context.Context, q queries, sql string, args []any, scan func(r rows) (T, error)) ([]T, error) {
	r, err := q.e.query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := []T{}
	for r.Next() {
		v, err := scan(r)
		if err != nil {
			return nil, translate(err)
		}
		out = append(out, v)
	}
	return out, r.Err()
}

// maxParams bounds the parameters of one statement: SQLite allows 32 766,
// Postgres 65 535.
const maxParams = 32000

// insertRows inserts n rows of width columns each with as few statements as
// the parameter limit allows: one multi-row VALUES list per batch. head is
// "INSERT INTO t (cols)", tail what follows the VALUES list (an ON CONFLICT
// clause, say), row(i) the arguments of row i. It returns the rows affected.
func (q queries) insertRows(ctx context.Context, head string, width, n int, row func(i int) []any, tail string) (int64, error) {
	steps, err := insertSteps("", head, width, n, row, tail)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, s := range steps {
		k, err := q.e.exec(ctx, s.sql, s.args...)
		if err != nil {
			return total, err
		}
		total += k
	}
	return total, nil
}

// insertSteps are the statements of insertRows, for a pipeline; what names
// them in errors.
func insertSteps(what, head string, width, n int, row func(i int) []any, tail string) ([]step, error) {
	return valuesSteps(what, width, n, row, nil, func(values string) string { return head + " VALUES " + values + tail })
}

// valuesSteps builds the statements of n rows of width values each, as few
// as the parameter limit allows: wrap(list) is one statement around a
// VALUES list of its rows ("($1, $2), ($3, $4)"). casts, when set, are the
// columns' Postgres types, written on the first row of each list
// ("$1::integer") so that a VALUES list that is not an INSERT's types its
// columns; SQLite drops them (sqliteSQL).
func valuesSteps(what string, width, n int, row func(i int) []any, casts []string, wrap func(values string) string) ([]step, error) {
	per := max(1, maxParams/width)
	var steps []step
	for start := 0; start < n; start += per {
		end := min(n, start+per)
		var b strings.Builder
		args := make([]any, 0, (end-start)*width)
		for i := start; i < end; i++ {
			if i > start {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for j := range width {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteByte('$')
				b.WriteString(strconv.Itoa(len(args) + j + 1))
				if i == start && casts != nil {
					b.WriteString("::")
					b.WriteString(casts[j])
				}
			}
			b.WriteByte(')')
			vals := row(i)
			if len(vals) != width {
				return nil, fmt.Errorf("%d values for a row of %d columns", len(vals), width)
			}
			args = append(args, vals...)
		}
		steps = append(steps, step{what: what, sql: wrap(b.String()), args: args})
	}
	return steps, nil
}

// --- users

const userCols = "id, app, display_name, timezone, memory_disabled, created_at, updated_at"

func scanUser(r rows) (User, error) {
	var u User
	err := r.Scan(userDest(&u)...)
	return u, err
}

// userDest are the scan destinations of userCols.
func userDest(u *User) []any {
	return []any{&u.ID, &u.App, &u.DisplayName, &u.Timezone, &u.MemoryDisabled, scanTime{&u.CreatedAt}, scanTime{&u.UpdatedAt}}
}

// openUser opens a user's display name, sealed when the app's data is.
func (q queries) openUser(u User) (User, error) {
	var err error
	u.DisplayName, err = q.openText(u.App, "user:"+u.ID+":display_name", u.DisplayName)
	return u, err
}

func (q queries) UpsertUser(ctx context.Context, u User) error {
	name, err := q.sealText(u.App, "user:"+u.ID+":display_name", u.DisplayName)
	if err != nil {
		return err
	}
	u.DisplayName = name
	_, err = q.e.exec(ctx, `INSERT INTO mnemo_users (`+userCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET
			display_name = CASE WHEN excluded.display_name <> '' THEN excluded.display_name ELSE mnemo_users.display_name END,
			timezone = CASE WHEN excluded.timezone <> '' THEN excluded.timezone ELSE mnemo_users.timezone END,
			updated_at = excluded.updated_at`,
		u.ID, u.App, u.DisplayName, u.Timezone, u.MemoryDisabled, u.CreatedAt, u.UpdatedAt)
	if err != nil {
		return fmt.Errorf("upsert user: %w", err)
	}
	return nil
}

func (q queries) LockUser(ctx context.Context, id string) error {
	return q.queryOne(ctx, "SELECT id FROM mnemo_users WHERE id = $1 FOR UPDATE", []any{id}, func(r rows) error {
		var got string
		return r.Scan(&got)
	})
}

func (q queries) GetUser(ctx context.Context, id string) (User, error) {
	var u User
	err := q.queryOne(ctx, "SELECT "+userCols+" FROM mnemo_users WHERE id = $1", []any{id}, func(r rows) (err error) {
		if u, err = scanUser(r); err != nil {
			return err
		}
		u, err = q.openUser(u)
		return err
	})
	return u, err
}

func (q queries) GetUserForUpdate(ctx context.Context, id string) (User, error) {
	var u User
	err := q.queryOne(ctx, "SELECT "+userCols+" FROM mnemo_users WHERE id = $1 FOR UPDATE", []any{id}, func(r rows) (err error) {
		if u, err = scanUser(r); err != nil {
			return err
		}
		u, err = q.openUser(u)
		return err
	})
	return u, err
}

func (q queries) EnsureUser(ctx context.Context, u User, zoneNamed bool) (User, error) {
	var got User
	found := false
	s, err := q.ensureUserStep(u, zoneNamed, "", &got, &found)
	if err != nil {
		return User{}, err
	}
	if err := q.runStep(ctx, s); err != nil {
		return User{}, err
	}
	if !found {
		return User{}, otherAppUser(u.ID)
	}
	return got, nil
}

// ErrOtherAppUser is EnsureUser's and OpenHandoff's answer for a user id
// that another app's user has: it is also ErrConflict.
var ErrOtherAppUser = errors.New("the user belongs to another app")

func otherAppUser(id string) error {
	return fmt.Errorf("user %s: %w (%w)", id, ErrOtherAppUser, ErrConflict)
}

// ensureUserStep is EnsureUser's statement; the user as stored goes to got
// and found. unlessClosed, when set, is a session id: a user is then
// neither inserted nor updated when that session is there and no longer
// active (OpenHandoff).
func (q queries) ensureUserStep(u User, zoneNamed bool, unlessClosed string, got *User, found *bool) (step, error) {
	name, err := q.sealText(u.App, "user:"+u.ID+":display_name", u.DisplayName)
	if err != nil {
		return step{}, err
	}
	args := []any{u.ID, u.App, name, u.Timezone, u.MemoryDisabled, u.CreatedAt, u.UpdatedAt, zoneNamed}
	cond := ""
	if unlessClosed != "" {
		// Only the update needs the condition: a user not there yet has
		// no session.
		args = append(args, unlessClosed)
		cond = " AND NOT EXISTS (SELECT 1 FROM mnemo_sessions WHERE id = $9 AND status <> 'active')"
	}
	return step{what: "ensure user", sql: `INSERT INTO mnemo_users (` + userCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET
			display_name = CASE WHEN excluded.display_name <> '' THEN excluded.display_name ELSE mnemo_users.display_name END,
			timezone = CASE WHEN excluded.timezone <> '' AND ($8 OR mnemo_users.timezone = '') THEN excluded.timezone ELSE mnemo_users.timezone END,
			updated_at = excluded.updated_at
		WHERE mnemo_users.app = excluded.app` + cond + `
		RETURNING ` + userCols, args: args, scan: func(r rows) (err error) {
		if *got, err = scanUser(r); err != nil {
			return err
		}
		*found = true
		*got, err = q.openUser(*got)
		return err
	}}, nil
}

// HandoffStart is what a handoff reads first (OpenHandoff).
type HandoffStart struct {
	Session Session // the session as it was, locked, when Found
	Found   bool
	User    User // the user as stored after the upsert; zero when the session was closed already
}

func (q queries) OpenHandoff(ctx context.Context, sessionID string, u User, zoneNamed bool) (HandoffStart, error) {
	var h HandoffStart
	userFound := false
	ensure, err := q.ensureUserStep(u, zoneNamed, sessionID, &h.User, &userFound)
	if err != nil {
		return HandoffStart{}, err
	}
	err = q.pipeline(ctx,
		step{what: "read session", sql: "SELECT " + sessionCols + " FROM mnemo_sessions WHERE id = $1 FOR UPDATE", args: []any{sessionID},
			scan: func(r rows) (err error) {
				h.Session, err = scanSession(r)
				h.Found = true
				return err
			}},
		ensure)
	switch {
	case err != nil:
		return HandoffStart{}, err
	case h.Found && h.Session.Status != StatusActive:
		return HandoffStart{Session: h.Session, Found: true}, nil // sent again: nothing written
	case userFound:
		return h, nil
	}
	// No user row: the user is another app's, or the session was closed
	// by a concurrent handoff between the two statements (Postgres reads
	// each with a snapshot of its own). Which, a second read says.
	if _, err := q.GetSessionForUpdate(ctx, sessionID); err == nil && !h.Found {
		return HandoffStart{}, fmt.Errorf("session %s closed by a concurrent handoff: %w", sessionID, ErrConflict)
	}
	return HandoffStart{}, otherAppUser(u.ID)
}

// --- sessions

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

// mustAffect turns "no row changed" into ErrNotFound.
func mustAffect(n int64, err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
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

// --- events

const eventCols = "session_id, seq, user_id, kind, at, message_id, data"

func scanEvent(r rows) (Event, error) {
	var e Event
	err := r.Scan(&e.SessionID, &e.Seq, &e.UserID, &e.Kind, scanTime{&e.At}, &e.MessageID, scanJSON{&e.Data})
	return e, err
}

func (q queries) InsertEvents(ctx context.Context, events []Event) error {
	steps, err := insertSteps("insert events", "INSERT INTO mnemo_session_events ("+eventCols+")", 7, len(events), func(i int) []any {
		e := events[i]
		return []any{e.SessionID, e.Seq, e.UserID, e.Kind, e.At, e.MessageID, jsonArg(e.Data, "{}")}
	}, "")
	if err != nil {
		return fmt.Errorf("insert events: %w", err)
	}
	return q.later(ctx, steps...)
}

// listEventsSQL lists a session's events ($1) in order.
const listEventsSQL = "SELECT " + eventCols + " FROM mnemo_session_events WHERE session_id = $1 ORDER BY seq"

func (q queries) ListEvents(ctx context.Context, sessionID string) ([]Event, error) {
	return queryAll(ctx, q, listEventsSQL, []any{sessionID}, scanEvent)
}

func (q queries) ListUserEvents(ctx context.Context, userID string, kinds []string, since time.Time) ([]Event, error) {
	all, err := queryAll(ctx, q, "SELECT "+eventCols+" FROM mnemo_session_events WHERE user_id = $1 AND at >= $2 ORDER BY at, session_id, seq",
		[]any{userID, since}, scanEvent)
	if err != nil || len(kinds) == 0 {
		return all, err
	}
	want := map[string]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	out := all[:0]
	for _, e := range all {
		if want[e.Kind] {
			out = append(out, e)
		}
	}
	return out, nil
}

// --- transcript chunks

const chunkCols = "session_id, seq, user_id, key_id, nonce, ciphertext, sha256, created_at"

func (q queries) InsertChunks(ctx context.Context, chunks []Chunk) error {
	steps, err := insertSteps("insert transcript chunks", "INSERT INTO mnemo_transcript_chunks ("+chunkCols+")", 8, len(chunks), func(i int) []any {
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

// --- summaries

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

// --- profiles

func (q queries) GetProfile(ctx context.Context, userID string) (Profile, error) {
	var p Profile
	err := q.queryOne(ctx, "SELECT user_id, app, doc, version, stated, updated_at FROM mnemo_profiles WHERE user_id = $1",
		[]any{userID}, func(r rows) (err error) {
			if err = r.Scan(&p.UserID, &p.App, scanJSON{&p.Doc}, &p.Version, scanJSON{&p.Stated}, scanTime{&p.UpdatedAt}); err != nil {
				return err
			}
			p.Doc, err = q.openJSON(p.App, "profile:"+p.UserID, p.Doc)
			return err
		})
	return p, err
}

func (q queries) SaveProfile(ctx context.Context, p Profile, c ProfileChange) error {
	// The history row's columns are sealed as the profile is, each bound to
	// its row and column.
	hist := fmt.Sprintf("profile_history:%s:%d:", p.UserID, p.Version)
	doc, err := q.sealJSON(p.App, "profile:"+p.UserID, json.RawMessage(jsonArg(p.Doc, "{}")))
	if err != nil {
		return err
	}
	hdoc, err := q.sealJSON(p.App, hist+"doc", json.RawMessage(jsonArg(p.Doc, "{}")))
	if err != nil {
		return err
	}
	if c.Changed, err = q.sealJSON(p.App, hist+"changed", json.RawMessage(jsonArg(c.Changed, "{}"))); err != nil {
		return err
	}
	if c.Older, err = q.sealJSON(p.App, hist+"older", json.RawMessage(jsonArg(c.Older, "{}"))); err != nil {
		return err
	}
	if c.Said, err = q.sealJSON(p.App, hist+"said", json.RawMessage(jsonArg(c.Said, "{}"))); err != nil {
		return err
	}
	p.Doc = doc // p is a copy: the caller's document stays plaintext
	var n int64
	if p.Version == 1 {
		n, err = q.e.exec(ctx, `INSERT INTO mnemo_profiles (user_id, app, doc, version, stated, updated_at) VALUES ($1, $2, $3, 1, $4, $5)
			ON CONFLICT (user_id) DO NOTHING`, p.UserID, p.App, jsonArg(p.Doc, "{}"), jsonArg(p.Stated, "{}"), p.UpdatedAt)
	} else {
		n, err = q.e.exec(ctx, "UPDATE mnemo_profiles SET doc = $2, version = $3, stated = $4, updated_at = $5 WHERE user_id = $1 AND version = $6",
			p.UserID, jsonArg(p.Doc, "{}"), p.Version, jsonArg(p.Stated, "{}"), p.UpdatedAt, p.Version-1)
	}
	if err != nil {
		return fmt.Errorf("save profile: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("save profile version %d: %w", p.Version, ErrConflict)
	}
	if _, err := q.e.exec(ctx, `INSERT INTO mnemo_profile_history (user_id, version, doc, changed, actor, session_id, at, stated_at, older, said)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, p.UserID, p.Version, jsonArg(hdoc, "{}"), jsonArg(c.Changed, "{}"), c.Actor, c.SessionID, c.At,
		statedOr(c.StatedAt, c.At), jsonArg(c.Older, "{}"), jsonArg(c.Said, "{}")); err != nil {
		return fmt.Errorf("record profile history: %w", err)
	}
	return nil
}

func (q queries) ListProfileHistory(ctx context.Context, userID string) ([]ProfileChange, error) {
	return queryAll(ctx, q, `SELECT h.user_id, h.version, h.doc, h.changed, h.actor, h.session_id, h.at, h.stated_at, h.older, h.said, u.app
		FROM mnemo_profile_history h JOIN mnemo_users u ON u.id = h.user_id WHERE h.user_id = $1 ORDER BY h.version`,
		[]any{userID}, func(r rows) (ProfileChange, error) {
			var c ProfileChange
			var app string
			err := r.Scan(&c.UserID, &c.Version, scanJSON{&c.Doc}, scanJSON{&c.Changed}, &c.Actor, &c.SessionID, scanTime{&c.At},
				scanTime{&c.StatedAt}, scanJSON{&c.Older}, scanJSON{&c.Said}, &app)
			hist := fmt.Sprintf("profile_history:%s:%d:", c.UserID, c.Version)
			for _, col := range []struct {
				name string
				v    *json.RawMessage
			}{{"doc", &c.Doc}, {"changed", &c.Changed}, {"older", &c.Older}, {"said", &c.Said}} {
				if err == nil {
					*col.v, err = q.openJSON(app, hist+col.name, *col.v)
				}
			}
			return c, err
		})
}

// --- memories

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

// statedOr is a statement time, or fallback when it is unknown.
func statedOr(t, fallback time.Time) time.Time {
	if t.IsZero() {
		return fallback
	}
	return t
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

const statementCols = `id, memory_id, user_id, key, value, category, importance, confidence, expires_at, stated_at,
	session_id, message_id, weight, event_date, wording, created_at`

func scanStatement(r rows) (Statement, error) {
	var s Statement
	err := r.Scan(&s.ID, &s.MemoryID, &s.UserID, &s.Key, &s.Value, &s.Category, &s.Importance, &s.Confidence,
		scanNullTime{&s.ExpiresAt}, scanTime{&s.StatedAt}, &s.SessionID, &s.MessageID, &s.Weight, &s.EventDate,
		&s.Wording, scanTime{&s.CreatedAt})
	return s, err
}

// statementOrder is the order ListStatements lists in.
const statementOrder = " ORDER BY stated_at, id"

func (q queries) ListStatements(ctx context.Context, userID string, keys []string) ([]Statement, error) {
	all, err := queryAll(ctx, q, "SELECT "+statementCols+" FROM mnemo_memory_statements WHERE user_id = $1"+statementOrder,
		[]any{userID}, scanStatement)
	return only(all, err, keys, func(s Statement) string { return s.Key })
}

// only keeps the rows whose name is one of names (all of them when names is
// empty): the filter of the List methods that take kinds or keys.
func only[T any](all []T, err error, names []string, name func(T) string) ([]T, error) {
	if err != nil || len(names) == 0 {
		return all, err
	}
	return slices.DeleteFunc(all, func(x T) bool { return !slices.Contains(names, name(x)) }), nil
}

func (q queries) InsertStatement(ctx context.Context, s Statement) error {
	_, err := q.e.exec(ctx, "INSERT INTO mnemo_memory_statements ("+statementCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		cmp.Or(s.ID, NewID()), s.MemoryID, s.UserID, s.Key, s.Value, s.Category, s.Importance, s.Confidence, s.ExpiresAt,
		s.StatedAt, s.SessionID, s.MessageID, max(s.Weight, 1), s.EventDate, s.Wording, s.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert memory statement: %w", err)
	}
	return nil
}

// statementRow is a statement's row, in statementCols' order.
func statementRow(s Statement) []any {
	return []any{cmp.Or(s.ID, NewID()), s.MemoryID, s.UserID, s.Key, s.Value, s.Category, s.Importance, s.Confidence, s.ExpiresAt,
		s.StatedAt, s.SessionID, s.MessageID, max(s.Weight, 1), s.EventDate, s.Wording, s.CreatedAt}
}

func (q queries) InsertStatements(ctx context.Context, ss []Statement) error {
	_, err := q.insertRows(ctx, "INSERT INTO mnemo_memory_statements ("+statementCols+")", 16, len(ss), func(i int) []any {
		return statementRow(ss[i])
	}, "")
	if err != nil {
		return fmt.Errorf("insert memory statements: %w", err)
	}
	return nil
}

func (q queries) MoveStatement(ctx context.Context, userID, id, memoryID string) error {
	return q.runStep(ctx, moveStatementStep(userID, id, memoryID))
}

// moveStatementStep is MoveStatement's statement, which must find the
// statement.
func moveStatementStep(userID, id, memoryID string) step {
	return step{what: "move memory statement", sql: "UPDATE mnemo_memory_statements SET memory_id = $3 WHERE user_id = $1 AND id = $2",
		args: []any{userID, id, memoryID}, want: 1}
}

func (q queries) InsertMemoryChange(ctx context.Context, c MemoryChange) error {
	_, err := q.e.exec(ctx, `INSERT INTO mnemo_memory_history (id, memory_id, user_id, action, actor, session_id, at, key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, cmp.Or(c.ID, NewID()), c.MemoryID, c.UserID, c.Action, c.Actor, c.SessionID, c.At, c.Key)
	if err != nil {
		return fmt.Errorf("record memory change: %w", err)
	}
	return nil
}

// memoryChangeRow is an audit row, in memoryChangeCols' order.
func memoryChangeRow(c MemoryChange) []any {
	return []any{cmp.Or(c.ID, NewID()), c.MemoryID, c.UserID, c.Action, c.Actor, c.SessionID, c.At, c.Key}
}

func (q queries) InsertMemoryChanges(ctx context.Context, cs []MemoryChange) error {
	_, err := q.insertRows(ctx, "INSERT INTO mnemo_memory_history ("+memoryChangeCols+")", 8, len(cs),
		func(i int) []any { return memoryChangeRow(cs[i]) }, "")
	if err != nil {
		return fmt.Errorf("record memory changes: %w", err)
	}
	return nil
}

func scanMemoryChange(r rows) (MemoryChange, error) {
	var c MemoryChange
	err := r.Scan(&c.ID, &c.MemoryID, &c.UserID, &c.Action, &c.Actor, &c.SessionID, scanTime{&c.At}, &c.Key)
	return c, err
}

func (q queries) ListMemoryChanges(ctx context.Context, userID string) ([]MemoryChange, error) {
	return queryAll(ctx, q, "SELECT id, memory_id, user_id, action, actor, session_id, at, key FROM mnemo_memory_history WHERE user_id = $1 ORDER BY at, id",
		[]any{userID}, scanMemoryChange)
}

// memoryChangeCols and memoryChangeOrder are what ListMemoryChanges lists, in its order.
const (
	memoryChangeCols  = "id, memory_id, user_id, action, actor, session_id, at, key"
	memoryChangeOrder = " ORDER BY at, id"
)

func (q queries) ListMemoryChangesOf(ctx context.Context, userID, action string) ([]MemoryChange, error) {
	if action == actionForget {
		return queryAll(ctx, q, "SELECT "+memoryChangeCols+" FROM mnemo_memory_history WHERE user_id = $1"+forgetsOnly+memoryChangeOrder,
			[]any{userID}, scanMemoryChange)
	}
	return queryAll(ctx, q, "SELECT "+memoryChangeCols+" FROM mnemo_memory_history WHERE user_id = $1 AND action = $2"+memoryChangeOrder,
		[]any{userID, action}, scanMemoryChange)
}

// actionForget is the action of a forget marker. forgetsOnly selects the
// markers with the action in the SQL's text: only then can the planners
// (Postgres's generic plans, SQLite's) use their partial index (0011).
const (
	actionForget = "forget"
	forgetsOnly  = " AND action = 'forget'"
)

// --- cues

func (q queries) InsertCue(ctx context.Context, c Cue) error {
	_, err := q.e.exec(ctx, `INSERT INTO mnemo_cues (id, user_id, app, kind, field, detail, session_id, created_at, resolved_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (session_id, kind, field) DO NOTHING`,
		cmp.Or(c.ID, NewID()), c.UserID, c.App, c.Kind, c.Field, jsonArg(c.Detail, "{}"), c.SessionID, c.CreatedAt, c.ResolvedAt)
	if err != nil {
		return fmt.Errorf("insert cue: %w", err)
	}
	return nil
}

func (q queries) ListCues(ctx context.Context, userID string, unresolvedOnly bool) ([]Cue, error) {
	sql := "SELECT id, user_id, app, kind, field, detail, session_id, created_at, resolved_at FROM mnemo_cues WHERE user_id = $1"
	if unresolvedOnly {
		sql += " AND resolved_at IS NULL"
	}
	return queryAll(ctx, q, sql+" ORDER BY created_at, id", []any{userID}, func(r rows) (Cue, error) {
		var c Cue
		err := r.Scan(&c.ID, &c.UserID, &c.App, &c.Kind, &c.Field, scanJSON{&c.Detail}, &c.SessionID, scanTime{&c.CreatedAt}, scanNullTime{&c.ResolvedAt})
		return c, err
	})
}

func (q queries) DeleteCues(ctx context.Context, userID string) (int64, error) {
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_cues WHERE user_id = $1", userID)
	if err != nil {
		return 0, fmt.Errorf("delete cues: %w", err)
	}
	return n, nil
}

// --- risk lowerings

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

// --- extraction runs

const runCols = `id, session_id, user_id, app, model, prompt_version, source, outcome, input_tokens, output_tokens,
	cost_usd, duration_ms, attempt, final, error, created_at`

func (q queries) InsertExtractionRun(ctx context.Context, r ExtractionRun) error {
	return q.runStep(ctx, insertRunStep(r))
}

// insertRunStep is InsertExtractionRun's statement.
func insertRunStep(r ExtractionRun) step {
	return step{what: "record extraction run", sql: "INSERT INTO mnemo_extraction_runs (" + runCols + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		args: []any{cmp.Or(r.ID, NewID()), r.SessionID, r.UserID, r.App, r.Model, r.PromptVersion, r.Source, r.Outcome, r.InputTokens,
			r.OutputTokens, r.CostUSD, r.DurationMS, r.Attempt, r.Final, r.Error, r.CreatedAt}}
}

func (q queries) ListExtractionRuns(ctx context.Context, sessionID string) ([]ExtractionRun, error) {
	return queryAll(ctx, q, "SELECT "+runCols+" FROM mnemo_extraction_runs WHERE session_id = $1 ORDER BY created_at, id",
		[]any{sessionID}, func(r rows) (ExtractionRun, error) {
			var x ExtractionRun
			err := r.Scan(&x.ID, &x.SessionID, &x.UserID, &x.App, &x.Model, &x.PromptVersion, &x.Source, &x.Outcome,
				&x.InputTokens, &x.OutputTokens, &x.CostUSD, &x.DurationMS, &x.Attempt, &x.Final, &x.Error, scanTime{&x.CreatedAt})
			return x, err
		})
}

func (q queries) SumExtractionCost(ctx context.Context, from, to time.Time) (float64, error) {
	var sum float64
	err := q.queryOne(ctx, "SELECT COALESCE(SUM(cost_usd), 0) FROM mnemo_extraction_runs WHERE created_at >= $1 AND created_at < $2",
		[]any{from, to}, func(r rows) error { return r.Scan(&sum) })
	return sum, err
}

// --- records

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

// --- rolling buffer and summaries

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
	// The unique (session_id, message_id) index answers each id.
	args := make([]any, 0, len(messageIDs)+1)
	args = append(args, sessionID)
	for _, id := range messageIDs {
		args = append(args, id)
	}
	known, err := queryAll(ctx, q, "SELECT message_id FROM mnemo_buffer WHERE session_id = $1 AND message_id IN ("+placeholders(2, len(messageIDs))+")",
		args, func(r rows) (string, error) {
			var id string
			return id, r.Scan(&id)
		})
	for _, id := range known {
		h.Known[id] = true
	}
	return h, err
}

const rollingCols = "session_id, user_id, app, summary, messages_covered, updated_at"

func scanRolling(r rows) (RollingSummary, error) {
	var s RollingSummary
	err := r.Scan(&s.SessionID, &s.UserID, &s.App, scanJSON{&s.Summary}, &s.MessagesCovered, scanTime{&s.UpdatedAt})
	return s, err
}

func (q queries) UpsertRollingSummary(ctx context.Context, s RollingSummary) (bool, error) {
	n, err := q.e.exec(ctx, "INSERT INTO mnemo_rolling_summaries ("+rollingCols+`) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary, messages_covered = excluded.messages_covered, updated_at = excluded.updated_at
		WHERE mnemo_rolling_summaries.messages_covered < excluded.messages_covered`,
		s.SessionID, s.UserID, s.App, jsonArg(s.Summary, "{}"), s.MessagesCovered, s.UpdatedAt)
	if err != nil {
		return false, fmt.Errorf("upsert rolling summary: %w", err)
	}
	return n > 0, nil
}

func (q queries) GetRollingSummary(ctx context.Context, sessionID string) (RollingSummary, error) {
	var s RollingSummary
	err := q.queryOne(ctx, "SELECT "+rollingCols+" FROM mnemo_rolling_summaries WHERE session_id = $1", []any{sessionID},
		func(r rows) (err error) { s, err = scanRolling(r); return err })
	return s, err
}

func (q queries) LatestRollingSummary(ctx context.Context, userID string) (RollingSummary, error) {
	var s RollingSummary
	err := q.queryOne(ctx, "SELECT "+rollingCols+" FROM mnemo_rolling_summaries WHERE user_id = $1 ORDER BY updated_at DESC, session_id DESC LIMIT 1",
		[]any{userID}, func(r rows) (err error) { s, err = scanRolling(r); return err })
	return s, err
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

// --- batch runs

const batchCols = "batch, period, scheduled_for, started_at, finished_at, rows_touched, outcome"

func scanBatchRun(r rows) (BatchRun, error) {
	var b BatchRun
	err := r.Scan(&b.Batch, &b.Period, scanTime{&b.ScheduledFor}, scanNullTime{&b.StartedAt}, scanNullTime{&b.FinishedAt}, &b.RowsTouched, &b.Outcome)
	return b, err
}

func (q queries) UpsertBatchRun(ctx context.Context, b BatchRun) error {
	_, err := q.e.exec(ctx, "INSERT INTO mnemo_batch_runs ("+batchCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (batch, period) DO UPDATE SET started_at = COALESCE(excluded.started_at, mnemo_batch_runs.started_at),
			finished_at = excluded.finished_at, rows_touched = excluded.rows_touched, outcome = excluded.outcome`,
		b.Batch, b.Period, b.ScheduledFor, b.StartedAt, b.FinishedAt, b.RowsTouched, cmp.Or(b.Outcome, "pending"))
	if err != nil {
		return fmt.Errorf("upsert batch run: %w", err)
	}
	return nil
}

func (q queries) GetBatchRun(ctx context.Context, batch, period string) (BatchRun, error) {
	var b BatchRun
	err := q.queryOne(ctx, "SELECT "+batchCols+" FROM mnemo_batch_runs WHERE batch = $1 AND period = $2",
		[]any{batch, period}, func(r rows) (err error) {
			b, err = scanBatchRun(r)
			return err
		})
	return b, err
}

func (q queries) ListBatchRuns(ctx context.Context, batch string, limit int) ([]BatchRun, error) {
	return queryAll(ctx, q, "SELECT "+batchCols+" FROM mnemo_batch_runs WHERE batch = $1 ORDER BY scheduled_for DESC LIMIT $2",
		[]any{batch, limit}, scanBatchRun)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// --- weekly analytics, listed per user

func (q queries) ListWeeks(ctx context.Context, userID, before string, limit int) ([]AggregateRow, error) {
	sql := "SELECT user_id, app, week_ending, data, updated_at FROM mnemo_weekly_analytics WHERE user_id = $1"
	args := []any{userID}
	if before != "" {
		sql += " AND week_ending < $2"
		args = append(args, before)
	}
	args = append(args, limit)
	sql += fmt.Sprintf(" ORDER BY week_ending DESC LIMIT $%d", len(args))
	rows, err := queryAll(ctx, q, sql, args, scanAggregate)
	if err != nil {
		return nil, fmt.Errorf("list weeks: %w", err)
	}
	return nonNil(rows), nil
}
