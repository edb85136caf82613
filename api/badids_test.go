package api_test

import (
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/internal/workerviews"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestBadBytesInPathIDs (issue 34 §9): a NUL or a byte that is not UTF-8
// in a memory id or in the user id of a page reached Postgres, which
// refused the query (500, and 503 for the page); SQLite answered 404. Both
// now answer 404 before any query, for a user that exists.
func TestBadBytesInPathIDs(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
				cfg.Tokens = append(cfg.Tokens, api.Token{Scope: api.ScopeAdmin, Value: adminToken})
			})
			mountViews(t, srv, st, q)
			if rec := call(srv, "POST", "/v1/sessions/s-1/close", body, "application/json"); rec.Code != 202 {
				t.Fatalf("close: %d %s", rec.Code, rec.Body)
			}
			for _, bad := range []string{"%00", "%FF", "a%00b", "%C3%28", "%ED%A0%80"} {
				if rec := request(srv, "DELETE", "/v1/users/u-1/memories/"+bad, token, "", ""); rec.Code != 404 {
					t.Errorf("DELETE /v1/users/u-1/memories/%s = %d %s; want 404", bad, rec.Code, rec.Body)
				}
				if rec := request(srv, "GET", "/views/users/"+bad, adminToken, "", ""); rec.Code != 404 {
					t.Errorf("GET /views/users/%s = %d; want 404", bad, rec.Code)
				}
			}
			// The user's own page is still served.
			if rec := request(srv, "GET", "/views/users/u-1", adminToken, "", ""); rec.Code != 200 {
				t.Fatalf("GET /views/users/u-1 = %d", rec.Code)
			}
		})
	}
}

// mountViews mounts the views of the built-in apps on srv, reading st and q.
func mountViews(t *testing.T, srv *api.Server, st store.Store, q queue.Queue) {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	mountViewsOf(t, srv, st, q, apps)
}

// mountViewsOf mounts the views of apps on srv.
func mountViewsOf(t *testing.T, srv *api.Server, st store.Store, q queue.Queue, apps map[string]*prompts.App) {
	t.Helper()
	keys, err := seal.ParseKeys(testKeySpec)
	if err != nil {
		t.Fatal(err)
	}
	srv.MountViews(workerviews.Config(&jobs.Deps{Store: st, Apps: apps, Keys: keys, Queue: q}))
}
