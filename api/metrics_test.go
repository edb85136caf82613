package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
)

// handoffs records api.Metrics calls.
type handoffs struct {
	mu   sync.Mutex
	seen []string
}

func (h *handoffs) Handoff(endpoint string, status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = append(h.seen, endpoint+" "+http.StatusText(status))
}

// TestObservedCountsHandoffsByStatus: every answer to a handoff route is
// counted by status, refusals included; other routes are not counted.
func TestObservedCountsHandoffsByStatus(t *testing.T) {
	t.Parallel()
	srv := api.New(api.Config{
		Tokens: []api.Token{{Scope: api.ScopeService, Value: uiServiceToken}, {Scope: api.ScopeAdmin, Value: uiAdminToken}},
		Ready:  func(context.Context) error { return nil },
	})
	srv.Handle("POST /v1/sessions/{session_id}/close", api.ScopeService, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("session_id") == "dup" {
			api.WriteError(w, http.StatusConflict, "conflict", "different body")
			return
		}
		api.WriteJSON(w, http.StatusAccepted, map[string]string{"session_id": r.PathValue("session_id")})
	}))
	srv.Handle("POST /v1/sessions/{session_id}/messages", api.ScopeService, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{}`)) // an implicit 200
	}))
	srv.MountMetrics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("# metrics\n")) }))
	m := &handoffs{}
	h := srv.Observed(m)
	for _, c := range []struct{ method, path, token string }{
		{"POST", "/v1/sessions/s-1/close", uiServiceToken},
		{"POST", "/v1/sessions/dup/close", uiServiceToken},
		{"POST", "/v1/sessions/s-1/close", ""},
		{"POST", "/v1/sessions/s-1/messages", uiServiceToken},
		{"GET", "/metrics", uiServiceToken},
		{"GET", "/metrics", uiAdminToken},
		{"GET", "/healthz", ""},
	} {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	want := "close Accepted|close Conflict|close Unauthorized|messages OK"
	if got := strings.Join(m.seen, "|"); got != want {
		t.Fatalf("handoffs seen %q; want %q", got, want)
	}
	// /metrics is for admins only.
	for token, code := range map[string]int{"": 401, uiServiceToken: 403, uiAdminToken: 200} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != code {
			t.Errorf("GET /metrics with %q = %d; want %d", token, rec.Code, code)
		}
	}
}
