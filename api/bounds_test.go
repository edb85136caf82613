package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// firstRead closes read when the handler first reads the body, which it
// does only once the body's bytes were admitted.
type firstRead struct {
	io.Reader
	once sync.Once
	read chan struct{}
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(func() { close(f.read) })
	return f.Reader.Read(p)
}

// padded is a session body for session id padded with spaces to n bytes.
func padded(id string, n int) string {
	b := strings.Replace(body, `"u-1"`, `"u-`+id+`"`, 1)
	return b + strings.Repeat(" ", n-len(b))
}

// TestBodyBytesInFlightAreBounded: while one large body is being read, a
// second that does not fit beside it waits, then is answered 503 busy with
// Retry-After and nothing stored; once the first is answered, the second
// goes through (issue 22).
func TestBodyBytesInFlightAreBounded(t *testing.T) {
	t.Parallel()
	b := storetest.Backends(t)[0]
	srv, st, q := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
		cfg.MaxBodyBytes, cfg.BodyBytesInFlight, cfg.BodyWait = 64<<10, 100<<10, 20*time.Millisecond
	})
	send := func(path, body string, r io.Reader) *http.Request {
		req := httptest.NewRequest("POST", path, r)
		req.ContentLength = int64(len(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	big := padded("1", 60<<10)
	pr, pw := io.Pipe()
	first := &firstRead{Reader: pr, read: make(chan struct{})}
	done := make(chan *httptest.ResponseRecorder)
	go func() {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, send("/v1/sessions/s-1/close", big, first))
		done <- rec
	}()
	// Half the first body is sent; the rest waits until the second was refused.
	rest := make(chan struct{})
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(pw, big[:len(big)/2])
		if err == nil {
			<-rest
			_, err = io.WriteString(pw, big[len(big)/2:])
		}
		pw.CloseWithError(err)
		written <- err
	}()
	<-first.read // the first body holds 60 KiB of the 100 KiB

	second := padded("2", 50<<10)
	rec := httptest.NewRecorder()
	served(t, srv, rec, send("/v1/sessions/s-2/close", second, strings.NewReader(second)))
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), `"code":"busy"`) {
		t.Fatalf("a body beside a full budget = %d %s (Retry-After %q); want 503 busy", rec.Code, rec.Body, rec.Header().Get("Retry-After"))
	}
	if _, err := st.GetSession(context.Background(), "s-2"); err == nil {
		t.Fatal("the refused session was stored")
	}
	// A request without a body is not held up.
	if rec := call(srv, "GET", "/v1/sessions/s-9", "", ""); rec.Code != 404 {
		t.Fatalf("a GET beside a full budget = %d %s", rec.Code, rec.Body)
	}

	close(rest)
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if rec := <-done; rec.Code != 202 {
		t.Fatalf("the first body = %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	served(t, srv, rec, send("/v1/sessions/s-2/close", second, strings.NewReader(second)))
	if rec.Code != 202 {
		t.Fatalf("the second body sent again = %d %s; want 202", rec.Code, rec.Body)
	}
	if rows, _ := q.List(context.Background(), queue.ListFilter{}); len(rows) != 2 {
		t.Fatalf("%d jobs; want 2", len(rows))
	}
}

// TestSessionEventsAreBounded: a session with more events than the limit is
// a 422 naming it, and writes nothing; at the limit it is stored (issue 22).
func TestSessionEventsAreBounded(t *testing.T) {
	t.Parallel()
	events := func(n int) string {
		var ev []string
		for i := range n {
			ev = append(ev, fmt.Sprintf(`{"kind":"emotion","at":"2026-11-20T09:%02d:00Z","data":{"emotion":"calm","confidence":0.9}}`, i))
		}
		return `{"user_id":"u-1","app":"clara","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
			"messages":[{"id":"m1","role":"user","content":"a calm day","at":"2026-11-20T09:00:05Z"}],"events":[` + strings.Join(ev, ",") + `]}`
	}
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) { data.Handoff.MaxEvents = 3 })
			rec := call(srv, "POST", "/v1/sessions/s-1/close", events(4), "application/json")
			if rec.Code != 422 || !strings.Contains(rec.Body.String(), "more than 3 events") || !strings.Contains(rec.Body.String(), "MNEMO_MAX_SESSION_EVENTS") {
				t.Fatalf("4 events over a limit of 3 = %d %s; want 422 naming the limit", rec.Code, rec.Body)
			}
			if _, err := st.GetUser(context.Background(), "u-1"); err == nil {
				t.Fatal("a refused session wrote its user")
			}
			if rows, _ := q.List(context.Background(), queue.ListFilter{}); len(rows) != 0 {
				t.Fatalf("a refused session enqueued %d jobs", len(rows))
			}
			if rec := call(srv, "POST", "/v1/sessions/s-1/close", events(3), "application/json"); rec.Code != 202 {
				t.Fatalf("3 events = %d %s; want 202", rec.Code, rec.Body)
			}
			if ev, err := st.ListEvents(context.Background(), "s-1"); err != nil || len(ev) != 3 {
				t.Fatalf("events stored: %d, %v; want 3", len(ev), err)
			}
		})
	}
}
