package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// step is one statement of a pipeline: a query whose rows scan reads, or,
// when scan is nil, a statement whose rows affected go to affected (when
// set) and must be want when want is set (ErrNotFound otherwise: a row it
// had to change is gone). what names it in errors, as the method that runs
// it alone would.
type step struct {
	what     string
	sql      string
	args     []any
	scan     func(r rows) error
	affected *int64
	want     int64
}

// checkWant is s's rows-affected check.
func checkWant(s step, n int64) error {
	if s.want > 0 && n != s.want {
		return wrapStep(s, ErrNotFound)
	}
	return nil
}

// expectRows is s, an UPDATE with a want, checking its count in the
// database (mnemo_expect_rows, Postgres only): it fails there, as an
// error, rather than answering a count for Go to check, so that it can
// wait for the COMMIT's round trip.
func expectRows(s step) step {
	s.sql = "WITH changed AS (" + s.sql + " RETURNING 1) SELECT mnemo_expect_rows(count(*), " +
		strconv.FormatInt(s.want, 10) + ", '" + strings.ReplaceAll(s.what, "'", "''") + "') FROM changed"
	s.want, s.affected = 0, nil
	return s
}

// pipeline runs steps in order, stopping at the first that fails. On
// Postgres they go in one round trip (a pgx batch): each statement still
// runs on its own, in order, with a snapshot of its own (read committed),
// as it would sent alone; only the waits between them go. On SQLite, in
// process, they run one after another.
func (q queries) pipeline(ctx context.Context, steps ...step) error {
	steps = present(steps)
	if len(steps) == 0 {
		return nil
	}
	if len(steps) == 1 { // nothing to save
		return q.runStep(ctx, steps[0])
	}
	if pg, ok := q.e.(pgExecer); ok {
		return pg.batch(ctx, steps)
	}
	for _, s := range steps {
		if err := q.runStep(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// present drops the zero steps (no statement): the parts a pipeline
// built with optional parts left out.
func present(steps []step) []step {
	out := steps[:0]
	for _, s := range steps {
		if s.sql != "" {
			out = append(out, s)
		}
	}
	return out
}

// later runs steps, writes that need no answer (no scan; a want is
// checked), or in a Postgres transaction keeps them for the transaction's
// next round trip (pgLazyTx.queue): a statement that needs an answer, or
// the COMMIT. Their failure is then that statement's or the commit's, and
// the transaction rolls back all the same; nothing the caller does in
// between may depend on them having been sent.
func (q queries) later(ctx context.Context, steps ...step) error {
	if t := q.lazyTx(); t != nil {
		for _, s := range present(steps) {
			if s.scan != nil || s.affected != nil && s.want == 0 {
				return fmt.Errorf("%s: a statement whose answer is read cannot wait", s.what)
			}
			if s.want > 0 {
				s = expectRows(s)
			}
			if err := t.queue(s.what, s.sql, clampArgs(s.args)); err != nil {
				return err
			}
		}
		return nil
	}
	return q.pipeline(ctx, steps...)
}

// lazyTx is the Postgres transaction q runs in, nil outside one (or on
// SQLite).
func (q queries) lazyTx() *pgLazyTx {
	if pg, ok := q.e.(pgExecer); ok {
		if t, ok := pg.db.(*pgLazyTx); ok {
			return t
		}
	}
	return nil
}

func (q queries) runStep(ctx context.Context, s step) error {
	if s.scan == nil {
		n, err := q.e.exec(ctx, s.sql, s.args...)
		if err != nil {
			return wrapStep(s, err)
		}
		if s.affected != nil {
			*s.affected = n
		}
		return checkWant(s, n)
	}
	r, err := q.e.query(ctx, s.sql, s.args...)
	if err != nil {
		return wrapStep(s, err)
	}
	defer r.Close()
	for r.Next() {
		if err := s.scan(r); err != nil {
			return wrapStep(s, translate(err))
		}
	}
	return wrapStep(s, r.Err())
}

func wrapStep(s step, err error) error {
	if err == nil || s.what == "" {
		return err
	}
	return fmt.Errorf("%s: %w", s.what, err)
}

// batch sends steps as one pgx batch and reads their results in order.
func (e pgExecer) batch(ctx context.Context, steps []step) (err error) {
	b := &pgx.Batch{}
	for _, s := range steps {
		b.Queue(s.sql, clampArgs(s.args)...)
	}
	br := e.db.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil && cerr != nil {
			err = translate(cerr)
		}
	}()
	for _, s := range steps {
		if s.scan == nil {
			tag, err := br.Exec()
			if err != nil {
				return wrapStep(s, translate(err))
			}
			if s.affected != nil {
				*s.affected = tag.RowsAffected()
			}
			if err := checkWant(s, tag.RowsAffected()); err != nil {
				return err
			}
			continue
		}
		r, err := br.Query()
		if err != nil {
			return wrapStep(s, translate(err))
		}
		for r.Next() {
			if err := s.scan(pgRows{r}); err != nil {
				r.Close()
				return wrapStep(s, translate(err))
			}
		}
		r.Close()
		if err := r.Err(); err != nil {
			return wrapStep(s, translate(err))
		}
	}
	return nil
}
