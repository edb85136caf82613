package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// rows is the part of pgx.Rows and *sql.Rows the queries use.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// execer runs statements on a pool or a transaction of either database.
// Statements are written once, in Postgres style ($1 placeholders); the
// SQLite executor rewrites them and converts arguments on the way in.
type execer interface {
	exec(ctx context.Context, q string, args ...any) (int64, error)
	query(ctx context.Context, q string, args ...any) (rows, error)
	dialect() string
}

// sqliteTimeLayout is fixed-width UTC so that SQLite compares timestamps as text correctly.
const sqliteTimeLayout = "2006-01-02T15:04:05.000000Z"

// The times the store holds run from EarliestTime to LatestTime: what RFC
// 3339 and JSON can write, and what sqliteTimeLayout writes with four year
// digits, so that SQLite's text compares in time order ("10000-01-01" sorts
// before "2026"). A time outside is clamped to the nearer end, when written
// and when read (rows stored before, or by hand): an expiry past LatestTime
// still never comes, and the user's memories, pack and export stay readable
// (issue 22 item 6). Migration 0012 repairs the rows stored earlier.
var (
	EarliestTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	LatestTime   = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
)

// ClampTime is t within [EarliestTime, LatestTime].
func ClampTime(t time.Time) time.Time {
	switch {
	case t.Before(EarliestTime):
		return EarliestTime
	case t.After(LatestTime):
		return LatestTime
	}
	return t
}

// clampArgs clamps the times among args (see ClampTime), copying args
// only when one changes.
func clampArgs(args []any) []any {
	out := args
	for i, a := range args {
		var c any
		switch v := a.(type) {
		case time.Time:
			if !ClampTime(v).Equal(v) {
				c = ClampTime(v)
			}
		case *time.Time:
			if v != nil && !ClampTime(*v).Equal(*v) {
				ct := ClampTime(*v)
				c = &ct
			}
		}
		if c == nil {
			continue
		}
		if len(out) > 0 && &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		out[i] = c
	}
	return out
}

// placeholderRE matches a numbered placeholder and the cast to a column type
// that may follow it (valuesSteps writes them).
var placeholderRE = regexp.MustCompile(`\$(\d+)(?:::(?:text|integer|bigint|float8|boolean|timestamptz)\b)?`)

// sqliteSQL rewrites a Postgres-style statement for SQLite: numbered
// placeholders become ?N, the casts of placeholders to column types
// ("$4::integer") are dropped, as SQLite's columns convert what they are
// given, and so are row locks (SQLite locks the whole database for a write
// transaction).
func sqliteSQL(q string) string {
	q = placeholderRE.ReplaceAllString(q, "?$1")
	return forUpdateRE.ReplaceAllString(q, "")
}

var forUpdateRE = regexp.MustCompile(`(?i)\s+FOR UPDATE( SKIP LOCKED)?`)

// sqliteArgs converts arguments to what the SQLite columns hold.
func sqliteArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case time.Time:
			out[i] = ClampTime(v).UTC().Format(sqliteTimeLayout)
		case *time.Time:
			if v == nil {
				out[i] = nil
			} else {
				out[i] = ClampTime(*v).UTC().Format(sqliteTimeLayout)
			}
		case json.RawMessage:
			out[i] = string(v)
		default:
			out[i] = a
		}
	}
	return out
}

// sqlRows adapts *sql.Rows to rows.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

// fifo is a one-slot queue in front of SQLite's one connection. database/sql
// hands a freed connection to a random waiter, so under load one caller can
// wait far longer than the queue is long; blocked senders on a channel are
// served in the order they came. Nil lets everyone through (a transaction
// already holds the connection).
type fifo chan struct{}

func (f fifo) acquire(ctx context.Context) error {
	if f == nil {
		return nil
	}
	select {
	case f <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f fifo) release() {
	if f != nil {
		<-f
	}
}

// gatedRows gives the gate back once the rows are done with: read to the end
// or closed, whichever comes first.
type gatedRows struct {
	*sql.Rows
	gate fifo
}

func (r *gatedRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *gatedRows) Close() {
	_ = r.Rows.Close()
	if r.gate != nil {
		r.gate.release()
		r.gate = nil
	}
}

// sqlExecer runs statements on an *sql.DB or *sql.Tx holding SQLite, each
// statement on the DB in its turn at gate.
type sqlExecer struct {
	db interface {
		ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	}
	gate fifo
}

func (e sqlExecer) dialect() string { return DialectSQLite }

func (e sqlExecer) exec(ctx context.Context, q string, args ...any) (int64, error) {
	if err := e.gate.acquire(ctx); err != nil {
		return 0, err
	}
	defer e.gate.release()
	res, err := e.db.ExecContext(ctx, sqliteSQL(q), sqliteArgs(args)...)
	if err != nil {
		return 0, translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	return n, nil
}

func (e sqlExecer) query(ctx context.Context, q string, args ...any) (rows, error) {
	if err := e.gate.acquire(ctx); err != nil {
		return nil, err
	}
	r, err := e.db.QueryContext(ctx, sqliteSQL(q), sqliteArgs(args)...)
	if err != nil {
		e.gate.release()
		return nil, translate(err)
	}
	if e.gate == nil {
		return sqlRows{r}, nil
	}
	return &gatedRows{Rows: r, gate: e.gate}, nil
}

// scanTime reads a timestamp column of either database into a time.Time.
type scanTime struct{ t *time.Time }

func (s scanTime) Scan(v any) error {
	switch x := v.(type) {
	case time.Time:
		*s.t = ClampTime(x).UTC()
		return nil
	case string:
		return s.parse(x)
	case []byte:
		return s.parse(string(x))
	case nil:
		*s.t = time.Time{}
		return nil
	}
	return fmt.Errorf("scan time: unexpected %T", v)
}

func (s scanTime) parse(x string) error {
	t, err := time.Parse(time.RFC3339Nano, x)
	if err != nil {
		// Outside the four-digit years (SQLite text), or Postgres's
		// infinities: the nearer end of the range.
		switch {
		case x == "-infinity" || beforeYear1RE.MatchString(x):
			t = EarliestTime
		case x == "infinity" || afterYear9999RE.MatchString(x):
			t = LatestTime
		default:
			return fmt.Errorf("scan time %q: %w", x, err)
		}
	}
	*s.t = ClampTime(t).UTC()
	return nil
}

// beforeYear1RE and afterYear9999RE match the timestamps Go writes for a
// year before 1 ("-0001-…") and after 9999 ("10000-…").
var (
	beforeYear1RE   = regexp.MustCompile(`^-\d{4,}-\d\d-\d\dT`)
	afterYear9999RE = regexp.MustCompile(`^\+?[1-9]\d{4,}-\d\d-\d\dT`)
)

// scanNullTime reads a nullable timestamp column into a *time.Time.
type scanNullTime struct{ t **time.Time }

func (s scanNullTime) Scan(v any) error {
	if v == nil {
		*s.t = nil
		return nil
	}
	var t time.Time
	if err := (scanTime{&t}).Scan(v); err != nil {
		return err
	}
	*s.t = &t
	return nil
}

// scanJSON reads a jsonb (Postgres) or text (SQLite) column as raw JSON.
type scanJSON struct{ p *json.RawMessage }

func (s scanJSON) Scan(v any) error {
	switch x := v.(type) {
	case []byte:
		*s.p = append(json.RawMessage(nil), x...)
	case string:
		*s.p = json.RawMessage(x)
	case nil:
		*s.p = nil
	default:
		// pgx hands decoded JSON values to sql.Scanner targets; re-encode them.
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Errorf("scan json: %w", err)
		}
		*s.p = b
	}
	return nil
}

// jsonArg makes raw JSON safe to bind: empty becomes the given default.
func jsonArg(b json.RawMessage, empty string) string {
	if len(b) == 0 {
		return empty
	}
	return string(b)
}

// translate maps driver errors onto the store's sentinels.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if isUniqueViolation(err) {
		return fmt.Errorf("%w: %v", ErrConflict, err)
	}
	if isPgExpectedRows(err) {
		return ErrNotFound
	}
	return err
}
