// Package pgbouncertest starts a real PgBouncer in transaction pooling for
// tests and benchmarks that run Mnemo behind one (docs/operating-at-scale.md).
package pgbouncertest

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// Binary is the path of pgbouncer ("" when not installed); Debian puts it
// in /usr/sbin, which a user's PATH may lack.
func Binary() string {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/pgbouncer"); err == nil {
		return "/usr/sbin/pgbouncer"
	}
	return ""
}

// Start starts pgbouncer (bin) in transaction pooling on a free port of
// 127.0.0.1, in front of the database of pgURL, its server connections in
// schema when schema is not empty, at most poolSize of them, and returns
// the DSN that reaches it. It is stopped at cleanup.
func Start(t testing.TB, bin, pgURL, schema string, poolSize int) string {
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
	// The server connections take the schema when they connect
	// (connect_query), as a client's search_path startup parameter is
	// refused by PgBouncer. auth_type any: PgBouncer logs in as the
	// database entry's user, Postgres trusts 127.0.0.1.
	entry := fmt.Sprintf("host=%s port=%s dbname=%s user=%s", host, port, db, u.User.Username())
	if schema != "" {
		entry += fmt.Sprintf(" connect_query='SET search_path TO %s'", schema)
	}
	ini := fmt.Sprintf(`[databases]
mnemo = %s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 500
default_pool_size = %d
ignore_startup_parameters = extra_float_digits
`, entry, listen, poolSize)
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

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
