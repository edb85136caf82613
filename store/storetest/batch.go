package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, batchCases...)
}

var batchCases = []testCase{
	{"PageSessionsKeepsUsersWhole", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		for u := 0; u < 5; u++ {
			user := fmt.Sprintf("u-%d", u)
			must(t, s.UpsertUser(ctx, store.User{ID: user, App: appC, Timezone: "America/Chicago", CreatedAt: T0, UpdatedAt: T0}))
			for i := 0; i < 3; i++ {
				id := fmt.Sprintf("%s-s%d", user, i)
				end := T0.Add(time.Duration(i) * 24 * time.Hour)
				must(t, s.CreateSession(ctx, store.Session{ID: id, UserID: user, App: appC, Status: store.StatusProcessed, StartedAt: end.Add(-time.Hour), EndedAt: end, UpdatedAt: T0}))
				must(t, s.InsertEvents(ctx, []store.Event{{SessionID: id, Seq: 0, UserID: user, Type: "urge", At: end, Data: json.RawMessage(`{"intensity":5}`)}}))
				must(t, s.UpsertSummary(ctx, store.Summary{SessionID: id, PromptVersion: "v1", UserID: user, App: appC, Source: "rules", Data: json.RawMessage(`{"v":1}`), CreatedAt: T0}))
				must(t, s.UpsertSummary(ctx, store.Summary{SessionID: id, PromptVersion: "v2", UserID: user, App: appC, Source: "rules", Data: json.RawMessage(`{"v":2}`), CreatedAt: T0.Add(time.Second)}))
			}
		}
		// Another app's sessions and sessions outside the window stay out.
		must(t, s.UpsertUser(ctx, store.User{ID: "u-x", App: appE, CreatedAt: T0, UpdatedAt: T0}))
		must(t, s.CreateSession(ctx, store.Session{ID: "x", UserID: "u-x", App: appE, Status: store.StatusProcessed, StartedAt: T0, EndedAt: T0, UpdatedAt: T0}))
		var users, sessions, events int
		after := ""
		for pages := 0; ; pages++ {
			p, err := s.PageSessions(ctx, appC, T0, T0.Add(48*time.Hour), after, 2)
			must(t, err)
			if len(p.Users) == 0 {
				break
			}
			if len(p.Users) > 2 || pages > 5 {
				t.Fatalf("page of %d users", len(p.Users))
			}
			for _, ss := range p.Sessions {
				if string(compact(t, ss.Summary)) != `{"v":2}` {
					t.Fatalf("session %s summary %s; want the newest", ss.ID, ss.Summary)
				}
			}
			users, sessions, events = users+len(p.Users), sessions+len(p.Sessions), events+len(p.Events)
			after = p.Last
		}
		if users != 5 || sessions != 10 || events != 10 {
			t.Fatalf("paged %d users, %d sessions, %d events; want 5, 10, 10 (two days of three in the window)", users, sessions, events)
		}
	}},
	{"AggregatesUpsert", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		row := store.AggregateRow{UserID: "u-1", App: appC, WeekEnding: "2026-11-22", Data: json.RawMessage(`{"n":1}`), UpdatedAt: T0}
		must(t, s.UpsertWeekly(ctx, []store.AggregateRow{row}))
		row.Data = json.RawMessage(`{"n":2}`)
		must(t, s.UpsertWeekly(ctx, []store.AggregateRow{row}))
		got, err := s.GetWeekly(ctx, "u-1", "2026-11-22")
		must(t, err)
		page, err := s.PageWeekly(ctx, store.WeeklyPage{App: appC, WeekEnding: "2026-11-22", Limit: 10})
		must(t, err)
		if string(compact(t, got.Data)) != `{"n":2}` || len(page) != 1 {
			t.Fatalf("weekly = %s, page %d", got.Data, len(page))
		}
		must(t, s.UpsertTrends(ctx, []store.AggregateRow{{UserID: "u-1", App: appA, Data: json.RawMessage(`{"b":0.4}`), UpdatedAt: T0}}))
		tr, err := s.GetTrends(ctx, "u-1")
		must(t, err)
		must(t, s.UpsertInsight(ctx, store.Insight{App: appC, WeekEnding: "2026-11-22", Data: json.RawMessage(`{"k":5}`), UpdatedAt: T0}))
		in, err := s.GetInsight(ctx, appC, "2026-11-22")
		must(t, err)
		if string(compact(t, tr.Data)) != `{"b":0.4}` || string(compact(t, in.Data)) != `{"k":5}` {
			t.Fatalf("trends %s insight %s", tr.Data, in.Data)
		}
	}},
	{"ExpiryAndCleanupInBoundedBatches", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		for i := 0; i < 5; i++ {
			exp := T0.Add(time.Duration(i-3)*time.Hour + time.Minute) // three expired, two not yet
			must(t, s.InsertMemory(ctx, store.Memory{ID: store.NewID(), UserID: "u-1", App: appE, Key: fmt.Sprintf("event:e%d", i), Value: "x",
				Category: "event", Importance: 60, Confidence: 0.6, Status: store.MemoryActive, Confirmations: 1, ExpiresAt: &exp, CreatedAt: T0, UpdatedAt: T0}))
		}
		n1, err := s.ExpireMemories(ctx, T0, 2)
		must(t, err)
		n2, err := s.ExpireMemories(ctx, T0, 2)
		must(t, err)
		n3, err := s.ExpireMemories(ctx, T0, 2)
		must(t, err)
		if n1 != 2 || n2 != 1 || n3 != 0 {
			t.Fatalf("expired %d, %d, %d; want 2, 1, 0", n1, n2, n3)
		}
		active, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{})
		must(t, err)
		audit, err := s.ListMemoryChanges(ctx, "u-1")
		must(t, err)
		if len(active) != 2 || len(audit) != 3 || audit[0].Action != "expire" || audit[0].Actor != "ttl" {
			t.Fatalf("%d active, audit %+v", len(active), audit)
		}
		// One audit row per expired memory, each its own id (the audit of a
		// page is one statement; issue 25).
		all, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{Status: store.MemoryExpired})
		must(t, err)
		expiredIDs, auditIDs := map[string]bool{}, map[string]bool{}
		for _, m := range all {
			expiredIDs[m.ID] = true
		}
		for _, c := range audit {
			if !expiredIDs[c.MemoryID] || auditIDs[c.ID] || c.ID == "" || c.UserID != "u-1" || !c.At.Equal(T0) {
				t.Fatalf("audit row %+v of expired memories %v", c, expiredIDs)
			}
			auditIDs[c.ID] = true
			delete(expiredIDs, c.MemoryID)
		}
		if len(expiredIDs) != 0 {
			t.Fatalf("expired memories %v have no audit row", expiredIDs)
		}

		for i := 0; i < 3; i++ {
			_, err := s.AppendBuffer(ctx, []store.BufferMessage{{SessionID: "s-1", Seq: i, UserID: "u-1", MessageID: fmt.Sprint(i), KeyID: "k", Nonce: []byte{1},
				Ciphertext: []byte{1}, SHA256: []byte{1}, CreatedAt: T0.Add(time.Duration(i) * time.Hour)}})
			must(t, err)
		}
		del, err := s.DeleteBufferBefore(ctx, T0.Add(90*time.Minute), 10)
		must(t, err)
		if n, _ := s.CountBuffer(ctx, "s-1"); del != 2 || n != 1 {
			t.Fatalf("deleted %d buffered turns, %d left; want 2 and 1", del, n)
		}

		must(t, s.InsertChunks(ctx, []store.Chunk{{SessionID: "s-1", Seq: 0, UserID: "u-1", KeyID: "k", Nonce: []byte{1}, Ciphertext: []byte{1}, SHA256: []byte{1}, CreatedAt: T0}}))
		until := T0.Add(time.Hour)
		must(t, s.SetTranscriptRetention(ctx, "s-1", true, &until, T0))
		if n, err := s.ExpireTranscripts(ctx, T0, 10); err != nil || n != 0 {
			t.Fatalf("expired %d transcripts before their time (%v)", n, err)
		}
		if n, err := s.ExpireTranscripts(ctx, until, 10); err != nil || n != 1 {
			t.Fatalf("expired %d transcripts at retention end (%v); want 1", n, err)
		}
		chunks, err := s.ListChunks(ctx, "s-1")
		must(t, err)
		sess, err := s.GetSession(ctx, "s-1")
		must(t, err)
		if len(chunks) != 0 || sess.TranscriptRetained {
			t.Fatalf("%d chunks left, retained %v", len(chunks), sess.TranscriptRetained)
		}

		old := T0.Add(-400 * 24 * time.Hour)
		must(t, s.InsertExtractionRun(ctx, store.ExtractionRun{SessionID: "s-1", UserID: "u-1", App: appE, PromptVersion: "v0", Source: "rules", Outcome: "ok", CreatedAt: old}))
		must(t, s.InsertExtractionRun(ctx, store.ExtractionRun{SessionID: "s-1", UserID: "u-1", App: appE, PromptVersion: "v1", Source: "rules", Outcome: "ok", CreatedAt: T0}))
		if n, err := s.DeleteOlder(ctx, "extraction_runs", T0.Add(-24*time.Hour), 100); err != nil || n != 1 {
			t.Fatalf("retention deleted %d runs (%v); want the old one", n, err)
		}
		if _, err := s.DeleteOlder(ctx, "users; DROP TABLE x", T0, 1); err == nil {
			t.Fatal("an unknown retention target was accepted")
		}
	}},
	{"KeysetSweepsCrossPagesOfEqualTimes", func(t *testing.T, s store.Store) {
		// A sweep's pages continue after the last row the previous one took,
		// by (time, id): rows that share one expiry (or one audit time) on
		// both sides of a page boundary are each taken once, none skipped.
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		same := T0.Add(-time.Hour)
		var ids []string
		for i := 0; i < 7; i++ {
			exp := same
			if i == 6 {
				exp = T0.Add(-time.Minute) // later than the rest
			}
			id := store.NewID()
			ids = append(ids, id)
			must(t, s.InsertMemory(ctx, store.Memory{ID: id, UserID: "u-1", App: appE, Key: fmt.Sprintf("event:k%d", i), Value: "x",
				Category: "event", Importance: 60, Confidence: 0.6, Status: store.MemoryActive, Confirmations: 1, ExpiresAt: &exp, CreatedAt: T0, UpdatedAt: T0}))
		}
		var key store.SweepKey
		var pages []int64
		for {
			n, next, err := s.ExpireMemoriesAfter(ctx, T0, key, 3)
			must(t, err)
			pages = append(pages, n)
			if n == 0 {
				if next != key {
					t.Fatalf("an empty page moved the key from %+v to %+v", key, next)
				}
				break
			}
			if !next.At.After(key.At) && !(next.At.Equal(key.At) && next.ID > key.ID) {
				t.Fatalf("key went from %+v to %+v", key, next)
			}
			key = next
		}
		if fmt.Sprint(pages) != "[3 3 1 0]" {
			t.Fatalf("pages of %v memories; want [3 3 1 0]", pages)
		}
		if key.ID != ids[6] || !key.At.Equal(T0.Add(-time.Minute)) {
			t.Fatalf("last key %+v; want the later memory", key)
		}
		left, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{})
		must(t, err)
		audit, err := s.ListMemoryChanges(ctx, "u-1")
		must(t, err)
		if len(left) != 0 || len(audit) != 7 {
			t.Fatalf("%d memories still active, %d audit rows; want 0 and 7", len(left), len(audit))
		}
		// A page past the last key finds nothing; one from the start finds
		// nothing either (all are expired).
		if n, _, err := s.ExpireMemoriesAfter(ctx, T0, store.SweepKey{}, 3); err != nil || n != 0 {
			t.Fatalf("a new sweep expired %d (%v)", n, err)
		}

		// Retention: the seven audit rows share one time; pages of 3 delete
		// them all, each once.
		key, pages = store.SweepKey{}, nil
		for {
			n, next, err := s.DeleteOlderAfter(ctx, "memory_history", T0.Add(time.Second), key, 3)
			must(t, err)
			pages = append(pages, n)
			if n == 0 {
				break
			}
			key = next
		}
		if fmt.Sprint(pages) != "[3 3 1 0]" || !key.At.Equal(T0) {
			t.Fatalf("audit rows deleted in pages %v, last key %+v; want [3 3 1 0] at T0", pages, key)
		}
		if audit, err := s.ListMemoryChanges(ctx, "u-1"); err != nil || len(audit) != 0 {
			t.Fatalf("%d audit rows left (%v)", len(audit), err)
		}

		// Transcripts whose retention ends at one time, across pages.
		for i := 2; i <= 5; i++ {
			seedSession(t, s, "u-1", fmt.Sprintf("s-%d", i))
		}
		for i := 1; i <= 5; i++ {
			sid := fmt.Sprintf("s-%d", i)
			must(t, s.InsertChunks(ctx, []store.Chunk{{SessionID: sid, Seq: 0, UserID: "u-1", KeyID: "k", Nonce: []byte{1}, Ciphertext: []byte{1}, SHA256: []byte{1}, CreatedAt: T0}}))
			must(t, s.SetTranscriptRetention(ctx, sid, true, &same, T0))
		}
		key, pages = store.SweepKey{}, nil
		for {
			n, next, err := s.ExpireTranscriptsAfter(ctx, T0, key, 2)
			must(t, err)
			pages = append(pages, n)
			if n == 0 {
				break
			}
			key = next
		}
		if fmt.Sprint(pages) != "[2 2 1 0]" || key.ID != "s-5" {
			t.Fatalf("transcripts expired in pages %v, last key %+v; want [2 2 1 0] ending at s-5", pages, key)
		}
		for i := 1; i <= 5; i++ {
			if chunks, err := s.ListChunks(ctx, fmt.Sprintf("s-%d", i)); err != nil || len(chunks) != 0 {
				t.Fatalf("s-%d keeps %d chunks (%v)", i, len(chunks), err)
			}
		}
	}},
	{"LazyCommitKeepsWhatCommitsAndNothingElse", func(t *testing.T, s store.Store) {
		// A sweep page committed lazily keeps its writes once committed; a
		// page that fails is rolled back whole, LazyCommit or not. Outside
		// a transaction LazyCommit does nothing.
		ctx := context.Background()
		must(t, s.LazyCommit(ctx))
		seedSession(t, s, "u-1", "s-1")
		for i := 0; i < 2; i++ {
			exp := T0.Add(-time.Hour)
			must(t, s.InsertMemory(ctx, store.Memory{ID: store.NewID(), UserID: "u-1", App: appE, Key: fmt.Sprintf("event:k%d", i), Value: "x",
				Category: "event", Importance: 60, Confidence: 0.6, Status: store.MemoryActive, Confirmations: 1, ExpiresAt: &exp, CreatedAt: T0, UpdatedAt: T0}))
		}
		must(t, s.InsertChunks(ctx, []store.Chunk{{SessionID: "s-1", Seq: 0, UserID: "u-1", KeyID: "k", Nonce: []byte{1}, Ciphertext: []byte{1}, SHA256: []byte{1}, CreatedAt: T0}}))
		until := T0.Add(-time.Minute)
		must(t, s.SetTranscriptRetention(ctx, "s-1", true, &until, T0))

		failed := errors.New("the page failed")
		err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			must(t, tx.LazyCommit(ctx))
			if n, _, err := tx.ExpireTranscriptsAfter(ctx, T0, store.SweepKey{}, 10); err != nil || n != 1 {
				t.Fatalf("expired %d transcripts (%v); want 1", n, err)
			}
			return failed
		})
		if !errors.Is(err, failed) {
			t.Fatalf("InTx = %v", err)
		}
		chunks, err := s.ListChunks(ctx, "s-1")
		must(t, err)
		sess, err := s.GetSession(ctx, "s-1")
		must(t, err)
		if len(chunks) != 1 || !sess.TranscriptRetained || sess.RetainUntil == nil {
			t.Fatalf("a rolled-back page left %d chunks, retained %v until %v", len(chunks), sess.TranscriptRetained, sess.RetainUntil)
		}

		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			must(t, tx.LazyCommit(ctx))
			n, _, err := tx.ExpireMemoriesAfter(ctx, T0, store.SweepKey{}, 10)
			if err == nil && n != 2 {
				t.Fatalf("expired %d memories; want 2", n)
			}
			if err != nil {
				return err
			}
			n, _, err = tx.ExpireTranscriptsAfter(ctx, T0, store.SweepKey{}, 10)
			if err == nil && n != 1 {
				t.Fatalf("expired %d transcripts; want 1", n)
			}
			return err
		}))
		active, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{})
		must(t, err)
		audit, err := s.ListMemoryChanges(ctx, "u-1")
		must(t, err)
		chunks, err = s.ListChunks(ctx, "s-1")
		must(t, err)
		sess, err = s.GetSession(ctx, "s-1")
		must(t, err)
		if len(active) != 0 || len(audit) != 2 || len(chunks) != 0 || sess.TranscriptRetained || sess.RetainUntil != nil || !sess.UpdatedAt.Equal(T0) {
			t.Fatalf("after a lazily committed page: %d active, %d audit rows, %d chunks, session %+v", len(active), len(audit), len(chunks), sess)
		}
	}},
	{"IdleSessionsAndRecordPages", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		must(t, s.UpsertUser(ctx, store.User{ID: "u-1", App: appD, CreatedAt: T0, UpdatedAt: T0}))
		must(t, s.CreateSession(ctx, store.Session{ID: "a", UserID: "u-1", App: appD, Status: store.StatusActive, StartedAt: T0, EndedAt: T0, UpdatedAt: T0}))
		must(t, s.CreateSession(ctx, store.Session{ID: "b", UserID: "u-1", App: appD, Status: store.StatusActive, StartedAt: T0, EndedAt: T0, UpdatedAt: T0.Add(time.Hour)}))
		idle, err := s.IdleSessions(ctx, T0.Add(30*time.Minute), 10)
		must(t, err)
		if len(idle) != 1 || idle[0].ID != "a" {
			t.Fatalf("idle sessions = %+v; want a", idle)
		}
		for _, k := range []string{"x", "y", "z"} {
			must(t, s.UpsertRecord(ctx, store.Record{UserID: "u-1", App: appD, Type: "learning", Key: k, Data: json.RawMessage(`{}`), UpdatedAt: T0}))
		}
		p1, err := s.PageRecords(ctx, store.RecordPage{App: appD, Type: "learning", Limit: 2})
		must(t, err)
		p2, err := s.PageRecords(ctx, store.RecordPage{App: appD, Type: "learning", AfterUser: p1[1].UserID, AfterKey: p1[1].Key, Limit: 2})
		must(t, err)
		if len(p1) != 2 || len(p2) != 1 || p2[0].Key != "z" {
			t.Fatalf("record pages %d + %d", len(p1), len(p2))
		}
	}},
}
