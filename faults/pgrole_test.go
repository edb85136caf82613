package faults

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestReadOnlyPostgresRoleAtStart: the worker is started with a Postgres
// role that may read its schema but not write it (a grant forgotten in a
// deployment, a standby's credentials). It comes up rather than
// crash-looping, /readyz and every handoff answer 503 read_only, nothing is
// written; once the role is granted write rights the same process accepts
// the handoff sent again, starts its job workers and processes the session.
func TestReadOnlyPostgresRoleAtStart(t *testing.T) {
	skipShort(t, "api TestUnwritableDatabaseAnswers503")
	t.Parallel()
	schema := storetest.PostgresSchema(t) // skips, or fails in CI, without a database
	base := os.Getenv("TEST_DATABASE_URL")
	ctx := context.Background()
	adminURL := withSchema(base, schema)
	env := []string{"MNEMO_API_TOKENS=service:" + token, "MNEMO_ENCRYPTION_KEY=f:read-only role passphrase",
		"OPENAI_BASE_URL=", "MNEMO_LLM_MODEL=", "MNEMO_LOG_FORMAT=json", "MNEMO_LOG_LEVEL=info",
		"MNEMO_POLL_INTERVAL=50ms", "MNEMO_SHUTDOWN_GRACE=1s"}

	// The schema is migrated by its owner, as a deployment's migration step.
	if out, err := workerCmd(t.TempDir(), append(env, "DATABASE_URL="+adminURL), false, "migrate", "up").CombinedOutput(); err != nil {
		t.Fatalf("migrate up: %v\n%s", err, out)
	}
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	role := "ro_" + schema
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
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			_, _ = c.Exec(context.Background(), fmt.Sprintf("DROP OWNED BY %s; DROP ROLE %s", role, role))
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(adminURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)

	w := startWorker(t, append(env, "DATABASE_URL="+u.String()))
	if code, _, err := call("GET", w.addr, "/healthz", nil); err != nil || code != 200 {
		t.Fatalf("/healthz with a read-only role: %d %v", code, err)
	}
	if code, _, err := call("GET", w.addr, "/readyz", nil); err != nil || code != 503 {
		t.Fatalf("/readyz with a read-only role: %d %v; want 503", code, err)
	}
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	body := handoffBody(now)
	refused := 0
	for range 3 {
		code, ans, err := call("POST", w.addr, "/v1/sessions/role-1/close", body)
		if c, msg := errorCode(ans); err != nil || code != 503 || c != "read_only" || msg == "" {
			t.Fatalf("handoff with a read-only role: %d %v %v; want 503 read_only", code, ans, err)
		}
		refused++
	}
	var sessions, jobs int
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM mnemo_sessions), (SELECT count(*) FROM river_job)").Scan(&sessions, &jobs); err != nil {
		t.Fatal(err)
	}
	if sessions != 0 || jobs != 0 {
		t.Fatalf("refused handoffs left %d sessions and %d jobs", sessions, jobs)
	}
	warned := false
	for _, line := range w.log() {
		warned = warned || strings.Contains(line, "database is read-only")
	}
	if !warned {
		t.Fatalf("no warning that the database is read-only in the log:\n%s", strings.Join(w.log(), "\n"))
	}

	granted := time.Now()
	if _, err := conn.Exec(ctx, fmt.Sprintf("GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %s TO %s; GRANT USAGE ON ALL SEQUENCES IN SCHEMA %s TO %s",
		schema, role, schema, role)); err != nil {
		t.Fatal(err)
	}
	if code, ans, err := call("POST", w.addr, "/v1/sessions/role-1/close", body); err != nil || code != 202 {
		t.Fatalf("handoff after the grant: %d %v %v; want 202", code, ans, err)
	}
	// The workers start on their next try (the wait doubles up to 30 s).
	waitProcessed(t, w.addr, "role-1")
	if code, _, err := call("GET", w.addr, "/readyz", nil); err != nil || code != 200 {
		t.Fatalf("/readyz after the grant: %d %v; want 200", code, err)
	}
	if w.cmd.ProcessState != nil {
		t.Fatal("the worker exited")
	}
	figures.Report(t, "read-only Postgres role at start: %d handoffs refused 503 read_only, 0 rows written; granted write rights, the same process accepted the handoff and processed it %s later",
		refused, time.Since(granted).Round(100*time.Millisecond))
}
