package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

// openStore connects to the configured database. It does not migrate.
func openStore(ctx context.Context, cfg Config) (store.Store, error) {
	if cfg.Dialect == store.DialectPostgres {
		pc, err := store.PostgresConfig(cfg.DatabaseURL, "", 0)
		if err != nil {
			return nil, err
		}
		if cfg.PGPooler == PoolerTransaction && pc.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
			// A server connection serves another client after each
			// transaction, so a statement prepared by name on it may be
			// missing, or another's, on the next: describe each statement
			// once (cached) and run it unnamed. A DSN's own
			// default_query_exec_mode is kept.
			pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		st, err := store.OpenPostgres(ctx, pc)
		if err != nil {
			return nil, err
		}
		if err := st.Ping(ctx); err != nil {
			_ = st.Close()
			return nil, fmt.Errorf("connect postgres: %w", err)
		}
		return st, nil
	}
	return store.OpenSQLite(ctx, cfg.SQLitePath)
}

// openExisting connects to the configured database for a command that only
// reads or changes what is there: a SQLite file that does not exist is an
// error, not a new database.
func openExisting(ctx context.Context, cfg Config) (store.Store, error) {
	if err := requireDatabase(cfg); err != nil {
		return nil, err
	}
	return openStore(ctx, cfg)
}

// requireDatabase says that no SQLite database exists at the configured path.
func requireDatabase(cfg Config) error {
	if cfg.Dialect == store.DialectSQLite && !store.SQLiteExists(cfg.SQLitePath) {
		return fmt.Errorf("no database at %s: run `worker migrate up` (or start the worker) to create one", cfg.SQLitePath)
	}
	return nil
}

// migrateAll applies River's migrations, then Mnemo's. A current schema needs
// no write; an old one on a database that takes none is an error saying so.
func migrateAll(ctx context.Context, st store.Store) (river, mnemo []int, err error) {
	defer func() {
		if store.IsReadOnly(err) {
			err = fmt.Errorf("the database cannot be written and its schema is not current; make it writable to migrate: %w", err)
		}
	}()
	if river, err = queue.MigrateRiver(ctx, st); err != nil {
		return nil, nil, err
	}
	if mnemo, err = st.MigrateUp(ctx); err != nil {
		return river, nil, fmt.Errorf("mnemo migrations: %w", err)
	}
	return river, mnemo, nil
}

// schemaCurrent checks, without writing, that River's and Mnemo's
// migrations are all applied.
func schemaCurrent(ctx context.Context, st store.Store) error {
	river, err := queue.RiverMigrationStatus(ctx, st)
	if err != nil {
		return err
	}
	pending := 0
	for _, m := range river {
		if !m.Applied {
			pending++
		}
	}
	n, err := st.Pending(ctx)
	if err != nil {
		return err
	}
	if pending += n; pending > 0 {
		return fmt.Errorf("the database lacks %d migrations: run `worker migrate up` (or start the worker) first", pending)
	}
	return nil
}

// migrate runs `migrate up | down N | status`.
func migrate(ctx context.Context, e *env) error {
	if len(e.args) == 0 {
		return usageError{errors.New("want up, down N or status")}
	}
	open := openStore
	if e.args[0] != "up" {
		open = openExisting // status and down read or undo what is there
	}
	st, err := open(ctx, e.cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	switch e.args[0] {
	case "up":
		river, mnemo, err := migrateAll(ctx, st)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "applied %d River and %d Mnemo migrations\n", len(river), len(mnemo))
		return nil
	case "down":
		if len(e.args) != 2 {
			return usageError{errors.New("migrate down wants a step count, e.g. migrate down 1")}
		}
		n, err := strconv.Atoi(e.args[1])
		if err != nil || n < 1 {
			return usageError{fmt.Errorf("step count %q is not a positive number", e.args[1])}
		}
		done, err := st.MigrateDown(ctx, n)
		for _, v := range done {
			fmt.Fprintf(e.stdout, "rolled back mnemo %04d\n", v)
		}
		if err != nil {
			return err
		}
		if len(done) < n {
			fmt.Fprintf(e.stdout, "only %d Mnemo migrations were applied; River's are managed by `migrate up`\n", len(done))
		}
		return nil
	case "status":
		return migrateStatus(ctx, e, st)
	}
	return usageError{fmt.Errorf("unknown migrate action %q: want up, down N or status", e.args[0])}
}

func migrateStatus(ctx context.Context, e *env, st store.Store) error {
	river, err := queue.RiverMigrationStatus(ctx, st)
	if err != nil {
		return err
	}
	mnemo, err := st.MigrationStatus(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "LINE\tVERSION\tNAME\tSTATUS\n")
	for _, m := range river {
		status := "pending"
		if m.Applied {
			status = "applied"
		}
		fmt.Fprintf(tw, "river\t%03d\t%s\t%s\n", m.Version, m.Name, status)
	}
	for _, m := range mnemo {
		status := "pending"
		if m.AppliedAt != nil {
			status = "applied " + m.AppliedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "mnemo\t%04d\t%s\t%s\n", m.Version, m.Name, status)
	}
	fmt.Fprintf(tw, "database\t\t%s\t\n", st.Dialect())
	return tw.Flush()
}
