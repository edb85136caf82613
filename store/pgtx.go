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
// transaction that sends nothing costs nothing. Writes whose answer nobody
// reads (queue) wait for the next statement, or for the COMMIT, and go in
// its round trip. From its first statement on it holds one connection of the
// pool and that connection's pgx.Tx. It is a pgx.Tx itself (Tx.Raw: River's
// InsertTx), and what cannot carry the BEGIN or the waiting writes (COPY,
// savepoints, a statement without arguments, which pgx sends on the simple
// protocol) sends them on a round trip of its own first, as pgx.BeginFunc
// would have before anything.
type pgLazyTx struct {
	pool    *pgxpool.Pool
	conn    *pgxpool.Conn // from the first statement to the end
	tx      pgx.Tx        // conn's transaction; nil until begun
	closed  bool          // committed or rolled back
	pending []pendingWrite
}

// pendingWrite is a write waiting for the transaction's next round trip;
// what names it in its error.
type pendingWrite struct {
	what string
	q    *pgx.QueuedQuery
}

var _ pgx.Tx = (*pgLazyTx)(nil)

// queue keeps a statement whose answer nobody reads, so whose only failure
// is an error (an insert; an update whose count is checked in the database,
// expectRows, or does not matter), to send with the transaction's next
// statement or its COMMIT. Its error is then that statement's, or the
// commit's, and the transaction rolls back as it would have.
func (t *pgLazyTx) queue(what, sql string, args []any) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.pending = append(t.pending, pendingWrite{what: what, q: &pgx.QueuedQuery{SQL: sql, Arguments: args}})
	return nil
}

// unsent reports whether the transaction has something to send before its
// next statement: the BEGIN or queued writes.
func (t *pgLazyTx) unsent() bool { return !t.closed && (t.tx == nil || len(t.pending) > 0) }

func (t *pgLazyTx) acquire(ctx context.Context) error {
	if t.conn != nil {
		return nil
	}
	c, err := t.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	t.conn = c
	return nil
}

// release gives the connection back to the pool, which closes it if it is
// still in a transaction.
func (t *pgLazyTx) release() {
	if t.conn != nil {
		t.conn.Release()
		t.conn = nil
	}
}

// flush sends what is unsent (the BEGIN, queued writes) on a round trip of
// its own.
func (t *pgLazyTx) flush(ctx context.Context) error {
	switch {
	case t.closed:
		return pgx.ErrTxClosed
	case len(t.pending) > 0:
		return t.send(ctx, nil).Close()
	case t.tx != nil:
		return nil
	}
	if err := t.acquire(ctx); err != nil {
		return err
	}
	tx, err := t.conn.Begin(ctx)
	if err != nil {
		return err
	}
	t.tx = tx
	return nil
}

// send sends queries in one batch after what is unsent: the BEGIN, when
// the transaction has not begun, and the queued writes. It reads their
// results; what is left are the queries'.
func (t *pgLazyTx) send(ctx context.Context, queries []*pgx.QueuedQuery) pgx.BatchResults {
	b := &pgx.Batch{}
	if t.closed {
		b.QueuedQueries = queries
		return pgx.FailedBatchResults(b, pgx.ErrTxClosed)
	}
	begin := t.tx == nil
	if begin {
		if err := t.acquire(ctx); err != nil {
			b.QueuedQueries = queries
			return pgx.FailedBatchResults(b, err)
		}
		b.BeginTx(pgx.TxOptions{})
	}
	pending := t.pending
	t.pending = nil
	for _, p := range pending {
		b.QueuedQueries = append(b.QueuedQueries, p.q)
	}
	b.QueuedQueries = append(b.QueuedQueries, queries...)
	br := t.conn.SendBatch(ctx, b)
	if begin {
		t.tx = br.Tx()
		if _, err := br.Exec(); err != nil {
			return failedResults{br, err}
		}
	}
	for _, p := range pending {
		if _, err := br.Exec(); err != nil {
			return failedResults{br, fmt.Errorf("%s: %w", p.what, translate(err))}
		}
	}
	return br
}

func (t *pgLazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.unsent() && len(args) > 0 {
		br := t.send(ctx, []*pgx.QueuedQuery{{SQL: sql, Arguments: args}})
		tag, err := br.Exec()
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return tag, err
	}
	if err := t.flush(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.tx.Exec(ctx, sql, args...)
}

func (t *pgLazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.unsent() && len(args) > 0 {
		br := t.send(ctx, []*pgx.QueuedQuery{{SQL: sql, Arguments: args}})
		rows, err := br.Query()
		if err != nil {
			_ = br.Close()
			return rows, err
		}
		return &batchRows{Rows: rows, br: br}, nil
	}
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.tx.Query(ctx, sql, args...)
}

func (t *pgLazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.unsent() && len(args) > 0 {
		rows, err := t.Query(ctx, sql, args...)
		return &batchRow{rows: rows, err: err}
	}
	if err := t.flush(ctx); err != nil {
		return &batchRow{err: err}
	}
	return t.tx.QueryRow(ctx, sql, args...)
}

func (t *pgLazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.unsent() && len(b.QueuedQueries) > 0 {
		return t.send(ctx, b.QueuedQueries)
	}
	if err := t.flush(ctx); err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	return t.tx.SendBatch(ctx, b)
}

func (t *pgLazyTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.flush(ctx); err != nil {
		return 0, err
	}
	return t.tx.CopyFrom(ctx, table, cols, src)
}

func (t *pgLazyTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.tx.Prepare(ctx, name, sql)
}

// Begin starts a pseudo nested transaction (a savepoint).
func (t *pgLazyTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.tx.Begin(ctx)
}

// Commit commits what was sent, sending the queued writes with the
// COMMIT; a transaction that sent nothing has nothing to commit.
func (t *pgLazyTx) Commit(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	defer t.release()
	if len(t.pending) == 0 {
		t.closed = true
		if t.tx == nil {
			return nil
		}
		return t.tx.Commit(ctx)
	}
	br := t.send(ctx, []*pgx.QueuedQuery{{SQL: "commit"}})
	t.closed = true
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A queued write failed and the COMMIT was not run: end the
		// transaction here, so that the connection goes back idle. (No
		// connection at all: the pool could not give one.)
		if t.conn != nil && t.tx != nil && t.conn.Conn().PgConn().TxStatus() != 'I' {
			_ = t.tx.Rollback(ctx)
		}
		return err
	}
	if tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// Rollback rolls back what was sent and drops what was not.
func (t *pgLazyTx) Rollback(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	t.pending = nil
	defer t.release()
	if t.tx == nil {
		return nil
	}
	return t.tx.Rollback(ctx)
}

// LargeObjects and Conn, which take no context, begin without one.
func (t *pgLazyTx) LargeObjects() pgx.LargeObjects {
	if err := t.flush(context.Background()); err != nil {
		return pgx.LargeObjects{}
	}
	return t.tx.LargeObjects()
}

func (t *pgLazyTx) Conn() *pgx.Conn {
	if err := t.flush(context.Background()); err != nil {
		return nil
	}
	return t.tx.Conn()
}

// failedResults are a batch's results after its BEGIN or a queued write
// failed: that error, from every query.
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
