package api_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestMemoriesArePaged (issue 34 §3): GET /v1/users/{id}/memories answered
// every memory at once (21,000 memories, 8.9 MB). Now a page holds at most
// limit (default api.DefaultMemoriesPage) and next_cursor reads on; a small
// user gets everything in one page with next_cursor null, as before.
func TestMemoriesArePaged(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			ctx := context.Background()
			now := time.Now().UTC().Truncate(time.Second)
			const many = api.DefaultMemoriesPage + 203
			for _, u := range []string{"u-big", "u-small"} {
				if err := st.UpsertUser(ctx, store.User{ID: u, App: "mona", CreatedAt: now, UpdatedAt: now}); err != nil {
					t.Fatal(err)
				}
			}
			var ms []store.Memory
			for i := range many + 2 {
				user := "u-big"
				if i >= many {
					user = "u-small"
				}
				at := now.Add(-time.Duration(i%7) * time.Minute)
				ms = append(ms, store.Memory{ID: fmt.Sprintf("m-%04d", i), UserID: user, App: "mona", Key: fmt.Sprintf("pet:p%d", i), Value: "v",
					Category: "fact", Importance: 40 + i%5, Confidence: 0.8, Status: store.MemoryActive, CreatedAt: at, UpdatedAt: at, StatedAt: at})
			}
			if err := st.InsertMemories(ctx, ms); err != nil {
				t.Fatal(err)
			}
			code, small := getJSON(t, srv, token, "GET", "/v1/users/u-small/memories", "")
			if code != 200 || len(small["memories"].([]any)) != 2 || small["next_cursor"] != nil {
				t.Fatalf("small user = %d, %d memories, next_cursor %v; want 2 and null", code, len(small["memories"].([]any)), small["next_cursor"])
			}
			seen := map[string]bool{}
			path := "/v1/users/u-big/memories"
			var sizes []int
			for page := 0; ; page++ {
				code, body := getJSON(t, srv, token, "GET", path, "")
				if code != 200 || page > 10 {
					t.Fatalf("page %d = %d %v", page, code, body["error"])
				}
				list := body["memories"].([]any)
				sizes = append(sizes, len(list))
				for _, m := range list {
					id := m.(map[string]any)["id"].(string)
					if seen[id] {
						t.Fatalf("memory %s in two pages", id)
					}
					seen[id] = true
				}
				next, _ := body["next_cursor"].(string)
				if next == "" {
					break
				}
				path = "/v1/users/u-big/memories?limit=150&cursor=" + url.QueryEscape(next)
			}
			if len(seen) != many || sizes[0] != api.DefaultMemoriesPage || sizes[1] != 150 {
				t.Fatalf("read %d memories in pages of %v; want %d, the first of %d, then of 150", len(seen), sizes, many, api.DefaultMemoriesPage)
			}
			for _, q := range []string{"limit=0", fmt.Sprintf("limit=%d", api.MaxMemoriesPage+1), "limit=x", "cursor=made-up"} {
				if code, _ := getJSON(t, srv, token, "GET", "/v1/users/u-big/memories?"+q, ""); code != 400 {
					t.Errorf("?%s = %d; want 400", q, code)
				}
			}
		})
	}
}
