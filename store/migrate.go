package store

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo/migrations"
)

// migrationFile is one NNNN_name.up.sql / .down.sql pair.
type migrationFile struct {
	version  int
	name     string
	up, down string
}

var migrationNameRE = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.(up|down)\.sql$`)

// loadMigrations reads a dialect's embedded migrations in version order.
func loadMigrations(dialect string) ([]migrationFile, error) {
	entries, err := fs.ReadDir(migrations.FS, dialect)
	if err != nil {
		return nil, fmt.Errorf("read %s migrations: %w", dialect, err)
	}
	byVersion := map[int]*migrationFile{}
	for _, e := range entries {
		m := migrationNameRE.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration %s/%s: name must be NNNN_name.up.sql or .down.sql", dialect, e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		body, err := fs.ReadFile(migrations.FS, path.Join(dialect, e.Name()))
		if err != nil {
			return nil, err
		}
		f := byVersion[v]
		if f == nil {
			f = &migrationFile{version: v, name: m[2]}
			byVersion[v] = f
		}
		if m[3] == "up" {
			f.up = string(body)
		} else {
			f.down = string(body)
		}
	}
	out := make([]migrationFile, 0, len(byVersion))
	for _, f := range byVersion {
		if f.up == "" || f.down == "" {
			return nil, fmt.Errorf("migration %s/%04d_%s: both up and down files are required", dialect, f.version, f.name)
		}
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrator applies Mnemo's migrations, each with its version row in one transaction.
type migrator struct {
	dialect string
	exec    execer
	// begin runs fn in a transaction that holds the migration lock.
	begin func(ctx context.Context, fn func(e execer) error) error
}

const versionTable = `CREATE TABLE IF NOT EXISTS mnemo_schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at text NOT NULL
)`

// versionTableExists is a read; the write that creates the table waits
// until a migration is to be applied.
func (m *migrator) versionTableExists(ctx context.Context, e execer) (bool, error) {
	q := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'mnemo_schema_migrations'"
	if m.dialect == DialectPostgres {
		q = "SELECT (to_regclass('mnemo_schema_migrations') IS NOT NULL)::int"
	}
	r, err := e.query(ctx, q)
	if err != nil {
		return false, err
	}
	defer r.Close()
	var n int
	if r.Next() {
		if err := r.Scan(&n); err != nil {
			return false, err
		}
	}
	return n > 0, r.Err()
}

// applied reads the applied versions; none while the version table is missing.
func (m *migrator) applied(ctx context.Context, e execer) (map[int]time.Time, error) {
	out := map[int]time.Time{}
	if ok, err := m.versionTableExists(ctx, e); err != nil || !ok {
		return out, err
	}
	r, err := e.query(ctx, "SELECT version, applied_at FROM mnemo_schema_migrations")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for r.Next() {
		var v int
		var at time.Time
		if err := r.Scan(&v, scanTime{&at}); err != nil {
			return nil, err
		}
		out[v] = at
	}
	return out, r.Err()
}

func (m *migrator) up(ctx context.Context) ([]int, error) {
	files, err := loadMigrations(m.dialect)
	if err != nil {
		return nil, err
	}
	// A current schema is told by reading alone, so that a worker starts on
	// a database it may not write (a read-only file, a role without write
	// rights) and answers 503 to writes rather than not at all.
	applied, err := m.applied(ctx, m.exec)
	if err != nil {
		return nil, err
	}
	if len(pendingFiles(files, applied)) == 0 {
		return nil, nil
	}
	var done []int
	for _, f := range files {
		err := m.begin(ctx, func(e execer) error {
			if _, err := e.exec(ctx, versionTable); err != nil {
				return fmt.Errorf("create migration table: %w", err)
			}
			applied, err := m.applied(ctx, e)
			if err != nil {
				return err
			}
			if _, ok := applied[f.version]; ok {
				return nil
			}
			if _, err := e.exec(ctx, f.up); err != nil {
				return fmt.Errorf("apply migration %04d_%s: %w", f.version, f.name, err)
			}
			if step := goMigrations[f.version]; step != nil {
				if err := step(ctx, e); err != nil {
					return fmt.Errorf("apply migration %04d_%s: %w", f.version, f.name, err)
				}
			}
			if _, err := e.exec(ctx, "INSERT INTO mnemo_schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
				f.version, f.name, time.Now().UTC().Format(sqliteTimeLayout)); err != nil {
				return err
			}
			done = append(done, f.version)
			return nil
		})
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

func (m *migrator) down(ctx context.Context, n int) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("migrate down: step count must be at least 1, got %d", n)
	}
	files, err := loadMigrations(m.dialect)
	if err != nil {
		return nil, err
	}
	var done []int
	for i := len(files) - 1; i >= 0 && len(done) < n; i-- {
		f := files[i]
		rolled := false
		err := m.begin(ctx, func(e execer) error {
			applied, err := m.applied(ctx, e)
			if err != nil {
				return err
			}
			if _, ok := applied[f.version]; !ok {
				return nil
			}
			if _, err := e.exec(ctx, f.down); err != nil {
				return fmt.Errorf("roll back migration %04d_%s: %w", f.version, f.name, err)
			}
			if _, err := e.exec(ctx, "DELETE FROM mnemo_schema_migrations WHERE version = $1", f.version); err != nil {
				return err
			}
			rolled = true
			return nil
		})
		if err != nil {
			return done, err
		}
		if rolled {
			done = append(done, f.version)
		}
	}
	return done, nil
}

func (m *migrator) status(ctx context.Context) ([]Migration, error) {
	files, err := loadMigrations(m.dialect)
	if err != nil {
		return nil, err
	}
	applied, err := m.applied(ctx, m.exec)
	if err != nil {
		return nil, err
	}
	out := make([]Migration, 0, len(files))
	for _, f := range files {
		mg := Migration{Line: "mnemo", Version: f.version, Name: f.name}
		if at, ok := applied[f.version]; ok {
			at := at
			mg.AppliedAt = &at
		}
		out = append(out, mg)
	}
	return out, nil
}

func (m *migrator) pending(ctx context.Context) (int, error) {
	files, err := loadMigrations(m.dialect)
	if err != nil {
		return 0, err
	}
	applied, err := m.applied(ctx, m.exec)
	if err != nil {
		return 0, err
	}
	return len(pendingFiles(files, applied)), nil
}

// pendingFiles are the migrations of files not in applied.
func pendingFiles(files []migrationFile, applied map[int]time.Time) []migrationFile {
	var out []migrationFile
	for _, f := range files {
		if _, ok := applied[f.version]; !ok {
			out = append(out, f)
		}
	}
	return out
}
