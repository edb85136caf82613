package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
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
)

func TestParseTokens(t *testing.T) {
	t.Parallel()
	toks, err := api.ParseTokens("service:0123456789abcdef, admin:fedcba9876543210")
	if err != nil || len(toks) != 2 || toks[0].Scope != "service" || toks[1].Scope != "admin" {
		t.Fatalf("ParseTokens = %+v, %v", toks, err)
	}
	for _, bad := range []string{"service", "root:0123456789abcdef", "admin:tinysecret"} {
		_, err := api.ParseTokens(bad)
		if err == nil {
			t.Errorf("ParseTokens(%q) accepted", bad)
			continue
		}
		if strings.Contains(err.Error(), "0123456789abcdef") || strings.Contains(err.Error(), "tinysecret") {
			t.Errorf("ParseTokens(%q) error leaks the token: %v", bad, err)
		}
	}
}

// TestScopes checks every combination of route scope and token as a caller sees it.
func TestScopes(t *testing.T) {
	t.Parallel()
	srv := api.New(api.Config{
		Tokens: []api.Token{{Scope: api.ScopeService, Value: "service-token-0123456789"}, {Scope: api.ScopeAdmin, Value: "admin-token-0123456789"}},
		Ready:  func(context.Context) error { return nil },
	})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	srv.Handle("GET /service", api.ScopeService, ok)
	srv.Handle("GET /admin", api.ScopeAdmin, ok)
	cases := []struct {
		path, auth string
		want       int
	}{
		{"/service", "", 401},
		{"/service", "Bearer nope-nope-nope-nope", 401},
		{"/service", "Basic c2VydmljZS10b2tlbg==", 401},
		{"/service", "Bearer service-token-0123456789", 200},
		{"/service", "Bearer admin-token-0123456789", 200},
		{"/admin", "", 401},
		{"/admin", "Bearer service-token-0123456789", 403},
		{"/admin", "Bearer admin-token-0123456789", 200},
		{"/healthz", "", 200},
		{"/readyz", "", 200},
		{"/nowhere", "", 404},
	}
	for _, c := range cases {
		req := httptest.NewRequest("GET", c.path, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("GET %s with %q = %d; want %d", c.path, c.auth, rec.Code, c.want)
		}
		if rec.Code >= 400 && !strings.Contains(rec.Body.String(), `"error":{"code":`) {
			t.Errorf("GET %s: error body %s is not the JSON error shape", c.path, rec.Body.String())
		}
	}
}

func TestReadyzReportsDatabaseTrouble(t *testing.T) {
	t.Parallel()
	srv := api.New(api.Config{Ready: func(context.Context) error { return errors.New("2 migrations pending") }})
	rec := httptest.NewRecorder()
	served(t, srv, rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), "migrations pending") {
		t.Fatalf("readyz = %d %s; want 503 without internal detail", rec.Code, rec.Body.String())
	}
}

// TestUnreachableDatabaseAnswers503: a handoff while Postgres cannot be
// reached is answered 503 unavailable in the JSON error shape, for the chat
// service to send it again, never 500.
func TestUnreachableDatabaseAnswers503(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cfg, err := store.PostgresConfig(fmt.Sprintf("postgres://postgres@127.0.0.1:%d/mnemo?sslmode=disable", port), "", 2)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenPostgres(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := queue.New(st, queue.Config{})
	if err != nil {
		t.Fatal(err)
	}
	apps, _ := prompts.Builtin()
	keys, _ := seal.ParseKeys(testKeySpec)
	srv := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: token}}})
	srv.Mount(api.Data{Store: st, MaxBodyBytes: 1 << 20, Handoff: handoff.Deps{Queue: q, Apps: apps, Keys: keys}})

	rec := call(srv, "POST", "/v1/sessions/s-1/close", body, "application/json")
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != http.StatusServiceUnavailable || e.Error.Code != "unavailable" || e.Error.Message == "" {
		t.Fatalf("handoff with the database unreachable = %d %s; want 503 unavailable", rec.Code, rec.Body.String())
	}
	if strings.Contains(rec.Body.String(), "127.0.0.1") {
		t.Fatalf("the error leaks the database address: %s", rec.Body.String())
	}
	if ra := rec.Header().Get("Retry-After"); ra != "1" {
		t.Fatalf("503 without Retry-After (got %q): a chat service would not know when to send again", ra)
	}
}
