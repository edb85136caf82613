package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// A misspelt category is refused as a misspelt status is, instead of an
// empty list a chat service would read as "nothing remembered".
func TestMemoryListRefusesUnknownCategory(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			ctx := context.Background()
			at := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			if err := st.UpsertUser(ctx, store.User{ID: "u-1", App: "mona", Timezone: "UTC", CreatedAt: at, UpdatedAt: at}); err != nil {
				t.Fatal(err)
			}
			if err := st.InsertMemory(ctx, store.Memory{ID: "m-1", UserID: "u-1", Key: "likes:tea", Value: "green tea", Category: "preference",
				Importance: 5, Confidence: 0.9, Status: store.MemoryActive, CreatedAt: at, UpdatedAt: at, StatedAt: at}); err != nil {
				t.Fatal(err)
			}
			if rec := call(srv, "GET", "/v1/users/u-1/memories?category=preference", "", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), "green tea") {
				t.Fatalf("category=preference = %d %s; want 200 with the memory", rec.Code, rec.Body.String())
			}
			rec := call(srv, "GET", "/v1/users/u-1/memories?category=preferences", "", "")
			if rec.Code != 400 || !strings.Contains(rec.Body.String(), "category must be one of") {
				t.Fatalf("category=preferences = %d %s; want 400 naming the categories", rec.Code, rec.Body.String())
			}
		})
	}
}
