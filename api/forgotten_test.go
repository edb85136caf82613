package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/seal"
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

// TestForgetReachesRecordsCuesAndOldVersions (issue 22, items 1-2): forgetting
// a memory forgets its key: the versions a newer statement replaced go with
// it, with the statements of the key, and no listing of any status shows
// them; a record or a cue that names the key or any of its values (in its
// key, its field or its data) is deleted in the same transaction, so that a
// new export holds none of them. What names nothing forgotten stays.
func TestForgetReachesRecordsCuesAndOldVersions(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			ctx := context.Background()
			now := time.Now().UTC().Truncate(time.Second)
			at := func(h int) time.Time { return now.Add(time.Duration(h-10) * time.Hour) }
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(st.UpsertUser(ctx, store.User{ID: "u-1", App: "mona", CreatedAt: at(0), UpdatedAt: at(0)}))
			mem := func(id, key, value, category string, h int) store.Memory {
				return store.Memory{ID: id, UserID: "u-1", App: "mona", Key: key, Value: value, Category: category,
					Importance: 80, Confidence: 0.9, Status: store.MemoryActive, CreatedAt: at(h), UpdatedAt: at(h), StatedAt: at(h)}
			}
			moved := mem("m-2", "lives_in", "Plonkton", "fact", 1)
			moved.Status, moved.InvalidatedAt, moved.InvalidatedBy = store.MemoryDeprecated, ptr(at(2)), "m-3"
			mems := []store.Memory{mem("m-1", "likes:bazzlefizz", "bazzlefizz", "preference", 1), moved,
				mem("m-3", "lives_in", "Zorbington", "fact", 2), mem("m-4", "favorite_color", "teal", "preference", 1)}
			must(st.InsertMemories(ctx, mems))
			for _, m := range mems {
				must(st.InsertStatement(ctx, store.Statement{MemoryID: m.ID, UserID: "u-1", Key: m.Key, Value: m.Value, Category: m.Category,
					StatedAt: m.StatedAt, CreatedAt: m.CreatedAt}))
			}
			record := func(kind, key, data string) {
				must(st.UpsertRecord(ctx, store.Record{UserID: "u-1", App: "mona", Type: kind, Key: key, Data: json.RawMessage(data), UpdatedAt: at(3)}))
			}
			record("preference", "likes:bazzlefizz", `{"polarity":"like"}`)
			record("learning", "geography", `{"places":["Oslo","Plonkton"]}`) // the old address
			record("learning", "colors", `{"favorite":"teal"}`)
			cue := func(id, field, detail string) {
				must(st.InsertCue(ctx, store.Cue{ID: id, UserID: "u-1", App: "mona", Type: "change", Field: field, Detail: json.RawMessage(detail),
					SessionID: "s-" + id, CreatedAt: at(3)}))
			}
			cue("c-1", "lives_in", `{"actor":"user"}`)
			cue("c-2", "note", `{"said":{"moved":"to Zorbington"}}`)
			cue("c-3", "has_sponsor", `{"has_sponsor":false}`)

			for _, id := range []string{"m-1", "m-3"} {
				if code, res := getJSON(t, srv, token, "DELETE", "/v1/users/u-1/memories/"+id, ""); code != 204 {
					t.Fatalf("forget %s = %d %v", id, code, res)
				}
			}

			forgotten := []string{"bazzlefizz", "Plonkton", "Zorbington", "lives_in"}
			_, list := getJSON(t, srv, token, "GET", "/v1/users/u-1/memories?status=all", "")
			if got := textOf(t, list); !strings.Contains(got, "teal") || strings.Count(got, `"key"`) != 1 {
				t.Errorf("memories of any status after forgetting = %s; want favorite_color only", got)
			}
			stmts, err := st.ListStatements(ctx, "u-1", nil)
			must(err)
			recs, err := st.ListRecords(ctx, "u-1", nil)
			must(err)
			cues, err := st.ListCues(ctx, "u-1", false)
			must(err)
			if len(stmts) != 1 || stmts[0].MemoryID != "m-4" {
				t.Errorf("statements after forgetting = %+v; want favorite_color's only", stmts)
			}
			if len(recs) != 1 || recs[0].Key != "colors" {
				t.Errorf("records after forgetting = %s; want colors only", textOf(t, recs))
			}
			if len(cues) != 1 || cues[0].ID != "c-3" {
				t.Errorf("cues after forgetting = %s; want c-3 only", textOf(t, cues))
			}
			keys, err := seal.ParseKeys(testKeySpec)
			must(err)
			a, err := memory.BuildArchive(ctx, st, keys, "u-1", now)
			must(err)
			// The forget markers keep the forgotten key (memory_audit), so that
			// a late session does not bring it back; nothing else may.
			a.MemoryAudit = nil
			archive := textOf(t, a)
			for _, w := range forgotten {
				if strings.Contains(archive, w) {
					t.Errorf("a new export holds %q: %s", w, archive)
				}
			}
			if !strings.Contains(archive, "teal") || !strings.Contains(archive, "has_sponsor") {
				t.Errorf("forgetting took out what names nothing forgotten: %s", archive)
			}
		})
	}
}

func textOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }
