package handoff_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

// TestMain skips ExampleClient, which needs Postgres, when TEST_DATABASE_URL
// is not set, as the package's Postgres tests skip themselves (an example
// cannot); MNEMO_REQUIRE_POSTGRES=1 keeps it.
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("TEST_DATABASE_URL") == "" && os.Getenv("MNEMO_REQUIRE_POSTGRES") != "1" {
		skip := "^ExampleClient$"
		if old := flag.Lookup("test.skip").Value.String(); old != "" {
			skip += "|" + old
		}
		if err := flag.Set("test.skip", skip); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// A Go chat service that shares Mnemo's Postgres database hands a session
// over inside its own transaction: the session, its sealed transcript and
// its extraction job commit with the service's writes, or not at all.
func ExampleClient() {
	ctx := context.Background()
	pool, done := examplePool(ctx) // the chat service's own pgx pool
	defer done()

	c, err := handoff.NewClient(pool, handoff.ClientConfig{
		EncryptionKey: "svc:a passphrase shared with the workers", // their MNEMO_ENCRYPTION_KEY
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	t0 := time.Now().UTC().Add(-time.Hour)
	req := handoff.Request{UserID: "u-42", App: "mona", StartedAt: t0, EndedAt: t0.Add(10 * time.Minute),
		Messages: []extract.Message{{ID: "m1", Role: "user", Content: "My name is Ada.", At: t0.Add(time.Minute)}}}

	var res handoff.Result
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// ... the service's own writes in tx ...
		res, err = c.CloseTx(ctx, tx, "s-1001", req)
		return err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("handed over:", res.SessionID, "jobs:", jobKinds(res.Jobs))

	// The same body again (a retry after a lost answer) stores nothing twice.
	_ = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		res, err = c.CloseTx(ctx, tx, "s-1001", req)
		return err
	})
	fmt.Println("again:", res.SessionID, "duplicate:", res.Duplicate, "jobs:", jobKinds(res.Jobs))

	// A body Mnemo refuses is a *handoff.ValidationError naming the field;
	// the service's transaction rolls back.
	req.App = "no-such-app"
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := c.CloseTx(ctx, tx, "s-1002", req)
		return err
	})
	var ve *handoff.ValidationError
	fmt.Println("refused field:", errors.As(err, &ve) && ve.Field == "app")

	// Output:
	// handed over: s-1001 jobs: extract
	// again: s-1001 duplicate: true jobs: extract
	// refused field: true
}

func jobKinds(refs []store.JobRef) string {
	kinds := make([]string, len(refs))
	for i, r := range refs {
		kinds[i] = r.Kind
	}
	return strings.Join(kinds, ",")
}

// examplePool opens a pool on a fresh schema of TEST_DATABASE_URL, migrated
// as a Mnemo worker would (`worker migrate up`); done drops the schema.
func examplePool(ctx context.Context) (pool *pgxpool.Pool, done func()) {
	url := os.Getenv("TEST_DATABASE_URL")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		panic(err)
	}
	defer conn.Close(ctx)
	schema := "ex_" + strings.ReplaceAll(store.NewID(), "-", "")[:20]
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		panic(err)
	}
	cfg, err := store.PostgresConfig(url, schema, 4)
	if err != nil {
		panic(err)
	}
	if pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		panic(err)
	}
	st := store.PostgresFromPool(pool)
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		panic(err)
	}
	if _, err := st.MigrateUp(ctx); err != nil {
		panic(err)
	}
	return pool, func() {
		pool.Close()
		if c, err := pgx.Connect(context.Background(), url); err == nil {
			_, _ = c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			_ = c.Close(context.Background())
		}
	}
}
