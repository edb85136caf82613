package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestSweepsAcrossPages: the set-based sweeps (memory-ttl, the transcripts
// of buffer-cleanup, retention) take every due row once across many pages
// of SweepRows, each page its own lazily committed transaction; what is
// not due stays; a second run of each finds nothing and changes nothing.
func TestSweepsAcrossPages(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			x.deps.Batch.SweepRows = 3
			now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
			withSchedules(t, x, &clock{t: now})
			old := now.AddDate(-2, 0, 0)
			for _, u := range []string{"u-1", "u-2"} {
				if err := x.st.UpsertUser(ctx, store.User{ID: u, App: "mona", CreatedAt: old, UpdatedAt: old}); err != nil {
					t.Fatal(err)
				}
			}
			// Eight memories past their expiry (four of one time, across a
			// page boundary), two not yet.
			for i := 0; i < 10; i++ {
				exp := now.Add(-time.Hour)
				if i%2 == 0 {
					exp = now.Add(-time.Duration(i+1) * time.Minute)
				}
				if i >= 8 {
					exp = now.Add(time.Hour)
				}
				if err := x.st.InsertMemory(ctx, store.Memory{ID: store.NewID(), UserID: fmt.Sprintf("u-%d", i%2+1), App: "mona",
					Key: fmt.Sprintf("feeling_%d", i), Value: "tired", Category: "feeling", Importance: 40, Confidence: 0.7,
					Status: store.MemoryActive, Confirmations: 1, ExpiresAt: &exp, CreatedAt: old, UpdatedAt: old, StatedAt: old}); err != nil {
					t.Fatal(err)
				}
			}
			// Seven transcripts whose retention ended, one kept longer.
			for i := 0; i < 8; i++ {
				sid := fmt.Sprintf("s-%d", i)
				if err := x.st.CreateSession(ctx, store.Session{ID: sid, UserID: "u-1", App: "mona", Status: store.StatusClosed,
					StartedAt: old, EndedAt: old, Timezone: "UTC", UpdatedAt: old}); err != nil {
					t.Fatal(err)
				}
				if err := x.st.InsertChunks(ctx, []store.Chunk{{SessionID: sid, Seq: 0, UserID: "u-1", KeyID: "k", Nonce: []byte{1},
					Ciphertext: []byte{1}, SHA256: []byte{1}, CreatedAt: old}}); err != nil {
					t.Fatal(err)
				}
				until := now.Add(-time.Duration(i%3) * time.Hour)
				if i == 7 {
					until = now.Add(time.Hour)
				}
				if err := x.st.SetTranscriptRetention(ctx, sid, true, &until, old); err != nil {
					t.Fatal(err)
				}
			}

			run := func(name string) int64 {
				t.Helper()
				n, err := jobs.RunBatch(ctx, x.deps, name, "", now)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return n
			}
			if n := run(jobs.BatchMemoryTTL); n != 8 {
				t.Fatalf("memory-ttl expired %d; want 8", n)
			}
			if n := run(jobs.BatchMemoryTTL); n != 0 {
				t.Fatalf("a second memory-ttl expired %d more", n)
			}
			var active, expired, audit int
			for _, u := range []string{"u-1", "u-2"} {
				a, _ := x.st.ListMemories(ctx, u, store.MemoryFilter{})
				e, _ := x.st.ListMemories(ctx, u, store.MemoryFilter{Status: store.MemoryExpired})
				h, _ := x.st.ListMemoryChanges(ctx, u)
				active, expired, audit = active+len(a), expired+len(e), audit+len(h)
				for _, c := range h {
					if c.Action != "expire" || c.Actor != "ttl" || !c.At.Equal(now) {
						t.Fatalf("audit row %+v", c)
					}
				}
			}
			if active != 2 || expired != 8 || audit != 8 {
				t.Fatalf("after memory-ttl: %d active, %d expired, %d audit rows; want 2, 8, 8", active, expired, audit)
			}

			if n := run(jobs.BatchBufferCleanup); n != 7 {
				t.Fatalf("buffer-cleanup expired %d transcripts; want 7", n)
			}
			if n := run(jobs.BatchBufferCleanup); n != 0 {
				t.Fatalf("a second buffer-cleanup expired %d more", n)
			}
			for i := 0; i < 8; i++ {
				sid := fmt.Sprintf("s-%d", i)
				chunks, _ := x.st.ListChunks(ctx, sid)
				sess, err := x.st.GetSession(ctx, sid)
				if err != nil {
					t.Fatal(err)
				}
				kept := i == 7
				if (len(chunks) == 1) != kept || sess.TranscriptRetained != kept || (sess.RetainUntil != nil) != kept {
					t.Fatalf("%s: %d chunks, retained %v until %v; kept should be %v", sid, len(chunks), sess.TranscriptRetained, sess.RetainUntil, kept)
				}
			}

			// Retention a year and more later: the eight audit rows and the
			// eight expired memories go, the rest stays.
			later := now.Add(402 * 24 * time.Hour) // past the 400 days kept by default
			if n, err := jobs.RunBatch(ctx, x.deps, jobs.BatchRetention, "", later); err != nil || n < 16 {
				t.Fatalf("retention deleted %d (%v); want the 8 audit rows and 8 expired memories at least", n, err)
			}
			if n, err := jobs.RunBatch(ctx, x.deps, jobs.BatchRetention, "", later); err != nil || n != 0 {
				t.Fatalf("a second retention deleted %d more (%v)", n, err)
			}
			for _, u := range []string{"u-1", "u-2"} {
				if e, _ := x.st.ListMemories(ctx, u, store.MemoryFilter{Status: store.MemoryExpired}); len(e) != 0 {
					t.Fatalf("%s keeps %d expired memories after retention", u, len(e))
				}
				if h, _ := x.st.ListMemoryChanges(ctx, u); len(h) != 0 {
					t.Fatalf("%s keeps %d audit rows after retention", u, len(h))
				}
			}
		})
	}
}
