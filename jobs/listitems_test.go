package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/listsession"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestSessionOfManyListItems: 2,500 messages each naming seven things the
// user likes were 17,500 candidate memories, whose keys no statement could
// read (SQLite: variable number must be between ?1 and ?32766; Postgres:
// too many parameter format codes); five attempts, then the session was
// lost (issue 34 §2). Now the rules keep the most important memories up to
// the cap, as a model's answer is held, and the run says so.
func TestSessionOfManyListItems(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			x := setupExtract(t, b, false)
			req := listsession.Session("mona", "u-1", time.Now().UTC().Add(-3*time.Hour).Truncate(time.Second), 2500, 7)
			x.waitJob(t, x.closeSession(t, "s-1", req))
			s := x.state(t, "s-1", "u-1")
			run := s.final(t)
			if run.Source != extract.SourceRules || run.Outcome != jobs.OutcomeCapped || !strings.Contains(run.Error, "cap of 50") {
				t.Fatalf("run %s/%s %q; want rules/capped at 50", run.Source, run.Outcome, run.Error)
			}
			if len(s.memories) != extract.DefaultMaxMemories {
				t.Fatalf("%d memories; want the cap, %d", len(s.memories), extract.DefaultMaxMemories)
			}
			if s.sess.Status != store.StatusProcessed {
				t.Fatalf("session %s", s.sess.Status)
			}
		})
	}
}

// TestUserMemoriesAreBounded (issue 34 §3): a user's active memories grew
// without bound (one session made 7,000, and each later session was
// slower). With the bound at 30, a session of 50 new memories leaves 30
// active, the 20 least important gone with an audit row each.
func TestUserMemoriesAreBounded(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			x := setupExtract(t, b, false)
			x.deps.MaxUserMemories = 30
			req := listsession.Session("mona", "u-1", time.Now().UTC().Add(-3*time.Hour).Truncate(time.Second), 10, 5)
			x.waitJob(t, x.closeSession(t, "s-1", req))
			s := x.state(t, "s-1", "u-1")
			evicted, err := x.st.ListMemoryChangesOf(context.Background(), "u-1", store.MemoryEvicted)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.memories) != 30 || len(evicted) != 20 {
				t.Fatalf("%d active memories, %d evicted; want 30 and 20", len(s.memories), len(evicted))
			}
		})
	}
}
