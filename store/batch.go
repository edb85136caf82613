package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// PageUser is a user of a session page, with their zone and profile.
type PageUser struct {
	ID       string
	Timezone string
	Profile  json.RawMessage
}

// PageSession is a session of a session page with its newest summary.
type PageSession struct {
	ID        string
	UserID    string
	StartedAt time.Time
	EndedAt   time.Time
	Summary   json.RawMessage
}

// SessionPage is one bounded page of an app's sessions that ended in a window,
// for a contiguous range of users: every session and event of each user in
// the page, so that a user is never split across pages.
type SessionPage struct {
	Users    []PageUser
	Sessions []PageSession // by user, then end
	Events   []Event       // by user, session, seq
	// Last is the last user id of the page; pass it as after for the next page.
	Last string
}

// AggregateRow is an aggregate of one user (weekly analytics, trends).
type AggregateRow struct {
	UserID     string
	App        string
	WeekEnding string // weekly analytics only
	Data       json.RawMessage
	UpdatedAt  time.Time
}

// Insight is the anonymised aggregate of one app and week.
type Insight struct {
	App        string
	WeekEnding string
	Data       json.RawMessage
	UpdatedAt  time.Time
}

// Batcher is what the scheduled batches read and write: bounded pages and
// set-based statements, never one query per user.
type Batcher interface {
	// PageSessions returns up to limit users (ids after after) with sessions
	// of app that ended in [from, to), with all those sessions and events.
	PageSessions(ctx context.Context, app string, from, to time.Time, after string, limit int) (SessionPage, error)
	// UpsertWeekly writes weekly analytics rows in one statement per row, in one transaction.
	UpsertWeekly(ctx context.Context, rows []AggregateRow) error
	// GetWeekly reads a user's weekly analytics row of the week ending weekEnding
	// (YYYY-MM-DD); ErrNotFound when that week was not computed.
	GetWeekly(ctx context.Context, userID, weekEnding string) (AggregateRow, error)
	// PageWeekly streams an app's weekly rows of one week by user: up to
	// p.Limit rows of users after p.After, by user id; empty after the last.
	PageWeekly(ctx context.Context, p WeeklyPage) ([]AggregateRow, error)
	// UpsertTrends writes each user's trends row (one per user; WeekEnding is
	// ignored), replacing the one stored, in one statement per row.
	UpsertTrends(ctx context.Context, rows []AggregateRow) error
	// GetTrends reads a user's trends row (WeekEnding empty); ErrNotFound when
	// none was computed.
	GetTrends(ctx context.Context, userID string) (AggregateRow, error)
	// UpsertInsight writes an app's supervisor insight of one week, replacing
	// the one of the same app and week.
	UpsertInsight(ctx context.Context, in Insight) error
	// GetInsight reads an app's insight of the week ending weekEnding;
	// ErrNotFound when there is none.
	GetInsight(ctx context.Context, app, weekEnding string) (Insight, error)

	// ExpireMemories marks up to limit active memories whose expiry has passed
	// as expired, with an audit row each, and returns how many.
	ExpireMemories(ctx context.Context, now time.Time, limit int) (int64, error)
	// ExpireMemoriesAfter is one page of a keyset sweep: ExpireMemories of
	// the memories after key in order of (expiry, id), returning the key of
	// the last it took (key when none), the next page's key.
	ExpireMemoriesAfter(ctx context.Context, now time.Time, key SweepKey, limit int) (int64, SweepKey, error)
	// DeleteBufferBefore deletes up to limit buffered turns older than cutoff.
	DeleteBufferBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error)
	// ExpireTranscripts deletes the transcripts of up to limit sessions whose
	// retention ended and returns how many sessions lost theirs.
	ExpireTranscripts(ctx context.Context, now time.Time, limit int) (int64, error)
	// ExpireTranscriptsAfter is one page of a keyset sweep: ExpireTranscripts
	// of the sessions after key in order of (retention end, id), returning
	// the key of the last it took (key when none).
	ExpireTranscriptsAfter(ctx context.Context, now time.Time, key SweepKey, limit int) (int64, SweepKey, error)
	// IdleSessions lists up to limit active sessions without activity since before.
	IdleSessions(ctx context.Context, before time.Time, limit int) ([]Session, error)
	// PageRecords streams records of one kind of an app, by user and key: up
	// to p.Limit records after (p.AfterUser, p.AfterKey); empty after the
	// last. In a transaction it locks them (Postgres) so a concurrent
	// session's write is never overwritten by a batch that read before it.
	PageRecords(ctx context.Context, p RecordPage) ([]Record, error)
	// DeleteOlder deletes up to limit bookkeeping rows older than cutoff from
	// one of: extraction_runs, batch_runs, memory_history, inactive_memories.
	DeleteOlder(ctx context.Context, what string, cutoff time.Time, limit int) (int64, error)
	// DeleteOlderAfter is one page of a retention sweep: DeleteOlder of the
	// rows after key in order of (age, id), returning the key of the last
	// it deleted (key when none), the next page's key.
	DeleteOlderAfter(ctx context.Context, what string, cutoff time.Time, key SweepKey, limit int) (int64, SweepKey, error)
	// LazyCommit lets the transaction it is called in commit without
	// waiting for its write-ahead log to reach the disk (on Postgres
	// synchronous_commit off for that transaction alone; outside a
	// transaction, and on SQLite, it does nothing). A crash may then lose
	// the last such commits, never half of one: only for work that is
	// idempotent and is run again after a crash, as the sweeps are.
	LazyCommit(ctx context.Context) error

	// MarkDirty marks the ledger periods a late change touches as dirty:
	// those of m.Batch that have started (a period not yet started will read
	// the change anyway), narrowed by m's fields. It returns how many.
	MarkDirty(ctx context.Context, m DirtyMark) (int64, error)
	// MarkDirtyAll makes the marks of ms, in order, without saying how
	// many periods each marked: in a Postgres transaction they go with its
	// next round trip (a handoff's COMMIT) instead of one round trip each.
	MarkDirtyAll(ctx context.Context, ms []DirtyMark) error
	// DirtySeq is how many times a period has been marked (0 when it never
	// was or is not in the ledger). A run reads it before it reads its input.
	DirtySeq(ctx context.Context, batch, period string) (int64, error)
	// ClearDirty clears a period's marks up to seq, the count its run read
	// at its start; a mark made since stays.
	ClearDirty(ctx context.Context, batch, period string, seq int64) error
	// ListDirty lists up to limit dirty periods of a batch, oldest first.
	ListDirty(ctx context.Context, batch string, limit int) ([]DirtyPeriod, error)
	// ReportStale records that a dirty period beyond its catch-up window was
	// reported with its marks up to seq.
	ReportStale(ctx context.Context, batch, period string, seq int64) error
	// UnprocessedSessions reports whether a session of app that ended in
	// [from, to) is closed or expired and not yet processed.
	UnprocessedSessions(ctx context.Context, app string, from, to time.Time) (bool, error)

	// SetBatchSkips records, on a period's ledger row, the users its run
	// skipped because it could not read their data; a run records its own
	// (zero when it skipped none), replacing an earlier run's.
	SetBatchSkips(ctx context.Context, batch, period string, s BatchSkips) error
	// GetBatchSkips reads what SetBatchSkips recorded (zero when nothing was
	// or the period is not in the ledger).
	GetBatchSkips(ctx context.Context, batch, period string) (BatchSkips, error)
}

// WeeklyPage is one page of PageWeekly: an app's rows of the week ending
// WeekEnding (YYYY-MM-DD), of users after After ("" for the first page).
type WeeklyPage struct {
	App        string
	WeekEnding string
	After      string
	Limit      int
}

// RecordPage is one page of PageRecords: an app's records of one kind after
// the record (AfterUser, AfterKey); both "" for the first page.
type RecordPage struct {
	App       string
	Type      string
	AfterUser string
	AfterKey  string
	Limit     int
}

// BatchSkips are the users one batch run skipped, by reason. A reason names
// what could not be read ("event", "profile", …), never a user or a value.
type BatchSkips struct {
	Skipped int64
	Reasons map[string]int64
}

// DirtyMark selects the ledger periods of one batch that a late change
// touches.
type DirtyMark struct {
	Batch string
	// Period, when set, selects that period only.
	Period string
	// After, when set, selects only periods scheduled after it.
	After time.Time
	// Latest selects only the newest of the periods otherwise selected.
	Latest bool
	// At and Reason say when and why; Reason names a cause, never a user.
	At     time.Time
	Reason string
}

// DirtyPeriod is a period of the ledger whose input changed after it ran.
type DirtyPeriod struct {
	Batch        string
	Period       string
	ScheduledFor time.Time
	// Outcome is the ledger outcome of the period's last run.
	Outcome string
	// Seq is how many times the period was marked; a run that read Seq at
	// its start clears them.
	Seq int64
	// Reported is true when the period was reported stale at Seq.
	Reported bool
	// MarkedAt is the first mark not yet cleared; Reason is the newest.
	MarkedAt *time.Time
	Reason   string
}

func (q queries) MarkDirty(ctx context.Context, m DirtyMark) (int64, error) {
	s := dirtyStep(m)
	n, err := q.e.exec(ctx, s.sql, s.args...)
	if err != nil {
		return 0, wrapStep(s, err)
	}
	return n, nil
}

func (q queries) MarkDirtyAll(ctx context.Context, ms []DirtyMark) error {
	steps := make([]step, len(ms))
	for i, m := range ms {
		steps[i] = dirtyStep(m)
	}
	return q.later(ctx, steps...)
}

// dirtyStep is MarkDirty's statement.
func dirtyStep(m DirtyMark) step {
	args := []any{m.Batch, m.At, m.Reason}
	where := "batch = $1 AND started_at IS NOT NULL"
	if m.Period != "" {
		args = append(args, m.Period)
		where += fmt.Sprintf(" AND period = $%d", len(args))
	}
	if !m.After.IsZero() {
		args = append(args, m.After)
		where += fmt.Sprintf(" AND scheduled_for > $%d", len(args))
	}
	// dirty_at keeps the first mark not yet cleared: how long the period has been dirty.
	sql := `UPDATE mnemo_batch_runs SET dirty_seq = dirty_seq + 1, dirty_reason = $3,
		dirty_at = CASE WHEN dirty_seq > clean_seq AND dirty_at IS NOT NULL THEN dirty_at ELSE $2 END WHERE ` + where
	if m.Latest {
		sql += " AND scheduled_for = (SELECT max(scheduled_for) FROM mnemo_batch_runs WHERE " + where + ")"
	}
	return step{what: "mark " + m.Batch + " dirty", sql: sql, args: args}
}

func (q queries) DirtySeq(ctx context.Context, batch, period string) (int64, error) {
	seqs, err := queryAll(ctx, q, "SELECT dirty_seq FROM mnemo_batch_runs WHERE batch = $1 AND period = $2", []any{batch, period},
		func(r rows) (int64, error) {
			var n int64
			return n, r.Scan(&n)
		})
	if err != nil || len(seqs) == 0 {
		return 0, err
	}
	return seqs[0], nil
}

func (q queries) ClearDirty(ctx context.Context, batch, period string, seq int64) error {
	if _, err := q.e.exec(ctx, "UPDATE mnemo_batch_runs SET clean_seq = $3 WHERE batch = $1 AND period = $2 AND clean_seq < $3",
		batch, period, seq); err != nil {
		return fmt.Errorf("clear dirty %s %s: %w", batch, period, err)
	}
	return nil
}

func (q queries) ListDirty(ctx context.Context, batch string, limit int) ([]DirtyPeriod, error) {
	return queryAll(ctx, q, `SELECT batch, period, scheduled_for, outcome, dirty_seq, stale_seq, dirty_at, dirty_reason FROM mnemo_batch_runs
		WHERE batch = $1 AND dirty_seq > clean_seq ORDER BY scheduled_for LIMIT $2`, []any{batch, limit}, func(r rows) (DirtyPeriod, error) {
		var d DirtyPeriod
		var stale int64
		err := r.Scan(&d.Batch, &d.Period, scanTime{&d.ScheduledFor}, &d.Outcome, &d.Seq, &stale, scanNullTime{&d.MarkedAt}, &d.Reason)
		d.Reported = stale >= d.Seq
		return d, err
	})
}

func (q queries) ReportStale(ctx context.Context, batch, period string, seq int64) error {
	if _, err := q.e.exec(ctx, "UPDATE mnemo_batch_runs SET stale_seq = $3 WHERE batch = $1 AND period = $2 AND stale_seq < $3",
		batch, period, seq); err != nil {
		return fmt.Errorf("report stale %s %s: %w", batch, period, err)
	}
	return nil
}

func (q queries) UnprocessedSessions(ctx context.Context, app string, from, to time.Time) (bool, error) {
	ids, err := queryAll(ctx, q, `SELECT id FROM mnemo_sessions WHERE app = $1 AND ended_at >= $2 AND ended_at < $3
		AND status IN ('closed', 'expired') LIMIT 1`, []any{app, from, to}, func(r rows) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
	return len(ids) > 0, err
}

func (q queries) PageSessions(ctx context.Context, app string, from, to time.Time, after string, limit int) (SessionPage, error) {
	var p SessionPage
	ids, err := queryAll(ctx, q, `SELECT DISTINCT user_id FROM mnemo_sessions WHERE app = $1 AND ended_at >= $2 AND ended_at < $3 AND user_id > $4
		ORDER BY user_id LIMIT $5`, []any{app, from, to, after, limit}, func(r rows) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
	if err != nil || len(ids) == 0 {
		return p, err
	}
	first, last := ids[0], ids[len(ids)-1]
	p.Last = last
	p.Users, err = queryAll(ctx, q, `SELECT u.id, u.timezone, COALESCE(p.doc, '{}') FROM mnemo_users u LEFT JOIN mnemo_profiles p ON p.user_id = u.id
		WHERE u.id >= $1 AND u.id <= $2 AND u.app = $3 ORDER BY u.id`, []any{first, last, app}, func(r rows) (PageUser, error) {
		var u PageUser
		return u, r.Scan(&u.ID, &u.Timezone, scanJSON{&u.Profile})
	})
	if err != nil {
		return p, err
	}
	sessions, err := queryAll(ctx, q, `SELECT s.id, s.user_id, s.started_at, s.ended_at, COALESCE(sm.data, 'null')
		FROM mnemo_sessions s LEFT JOIN mnemo_session_summaries sm ON sm.session_id = s.id
		WHERE s.app = $1 AND s.user_id >= $2 AND s.user_id <= $3 AND s.ended_at >= $4 AND s.ended_at < $5
		ORDER BY s.user_id, s.ended_at, s.id, sm.created_at`, []any{app, first, last, from, to}, func(r rows) (PageSession, error) {
		var s PageSession
		return s, r.Scan(&s.ID, &s.UserID, scanTime{&s.StartedAt}, scanTime{&s.EndedAt}, scanJSON{&s.Summary})
	})
	if err != nil {
		return p, err
	}
	// A session summarised under several prompt versions keeps its newest summary.
	for _, s := range sessions {
		if n := len(p.Sessions); n > 0 && p.Sessions[n-1].ID == s.ID {
			p.Sessions[n-1] = s
			continue
		}
		p.Sessions = append(p.Sessions, s)
	}
	p.Events, err = queryAll(ctx, q, `SELECT e.session_id, e.seq, e.user_id, e.kind, e.at, e.message_id, e.data
		FROM mnemo_session_events e JOIN mnemo_sessions s ON s.id = e.session_id
		WHERE s.app = $1 AND s.user_id >= $2 AND s.user_id <= $3 AND s.ended_at >= $4 AND s.ended_at < $5
		ORDER BY e.user_id, e.session_id, e.seq`, []any{app, first, last, from, to}, scanEvent)
	return p, err
}

func (q queries) upsertAggregates(ctx context.Context, sql string, rows []AggregateRow, weekly bool) error {
	for _, r := range rows {
		args := []any{r.UserID, r.App, jsonArg(r.Data, "{}"), r.UpdatedAt}
		if weekly {
			args = append(args, r.WeekEnding)
		}
		if _, err := q.e.exec(ctx, sql, args...); err != nil {
			return err
		}
	}
	return nil
}

func (q queries) UpsertWeekly(ctx context.Context, rows []AggregateRow) error {
	err := q.upsertAggregates(ctx, `INSERT INTO mnemo_weekly_analytics (user_id, app, data, updated_at, week_ending) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (user_id, week_ending) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`, rows, true)
	if err != nil {
		return fmt.Errorf("upsert weekly analytics: %w", err)
	}
	return nil
}

func scanAggregate(r rows) (AggregateRow, error) {
	var a AggregateRow
	return a, r.Scan(&a.UserID, &a.App, &a.WeekEnding, scanJSON{&a.Data}, scanTime{&a.UpdatedAt})
}

func (q queries) GetWeekly(ctx context.Context, userID, weekEnding string) (AggregateRow, error) {
	var a AggregateRow
	err := q.queryOne(ctx, "SELECT user_id, app, week_ending, data, updated_at FROM mnemo_weekly_analytics WHERE user_id = $1 AND week_ending = $2",
		[]any{userID, weekEnding}, func(r rows) (err error) { a, err = scanAggregate(r); return err })
	return a, err
}

func (q queries) PageWeekly(ctx context.Context, p WeeklyPage) ([]AggregateRow, error) {
	return queryAll(ctx, q, `SELECT user_id, app, week_ending, data, updated_at FROM mnemo_weekly_analytics
		WHERE app = $1 AND week_ending = $2 AND user_id > $3 ORDER BY user_id LIMIT $4`, []any{p.App, p.WeekEnding, p.After, p.Limit}, scanAggregate)
}

func (q queries) UpsertTrends(ctx context.Context, rows []AggregateRow) error {
	err := q.upsertAggregates(ctx, `INSERT INTO mnemo_trends (user_id, app, data, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (user_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`, rows, false)
	if err != nil {
		return fmt.Errorf("upsert trends: %w", err)
	}
	return nil
}

func (q queries) GetTrends(ctx context.Context, userID string) (AggregateRow, error) {
	var a AggregateRow
	err := q.queryOne(ctx, "SELECT user_id, app, '', data, updated_at FROM mnemo_trends WHERE user_id = $1",
		[]any{userID}, func(r rows) (err error) { a, err = scanAggregate(r); return err })
	return a, err
}

func (q queries) UpsertInsight(ctx context.Context, in Insight) error {
	_, err := q.e.exec(ctx, `INSERT INTO mnemo_insights (app, week_ending, data, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (app, week_ending) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
		in.App, in.WeekEnding, jsonArg(in.Data, "{}"), in.UpdatedAt)
	if err != nil {
		return fmt.Errorf("upsert insight: %w", err)
	}
	return nil
}

func (q queries) GetInsight(ctx context.Context, app, weekEnding string) (Insight, error) {
	var in Insight
	err := q.queryOne(ctx, "SELECT app, week_ending, data, updated_at FROM mnemo_insights WHERE app = $1 AND week_ending = $2",
		[]any{app, weekEnding}, func(r rows) error {
			return r.Scan(&in.App, &in.WeekEnding, scanJSON{&in.Data}, scanTime{&in.UpdatedAt})
		})
	return in, err
}

// placeholders returns "$from, $from+1, …" for n arguments.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

// SweepKey is where one page of a keyset sweep ended: the due time and id
// of the last row it took. The next page continues after it, so that no
// page walks the index entries that earlier pages left behind (dead until a
// vacuum). The zero key starts a sweep.
type SweepKey struct {
	At time.Time
	ID string
}

// IsZero reports whether k starts a sweep.
func (k SweepKey) IsZero() bool { return k.At.IsZero() && k.ID == "" }

// afterKey is the keyset condition of a sweep over (at, id) after k, with
// k's parameters numbered from n; empty for the zero key.
func afterKey(at string, k SweepKey, n int) (string, []any) {
	if k.IsZero() {
		return "", nil
	}
	return fmt.Sprintf(" AND (%s, id) > ($%d, $%d)", at, n, n+1), []any{k.At, k.ID}
}

func (q queries) ExpireMemories(ctx context.Context, now time.Time, limit int) (int64, error) {
	n, _, err := q.ExpireMemoriesAfter(ctx, now, SweepKey{}, limit)
	return n, err
}

// ExpireMemoriesAfter is set-based: on Postgres one statement per page (the
// pick, the update, and the audit rows inserted from its RETURNING, their
// ids a parameter array made in Go so that they stay time-ordered, joined
// to the rows by ordinal: subscripting the array, ($3)[n], walks it from
// its start for each row, as an array of text has no offsets, which made a
// page of 10,000 spend 150 ms on the ids alone); on
// SQLite, which has no data-modifying WITH, the update's RETURNING then one
// INSERT … SELECT of the audit rows from a JSON array, two statements per
// page whatever its size. A page takes the due memories after key in order
// of (expires_at, id), through mnemo_memories_expiry_key_idx, and returns
// the key of the last it took. On Postgres the page's rows are updated by
// their physical address (ctid = ANY, a TID scan): "id IN (…)" had
// Postgres hash-join the page against the whole table. The page's
// condition is checked again, so that on a partitioned table a row of
// another partition at the same address is expired only if it is due as
// well (a page may then hold a few more); its status as an expression
// (status || ”), which the partial indexes' predicate does not match: with
// the plain column the planner may take the partial index for the update
// and filter it whole by address (seen for the inactive memories' delete:
// 1,523 rows/s, against 69 k with the TID scan).
func (q queries) ExpireMemoriesAfter(ctx context.Context, now time.Time, key SweepKey, limit int) (int64, SweepKey, error) {
	ids := make([]string, limit)
	for i := range ids {
		ids[i] = NewID()
	}
	after, keyArgs := afterKey("expires_at", key, 4)
	pick := `SELECT %s FROM mnemo_memories WHERE status = 'active' AND expires_at <= $1` + after + ` ORDER BY expires_at, id LIMIT $2`
	if q.e.dialect() == DialectPostgres {
		return q.keysetPage(ctx, "expire memories", `WITH picked AS MATERIALIZED (`+fmt.Sprintf(pick, "ctid, expires_at, id")+` FOR UPDATE SKIP LOCKED),
			expired AS (
				UPDATE mnemo_memories SET status = 'expired', updated_at = $1
				WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND status || '' = 'active' AND expires_at <= $1
				RETURNING id, user_id),
			numbered AS (SELECT id, user_id, row_number() OVER (ORDER BY id) AS n FROM expired),
			audit AS (INSERT INTO mnemo_memory_history (id, memory_id, user_id, action, actor, session_id, at)
				SELECT a.hid, e.id, e.user_id, 'expire', 'ttl', '', $1
				FROM numbered e JOIN unnest($3::text[]) WITH ORDINALITY AS a(hid, n) ON a.n = e.n)
			`+keysetAnswer("expired", "expires_at"), append([]any{now, limit, ids}, keyArgs...), key)
	}
	type expired struct {
		id, user string
		at       time.Time
	}
	got, err := queryAll(ctx, q, `UPDATE mnemo_memories SET status = 'expired', updated_at = $1
		WHERE id IN (`+fmt.Sprintf(pick, "id")+`) RETURNING id, user_id, expires_at`, append([]any{now, limit, nil}, keyArgs...), func(r rows) (expired, error) {
		var e expired
		return e, r.Scan(&e.id, &e.user, scanTime{&e.at})
	})
	if err != nil || len(got) == 0 {
		return 0, key, err
	}
	next := key
	triples := make([][3]string, len(got))
	for i, e := range got {
		triples[i] = [3]string{ids[i], e.id, e.user}
		if k := (SweepKey{e.at, e.id}); k.after(next) {
			next = k
		}
	}
	doc, err := json.Marshal(triples)
	if err != nil {
		return 0, key, err
	}
	if _, err := q.e.exec(ctx, `INSERT INTO mnemo_memory_history (id, memory_id, user_id, action, actor, session_id, at)
		SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), 'expire', 'ttl', '', $1
		FROM json_each($2)`, now, string(doc)); err != nil {
		return 0, key, fmt.Errorf("audit expired memories: %w", err)
	}
	return int64(len(got)), next, nil
}

// keysetAnswer ends a Postgres page statement whose CTE picked holds the
// rows it picked (with column at and id) and whose CTE taken the rows it
// changed: how many it changed, and the key of the last it picked (an
// empty id when it picked none), $1 standing for the time when none.
func keysetAnswer(taken, at string) string {
	return fmt.Sprintf(`SELECT (SELECT count(*) FROM %[1]s), coalesce(max(%[2]s), $1),
		coalesce(max(id) FILTER (WHERE %[2]s = (SELECT max(%[2]s) FROM picked)), '') FROM picked`, taken, at)
}

// keysetPage runs one page of a keyset sweep on Postgres, a statement
// ending in keysetAnswer, and returns the rows it changed and the next
// page's key: key when it picked none.
func (q queries) keysetPage(ctx context.Context, what, sql string, args []any, key SweepKey) (int64, SweepKey, error) {
	var n int64
	var next SweepKey
	if err := q.queryOne(ctx, sql, args, func(r rows) error { return r.Scan(&n, scanTime{&next.At}, &next.ID) }); err != nil {
		return 0, key, fmt.Errorf("%s: %w", what, err)
	}
	if next.ID == "" {
		next = key
	}
	return n, next, nil
}

// after reports whether k comes after o in a sweep's order.
func (k SweepKey) after(o SweepKey) bool {
	if !k.At.Equal(o.At) {
		return k.At.After(o.At)
	}
	return k.ID > o.ID
}

func (q queries) DeleteBufferBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	n, err := q.e.exec(ctx, `DELETE FROM mnemo_buffer WHERE (session_id, seq) IN
		(SELECT session_id, seq FROM mnemo_buffer WHERE created_at < $1 ORDER BY created_at LIMIT $2)`, cutoff, limit)
	if err != nil {
		return 0, fmt.Errorf("delete buffer: %w", err)
	}
	return n, nil
}

func (q queries) ExpireTranscripts(ctx context.Context, now time.Time, limit int) (int64, error) {
	n, _, err := q.ExpireTranscriptsAfter(ctx, now, SweepKey{}, limit)
	return n, err
}

// LazyCommit queues SET LOCAL with the transaction's next statement: no
// round trip of its own. SQLite needs nothing: the store opens it with
// synchronous=NORMAL in WAL mode, where a commit does not wait for a sync
// either (the WAL is synced at checkpoints).
func (q queries) LazyCommit(ctx context.Context) error {
	if q.lazyTx() == nil {
		return nil
	}
	return q.later(ctx, step{what: "lazy commit", sql: "SET LOCAL synchronous_commit = off"})
}

// ExpireTranscriptsAfter takes the sessions whose retention ended after key,
// in order of (retain_until, id) through mnemo_sessions_retain_key_idx, and
// returns the key of the last it took. On Postgres one statement a page
// (the pick, the sessions' update by physical address as in
// ExpireMemoriesAfter, and the delete of their chunks from the update's
// RETURNING), so that a page of any size is one round trip and no list of
// parameters; on SQLite three.
func (q queries) ExpireTranscriptsAfter(ctx context.Context, now time.Time, key SweepKey, limit int) (int64, SweepKey, error) {
	after, keyArgs := afterKey("retain_until", key, 3)
	if q.e.dialect() == DialectPostgres {
		return q.keysetPage(ctx, "expire transcripts", `WITH picked AS MATERIALIZED (SELECT ctid, retain_until, id FROM mnemo_sessions
				WHERE transcript_retained AND retain_until <= $1`+after+` ORDER BY retain_until, id LIMIT $2 FOR UPDATE SKIP LOCKED),
			taken AS (UPDATE mnemo_sessions SET transcript_retained = false, retain_until = NULL, updated_at = $1
				WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND transcript_retained AND retain_until <= $1
				RETURNING id),
			chunks AS (DELETE FROM mnemo_transcript_chunks WHERE session_id = ANY(ARRAY(SELECT id FROM taken)))
			`+keysetAnswer("taken", "retain_until"), append([]any{now, limit}, keyArgs...), key)
	}
	type taken struct {
		id string
		at time.Time
	}
	// The pick, then the update by id: an update's RETURNING would read
	// retain_until after it was cleared.
	got, err := queryAll(ctx, q, `SELECT id, retain_until FROM mnemo_sessions WHERE transcript_retained AND retain_until <= $1`+after+`
		ORDER BY retain_until, id LIMIT $2 FOR UPDATE SKIP LOCKED`, append([]any{now, limit}, keyArgs...), func(r rows) (taken, error) {
		var t taken
		return t, r.Scan(&t.id, scanTime{&t.at})
	})
	if err != nil || len(got) == 0 {
		return 0, key, err
	}
	next := SweepKey{got[len(got)-1].at, got[len(got)-1].id}
	args := make([]any, len(got))
	for i, t := range got {
		args[i] = t.id
	}
	if _, err := q.e.exec(ctx, "UPDATE mnemo_sessions SET transcript_retained = false, retain_until = NULL, updated_at = $1 WHERE id IN ("+
		placeholders(2, len(got))+")", append([]any{now}, args...)...); err != nil {
		return 0, key, fmt.Errorf("expire transcripts: %w", err)
	}
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_transcript_chunks WHERE session_id IN ("+placeholders(1, len(got))+")", args...); err != nil {
		return 0, key, fmt.Errorf("delete expired transcripts: %w", err)
	}
	return int64(len(got)), next, nil
}

func (q queries) IdleSessions(ctx context.Context, before time.Time, limit int) ([]Session, error) {
	return queryAll(ctx, q, "SELECT "+sessionCols+" FROM mnemo_sessions WHERE status = 'active' AND updated_at < $1 ORDER BY updated_at LIMIT $2",
		[]any{before, limit}, scanSession)
}

func (q queries) PageRecords(ctx context.Context, p RecordPage) ([]Record, error) {
	return queryAll(ctx, q, `SELECT user_id, app, kind, key, data, session_id, updated_at FROM mnemo_records
		WHERE app = $1 AND kind = $2 AND (user_id > $3 OR (user_id = $3 AND key > $4)) ORDER BY user_id, key LIMIT $5 FOR UPDATE`,
		[]any{p.App, p.Type, p.AfterUser, p.AfterKey, p.Limit}, func(r rows) (Record, error) {
			var x Record
			return x, r.Scan(&x.UserID, &x.App, &x.Type, &x.Key, scanJSON{&x.Data}, &x.SessionID, scanTime{&x.UpdatedAt})
		})
}

// retentionTargets are the bookkeeping rows retention may delete, with the
// key and age columns that bound each batch; keyed targets (an id column,
// and an index on (age, id)) are swept by keyset.
var retentionTargets = map[string]struct {
	table, key, at, where, recheck string
	keyed                          bool
}{
	"extraction_runs":   {"mnemo_extraction_runs", "id", "created_at", "", "", true},
	"batch_runs":        {"mnemo_batch_runs", "batch || '/' || period", "scheduled_for", "", "", false},
	"memory_history":    {"mnemo_memory_history", "id", "at", "", "", true},
	"inactive_memories": {"mnemo_memories", "id", "updated_at", " AND status <> 'active'", " AND status || '' <> 'active'", true},
}

func (q queries) DeleteOlder(ctx context.Context, what string, cutoff time.Time, limit int) (int64, error) {
	n, _, err := q.DeleteOlderAfter(ctx, what, cutoff, SweepKey{}, limit)
	return n, err
}

// DeleteOlderAfter is one page of retention: it deletes up to limit rows of
// what older than cutoff, after key in order of (age, id) through the index
// on both, and returns the key of the last it deleted: the next page's, so
// that it does not walk the entries of the rows this page deleted (dead
// until a vacuum); a sweep writes its audit rows with one time, so the id
// is needed to move past rows of the same age. The ledger (batch_runs, a
// few rows a day) has no id and is not keyed: its key stays zero.
// One statement per page on both. On Postgres the page's rows are found by
// their physical address (ctid = ANY: a TID scan whatever the statistics
// say), not by a key join the planner may make a hash join over the whole
// table; the age is checked again, so that on a partitioned table a row of
// another partition at the same address goes only if it is as old (a page
// may then delete a few more). The recheck names a status as an
// expression (see ExpireMemoriesAfter): with the plain column, the planner
// took the partial index of inactive memories for the delete and filtered
// it whole by address, 1,523 rows/s.
func (q queries) DeleteOlderAfter(ctx context.Context, what string, cutoff time.Time, key SweepKey, limit int) (int64, SweepKey, error) {
	t, ok := retentionTargets[what]
	if !ok {
		return 0, key, fmt.Errorf("retention: unknown target %q", what)
	}
	args := []any{cutoff, limit}
	where, order, keyCols := t.where, t.at, t.key
	if t.keyed {
		after, keyArgs := afterKey(t.at, key, 3)
		where += after
		args = append(args, keyArgs...)
		order += ", id"
	} else {
		keyCols = "''"
	}
	if q.e.dialect() == DialectPostgres {
		// An unkeyed target's id is '': its key stays zero.
		return q.keysetPage(ctx, "retention "+what, fmt.Sprintf(`WITH picked AS MATERIALIZED (SELECT ctid, %[2]s AS at, %[5]s AS id FROM %[1]s WHERE %[2]s < $1%[3]s ORDER BY %[4]s LIMIT $2),
			deleted AS (DELETE FROM %[1]s WHERE ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND %[2]s < $1%[6]s RETURNING 1)
			`, t.table, t.at, where, order, keyCols, t.recheck)+keysetAnswer("deleted", "at"), args, key)
	}
	type row struct {
		at time.Time
		id string
	}
	got, err := queryAll(ctx, q, fmt.Sprintf("DELETE FROM %[1]s WHERE %[2]s IN (SELECT %[2]s FROM %[1]s WHERE %[3]s < $1%[4]s ORDER BY %[5]s LIMIT $2) RETURNING %[3]s, %[6]s",
		t.table, t.key, t.at, where, order, keyCols), args, func(r rows) (row, error) {
		var x row
		return x, r.Scan(scanTime{&x.at}, &x.id)
	})
	if err != nil {
		return 0, key, fmt.Errorf("retention %s: %w", what, err)
	}
	next := key
	for _, x := range got {
		if k := (SweepKey{x.at, x.id}); t.keyed && k.after(next) {
			next = k
		}
	}
	return int64(len(got)), next, nil
}

func (q queries) SetBatchSkips(ctx context.Context, batch, period string, s BatchSkips) error {
	reasons, err := json.Marshal(nonNilMap(s.Reasons))
	if err != nil {
		return err
	}
	if _, err := q.e.exec(ctx, "UPDATE mnemo_batch_runs SET skipped = $3, skip_reasons = $4 WHERE batch = $1 AND period = $2",
		batch, period, s.Skipped, string(reasons)); err != nil {
		return fmt.Errorf("record skips of %s %s: %w", batch, period, err)
	}
	return nil
}

func (q queries) GetBatchSkips(ctx context.Context, batch, period string) (BatchSkips, error) {
	all, err := queryAll(ctx, q, "SELECT skipped, skip_reasons FROM mnemo_batch_runs WHERE batch = $1 AND period = $2", []any{batch, period},
		func(r rows) (BatchSkips, error) {
			var s BatchSkips
			var raw json.RawMessage
			if err := r.Scan(&s.Skipped, scanJSON{&raw}); err != nil {
				return s, err
			}
			// The column is Mnemo's own counts; one that does not decode
			// leaves the reasons out rather than the ledger.
			_ = json.Unmarshal(raw, &s.Reasons)
			return s, nil
		})
	if err != nil {
		return BatchSkips{}, fmt.Errorf("read skips of %s %s: %w", batch, period, err)
	}
	if len(all) == 0 {
		return BatchSkips{Reasons: map[string]int64{}}, nil
	}
	all[0].Reasons = nonNilMap(all[0].Reasons)
	return all[0], nil
}

func nonNilMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}
