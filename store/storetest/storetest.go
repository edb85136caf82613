// Package storetest is the conformance suite every store.Store implementation
// passes, and the helpers that give other packages' tests a fresh, migrated
// database of either kind.
package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/store"
)

// Backend opens a fresh, migrated store for one test.
type Backend struct {
	Name string
	Open func(t testing.TB) store.Store
}

// Backends returns the backends to test on: SQLite always; Postgres when
// TEST_DATABASE_URL is set. With MNEMO_REQUIRE_POSTGRES=1 (CI) a missing
// TEST_DATABASE_URL fails the test instead of skipping Postgres.
func Backends(t testing.TB) []Backend {
	out := []Backend{{Name: store.DialectSQLite, Open: SQLite}}
	if os.Getenv("TEST_DATABASE_URL") != "" {
		out = append(out, Backend{Name: store.DialectPostgres, Open: Postgres})
	} else if os.Getenv("MNEMO_REQUIRE_POSTGRES") == "1" {
		t.Fatal("MNEMO_REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set: the Postgres suite may not be skipped")
	} else {
		t.Log("TEST_DATABASE_URL not set: Postgres backend skipped")
	}
	return out
}

// SQLite opens a migrated SQLite store in a temporary directory.
func SQLite(t testing.TB) store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.OpenSQLite(ctx, filepath.Join(t.TempDir(), "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// PostgresSchema creates an empty schema of its own for one test in the
// database at TEST_DATABASE_URL and returns its name; it is dropped at cleanup.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	url := os.Getenv("TEST_DATABASE_URL")
	if url == "" {
		if os.Getenv("MNEMO_REQUIRE_POSTGRES") == "1" {
			t.Fatal("MNEMO_REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set")
		}
		t.Skip("TEST_DATABASE_URL not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to TEST_DATABASE_URL: %v", err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("t_%s", strings.ReplaceAll(store.NewID(), "-", "")[:20])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), url)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	return schema
}

// Postgres opens a migrated Postgres store in a schema of its own.
func Postgres(t testing.TB) store.Store {
	t.Helper()
	schema := PostgresSchema(t)
	ctx := context.Background()
	cfg, err := store.PostgresConfig(os.Getenv("TEST_DATABASE_URL"), schema, 8)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenPostgres(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// The apps the cases' rows belong to. The store knows no app kinds: to it an
// app is a label that it stores, filters by, groups by and orders by, so the
// suite names no real preset. The labels sort appA < appB < … < appE, which
// the cases that read rows grouped or ordered by app rely on.
const (
	appA = "app-a"
	appB = "app-b"
	appC = "app-c"
	appD = "app-d"
	appE = "app-e"
)

// T0 is a fixed instant tests build their times from.
var T0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
