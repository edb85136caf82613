package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// clock is a settable clock shared by a test and its workers.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func withSchedules(t *testing.T, x *extractBundle, clk *clock) {
	t.Helper()
	s, err := jobs.ParseSchedules(nil)
	if err != nil {
		t.Fatal(err)
	}
	x.deps.Schedules = s
	x.deps.Now = clk.Now
	x.deps.Queue = x.q
}

// batchJobs lists the batch jobs of one batch.
func batchJobs(t *testing.T, q queue.Queue, batch string) []*rivertype.JobRow {
	t.Helper()
	rows, err := q.List(context.Background(), queue.ListFilter{Kinds: []string{"batch"}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []*rivertype.JobRow
	for _, r := range rows {
		var a jobs.BatchArgs
		if err := json.Unmarshal(r.EncodedArgs, &a); err != nil {
			t.Fatal(err)
		}
		if a.Batch == batch {
			out = append(out, r)
		}
	}
	return out
}

// TestWorkerDownOverSundayRunsTheWeekOnce: the scheduler last ran before a
// weekend; after a restart on Tuesday, the week's analytics are enqueued
// exactly once however often the scheduler ticks, and the ledger says so.
func TestWorkerDownOverSundayRunsTheWeekOnce(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			clk := &clock{t: time.Date(2026, 11, 16, 12, 30, 0, 0, time.UTC)} // Monday after the 12:00 run
			withSchedules(t, x, clk)
			// The worker ran on 2026-11-16 (week ending 2026-11-15), then went down.
			if _, err := jobs.Tick(ctx, x.deps, x.q, clk.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := jobs.RunBatch(ctx, x.deps, jobs.BatchWeeklyAnalytics, "2026-11-15", clk.Now()); err != nil {
				t.Fatal(err)
			}
			before := len(batchJobs(t, x.q, jobs.BatchWeeklyAnalytics))
			// Down until Tuesday 2026-11-24: the Monday 2026-11-23 run was missed.
			clk.Set(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
			for i := 0; i < 3; i++ {
				if _, err := jobs.Tick(ctx, x.deps, x.q, clk.Now()); err != nil {
					t.Fatal(err)
				}
			}
			jobsAfter := batchJobs(t, x.q, jobs.BatchWeeklyAnalytics)
			if len(jobsAfter)-before != 1 {
				t.Fatalf("%d weekly-analytics jobs enqueued after three ticks; want exactly 1", len(jobsAfter)-before)
			}
			run, err := x.st.GetBatchRun(ctx, jobs.BatchWeeklyAnalytics, "2026-11-22")
			if err != nil || run.Outcome != jobs.LedgerPending {
				t.Fatalf("ledger for week ending 2026-11-22: %+v, %v; want pending", run, err)
			}
			// The worker starts and works it.
			if err := x.q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = x.q.Stop(context.Background()) })
			x.waitJob(t, jobsAfter[0].ID)
			run, err = x.st.GetBatchRun(ctx, jobs.BatchWeeklyAnalytics, "2026-11-22")
			if err != nil || run.Outcome != jobs.LedgerOK || run.FinishedAt == nil {
				t.Fatalf("ledger after the run: %+v, %v", run, err)
			}
			if n, _ := jobs.Tick(ctx, x.deps, x.q, clk.Now()); n != 0 {
				t.Fatalf("a tick after the run enqueued %d jobs", n)
			}
		})
	}
}

// TestTwoWorkersRunEachPeriodOnce: two workers share one database and both
// tick at the same instant; each period is enqueued and run once.
func TestTwoWorkersRunEachPeriodOnce(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		if b.Name != store.DialectPostgres {
			continue // several processes per database is a Postgres deployment
		}
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			a := setupExtractWith(t, b, false, false)
			clk := &clock{t: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)}
			withSchedules(t, a, clk)
			// A second worker on the same database: its own River client.
			deps2 := *a.deps
			q2, err := queue.New(a.st, queue.Config{Concurrency: map[string]int{queue.QueueBatch: 2}, Workers: jobs.NewWorkers(&deps2), FetchPollInterval: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			deps2.Queue = q2
			if _, err := jobs.Tick(ctx, a.deps, a.q, clk.Now()); err != nil { // first sight: origin rows
				t.Fatal(err)
			}
			clk.Set(clk.Now().Add(3 * time.Hour))
			var wg sync.WaitGroup
			for _, w := range []struct {
				d *jobs.Deps
				q queue.Queue
			}{{a.deps, a.q}, {&deps2, q2}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 3; i++ {
						if _, err := jobs.Tick(ctx, w.d, w.q, clk.Now()); err != nil {
							t.Error(err)
						}
					}
				}()
			}
			wg.Wait()
			for _, name := range []string{jobs.BatchMemoryTTL, jobs.BatchBufferCleanup, jobs.BatchSessionExpiry} {
				seen := map[string]int{}
				for _, j := range batchJobs(t, a.q, name) {
					var args jobs.BatchArgs
					_ = json.Unmarshal(j.EncodedArgs, &args)
					seen[args.Period]++
				}
				if len(seen) == 0 {
					t.Fatalf("%s: nothing enqueued after three hours", name)
				}
				for p, n := range seen {
					if n != 1 {
						t.Fatalf("%s period %s enqueued %d times", name, p, n)
					}
				}
			}
		})
	}
}

// TestTTLExpiryAndSessionExpiry: an expired memory leaves the active set,
// and a session that stopped receiving turns is expired and processed.
func TestTTLExpiryAndSessionExpiry(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtract(t, b, false)
			clk := &clock{t: time.Now().UTC()}
			withSchedules(t, x, clk)
			x.waitJob(t, x.closeSession(t, "s-1", monaSession("u-1")))
			mems, _ := x.st.ListMemories(ctx, "u-1", store.MemoryFilter{Category: "feeling"})
			if len(mems) != 1 {
				t.Fatalf("feeling memories = %d", len(mems))
			}
			// Seven hours later the 6-hour feeling is gone; the name stays.
			clk.Set(clk.Now().Add(7 * time.Hour))
			n, err := jobs.RunBatch(ctx, x.deps, jobs.BatchMemoryTTL, "", clk.Now())
			if err != nil || n != 1 {
				t.Fatalf("memory-ttl expired %d (%v); want 1", n, err)
			}
			if again, _ := jobs.RunBatch(ctx, x.deps, jobs.BatchMemoryTTL, "", clk.Now()); again != 0 {
				t.Fatalf("a re-run expired %d more", again)
			}
			active, _ := x.st.ListMemories(ctx, "u-1", store.MemoryFilter{})
			expired, _ := x.st.ListMemories(ctx, "u-1", store.MemoryFilter{Status: store.MemoryExpired})
			if len(expired) != 1 || expired[0].Key != "feeling" || len(active) != 2 {
				t.Fatalf("after TTL: %d active, expired %+v", len(active), expired)
			}

			// A session in progress goes quiet; the expiry batch closes it.
			req := handoff.MessagesRequest{UserID: "u-9", App: "mona", Messages: []extract.Message{
				{ID: "t1", Role: "user", Content: "My name is Ada.", At: clk.Now().Add(-3 * time.Hour)}}}
			if err := handoff.ValidateMessages("live-1", &req, x.deps.Apps, clk.Now()); err != nil {
				t.Fatal(err)
			}
			if err := x.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				_, err := handoff.Append(ctx, tx, handoff.Deps{Queue: x.q, Apps: x.deps.Apps, Keys: x.deps.Keys}, "live-1", req, clk.Now().Add(-3*time.Hour))
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if n, err := jobs.RunBatch(ctx, x.deps, jobs.BatchSessionExpiry, "", clk.Now()); err != nil || n != 1 {
				t.Fatalf("session-expiry expired %d (%v); want 1", n, err)
			}
			sess, err := x.st.GetSession(ctx, "live-1")
			if err != nil || sess.Status != store.StatusExpired || len(sess.Jobs) != 1 {
				t.Fatalf("expired session = %+v, %v", sess, err)
			}
			x.waitJob(t, sess.Jobs[0].ID)
			if s := x.state(t, "live-1", "u-9"); s.memories["name"] != "Ada" {
				t.Fatalf("memories of the expired session = %v", s.memories)
			}
		})
	}
}

// TestLaraDecayBatches: mastery not practised for months decays slowly and
// never to zero; a preference unused for half a year is removed; emotional
// counts are normalised; re-running a period changes nothing more.
func TestLaraDecayBatches(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			now := time.Date(2026, 11, 25, 4, 30, 0, 0, time.UTC)
			clk := &clock{t: now}
			withSchedules(t, x, clk)
			if err := x.st.UpsertUser(ctx, store.User{ID: "kid-1", App: "lara", CreatedAt: now, UpdatedAt: now}); err != nil {
				t.Fatal(err)
			}
			put := func(kind, key string, data map[string]any) {
				t.Helper()
				data["user_id"] = "kid-1"
				raw, _ := json.Marshal(data)
				if err := x.st.UpsertRecord(ctx, store.Record{UserID: "kid-1", App: "lara", Type: kind, Key: key, Data: raw, UpdatedAt: now.AddDate(0, -8, 0)}); err != nil {
					t.Fatal(err)
				}
			}
			day := func(d int) string { return now.AddDate(0, 0, -d).Format(time.RFC3339) }
			put("learning", "counting", map[string]any{"mastery_level": 5, "difficulty": 3, "last_practiced": day(400), "total_attempts": 40, "successful_attempts": 35})
			put("learning", "colors", map[string]any{"mastery_level": 2, "difficulty": 1, "last_practiced": day(10)})
			put("preference", "likes:trains", map[string]any{"value": "trains", "polarity": "likes", "first_seen": day(300), "last_seen": day(200)})
			put("preference", "likes:dinosaurs", map[string]any{"value": "dinosaurs", "polarity": "likes", "first_seen": day(30), "last_seen": day(3)})

			read := func() map[string]map[string]any {
				recs, err := x.st.ListRecords(ctx, "kid-1", nil)
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]map[string]any{}
				for _, r := range recs {
					var d map[string]any
					_ = json.Unmarshal(r.Data, &d)
					out[r.Type+"/"+r.Key] = d
				}
				return out
			}
			for _, name := range []string{jobs.BatchMasteryDecay, jobs.BatchPreferenceDecay} {
				if _, err := jobs.RunBatch(ctx, x.deps, name, "", now); err != nil {
					t.Fatal(err)
				}
			}
			got := read()
			counting := got["learning/counting"]["mastery_level"].(float64)
			if counting >= 5 || counting < 1 {
				t.Fatalf("mastery after 400 idle days = %v; want lower than 5, never below 1", counting)
			}
			if got["learning/colors"]["mastery_level"] != float64(2) {
				t.Fatalf("recently practised mastery changed: %v", got["learning/colors"])
			}
			if _, ok := got["preference/likes:trains"]; ok {
				t.Fatal("a preference unused for 200 days was kept")
			}
			if _, ok := got["preference/likes:dinosaurs"]; !ok {
				t.Fatal("a preference used 3 days ago was removed")
			}
			// Running the same period again leaves the same records.
			for _, name := range []string{jobs.BatchMasteryDecay, jobs.BatchPreferenceDecay} {
				if _, err := jobs.RunBatch(ctx, x.deps, name, "", now); err != nil {
					t.Fatal(err)
				}
			}
			again := read()
			if a, b := mustJSON(t, got), mustJSON(t, again); a != b {
				t.Fatalf("a re-run changed the records:\n%s\n%s", a, b)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// elderSession is an Elder Tree session of one urge that ended at end.
func elderSession(user string, end time.Time, outcome string) handoff.Request {
	start := end.Add(-30 * time.Minute)
	return handoff.Request{UserID: user, App: "eldertree", StartedAt: start, EndedAt: end, Timezone: "UTC",
		Messages: []extract.Message{{ID: "m1", Role: "user", Content: "Hard evening.", At: start}},
		Events: []extract.Event{{Type: "urge", At: start,
			Data: json.RawMessage(`{"intensity":6,"trigger":"loneliness","strategy":"called_sponsor","outcome":"` + outcome + `"}`)}}}
}

// claraSession is a Clara session that ended at end.
func claraSession(user string, end time.Time) handoff.Request {
	start := end.Add(-time.Hour)
	return handoff.Request{UserID: user, App: "clara", StartedAt: start, EndedAt: end, Timezone: "UTC",
		Messages: []extract.Message{{ID: "m1", Role: "user", Content: "Where am I?", At: start}},
		Events:   []extract.Event{{Type: "emotion", At: start, Data: json.RawMessage(`{"emotion":"anxious","distress_score":0.8}`)}}}
}

// tickAndWait ticks the scheduler, waits for every batch job it enqueued
// and returns how many of them re-run a period for late data.
func tickAndWait(t *testing.T, x *extractBundle, clk *clock) int {
	t.Helper()
	ctx := context.Background()
	list := func() []*rivertype.JobRow {
		rows, err := x.q.List(ctx, queue.ListFilter{Kinds: []string{"batch"}, Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	before := map[int64]bool{}
	for _, j := range list() {
		before[j.ID] = true
	}
	if _, err := jobs.Tick(ctx, x.deps, x.q, clk.Now()); err != nil {
		t.Fatal(err)
	}
	reruns := 0
	for _, j := range list() {
		if before[j.ID] {
			continue
		}
		var a jobs.BatchArgs
		if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
			t.Fatal(err)
		}
		if a.Rerun > 0 {
			reruns++
		}
		x.waitJob(t, j.ID)
	}
	return reruns
}

// weekly reads a user's analytics of a week as the API serves them; nil when none.
func weekly(t *testing.T, st store.Store, user, week string) map[string]any {
	t.Helper()
	row, err := st.GetWeekly(context.Background(), user, week)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(row.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func insightUsers(t *testing.T, st store.Store, week string) float64 {
	t.Helper()
	in, err := st.GetInsight(context.Background(), "eldertree", week)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(in.Data, &out); err != nil {
		t.Fatal(err)
	}
	n, _ := out["total_active_users"].(float64)
	return n
}

// TestLateSessionReaggregates is issue 11: the scheduler ran a week; a
// session of that week handed over late (and one of a week the first start
// back-filled with nothing) appears in the week's analytics and insights
// after the next ticks, without a manual `batch run`; erasing its user
// takes it out of the insights again. Late Clara sessions refresh trends.
func TestLateSessionReaggregates(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, true)
			clk := &clock{t: time.Date(2026, 11, 15, 4, 0, 0, 0, time.UTC)}
			withSchedules(t, x, clk)
			// First start: the past five weeks run, empty.
			tickAndWait(t, x, clk)
			if run, err := x.st.GetBatchRun(ctx, jobs.BatchWeeklyAnalytics, "2026-11-08"); err != nil || run.Outcome != jobs.LedgerOK || run.RowsTouched != 0 {
				t.Fatalf("week ending 2026-11-08 on first start: %+v, %v", run, err)
			}
			// The week ending 2026-11-15: six users, handed over on time.
			for u := 0; u < 6; u++ {
				x.waitJob(t, x.closeSession(t, fmt.Sprintf("w-%d", u), elderSession(fmt.Sprintf("sam-%d", u), time.Date(2026, 11, 10+u%5, 21, 0, 0, 0, time.UTC), "urge_passed")))
			}
			x.waitJob(t, x.closeSession(t, "cl-1", claraSession("rose", time.Date(2026, 11, 15, 10, 0, 0, 0, time.UTC))))
			clk.Set(time.Date(2026, 11, 16, 14, 0, 0, 0, time.UTC)) // Monday after the 12:00 and 13:30 runs
			tickAndWait(t, x, clk)
			const week = "2026-11-15"
			if w := weekly(t, x.st, "sam-0", week); w == nil || w["total_sessions_completed"] != float64(1) || w["relapses"] != float64(0) {
				t.Fatalf("sam-0's week before the late session: %v", w)
			}
			if n := insightUsers(t, x.st, week); n != 6 {
				t.Fatalf("insights count %v users; want 6", n)
			}
			trends := func() float64 {
				t.Helper()
				row, err := x.st.GetTrends(ctx, "rose")
				if err != nil {
					t.Fatal(err)
				}
				var tr map[string]any
				_ = json.Unmarshal(row.Data, &tr)
				return tr["sessions_considered"].(float64)
			}
			if n := trends(); n != 1 {
				t.Fatalf("trends considered %v sessions; want 1", n)
			}

			// Tuesday: a phone that was offline hands over sam-0's relapse of
			// Saturday, a new user's session of the same week, a session of
			// the week the first start ran empty, and a Clara session of Sunday.
			clk.Set(time.Date(2026, 11, 17, 9, 0, 0, 0, time.UTC))
			tickAndWait(t, x, clk) // Tuesday's own runs (trends of 03:00)
			// Re-runs the earlier runs still owe each other (insights a
			// back-filled week's analytics finished after, on a loaded
			// machine) happen first, so that what follows counts only what
			// the late sessions cause.
			for range 3 {
				if tickAndWait(t, x, clk) == 0 {
					break
				}
			}
			x.waitJob(t, x.closeSession(t, "late-1", elderSession("sam-0", time.Date(2026, 11, 14, 22, 0, 0, 0, time.UTC), "relapsed")))
			x.waitJob(t, x.closeSession(t, "late-2", elderSession("sam-9", time.Date(2026, 11, 13, 22, 0, 0, 0, time.UTC), "urge_passed")))
			x.waitJob(t, x.closeSession(t, "late-3", elderSession("sam-8", time.Date(2026, 11, 5, 22, 0, 0, 0, time.UTC), "urge_passed")))
			x.waitJob(t, x.closeSession(t, "cl-late", claraSession("rose", time.Date(2026, 11, 15, 20, 0, 0, 0, time.UTC))))
			if w := weekly(t, x.st, "sam-0", week); w["total_sessions_completed"] != float64(1) {
				t.Fatalf("the week changed before any tick: %v", w)
			}
			if n := tickAndWait(t, x, clk); n != 3 {
				t.Fatalf("the tick enqueued %d re-runs; want 3 (two weeks of analytics, trends)", n)
			}
			if w := weekly(t, x.st, "sam-0", week); w == nil || w["total_sessions_completed"] != float64(2) || w["relapses"] != float64(1) {
				t.Fatalf("sam-0's week after the late relapse: %v", w)
			}
			if weekly(t, x.st, "sam-9", week) == nil || weekly(t, x.st, "sam-8", "2026-11-08") == nil {
				t.Fatal("a late session's user has no analytics for its week")
			}
			if n := trends(); n != 2 {
				t.Fatalf("trends considered %v sessions after the late one; want 2", n)
			}
			// Insights follow the week's analytics on the next tick.
			if n := tickAndWait(t, x, clk); n != 2 {
				t.Fatalf("the second tick enqueued %d insights re-runs; want 2 (both weeks)", n)
			}
			if n := insightUsers(t, x.st, week); n != 7 {
				t.Fatalf("insights count %v users after the late session; want 7", n)
			}
			if n := tickAndWait(t, x, clk); n != 0 {
				t.Fatalf("a tick with nothing late enqueued %d re-runs", n)
			}
			for _, name := range jobs.BatchNames() {
				if d, err := x.st.ListDirty(ctx, name, 10); err != nil || len(d) != 0 {
					t.Fatalf("%s still dirty: %+v, %v", name, d, err)
				}
			}

			// sam-9 asks to be forgotten: their week is gone at once, and from
			// the insights after the next tick.
			var eraseJob int64
			if err := x.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				if err := tx.CreateErasure(ctx, store.Erasure{ID: "er-1", UserID: "sam-9", RequestedAt: clk.Now()}); err != nil {
					return err
				}
				ins, err := x.q.InsertTx(ctx, tx, queue.EraseArgs{ErasureID: "er-1"}, nil)
				if err == nil {
					eraseJob = ins.ID
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			x.waitJob(t, eraseJob)
			if weekly(t, x.st, "sam-9", week) != nil {
				t.Fatal("the erased user's analytics are still there")
			}
			if n := tickAndWait(t, x, clk); n != 1 {
				t.Fatalf("the tick after the erasure enqueued %d re-runs; want the week's insights", n)
			}
			if n := insightUsers(t, x.st, week); n != 6 {
				t.Fatalf("insights count %v users after the erasure; want 6", n)
			}
		})
	}
}

// syncBuf is a log sink shared with workers.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestLateSessionBeyondTheWindowIsStale: a session handed over so late that
// its week is beyond the catch-up window re-runs nothing; the week is logged
// once, without user data, and shown stale, while a later week it touches
// within the window is re-run. Running the stale week by hand refreshes it.
func TestLateSessionBeyondTheWindowIsStale(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			clk := &clock{t: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}
			withSchedules(t, x, clk)
			logs := &syncBuf{}
			x.deps.Logger = slog.New(slog.NewTextHandler(logs, nil))
			if _, err := jobs.Tick(ctx, x.deps, x.q, clk.Now()); err != nil {
				t.Fatal(err)
			}
			for _, week := range []string{"2026-10-04", "2026-11-22"} {
				if _, err := jobs.RunBatch(ctx, x.deps, jobs.BatchWeeklyAnalytics, week, clk.Now()); err != nil {
					t.Fatal(err)
				}
			}
			// 2026-11-26: a session of 2026-10-02 arrives, eight weeks late.
			clk.Set(time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC))
			req := elderSession("sam-1", time.Date(2026, 10, 2, 20, 0, 0, 0, time.UTC), "relapsed")
			if err := handoff.Validate("very-late", &req, x.deps.Apps, clk.Now()); err != nil {
				t.Fatal(err)
			}
			if err := x.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				_, err := handoff.Close(ctx, tx, handoff.Deps{Queue: x.q, Apps: x.deps.Apps, Keys: x.deps.Keys}, "very-late", req, clk.Now())
				return err
			}); err != nil {
				t.Fatal(err)
			}
			dirty, err := x.st.ListDirty(ctx, jobs.BatchWeeklyAnalytics, 10)
			if err != nil || len(dirty) != 2 || dirty[0].Reason != jobs.ReasonLateSession {
				t.Fatalf("dirty weeks = %+v, %v; want the session's week and the later one", dirty, err)
			}
			before := len(batchJobs(t, x.q, jobs.BatchWeeklyAnalytics))
			for i := 0; i < 3; i++ {
				if _, err := jobs.Tick(ctx, x.deps, x.q, clk.Now()); err != nil {
					t.Fatal(err)
				}
			}
			reruns := func() []jobs.BatchArgs {
				var out []jobs.BatchArgs
				for _, j := range batchJobs(t, x.q, jobs.BatchWeeklyAnalytics) {
					var a jobs.BatchArgs
					_ = json.Unmarshal(j.EncodedArgs, &a)
					if a.Rerun > 0 {
						out = append(out, a)
					}
				}
				return out
			}
			// The session is not processed yet (no worker here), but an hour's
			// wait is not over: the week within the window waits for it.
			if r := reruns(); len(r) != 0 || len(batchJobs(t, x.q, jobs.BatchWeeklyAnalytics)) != before {
				t.Fatalf("re-runs %+v while the late session awaits extraction", r)
			}
			if n := strings.Count(logs.String(), "batch period stale"); n != 1 || !strings.Contains(logs.String(), "period=2026-10-04") ||
				strings.Contains(logs.String(), "sam-1") || strings.Contains(logs.String(), "very-late") {
				t.Fatalf("stale logged %d times; want once, without user data:\n%s", n, logs.String())
			}
			states, err := jobs.States(ctx, x.deps, clk.Now())
			if err != nil {
				t.Fatal(err)
			}
			st := states[0]
			if st.Name != jobs.BatchWeeklyAnalytics || len(st.Stale) != 1 || st.Stale[0].Period != "2026-10-04" || len(st.Dirty) != 1 || st.Dirty[0].Period != "2026-11-22" {
				t.Fatalf("batch list state: stale %+v, dirty %+v", st.Stale, st.Dirty)
			}
			// An hour later the week within the window re-runs anyway; the stale one does not.
			clk.Set(clk.Now().Add(61 * time.Minute))
			if _, err := jobs.Tick(ctx, x.deps, x.q, clk.Now()); err != nil {
				t.Fatal(err)
			}
			if r := reruns(); len(r) != 1 || r[0].Period != "2026-11-22" || r[0].Rerun != 1 || len(batchJobs(t, x.q, jobs.BatchWeeklyAnalytics)) != before+1 {
				t.Fatalf("after the wait: re-runs %+v; want the one of 2026-11-22", r)
			}
			// The operator refreshes the stale week by hand.
			if _, err := jobs.RunBatch(ctx, x.deps, jobs.BatchWeeklyAnalytics, "2026-10-04", clk.Now()); err != nil {
				t.Fatal(err)
			}
			if w := weekly(t, x.st, "sam-1", "2026-10-04"); w == nil || w["relapses"] != float64(1) {
				t.Fatalf("the week run by hand: %v", w)
			}
			if states, _ := jobs.States(ctx, x.deps, clk.Now()); len(states[0].Stale) != 0 {
				t.Fatalf("still stale after the run by hand: %+v", states[0].Stale)
			}
		})
	}
}
