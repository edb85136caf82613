package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/internal/workerviews"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

const (
	claraServiceToken = "clara-service-token-0123456789"
	claraCaregiverTkn = "clara-caregiver-token-0123456789"
)

// TestClaraDataIsTheCaregiversAndTheAppsOnly: the admin token was refused
// Clara's pages but read the same data over JSON (trends, the session and
// its summary, an export). One rule (views.MayRead) now decides for every
// route that returns a user's data: a Clara user's reaches the caregiver
// token (its pages) and the app's own service token (JSON) only; the
// operator still lists jobs and erases the user. Routes × tokens, on both
// databases; a Mona user stays the operator's to read.
func TestClaraDataIsTheCaregiversAndTheAppsOnly(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
				cfg.Tokens = append(cfg.Tokens, api.Token{Scope: api.ScopeAdmin, Value: adminToken},
					api.Token{Scope: api.ScopeService, Value: claraServiceToken, App: "clara"},
					api.Token{Scope: api.ScopeService, Value: monaToken, App: "mona"},
					api.Token{Scope: api.ScopeCaregiver, Value: claraCaregiverTkn, App: "clara"})
			})
			apps, err := prompts.Builtin()
			if err != nil {
				t.Fatal(err)
			}
			keys, err := seal.ParseKeys(testKeySpec)
			if err != nil {
				t.Fatal(err)
			}
			srv.MountViews(workerviews.Config(&jobs.Deps{Store: st, Apps: apps, Keys: keys, Queue: q}))
			if rec := request(srv, "POST", "/v1/sessions/s-c/close", claraServiceToken, claraClose, "application/json"); rec.Code != 202 {
				t.Fatalf("Clara's close: %d %s", rec.Code, rec.Body)
			}
			if rec := request(srv, "POST", "/v1/sessions/s-m/close", monaToken, strings.ReplaceAll(body, "u-1", "u-m"), "application/json"); rec.Code != 202 {
				t.Fatalf("Mona's close: %d %s", rec.Code, rec.Body)
			}
			var exp struct {
				URL string `json:"url"`
			}
			rec := request(srv, "POST", "/v1/users/u-c/export", claraServiceToken, "", "")
			if err := json.Unmarshal(rec.Body.Bytes(), &exp); rec.Code != 202 || err != nil || exp.URL == "" {
				t.Fatalf("Clara's export by its own token: %d %s", rec.Code, rec.Body)
			}

			// What each token is answered: ok is a 2xx (or a page), refused a
			// 403 naming the rule, scope a 403 of the token's scope, unknown
			// the 404 of a user that does not exist.
			const (
				ok = iota
				refused
				scope
				unknown
			)
			tokens := []struct {
				name, value string
				json, page  int
			}{
				{"admin", adminToken, refused, refused},
				{"unbound service", token, refused, refused},
				{"Clara's service", claraServiceToken, ok, refused},
				{"Clara's caregiver", claraCaregiverTkn, scope, ok},
				{"Mona's service", monaToken, unknown, unknown},
			}
			routes := []struct{ method, path, body string }{
				{"GET", "/v1/users/u-c/trends", ""},
				{"GET", "/v1/users/u-c/analytics", ""},
				{"GET", "/v1/sessions/s-c", ""},
				{"POST", "/v1/users/u-c/export", ""},
				{"GET", exp.URL, ""},
				{"GET", "/v1/users/u-c/memories", ""},
				{"PATCH", "/v1/users/u-c/profile", `{"favourite_song":"Moon River"}`},
				{"GET", "/v1/users/u-c/profile", ""},
				{"GET", "/v1/users/u-c/context", ""},
				{"GET", "/v1/users/u-c/cues", ""},
				{"GET", "/views/users/u-c", ""},
			}
			for _, tok := range tokens {
				for _, rt := range routes {
					want := tok.json
					if strings.HasPrefix(rt.path, "/views/") {
						want = tok.page
					}
					ct := ""
					if rt.body != "" {
						ct = "application/json"
					}
					rec := request(srv, rt.method, rt.path, tok.value, rt.body, ct)
					code, msg, _ := errorOf(rec.Body.Bytes())
					var good bool
					switch want {
					case ok:
						good = rec.Code/100 == 2
					case refused:
						good = rec.Code == http.StatusForbidden && (strings.Contains(msg, "caregiver") || strings.Contains(rec.Body.String(), "caregiver"))
					case scope:
						good = rec.Code == http.StatusForbidden && code == "forbidden" && strings.Contains(msg, "scope")
					case unknown:
						good = rec.Code == http.StatusNotFound
					}
					if !good {
						t.Errorf("%s token: %s %s = %d %.200s; want %v", tok.name, rt.method, rt.path, rec.Code, rec.Body, []string{"2xx", "403 caregiver only", "403 scope", "404"}[want])
					}
					if want != ok && strings.Contains(rec.Body.String(), "calm") {
						t.Errorf("%s token: %s %s shows Clara's emotions: %.200s", tok.name, rt.method, rt.path, rec.Body)
					}
				}
			}

			// The operator still reads a Mona user, lists jobs and erases a
			// Clara user.
			for _, path := range []string{"/v1/users/u-m/memories", "/v1/users/u-m/context", "/v1/sessions/s-m", "/v1/admin/jobs", "/views/users/u-m"} {
				if rec := request(srv, "GET", path, adminToken, "", ""); rec.Code != 200 {
					t.Errorf("admin token: GET %s = %d %.200s; want 200", path, rec.Code, rec.Body)
				}
			}
			if rec := request(srv, "DELETE", "/v1/users/u-c", adminToken, "", ""); rec.Code != 202 {
				t.Errorf("admin token erases Clara's user: %d %s; want 202", rec.Code, rec.Body)
			}
		})
	}
}
