package faults

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
)

// chaosAnswer is a valid Mona answer.
const chaosAnswer = `{"memories":[{"key":"name","value":"Peggy","category":"fact","importance":90,"confidence":0.9,"source_message_id":"m1"}],
	"session_summary":{"summary":"Peggy introduced herself.","topics":["introductions"]}}`

// chaosViolating is JSON that Mona's schema refuses.
const chaosViolating = `{"memories":[{"key":"name","value":"Peggy","category":"nonsense","importance":900,"source_message_id":"m1"}]}`

// TestLLMChaosWithWorkers runs real worker processes against a fake LLM that
// answers in a random mix of hangs, 500s, 429s, garbage and schema-violating
// JSON: every session still ends processed, with one summary, one final
// extraction run with a recorded outcome, and its memory; a session that
// fell back to the rules keeps its transcript for a re-run. Postgres with
// two workers sharing the queue, SQLite with one.
func TestLLMChaosWithWorkers(t *testing.T) {
	skipShort(t, "jobs TestLLMChaos")
	t.Parallel()
	type backend struct {
		name, url, driver, dsn string
		workers, sessions      int
	}
	var backends []backend
	dir := t.TempDir()
	sqlitePath := filepath.Join(dir, "mnemo.db")
	backends = append(backends, backend{"sqlite", "sqlite://" + sqlitePath, "sqlite", "file:" + sqlitePath + "?_pragma=busy_timeout(10000)", 1, 40})
	if os.Getenv("TEST_DATABASE_URL") != "" || os.Getenv("MNEMO_REQUIRE_POSTGRES") == "1" {
		u := schemaURL(t)
		backends = append(backends, backend{"postgres", u, "pgx", u, 2, 120})
	}
	for i, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			llm := llmtest.NewServer(t)
			llm.SetDefault(llmtest.Chaos(uint64(17+i), chaosAnswer, chaosViolating))
			env := []string{"DATABASE_URL=" + b.url, "MNEMO_API_TOKENS=service:" + token, "MNEMO_ENCRYPTION_KEY=f:llm chaos passphrase",
				"OPENAI_BASE_URL=" + llm.URL(), "OPENAI_API_KEY=sk-chaos", "MNEMO_LLM_MODEL=gpt-4o-mini", "MNEMO_LOG_FORMAT=json",
				"MNEMO_LOG_LEVEL=info", "MNEMO_LLM_TIMEOUT=1s", "MNEMO_JOB_TIMEOUT=15s", "MNEMO_RESCUE_AFTER=20s",
				"MNEMO_RETRY_BACKOFF=200ms", "MNEMO_POLL_INTERVAL=50ms", "MNEMO_CONCURRENCY=default=2,extract=8,batch=1"}
			var ws []*worker
			for range b.workers {
				ws = append(ws, startWorker(t, env))
			}

			now := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			for i := range b.sessions {
				body := map[string]any{"user_id": fmt.Sprintf("u-%d", i), "app": "mona", "started_at": now.Format(time.RFC3339),
					"ended_at": now.Add(10 * time.Minute).Format(time.RFC3339),
					"messages": []map[string]any{
						{"id": "m1", "role": "user", "content": "My name is Peggy.", "at": now.Add(time.Minute).Format(time.RFC3339)},
						{"id": "m2", "role": "assistant", "content": "Lovely to meet you, Peggy.", "at": now.Add(2 * time.Minute).Format(time.RFC3339)}}}
				if code, err := post(ws[i%len(ws)].addr, fmt.Sprintf("/v1/sessions/c-%d/close", i), body); err != nil || code != 202 {
					t.Fatalf("handoff c-%d: %d %v", i, code, err)
				}
			}

			db, err := sql.Open(b.driver, b.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			count := func(q string) int {
				t.Helper()
				var n int
				if err := db.QueryRow(q).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			deadline := testwait.GiveUpAt(t)
			for count("SELECT count(*) FROM mnemo_sessions WHERE status = 'processed'") < b.sessions {
				if testwait.Past(deadline) {
					t.Fatalf("%d of %d sessions processed after the chaos (gave up near the test binary's -timeout)", count("SELECT count(*) FROM mnemo_sessions WHERE status = 'processed'"), b.sessions)
				}
				<-time.After(200 * time.Millisecond)
			}

			processed := count("SELECT count(*) FROM mnemo_sessions WHERE status = 'processed'")
			summaries := count("SELECT count(*) FROM mnemo_session_summaries")
			finals := count("SELECT count(*) FROM mnemo_extraction_runs WHERE final")
			unrecorded := count("SELECT count(*) FROM mnemo_extraction_runs WHERE final AND (source = '' OR outcome = '')")
			withName := count("SELECT count(DISTINCT user_id) FROM mnemo_memories WHERE key = 'name' AND status = 'active'")
			dup := count("SELECT count(*) FROM (SELECT user_id, key FROM mnemo_memories WHERE status = 'active' GROUP BY user_id, key HAVING count(*) > 1) d")
			fallbackDropped := count(`SELECT count(*) FROM mnemo_extraction_runs r JOIN mnemo_sessions s ON s.id = r.session_id
				WHERE r.final AND r.source = 'fallback' AND NOT s.transcript_retained`)
			retried := count("SELECT count(*) FROM mnemo_extraction_runs WHERE NOT final")
			outcomes := map[string]int{}
			rows, err := db.Query("SELECT source, outcome, count(*) FROM mnemo_extraction_runs WHERE final GROUP BY source, outcome")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var src, outcome string
				var n int
				if err := rows.Scan(&src, &outcome, &n); err != nil {
					t.Fatal(err)
				}
				outcomes[src+"/"+outcome] = n
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			figures.Report(t, "llm chaos (%s, workers: %d): %d sessions handed over, %d processed, %d summaries, %d final runs, %d duplicated memories, %d LLM calls, %d runs retried or snoozed; final outcomes %v",
				b.name, b.workers, b.sessions, processed, summaries, finals, dup, llm.Calls(), retried, outcomes)
			if summaries != b.sessions || finals != b.sessions || unrecorded != 0 || dup != 0 {
				t.Fatalf("%d summaries, %d final runs (%d without outcome), %d duplicated memories; want %d, %d, 0, 0",
					summaries, finals, unrecorded, dup, b.sessions, b.sessions)
			}
			if withName != b.sessions {
				t.Fatalf("%d of %d users kept the memory of their name", withName, b.sessions)
			}
			if fallbackDropped != 0 {
				t.Fatalf("%d sessions fell back to the rules without keeping their transcript", fallbackDropped)
			}
			// Every final outcome is possible; what the mix must have done is
			// fail some calls on the way.
			if retried == 0 || outcomes["llm/ok"] == 0 {
				t.Fatalf("the mix failed %d calls on the way and left outcomes %v: it did not exercise the faults", retried, outcomes)
			}
		})
	}
}
