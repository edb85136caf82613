package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestMemoryPagesAreIdempotent (issue 34 §3): a large session's memories
// are applied a page at a time, each page a transaction of its own; an
// extraction that stopped after some pages and runs again applies what is
// missing and nothing twice.
func TestMemoryPagesAreIdempotent(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			st := b.Open(t)
			ctx := context.Background()
			t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(st.UpsertUser(ctx, store.User{ID: "u-1", App: "mona", Timezone: "UTC", CreatedAt: t0, UpdatedAt: t0}))
			must(st.CreateSession(ctx, store.Session{ID: "s-1", UserID: "u-1", App: "mona", Status: store.StatusClosed, StartedAt: t0,
				EndedAt: t0.Add(time.Minute), Timezone: "UTC", UpdatedAt: t0}))
			in := extract.Session{ID: "s-1", UserID: "u-1", App: "mona", StartedAt: t0, EndedAt: t0.Add(time.Minute), Timezone: "UTC"}
			var cands []extract.Memory
			const page = 100
			for i := range 3*page + 17 {
				cands = append(cands, extract.Memory{Key: fmt.Sprintf("likes:thing%04d", i), Value: fmt.Sprintf("thing%04d", i), Category: "preference",
					Importance: 60, Confidence: 0.8, StatedAt: t0.Add(time.Second)})
			}
			// The pages of a first attempt that stopped after 1.5 pages' worth,
			// then the whole again.
			if _, err := applyMemoryPages(ctx, st, apps["mona"], in, "s-1", cands[:page+page/2], page, t0); err != nil {
				t.Fatal(err)
			}
			paged, err := applyMemoryPages(ctx, st, apps["mona"], in, "s-1", cands, page, t0)
			must(err)
			mems, err := st.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
			must(err)
			stmts, err := st.ListStatements(ctx, "u-1", nil)
			must(err)
			audit, err := st.ListMemoryChanges(ctx, "u-1")
			must(err)
			if len(mems) != len(cands) || len(stmts) != len(cands) || len(audit) != len(cands) || paged == nil || len(paged.kept) != len(cands) {
				kept := -1
				if paged != nil {
					kept = len(paged.kept)
				}
				t.Fatalf("%d candidates: %d memories, %d statements, %d audit rows, %d kept; want one of each per candidate",
					len(cands), len(mems), len(stmts), len(audit), kept)
			}
			// One page or fewer is left to the extraction's transaction.
			if p, err := applyMemoryPages(ctx, st, apps["mona"], in, "s-1", cands[:page], page, t0); err != nil || p != nil {
				t.Fatalf("one page: %v, %v; want nothing done", p, err)
			}
		})
	}
}
