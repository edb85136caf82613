package faults

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// nobody is the unprivileged user the worker runs as when the tests run as
// root, whom file permissions do not bind.
const nobody = 65534

// roDir makes a directory for one worker's database, owned by the user the
// worker runs as, inside a parent that user may enter.
func roDir(t *testing.T) string {
	t.Helper()
	parent, err := os.MkdirTemp("", "mnemo-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	dir := filepath.Join(parent, "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startLogged starts a worker in dir as the unprivileged user.
func startLogged(t *testing.T, dir string, env []string) *worker {
	t.Helper()
	return launch(t, workerCmd(dir, env, true, "--listen", "127.0.0.1:0"))
}

func roEnv(db string) []string {
	return []string{"DATABASE_URL=sqlite://" + db, "MNEMO_API_TOKENS=service:" + token,
		"MNEMO_ENCRYPTION_KEY=f:read-only fault passphrase", "OPENAI_BASE_URL=", "MNEMO_LLM_MODEL=",
		"MNEMO_LOG_FORMAT=json", "MNEMO_LOG_LEVEL=info", "MNEMO_POLL_INTERVAL=50ms", "MNEMO_SHUTDOWN_GRACE=1s"}
}

func handoffBody(now time.Time) map[string]any {
	return map[string]any{"user_id": "u-ro", "app": "mona", "started_at": now.Format(time.RFC3339),
		"ended_at": now.Add(10 * time.Minute).Format(time.RFC3339),
		"messages": []map[string]any{{"id": "m1", "role": "user", "content": "My name is Peggy.", "at": now.Add(time.Minute).Format(time.RFC3339)}}}
}

// TestReadOnlySQLiteFile: an operator restores the database file with the
// wrong permissions (0444). The worker starts on it and says once that the
// database is read-only; it serves reads, /readyz and every handoff answer
// 503 (read_only) and nothing is written. Made writable again (0644), the
// same process takes the handoff sent again and processes it.
//
// The read-only file is what a clean stop leaves and a backup restores: the
// whole database in one file, its -wal and -shm gone, in the worker's own
// (writable) directory. SQLite would create the -wal and -shm with the
// file's read-only mode and they would keep the database read-only after the
// file is fixed; the worker must not leave them behind.
func TestReadOnlySQLiteFile(t *testing.T) {
	skipShort(t, "store TestReadOnlySQLiteRecovers")
	t.Parallel()
	dir := roDir(t)
	db := filepath.Join(dir, "mnemo.db")
	env := roEnv(db)
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	body := handoffBody(now)

	// 1. A working database with one processed session, stopped cleanly.
	w := startLogged(t, dir, env)
	if code, _, err := call("POST", w.addr, "/v1/sessions/ro-1/close", body); err != nil || code != 202 {
		t.Fatalf("first handoff: %d %v", code, err)
	}
	waitProcessed(t, w.addr, "ro-1")
	w.stop(t)
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(db + side); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s after a clean stop: %v; want none", side, err)
		}
	}

	// 2. Read-only: the worker comes up, warns once, and refuses writes.
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	w = startLogged(t, dir, env)
	if code, _, err := call("GET", w.addr, "/healthz", nil); err != nil || code != 200 {
		t.Fatalf("/healthz on a read-only database: %d %v; want 200", code, err)
	}
	if code, ans, err := call("GET", w.addr, "/readyz", nil); err != nil || code != 503 {
		t.Fatalf("/readyz on a read-only database: %d %v %v; want 503", code, ans, err)
	}
	if code, ans, err := call("GET", w.addr, "/v1/sessions/ro-1", nil); err != nil || code != 200 || ans["status"] != "processed" {
		t.Fatalf("reading a session from a read-only database: %d %v %v", code, ans, err)
	}
	const refusals = 5
	refused := 0
	for i := 0; i < refusals; i++ {
		code, ans, err := call("POST", w.addr, "/v1/sessions/ro-2/close", body)
		if err != nil {
			t.Fatal(err)
		}
		errCode, msg := errorCode(ans)
		if code != 503 || errCode != "read_only" || msg == "" {
			t.Fatalf("handoff to a read-only database = %d %v; want 503 read_only with a message", code, ans)
		}
		refused++
	}
	if code, _, err := call("GET", w.addr, "/v1/sessions/ro-2", nil); err != nil || code != 404 {
		t.Fatalf("a refused handoff left a session: GET = %d %v; want 404", code, err)
	}
	warnings := 0
	for _, l := range w.log() {
		if strings.Contains(l, `"level":"WARN","msg":"database is read-only`) {
			warnings++
		}
	}
	if warnings != 1 {
		t.Fatalf("%d read-only warnings in the log; want one:\n%s", warnings, strings.Join(w.log(), "\n"))
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(db + side); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s created while the database was read-only: %v", side, err)
		}
	}

	// 3. Writable again, same process: the handoff sent again goes through.
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	fixed := time.Now()
	// The worker notices the file is writable again on its own time: the
	// handoff is sent again until the test binary's deadline is near, not a
	// fixed number of times.
	retries, accepted := 0, false
	for giveUp := testwait.GiveUpAt(t); !testwait.Past(giveUp); retries++ {
		code, _, err := call("POST", w.addr, "/v1/sessions/ro-2/close", body)
		if err != nil {
			t.Fatal(err)
		}
		if code == 202 {
			accepted = true
			break
		}
		if code != 503 {
			t.Fatalf("handoff once writable = %d; want 202 (or 503 until the worker notices)", code)
		}
		<-time.After(100 * time.Millisecond)
	}
	if !accepted {
		t.Fatalf("handoff still refused %d tries after the database became writable (gave up near the test binary's -timeout)", retries)
	}
	waitProcessed(t, w.addr, "ro-2")
	processedIn := time.Since(fixed)
	for deadline := testwait.GiveUpAt(t); ; {
		code, _, err := call("GET", w.addr, "/readyz", nil)
		if err == nil && code == 200 {
			break
		}
		if testwait.Past(deadline) {
			t.Fatalf("/readyz = %d %v once writable; want 200", code, err)
		}
		<-time.After(50 * time.Millisecond)
	}
	w.stop(t)
	figures.Report(t, "read-only SQLite file: %d handoffs refused 503 read_only while read-only, accepted after %d refused retries once writable, 2 of 2 sessions processed (the second %s after the file was fixed), no restart",
		refused, retries, processedIn.Round(10*time.Millisecond))
}

// TestReadOnlySQLiteOldSchema: a read-only file whose schema is older than
// the worker's cannot be migrated; the worker exits at once with one line
// saying so, rather than serving a schema it does not know.
func TestReadOnlySQLiteOldSchema(t *testing.T) {
	skipShort(t, "store TestReadOnlySQLiteOldSchema")
	t.Parallel()
	dir := roDir(t)
	db := filepath.Join(dir, "mnemo.db")
	env := roEnv(db)
	for _, args := range [][]string{{"migrate", "up"}, {"migrate", "down", "1"}} {
		if out, err := workerCmd(dir, env, true, args...).CombinedOutput(); err != nil {
			t.Fatalf("worker %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	cmd := workerCmd(dir, env, true, "--listen", "127.0.0.1:0")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() {
		out, err = cmd.CombinedOutput()
		close(done)
	}()
	select {
	case <-done:
	case <-testwait.Deadline(t):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("worker on a read-only file with an old schema still runs:\n%s", out)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("worker on a read-only file with an old schema: %v; want exit status 1\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "cannot be written and its schema is not current") {
		t.Fatalf("last line %q does not say the database is read-only with an old schema:\n%s", last, out)
	}
	t.Logf("worker on a read-only file with an old schema: %s", last)
}
