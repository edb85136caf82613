package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
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
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), "migrations pending") {
		t.Fatalf("readyz = %d %s; want 503 without internal detail", rec.Code, rec.Body.String())
	}
}
