package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// pretendReadOnly makes canWrite refuse path while on is set: tests run as
// root, whom a 0444 file does not stop. Not parallel: canWrite is global.
func pretendReadOnly(t *testing.T, path string, on *atomic.Bool) {
	real := canWrite
	canWrite = func(p string) error {
		if on.Load() && p == path {
			return syscall.EACCES
		}
		return real(p)
	}
	t.Cleanup(func() { canWrite = real })
}

// TestReadOnlySQLiteRecovers: a store opened on a database file it may not
// write migrates nothing without writing, reads, refuses writes with an error
// IsReadOnly recognises and leaves no -wal or -shm behind; once the file is
// writable the same store writes, its connection replaced.
func TestReadOnlySQLiteRecovers(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sess := func(id string) Session {
		return Session{ID: id, UserID: "u-1", App: "mona", Status: StatusClosed, StartedAt: at, EndedAt: at, UpdatedAt: at}
	}
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertUser(ctx, User{ID: "u-1", App: "mona", CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, sess("s-1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	var ro atomic.Bool
	ro.Store(true)
	pretendReadOnly(t, path, &ro)
	s, err = OpenSQLite(ctx, path)
	if err != nil {
		t.Fatalf("open a read-only file: %v", err)
	}
	defer s.Close()
	if done, err := s.MigrateUp(ctx); err != nil || len(done) != 0 {
		t.Fatalf("MigrateUp on a current read-only schema = %v, %v; want nothing, no error", done, err)
	}
	if err := s.CheckWritable(); !IsReadOnly(err) {
		t.Fatalf("CheckWritable = %v; want a read-only error", err)
	}
	if _, err := s.GetSession(ctx, "s-1"); err != nil {
		t.Fatalf("read from a read-only file: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := s.CreateSession(ctx, sess("s-2")); !IsReadOnly(err) {
			t.Fatalf("write to a read-only file: %v; want a read-only error", err)
		}
	}
	err = s.InTx(ctx, func(ctx context.Context, tx Tx) error { return tx.CreateSession(ctx, sess("s-2")) })
	if !IsReadOnly(err) {
		t.Fatalf("transaction on a read-only file: %v; want a read-only error", err)
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s after reading a read-only file: %v; want none (SQLite makes it read-only too)", side, err)
		}
	}

	ro.Store(false)
	if err := s.CheckWritable(); err != nil {
		t.Fatalf("CheckWritable once writable = %v", err)
	}
	if err := s.CreateSession(ctx, sess("s-2")); err != nil {
		t.Fatalf("write once the file is writable again, same store: %v", err)
	}
	if _, err := s.GetSession(ctx, "s-2"); err != nil {
		t.Fatal(err)
	}
}

// TestReadOnlySQLiteOldSchema: a read-only file whose schema is not current
// cannot be migrated, and says it is read-only.
func TestReadOnlySQLiteOldSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MigrateDown(ctx, 1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var ro atomic.Bool
	ro.Store(true)
	pretendReadOnly(t, path, &ro)
	s, err = OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Pending(ctx); err != nil || n != 1 {
		t.Fatalf("Pending = %d, %v; want 1", n, err)
	}
	if _, err := s.MigrateUp(ctx); !IsReadOnly(err) {
		t.Fatalf("MigrateUp on an old read-only schema = %v; want a read-only error", err)
	}
}
