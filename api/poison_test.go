package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestPackSurvivesPoisonedProfile is issue 13 item 4: a profile number no
// float64 holds (stored before the API refused it, or by a Go service
// through handoff.CloseTx) no longer makes the user's context pack 500 for
// good. The value is left out; the rest of the profile, the summaries and
// the records still make the pack.
func TestPackSurvivesPoisonedProfile(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st := setupWithSchedules(t, b)
			ctx := context.Background()
			at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
			if err := st.UpsertUser(ctx, store.User{ID: "u-sam", App: "eldertree", Timezone: "UTC", CreatedAt: at, UpdatedAt: at}); err != nil {
				t.Fatal(err)
			}
			doc := json.RawMessage(`{"preferred_name":"Sam","age":1e400,"sponsor_name":"Dave","has_sponsor":true,"steps":[1,-1e999,3]}`)
			if err := st.SaveProfile(ctx, store.Profile{UserID: "u-sam", App: "eldertree", Doc: doc, Version: 1, UpdatedAt: at},
				store.ProfileChange{UserID: "u-sam", Version: 1, Doc: doc, Changed: json.RawMessage(`{}`), Actor: "operator", At: at, StatedAt: at}); err != nil {
				t.Fatal(err)
			}
			code, res := getJSON(t, srv, token, "GET", "/v1/users/u-sam/context?budget_tokens=800", "")
			if code != 200 {
				t.Fatalf("context of a user with a poisoned profile = %d %v; want 200", code, res)
			}
			text, _ := res["text"].(string)
			if !strings.Contains(text, "Sam") {
				t.Errorf("the pack lost the readable profile: %q", text)
			}
			if strings.Contains(text, "1e400") || strings.Contains(text, "Inf") {
				t.Errorf("the pack shows the unreadable value: %q", text)
			}
		})
	}
}

// TestStreamingStopsAtTheCap is issue 13 item 8: 40 requests of 200
// streamed turns used to buffer 8,000; the buffer now stops at
// handoff.MaxMessages (what a close may carry) with a clear 422, keeps
// what it took, and a turn sent again is still answered without being
// counted twice.
func TestStreamingStopsAtTheCap(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			start := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			batch := func(i int) string {
				var msgs []string
				for j := 0; j < handoff.MaxAppend; j++ {
					n := i*handoff.MaxAppend + j
					msgs = append(msgs, fmt.Sprintf(`{"id":"m%d","role":"user","content":"turn %d","at":%q}`, n, n,
						start.Add(time.Duration(n)*time.Millisecond).Format(time.RFC3339Nano)))
				}
				return `{"user_id":"u-stream","app":"mona","messages":[` + strings.Join(msgs, ",") + `]}`
			}
			fit := handoff.MaxMessages / handoff.MaxAppend
			refused := 0
			for i := 0; i < 40; i++ {
				rec := call(srv, "POST", "/v1/sessions/s-stream/messages", batch(i), "application/json")
				switch {
				case i < fit && rec.Code != 202:
					t.Fatalf("request %d = %d %s; want 202", i, rec.Code, rec.Body)
				case i >= fit:
					if rec.Code != 422 || !strings.Contains(rec.Body.String(), fmt.Sprint(handoff.MaxMessages)) {
						t.Fatalf("request %d past the cap = %d %s; want 422 naming the limit", i, rec.Code, rec.Body)
					}
					refused++
				}
			}
			if refused != 40-fit {
				t.Errorf("%d requests refused; want %d", refused, 40-fit)
			}
			n, err := st.CountBuffer(context.Background(), "s-stream")
			if err != nil || n != handoff.MaxMessages {
				t.Fatalf("buffered %d, %v; want exactly %d", n, err, handoff.MaxMessages)
			}
			// The last accepted request sent again: nothing new, 202.
			rec := call(srv, "POST", "/v1/sessions/s-stream/messages", batch(fit-1), "application/json")
			var res handoff.AppendResult
			if rec.Code != 202 || json.Unmarshal(rec.Body.Bytes(), &res) != nil || res.Added != 0 || res.Buffered != handoff.MaxMessages {
				t.Fatalf("a full session's last request again = %d %s; want 202 with nothing added", rec.Code, rec.Body)
			}
		})
	}
}

// BenchmarkAppendMessages times one streamed request of handoff.MaxAppend
// new turns to a session that already buffers 0, 1,000 or 4,800 turns:
// with the buffer's head read instead of the buffer, the time does not grow
// with what is buffered (issue 13 item 8).
func BenchmarkAppendMessages(b *testing.B) {
	for _, buffered := range []int{0, 1000, 4800} {
		b.Run(fmt.Sprintf("buffered=%d", buffered), func(b *testing.B) {
			srv, st, _ := setupAPI(&testing.T{}, storetest.Backend{Name: store.DialectSQLite, Open: func(t testing.TB) store.Store { return storetest.SQLite(b) }})
			ctx := context.Background()
			at := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			body := func(session string, from int) string {
				var msgs []string
				for j := from; j < from+handoff.MaxAppend; j++ {
					msgs = append(msgs, fmt.Sprintf(`{"id":"m%d","role":"user","content":"turn %d","at":%q}`, j, j, at.Format(time.RFC3339)))
				}
				return `{"user_id":"u-bench","app":"mona","messages":[` + strings.Join(msgs, ",") + `]}`
			}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				session := fmt.Sprintf("s-%d", i)
				if buffered > 0 {
					// The session exists with its first turns; the rest is
					// filled in straight through the store.
					if rec := call(srv, "POST", "/v1/sessions/"+session+"/messages", body(session, 0), "application/json"); rec.Code != 202 {
						b.Fatalf("fill = %d %s", rec.Code, rec.Body)
					}
					var fill []store.BufferMessage
					for seq := handoff.MaxAppend; seq < buffered; seq++ {
						fill = append(fill, store.BufferMessage{SessionID: session, Seq: seq, UserID: "u-bench", MessageID: fmt.Sprintf("m%d", seq),
							KeyID: "k", Nonce: []byte{1}, Ciphertext: make([]byte, 64), SHA256: make([]byte, 32), CreatedAt: at})
					}
					if err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) error { _, err := tx.AppendBuffer(ctx, fill); return err }); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if rec := call(srv, "POST", "/v1/sessions/"+session+"/messages", body(session, buffered), "application/json"); rec.Code != 202 {
					b.Fatalf("append = %d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// TestWriteJSONNeverAnswers200OnEncodeError is issue 22 item 6: a value
// encoding/json refuses (a time after the year 9999, a NaN) used to leave a
// 200 with an empty body. It is a 500 with the error shape.
func TestWriteJSONNeverAnswers200OnEncodeError(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]any{
		"year 10000": map[string]any{"expires_at": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		"NaN":        map[string]any{"score": math.NaN()},
	} {
		rec := httptest.NewRecorder()
		api.WriteJSON(rec, http.StatusOK, v)
		var out struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if rec.Code != 500 || json.Unmarshal(rec.Body.Bytes(), &out) != nil || out.Error.Code != "internal" {
			t.Errorf("%s: %d %q; want 500 with the error shape", name, rec.Code, rec.Body.String())
		}
	}
	rec := httptest.NewRecorder()
	api.WriteJSON(rec, http.StatusAccepted, map[string]int{"n": 1})
	if rec.Code != 202 || rec.Body.String() != "{\"n\":1}\n" {
		t.Fatalf("a plain value = %d %q", rec.Code, rec.Body.String())
	}
}

// TestMemoryPastYear9999IsNotAnEmpty200: a memory stored with an expiry
// after the year 9999 (before dates were bounded) made GET …/memories answer
// 200 with an empty body on Postgres and 500 on SQLite. The store keeps
// times within the years 1 to 9999 now: the memories and the pack answer
// 200, the expiry at store.LatestTime, which never comes.
func TestMemoryPastYear9999IsNotAnEmpty200(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			ctx := context.Background()
			at := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			if err := st.UpsertUser(ctx, store.User{ID: "u-1", App: "mona", Timezone: "UTC", CreatedAt: at, UpdatedAt: at}); err != nil {
				t.Fatal(err)
			}
			far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
			if err := st.InsertMemory(ctx, store.Memory{ID: "m-1", UserID: "u-1", Key: "event:launch", Value: "launch", Category: "event",
				Importance: 5, Confidence: 0.9, Status: store.MemoryActive, ExpiresAt: &far, EventDate: "9999-12-31",
				CreatedAt: at, UpdatedAt: at, StatedAt: at}); err != nil {
				t.Skipf("%s refuses the year 10000 at the door: %v", b.Name, err)
			}
			rec := call(srv, "GET", "/v1/users/u-1/memories", "", "")
			var res struct {
				Memories []struct {
					Key       string `json:"key"`
					ExpiresAt string `json:"expires_at"`
				} `json:"memories"`
			}
			if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &res) != nil || len(res.Memories) != 1 ||
				res.Memories[0].ExpiresAt != "9999-12-31T23:59:59.999999Z" {
				t.Fatalf("GET memories = %d %q; want 200 with the memory expiring at the latest time", rec.Code, rec.Body.String())
			}
			if rec := call(srv, "GET", "/v1/users/u-1/context", "", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), "launch") {
				t.Fatalf("GET context = %d %q; want 200 with the memory", rec.Code, rec.Body.String())
			}
		})
	}
}
