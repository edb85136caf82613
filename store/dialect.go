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

var placeholderRE = regexp.MustCompile(`\$(\d+)`)

// sqliteSQL rewrites a Postgres-style statement for SQLite: numbered
// placeholders become ?N and row locks are dropped (SQLite locks the whole
// database for a write transaction).
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
			out[i] = v.UTC().Format(sqliteTimeLayout)
		case *time.Time:
			if v == nil {
				out[i] = nil
			} else {
				out[i] = v.UTC().Format(sqliteTimeLayout)
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

// sqlExecer runs statements on an *sql.DB or *sql.Tx holding SQLite.
type sqlExecer struct {
	db interface {
		ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	}
}

func (e sqlExecer) dialect() string { return DialectSQLite }

func (e sqlExecer) exec(ctx context.Context, q string, args ...any) (int64, error) {
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
	r, err := e.db.QueryContext(ctx, sqliteSQL(q), sqliteArgs(args)...)
	if err != nil {
		return nil, translate(err)
	}
	return sqlRows{r}, nil
}

// scanTime reads a timestamp column of either database into a time.Time.
type scanTime struct{ t *time.Time }

func (s scanTime) Scan(v any) error {
	switch x := v.(type) {
	case time.Time:
		*s.t = x.UTC()
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
		return fmt.Errorf("scan time %q: %w", x, err)
	}
	*s.t = t.UTC()
	return nil
}

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
	return err
}
