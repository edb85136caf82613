package jobs_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// historyCounter counts the profile history reads of a transaction.
type historyCounter struct {
	store.Tx
	reads int
}

func (c *historyCounter) ListProfileHistory(ctx context.Context, userID string) ([]store.ProfileChange, error) {
	c.reads++
	return c.Tx.ListProfileHistory(ctx, userID)
}

// TestProfileWriteReadsHistoryOnlyForLateStatements: every profile write
// read the user's whole history, so that each PATCH grew slower with the
// ones before it. A write that is the newest statement of every field it
// says now reads none, on both databases; a session handed over late, older
// than a field's value, still reads it and still changes nothing but the
// history; and an edit that removes a field still outranks a late session.
func TestProfileWriteReadsHistoryOnlyForLateStatements(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			st := b.Open(t)
			ctx := context.Background()
			t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
			if err := st.UpsertUser(ctx, store.User{ID: "u-1", App: "eldertree", Timezone: "UTC", CreatedAt: t0, UpdatedAt: t0}); err != nil {
				t.Fatal(err)
			}
			write := func(w memory.ProfileWrite) (memory.ProfileWritten, int) {
				t.Helper()
				w.UserID, w.App = "u-1", "eldertree"
				var out memory.ProfileWritten
				c := &historyCounter{}
				err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
					c.Tx = tx
					if err := tx.LockUser(ctx, "u-1"); err != nil {
						return err
					}
					var err error
					out, err = memory.WriteProfile(ctx, c, w, w.StatedAt)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				return out, c.reads
			}
			edit := func(at time.Time, updates map[string]any) memory.ProfileWrite {
				return memory.ProfileWrite{Updates: updates, StatedAt: at, By: memory.ActorUser, Actor: memory.ActorUser, Edit: true}
			}
			for i := range 5 {
				at := t0.Add(time.Duration(i+1) * time.Hour)
				if _, reads := write(edit(at, map[string]any{"sponsor_name": "Dave", "current_step": i + 1})); reads != 0 {
					t.Fatalf("edit %d, the newest of its fields, read the history %d times", i+1, reads)
				}
			}
			session := memory.ProfileWrite{Updates: map[string]any{"sponsor_name": "Linda"}, StatedAt: t0.Add(90 * time.Minute),
				By: "s-late", Actor: "extraction", SessionID: "s-late"}
			out, reads := write(session)
			if reads != 1 || out.After["sponsor_name"] != "Dave" || out.Older["sponsor_name"] != "Linda" {
				t.Fatalf("a late session: %d history reads, profile %v, older %v; want one read, Dave kept, Linda older", reads, out.After, out.Older)
			}
			if _, reads := write(edit(t0.Add(6*time.Hour), map[string]any{"sponsor_name": nil})); reads != 0 {
				t.Fatalf("removing a field read the history %d times", reads)
			}
			session.StatedAt, session.By, session.SessionID = t0.Add(5*time.Hour+30*time.Minute), "s-late-2", "s-late-2"
			out, reads = write(session)
			if _, ok := out.After["sponsor_name"]; ok || reads != 1 {
				t.Fatalf("a session from before the removal, handed over after it: profile %v, %d reads; want no sponsor, one read", out.After, reads)
			}
			session.StatedAt, session.By, session.SessionID = t0.Add(7*time.Hour), "s-new", "s-new"
			out, reads = write(session)
			if out.After["sponsor_name"] != "Linda" || reads != 0 {
				t.Fatalf("a session after the removal: profile %v, %d reads; want Linda, no read", out.After, reads)
			}
			// What was stated is what the history says, as if every write had
			// read it.
			hist, err := st.ListProfileHistory(ctx, "u-1")
			if err != nil {
				t.Fatal(err)
			}
			asOf := memory.ProfileAsOf(hist, t0.Add(8*time.Hour))
			p, err := st.GetProfile(ctx, "u-1")
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(p.Doc, &doc); err != nil {
				t.Fatal(err)
			}
			if len(asOf) != len(doc) || asOf["sponsor_name"].Value != doc["sponsor_name"] || asOf["current_step"].Value != doc["current_step"] {
				t.Fatalf("profile %v; its history says %v", doc, asOf)
			}
		})
	}
}
