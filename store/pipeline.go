package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// step is one statement of a pipeline: a query whose rows scan reads, or,
// when scan is nil, a statement whose rows affected go to affected (when
// set). what names it in errors, as the method that runs it alone would.
type step struct {
	what     string
	sql      string
	args     []any
	scan     func(r rows) error
	affected *int64
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

func (q queries) runStep(ctx context.Context, s step) error {
	if s.scan == nil {
		n, err := q.e.exec(ctx, s.sql, s.args...)
		if err != nil {
			return wrapStep(s, err)
		}
		if s.affected != nil {
			*s.affected = n
		}
		return nil
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
		b.Queue(s.sql, s.args...)
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
