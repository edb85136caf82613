package jobs_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// listItem is the n-th of distinct made-up words the rules take for things
// a user likes.
func listItem(n int) string {
	const cons, vows = "bcdfghjklmnprstvz", "aeiou"
	var b strings.Builder
	for {
		b.WriteByte(cons[n%len(cons)])
		b.WriteByte(vows[(n/len(cons))%len(vows)])
		if n /= len(cons) * len(vows); n == 0 {
			return b.String() + "ka"
		}
	}
}

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
			t0 := time.Now().UTC().Add(-3 * time.Hour).Truncate(time.Second)
			req := handoff.Request{UserID: "u-1", App: "mona", StartedAt: t0, EndedAt: t0.Add(2 * time.Hour), Timezone: "UTC"}
			for i := range 2500 {
				var items []string
				for j := range 7 {
					items = append(items, listItem(i*7+j))
				}
				req.Messages = append(req.Messages, extract.Message{ID: fmt.Sprintf("m%d", i), Role: "user", At: t0.Add(time.Duration(i) * time.Second),
					Content: "I like " + strings.Join(items[:6], ", ") + " and " + items[6] + "."})
			}
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
