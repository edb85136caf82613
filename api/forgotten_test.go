package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestPackReadsTheForgetMarkers (issue 22, item 1): what a user forgot
// is not in the pack even where the forget did not rewrite it (a rolling
// summary or memory written before the forget routes rewrote derived text,
// or in a race with them): a memory or rolling fact said before a key's or
// a category's forget marker is left out; one said after it is told.
func TestPackReadsTheForgetMarkers(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			ctx := context.Background()
			now := time.Now().UTC().Truncate(time.Second)
			before, forget, after := now.Add(-3*time.Hour), now.Add(-2*time.Hour), now.Add(-time.Hour)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(st.UpsertUser(ctx, store.User{ID: "u-1", App: "mona", CreatedAt: before, UpdatedAt: before}))
			mem := func(id, key, value, category string, at time.Time) {
				must(st.InsertMemory(ctx, store.Memory{ID: id, UserID: "u-1", App: "mona", Key: key, Value: value, Category: category,
					Importance: 80, Confidence: 0.9, Status: store.MemoryActive, CreatedAt: at, UpdatedAt: at, StatedAt: at}))
			}
			mem("m-1", "likes:bazzlefizz", "bazzlefizz", "preference", before)
			mem("m-2", "allergy:grumbleberry", "Grumbleberries", "fact", before)
			mem("m-3", "favorite_color", "teal", "preference", before)
			mem("m-4", "pet:dog", "Wobbles", "fact", after)
			must(st.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: "m-0", UserID: "u-1", Action: "forget", Actor: "user", At: forget, Key: "likes:bazzlefizz"}))
			must(st.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: "category:fact", UserID: "u-1", Action: "forget", Actor: "user", At: forget}))
			summary, _ := json.Marshal(map[string]any{"messages_covered": 20, "mentioned": []string{"name", "likes:bazzlefizz", "favorite_color"},
				"facts": []map[string]string{{"key": "name", "value": "Snorkelwick"}, {"key": "likes:bazzlefizz", "value": "bazzlefizz"},
					{"key": "favorite_color", "value": "teal"}}})
			_, err := st.UpsertRollingSummary(ctx, store.RollingSummary{SessionID: "r-1", UserID: "u-1", App: "mona", Summary: summary,
				MessagesCovered: 20, UpdatedAt: before})
			must(err)

			code, pack := getJSON(t, srv, token, "GET", "/v1/users/u-1/context", "")
			text, _ := pack["text"].(string)
			if code != 200 {
				t.Fatalf("context = %d %v", code, pack)
			}
			for _, w := range []string{"bazzlefizz", "Grumbleberries", "Snorkelwick"} {
				if strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
					t.Errorf("the pack tells %q, forgotten after it was said:\n%s", w, text)
				}
			}
			for _, w := range []string{"teal", "Wobbles", "20 earlier turns"} {
				if !strings.Contains(text, w) {
					t.Errorf("the pack lacks %q, which was not forgotten:\n%s", w, text)
				}
			}
		})
	}
}
