package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
)

// TestCaregiverTokens: a caregiver token is always bound to an app and
// reaches no JSON route, service or admin (it reads the views only).
func TestCaregiverTokens(t *testing.T) {
	t.Parallel()
	toks, err := api.ParseTokens("caregiver@clara:0123456789abcdef,service@clara:fedcba9876543210")
	if err != nil || len(toks) != 2 || toks[0] != (api.Token{Scope: api.ScopeCaregiver, Value: "0123456789abcdef", App: "clara"}) {
		t.Fatalf("ParseTokens = %+v, %v", toks, err)
	}
	for _, bad := range []string{"caregiver:0123456789abcdef", "caregiver@:0123456789abcdef", "caregiver@Cl ara:0123456789abcdef", "admin@clara:0123456789abcdef"} {
		if _, err := api.ParseTokens(bad); err == nil || strings.Contains(err.Error(), "0123456789abcdef") {
			t.Errorf("ParseTokens(%q) = %v; want an error that does not echo the token", bad, err)
		}
	}

	srv := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeCaregiver, Value: "caregiver-token-0123456789", App: "clara"}},
		Ready: func(context.Context) error { return nil }})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	srv.Handle("GET /service", api.ScopeService, ok)
	srv.Handle("GET /admin", api.ScopeAdmin, ok)
	for _, path := range []string{"/service", "/admin"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer caregiver-token-0123456789")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Errorf("GET %s with a caregiver token = %d; want 403", path, rec.Code)
		}
	}
}
