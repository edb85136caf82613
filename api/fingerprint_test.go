package api_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

const claraBody = `{"user_id":"u-1","app":"clara","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "messages":[{"id":"m1","role":"user","content":"I feel tense about work","at":"2026-11-20T09:00:05Z"}],
 "events":[{"kind":"emotion","at":"2026-11-20T09:00:05Z","message_id":"m1","data":{"emotion":"anxious","distress_score":0.5,"confidence":0.8}},
  {"kind":"emotion","at":"2026-11-20T09:10:00Z","data":{"emotion":"calm","tags":["work","breath"],"confidence":1}}]}`

// TestCloseAgainWithKeysReordered: the same session sent again by a
// serializer that orders names (and writes numbers) another way is the same
// 202 and writes nothing; a body with another value is still a 409; a
// session handed over before the fingerprint was canonical is recognised
// when sent again as it was (issue 22).
func TestCloseAgainWithKeysReordered(t *testing.T) {
	t.Parallel()
	reordered := strings.NewReplacer(
		`{"emotion":"anxious","distress_score":0.5,"confidence":0.8}`, `{"confidence":0.80,"distress_score":5e-1,"emotion":"anxious"}`,
		`{"emotion":"calm","tags":["work","breath"],"confidence":1}`, `{"confidence":1.0,"tags":["work","breath"],"emotion":"calm"}`,
	).Replace(claraBody)
	if reordered == claraBody {
		t.Fatal("the reordered body is the body")
	}
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPI(t, b)
			ctx := context.Background()
			written := func() (int, int) {
				t.Helper()
				events, err := st.ListEvents(ctx, "s-1")
				if err != nil {
					t.Fatal(err)
				}
				rows, err := q.List(ctx, queue.ListFilter{})
				if err != nil {
					t.Fatal(err)
				}
				return len(events), len(rows)
			}
			first := call(srv, "POST", "/v1/sessions/s-1/close", claraBody, "application/json")
			if first.Code != 202 {
				t.Fatalf("close = %d %s", first.Code, first.Body)
			}
			again := call(srv, "POST", "/v1/sessions/s-1/close", reordered, "application/json")
			if again.Code != 202 || again.Body.String() != first.Body.String() {
				t.Fatalf("the same session with its names reordered = %d %s; want the first 202 %s", again.Code, again.Body, first.Body)
			}
			if events, jobs := written(); events != 2 || jobs != 1 {
				t.Fatalf("%d events and %d jobs after the session twice; want 2 and 1", events, jobs)
			}
			for _, other := range []string{
				strings.Replace(reordered, `"distress_score":5e-1`, `"distress_score":0.6`, 1),
				strings.Replace(reordered, `["work","breath"]`, `["breath","work"]`, 1),
			} {
				if rec := call(srv, "POST", "/v1/sessions/s-1/close", other, "application/json"); rec.Code != 409 {
					t.Fatalf("a different body = %d %s; want 409", rec.Code, rec.Body)
				}
			}

			// A session handed over before issue 22 holds the SHA-256 of its
			// body's values in struct order with event data as sent.
			legacy := legacyFingerprint(t, "s-1", claraBody)
			setBodyHash(t, st, "s-1", legacy)
			if rec := call(srv, "POST", "/v1/sessions/s-1/close", claraBody, "application/json"); rec.Code != 202 || rec.Body.String() != first.Body.String() {
				t.Fatalf("an old session sent again as it was = %d %s; want the first 202", rec.Code, rec.Body)
			}
			if rec := call(srv, "POST", "/v1/sessions/s-1/close", strings.Replace(claraBody, "0.5", "0.6", 1), "application/json"); rec.Code != 409 {
				t.Fatalf("an old session sent again with another value = %d %s; want 409", rec.Code, rec.Body)
			}
			if events, jobs := written(); events != 2 || jobs != 1 {
				t.Fatalf("%d events and %d jobs at the end; want 2 and 1", events, jobs)
			}
		})
	}
}

// legacyFingerprint is the fingerprint a worker before issue 22 stored.
func legacyFingerprint(t *testing.T, id, body string) string {
	t.Helper()
	req, err := handoff.Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if err := handoff.Validate(id, &req, apps, time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(struct {
		ID  string          `json:"id"`
		Req handoff.Request `json:"req"`
	}{id, req})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// setBodyHash writes a session's stored fingerprint, as an older worker left it.
func setBodyHash(t *testing.T, st store.Store, id, hash string) {
	t.Helper()
	var err error
	switch db := st.Raw().(type) {
	case *pgxpool.Pool:
		_, err = db.Exec(context.Background(), "UPDATE mnemo_sessions SET body_sha256 = $1 WHERE id = $2", hash, id)
	case *sql.DB:
		_, err = db.Exec("UPDATE mnemo_sessions SET body_sha256 = ?1 WHERE id = ?2", hash, id)
	default:
		t.Fatalf("unknown store %T", st.Raw())
	}
	if err != nil {
		t.Fatal(err)
	}
}
