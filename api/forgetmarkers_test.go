package api_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestForgetKeepsNoKeyText (issue 34 §7 and §9): a forgotten memory's key
// was kept in its forget marker as text ("goal:quit_drinking"), for as
// long as the audit is kept, and in the SQLite file; now the marker keeps
// a keyed hash, which is all the "stays forgotten" check compares. And 200
// forgets of a category wrote 200 markers, every one read by each later
// extraction; now the newest of each stays.
func TestForgetKeepsNoKeyText(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			ctx := context.Background()
			before := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			if err := st.UpsertUser(ctx, store.User{ID: "u-1", App: "mona", CreatedAt: before, UpdatedAt: before}); err != nil {
				t.Fatal(err)
			}
			for _, m := range []store.Memory{
				{ID: "m-1", Key: "goal:quit_drinking", Value: "quit drinking", Category: "fact"},
				{ID: "m-2", Key: "allergy:shellfish", Value: "shellfish", Category: "fact"},
			} {
				m.UserID, m.App, m.Importance, m.Confidence, m.Status = "u-1", "mona", 80, 0.9, store.MemoryActive
				m.CreatedAt, m.UpdatedAt, m.StatedAt = before, before, before
				if err := st.InsertMemory(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range []string{"m-1", "m-2"} {
				if code, body := getJSON(t, srv, token, "DELETE", "/v1/users/u-1/memories/"+id, ""); code != 204 {
					t.Fatalf("forget %s = %d %v", id, code, body)
				}
			}
			for range 200 {
				if code, body := getJSON(t, srv, token, "DELETE", "/v1/users/u-1/memories?category=event", ""); code != 200 {
					t.Fatalf("forget events = %d %v", code, body)
				}
			}
			changes, err := st.ListMemoryChanges(ctx, "u-1")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				if strings.Contains(c.Key, "drinking") || strings.Contains(c.Key, "shellfish") {
					t.Errorf("the audit keeps the forgotten key as text: %+v", c)
				}
			}
			if len(changes) != 3 {
				t.Errorf("%d forget markers after forgetting two keys once and a category 200 times; want 3: %+v", len(changes), changes)
			}
			if s, ok := st.(*store.SQLite); ok {
				for _, f := range []string{s.Path(), s.Path() + "-wal"} {
					raw, err := os.ReadFile(f)
					if err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
					for _, w := range []string{"quit_drinking", "shellfish"} {
						if bytes.Contains(raw, []byte(w)) {
							t.Errorf("%s still holds %q", f, w)
						}
					}
				}
			}
			// The markers still do their work: a statement made before the
			// forget, in a session handed over late, stays forgotten; another
			// key is remembered.
			var f memory.Forgets
			if err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) (err error) {
				f, err = memory.LoadForgets(ctx, tx, "u-1")
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if !f.Forgot(extract.Memory{Key: "goal:quit_drinking", Category: "fact", StatedAt: before}) ||
				!f.Forgot(extract.Memory{Key: "allergy:shellfish", Category: "fact", StatedAt: before}) {
				t.Error("a key forgotten after it was said is remembered again")
			}
			if f.Forgot(extract.Memory{Key: "goal:run_a_marathon", Category: "fact", StatedAt: before}) {
				t.Error("a key never forgotten is taken for a forgotten one")
			}
		})
	}
}
