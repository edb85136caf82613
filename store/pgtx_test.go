package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// openCountingPostgres opens a migrated Postgres store of one connection
// whose statements and round trips c counts.
func openCountingPostgres(t *testing.T, c *counts) *store.Postgres {
	t.Helper()
	if os.Getenv("TEST_DATABASE_URL") == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	cfg, err := store.PostgresConfig(os.Getenv("TEST_DATABASE_URL"), storetest.PostgresSchema(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = pgCounter{&c.n, &c.rts}
	s, err := store.OpenPostgres(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.MigrateUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPostgresTransactionBeginsWithItsFirstStatement: the BEGIN of a
// transaction goes with its first statement, whatever sends it (the
// store's queries, a pipeline, River through Raw), and the transaction
// holds what it sent and ends as pgx.BeginFunc ends one.
func TestPostgresTransactionBeginsWithItsFirstStatement(t *testing.T) {
	var c counts
	s := openCountingPostgres(t, &c)
	ctx := context.Background()
	user := func(id string) store.User {
		return store.User{ID: id, App: "mona", Timezone: "UTC", CreatedAt: storetest.T0, UpdatedAt: storetest.T0}
	}
	measure := func(fn func(ctx context.Context, tx store.Tx) error) (stmts, rts int64, err error) {
		n0, r0 := c.n.Load(), c.rts.Load()
		err = s.InTx(ctx, fn)
		return c.n.Load() - n0, c.rts.Load() - r0, err
	}

	// Nothing sent: nothing to begin or commit.
	if n, r, err := measure(func(context.Context, store.Tx) error { return nil }); err != nil || n != 0 || r != 0 {
		t.Fatalf("an empty transaction: %d statements, %d round trips, %v", n, r, err)
	}
	// One statement: BEGIN with it, then COMMIT.
	n, r, err := measure(func(ctx context.Context, tx store.Tx) error { return tx.UpsertUser(ctx, user("u-1")) })
	if err != nil || n != 3 || r != 2 {
		t.Fatalf("one statement: %d statements, %d round trips, %v; want 3 in 2", n, r, err)
	}
	// A query first, then more.
	n, r, err = measure(func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.GetUser(ctx, "u-1"); err != nil {
			return err
		}
		return tx.UpsertUser(ctx, user("u-2"))
	})
	if err != nil || n != 4 || r != 3 {
		t.Fatalf("a query first: %d statements, %d round trips, %v; want 4 in 3", n, r, err)
	}
	for _, id := range []string{"u-1", "u-2"} {
		if _, err := s.GetUser(ctx, id); err != nil {
			t.Fatalf("%s not committed: %v", id, err)
		}
	}

	// Whatever sends the first statement, the rest is in the transaction
	// with it, and an error rolls all of it back.
	errRollback := errors.New("roll back")
	firsts := map[string]func(ctx context.Context, tx store.Tx) error{
		"exec": func(ctx context.Context, tx store.Tx) error { return tx.UpsertUser(ctx, user("u-3")) },
		"query": func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetUser(ctx, "u-1")
			return err
		},
		"pipeline": func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetSessionInput(ctx, "none")
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return fmt.Errorf("input of no session: %v", err)
		},
		"raw exec": func(ctx context.Context, tx store.Tx) error {
			_, err := tx.Raw().(pgx.Tx).Exec(ctx, "INSERT INTO mnemo_users (id, app, display_name, timezone, memory_disabled, created_at, updated_at) VALUES ($1, 'mona', '', 'UTC', false, now(), now())", "u-3")
			return err
		},
		"raw exec without arguments": func(ctx context.Context, tx store.Tx) error {
			_, err := tx.Raw().(pgx.Tx).Exec(ctx, "SET LOCAL statement_timeout = '5s'; SELECT 1")
			return err
		},
		"raw query row": func(ctx context.Context, tx store.Tx) error {
			var id string
			if err := tx.Raw().(pgx.Tx).QueryRow(ctx, "SELECT id FROM mnemo_users WHERE id = $1", "nobody").Scan(&id); !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("no row: %v; want pgx.ErrNoRows", err)
			}
			return tx.Raw().(pgx.Tx).QueryRow(ctx, "SELECT id FROM mnemo_users WHERE id = $1", "u-1").Scan(&id)
		},
		"raw batch": func(ctx context.Context, tx store.Tx) error {
			b := &pgx.Batch{}
			b.Queue("SELECT 1")
			b.Queue("SELECT $1::int", 2)
			return tx.Raw().(pgx.Tx).SendBatch(ctx, b).Close()
		},
		"raw savepoint": func(ctx context.Context, tx store.Tx) error {
			sp, err := tx.Raw().(pgx.Tx).Begin(ctx)
			if err != nil {
				return err
			}
			if _, err := sp.Exec(ctx, "SELECT 1"); err != nil {
				return err
			}
			return sp.Commit(ctx)
		},
		"raw copy": func(ctx context.Context, tx store.Tx) error {
			_, err := tx.Raw().(pgx.Tx).CopyFrom(ctx, pgx.Identifier{"mnemo_users"},
				[]string{"id", "app", "display_name", "timezone", "memory_disabled", "created_at", "updated_at"},
				pgx.CopyFromRows([][]any{{"u-3", "mona", "", "UTC", false, storetest.T0, storetest.T0}}))
			return err
		},
	}
	for name, first := range firsts {
		err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if err := first(ctx, tx); err != nil {
				return err
			}
			if err := tx.UpsertUser(ctx, user("u-4")); err != nil {
				return err
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			t.Fatalf("%s: %v", name, err)
		}
		for _, id := range []string{"u-3", "u-4"} {
			if _, err := s.GetUser(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("%s: %s outlived the rollback: %v", name, id, err)
			}
		}
		// Committed, it is there.
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		must(s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if err := first(ctx, tx); err != nil {
				return err
			}
			return tx.UpsertUser(ctx, user("u-4"))
		}))
		_, err = s.GetUser(ctx, "u-4")
		must(err)
		must(s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			_, err := tx.Raw().(pgx.Tx).Exec(ctx, "DELETE FROM mnemo_users WHERE id IN ('u-3', 'u-4')")
			return err
		}))
	}

	// A first statement that fails leaves the transaction for the
	// rollback; the pool's one connection serves the next.
	err = s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		return tx.CreateSession(ctx, store.Session{ID: "s-1", UserID: "nobody", App: "mona", Status: store.StatusClosed,
			StartedAt: storetest.T0, EndedAt: storetest.T0, UpdatedAt: storetest.T0})
	})
	if err == nil || !strings.Contains(err.Error(), "create session") {
		t.Fatalf("a session of no user: %v", err)
	}
	// A failed statement whose error fn ignores: the commit is a rollback.
	err = s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		_ = tx.UpsertUser(ctx, user("u-5"))
		_, _ = tx.Raw().(pgx.Tx).Exec(ctx, "SELECT 1/0")
		return nil
	})
	if !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("commit of a failed transaction: %v; want pgx.ErrTxCommitRollback", err)
	}
	if _, err := s.GetUser(ctx, "u-5"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("u-5 committed with a failed transaction: %v", err)
	}
	// A panic rolls back.
	func() {
		defer func() { _ = recover() }()
		_ = s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if err := tx.UpsertUser(ctx, user("u-6")); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if _, err := s.GetUser(ctx, "u-6"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("u-6 committed by a panicking transaction: %v", err)
	}
	if _, err := s.GetUser(ctx, "u-1"); err != nil {
		t.Fatalf("the pool after all that: %v", err)
	}
}

// TestPostgresTransactionOutOfReach: a transaction on a server out of
// reach fails at its first statement, with an error IsUnavailable knows.
func TestPostgresTransactionOutOfReach(t *testing.T) {
	t.Parallel()
	cfg, err := store.PostgresConfig(fmt.Sprintf("postgres://postgres@127.0.0.1:%d/x?sslmode=disable&connect_timeout=5", closedPort(t)), "", 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenPostgres(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.InTx(context.Background(), func(ctx context.Context, tx store.Tx) error {
		_, err := tx.GetSessionForUpdate(ctx, "s-1")
		return err
	})
	if !store.IsUnavailable(err) {
		t.Fatalf("a transaction out of reach: %v; want IsUnavailable", err)
	}
	err = s.InTx(context.Background(), func(ctx context.Context, tx store.Tx) error {
		_, err := tx.LockExtraction(ctx, "s-1", store.ExtractionReads{Memories: true})
		return err
	})
	if !store.IsUnavailable(err) {
		t.Fatalf("a pipeline out of reach: %v; want IsUnavailable", err)
	}
	// Writes that wait for the COMMIT find no server there either.
	err = s.InTx(context.Background(), func(ctx context.Context, tx store.Tx) error {
		return tx.CreateSession(ctx, store.Session{ID: "s-1", UserID: "u-1", App: "mona", Status: store.StatusClosed,
			StartedAt: storetest.T0, EndedAt: storetest.T0, UpdatedAt: storetest.T0})
	})
	if !store.IsUnavailable(err) {
		t.Fatalf("queued writes out of reach: %v; want IsUnavailable", err)
	}
}

// TestPostgresWritesWaitForTheNextRoundTrip: inserts that need no answer
// (a session, its events, its transcript) wait for the transaction's next
// statement or its COMMIT and go in that round trip; what they would have
// done alone they still do: a read after them sees them, a failure among
// them fails the transaction and leaves nothing, a rollback drops them.
func TestPostgresWritesWaitForTheNextRoundTrip(t *testing.T) {
	var c counts
	s := openCountingPostgres(t, &c)
	ctx := context.Background()
	if err := s.UpsertUser(ctx, store.User{ID: "u-1", App: "mona", Timezone: "UTC", CreatedAt: storetest.T0, UpdatedAt: storetest.T0}); err != nil {
		t.Fatal(err)
	}
	sess := func(id, user string) store.Session {
		return store.Session{ID: id, UserID: user, App: "mona", Status: store.StatusClosed, StartedAt: storetest.T0,
			EndedAt: storetest.T0, UpdatedAt: storetest.T0}
	}
	event := func(session string, seq int) store.Event {
		return store.Event{SessionID: session, Seq: seq, UserID: "u-1", Type: "mood", At: storetest.T0, Data: []byte(`{}`)}
	}
	chunk := func(session string) store.Chunk {
		return store.Chunk{SessionID: session, UserID: "u-1", KeyID: "k", Nonce: []byte{1}, Ciphertext: []byte{2}, SHA256: []byte{3}, CreatedAt: storetest.T0}
	}
	measure := func(fn func(ctx context.Context, tx store.Tx) error) (stmts, rts int64, err error) {
		n0, r0 := c.n.Load(), c.rts.Load()
		err = s.InTx(ctx, fn)
		return c.n.Load() - n0, c.rts.Load() - r0, err
	}
	handoff := func(id string) func(ctx context.Context, tx store.Tx) error {
		return func(ctx context.Context, tx store.Tx) error {
			if err := tx.CreateSession(ctx, sess(id, "u-1")); err != nil {
				return err
			}
			if err := tx.InsertEvents(ctx, []store.Event{event(id, 0), event(id, 1)}); err != nil {
				return err
			}
			return tx.InsertChunks(ctx, []store.Chunk{chunk(id)})
		}
	}

	// Three inserts and nothing else: BEGIN, the inserts and COMMIT in one round trip.
	n, r, err := measure(handoff("s-1"))
	if err != nil || n != 5 || r != 1 {
		t.Fatalf("inserts alone: %d statements, %d round trips, %v; want 5 in 1", n, r, err)
	}
	if ev, err := s.ListEvents(ctx, "s-1"); err != nil || len(ev) != 2 {
		t.Fatalf("events committed with the session: %d, %v", len(ev), err)
	}
	// A read after them goes in their round trip and sees them.
	n, r, err = measure(func(ctx context.Context, tx store.Tx) error {
		if err := handoff("s-2")(ctx, tx); err != nil {
			return err
		}
		got, err := tx.GetSessionForUpdate(ctx, "s-2")
		if err != nil || got.UserID != "u-1" {
			return fmt.Errorf("the session just inserted, read in its transaction: %+v, %v", got, err)
		}
		return nil
	})
	if err != nil || n != 6 || r != 2 {
		t.Fatalf("inserts then a read: %d statements, %d round trips, %v; want 6 in 2", n, r, err)
	}
	// A statement that pgx sends alone (no arguments) sends them first, in order.
	err = s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		if err := handoff("s-3")(ctx, tx); err != nil {
			return err
		}
		_, err := tx.Raw().(pgx.Tx).Exec(ctx, "UPDATE mnemo_sessions SET message_count = 7 WHERE id = 's-3'")
		return err
	})
	if got, gerr := s.GetSession(ctx, "s-3"); err != nil || gerr != nil || got.MessageCount != 7 {
		t.Fatalf("inserts then a statement without arguments: %+v, %v, %v", got, err, gerr)
	}

	// A failing insert fails the statement after it, named, and the transaction.
	err = s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreateSession(ctx, sess("s-4", "u-1")); err != nil {
			return err
		}
		if err := tx.InsertEvents(ctx, []store.Event{event("s-1", 0)}); err != nil { // s-1's event 0 is there
			return err
		}
		_, err := tx.GetUser(ctx, "u-1")
		return err
	})
	if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "insert events") {
		t.Fatalf("an insert that conflicts, then a read: %v; want the insert's ErrConflict", err)
	}
	// A failing insert fails the commit, and nothing of the transaction is left.
	n, r, err = measure(func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreateSession(ctx, sess("s-4", "u-1")); err != nil {
			return err
		}
		return tx.InsertChunks(ctx, []store.Chunk{chunk("s-1")}) // s-1's chunk 0 is there
	})
	if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "insert transcript chunks") {
		t.Fatalf("an insert that conflicts at the commit: %v; want the insert's ErrConflict", err)
	}
	if r != 2 { // the batch, then the ROLLBACK
		t.Fatalf("a failed commit took %d round trips (%d statements); want 2", r, n)
	}
	if _, err := s.GetSession(ctx, "s-4"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("s-4 outlived its failed transaction: %v", err)
	}
	// A rollback drops what was not sent: nothing goes to the server.
	errRollback := errors.New("roll back")
	n, r, err = measure(func(ctx context.Context, tx store.Tx) error {
		if err := handoff("s-5")(ctx, tx); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) || n != 0 || r != 0 {
		t.Fatalf("inserts rolled back: %d statements, %d round trips, %v; want none", n, r, err)
	}
	if _, err := s.GetSession(ctx, "s-5"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("s-5 outlived its rollback: %v", err)
	}
	// The pool's one connection is idle and serves the next transaction.
	if _, _, err := measure(handoff("s-6")); err != nil {
		t.Fatalf("the pool after all that: %v", err)
	}

	// FinishExtraction's writes go with the COMMIT, and an update whose
	// row is gone still fails there, leaving nothing.
	settle := store.Settlement{SessionID: "s-6", UserID: "u-1", At: storetest.T0.Add(time.Hour),
		Summary: store.Summary{SessionID: "s-6", PromptVersion: "v1", UserID: "u-1", App: "mona", Source: "rules", CreatedAt: storetest.T0},
		Run:     store.ExtractionRun{SessionID: "s-6", UserID: "u-1", App: "mona", PromptVersion: "v1", Source: "rules", Final: true, CreatedAt: storetest.T0}}
	finish := func(w store.MemoryWrites) (int64, error) {
		_, r, err := measure(func(ctx context.Context, tx store.Tx) error {
			if _, err := tx.LockExtraction(ctx, "s-6", store.ExtractionReads{Memories: true}); err != nil {
				return err
			}
			return tx.FinishExtraction(ctx, w, settle)
		})
		return r, err
	}
	gone := store.Memory{ID: "gone", UserID: "u-1", Status: store.MemoryActive, UpdatedAt: storetest.T0}
	if _, err := finish(store.MemoryWrites{Leaving: []store.Memory{gone}}); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "update memory") {
		t.Fatalf("an update of a memory that is gone: %v; want ErrNotFound", err)
	}
	if got, err := s.GetSession(ctx, "s-6"); err != nil || got.Status != store.StatusClosed {
		t.Fatalf("s-6 after the failed extraction: %+v, %v; want it closed still", got, err)
	}
	r, err = finish(store.MemoryWrites{})
	if err != nil || r != 2 {
		t.Fatalf("lock and finish: %d round trips, %v; want 2", r, err)
	}
	if got, err := s.GetSession(ctx, "s-6"); err != nil || got.Status != store.StatusProcessed {
		t.Fatalf("s-6 after its extraction: %+v, %v", got, err)
	}
}
