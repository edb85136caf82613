package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, weekAndCueCases...)
}

// weekAndCueCases cover the listing of a user's weekly analytics and the
// removal of a user's cues at a fresh start.
var weekAndCueCases = []testCase{
	{"ListWeeksNewestFirstInPages", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		weeks := []string{"2026-11-01", "2026-11-15", "2026-11-08", "2026-11-22", "2026-10-25"}
		for i, w := range weeks {
			must(t, s.UpsertWeekly(ctx, []store.AggregateRow{{UserID: "u-1", App: appC, WeekEnding: w,
				Data: json.RawMessage(`{"total_sessions_completed":` + string(rune('1'+i)) + `}`), UpdatedAt: T0}}))
		}
		must(t, s.UpsertWeekly(ctx, []store.AggregateRow{{UserID: "u-2", App: appC, WeekEnding: "2026-11-29", Data: json.RawMessage(`{}`), UpdatedAt: T0}}))

		var got []string
		before := ""
		for pages := 0; ; pages++ {
			page, err := s.ListWeeks(ctx, "u-1", before, 2)
			must(t, err)
			if page == nil {
				t.Fatal("ListWeeks returned nil; want an empty list")
			}
			if len(page) == 0 {
				break
			}
			if len(page) > 2 || pages > 3 {
				t.Fatalf("page %d has %d rows; limit 2", pages, len(page))
			}
			for _, r := range page {
				if r.UserID != "u-1" || r.App != appC || len(r.Data) == 0 || !r.UpdatedAt.Equal(T0) {
					t.Fatalf("row %+v", r)
				}
				got = append(got, r.WeekEnding)
			}
			before = page[len(page)-1].WeekEnding
		}
		want := []string{"2026-11-22", "2026-11-15", "2026-11-08", "2026-11-01", "2026-10-25"}
		if len(got) != len(want) {
			t.Fatalf("weeks %v; want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("weeks %v; want %v (newest first, another user's left out)", got, want)
			}
		}
		none, err := s.ListWeeks(ctx, "u-nobody", "", 10)
		must(t, err)
		if none == nil || len(none) != 0 {
			t.Fatalf("weeks of an unknown user = %v; want an empty list", none)
		}
	}},
	{"DeleteCuesOfOneUser", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		must(t, s.InsertCue(ctx, store.Cue{UserID: "u-1", App: appC, Type: "sponsor_change", Field: "sponsor_name", SessionID: "s-1", CreatedAt: T0}))
		must(t, s.InsertCue(ctx, store.Cue{UserID: "u-1", App: appC, Type: "fellowship_dropped", Field: "in_fellowship", SessionID: "profile:u-1:v2", CreatedAt: T0}))
		must(t, s.InsertCue(ctx, store.Cue{UserID: "u-2", App: appC, Type: "sponsor_change", Field: "sponsor_name", SessionID: "s-2", CreatedAt: T0}))
		n, err := s.DeleteCues(ctx, "u-1")
		must(t, err)
		mine, err := s.ListCues(ctx, "u-1", false)
		must(t, err)
		theirs, err := s.ListCues(ctx, "u-2", false)
		must(t, err)
		if n != 2 || len(mine) != 0 || len(theirs) != 1 {
			t.Fatalf("deleted %d, left %d of u-1 and %d of u-2; want 2, 0, 1", n, len(mine), len(theirs))
		}
	}},
}
