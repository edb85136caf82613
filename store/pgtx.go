package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgLazyTx is a transaction of the pool that begins with its first
// statement: the BEGIN goes in the round trip of that statement (a batch
// begun with pgx.Batch.BeginTx) rather than in one of its own, and a
// transaction that sends nothing costs nothing. From its first statement on
// it is the pool's pgx.Tx. It is a pgx.Tx itself (Tx.Raw: River's InsertTx),
// and what cannot carry the BEGIN (COPY, savepoints, a statement without
// arguments, which pgx sends on the simple protocol) begins it on a round
// trip of its own first, as pgx.BeginFunc would have before anything.
type pgLazyTx struct {
	pool   *pgxpool.Pool
	tx     pgx.Tx // nil until begun
	closed bool   // committed or rolled back
}

var _ pgx.Tx = (*pgLazyTx)(nil)

// begin begins the transaction on a round trip of its own, unless it is.
func (t *pgLazyTx) begin(ctx context.Context) error {
	switch {
	case t.closed:
		return pgx.ErrTxClosed
	case t.tx != nil:
		return nil
	}
	tx, err := t.pool.Begin(ctx)
	if err != nil {
		return err
	}
	t.tx = tx
	return nil
}

// sendWithBegin sends queries after the BEGIN, in one batch, and reads the
// BEGIN's result: what is left are the queries'.
func (t *pgLazyTx) sendWithBegin(ctx context.Context, queries []*pgx.QueuedQuery) pgx.BatchResults {
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	b.QueuedQueries = append(b.QueuedQueries, queries...)
	br := t.pool.SendBatch(ctx, b)
	t.tx = br.Tx()
	if _, err := br.Exec(); err != nil {
		return failedResults{br, err}
	}
	return br
}

func (t *pgLazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.tx == nil && !t.closed && len(args) > 0 {
		br := t.sendWithBegin(ctx, []*pgx.QueuedQuery{{SQL: sql, Arguments: args}})
		tag, err := br.Exec()
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return tag, err
	}
	if err := t.begin(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.tx.Exec(ctx, sql, args...)
}

func (t *pgLazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.tx == nil && !t.closed && len(args) > 0 {
		br := t.sendWithBegin(ctx, []*pgx.QueuedQuery{{SQL: sql, Arguments: args}})
		rows, err := br.Query()
		if err != nil {
			_ = br.Close()
			return rows, err
		}
		return &batchRows{Rows: rows, br: br}, nil
	}
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.tx.Query(ctx, sql, args...)
}

func (t *pgLazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.tx == nil && !t.closed && len(args) > 0 {
		rows, err := t.Query(ctx, sql, args...)
		return &batchRow{rows: rows, err: err}
	}
	if err := t.begin(ctx); err != nil {
		return &batchRow{err: err}
	}
	return t.tx.QueryRow(ctx, sql, args...)
}

func (t *pgLazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.tx == nil && !t.closed && len(b.QueuedQueries) > 0 {
		return t.sendWithBegin(ctx, b.QueuedQueries)
	}
	if err := t.begin(ctx); err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	return t.tx.SendBatch(ctx, b)
}

func (t *pgLazyTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.begin(ctx); err != nil {
		return 0, err
	}
	return t.tx.CopyFrom(ctx, table, cols, src)
}

func (t *pgLazyTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.tx.Prepare(ctx, name, sql)
}

// Begin starts a pseudo nested transaction (a savepoint).
func (t *pgLazyTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.tx.Begin(ctx)
}

// Commit commits what was sent; a transaction that sent nothing has
// nothing to commit.
func (t *pgLazyTx) Commit(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	if t.tx == nil {
		return nil
	}
	return t.tx.Commit(ctx)
}

// Rollback rolls back what was sent.
func (t *pgLazyTx) Rollback(ctx context.Context) error {
	if t.tx == nil {
		if t.closed {
			return pgx.ErrTxClosed
		}
		t.closed = true
		return nil
	}
	t.closed = true
	return t.tx.Rollback(ctx)
}

// LargeObjects and Conn, which take no context, begin without one.
func (t *pgLazyTx) LargeObjects() pgx.LargeObjects {
	if err := t.begin(context.Background()); err != nil {
		return pgx.LargeObjects{}
	}
	return t.tx.LargeObjects()
}

func (t *pgLazyTx) Conn() *pgx.Conn {
	if err := t.begin(context.Background()); err != nil {
		return nil
	}
	return t.tx.Conn()
}

// failedResults are a batch's results after its BEGIN failed: that error,
// from every query.
type failedResults struct {
	br  pgx.BatchResults
	err error
}

func (f failedResults) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, f.err }
func (f failedResults) Query() (pgx.Rows, error)         { return nil, f.err }
func (f failedResults) QueryRow() pgx.Row                { return &batchRow{err: f.err} }
func (f failedResults) Tx() pgx.Tx                       { return f.br.Tx() }
func (f failedResults) Close() error {
	_ = f.br.Close()
	return f.err
}

// batchRows are the rows of a query sent in a batch of its own: closing
// them closes the batch.
type batchRows struct {
	pgx.Rows
	br       pgx.BatchResults
	closeErr error
}

func (r *batchRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.closeErr = r.br.Close()
		r.br = nil
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.closeErr
}

// batchRow is QueryRow's row of batchRows, scanned as pgx scans its own.
type batchRow struct {
	rows pgx.Rows
	err  error
}

func (r *batchRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if err := r.rows.Err(); err != nil {
		r.rows.Close()
		return err
	}
	for _, d := range dest {
		if _, ok := d.(*pgtype.DriverBytes); ok {
			r.rows.Close()
			return fmt.Errorf("cannot scan into *pgtype.DriverBytes from QueryRow")
		}
	}
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	_ = r.rows.Scan(dest...)
	r.rows.Close()
	return r.rows.Err()
}

// inLazyTx runs fn in a transaction that begins with its first statement,
// and ends as pgx.BeginFunc ends one: rolled back when fn fails or panics,
// committed otherwise.
func inLazyTx(ctx context.Context, pool *pgxpool.Pool, fn func(t *pgLazyTx) error) (err error) {
	t := &pgLazyTx{pool: pool}
	defer func() {
		if rerr := t.Rollback(ctx); rerr != nil && !errors.Is(rerr, pgx.ErrTxClosed) {
			err = rerr
		}
	}()
	if ferr := fn(t); ferr != nil {
		_ = t.Rollback(ctx)
		return ferr
	}
	return t.Commit(ctx)
}
