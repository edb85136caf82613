package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

const adminToken = "admin-token-for-tests-0001"

// TestAnalyticsTrendsInsightsByHand hands over a week of Elder Tree and
// Clara sessions, runs the batches by hand for that week as an operator
// back-filling would, and reads the results over HTTP; a second run of the
// same period gives identical results.
func TestAnalyticsTrendsInsightsByHand(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			day := func(d, h int) string { return time.Date(2026, 11, 9+d, h, 0, 0, 0, time.UTC).Format(time.RFC3339) }
			for u := 0; u < 6; u++ {
				for s := 0; s < 2; s++ {
					id := fmt.Sprintf("w-%d-%d", u, s)
					start := day(u%5+s, 20+s)
					end := time.Date(2026, 11, 9+u%5+s, 20+s, 30, 0, 0, time.UTC).Format(time.RFC3339)
					outcome := "urge_passed"
					if u == 0 && s == 1 {
						outcome = "relapsed"
					}
					c.closeAndWait(id, map[string]any{"user_id": fmt.Sprintf("sam-%d", u), "app": "eldertree", "started_at": start, "ended_at": end,
						"messages": []map[string]any{{"id": "m1", "role": "user", "content": "Hard evening.", "at": start}},
						"events": []map[string]any{{"kind": "urge", "at": start, "data": map[string]any{"intensity": 4 + u, "trigger": "loneliness",
							"strategy": "called_sponsor", "outcome": outcome}}}})
				}
			}
			clara := c
			clara.token = claraServiceToken
			for s := 0; s < 2; s++ {
				start := day(s, 9)
				clara.closeAndWait(fmt.Sprintf("cl-%d", s), map[string]any{"user_id": "rose", "app": "clara", "started_at": start, "ended_at": day(s, 10),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": "Where am I?", "at": start}},
					"events": []map[string]any{
						{"kind": "emotion", "at": start, "data": map[string]any{"emotion": "anxious", "distress_score": 0.8}},
						{"kind": "narrative", "at": day(s, 9), "data": map[string]any{"narrative_id": "n1", "mode": "seed", "category": "calming_story"}},
						{"kind": "emotion", "at": day(s, 10), "data": map[string]any{"emotion": "calm", "distress_score": 0.3}},
					}})
			}
			env := mapEnv(map[string]string{"DATABASE_URL": url, "MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the e2e tests"})
			batch := func(args ...string) string {
				t.Helper()
				var out, errOut bytes.Buffer
				if code := run(context.Background(), append([]string{"batch"}, args...), env, strings.NewReader(""), &out, &errOut); code != 0 {
					t.Fatalf("batch %v: exit %d: %s", args, code, errOut.String())
				}
				return out.String()
			}
			if out := batch("run", "weekly-analytics", "--period", "2026-11-15", "--now", "2026-11-16T12:00:00Z"); !strings.Contains(out, "6 rows") {
				t.Fatalf("weekly-analytics said %q; want 6 users", out)
			}
			code, first := c.do("GET", "/v1/users/sam-0/analytics?week_ending=2026-11-15", nil)
			a, _ := first["analytics"].(map[string]any)
			if code != 200 || a["total_sessions_completed"] != float64(2) || a["relapses"] != float64(1) {
				t.Fatalf("analytics = %d %v", code, first)
			}
			batch("run", "weekly-analytics", "--period", "2026-11-15", "--now", "2026-11-16T12:00:00Z")
			_, second := c.do("GET", "/v1/users/sam-0/analytics?week_ending=2026-11-15", nil)
			if fmt.Sprint(second["analytics"]) != fmt.Sprint(first["analytics"]) {
				t.Fatalf("re-running the week changed the analytics:\n%v\n%v", first["analytics"], second["analytics"])
			}
			if code, _ := c.do("GET", "/v1/users/sam-0/analytics?week_ending=15-11-2026", nil); code != 400 {
				t.Fatalf("malformed week = %d; want 400", code)
			}

			batch("run", "insights", "--period", "2026-11-15", "--now", "2026-11-16T14:00:00Z")
			req, _ := http.NewRequest("GET", c.base+"/v1/admin/insights?app=eldertree&week_ending=2026-11-15", nil)
			req.Header.Set("Authorization", "Bearer "+adminToken)
			resp, err := specClient(t).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), `"total_active_users":6`) || !strings.Contains(string(body), "loneliness") ||
				strings.Contains(string(body), "sam-") {
				t.Fatalf("insights = %d %s", resp.StatusCode, body)
			}
			if code, _ := c.do("GET", "/v1/admin/insights?app=eldertree&week_ending=2026-11-15", nil); code != 403 {
				t.Fatalf("insights with a service token = %d; want 403", code)
			}

			batch("run", "trends", "--now", "2026-11-16T03:00:00Z")
			code, tr := clara.do("GET", "/v1/users/rose/trends", nil)
			trends, _ := tr["trends"].(map[string]any)
			if code != 200 || trends["baseline_distress"] == nil || trends["sessions_considered"] != float64(2) {
				t.Fatalf("trends = %d %v", code, tr)
			}
			// The serving worker's own scheduler back-fills recent weeks too; the
			// list shows every batch with its last run and the next.
			list := batch("list")
			for _, name := range []string{"weekly-analytics", "trends", "insights", "memory-ttl", "retention"} {
				if !strings.Contains(list, name) {
					t.Fatalf("batch list lacks %s:\n%s", name, list)
				}
			}
		})
	}
}

// TestBatchListShowsLateData: `batch list` shows the weeks whose input
// changed after they ran: those the scheduler re-runs, and those beyond the
// catch-up window as stale.
func TestBatchListShowsLateData(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			env := mapEnv(map[string]string{"DATABASE_URL": url, "MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the e2e tests"})
			list := func() string {
				t.Helper()
				var out, errOut bytes.Buffer
				if code := run(ctx, []string{"batch", "list", "--now", "2026-11-26T05:00:00Z"}, env, strings.NewReader(""), &out, &errOut); code != 0 {
					t.Fatalf("batch list: exit %d: %s", code, errOut.String())
				}
				return out.String()
			}
			// batch list only reads: it neither creates nor migrates a database.
			if code := run(ctx, []string{"migrate", "up"}, env, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
				t.Fatalf("migrate up: exit %d", code)
			}
			st := openTestStore(t, url)
			ran := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(st.UpsertBatchRun(ctx, store.BatchRun{Batch: "weekly-analytics", Period: "origin", ScheduledFor: ran, Outcome: "origin"}))
			for _, p := range []struct {
				week string
				at   time.Time
			}{{"2026-09-27", time.Date(2026, 9, 28, 12, 0, 0, 0, time.UTC)}, {"2026-10-04", time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC)},
				{"2026-11-22", time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}} {
				must(st.UpsertBatchRun(ctx, store.BatchRun{Batch: "weekly-analytics", Period: p.week, ScheduledFor: p.at, StartedAt: &p.at, FinishedAt: &p.at, Outcome: "ok"}))
			}
			line := func(out string) string {
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(l, "weekly-analytics") {
						return l
					}
				}
				t.Fatalf("no weekly-analytics line in\n%s", out)
				return ""
			}
			if l := list(); !strings.HasSuffix(strings.TrimSpace(l[:strings.Index(l, "\n")]), "LATE DATA") || !strings.HasSuffix(line(l), " -") {
				t.Fatalf("batch list before any late data:\n%s", l)
			}
			_, err := st.MarkDirty(ctx, store.DirtyMark{Batch: "weekly-analytics", After: time.Date(2026, 9, 20, 0, 0, 0, 0, time.UTC), At: ran, Reason: "late session"})
			must(err)
			if l := line(list()); !strings.HasSuffix(l, "1 to re-run, 2 stale (2026-09-27 … 2026-10-04)") {
				t.Fatalf("batch list with late data: %q", l)
			}
		})
	}
}
