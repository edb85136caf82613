package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgExecer runs statements on a pgx pool or transaction.
type pgExecer struct {
	db interface {
		Exec(ctx context.Context, q string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
		SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
	}
}

func (e pgExecer) dialect() string { return DialectPostgres }

func (e pgExecer) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := e.db.Exec(ctx, q, clampArgs(args)...)
	if err != nil {
		return 0, translate(err)
	}
	return tag.RowsAffected(), nil
}

func (e pgExecer) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := e.db.Query(ctx, q, clampArgs(args)...)
	if err != nil {
		return nil, translate(err)
	}
	return pgRows{r}, nil
}

// pgRows translates errors surfacing while rows are read.
type pgRows struct{ pgx.Rows }

func (r pgRows) Err() error { return translate(r.Rows.Err()) }

// Postgres is the production store: a pgx v5 pool shared by several worker processes.
type Postgres struct {
	queries
	pool *pgxpool.Pool
}

// PostgresConfig parses a postgres:// URL into a pool configuration. Schema,
// when set, becomes the connections' search_path (tests isolate themselves so).
func PostgresConfig(url, schema string, maxConns int32) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse postgres url: %w", redactURLError(err))
	}
	if schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = schema
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	return cfg, nil
}

// OpenPostgres connects a pool. It does not migrate.
func OpenPostgres(ctx context.Context, cfg *pgxpool.Config) (*Postgres, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	return &Postgres{queries: queries{e: pgExecer{pool}, secrets: &secretCache{}}, pool: pool}, nil
}

// PostgresFromPool wraps a pool someone else opened (a Go chat service
// sharing Mnemo's database). Closing the store closes the pool.
func PostgresFromPool(pool *pgxpool.Pool) *Postgres {
	return &Postgres{queries: queries{e: pgExecer{pool}, secrets: &secretCache{}}, pool: pool}
}

// PgxTx binds the store's queries to a transaction the caller began, so that
// Mnemo's writes commit or roll back with the caller's own.
func PgxTx(tx pgx.Tx) Tx { return pgTx{queries{e: pgExecer{tx}}, tx} }

// SetSealer makes the store seal the derived data of the apps s seals.
func (p *Postgres) SetSealer(s Sealer) { p.sealer = s }

// Dialect returns "postgres".
func (p *Postgres) Dialect() string { return DialectPostgres }

// Raw returns the *pgxpool.Pool.
func (p *Postgres) Raw() any { return p.pool }

// Pool returns the pgx pool.
func (p *Postgres) Pool() *pgxpool.Pool { return p.pool }

// Ping checks that the database answers.
func (p *Postgres) Ping(ctx context.Context) error { return p.pool.Ping(ctx) }

// Close closes the pool.
func (p *Postgres) Close() error { p.pool.Close(); return nil }

// InTx runs fn in a transaction, which begins with its first statement:
// the BEGIN takes no round trip of its own (pgLazyTx).
func (p *Postgres) InTx(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error {
	return inLazyTx(ctx, p.pool, func(t *pgLazyTx) error {
		return fn(ctx, pgTx{queries{e: pgExecer{t}, sealer: p.sealer, secrets: p.secrets}, t})
	})
}

type pgTx struct {
	queries
	tx pgx.Tx
}

func (t pgTx) Raw() any { return t.tx }

// migrationLockKey serialises migrations of several processes starting at once.
const migrationLockKey = 0x6d6e656d6f // "mnemo"

func (p *Postgres) migrator() *migrator {
	return &migrator{
		dialect: DialectPostgres,
		exec:    pgExecer{p.pool},
		begin: func(ctx context.Context, fn func(e execer) error) error {
			return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLockKey); err != nil {
					return err
				}
				return fn(pgExecer{tx})
			})
		},
	}
}

// MigrateUp applies pending migrations.
func (p *Postgres) MigrateUp(ctx context.Context) ([]int, error) { return p.migrator().up(ctx) }

// MigrateDown rolls back the newest n migrations.
func (p *Postgres) MigrateDown(ctx context.Context, n int) ([]int, error) {
	return p.migrator().down(ctx, n)
}

// MigrationStatus lists every migration and when it was applied.
func (p *Postgres) MigrationStatus(ctx context.Context) ([]Migration, error) {
	return p.migrator().status(ctx)
}

// Pending counts migrations not yet applied.
func (p *Postgres) Pending(ctx context.Context) (int, error) { return p.migrator().pending(ctx) }

// isPgReadOnly: insufficient_privilege, read_only_sql_transaction, disk_full,
// cannot_connect_now.
func isPgReadOnly(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "42501", "25006", "53100", "57P03":
		return true
	}
	return false
}

// IsUnavailable reports whether err says the database could not be reached
// or dropped the connection: a failed connect, a connection lost mid-request,
// a server shutting down, crashed or starting up. Sent again once the server
// is back, the same request may succeed.
func IsUnavailable(err error) bool {
	var connErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case err == nil:
		return false
	case errors.As(err, &connErr):
		return true
	case errors.As(err, &pgErr):
		// connection_exception (class 08), admin_shutdown, crash_shutdown,
		// cannot_connect_now, too_many_connections.
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	}
	return errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &netErr)
}

// isPgExpectedRows reports mnemo_expect_rows's error: a row a statement
// had to change was not there.
func isPgExpectedRows(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "P0002"
}

func isPgUnique(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// redactURLError keeps a password in a malformed URL out of error messages.
func redactURLError(err error) error {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		return errors.New("invalid connection string")
	}
	return err
}
