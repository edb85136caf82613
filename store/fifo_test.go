package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// A caller that gives up waiting for the connection leaves the queue without
// taking a turn, and rows read to the end give the turn back even if the
// caller forgets to close them.
func TestFIFOGate(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "gate.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.gate.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.queries.e.exec(short, "SELECT 1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("exec while the connection is taken = %v, want the deadline", err)
	}
	if err := s.InTx(short, func(context.Context, Tx) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("InTx while the connection is taken = %v, want the deadline", err)
	}
	s.gate.release()

	r, err := s.queries.e.query(ctx, "SELECT 1 UNION ALL SELECT 2")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Next() {
		n++
	}
	if n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}
	// No Close: the turn went back when Next ran out.
	// A turn never given back blocks the next caller: it fails when the test
	// binary's -timeout is near, not on a clock of its own.
	done, cancel2 := context.WithCancel(ctx)
	if at := testwait.GiveUpAt(t); !at.IsZero() {
		done, cancel2 = context.WithDeadline(ctx, at)
	}
	defer cancel2()
	if err := s.InTx(done, func(ctx context.Context, tx Tx) error { return nil }); err != nil {
		t.Fatalf("the next caller did not get its turn: %v", err)
	}
	r.Close() // closing twice gives nothing back twice
	if len(s.gate) != 0 {
		t.Fatal("the gate is held after every caller is done")
	}
}
