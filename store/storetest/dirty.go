package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, dirtyCases...)
}

var dirtyCases = []testCase{
	{"MarkDirtyAllMarksWhatMarkDirtyMarks", func(t *testing.T, s store.Store) {
		// Two ledgers alike: one marked mark by mark, its twin with
		// MarkDirtyAll in a transaction; then the same marks rolled back.
		ctx := context.Background()
		day := func(d int) time.Time { return time.Date(2026, 11, 9+d, 12, 0, 0, 0, time.UTC) }
		done := day(0).Add(time.Minute)
		marks := func(b string) []store.DirtyMark {
			return []store.DirtyMark{
				{Batch: b, After: day(-1), At: T0, Reason: "late session"},
				{Batch: b, Latest: true, After: day(-1), At: T0.Add(time.Hour), Reason: "late session"},
				{Batch: b, Period: "2026-11-22", At: T0, Reason: "late session"}, // not started: no mark
			}
		}
		for _, b := range []string{"one-by-one", "all", "rolled-back"} {
			must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "2026-11-08", ScheduledFor: day(0), StartedAt: &done, FinishedAt: &done, Outcome: "ok"}))
			must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "2026-11-15", ScheduledFor: day(7), StartedAt: &done, FinishedAt: &done, Outcome: "ok"}))
			must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "2026-11-22", ScheduledFor: day(14), Outcome: "pending"}))
		}
		for _, m := range marks("one-by-one") {
			_, err := s.MarkDirty(ctx, m)
			must(t, err)
		}
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.MarkDirtyAll(ctx, marks("all")) }))
		errBoom := errors.New("boom")
		if err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			must(t, tx.MarkDirtyAll(ctx, marks("rolled-back")))
			return errBoom
		}); !errors.Is(err, errBoom) {
			t.Fatal(err)
		}
		for _, period := range []string{"2026-11-08", "2026-11-15", "2026-11-22"} {
			want, err := s.DirtySeq(ctx, "one-by-one", period)
			must(t, err)
			if got, err := s.DirtySeq(ctx, "all", period); err != nil || got != want {
				t.Fatalf("%s: MarkDirtyAll marked %d times, %v; MarkDirty %d", period, got, err, want)
			}
			if got, err := s.DirtySeq(ctx, "rolled-back", period); err != nil || got != 0 {
				t.Fatalf("%s: rolled-back marks left %d, %v", period, got, err)
			}
		}
		if n, _ := s.DirtySeq(ctx, "all", "2026-11-15"); n != 2 {
			t.Fatalf("the newest period marked %d times; want 2 (After and Latest)", n)
		}
		d, err := s.ListDirty(ctx, "all", 10)
		must(t, err)
		if len(d) != 2 || d[0].Reason != "late session" || !d[0].MarkedAt.Equal(T0) {
			t.Fatalf("dirty periods after MarkDirtyAll: %+v", d)
		}
	}},
	{"DirtyPeriodsMarkedClearedAndKept", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		const b = "weekly-analytics"
		day := func(d int) time.Time { return time.Date(2026, 11, 9+d, 12, 0, 0, 0, time.UTC) }
		done := day(0).Add(time.Minute)
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "origin", ScheduledFor: day(-30), Outcome: "origin"}))
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "2026-11-08", ScheduledFor: day(0), StartedAt: &done, FinishedAt: &done, Outcome: "ok"}))
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "2026-11-15", ScheduledFor: day(7), StartedAt: &done, FinishedAt: &done, Outcome: "ok"}))
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "2026-11-22", ScheduledFor: day(14), Outcome: "pending"}))
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: "insights", Period: "2026-11-15", ScheduledFor: day(7), StartedAt: &done, FinishedAt: &done, Outcome: "ok"}))
		mark := func(m store.DirtyMark, want int64) {
			t.Helper()
			m.Batch, m.At, m.Reason = b, T0, "handoff"
			n, err := s.MarkDirty(ctx, m)
			if err != nil || n != want {
				t.Fatalf("MarkDirty(%+v) = %d, %v; want %d", m, n, err, want)
			}
		}
		// Periods that have started and are scheduled after the change; a
		// period not yet started (it will read the change) and the origin are never marked.
		mark(store.DirtyMark{After: day(1)}, 1)
		mark(store.DirtyMark{Latest: true}, 1)
		mark(store.DirtyMark{Period: "2026-11-08"}, 1)
		mark(store.DirtyMark{Period: "2026-11-22"}, 0)
		mark(store.DirtyMark{Period: "2026-11-01"}, 0)
		// A mark in a transaction that rolls back is not kept.
		errBoom := errors.New("boom")
		if err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if n, err := tx.MarkDirty(ctx, store.DirtyMark{Batch: "insights", Period: "2026-11-15", At: T0}); err != nil || n != 1 {
				t.Fatalf("MarkDirty in a transaction = %d, %v", n, err)
			}
			return errBoom
		}); !errors.Is(err, errBoom) {
			t.Fatal(err)
		}
		if d, err := s.ListDirty(ctx, "insights", 10); err != nil || len(d) != 0 {
			t.Fatalf("a rolled-back mark left %+v, %v", d, err)
		}

		dirty, err := s.ListDirty(ctx, b, 10)
		must(t, err)
		if len(dirty) != 2 || dirty[0].Period != "2026-11-08" || dirty[0].Seq != 1 || dirty[1].Period != "2026-11-15" || dirty[1].Seq != 2 ||
			dirty[1].Reason != "handoff" || dirty[1].MarkedAt == nil || !dirty[1].MarkedAt.Equal(T0) || dirty[1].Outcome != "ok" ||
			!dirty[1].ScheduledFor.Equal(day(7)) || dirty[1].Reported {
			t.Fatalf("dirty periods = %+v", dirty)
		}
		if n, err := s.DirtySeq(ctx, b, "2026-11-15"); err != nil || n != 2 {
			t.Fatalf("DirtySeq = %d, %v; want 2", n, err)
		}
		if n, err := s.DirtySeq(ctx, b, "1999-01-03"); err != nil || n != 0 {
			t.Fatalf("DirtySeq of a period not in the ledger = %d, %v; want 0", n, err)
		}
		stillDirty := func(period string, want bool) {
			t.Helper()
			d, err := s.ListDirty(ctx, b, 10)
			must(t, err)
			got := false
			for _, x := range d {
				got = got || x.Period == period
			}
			if got != want {
				t.Fatalf("%s dirty = %v; want %v (%+v)", period, got, want, d)
			}
		}
		// A run that started after one mark clears that one only.
		must(t, s.ClearDirty(ctx, b, "2026-11-15", 1))
		stillDirty("2026-11-15", true)
		must(t, s.ClearDirty(ctx, b, "2026-11-15", 2))
		stillDirty("2026-11-15", false)
		// A mark made while a run that read 2 was going survives its clearing;
		// an older run finishing late clears nothing.
		mark(store.DirtyMark{Period: "2026-11-15"}, 1)
		must(t, s.ClearDirty(ctx, b, "2026-11-15", 2))
		must(t, s.ClearDirty(ctx, b, "2026-11-15", 1))
		stillDirty("2026-11-15", true)
		if d, _ := s.ListDirty(ctx, b, 10); len(d) != 2 || !d[1].MarkedAt.Equal(T0) {
			t.Fatalf("dirty since %+v; want the mark after the clearing", d)
		}

		// Reported stale at its marks so far; a new mark is reported again.
		must(t, s.ReportStale(ctx, b, "2026-11-08", 1))
		if d, _ := s.ListDirty(ctx, b, 1); len(d) != 1 || !d[0].Reported {
			t.Fatalf("after ReportStale: %+v", d)
		}
		if n, err := s.MarkDirty(ctx, store.DirtyMark{Batch: b, Period: "2026-11-08", At: T0.Add(time.Hour), Reason: "erasure"}); err != nil || n != 1 {
			t.Fatalf("MarkDirty = %d, %v", n, err)
		}
		// Dirty since the first mark not yet cleared, for the newest reason.
		if d, _ := s.ListDirty(ctx, b, 1); len(d) != 1 || d[0].Reported || d[0].Seq != 2 || !d[0].MarkedAt.Equal(T0) || d[0].Reason != "erasure" {
			t.Fatalf("after a new mark: %+v", d)
		}
		// The ledger row itself is as it was.
		run, err := s.GetBatchRun(ctx, b, "2026-11-15")
		must(t, err)
		if run.Outcome != "ok" || run.FinishedAt == nil {
			t.Fatalf("ledger row after marks: %+v", run)
		}
	}},
	{"UnprocessedSessionsOfAWindow", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		must(t, s.UpsertUser(ctx, store.User{ID: "u-1", App: appC, Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}))
		for _, x := range []struct {
			id, status string
			end        time.Time
		}{{"a", store.StatusProcessed, T0}, {"b", store.StatusFailed, T0}, {"c", store.StatusClosed, T0.Add(48 * time.Hour)},
			{"d", store.StatusExpired, T0.Add(96 * time.Hour)}, {"e", store.StatusActive, T0.Add(-48 * time.Hour)}} {
			must(t, s.CreateSession(ctx, store.Session{ID: x.id, UserID: "u-1", App: appC, Status: x.status, StartedAt: x.end.Add(-time.Hour),
				EndedAt: x.end, UpdatedAt: T0}))
		}
		for _, c := range []struct {
			from, to time.Time
			want     bool
		}{
			{T0.Add(-72 * time.Hour), T0.Add(time.Hour), false}, // processed, failed and active only
			{T0, T0.Add(72 * time.Hour), true},                  // closed, awaiting extraction
			{T0.Add(72 * time.Hour), T0.Add(120 * time.Hour), true},
			{T0.Add(96 * time.Hour), T0.Add(96 * time.Hour), false}, // empty window
		} {
			got, err := s.UnprocessedSessions(ctx, appC, c.from, c.to)
			if err != nil || got != c.want {
				t.Fatalf("UnprocessedSessions(%s, %s) = %v, %v; want %v", c.from, c.to, got, err, c.want)
			}
		}
		if got, err := s.UnprocessedSessions(ctx, appE, T0, T0.Add(120*time.Hour)); err != nil || got {
			t.Fatalf("another app's sessions counted: %v, %v", got, err)
		}
	}},
}
