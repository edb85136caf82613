package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestSaidAgainWritesAStatementAndNoAuditRow: a memory merely said again in
// a later session adds its statement to the timeline and no audit row; a new
// value supersedes it with audit rows, and so does the expiry (issue 25).
func TestSaidAgainWritesAStatementAndNoAuditRow(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtract(t, b, false)
			counts := func() (statements map[string]int, actions map[string]int) {
				t.Helper()
				sts, err := x.st.ListStatements(ctx, "u-1", nil)
				if err != nil {
					t.Fatal(err)
				}
				statements = map[string]int{}
				for _, s := range sts {
					statements[s.Key]++
				}
				changes, err := x.st.ListMemoryChanges(ctx, "u-1")
				if err != nil {
					t.Fatal(err)
				}
				actions = map[string]int{}
				for _, c := range changes {
					actions[c.Action]++
				}
				return statements, actions
			}

			first := monaSession("u-1")
			first.StartedAt, first.EndedAt = first.StartedAt.Add(-time.Hour), first.EndedAt.Add(-time.Hour)
			for i := range first.Messages {
				first.Messages[i].At = first.Messages[i].At.Add(-time.Hour)
			}
			x.waitJob(t, x.closeSession(t, "s-1", first))
			st1, audit1 := counts()
			if st1["name"] != 1 || audit1["insert"] == 0 {
				t.Fatalf("after the first session: statements %v, audit %v; want one name statement and inserts audited", st1, audit1)
			}

			// The same things said again, an hour later.
			x.waitJob(t, x.closeSession(t, "s-2", monaSession("u-1")))
			st2, audit2 := counts()
			if st2["name"] != 2 || st2["favorite_food"] != 2 {
				t.Fatalf("statements after saying it again = %v; want two of name and of favorite_food", st2)
			}
			if !equalCounts(audit1, audit2) {
				t.Fatalf("audit after saying it again = %v; want it unchanged from %v", audit2, audit1)
			}
			mems, err := x.st.ListMemories(ctx, "u-1", store.MemoryFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mems {
				if m.Key == "name" && (m.Confirmations != 2 || m.Value != "Peggy") {
					t.Fatalf("name memory = %q with %d confirmations; want Peggy twice", m.Value, m.Confirmations)
				}
			}

			// A new value supersedes: the old memory deprecated, a new one
			// inserted, both audited.
			third := monaSession("u-1")
			t0 := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Second)
			third.StartedAt, third.EndedAt = t0, t0.Add(5*time.Minute)
			third.Messages = []extract.Message{{ID: "m1", Role: "user", Content: "My name is Anna now.", At: t0.Add(time.Minute)}}
			x.waitJob(t, x.closeSession(t, "s-3", third))
			st3, audit3 := counts()
			if st3["name"] != 3 || audit3["deprecate"] != audit2["deprecate"]+1 || audit3["insert"] != audit2["insert"]+1 {
				t.Fatalf("after a new name: statements %v, audit %v (before %v); want a deprecate and an insert more", st3, audit3, audit2)
			}

			// The expiry of every active memory is audited, one row each.
			n, err := x.st.ExpireMemories(ctx, time.Now().AddDate(10, 0, 0), 100)
			if err != nil || n == 0 {
				t.Fatalf("ExpireMemories = %d, %v", n, err)
			}
			_, audit4 := counts()
			if int64(audit4["expire"]) != n {
				t.Fatalf("%d memories expired, %d expire audit rows", n, audit4["expire"])
			}
		})
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
