package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"net/url"
	"sync/atomic"
)

// OpenCountingSQLite opens the database at path as OpenSQLite does, with
// every statement the store runs on it (queries, execs, BEGIN, COMMIT and
// ROLLBACK) counted in n: the round trips of a unit of work, for tests and
// benchmarks.
func OpenCountingSQLite(ctx context.Context, path string, n *atomic.Int64) (*SQLite, error) {
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		return nil, err
	}
	_ = s.db.Close()
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "secure_delete(1)")
	q.Set("_txlock", "immediate")
	conn, err := newSQLiteConnector(path, "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(countingConnector{conn, n})
	db.SetMaxOpenConns(1)
	s.db = db
	s.queries.e = sqlExecer{db: db, gate: s.gate}
	return s, nil
}

type countingConnector struct {
	c *sqliteConnector
	n *atomic.Int64
}

func (c countingConnector) Driver() driver.Driver { return c.c.Driver() }

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{conn, c.n}, nil
}

// countingConn counts what database/sql sends over one connection.
type countingConn struct {
	conn driver.Conn
	n    *atomic.Int64
}

func (c *countingConn) Prepare(query string) (driver.Stmt, error) { return c.conn.Prepare(query) }
func (c *countingConn) Close() error                              { return c.conn.Close() }
func (c *countingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.n.Add(1)
	tx, err := c.conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	return countingTx{tx, c.n}, err
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.n.Add(1)
	return c.conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.n.Add(1)
	return c.conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (c *countingConn) Ping(ctx context.Context) error { return c.conn.(driver.Pinger).Ping(ctx) }

func (c *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *countingConn) IsValid() bool {
	v, ok := c.conn.(driver.Validator)
	return !ok || v.IsValid()
}

type countingTx struct {
	tx driver.Tx
	n  *atomic.Int64
}

func (t countingTx) Commit() error   { t.n.Add(1); return t.tx.Commit() }
func (t countingTx) Rollback() error { t.n.Add(1); return t.tx.Rollback() }

// The character classes and word patterns of the bounded pack read, for
// packread_test.go.
var (
	CaseOrSpace = caseOrSpace
	PackVisible = packVisible
	WordPattern = wordPattern
)

// PackReadSQL is ReadPackMemories' statement, for the query plans.
var PackReadSQL = packReadSQL
