package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-ai/mnemo/store"
)

// closedPort is a port of 127.0.0.1 nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// TestIsUnavailable: a database out of reach or dropping the connection is
// unavailable (the API answers 503); a refused statement is not.
func TestIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, connErr := pgconn.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/x?sslmode=disable", closedPort(t)))
	if connErr == nil {
		t.Fatal("connected to a closed port")
	}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", fmt.Errorf("begin: %w", connErr), true},
		{"connection lost", fmt.Errorf("commit: %w", io.ErrUnexpectedEOF), true},
		{"connection closed", fmt.Errorf("insert: %w", pgconn.ErrConnClosed), true},
		{"broken pipe", &net.OpError{Op: "write", Net: "tcp", Err: errors.New("broken pipe")}, true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"no write rights", &pgconn.PgError{Code: "42501"}, false},
		{"not found", store.ErrNotFound, false},
		{"nil", nil, false},
	}
	for _, c := range cases {
		if got := store.IsUnavailable(c.err); got != c.want {
			t.Errorf("%s: IsUnavailable(%v) = %v; want %v", c.name, c.err, got, c.want)
		}
	}
}
