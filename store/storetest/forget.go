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
// left: rolling summaries are rewritten or deleted with the buffer.

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
			_, err = s.UpsertRollingSummary(ctx, store.RollingSummary{SessionID: id, UserID: user, App: "mona",
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
}
