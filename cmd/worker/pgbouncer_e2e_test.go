package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestHandoffThroughPgBouncerInTransactionPooling runs the worker behind a
// real PgBouncer in transaction pooling (MNEMO_PG_POOLER=transaction): it
// migrates through it, a session is handed over HTTP, the worker extracts
// it, and its memories read back, and so does a second session's. Skipped
// when pgbouncer is not installed, unless MNEMO_REQUIRE_PGBOUNCER=1 (.ci/run
// installs it and sets that).
func TestHandoffThroughPgBouncerInTransactionPooling(t *testing.T) {
	t.Parallel()
	bin := pgbouncerBinary()
	if bin == "" {
		if os.Getenv("MNEMO_REQUIRE_PGBOUNCER") == "1" {
			t.Fatal("MNEMO_REQUIRE_PGBOUNCER=1 but pgbouncer is not installed (apt-get install pgbouncer)")
		}
		t.Skip("pgbouncer is not installed")
	}
	schema := storetest.PostgresSchema(t) // skips (or fails) without Postgres
	dsn := startPgBouncer(t, bin, os.Getenv("TEST_DATABASE_URL"), schema)

	w := startWorker(t, map[string]string{
		"DATABASE_URL":         dsn,
		"MNEMO_PG_POOLER":      "transaction",
		"MNEMO_API_TOKENS":     "service:" + serviceToken,
		"MNEMO_ENCRYPTION_KEY": "pgbouncer:a passphrase for the pgbouncer test",
		"MNEMO_LOG_LEVEL":      "warn",
		"MNEMO_SHUTDOWN_GRACE": "3s",
	})
	c := client{t: t, base: "http://" + w.addr}
	for i, s := range []struct{ id, text, food string }{
		{"pgb-1", "My favorite food is ramen.", "ramen"},
		{"pgb-2", "My favorite food is sushi now.", "sushi"},
	} {
		code, res := c.do("POST", "/v1/sessions/"+s.id+"/close", map[string]any{
			"user_id": "u-pgb", "app": "mona", "started_at": at(10 * i), "ended_at": at(10*i + 5), "timezone": "Europe/Berlin",
			"messages": []map[string]any{
				{"id": "m1", "role": "user", "content": "Hi! My name is Peggy.", "at": at(10*i + 1)},
				{"id": "m2", "role": "user", "content": s.text, "at": at(10*i + 2)},
			},
		})
		if code != 202 {
			t.Fatalf("close %s through PgBouncer = %d %v", s.id, code, res)
		}
		if got := c.waitProcessed(s.id); got["status"] != "processed" {
			t.Fatalf("session %s = %v", s.id, got)
		}
		mems := memoriesByKey(t, c, "u-pgb")
		if mems["name"]["value"] != "Peggy" || mems["favorite_food"]["value"] != s.food {
			t.Fatalf("memories after %s = %v; want name Peggy and favorite_food %s", s.id, mems, s.food)
		}
	}
	if log := w.stderr.String(); strings.Contains(log, "prepared statement") || strings.Contains(log, "LISTEN") {
		t.Fatalf("the worker's log names prepared statements or LISTEN behind PgBouncer:\n%s", log)
	}
}

// pgbouncerBinary is the path of pgbouncer ("" when not installed); Debian
// puts it in /usr/sbin, which a user's PATH may lack.
func pgbouncerBinary() string {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/pgbouncer"); err == nil {
		return "/usr/sbin/pgbouncer"
	}
	return ""
}

// startPgBouncer starts pgbouncer in transaction pooling on a free port of
// 127.0.0.1, in front of the database of pgURL, its server connections in
// schema, and returns the DSN that reaches it. It is stopped at cleanup.
func startPgBouncer(t *testing.T, bin, pgURL, schema string) string {
	t.Helper()
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "5432"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	dir := t.TempDir()
	// pgbouncer will not run as root; it then runs as postgres (or nobody),
	// which must read the ini.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The server connections take the test's schema when they connect
	// (connect_query), as a client's search_path startup parameter is
	// refused by PgBouncer. auth_type any: PgBouncer logs in as the
	// database entry's user, Postgres trusts 127.0.0.1.
	entry := fmt.Sprintf("host=%s port=%s dbname=%s user=%s connect_query='SET search_path TO %s'", host, port, db, u.User.Username(), schema)
	ini := fmt.Sprintf(`[databases]
mnemo = %s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
ignore_startup_parameters = extra_float_digits
`, entry, listen)
	path := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(path, []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{path}
	if os.Geteuid() == 0 {
		for _, name := range []string{"postgres", "nobody"} {
			if _, err := user.Lookup(name); err == nil {
				args = []string{"-u", name, path}
				break
			}
		}
	}
	cmd := exec.Command(bin, args...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("pgbouncer's log:\n%s", out.String())
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", listen)
	testwait.Until(t, "pgbouncer to listen on "+addr, func() (bool, string) {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("pgbouncer exited: %v\n%s", err, out.String())
		default:
		}
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return false, err.Error()
		}
		conn.Close()
		return true, ""
	})
	return fmt.Sprintf("postgres://%s@%s/mnemo?sslmode=disable", u.User.Username(), addr)
}
