package jobs_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestCompactionKeepsWhatAsOfAnswers builds a name's timeline from 120
// sessions (40 of Peggy, 40 of Margaret, 40 of Peggy again) on both
// databases, then, two months on, hands over one more: the extraction
// folds the long runs' old statements, and as_of answers what it answered
// before at every instant of the timeline, each run's memory unchanged.
func TestCompactionKeepsWhatAsOfAnswers(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			var clock atomic.Int64 // 0: the real clock
			x.deps.Now = func() time.Time {
				if v := clock.Load(); v != 0 {
					return time.Unix(0, v)
				}
				return time.Now()
			}
			w := jobs.NewExtractWorker(x.deps)
			start := time.Now().UTC().Add(-29 * 24 * time.Hour).Truncate(time.Minute)
			hand := func(id, name string, at time.Time) {
				t.Helper()
				req := handoff.Request{UserID: "u-1", App: "mona", StartedAt: at, EndedAt: at.Add(10 * time.Minute), Timezone: "Europe/Berlin",
					Messages: []extract.Message{{ID: "m1", Role: "user", Content: "Hi! My name is " + name + ".", At: at.Add(time.Minute)}}}
				job := x.closeSession(t, id, req)
				if err := w.Work(ctx, &river.Job[queue.ExtractArgs]{JobRow: &rivertype.JobRow{ID: job, Attempt: 1, MaxAttempts: 5},
					Args: queue.ExtractArgs{SessionID: id}}); err != nil {
					t.Fatal(err)
				}
			}
			names := []string{"Peggy", "Margaret", "Peggy"}
			for i := range 120 {
				hand(fmt.Sprintf("s-%03d", i), names[i/40], start.Add(time.Duration(i)*5*time.Hour))
			}
			end := start.Add(120 * 5 * time.Hour)
			type answer struct{ id, value string }
			asOf := func() map[time.Time][]answer {
				t.Helper()
				out := map[time.Time][]answer{}
				for at := start.Add(-time.Hour); at.Before(end); at = at.Add(97 * time.Minute) {
					ms, err := x.st.ListMemories(ctx, "u-1", store.MemoryFilter{AsOf: &at})
					if err != nil {
						t.Fatal(err)
					}
					for _, m := range ms {
						out[at] = append(out[at], answer{m.ID, m.Key + "=" + m.Value + "@" + m.StatedAt.UTC().Format(time.RFC3339)})
					}
				}
				return out
			}
			statements := func() int {
				t.Helper()
				sts, err := x.st.ListStatements(ctx, "u-1", []string{"name"})
				if err != nil {
					t.Fatal(err)
				}
				return len(sts)
			}
			confirmations := func() map[string]int {
				t.Helper()
				ms, err := x.st.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]int{}
				for _, m := range ms {
					out[m.ID] = m.Confirmations
				}
				return out
			}
			before, n0, c0 := asOf(), statements(), confirmations()
			if n0 != 120 || len(c0) != 3 {
				t.Fatalf("%d statements and %d memories of the name before; want 120 and 3 (nothing folded within 30 days)", n0, len(c0))
			}
			names0 := 0
			for _, a := range before {
				names0 += len(a)
			}
			if names0 == 0 {
				t.Fatal("as_of answered nothing before the compaction")
			}

			// Two months later, the name said again: the long runs fold.
			clock.Store(time.Now().Add(60 * 24 * time.Hour).UnixNano())
			hand("s-late", "Peggy", time.Now().UTC().Add(-time.Hour).Truncate(time.Minute))
			after, n1, c1 := asOf(), statements(), confirmations()
			if n1 != 3*(foldKeep+1) {
				t.Fatalf("%d statements of the name after the compaction; want %d (each run its fold and its newest %d)", n1, 3*(foldKeep+1), foldKeep)
			}
			if len(after) != len(before) {
				t.Fatalf("as_of answered at %d instants after, %d before", len(after), len(before))
			}
			for at, want := range before {
				if fmt.Sprint(after[at]) != fmt.Sprint(want) {
					t.Fatalf("as_of %s = %v after the compaction; want %v", at, after[at], want)
				}
			}
			grew := 0
			for id, c := range c0 {
				switch c1[id] {
				case c:
				case c + 1:
					grew++
				default:
					t.Fatalf("memory %s has %d confirmations after the compaction, %d before", id, c1[id], c)
				}
			}
			if grew != 1 {
				t.Fatalf("%d memories were confirmed by the late session; want the active one", grew)
			}
			// The export lists the folds with their weights: every time the
			// name was said is still counted.
			arch, err := memory.BuildArchive(ctx, x.st, x.deps.Keys, "u-1", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			said := 0
			for _, st := range arch.Statements {
				if st.Key == "name" {
					said += st.Weight
				}
			}
			if len(arch.Statements) != n1 || said != 121 {
				t.Fatalf("the export lists %d statements saying the name %d times; want %d and 121", len(arch.Statements), said, n1)
			}
			changes, err := x.st.ListMemoryChanges(ctx, "u-1")
			if err != nil {
				t.Fatal(err)
			}
			audited := len(changes)

			// The next session derives the same memories from the folded
			// timeline: it is merely said again, no audit row.
			hand("s-next", "Peggy", time.Now().UTC().Add(-30*time.Minute).Truncate(time.Minute))
			if changes, err = x.st.ListMemoryChanges(ctx, "u-1"); err != nil || len(changes) != audited {
				t.Fatalf("%d audit rows after saying the name again on a folded timeline, %d before (%v)", len(changes), audited, err)
			}
			c2 := confirmations()
			total := func(c map[string]int) (n int) {
				for _, v := range c {
					n += v
				}
				return n
			}
			if total(c1) != 121 || total(c2) != 122 {
				t.Fatalf("confirmations summed %d after the fold and %d after one more; want 121 and 122", total(c1), total(c2))
			}
		})
	}
}

const foldKeep = 16 // jobs' foldKeep
