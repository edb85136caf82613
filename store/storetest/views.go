package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, viewCases...)
}

// viewReader is the store as the views read it; every store implements it.
func viewReader(t *testing.T, s store.Store) store.ViewReader {
	t.Helper()
	v, ok := s.(store.ViewReader)
	if !ok {
		t.Fatalf("%T does not implement store.ViewReader", s)
	}
	return v
}

// viewSession stores a session of app for user that ended at end.
func viewSession(t *testing.T, s store.Store, app, userID, id string, end time.Time) {
	t.Helper()
	ctx := context.Background()
	must(t, s.UpsertUser(ctx, store.User{ID: userID, App: app, Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}))
	must(t, s.CreateSession(ctx, store.Session{ID: id, UserID: userID, App: app, Status: store.StatusProcessed,
		StartedAt: end.Add(-10 * time.Minute), EndedAt: end, Timezone: "UTC", BodySHA256: "x", ClosedAt: &end, UpdatedAt: end}))
}

// viewCases cover the reads of the operations and insights views.
var viewCases = []testCase{
	{"ViewSessionCountsByHourAndDay", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		v := viewReader(t, s)
		// T0 is 2026-11-20 09:00 UTC.
		ends := map[string]time.Time{
			"m-1": T0.Add(5 * time.Minute),      // 09h
			"m-2": T0.Add(59 * time.Minute),     // 09h
			"m-3": T0.Add(61 * time.Minute),     // 10h
			"m-4": T0.Add(-9*time.Hour - 1),     // 2026-11-19 23h (a nanosecond before midnight)
			"m-5": T0.Add(3 * 24 * time.Hour),   // outside the window
			"m-6": T0.Add(-10 * 24 * time.Hour), // outside the window
		}
		for id, end := range ends {
			viewSession(t, s, appE, "u-e", id, end)
		}
		viewSession(t, s, appB, "u-b", "c-1", T0.Add(10*time.Minute))
		viewSession(t, s, appD, "u-d", "l-1", T0.Add(10*time.Minute)) // an app not asked for
		from, to := T0.Add(-2*24*time.Hour), T0.Add(2*24*time.Hour)

		hours, err := v.ViewSessionCounts(ctx, []string{appE, appB}, from, to, store.ViewHour)
		must(t, err)
		want := []store.SessionCount{
			{Start: time.Date(2026, 11, 19, 23, 0, 0, 0, time.UTC), App: appE, Count: 1},
			{Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), App: appB, Count: 1},
			{Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), App: appE, Count: 2},
			{Start: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), App: appE, Count: 1},
		}
		sameCounts(t, "by hour", hours, want)

		days, err := v.ViewSessionCounts(ctx, []string{appE, appB}, from, to, store.ViewDay)
		must(t, err)
		sameCounts(t, "by day", days, []store.SessionCount{
			{Start: time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC), App: appE, Count: 1},
			{Start: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), App: appB, Count: 1},
			{Start: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), App: appE, Count: 3},
		})

		none, err := v.ViewSessionCounts(ctx, nil, from, to, store.ViewDay)
		must(t, err)
		if none == nil || len(none) != 0 {
			t.Fatalf("no apps: %v; want an empty list", none)
		}
		if _, err := v.ViewSessionCounts(ctx, []string{appE}, from, to, "week"); err == nil {
			t.Fatal("bucket week accepted")
		}
	}},
	{"ViewExtractionStatsByDay", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		v := viewReader(t, s)
		viewSession(t, s, appE, "u-1", "s-1", T0)
		viewSession(t, s, appE, "u-1", "s-2", T0)
		viewSession(t, s, appC, "u-2", "s-3", T0)
		runs := []store.ExtractionRun{
			{SessionID: "s-1", UserID: "u-1", App: appE, PromptVersion: "v1", Source: "rules", Outcome: "ok", Final: true, CreatedAt: T0},
			{SessionID: "s-2", UserID: "u-1", App: appE, PromptVersion: "v1", Source: "rules", Outcome: "ok", Final: true, CreatedAt: T0.Add(time.Hour)},
			{SessionID: "s-3", UserID: "u-2", App: appC, PromptVersion: "v1", Source: "llm", Outcome: "transient_error",
				InputTokens: 100, OutputTokens: 0, CostUSD: 0.001, Attempt: 1, CreatedAt: T0.Add(-24 * time.Hour)},
			{SessionID: "s-3", UserID: "u-2", App: appC, PromptVersion: "v1", Source: "llm", Outcome: "ok", Final: true,
				InputTokens: 1200, OutputTokens: 300, CostUSD: 0.25, Attempt: 2, CreatedAt: T0.Add(-23 * time.Hour)},
			{SessionID: "s-1", UserID: "u-1", App: appE, PromptVersion: "v0", Source: "fallback", Outcome: "invalid_answer", Final: true,
				InputTokens: 50, OutputTokens: 20, CostUSD: 0.125, CreatedAt: T0.Add(-40 * 24 * time.Hour)}, // outside
		}
		for _, r := range runs {
			must(t, s.InsertExtractionRun(ctx, r))
		}
		got, err := v.ViewExtractionStats(ctx, T0.Add(-7*24*time.Hour), T0.Add(24*time.Hour))
		must(t, err)
		day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
		want := []store.ExtractionStat{
			{Day: day(19), App: appC, Source: "llm", Outcome: "ok", Final: true, Runs: 1, InputTokens: 1200, OutputTokens: 300, CostUSD: 0.25},
			{Day: day(19), App: appC, Source: "llm", Outcome: "transient_error", Final: false, Runs: 1, InputTokens: 100, CostUSD: 0.001},
			{Day: day(20), App: appE, Source: "rules", Outcome: "ok", Final: true, Runs: 2},
		}
		if len(got) != len(want) {
			t.Fatalf("stats %+v; want %+v", got, want)
		}
		for i := range want {
			g, w := got[i], want[i]
			if math.Abs(g.CostUSD-w.CostUSD) > 1e-9 {
				t.Fatalf("stat %d cost %v; want %v", i, g.CostUSD, w.CostUSD)
			}
			g.CostUSD = w.CostUSD
			if !g.Day.Equal(w.Day) {
				t.Fatalf("stat %d day %v; want %v", i, g.Day, w.Day)
			}
			g.Day = w.Day
			if g != w {
				t.Fatalf("stat %d = %+v; want %+v", i, g, w)
			}
		}
		empty, err := v.ViewExtractionStats(ctx, T0.Add(365*24*time.Hour), T0.Add(366*24*time.Hour))
		must(t, err)
		if empty == nil || len(empty) != 0 {
			t.Fatalf("a window without runs: %v; want an empty list", empty)
		}
	}},
	{"ViewInsightsByWeek", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		v := viewReader(t, s)
		weeks, err := v.ViewInsightWeeks(ctx, 5)
		must(t, err)
		if weeks == nil || len(weeks) != 0 {
			t.Fatalf("no insights: weeks %v; want an empty list", weeks)
		}
		for i, w := range []string{"2026-11-08", "2026-11-22", "2026-11-15", "2026-11-01"} {
			for _, app := range []string{appC, "recovery"} {
				must(t, s.UpsertInsight(ctx, store.Insight{App: app, WeekEnding: w,
					Data: json.RawMessage(fmt.Sprintf(`{"app":%q,"n":%d}`, app, i)), UpdatedAt: T0}))
			}
		}
		weeks, err = v.ViewInsightWeeks(ctx, 3)
		must(t, err)
		if fmt.Sprint(weeks) != "[2026-11-22 2026-11-15 2026-11-08]" {
			t.Fatalf("weeks %v; want the three newest, newest first, once each", weeks)
		}
		ins, err := v.ViewInsights(ctx, "2026-11-15")
		must(t, err)
		if len(ins) != 2 || ins[0].App != appC || ins[1].App != "recovery" {
			t.Fatalf("insights of 2026-11-15: %+v; want %s then recovery", ins, appC)
		}
		var d struct {
			App string `json:"app"`
			N   int    `json:"n"`
		}
		must(t, json.Unmarshal(ins[1].Data, &d))
		if d.App != "recovery" || d.N != 2 || ins[1].WeekEnding != "2026-11-15" || !ins[1].UpdatedAt.Equal(T0) {
			t.Fatalf("insight %+v data %s", ins[1], ins[1].Data)
		}
		none, err := v.ViewInsights(ctx, "2026-10-04")
		must(t, err)
		if none == nil || len(none) != 0 {
			t.Fatalf("a week without insights: %v; want an empty list", none)
		}
	}},
}

func sameCounts(t *testing.T, what string, got, want []store.SessionCount) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %+v; want %+v", what, got, want)
	}
	for i := range want {
		if !got[i].Start.Equal(want[i].Start) || got[i].App != want[i].App || got[i].Count != want[i].Count {
			t.Fatalf("%s: row %d = %+v; want %+v (all: %+v)", what, i, got[i], want[i], got)
		}
	}
}
