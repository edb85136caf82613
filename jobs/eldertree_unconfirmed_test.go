package jobs_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// The extraction job on Elder Tree's hints (issue 32 §5), on both
// databases. The session is processed twice, as a retried job is: the
// profile holds one unconfirmed streak, stated once, and the pack says so
// once. A plain statement of staying sober in a later session that is
// handed over first, and the hints after it, still leave the streak
// settled: a late session changes nothing a later one settled.
func TestElderTreeHintsLeaveOneUnconfirmedStreak(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			w := jobs.NewExtractWorker(x.deps)
			// Tuesday 2026-11-24, 18:00 UTC and a day after.
			t0 := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
			session := func(user string, at time.Time, said ...string) handoff.Request {
				req := handoff.Request{UserID: user, App: "eldertree", StartedAt: at, EndedAt: at.Add(30 * time.Minute), Timezone: "UTC"}
				for i, text := range said {
					req.Messages = append(req.Messages, extract.Message{ID: "m" + string(rune('1'+i)), Role: "user", Content: text, At: at.Add(time.Duration(i+1) * time.Minute)})
				}
				return req
			}
			work := func(id string, job int64, attempt int) {
				t.Helper()
				if err := w.Work(ctx, &river.Job[queue.ExtractArgs]{
					JobRow: &rivertype.JobRow{ID: job, Attempt: attempt, MaxAttempts: 5}, Args: queue.ExtractArgs{SessionID: id}}); err != nil {
					t.Fatal(err)
				}
			}
			profile := func(user string) (map[string]any, int) {
				t.Helper()
				p, err := x.st.GetProfile(ctx, user)
				if err != nil {
					t.Fatal(err)
				}
				var doc map[string]any
				if err := json.Unmarshal(p.Doc, &doc); err != nil {
					t.Fatal(err)
				}
				return doc, p.Version
			}
			hints := []string{"my cousin's wedding last saturday. open bar. I didn't exactly stick to soda water",
				"a few became a lot. woke up sunday not remembering the drive home"}

			job := x.closeSession(t, "h-1", session("eu-hint", t0, hints...))
			work("h-1", job, 1)
			first, v1 := profile("eu-hint")
			work("h-1", job, 2) // the same job run again
			again, v2 := profile("eu-hint")
			if first["streak_unconfirmed"] != true || first["streak_unconfirmed_since"] != "2026-11-21" {
				t.Fatalf("profile %v; want the streak unconfirmed since 2026-11-21", first)
			}
			if v2 != v1 || len(again) != len(first) || again["streak_unconfirmed_since"] != "2026-11-21" {
				t.Fatalf("the second run changed the profile: v%d %v → v%d %v", v1, first, v2, again)
			}
			history, err := x.st.ListProfileHistory(ctx, "eu-hint")
			if err != nil {
				t.Fatal(err)
			}
			stated := 0
			for _, h := range history {
				if strings.Contains(string(h.Said), "streak_unconfirmed_since") {
					stated++
				}
			}
			if stated != 1 {
				t.Fatalf("the unconfirmed streak was stated %d times in the profile history; want once", stated)
			}
			pack, err := api.BuildContext(ctx, x.st, x.deps.Apps, "eu-hint", "", 0, t0.Add(24*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(pack.Text, "Current streak: unconfirmed since Sat 21 Nov 2026"); n != 1 {
				t.Fatalf("the pack says the streak is unconfirmed %d times; want once:\n%s", n, pack.Text)
			}

			// The later statement handed over first, the hints after it.
			late := x.closeSession(t, "c-2", session("eu-late", t0.Add(24*time.Hour), "No, I stayed sober at the wedding."))
			work("c-2", late, 1)
			early := x.closeSession(t, "c-1", session("eu-late", t0, hints...))
			work("c-1", early, 1)
			if doc, _ := profile("eu-late"); doc["streak_unconfirmed"] != false {
				t.Fatalf("profile %v; want the streak settled by the later session, whatever the order of arrival", doc)
			}
			pack, err = api.BuildContext(ctx, x.st, x.deps.Apps, "eu-late", "", 0, t0.Add(48*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(pack.Text, "unconfirmed") {
				t.Fatalf("the pack after the settled streak:\n%s", pack.Text)
			}
		})
	}
}
