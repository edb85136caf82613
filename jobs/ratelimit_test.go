package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestExtractionLimitWaitSnoozes: a call whose turn under MNEMO_LLM_RPM is
// further away than a call may wait snoozes its job until then; the job does
// not fail, falls back to nothing and makes no call.
func TestExtractionLimitWaitSnoozes(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			x := setupExtractWith(t, b, true, false)
			x.llm.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Valid(monaAnswer) })
			// One request a minute, and a call may wait 5 s for its turn.
			llm, err := llmextract.New(llmextract.Config{BaseURL: x.llm.URL(), APIKey: "test-key", Model: "gpt-4o-mini",
				Timeout: 5 * time.Second, RequestsPerMinute: 1, LimitMaxWait: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			x.deps.LLM = llm
			// Another extraction of this process took this minute's turn.
			if _, err := llm.Extract(context.Background(), x.deps.Apps["mona"], extract.Session{ID: "other", App: "mona",
				StartedAt: time.Now(), Messages: []extract.Message{{ID: "m1", Role: "user", Content: "hi", At: time.Now()}}}); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := x.q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = x.q.Stop(context.Background()) })

			id := x.closeSession(t, "s-wait", monaSession("u-wait"))
			deadline := testwait.Deadline(t)
			for snoozed := false; !snoozed; {
				select {
				case ev := <-x.events:
					if ev == nil || ev.Job.ID != id {
						continue
					}
					if ev.Kind != river.EventKindJobSnoozed {
						t.Fatalf("job %s (%s), want it snoozed; errors %v", ev.Kind, ev.Job.State, ev.Job.Errors)
					}
					if ev.Job.State != rivertype.JobStateScheduled || ev.Job.ScheduledAt.Before(time.Now().Add(40*time.Second)) {
						t.Fatalf("snoozed job %s until %s, want scheduled about a minute on", ev.Job.State, ev.Job.ScheduledAt)
					}
					snoozed = true
				case <-deadline:
					t.Fatal("job not snoozed")
				}
			}
			if n := x.llm.Calls(); n != 1 {
				t.Fatalf("%d calls reached the endpoint, want only the first", n)
			}
			sess, err := x.st.GetSession(ctx, "s-wait")
			if err != nil {
				t.Fatal(err)
			}
			runs, err := x.st.ListExtractionRuns(ctx, "s-wait")
			if err != nil {
				t.Fatal(err)
			}
			if sess.Status == store.StatusProcessed || len(runs) != 0 {
				t.Fatalf("session %s with %d runs; want it waiting, with none", sess.Status, len(runs))
			}
		})
	}
}
