package api_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

const token = "service-token-0123456789"

var testKeySpec = "k1:" + base64.StdEncoding.EncodeToString(make([]byte, 32))

func setupAPI(t *testing.T, b storetest.Backend) (*api.Server, store.Store, queue.Queue) {
	t.Helper()
	return setupAPIWith(t, b, nil)
}

// setupAPIWith mounts the API on a fresh database; with more non-nil it
// may add tokens and set what api.Data leaves at its defaults.
func setupAPIWith(t *testing.T, b storetest.Backend, more func(*api.Config, *api.Data)) (*api.Server, store.Store, queue.Queue) {
	t.Helper()
	st := b.Open(t)
	if _, err := queue.MigrateRiver(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	q, err := queue.New(st, queue.Config{})
	if err != nil {
		t.Fatal(err)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := seal.ParseKeys(testKeySpec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: token}}}
	data := api.Data{Store: st, MaxBodyBytes: 64 << 10, Handoff: handoff.Deps{Queue: q, Apps: apps, Keys: keys}}
	if more != nil {
		more(&cfg, &data)
	}
	srv := api.New(cfg)
	srv.Mount(data)
	return srv, st, q
}

func call(srv http.Handler, method, path, body, contentType string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	served(nil, srv, rec, req)
	return rec
}

const body = `{"user_id":"u-1","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "messages":[{"id":"m1","role":"user","content":"my name is John","at":"2026-11-20T09:00:05Z"}]}`

// TestCloseRejectsBadInputAndWritesNothing sends the bodies a buggy or hostile
// chat service might, and checks the status, the error shape, and that no
// row or job was written.
func TestCloseRejectsBadInputAndWritesNothing(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPI(t, b)
			cases := []struct {
				name, path, body, ct string
				want                 int
			}{
				{"too large", "/v1/sessions/s-1/close", `{"x":"` + strings.Repeat("a", 70<<10) + `"}`, "application/json", 413},
				{"not json", "/v1/sessions/s-1/close", "{", "application/json", 400},
				{"invalid utf-8", "/v1/sessions/s-1/close", strings.Replace(body, "John", "J\xffohn", 1), "application/json", 400},
				{"unknown field", "/v1/sessions/s-1/close", strings.Replace(body, `"app"`, `"color":"red","app"`, 1), "application/json", 422},
				{"wrong media type", "/v1/sessions/s-1/close", body, "text/plain", 415},
				{"unknown app", "/v1/sessions/s-1/close", strings.Replace(body, `"mona"`, `"nope"`, 1), "application/json", 422},
				{"bad session id", "/v1/sessions/a%27%3B--/close", body, "application/json", 422},
				{"missing session", "/v1/sessions/none", "", "", 404},
			}
			for _, c := range cases {
				method := "POST"
				if c.body == "" {
					method = "GET"
				}
				rec := call(srv, method, c.path, c.body, c.ct)
				if rec.Code != c.want || !strings.Contains(rec.Body.String(), `{"error":{"code":`) {
					t.Errorf("%s: %d %s; want %d with the error shape", c.name, rec.Code, rec.Body.String(), c.want)
				}
				if strings.Contains(rec.Body.String(), "John") {
					t.Errorf("%s: the error quotes the transcript", c.name)
				}
			}
			if _, err := st.GetUser(context.Background(), "u-1"); err == nil {
				t.Fatal("a rejected request wrote a user")
			}
			if rows, _ := q.List(context.Background(), queue.ListFilter{}); len(rows) != 0 {
				t.Fatalf("rejected requests enqueued %d jobs", len(rows))
			}

			first := call(srv, "POST", "/v1/sessions/s-1/close", body, "application/json")
			again := call(srv, "POST", "/v1/sessions/s-1/close", body, "application/json; charset=utf-8")
			if first.Code != 202 || again.Code != 202 || first.Body.String() != again.Body.String() {
				t.Fatalf("close twice: %d %s / %d %s; want the same 202", first.Code, first.Body, again.Code, again.Body)
			}
			if rows, _ := q.List(context.Background(), queue.ListFilter{}); len(rows) != 1 {
				t.Fatalf("%d jobs after the same close twice; want 1", len(rows))
			}
			other := call(srv, "POST", "/v1/sessions/s-1/close", strings.Replace(body, "John", "Jim", 1), "application/json")
			if other.Code != 409 {
				t.Fatalf("a different body for a closed session: %d; want 409", other.Code)
			}
			got := call(srv, "GET", "/v1/sessions/s-1", "", "")
			if got.Code != 200 || !strings.Contains(got.Body.String(), `"status":"closed"`) || !strings.Contains(got.Body.String(), `"transcript_retained":true`) {
				t.Fatalf("session = %d %s", got.Code, got.Body)
			}
		})
	}
}
