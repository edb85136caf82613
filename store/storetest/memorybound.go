package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

// Issue 34 §3: a user's active memories are bounded; beyond the bound
// the unconfirmed, least important, oldest said leave first, each with an
// audit row.

func init() {
	cases = append(cases, testCase{"EvictOverBoundTakesTheLeastFirst", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		mem := func(id string, importance, confirmations, minutes int) store.Memory {
			at := T0.Add(time.Duration(minutes) * time.Minute)
			return store.Memory{ID: id, UserID: "u-1", App: appE, Key: "k:" + id, Value: "v", Category: "fact", Importance: importance,
				Confidence: 0.8, Status: store.MemoryActive, Confirmations: confirmations, CreatedAt: at, UpdatedAt: at, StatedAt: at}
		}
		ms := []store.Memory{
			mem("confirmed-low", 10, 3, 0), // confirmed: leaves after every unconfirmed one
			mem("old-low", 20, 1, 1),
			mem("new-low", 20, 1, 5),
			mem("high", 90, 1, 0),
			mem("mid", 50, 1, 2),
		}
		other := mem("other", 10, 1, 0)
		other.UserID, other.ID = "u-2", "other"
		must(t, s.InsertMemories(ctx, append(ms, other)))
		n, err := s.EvictOverBound(ctx, "u-1", 2, T0.Add(time.Hour))
		must(t, err)
		active, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{})
		must(t, err)
		var ids []string
		for _, m := range active {
			ids = append(ids, m.ID)
		}
		slices.Sort(ids)
		if n != 3 || !slices.Equal(ids, []string{"confirmed-low", "high"}) {
			t.Fatalf("evicted %d, active %v; want 3 gone and the confirmed one and the important one kept", n, ids)
		}
		audit, err := s.ListMemoryChangesOf(ctx, "u-1", store.MemoryEvicted)
		must(t, err)
		var gone []string
		for _, c := range audit {
			if c.Actor != store.MemoryBoundActor || !c.At.Equal(T0.Add(time.Hour)) {
				t.Fatalf("audit row %+v", c)
			}
			gone = append(gone, c.MemoryID)
		}
		slices.Sort(gone)
		if fmt.Sprint(gone) != "[mid new-low old-low]" {
			t.Fatalf("audit of %v; want the three evicted", gone)
		}
		if n, err := s.EvictOverBound(ctx, "u-1", 2, T0.Add(time.Hour)); err != nil || n != 0 {
			t.Fatalf("again: %d, %v; want nothing", n, err)
		}
		if o, err := s.ListMemories(ctx, "u-2", store.MemoryFilter{}); err != nil || len(o) != 1 {
			t.Fatalf("another user's memories: %d, %v", len(o), err)
		}
	}})
}
