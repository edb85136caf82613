package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestOpenModeRefusesForeignOrigins (issue 34 §9): in open mode a GET that
// carried only `Origin: http://evil.example`, without Fetch Metadata (an
// older browser, or one that leaves it out), was served and marked the
// pack's memories used. Any request whose Origin names another origin than
// the one it is sent to is now refused 403 cross_site, reads included,
// "null" and another port of localhost too; the same origin, and no Origin
// at all, are served. On both databases.
func TestOpenModeRefusesForeignOrigins(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPIWith(t, b, func(cfg *api.Config, _ *api.Data) { cfg.Tokens = nil })
			mountViews(t, srv, st, q)
			used := seedMemory(t, st)
			for _, origin := range []string{"http://evil.example", "null", "http://localhost:3000", "https://localhost:8080.evil.example", "::"} {
				for _, path := range []string{"/v1/users/u-1/context", "/v1/users/u-1/memories", "/views/users/u-1"} {
					rec := request(srv, "GET", path, "", "", "", "Host", "localhost:8080", "Origin", origin)
					if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), `"code":"cross_site"`) || strings.Contains(rec.Body.String(), "Priya") {
						t.Errorf("GET %s with Origin %q = %d %s; want 403 cross_site", path, origin, rec.Code, rec.Body)
					}
				}
			}
			if used() {
				t.Fatal("a read with a foreign Origin marked the memory used")
			}
			for _, origin := range []string{"", "http://localhost:8080"} {
				rec := request(srv, "GET", "/v1/users/u-1/context", "", "", "", "Host", "localhost:8080", "Origin", origin)
				if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Priya") {
					t.Fatalf("GET context with Origin %q = %d %s; want 200 with the pack", origin, rec.Code, rec.Body)
				}
				if rec := request(srv, "GET", "/views/users/u-1", "", "", "", "Host", "localhost:8080", "Origin", origin); rec.Code != http.StatusOK {
					t.Fatalf("GET the page with Origin %q = %d", origin, rec.Code)
				}
			}
			if !used() {
				t.Fatal("the pack did not mark its memory used: the check above proves nothing")
			}
		})
	}
}

// seedMemory stores Mona user u-1 with memory m-1 ("Priya") and returns
// whether the memory has been marked used.
func seedMemory(t *testing.T, st store.Store) (used func() bool) {
	t.Helper()
	ctx := context.Background()
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	if err := st.UpsertUser(ctx, store.User{ID: "u-1", App: "mona", Timezone: "UTC", CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if err := st.InsertMemory(ctx, store.Memory{ID: "m-1", UserID: "u-1", Key: "name", Value: "Priya", Category: "fact",
		Importance: 9, Confidence: 0.9, Status: store.MemoryActive, CreatedAt: at, UpdatedAt: at, StatedAt: at}); err != nil {
		t.Fatal(err)
	}
	return func() bool {
		m, err := st.GetMemory(ctx, "u-1", "m-1")
		if err != nil {
			t.Fatal(err)
		}
		return m.LastUsedAt != nil
	}
}
