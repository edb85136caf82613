package handoff_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestClientCloseTx hands a session over inside a chat service's own pgx
// transaction: rolled back, nothing of it exists; committed, the session and
// its job exist together.
func TestClientCloseTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := storetest.PostgresSchema(t)
	cfg, err := store.PostgresConfig(os.Getenv("TEST_DATABASE_URL"), schema, 4)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := store.PostgresFromPool(pool)
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := st.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := handoff.NewClient(pool, handoff.ClientConfig{EncryptionKey: "svc:a passphrase shared with workers"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Add(-time.Hour)
	req := handoff.Request{UserID: "u-1", App: "mona", StartedAt: t0, EndedAt: t0.Add(10 * time.Minute),
		Messages: []extract.Message{{ID: "m1", Role: "user", Content: "My name is Ada.", At: t0.Add(time.Minute)}}}

	// The service's transaction fails after the handoff: nothing remains.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "CREATE TABLE chat_log (id int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CloseTx(ctx, tx, "s-1", req); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetSession(ctx, "s-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("session after rollback: %v; want none", err)
	}
	q, err := queue.New(st, queue.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := q.List(ctx, queue.ListFilter{}); len(rows) != 0 {
		t.Fatalf("%d jobs after rollback; want none", len(rows))
	}

	// Committed: the session and its extraction job, once.
	var res handoff.Result
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		res, err = c.CloseTx(ctx, tx, "s-1", req)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	sess, err := st.GetSession(ctx, "s-1")
	if err != nil || sess.Status != store.StatusClosed {
		t.Fatalf("session after commit: %+v, %v", sess, err)
	}
	rows, err := q.List(ctx, queue.ListFilter{Kinds: []string{"extract"}})
	if err != nil || len(rows) != 1 || rows[0].ID != res.Jobs[0].ID {
		t.Fatalf("jobs after commit: %d, %v; want the one answered", len(rows), err)
	}
	// A bad body is refused before anything is written.
	bad := req
	bad.App = "nope"
	var ve *handoff.ValidationError
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := c.CloseTx(ctx, tx, "s-2", bad)
		return err
	}); !errors.As(err, &ve) {
		t.Fatalf("bad app: %v; want a validation error", err)
	}
}
