package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/kinds/lara"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// skipRecorder counts batch runs and skipped users as /metrics does.
type skipRecorder struct {
	mu      sync.Mutex
	skipped map[string]int64 // "batch/reason" → users
	runs    map[string]string
}

func (r *skipRecorder) Job(string, string, time.Duration) {}
func (r *skipRecorder) Extraction(jobs.ExtractionStat)    {}
func (r *skipRecorder) Batch(name, outcome string, _ time.Duration, _ int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs[name] = outcome
}
func (r *skipRecorder) BatchSkipped(name, reason string, users int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.skipped[name+"/"+reason] += users
}

// poisonDeps is a worker's dependencies without a queue: RunBatch is called
// directly, as `worker batch run` does.
func poisonDeps(t *testing.T, st store.Store, logs *syncBuf) (*jobs.Deps, *skipRecorder) {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := jobs.ParseSchedules(nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &skipRecorder{skipped: map[string]int64{}, runs: map[string]string{}}
	return &jobs.Deps{Store: st, Apps: apps, Schedules: s, Metrics: rec,
		Logger: slog.New(slog.NewJSONHandler(logs, nil))}, rec
}

// storeSession writes a processed session with its events and summary
// straight through the store, as rows written before the API refused bad
// numbers (or by a Go service with handoff.CloseTx) are: nothing validates.
func storeSession(t *testing.T, st store.Store, app, user, id string, end time.Time, events []string, summary string) {
	t.Helper()
	ctx := context.Background()
	start := end.Add(-30 * time.Minute)
	err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		if err := tx.UpsertUser(ctx, store.User{ID: user, App: app, Timezone: "UTC", CreatedAt: start, UpdatedAt: start}); err != nil {
			return err
		}
		processed := end.Add(time.Minute)
		if err := tx.CreateSession(ctx, store.Session{ID: id, UserID: user, App: app, Status: store.StatusProcessed, StartedAt: start,
			EndedAt: end, Timezone: "UTC", MessageCount: 1, ClosedAt: &end, ProcessedAt: &processed, UpdatedAt: processed}); err != nil {
			return err
		}
		var evs []store.Event
		for i, data := range events {
			kind := "urge"
			if app == "clara" {
				kind = "emotion"
			}
			evs = append(evs, store.Event{SessionID: id, Seq: i, UserID: user, Type: kind, At: start, Data: json.RawMessage(data)})
		}
		if len(evs) > 0 {
			if err := tx.InsertEvents(ctx, evs); err != nil {
				return err
			}
		}
		if summary != "" {
			return tx.UpsertSummary(ctx, store.Summary{SessionID: id, PromptVersion: "test", UserID: user, App: app, Source: "rules",
				Data: json.RawMessage(summary), CreatedAt: processed})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("store session %s: %v", id, err)
	}
}

// TestPoisonedUserIsSkipped is issue 13 item 4: one user's number beyond
// float64 (an Elder Tree intensity, a Clara distress score, a profile field,
// a stored analytics row) no longer fails the batch for everyone. The run
// is ok, the others' rows are written, and the ledger row, the metrics and
// the log say how many users were skipped and why — never the value.
func TestPoisonedUserIsSkipped(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := b.Open(t)
			logs := &syncBuf{}
			d, rec := poisonDeps(t, st, logs)
			end := time.Date(2026, 11, 12, 20, 0, 0, 0, time.UTC) // in the week ending Sunday 2026-11-15
			good := `{"intensity":6,"trigger":"loneliness","strategy":"called_sponsor","outcome":"urge_passed"}`
			storeSession(t, st, "eldertree", "et-a", "s-a", end, []string{good}, "")
			storeSession(t, st, "eldertree", "et-b", "s-b", end, []string{`{"intensity":1e400,"outcome":"urge_passed"}`}, "")
			storeSession(t, st, "eldertree", "et-c", "s-c", end, []string{good}, `{"urge_intensity":-1e999}`)
			storeSession(t, st, "eldertree", "et-d", "s-d", end, []string{good}, "")
			storeSession(t, st, "eldertree", "et-e", "s-e", end, []string{good}, "")
			// A profile number beyond float64.
			if err := st.SaveProfile(ctx, store.Profile{UserID: "et-d", App: "eldertree", Doc: json.RawMessage(`{"current_step":1e400}`),
				Version: 1, UpdatedAt: end}, store.ProfileChange{UserID: "et-d", Version: 1, Doc: json.RawMessage(`{"current_step":1e400}`),
				Changed: json.RawMessage(`{}`), Actor: "operator", At: end, StatedAt: end}); err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 16, 12, 0, 0, 0, time.UTC)
			rows, err := jobs.RunBatch(ctx, d, jobs.BatchWeeklyAnalytics, "2026-11-15", now)
			if err != nil {
				t.Fatalf("weekly analytics with poisoned users: %v", err)
			}
			if rows != 2 {
				t.Errorf("weekly analytics wrote %d rows; want 2 (et-a, et-e)", rows)
			}
			for _, u := range []string{"et-a", "et-e"} {
				if w := weekly(t, st, u, "2026-11-15"); w == nil || w["total_sessions_completed"] != 1.0 {
					t.Errorf("%s: analytics %v; want one session", u, w)
				}
			}
			for _, u := range []string{"et-b", "et-c", "et-d"} {
				if w := weekly(t, st, u, "2026-11-15"); w != nil {
					t.Errorf("%s: analytics written from data that does not decode: %v", u, w)
				}
			}
			run, err := st.GetBatchRun(ctx, jobs.BatchWeeklyAnalytics, "2026-11-15")
			if err != nil || run.Outcome != jobs.LedgerOK || run.RowsTouched != 2 {
				t.Fatalf("ledger: %+v, %v; want ok with 2 rows", run, err)
			}
			skips, err := st.GetBatchSkips(ctx, jobs.BatchWeeklyAnalytics, "2026-11-15")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int64{jobs.SkipEvent: 1, jobs.SkipSummary: 1, jobs.SkipProfile: 1}
			if skips.Skipped != 3 || fmt.Sprint(skips.Reasons) != fmt.Sprint(want) {
				t.Errorf("skips recorded: %+v; want 3 %v", skips, want)
			}
			for reason, n := range want {
				if got := rec.skipped[jobs.BatchWeeklyAnalytics+"/"+reason]; got != n {
					t.Errorf("metrics: %d users skipped for %s; want %d", got, reason, n)
				}
			}

			// Insights read the week's rows: one written by hand with a
			// count beyond float64 and one implausible are skipped.
			for _, u := range []string{"et-x", "et-y"} {
				if err := st.UpsertUser(ctx, store.User{ID: u, App: "eldertree", Timezone: "UTC", CreatedAt: now, UpdatedAt: now}); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.UpsertWeekly(ctx, []store.AggregateRow{
				{UserID: "et-x", App: "eldertree", WeekEnding: "2026-11-15", Data: json.RawMessage(`{"week_ending":"2026-11-15","total_sessions_completed":1e400}`), UpdatedAt: now},
				{UserID: "et-y", App: "eldertree", WeekEnding: "2026-11-15", Data: json.RawMessage(`{"week_ending":"2026-11-15","total_sessions_completed":1,"urge_by_weekday":[{"day":"monday","sum":1e308,"sessions":1}]}`), UpdatedAt: now},
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := jobs.RunBatch(ctx, d, jobs.BatchInsights, "2026-11-15", now.Add(90*time.Minute)); err != nil {
				t.Fatalf("insights with poisoned rows: %v", err)
			}
			if skips, _ := st.GetBatchSkips(ctx, jobs.BatchInsights, "2026-11-15"); skips.Skipped != 2 || skips.Reasons[jobs.SkipAnalytics] != 2 {
				t.Errorf("insights skips: %+v; want 2 analytics", skips)
			}

			// Clara: a distress score beyond float64.
			cend := time.Date(2026, 11, 15, 10, 0, 0, 0, time.UTC)
			storeSession(t, st, "clara", "cl-a", "c-a", cend, []string{`{"emotion":"anxious","distress_score":0.8}`}, "")
			storeSession(t, st, "clara", "cl-b", "c-b", cend, []string{`{"emotion":"anxious","distress_score":1e400}`}, "")
			tnow := time.Date(2026, 11, 16, 3, 0, 0, 0, time.UTC)
			if rows, err := jobs.RunBatch(ctx, d, jobs.BatchTrends, "", tnow); err != nil || rows != 1 {
				t.Fatalf("trends with a poisoned user: %d rows, %v; want 1, nil", rows, err)
			}
			if _, err := st.GetTrends(ctx, "cl-a"); err != nil {
				t.Errorf("trends of the readable user: %v", err)
			}
			if rec.skipped[jobs.BatchTrends+"/"+jobs.SkipEvent] != 1 {
				t.Errorf("trends skips in metrics: %v", rec.skipped)
			}

			// LaRa: a record whose number does not decode stays as it is;
			// the others decay.
			old := tnow.AddDate(0, -8, 0)
			for _, u := range []string{"kid-1", "kid-2"} {
				if err := st.UpsertUser(ctx, store.User{ID: u, App: "lara", Timezone: "UTC", CreatedAt: old, UpdatedAt: old}); err != nil {
					t.Fatal(err)
				}
			}
			pref := func(user, data string) {
				t.Helper()
				if err := st.UpsertRecord(ctx, store.Record{UserID: user, App: "lara", Type: lara.LaraPreference, Key: "dinosaurs",
					Data: json.RawMessage(data), UpdatedAt: old}); err != nil {
					t.Fatal(err)
				}
			}
			pref("kid-1", `{"weight":1e400}`)
			pref("kid-2", `{"weight":1}`)
			if _, err := jobs.RunBatch(ctx, d, jobs.BatchPreferenceDecay, "", tnow); err != nil {
				t.Fatalf("preference decay with a poisoned record: %v", err)
			}
			if rec.runs[jobs.BatchPreferenceDecay] != jobs.LedgerOK || rec.skipped[jobs.BatchPreferenceDecay+"/"+jobs.SkipRecord] != 1 {
				t.Errorf("preference decay: %v, skips %v", rec.runs, rec.skipped)
			}

			// The log names the batch, the user and the reason, never the value.
			out := logs.String()
			if !strings.Contains(out, `"user_id":"et-b"`) || !strings.Contains(out, `"reason":"event"`) {
				t.Errorf("no skip logged for et-b:\n%s", out)
			}
			if strings.Contains(out, "1e400") || strings.Contains(out, "1e+400") || strings.Contains(out, "0000000000") {
				t.Errorf("the log quotes a poisoned value:\n%s", out)
			}

			// A re-run after the profile is repaired records the run's own
			// skips, not the earlier run's.
			if err := st.DeleteProfile(ctx, "et-d"); err != nil {
				t.Fatal(err)
			}
			if rows, err := jobs.RunBatch(ctx, d, jobs.BatchWeeklyAnalytics, "2026-11-15", now); err != nil || rows != 3 {
				t.Fatalf("re-run: %d rows, %v; want 3", rows, err)
			}
			if skips, _ := st.GetBatchSkips(ctx, jobs.BatchWeeklyAnalytics, "2026-11-15"); skips.Skipped != 2 || skips.Reasons[jobs.SkipProfile] != 0 {
				t.Errorf("skips after the re-run: %+v; want 2, none for the profile", skips)
			}
		})
	}
}
