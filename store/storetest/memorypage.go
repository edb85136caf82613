package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

// Issue 34 §3: a user's memories are read a page at a time, by a cursor.

func init() {
	cases = append(cases, testCase{"PageMemoriesFollowsListMemories", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		var ms []store.Memory
		for i := range 11 {
			// Ties of importance and of creation time, so that the cursor
			// must carry all three.
			at := T0.Add(time.Duration(i%3) * time.Minute)
			status, cat := store.MemoryActive, "fact"
			if i == 4 {
				status = store.MemoryDeprecated
			}
			if i%2 == 0 {
				cat = "preference"
			}
			ms = append(ms, store.Memory{ID: fmt.Sprintf("m-%02d", 10-i), UserID: "u-1", App: appE, Key: fmt.Sprintf("k%d", i), Value: "v",
				Category: cat, Importance: 50 + 10*(i%2), Confidence: 0.7, Status: status, Confirmations: 1, CreatedAt: at, UpdatedAt: at})
		}
		ms = append(ms, store.Memory{ID: "x-1", UserID: "u-2", App: appE, Key: "k", Value: "v", Category: "fact", Importance: 90,
			Confidence: 0.7, Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0})
		must(t, s.InsertMemories(ctx, ms))
		for _, f := range []store.MemoryFilter{{}, {All: true}, {Category: "preference"}, {Status: store.MemoryDeprecated}} {
			want, err := s.ListMemories(ctx, "u-1", f)
			must(t, err)
			var got []string
			var after *store.MemoryCursor
			for pages := 0; ; pages++ {
				page, next, err := s.PageMemories(ctx, "u-1", f, after, 3)
				must(t, err)
				if len(page) > 3 || pages > len(want) {
					t.Fatalf("filter %+v: page %d holds %d", f, pages, len(page))
				}
				for _, m := range page {
					got = append(got, m.ID)
				}
				if next == nil {
					break
				}
				// The cursor goes through its text form, as a client sends it back.
				c, err := store.ParseMemoryCursor(next.String())
				must(t, err)
				after = &c
			}
			var ids []string
			for _, m := range want {
				ids = append(ids, m.ID)
			}
			if !slices.Equal(got, ids) {
				t.Fatalf("filter %+v: pages %v; want ListMemories' %v", f, got, ids)
			}
		}
		if _, err := store.ParseMemoryCursor("not-a-cursor"); err == nil {
			t.Fatal("a made-up cursor parsed")
		}
	}})
}
