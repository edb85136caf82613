package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestSessionWriteCompactsRemovalMarkers (issue 34 §5): a profile whose
// removal markers grew before they were bounded (1 000 here, as 200 null
// PATCHes left them) is compacted by its next write, a session's as an
// edit's: memory.DefaultMaxRemoved markers stay, the newest removals, and
// the session's fields are stored. On both databases.
func TestSessionWriteCompactsRemovalMarkers(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtract(t, b, false)
			t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Second)
			say := func(id string, at time.Time, text string) {
				x.waitJob(t, x.closeSession(t, id, handoff.Request{UserID: "eu-1", App: "eldertree", StartedAt: at, EndedAt: at.Add(30 * time.Minute),
					Timezone: "UTC", Messages: []extract.Message{{ID: "m1", Role: "user", Content: text, At: at.Add(time.Minute)}}}))
			}
			say("e-1", t0, "Hi, I'm Dan and I'm an alcoholic.")
			p, err := x.st.GetProfile(ctx, "eu-1")
			if err != nil {
				t.Fatal(err)
			}
			stated := map[string]store.FieldStatement{}
			if err := json.Unmarshal(p.Stated, &stated); err != nil {
				t.Fatal(err)
			}
			for i := range 1000 {
				at := t0.Add(-time.Duration(1000-i) * time.Minute)
				stated[fmt.Sprintf("ghost_%04d", i)] = store.FieldStatement{Removed: true,
					Newest: &store.NewestStatement{At: at, By: "user", Edit: true, RunAt: at, RunBy: "user"}}
			}
			raw, _ := json.Marshal(stated)
			p.Version++
			p.Stated = raw
			if err := x.st.SaveProfile(ctx, p, store.ProfileChange{UserID: "eu-1", Version: p.Version, Doc: p.Doc, Changed: json.RawMessage("{}"),
				Said: json.RawMessage("{}"), Actor: "user", At: t0, StatedAt: t0}); err != nil {
				t.Fatal(err)
			}

			say("e-2", t0.Add(24*time.Hour), "Day 428 today, working step 4.")
			p, err = x.st.GetProfile(ctx, "eu-1")
			if err != nil {
				t.Fatal(err)
			}
			stated = map[string]store.FieldStatement{}
			if err := json.Unmarshal(p.Stated, &stated); err != nil {
				t.Fatal(err)
			}
			removed := 0
			for _, e := range stated {
				if e.Removed {
					removed++
				}
			}
			if removed != memory.DefaultMaxRemoved || !stated["ghost_0999"].Removed || stated["ghost_0000"].Removed {
				t.Errorf("after a session's write: %d removal markers (newest kept: %v, oldest gone: %v); want %d, the newest",
					removed, stated["ghost_0999"].Removed, !stated["ghost_0000"].Removed, memory.DefaultMaxRemoved)
			}
			var doc map[string]any
			if err := json.Unmarshal(p.Doc, &doc); err != nil || doc["current_step"] != 4.0 {
				t.Errorf("the session's fields: %v, %v", doc, err)
			}
		})
	}
}
