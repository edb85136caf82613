package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

// Issue 22: forget and memory off reach the text sessions in progress
// left: rolling summaries are rewritten or deleted with the buffer; a
// forgotten key goes with every version and statement of it; a cue that
// names what was forgotten goes alone.

func init() {
	cases = append(cases, forgetCases...)
}

var forgetCases = []testCase{
	{"RollingSummariesAreRewrittenAndDeletedPerUser", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-1", "s-2")
		seedSession(t, s, "u-2", "s-3")
		for i, id := range []string{"s-1", "s-2", "s-3"} {
			user := "u-1"
			if id == "s-3" {
				user = "u-2"
			}
			_, err := s.AppendBuffer(ctx, []store.BufferMessage{{SessionID: id, Seq: 0, UserID: user, MessageID: "m0", KeyID: "k",
				Nonce: []byte{1}, Ciphertext: []byte{2}, SHA256: []byte{3}, CreatedAt: T0}})
			must(t, err)
			_, err = s.UpsertRollingSummary(ctx, store.RollingSummary{SessionID: id, UserID: user, App: appE,
				Summary: json.RawMessage(`{"facts":[{"key":"name","value":"Ada"}]}`), MessagesCovered: 20, UpdatedAt: T0.Add(time.Duration(2-i) * time.Minute)})
			must(t, err)
		}
		list, err := s.ListRollingSummaries(ctx, "u-1")
		must(t, err)
		if len(list) != 2 || list[0].SessionID != "s-2" || list[1].SessionID != "s-1" {
			t.Fatalf("rolling summaries of u-1 = %+v; want s-2 then s-1 (oldest first)", list)
		}
		// A rewrite replaces the text whatever it covers, and keeps the count.
		must(t, s.ReplaceRollingSummary(ctx, store.RollingSummary{SessionID: "s-1", UserID: "u-1", Summary: json.RawMessage(`{"facts":[]}`)}))
		got, err := s.GetRollingSummary(ctx, "s-1")
		must(t, err)
		var doc map[string][]any
		if err := json.Unmarshal(got.Summary, &doc); err != nil || doc["facts"] == nil || len(doc["facts"]) != 0 || got.MessagesCovered != 20 {
			t.Fatalf("rewritten rolling summary = %s covering %d", got.Summary, got.MessagesCovered)
		}
		if err := s.ReplaceRollingSummary(ctx, store.RollingSummary{SessionID: "s-3", UserID: "u-1", Summary: json.RawMessage(`{}`)}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("rewriting another user's rolling summary = %v; want ErrNotFound", err)
		}
		// Memory off: the user's buffer and rolling summaries go, no one else's.
		n, err := s.DeleteUserRolling(ctx, "u-1")
		must(t, err)
		if n != 4 {
			t.Fatalf("deleted %d rows; want 2 turns and 2 summaries", n)
		}
		for _, id := range []string{"s-1", "s-2"} {
			if c, err := s.CountBuffer(ctx, id); err != nil || c != 0 {
				t.Fatalf("buffer of %s after memory off = %d, %v", id, c, err)
			}
		}
		if _, err := s.LatestRollingSummary(ctx, "u-1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("rolling summary of u-1 after memory off: %v; want ErrNotFound", err)
		}
		if c, err := s.CountBuffer(ctx, "s-3"); err != nil || c != 1 {
			t.Fatalf("another user's buffer = %d, %v", c, err)
		}
		if _, err := s.GetRollingSummary(ctx, "s-3"); err != nil {
			t.Fatalf("another user's rolling summary: %v", err)
		}
	}},
	{"DeleteKeyMemoriesTakesEveryVersionAndStatement", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		at := func(h int) time.Time { return T0.Add(time.Duration(h) * time.Hour) }
		mem := func(id, user, key, value, status string, h int) store.Memory {
			return store.Memory{ID: id, UserID: user, App: appE, Key: key, Value: value, Category: "fact", Importance: 80,
				Confidence: 0.8, Status: status, CreatedAt: at(h), UpdatedAt: at(h), StatedAt: at(h)}
		}
		old := mem("m-1", "u-1", "lives_in", "Plonkton", store.MemoryDeprecated, 0)
		old.InvalidatedAt, old.InvalidatedBy = ptr(at(1)), "m-2"
		must(t, s.InsertMemories(ctx, []store.Memory{old, mem("m-2", "u-1", "lives_in", "Zorbington", store.MemoryActive, 1),
			mem("m-3", "u-1", "name", "Ada", store.MemoryActive, 0), mem("m-4", "u-2", "lives_in", "Plonkton", store.MemoryActive, 0)}))
		stmt := func(id, memory, user, key, value string, h int) store.Statement {
			return store.Statement{ID: id, MemoryID: memory, UserID: user, Key: key, Value: value, StatedAt: at(h), SessionID: "s-1", CreatedAt: at(h)}
		}
		// st-4 was said of lives_in but belongs to the name's memory (a move).
		must(t, s.InsertStatements(ctx, []store.Statement{stmt("st-1", "m-1", "u-1", "lives_in", "Plonkton", 0),
			stmt("st-2", "m-2", "u-1", "lives_in", "Zorbington", 1), stmt("st-3", "m-3", "u-1", "name", "Ada", 0),
			stmt("st-4", "m-3", "u-1", "lives_in", "Plonkton", 2), stmt("st-5", "m-4", "u-2", "lives_in", "Plonkton", 0)}))

		n, err := s.DeleteKeyMemories(ctx, "u-1", []string{"lives_in"})
		must(t, err)
		if n != 2 {
			t.Fatalf("forgot %d memories; want both versions of lives_in", n)
		}
		mems, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
		must(t, err)
		if len(mems) != 1 || mems[0].ID != "m-3" {
			t.Fatalf("memories of u-1 of any status after forgetting lives_in = %+v; want the name only", mems)
		}
		stmts, err := s.ListStatements(ctx, "u-1", nil)
		must(t, err)
		if len(stmts) != 1 || stmts[0].ID != "st-3" {
			t.Fatalf("statements of u-1 after forgetting lives_in = %+v; want the name's only", stmts)
		}
		if mems, err := s.ListMemories(ctx, "u-2", store.MemoryFilter{All: true}); err != nil || len(mems) != 1 {
			t.Fatalf("another user's memories of the key = %+v, %v", mems, err)
		}
		if stmts, err := s.ListStatements(ctx, "u-2", nil); err != nil || len(stmts) != 1 {
			t.Fatalf("another user's statements of the key = %+v, %v", stmts, err)
		}
		if n, err := s.DeleteKeyMemories(ctx, "u-1", nil); err != nil || n != 0 {
			t.Fatalf("forgetting no key = %d, %v", n, err)
		}
	}},
	{"DeleteCueDeletesOneCueOfItsUser", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		must(t, s.InsertCue(ctx, store.Cue{ID: "c-1", UserID: "u-1", App: appC, Type: "sponsor_change", Field: "sponsor_name", SessionID: "s-1", CreatedAt: T0}))
		must(t, s.InsertCue(ctx, store.Cue{ID: "c-2", UserID: "u-1", App: appC, Type: "fellowship_dropped", Field: "in_fellowship", SessionID: "s-1", CreatedAt: T0}))
		must(t, s.InsertCue(ctx, store.Cue{ID: "c-3", UserID: "u-2", App: appC, Type: "sponsor_change", Field: "sponsor_name", SessionID: "s-2", CreatedAt: T0}))
		must(t, s.DeleteCue(ctx, "u-1", "c-1"))
		if err := s.DeleteCue(ctx, "u-1", "c-3"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleting another user's cue = %v; want ErrNotFound", err)
		}
		if err := s.DeleteCue(ctx, "u-1", "c-1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleting a cue twice = %v; want ErrNotFound", err)
		}
		mine, err := s.ListCues(ctx, "u-1", false)
		must(t, err)
		theirs, err := s.ListCues(ctx, "u-2", false)
		must(t, err)
		if len(mine) != 1 || mine[0].ID != "c-2" || len(theirs) != 1 {
			t.Fatalf("cues after deleting c-1: %+v and %+v", mine, theirs)
		}
	}},
}
