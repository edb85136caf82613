package api_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestExportsPerUserAreBounded (issue 34 §6): ten exports of a user were
// ten archives of all their data, each kept a week (SQLite grew from 42 to
// 204 MB). Now a user keeps at most MaxExportsPerUser: a new export
// replaces the oldest, says which, and the replaced one is gone (404).
func TestExportsPerUserAreBounded(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			ctx := context.Background()
			now := time.Now().UTC()
			for _, u := range []string{"u-1", "u-2"} {
				if err := st.UpsertUser(ctx, store.User{ID: u, App: "mona", CreatedAt: now, UpdatedAt: now}); err != nil {
					t.Fatal(err)
				}
			}
			if code, body := getJSON(t, srv, token, "POST", "/v1/users/u-2/export", ""); code != 202 {
				t.Fatalf("export of u-2 = %d %v", code, body)
			}
			var ids []string
			for i := range 5 {
				code, body := getJSON(t, srv, token, "POST", "/v1/users/u-1/export", "")
				id, _ := body["export_id"].(string)
				if code != 202 || id == "" {
					t.Fatalf("export %d = %d %v", i, code, body)
				}
				ids = append(ids, id)
				var replaced []string
				for _, r := range body["replaced"].([]any) {
					replaced = append(replaced, r.(string))
				}
				if want := ids[:max(0, len(ids)-api.DefaultMaxExportsPerUser)]; !slices.Equal(replaced, want[max(0, len(want)-1):]) {
					t.Fatalf("export %d replaced %v; want %v", i, replaced, want[max(0, len(want)-1):])
				}
			}
			list, err := st.ListUserExports(ctx, "u-1")
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, e := range list {
				kept = append(kept, e.ID)
			}
			if !slices.Equal(kept, ids[len(ids)-api.DefaultMaxExportsPerUser:]) {
				t.Fatalf("u-1 keeps exports %v; want the newest %d of %v", kept, api.DefaultMaxExportsPerUser, ids)
			}
			if code, _ := getJSON(t, srv, token, "GET", "/v1/users/u-1/exports/"+ids[0], ""); code != 404 {
				t.Fatalf("a replaced export answers %d; want 404", code)
			}
			if other, err := st.ListUserExports(ctx, "u-2"); err != nil || len(other) != 1 {
				t.Fatalf("u-2's exports: %d, %v; want its one", len(other), err)
			}
		})
	}
}
