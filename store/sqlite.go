package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite is the embedded store: one process per database file.
type SQLite struct {
	queries
	db   *sql.DB
	path string
	// gate orders Mnemo's statements and transactions for the connection.
	gate fifo
}

// OpenSQLite opens (creating when missing) the database file at path with WAL,
// a busy timeout and foreign keys on. A missing file is created readable by
// its owner only (0600), and so are its -wal and -shm, which SQLite creates
// with the mode of the database file; a missing directory is created 0700.
// Existing files and directories keep their modes.
//
// The pool holds one connection: River's
// SQLite driver asks for it, and SQLite writes one at a time anyway. A file
// this process cannot write is opened read-only: writes fail with an error
// IsReadOnly recognises until the file is writable again, when the
// connection is replaced.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	if err := createSQLiteFile(path); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Deleted rows are overwritten, not left in free pages: erase must erase.
	q.Add("_pragma", "secure_delete(1)")
	q.Set("_txlock", "immediate")
	conn, err := newSQLiteConnector(path, "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	gate := make(fifo, 1)
	return &SQLite{queries: queries{e: sqlExecer{db: db, gate: gate}, secrets: &secretCache{}}, db: db, path: path, gate: gate}, nil
}

// Dialect returns "sqlite".
func (s *SQLite) Dialect() string { return DialectSQLite }

// Raw returns the *sql.DB.
func (s *SQLite) Raw() any { return s.db }

// DB returns the database/sql pool.
func (s *SQLite) DB() *sql.DB { return s.db }

// Path is the database file.
func (s *SQLite) Path() string { return s.path }

// Ping checks that the database answers.
func (s *SQLite) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// CheckWritable says why the database cannot be written now (an error
// matching ErrReadOnly), or nil when it can.
func (s *SQLite) CheckWritable() error { return unwritable(s.path) }

// Checkpoint moves the write-ahead log into the database file and truncates
// it, so that pages an erase overwrote leave no older copy behind.
func (s *SQLite) Checkpoint(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// Close closes the database.
func (s *SQLite) Close() error { return s.db.Close() }

// InTx runs fn in an immediate transaction.
func (s *SQLite) InTx(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error {
	if err := s.gate.acquire(ctx); err != nil {
		return err
	}
	defer s.gate.release()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	if err := fn(ctx, sqliteTx{queries{e: sqlExecer{db: tx}, sealer: s.sealer, secrets: s.secrets}, tx}); err != nil {
		_ = tx.Rollback()
		return err
	}
	return translate(tx.Commit())
}

type sqliteTx struct {
	queries
	tx *sql.Tx
}

func (t sqliteTx) Raw() any { return t.tx }

func (s *SQLite) migrator() *migrator {
	return &migrator{
		dialect: DialectSQLite,
		exec:    sqlExecer{db: s.db},
		begin: func(ctx context.Context, fn func(e execer) error) error {
			return s.InTx(ctx, func(ctx context.Context, tx Tx) error {
				return fn(sqlExecer{db: tx.(sqliteTx).tx})
			})
		},
	}
}

// MigrateUp applies pending migrations.
func (s *SQLite) MigrateUp(ctx context.Context) ([]int, error) { return s.migrator().up(ctx) }

// MigrateDown rolls back the newest n migrations.
func (s *SQLite) MigrateDown(ctx context.Context, n int) ([]int, error) {
	return s.migrator().down(ctx, n)
}

// MigrationStatus lists every migration and when it was applied.
func (s *SQLite) MigrationStatus(ctx context.Context) ([]Migration, error) {
	return s.migrator().status(ctx)
}

// Pending counts migrations not yet applied.
func (s *SQLite) Pending(ctx context.Context) (int, error) { return s.migrator().pending(ctx) }

func isSQLiteUnique(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// IsReadOnly reports whether err says the database cannot be written now:
// a read-only SQLite file, a Postgres role without write rights, a read-only
// transaction or a standby.
func IsReadOnly(err error) bool {
	if errors.Is(err, ErrReadOnly) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff
		return c == sqlite3.SQLITE_READONLY || c == sqlite3.SQLITE_CANTOPEN || c == sqlite3.SQLITE_FULL
	}
	return isPgReadOnly(err)
}

func isUniqueViolation(err error) bool { return isPgUnique(err) || isSQLiteUnique(err) }

// SetSealer makes the store seal the derived data of the apps s seals.
func (s *SQLite) SetSealer(sealer Sealer) { s.sealer = sealer }
