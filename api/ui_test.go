package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
)

const (
	uiServiceToken = "service-token-0123456789"
	uiAdminToken   = "admin-token-0123456789"
)

func uiServer(t *testing.T) *api.Server {
	t.Helper()
	srv := api.New(api.Config{
		Tokens: []api.Token{{Scope: api.ScopeService, Value: uiServiceToken}, {Scope: api.ScopeAdmin, Value: uiAdminToken}},
		Ready:  func(context.Context) error { return nil },
	})
	srv.MountUI(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>River UI at " + r.URL.Path + "</html>"))
	}))
	return srv
}

func basicAuth(token string) string {
	r := httptest.NewRequest("GET", "/", nil)
	r.SetBasicAuth("operator", token)
	return r.Header.Get("Authorization")
}

// TestUIIsForAdminsOnly: River UI's pages and API answer admin tokens only,
// given as a bearer token or, from a browser, as the Basic password.
func TestUIIsForAdminsOnly(t *testing.T) {
	t.Parallel()
	srv := uiServer(t)
	cases := []struct {
		method, path, auth string
		header             [2]string
		want               int
	}{
		{"GET", "/ui/", "", [2]string{}, 401},
		{"GET", "/ui/api/jobs", "Bearer not-a-real-token-at-all", [2]string{}, 401},
		{"GET", "/ui/", "Bearer " + uiServiceToken, [2]string{}, 403},
		{"GET", "/ui/api/jobs", basicAuth(uiServiceToken), [2]string{}, 403},
		{"GET", "/ui/", basicAuth("wrong-password-of-some-length"), [2]string{}, 401},
		{"GET", "/ui/", "Bearer " + uiAdminToken, [2]string{}, 200},
		{"GET", "/ui/jobs/12", basicAuth(uiAdminToken), [2]string{}, 200},
		// An admin's browser, lured by another site, cannot act through the UI.
		{"POST", "/ui/api/jobs/cancel", basicAuth(uiAdminToken), [2]string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"POST", "/ui/api/jobs/cancel", basicAuth(uiAdminToken), [2]string{"Origin", "https://evil.example"}, 403},
		{"POST", "/ui/api/jobs/cancel", basicAuth(uiAdminToken), [2]string{"Sec-Fetch-Site", "same-origin"}, 200},
		{"POST", "/ui/api/jobs/cancel", "Bearer " + uiAdminToken, [2]string{}, 200},
	}
	for _, c := range cases {
		req := httptest.NewRequest(c.method, c.path, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if c.header[0] != "" {
			req.Header.Set(c.header[0], c.header[1])
		}
		rec := httptest.NewRecorder()
		served(t, srv, rec, req)
		if rec.Code != c.want {
			t.Errorf("%s %s with %q %v = %d; want %d", c.method, c.path, c.auth, c.header, rec.Code, c.want)
			continue
		}
		challenge := strings.Join(rec.Header().Values("WWW-Authenticate"), ", ")
		switch {
		case rec.Code == 401 && !strings.Contains(challenge, "Basic"):
			t.Errorf("%s %s = 401 without a Basic challenge (%q): a browser would not ask for the token", c.method, c.path, challenge)
		case rec.Code == 401 || rec.Code == 403 && c.header[0] == "":
			if !strings.Contains(rec.Body.String(), `"error":{"code":`) {
				t.Errorf("%s %s = %d: %s is not the JSON error shape", c.method, c.path, rec.Code, rec.Body.String())
			}
		case rec.Code == 200 && rec.Header().Get("X-Frame-Options") != "DENY":
			t.Errorf("%s %s may be framed", c.method, c.path)
		}
	}
	// Other routes keep refusing Basic credentials.
	srv.Handle("GET /v1/admin/ping", api.ScopeAdmin, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	req := httptest.NewRequest("GET", "/v1/admin/ping", nil)
	req.Header.Set("Authorization", basicAuth(uiAdminToken))
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != 401 {
		t.Fatalf("Basic credentials on an API route = %d; want 401", rec.Code)
	}
}
