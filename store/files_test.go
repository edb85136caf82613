package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSQLiteFilesAreOwnerOnly: a database created anywhere (not only under
// ./data, whose directory keeps others out) is 0600, and so are its -wal and
// -shm; the directory created for it is 0700. Before, SQLite created the
// file 0644 less the umask.
func TestSQLiteFilesAreOwnerOnly(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new", "db")
	path := filepath.Join(dir, "mnemo.db")
	ctx := context.Background()
	s, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		want os.FileMode
	}{{dir, 0o700}, {filepath.Dir(dir), 0o700}, {path, 0o600}, {path + "-wal", 0o600}, {path + "-shm", 0o600}} {
		fi, err := os.Stat(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != f.want {
			t.Errorf("%s: mode %v, want %v", f.path, got, f.want)
		}
	}
}

// TestSQLiteKeepsExistingModes: an existing file keeps the mode its operator
// gave it.
func TestSQLiteKeepsExistingModes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, %v; want 0640", fi.Mode().Perm(), err)
	}
}

// TestLockSQLite: one lock per database at a time, across open files of one
// process as across processes; released, it can be taken again.
func TestLockSQLite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	first, err := LockSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + ".lock"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v, %v; want 0600", fi, err)
	}
	if _, err := LockSQLite(path); !errors.Is(err, ErrInUse) {
		t.Fatalf("second lock: %v; want ErrInUse", err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := LockSQLite(path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	_ = again.Release()
}
