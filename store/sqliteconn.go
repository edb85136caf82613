package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"modernc.org/sqlite"
)

// ErrReadOnly says the database cannot be written now: a file SQLite needs
// to write is read-only to this process.
var ErrReadOnly = errors.New("database is read-only")

// unwritable says why this process cannot write the SQLite database at path,
// or nil when it can (or when the file does not exist yet). Writing takes the
// file, its -wal and -shm, and, while those are still to be created, the
// directory.
func unwritable(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if err := canWrite(path); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrReadOnly, path, err)
	}
	for _, side := range []string{path + "-wal", path + "-shm"} {
		err := canWrite(side)
		if errors.Is(err, fs.ErrNotExist) {
			side = filepath.Dir(path)
			err = canWrite(side)
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrReadOnly, side, err)
		}
	}
	return nil
}

// walEmpty reports whether the database at path has no write-ahead log content.
func walEmpty(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Size() == 0)
}

// sqliteConnector opens the store's connections. On a database this process
// cannot write it opens a read-only connection, which database/sql drops
// once the database is writable again, so that the next connection writes.
type sqliteConnector struct {
	path string
	// rw opens a connection as usual; immutable opens one that reads the
	// file alone and creates no -wal or -shm.
	rw, immutable driver.Connector
}

func newSQLiteConnector(path, dsn string) (*sqliteConnector, error) {
	rw, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	immutable, err := sqlite.NewConnector(dsn + "&immutable=1")
	if err != nil {
		return nil, err
	}
	return &sqliteConnector{path: path, rw: rw, immutable: immutable}, nil
}

func (c *sqliteConnector) Driver() driver.Driver { return c.rw.Driver() }

// Connect opens a connection. On a read-only database with no log to replay
// the connection is immutable: SQLite would otherwise create the -wal and
// -shm with the database file's read-only mode, and they would keep the
// database read-only after the file itself is made writable again. Immutable
// also reads a database whose directory is read-only (a read-only mount),
// where SQLite could not create them at all.
func (c *sqliteConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if unwritable(c.path) == nil {
		return c.rw.Connect(ctx)
	}
	base := c.rw
	if walEmpty(c.path) {
		base = c.immutable
	}
	conn, err := base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &readOnlyConn{conn: conn, path: c.path}, nil
}

// readOnlyConn is a connection opened while the database could not be
// written. It stays valid only while that lasts: a connection keeps the mode
// it was opened with, so a fixed file needs a new one.
type readOnlyConn struct {
	conn driver.Conn
	path string
}

// database/sql sees through the wrapper every optional interface of
// modernc's connection.
var (
	_ driver.ConnBeginTx        = (*readOnlyConn)(nil)
	_ driver.ConnPrepareContext = (*readOnlyConn)(nil)
	_ driver.ExecerContext      = (*readOnlyConn)(nil)
	_ driver.QueryerContext     = (*readOnlyConn)(nil)
	_ driver.Pinger             = (*readOnlyConn)(nil)
	_ driver.SessionResetter    = (*readOnlyConn)(nil)
	_ driver.Validator          = (*readOnlyConn)(nil)
)

// stale reports whether the database has become writable since.
func (c *readOnlyConn) stale() bool { return unwritable(c.path) == nil }

// Unwrap returns modernc's connection.
func (c *readOnlyConn) Unwrap() driver.Conn { return c.conn }

func (c *readOnlyConn) IsValid() bool {
	if c.stale() {
		return false
	}
	v, ok := c.conn.(driver.Validator)
	return !ok || v.IsValid()
}

func (c *readOnlyConn) ResetSession(ctx context.Context) error {
	if c.stale() {
		return driver.ErrBadConn
	}
	if r, ok := c.conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// The rest forwards to modernc's connection, which implements every
// optional interface database/sql looks for.

func (c *readOnlyConn) Prepare(query string) (driver.Stmt, error) { return c.conn.Prepare(query) }
func (c *readOnlyConn) Close() error                              { return c.conn.Close() }

// Begin is driver.Conn's, which database/sql never calls when BeginTx is
// there; it begins as BeginTx does rather than through the deprecated
// driver.Conn.Begin of modernc's connection.
func (c *readOnlyConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *readOnlyConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *readOnlyConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *readOnlyConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c *readOnlyConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (c *readOnlyConn) Ping(ctx context.Context) error { return c.conn.(driver.Pinger).Ping(ctx) }
