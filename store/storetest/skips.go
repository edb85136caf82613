package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, skipCases...)
}

var skipCases = []testCase{
	{"BatchSkipsRecordedPerRun", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		const b = "weekly-analytics"
		// A period not in the ledger, and one never skipped: zero.
		for _, p := range []string{"2026-11-15", "2026-11-08"} {
			if p == "2026-11-08" {
				must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: p, ScheduledFor: T0, Outcome: "ok"}))
			}
			got, err := s.GetBatchSkips(ctx, b, p)
			if err != nil || got.Skipped != 0 || got.Reasons == nil || len(got.Reasons) != 0 {
				t.Fatalf("GetBatchSkips(%s) = %+v, %v; want zero with an empty map", p, got, err)
			}
		}
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: b, Period: "2026-11-15", ScheduledFor: T0.Add(7 * 24 * time.Hour), Outcome: "running"}))
		err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			return tx.SetBatchSkips(ctx, b, "2026-11-15", store.BatchSkips{Skipped: 3, Reasons: map[string]int64{"event": 2, "profile": 1}})
		})
		must(t, err)
		got, err := s.GetBatchSkips(ctx, b, "2026-11-15")
		if err != nil || got.Skipped != 3 || fmt.Sprint(got.Reasons) != "map[event:2 profile:1]" {
			t.Fatalf("GetBatchSkips = %+v, %v; want 3 {event 2, profile 1}", got, err)
		}
		// The ledger row's own columns are untouched, and an upsert of the
		// row (the next run starting) leaves the skips to that run.
		run, err := s.GetBatchRun(ctx, b, "2026-11-15")
		if err != nil || run.Outcome != "running" {
			t.Fatalf("ledger row after SetBatchSkips: %+v, %v", run, err)
		}
		// A re-run records its own: none.
		must(t, s.SetBatchSkips(ctx, b, "2026-11-15", store.BatchSkips{}))
		if got, _ := s.GetBatchSkips(ctx, b, "2026-11-15"); got.Skipped != 0 || len(got.Reasons) != 0 {
			t.Fatalf("after a run without skips: %+v", got)
		}
		// Another batch's row of the same period is its own.
		if got, _ := s.GetBatchSkips(ctx, "insights", "2026-11-15"); got.Skipped != 0 {
			t.Fatalf("insights inherited weekly-analytics' skips: %+v", got)
		}
	}},
	{"BufferHeadReadsTheHeadOnly", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		must(t, s.UpsertUser(ctx, store.User{ID: "u-buf", App: appE, CreatedAt: T0, UpdatedAt: T0}))
		h, err := s.BufferHead(ctx, "s-buf", []string{"m0"})
		if err != nil || h.Next != 0 || len(h.Known) != 0 || h.Known == nil {
			t.Fatalf("head of an empty buffer = %+v, %v", h, err)
		}
		var msgs []store.BufferMessage
		for i := 0; i < 5; i++ {
			msgs = append(msgs, store.BufferMessage{SessionID: "s-buf", Seq: i, UserID: "u-buf", MessageID: fmt.Sprintf("m%d", i),
				KeyID: "k", Nonce: []byte{1}, Ciphertext: []byte{2}, SHA256: []byte{3}, CreatedAt: T0})
		}
		n, err := s.AppendBuffer(ctx, msgs)
		if err != nil || n != 5 {
			t.Fatalf("AppendBuffer = %d, %v", n, err)
		}
		// The same turns again add nothing (ON CONFLICT DO NOTHING).
		if n, err := s.AppendBuffer(ctx, msgs[3:]); err != nil || n != 0 {
			t.Fatalf("AppendBuffer again = %d, %v; want 0", n, err)
		}
		h, err = s.BufferHead(ctx, "s-buf", []string{"m1", "m4", "m9", "m1"})
		if err != nil || h.Next != 5 || !h.Known["m1"] || !h.Known["m4"] || h.Known["m9"] || len(h.Known) != 2 {
			t.Fatalf("BufferHead = %+v, %v; want next 5, m1 and m4 known", h, err)
		}
		if c, err := s.CountBuffer(ctx, "s-buf"); err != nil || c != 5 {
			t.Fatalf("CountBuffer = %d, %v", c, err)
		}
		// Another session's buffer is not this one's.
		if h, _ := s.BufferHead(ctx, "s-other", []string{"m1"}); h.Next != 0 || h.Known["m1"] {
			t.Fatalf("head of another session = %+v", h)
		}
	}},
}
