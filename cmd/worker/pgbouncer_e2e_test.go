package main

import (
	"os"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/pgbouncertest"
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
	bin := pgbouncertest.Binary()
	if bin == "" {
		if os.Getenv("MNEMO_REQUIRE_PGBOUNCER") == "1" {
			t.Fatal("MNEMO_REQUIRE_PGBOUNCER=1 but pgbouncer is not installed (apt-get install pgbouncer)")
		}
		t.Skip("pgbouncer is not installed")
	}
	schema := storetest.PostgresSchema(t) // skips (or fails) without Postgres
	dsn := pgbouncertest.Start(t, bin, os.Getenv("TEST_DATABASE_URL"), schema, 20)

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
