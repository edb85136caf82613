package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// TestReadOnlyCommandsCreateNothing runs commands that only read in an empty
// folder with the default database (./data/mnemo.db) and no key: each says
// there is no database and leaves the folder empty: no database, no key.
func TestReadOnlyCommandsCreateNothing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"batch", "list"}, 1, "no database at data/mnemo.db"},
		{[]string{"jobs", "list"}, 1, "no database at data/mnemo.db"},
		{[]string{"queues", "list"}, 1, "no database at data/mnemo.db"},
		{[]string{"migrate", "status"}, 1, "no database at data/mnemo.db"},
		{[]string{"migrate", "down", "1"}, 1, "no database at data/mnemo.db"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
	} {
		t.Run(strings.Join(c.args, "_"), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], c.args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "MNEMO_TEST_RUN_MAIN=1", "DATABASE_URL=", "MNEMO_ENCRYPTION_KEY=", "MNEMO_APPS_DIR=")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != c.code {
				t.Fatalf("exit %v; want %d\n%s", err, c.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
				t.Fatalf("stderr %q; want one line saying %q", stderr.String(), c.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("the command left %v in the current folder", entries)
			}
		})
	}
}

// TestServeFilesAreOwnerOnly: a worker on a new SQLite database outside
// ./data, with no MNEMO_ENCRYPTION_KEY, creates the database, its -wal and
// -shm and the key file readable by their owner only, in folders only the
// owner may enter.
func TestServeFilesAreOwnerOnly(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "state")
	dir := filepath.Join(base, "mnemo")
	db := filepath.Join(dir, "mnemo.db")
	w := startWorker(t, map[string]string{"DATABASE_URL": "sqlite://" + db})
	defer w.stop(t)
	for _, f := range []struct {
		path string
		want os.FileMode
	}{{base, 0o700}, {dir, 0o700}, {db, 0o600}, {db + "-wal", 0o600}, {db + "-shm", 0o600}, {filepath.Join(dir, "mnemo.key"), 0o600}, {db + ".lock", 0o600}} {
		fi, err := os.Stat(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != f.want {
			t.Errorf("%s: mode %v, want %v", f.path, got, f.want)
		}
	}
}

// TestSecondServeOnOneSQLiteFileRefuses: SQLite is one process per file; a
// second worker started on the same file says so in one line and exits 1,
// creating no key.
func TestSecondServeOnOneSQLiteFileRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "mnemo.db")
	w := startWorker(t, map[string]string{"DATABASE_URL": url, "MNEMO_ENCRYPTION_KEY": "k:a passphrase for this test"})

	// A serve that does not refuse would serve until the test binary's
	// deadline is near: no clock of the test's own.
	ctx, cancel := context.WithCancel(context.Background())
	if at := testwait.GiveUpAt(t); !at.IsZero() {
		ctx, cancel = context.WithDeadline(context.Background(), at)
	}
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"serve", "--listen", "127.0.0.1:0"}, mapEnv(map[string]string{"DATABASE_URL": url}), strings.NewReader(""), &out, &errOut)
	if code != 1 {
		t.Fatalf("second serve: exit %d; want 1\n%s", code, errOut.String())
	}
	line := strings.TrimSuffix(errOut.String(), "\n")
	if strings.Contains(line, "\n") || !strings.Contains(line, "another worker is serving") || !strings.Contains(line, "mnemo.db") {
		t.Fatalf("second serve said %q; want one line naming the database", errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "mnemo.key")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused serve left a key file: %v", err)
	}
	if code := w.stop(t); code != 0 {
		t.Fatalf("first worker exit %d", code)
	}
	// Once the first is gone, the file may be served again.
	startWorker(t, map[string]string{"DATABASE_URL": url, "MNEMO_ENCRYPTION_KEY": "k:a passphrase for this test"}).stop(t)
}
