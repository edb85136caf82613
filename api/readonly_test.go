package api_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestUnwritableDatabaseAnswers503: with a Postgres role that may read but
// not write, a handoff is refused with 503 and a clear error instead of
// being accepted and lost; once the role may write again, it goes through.
func TestUnwritableDatabaseAnswers503(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := storetest.PostgresSchema(t)
	url := os.Getenv("TEST_DATABASE_URL")
	cfg, err := store.PostgresConfig(url, schema, 4)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := store.OpenPostgres(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := queue.MigrateRiver(ctx, admin); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	role := "ro_" + schema
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []string{
		fmt.Sprintf("CREATE ROLE %s LOGIN", role),
		fmt.Sprintf("GRANT USAGE ON SCHEMA %s TO %s", schema, role),
		fmt.Sprintf("GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s", schema, role),
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), url)
		if err == nil {
			_, _ = c.Exec(context.Background(), fmt.Sprintf("DROP OWNED BY %s; DROP ROLE %s", role, role))
			c.Close(context.Background())
		}
	})
	roCfg, err := store.PostgresConfig(url, schema, 4)
	if err != nil {
		t.Fatal(err)
	}
	roCfg.ConnConfig.User = role
	ro, err := store.OpenPostgres(ctx, roCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	q, err := queue.New(ro, queue.Config{})
	if err != nil {
		t.Fatal(err)
	}
	apps, _ := prompts.Builtin()
	keys, _ := seal.ParseKeys(testKeySpec)
	srv := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: token}}})
	srv.Mount(api.Data{Store: ro, MaxBodyBytes: 1 << 20, Handoff: handoff.Deps{Queue: q, Apps: apps, Keys: keys}})

	rec := call(srv, "POST", "/v1/sessions/s-1/close", body, "application/json")
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), `"read_only"`) {
		t.Fatalf("handoff to an unwritable database = %d %s; want 503 read_only", rec.Code, rec.Body.String())
	}
	if _, err := admin.GetSession(ctx, "s-1"); err == nil {
		t.Fatal("a refused handoff left a session")
	}
	// Reads still answer: the context pack marks the memories it hands out
	// as used, and that mark is skipped rather than failing the pack.
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	if err := admin.UpsertUser(ctx, store.User{ID: "u-ro", App: "mona", Timezone: "UTC", CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if err := admin.InsertMemory(ctx, store.Memory{ID: "m-ro", UserID: "u-ro", Key: "likes:tea", Value: "green tea", Category: "preference",
		Importance: 5, Confidence: 0.9, Status: store.MemoryActive, CreatedAt: at, UpdatedAt: at, StatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if rec := call(srv, "GET", "/v1/users/u-ro/context", "", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), "green tea") {
		t.Fatalf("context pack on an unwritable database = %d %s; want 200 with the memory", rec.Code, rec.Body.String())
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %s TO %s; GRANT USAGE ON ALL SEQUENCES IN SCHEMA %s TO %s",
		schema, role, schema, role)); err != nil {
		t.Fatal(err)
	}
	rec2 := call(srv, "POST", "/v1/sessions/s-1/close", body, "application/json")
	if rec2.Code != 202 {
		t.Fatalf("after write rights came back: %d %s; want 202", rec2.Code, rec2.Body.String())
	}
}
