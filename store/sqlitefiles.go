package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// errLocked says another open file holds the lock.
var errLocked = errors.New("locked")

// ErrInUse says another worker serves the SQLite database.
var ErrInUse = errors.New("another worker is serving this database")

// SQLiteLock is the advisory lock a serving worker holds on its SQLite
// database for as long as it runs: SQLite is one process per file.
type SQLiteLock struct {
	f    *os.File
	Path string
}

// LockSQLite takes the advisory lock (flock) on PATH.lock, created 0600 beside
// the database, without waiting. It fails with an error matching ErrInUse
// when another process (or another open of it in this one) holds it. A lock
// file that cannot be created (a read-only directory, where a database can
// only be read) leaves the database unguarded: the lock is nil and err says
// why, wrapping the cause, not ErrInUse. The lock goes with the process.
func LockSQLite(path string) (*SQLiteLock, error) {
	lockPath := path + ".lock"
	_ = os.MkdirAll(filepath.Dir(path), 0o700) // as OpenSQLite would
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if f, err = os.Open(lockPath); err != nil {
			return nil, fmt.Errorf("lock file %s: %w", lockPath, err)
		}
	}
	if err := flockExclusive(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%w: %s (lock %s is held)", ErrInUse, path, lockPath)
		}
		return nil, fmt.Errorf("lock file %s: %w", lockPath, err)
	}
	return &SQLiteLock{f: f, Path: lockPath}, nil
}

// Release gives the lock up. The lock file stays: removing it could let two
// workers lock two different files of the same name.
func (l *SQLiteLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// createSQLiteFile creates the database file at path, 0600, and its missing
// directories, 0700, unless the file exists. SQLite would create it with
// mode 0644 (less the umask), readable by every user of the machine, and its
// -wal and -shm after it.
func createSQLiteFile(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create database directory: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // another process created it meanwhile
	}
	if err != nil {
		return fmt.Errorf("create database file: %w", err)
	}
	return f.Close()
}

// SQLiteExists reports whether a database file exists at path: commands
// that only read open an existing database, never create one.
func SQLiteExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
