package store

import (
	"context"
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
	// secrets caches the install's secrets once read (nil: read each time).
	secrets *secretCache
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

// sqliteStatementParams bounds them on SQLite, far below its limit: the
// driver binds each parameter by looking its name up in a list as long as
// the statement's, so a statement's binding costs the square of its
// parameters. 7,000 memories in statements of 32,000 parameters held the
// writer 58 s, almost all of it binding (issue 34 §3); in statements of
// 999 (SQLite's historical limit) the binding is a small part.
const sqliteStatementParams = 999

// statementParams is the most parameters one statement of q takes.
func (q queries) statementParams() int {
	if q.e != nil && q.e.dialect() == DialectSQLite {
		return sqliteStatementParams
	}
	return maxParams
}

// insertRows inserts n rows of width columns each with as few statements as
// the parameter limit allows: one multi-row VALUES list per batch. head is
// "INSERT INTO t (cols)", tail what follows the VALUES list (an ON CONFLICT
// clause, say), row(i) the arguments of row i. It returns the rows affected.
func (q queries) insertRows(ctx context.Context, head string, width, n int, row func(i int) []any, tail string) (int64, error) {
	steps, err := q.insertSteps("", head, width, n, row, tail)
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
func (q queries) insertSteps(what, head string, width, n int, row func(i int) []any, tail string) ([]step, error) {
	return q.valuesSteps(what, width, n, row, nil, func(values string) string { return head + " VALUES " + values + tail })
}

// valuesSteps builds the statements of n rows of width values each, as few
// as the parameter limit allows: wrap(list) is one statement around a
// VALUES list of its rows ("($1, $2), ($3, $4)"). casts, when set, are the
// columns' Postgres types, written on the first row of each list
// ("$1::integer") so that a VALUES list that is not an INSERT's types its
// columns; SQLite drops them (sqliteSQL).
func (q queries) valuesSteps(what string, width, n int, row func(i int) []any, casts []string, wrap func(values string) string) ([]step, error) {
	per := max(1, q.statementParams()/width)
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

// statedOr is a statement time, or fallback when it is unknown.
func statedOr(t, fallback time.Time) time.Time {
	if t.IsZero() {
		return fallback
	}
	return t
}

// only keeps the rows whose name is one of names (all of them when names is
// empty): the filter of the List methods that take kinds or keys.
func only[T any](all []T, err error, names []string, name func(T) string) ([]T, error) {
	if err != nil || len(names) == 0 {
		return all, err
	}
	return slices.DeleteFunc(all, func(x T) bool { return !slices.Contains(names, name(x)) }), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
