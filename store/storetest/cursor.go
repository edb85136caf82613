package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, cursorCases...)
}

var cursorCases = []testCase{
	{"BatchCursorCommitsWithThePage", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		const b, p = "weekly-analytics", "2026-11-15"
		cursor := func(want string) {
			t.Helper()
			got, err := s.GetBatchRun(ctx, b, p)
			if err != nil || got.Cursor != want {
				t.Fatalf("cursor = %q, %v; want %q", got.Cursor, err, want)
			}
		}
		// No row: nothing to write the cursor on.
		err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.SetBatchCursor(ctx, b, p, "u-1") })
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("SetBatchCursor without a ledger row = %v; want ErrNotFound", err)
		}
		started := T0
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: p, ScheduledFor: T0, StartedAt: &started, Outcome: "running"}))
		cursor("")
		// A page's transaction that commits writes its cursor; one that
		// rolls back leaves the previous one.
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.SetBatchCursor(ctx, b, p, "u-0500") }))
		cursor("u-0500")
		boom := errors.New("the page's writes failed")
		err = s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if err := tx.SetBatchCursor(ctx, b, p, "u-1000"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx = %v; want the page's error", err)
		}
		cursor("u-0500")
		// Other rows keep theirs: the cursor is per batch and period.
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "2026-11-22", ScheduledFor: T0.Add(7 * 24 * time.Hour), Outcome: "running", Cursor: "u-9"}))
		cursor("u-0500")
		// A run that starts again keeps the cursor it passes; a finished run
		// (or the row set back to pending) passes none and clears it. The
		// other columns are untouched by SetBatchCursor.
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: p, ScheduledFor: T0, Outcome: "running", Cursor: "u-0500"}))
		got, err := s.GetBatchRun(ctx, b, p)
		if err != nil || got.Cursor != "u-0500" || got.StartedAt == nil || !got.StartedAt.Equal(started) || got.Outcome != "running" {
			t.Fatalf("after the restart: %+v, %v; want running since T0 at u-0500", got, err)
		}
		fin := T0.Add(time.Hour)
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: p, ScheduledFor: T0, FinishedAt: &fin, RowsTouched: 7, Outcome: "ok"}))
		cursor("")
		runs, err := s.ListBatchRuns(ctx, b, 5)
		if err != nil || len(runs) != 2 || runs[0].Cursor != "u-9" || runs[1].Cursor != "" {
			t.Fatalf("ListBatchRuns = %+v, %v; want the newer period at u-9, the finished one without a cursor", runs, err)
		}
		// Setting "" clears it too.
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.SetBatchCursor(ctx, b, "2026-11-22", "") }))
		if r, err := s.GetBatchRun(ctx, b, "2026-11-22"); err != nil || r.Cursor != "" {
			t.Fatalf("cleared cursor = %q, %v", r.Cursor, err)
		}
	}},
}
