package api_test

import (
	"net/http"
	"testing"

	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestUnknownUserSameShape: every route about a user answers an unknown
// user with the same JSON 404.
func TestUnknownUserSameShape(t *testing.T) {
	t.Parallel()
	srv, _, _ := setupAPI(t, storetest.Backends(t)[0])
	var first string
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/users/nobody/memories", ""},
		{"DELETE", "/v1/users/nobody/memories?category=fact", ""},
		{"DELETE", "/v1/users/nobody/memories/m-1", ""},
		{"GET", "/v1/users/nobody/profile", ""},
		{"PATCH", "/v1/users/nobody/profile", `{"a":1}`},
		{"DELETE", "/v1/users/nobody/profile", ""},
		{"GET", "/v1/users/nobody/context?budget_tokens=100", ""},
		{"GET", "/v1/users/nobody/analytics", ""},
		{"GET", "/v1/users/nobody/trends", ""},
		{"GET", "/v1/users/nobody/cues", ""},
		{"PUT", "/v1/users/nobody/settings", `{"memory_enabled":false}`},
		{"POST", "/v1/users/nobody/export", ""},
		{"DELETE", "/v1/users/nobody", ""},
	} {
		ct := ""
		if c.body != "" {
			ct = "application/json"
		}
		rec := call(srv, c.method, c.path, c.body, ct)
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s %s: %d %s; want 404", c.method, c.path, rec.Code, rec.Body)
			continue
		}
		if first == "" {
			first = rec.Body.String()
		} else if rec.Body.String() != first {
			t.Errorf("%s %s: %s; other routes answer %s", c.method, c.path, rec.Body, first)
		}
	}
}
