package aggregate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
)

const chicago = "America/Chicago"

func f64(v float64) *float64 { return &v }
func intp(v int) *int        { return &v }

// dan is an Elder Tree user in Chicago with a week of sessions ending
// Sunday 2026-11-22, a relapse twelve days before its end, and a relapse
// the day after it (which a back-fill of the week must not see).
func dan(t testing.TB) aggregate.User {
	at := func(wall string) time.Time { return local(t, chicago, wall) }
	return aggregate.User{
		UserID:   "u-dan-0001",
		App:      "eldertree",
		Timezone: chicago,
		Profile: map[string]any{
			"preferred_name":      "Dan",
			"recovery_start_date": "2026-09-01",
			"current_step":        4.0,
			"step_1_completed":    true,
			"step_2_completed":    true,
			"step_3_completed":    true,
			"step_4_completed":    false,
		},
		Sessions: []aggregate.Session{
			session("s-relapse", at("2026-11-10 20:00"), 25, elderSummary(9.0, "payday", "", "relapsed")),
			// Monday evening: the summary names two strategies.
			session("s-mon", at("2026-11-16 21:00"), 30,
				elderSummary(7.0, "Loneliness", "called sponsor, walked outside", "urge_passed"),
				urge(at("2026-11-16 21:05"), 7, "loneliness", "called sponsor", "urge_passed")),
			// Wednesday late at night, a red zone event.
			session("s-wed", at("2026-11-18 23:30"), 20,
				elderSummary(8.0, "work stress", "prayer", "ongoing_struggle"),
				urge(at("2026-11-18 23:35"), 8, "work stress", "prayer", ""),
				ev("zone", at("2026-11-18 23:40"), map[string]any{"zone": "red"})),
			// Friday: extraction failed, no summary; the events speak.
			session("s-fri", at("2026-11-20 22:15"), 45, nil,
				urge(at("2026-11-20 22:20"), 9, "Loneliness", "Called Sponsor", "urge_passed"),
				urge(at("2026-11-20 22:40"), 4, "late-night phone", "nature walk", "urge_passed"),
				ev("zone", at("2026-11-20 22:50"), map[string]any{"zone": "Yellow"}),
				ev("zone", at("2026-11-20 22:55"), map[string]any{"zone": "green"})),
			// Saturday morning check-in without an urge.
			session("s-sat", at("2026-11-21 08:00"), 15, elderSummary(nil, "", "", "")),
			// Sunday 23:00–23:30 in Chicago is Monday 05:30 UTC: still this week.
			session("s-sun", at("2026-11-22 23:00"), 30, elderSummary(5.0, "loneliness", "called sponsor", "urge_passed")),
			session("s-next", at("2026-11-23 10:00"), 20, elderSummary(10.0, "payday", "", "relapsed")),
		},
	}
}

func TestWeeklyDan(t *testing.T) {
	t.Parallel()
	got, ok := aggregate.Weekly(dan(t), "2026-11-22")
	if !ok {
		t.Fatal("Weekly reported no activity")
	}
	want := aggregate.WeeklyAnalytics{
		WeekEnding:             "2026-11-22",
		TotalSessionsCompleted: 5,
		TotalMinutes:           140,
		TotalMiningMinutes:     140,
		AverageUrgeIntensity:   f64(7.3), // (7+8+9+5)/4 = 7.25
		UrgeSessions:           4,
		StreakLength:           12, // relapse on Tuesday 2026-11-10
		CommonTriggers: []aggregate.TriggerCount{
			{Trigger: "loneliness", Count: 3},
			{Trigger: "late_night_phone", Count: 1},
			{Trigger: "work_stress", Count: 1},
		},
		SuccessfulStrategies: []aggregate.StrategyStat{
			{Strategy: "called_sponsor", Uses: 3, Successes: 3, SuccessRate: 1},
			{Strategy: "nature_walk", Uses: 1, Successes: 1, SuccessRate: 1},
			{Strategy: "walked_outside", Uses: 1, Successes: 1, SuccessRate: 1},
			{Strategy: "prayer", Uses: 1, Successes: 0, SuccessRate: 0},
		},
		// The urges only: Saturday's check-in had none (issue 33).
		VulnerabilityTimes: []aggregate.TimeFrequency{
			{Time: "late_night", Frequency: 4}, // Wed 23:35, Fri 22:20 and 22:40, Sun 23:00 (start: an urge in words)
			{Time: "evening", Frequency: 1},    // Mon 21:05
		},
		VulnerabilityDays: []aggregate.DayFrequency{
			{Day: "friday", Frequency: 2},
			{Day: "monday", Frequency: 1},
			{Day: "wednesday", Frequency: 1},
			{Day: "sunday", Frequency: 1},
		},
		StepWorkProgress: aggregate.StepProgress{CurrentStep: intp(4), StepsCompleted: 3},
		ZoneViolations:   aggregate.ZoneViolations{Red: 1, Yellow: 1},
		Relapses:         0,
		Outcomes:         aggregate.OutcomeCounts{UrgePassed: 3, OngoingStruggle: 1},
		UrgeByWeekday: []aggregate.WeekdayIntensity{
			{Day: "monday", Sum: 7, Sessions: 1},
			{Day: "wednesday", Sum: 8, Sessions: 1},
			{Day: "friday", Sum: 9, Sessions: 1},
			{Day: "sunday", Sum: 5, Sessions: 1},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Weekly:\ngot  %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}
	checkGolden(t, "weekly_dan.json", got)
}

// TestWeeklyBoundaries places sessions around the edges of local weeks.
func TestWeeklyBoundaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		zone       string
		weekEnding string
		start, end string // wall clock in zone
		in         bool
	}{
		{"Sunday 23:30 in Chicago is Monday in UTC but this week", chicago, "2026-11-22", "2026-11-22 23:00", "2026-11-22 23:30", true},
		{"Sunday 23:50 the week before is Monday in UTC but last week", chicago, "2026-11-22", "2026-11-15 23:00", "2026-11-15 23:50", false},
		{"Monday 00:00 opens the week", chicago, "2026-11-22", "2026-11-15 23:40", "2026-11-16 00:00", true},
		{"Monday 00:00 after the week is the next week", chicago, "2026-11-22", "2026-11-22 23:40", "2026-11-23 00:00", false},
		{"Berlin Sunday 00:30 is Saturday in UTC, this week", "Europe/Berlin", "2026-11-22", "2026-11-22 00:10", "2026-11-22 00:30", true},
		{"Berlin Monday 00:30 is Sunday in UTC, next week", "Europe/Berlin", "2026-11-22", "2026-11-23 00:10", "2026-11-23 00:30", false},
		{"DST week: Sunday 23:30 CDT after spring forward", chicago, "2026-03-08", "2026-03-08 23:00", "2026-03-08 23:30", true},
		{"DST week: Monday 00:10 CST opens it", chicago, "2026-03-08", "2026-03-02 00:00", "2026-03-02 00:10", true},
		{"DST week: Sunday 23:50 CST before it", chicago, "2026-03-08", "2026-03-01 23:00", "2026-03-01 23:50", false},
		{"a week ending on a Wednesday", "UTC", "2026-11-18", "2026-11-12 09:00", "2026-11-12 09:30", true},
		{"a week ending on a Wednesday excludes the Wednesday before", "UTC", "2026-11-18", "2026-11-11 09:00", "2026-11-11 09:30", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start, end := local(t, tt.zone, tt.start), local(t, tt.zone, tt.end)
			u := aggregate.User{UserID: "u-1", Timezone: tt.zone, Sessions: []aggregate.Session{{
				SessionID: "s-1", StartedAt: start, EndedAt: end, Summary: elderSummary(5.0, "boredom", "", "urge_passed"),
			}}}
			w, ok := aggregate.Weekly(u, tt.weekEnding)
			if ok != tt.in {
				t.Fatalf("Weekly reported activity %v, want %v (end %s UTC)", ok, tt.in, end.UTC())
			}
			if ok && w.TotalSessionsCompleted != 1 {
				t.Errorf("total_sessions_completed = %d, want 1", w.TotalSessionsCompleted)
			}
		})
	}
}

func TestWeekBoundsDST(t *testing.T) {
	t.Parallel()
	tests := []struct {
		weekEnding string
		hours      float64
	}{
		{"2026-03-08", 167}, // spring forward on Sunday 2026-03-08
		{"2026-11-01", 169}, // fall back on Sunday 2026-11-01
		{"2026-11-22", 168},
	}
	for _, tt := range tests {
		start, end, err := aggregate.WeekBounds(tt.weekEnding, chicago)
		if err != nil {
			t.Fatal(err)
		}
		if h := end.Sub(start).Hours(); h != tt.hours {
			t.Errorf("week ending %s lasts %v h, want %v", tt.weekEnding, h, tt.hours)
		}
		if start.Hour() != 0 || start.Weekday() != time.Monday || end.Hour() != 0 || end.Weekday() != time.Monday {
			t.Errorf("week ending %s runs %s – %s, want local midnights Monday to Monday", tt.weekEnding, start, end)
		}
	}
	if _, _, err := aggregate.WeekBounds("2026-11-31", chicago); err == nil {
		t.Error("WeekBounds accepted 2026-11-31")
	}
}

// TestWeeklyDSTWeek: a session across the spring-forward gap lasts one real
// hour, and the urge at 01:45 CST and the one at 03:15 CDT land in the
// buckets of their local hours.
func TestWeeklyDSTWeek(t *testing.T) {
	t.Parallel()
	at := func(wall string) time.Time { return local(t, chicago, wall) }
	start := at("2026-03-08 01:30")                                                             // CST, 07:30 UTC
	s := session("s-dst", start, 60, elderSummary(6.0, "insomnia", "breathing", "urge_passed"), // ends 03:30 CDT
		urge(at("2026-03-08 01:45"), 6, "", "", ""),
		urge(at("2026-03-08 03:15"), 5, "", "", ""))
	u := aggregate.User{UserID: "u-1", Timezone: chicago, Sessions: []aggregate.Session{s}}
	w, ok := aggregate.Weekly(u, "2026-03-08")
	if !ok {
		t.Fatal("no activity")
	}
	if got := s.EndedAt.In(s.EndedAt.Location()).Format("15:04 MST"); got != "03:30 CDT" {
		t.Fatalf("test setup: session ends %s", got)
	}
	if w.TotalMinutes != 60 {
		t.Errorf("total_minutes = %d, want 60", w.TotalMinutes)
	}
	want := []aggregate.TimeFrequency{{Time: "late_night", Frequency: 1}, {Time: "night", Frequency: 1}}
	if !reflect.DeepEqual(w.VulnerabilityTimes, want) {
		t.Errorf("vulnerability_times = %+v, want %+v", w.VulnerabilityTimes, want)
	}
}

func TestWeeklyNoActivity(t *testing.T) {
	t.Parallel()
	u := dan(t)
	tests := []struct {
		name       string
		user       aggregate.User
		weekEnding string
	}{
		{"no sessions at all", aggregate.User{UserID: "u-1", Timezone: chicago}, "2026-11-22"},
		{"sessions only in other weeks", u, "2026-11-08"},
		{"sessions only after the week", aggregate.User{UserID: "u-1", Sessions: u.Sessions[len(u.Sessions)-1:]}, "2026-11-22"},
		{"not a date", u, "22/11/2026"},
		{"an impossible date", u, "2026-02-30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if w, ok := aggregate.Weekly(tt.user, tt.weekEnding); ok {
				t.Errorf("Weekly reported activity: %+v", w)
			}
		})
	}
}

func TestWeeklyStreak(t *testing.T) {
	t.Parallel()
	at := func(wall string) time.Time { return local(t, chicago, wall) }
	relapse := func(id, wall string) aggregate.Session {
		return session(id, at(wall), 20, elderSummary(9.0, "payday", "", "relapsed"))
	}
	passed := func(id, wall string) aggregate.Session {
		return session(id, at(wall), 20, elderSummary(4.0, "boredom", "", "urge_passed"))
	}
	tests := []struct {
		name     string
		profile  map[string]any
		sessions []aggregate.Session
		want     int
	}{
		{"no relapse, no start date: from the first session in the window", nil,
			[]aggregate.Session{passed("a", "2026-11-02 10:00"), passed("b", "2026-11-20 10:00")}, 20},
		{"no relapse: from recovery_start_date", map[string]any{"recovery_start_date": "2026-10-01"},
			[]aggregate.Session{passed("a", "2026-11-02 10:00"), passed("b", "2026-11-20 10:00")}, 52},
		{"recovery_start_date as a timestamp", map[string]any{"recovery_start_date": "2026-10-01T00:00:00Z"},
			[]aggregate.Session{passed("b", "2026-11-20 10:00")}, 52},
		{"a relapse on Thursday of the week", map[string]any{"recovery_start_date": "2026-10-01"},
			[]aggregate.Session{passed("a", "2026-11-16 10:00"), relapse("r", "2026-11-19 21:00"), passed("b", "2026-11-21 10:00")}, 3},
		{"a relapse on the Sunday the week ends", nil,
			[]aggregate.Session{passed("a", "2026-11-16 10:00"), relapse("r", "2026-11-22 21:00")}, 0},
		{"the latest of two relapses", nil,
			[]aggregate.Session{relapse("r1", "2026-10-01 21:00"), relapse("r2", "2026-11-12 21:00"), passed("a", "2026-11-20 10:00")}, 10},
		{"a relapse late Saturday local time is Sunday in UTC", nil,
			[]aggregate.Session{relapse("r", "2026-11-21 23:00"), passed("a", "2026-11-22 10:00")}, 1},
		{"a relapse after the week is not seen", nil,
			[]aggregate.Session{passed("a", "2026-11-02 10:00"), passed("b", "2026-11-20 10:00"), relapse("r", "2026-11-24 21:00")}, 20},
		{"a relapse from urge events alone", nil,
			[]aggregate.Session{passed("a", "2026-11-02 10:00"), session("r", at("2026-11-17 20:00"), 20, nil,
				urge(at("2026-11-17 20:05"), 9, "payday", "", "relapsed"),
				urge(at("2026-11-17 20:10"), 3, "payday", "", "urge_passed"))}, 5},
		{"a recovery start reset after the relapse wins", map[string]any{"recovery_start_date": "2026-11-15"},
			[]aggregate.Session{relapse("r", "2026-11-12 21:00"), passed("a", "2026-11-20 10:00")}, 7},
		{"a relapse after an old recovery start wins", map[string]any{"recovery_start_date": "2025-01-01"},
			[]aggregate.Session{relapse("r", "2026-11-12 21:00"), passed("a", "2026-11-20 10:00")}, 10},
		{"a recovery start after the week is never negative", map[string]any{"recovery_start_date": "2026-12-01"},
			[]aggregate.Session{passed("a", "2026-11-20 10:00")}, 0},
		{"a bad recovery start falls back to the first session", map[string]any{"recovery_start_date": "last spring"},
			[]aggregate.Session{passed("a", "2026-11-09 10:00"), passed("b", "2026-11-20 10:00")}, 13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := aggregate.User{UserID: "u-1", Timezone: chicago, Profile: tt.profile, Sessions: tt.sessions}
			w, ok := aggregate.Weekly(u, "2026-11-22")
			if !ok {
				t.Fatal("no activity")
			}
			if w.StreakLength != tt.want {
				t.Errorf("streak_length = %d, want %d", w.StreakLength, tt.want)
			}
		})
	}
}

func TestWeeklyStrategies(t *testing.T) {
	t.Parallel()
	base := local(t, "UTC", "2026-11-17 12:00")
	n := 0
	s := func(summary map[string]any, events ...aggregate.Event) aggregate.Session {
		n++
		return session(fmt.Sprint("s-", n), base.Add(time.Duration(n)*time.Hour), 10, summary, events...)
	}
	tests := []struct {
		name     string
		sessions []aggregate.Session
		want     []aggregate.StrategyStat
	}{
		{
			"two of three: 0.67, ordered by rate, then uses, then name",
			[]aggregate.Session{
				s(elderSummary(5.0, "x", "called sponsor", "urge_passed")),
				s(elderSummary(5.0, "x", "called sponsor; nature walk", "urge_passed")),
				s(elderSummary(5.0, "x", "Called-Sponsor", "relapsed")),
				s(elderSummary(5.0, "x", "prayer", "ongoing_struggle")),
				s(elderSummary(5.0, "x", "journaling", "ongoing_struggle")),
				s(elderSummary(5.0, "x", "journaling", "urge_passed")),
			},
			[]aggregate.StrategyStat{
				{Strategy: "nature_walk", Uses: 1, Successes: 1, SuccessRate: 1},
				{Strategy: "called_sponsor", Uses: 3, Successes: 2, SuccessRate: 0.67},
				{Strategy: "journaling", Uses: 2, Successes: 1, SuccessRate: 0.5},
				{Strategy: "prayer", Uses: 1, Successes: 0, SuccessRate: 0},
			},
		},
		{
			"a session without an outcome is a use without success",
			[]aggregate.Session{
				s(elderSummary(5.0, "x", "breathing", "")),
				s(elderSummary(5.0, "x", "breathing", "urge_passed")),
				s(elderSummary(5.0, "x", "breathing", "unknown")),
			},
			[]aggregate.StrategyStat{{Strategy: "breathing", Uses: 3, Successes: 1, SuccessRate: 0.33}},
		},
		{
			"events fill in for a summary without strategies, with the session's outcome",
			[]aggregate.Session{
				s(elderSummary(5.0, "x", "", "urge_passed"),
					urge(base, 5, "", "cold shower", "ongoing_struggle"),
					urge(base, 3, "", "cold shower", "urge_passed")),
				s(nil, urge(base, 5, "", "cold shower", "relapsed"), urge(base, 3, "", "run", "urge_passed")),
			},
			[]aggregate.StrategyStat{
				{Strategy: "cold_shower", Uses: 2, Successes: 1, SuccessRate: 0.5},
				{Strategy: "run", Uses: 1, Successes: 0, SuccessRate: 0},
			},
		},
		{
			"a list from an LLM summary",
			[]aggregate.Session{s(map[string]any{"resistance_strategy_used": []any{"Called sponsor", "walked outside", 3.0}, "outcome": "urge_passed"})},
			[]aggregate.StrategyStat{
				{Strategy: "called_sponsor", Uses: 1, Successes: 1, SuccessRate: 1},
				{Strategy: "walked_outside", Uses: 1, Successes: 1, SuccessRate: 1},
			},
		},
		{"no strategies: an empty list", []aggregate.Session{s(nil)}, []aggregate.StrategyStat{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, ok := aggregate.Weekly(aggregate.User{UserID: "u-1", Sessions: tt.sessions}, "2026-11-22")
			if !ok {
				t.Fatal("no activity")
			}
			if !reflect.DeepEqual(w.SuccessfulStrategies, tt.want) {
				t.Errorf("successful_strategies:\ngot  %+v\nwant %+v", w.SuccessfulStrategies, tt.want)
			}
		})
	}
}

func TestWeeklyTriggersAndIntensity(t *testing.T) {
	t.Parallel()
	base := local(t, "UTC", "2026-11-17 12:00")
	var sessions []aggregate.Session
	for i, trig := range []string{"loneliness", "Loneliness ", "work stress", "boredom", "payday", "payday", "anger", "HALT: hungry", "zzz"} {
		sessions = append(sessions, session(fmt.Sprint("s-", i), base.Add(time.Duration(i)*time.Hour), 10,
			elderSummary(float64(i%3), trig, "", "urge_passed")))
	}
	// A summary without a trigger falls back to its urge events; the
	// strongest urge gives the intensity when the summary has none.
	sessions = append(sessions, session("s-ev", base.Add(20*time.Hour), 10, map[string]any{"primary_trigger": ""},
		urge(base, 3, "anger", "", ""), urge(base, 10.5, "Anger", "", ""), urge(base, 6, "boredom", "", "")))
	w, ok := aggregate.Weekly(aggregate.User{UserID: "u-1", Sessions: sessions}, "2026-11-22")
	if !ok {
		t.Fatal("no activity")
	}
	// Four triggers tie at two sessions: by name; then the first of the ones.
	want := []aggregate.TriggerCount{
		{Trigger: "anger", Count: 2}, {Trigger: "boredom", Count: 2}, {Trigger: "loneliness", Count: 2},
		{Trigger: "payday", Count: 2}, {Trigger: "halt_hungry", Count: 1},
	}
	if !reflect.DeepEqual(w.CommonTriggers, want) {
		t.Errorf("common_triggers:\ngot  %+v\nwant %+v", w.CommonTriggers, want)
	}
	// Intensities 0,1,2,0,1,2,0,1,2 and 10 (clamped from 10.5): 19/10.
	if w.AverageUrgeIntensity == nil || *w.AverageUrgeIntensity != 1.9 || w.UrgeSessions != 10 {
		t.Errorf("average_urge_intensity = %v over %d sessions, want 1.9 over 10", w.AverageUrgeIntensity, w.UrgeSessions)
	}

	// No intensity anywhere: null, not zero.
	w, _ = aggregate.Weekly(aggregate.User{UserID: "u-1", Sessions: []aggregate.Session{session("s", base, 10, nil)}}, "2026-11-22")
	b := mustJSON(t, w)
	if !bytes.Contains(b, []byte(`"average_urge_intensity": null`)) {
		t.Errorf("no urge data should give null:\n%s", b)
	}
	for _, key := range []string{"common_triggers", "successful_strategies", "urge_by_weekday"} {
		if !bytes.Contains(b, []byte(`"`+key+`": []`)) {
			t.Errorf("%s should be [] when empty:\n%s", key, b)
		}
	}
	if !bytes.Contains(b, []byte(`"current_step": null`)) || !bytes.Contains(b, []byte(`"zone_violations": {
    "red": 0,
    "yellow": 0
  }`)) {
		t.Errorf("no profile and no zone events should give null step and zero zones:\n%s", b)
	}
}

// TestWeeklyIdempotent: the upsert of a re-run relies on identical JSON, so
// Weekly over the same user must give the same bytes every time, whatever
// the order Go iterates maps in.
func TestWeeklyIdempotent(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		u := randomElderUser(r, i)
		first, ok1 := aggregate.Weekly(u, "2026-11-22")
		want := mustJSON(t, first)
		for range 5 {
			again, ok2 := aggregate.Weekly(u, "2026-11-22")
			if ok1 != ok2 || !bytes.Equal(mustJSON(t, again), want) {
				t.Fatalf("user %d: Weekly differs between runs:\n%s\n%s", i, want, mustJSON(t, again))
			}
		}
		// A row read back from the store is the same row.
		var back aggregate.WeeklyAnalytics
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if ok1 && !bytes.Equal(mustJSON(t, back), want) {
			t.Fatalf("user %d: JSON does not round-trip:\n%s\n%s", i, want, mustJSON(t, back))
		}
	}
}

var (
	randTriggers   = []string{"loneliness", "work stress", "Work-Stress", "payday", "boredom", "late night phone", "anger", "tired", "", "conflict with partner"}
	randStrategies = []string{"called sponsor", "nature walk", "prayer, meditation", "cold shower", "", "journaling", "meeting"}
	randOutcomes   = []string{"urge_passed", "relapsed", "ongoing_struggle", "", "urge_passed", "urge_passed"}
	randZones      = []string{"America/Chicago", "Europe/Berlin", "Asia/Kolkata", "UTC", "", "Australia/Lord_Howe"}
)

// randomElderUser is a user with up to 14 sessions over four weeks before
// 2026-11-23, mixing summaries and events.
func randomElderUser(r *rand.Rand, i int) aggregate.User {
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	base := time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)
	u := aggregate.User{
		UserID:   fmt.Sprintf("u-%04d", i),
		App:      "eldertree",
		Timezone: pick(randZones),
		Profile:  map[string]any{"current_step": float64(r.IntN(13)), "step_1_completed": r.IntN(2) == 0},
	}
	n := r.IntN(15)
	starts := make([]time.Time, n)
	for j := range starts {
		starts[j] = base.Add(time.Duration(r.IntN(28*24*60)) * time.Minute)
	}
	for j := range n {
		var summary map[string]any
		if r.IntN(3) > 0 {
			summary = elderSummary(float64(r.IntN(11)), pick(randTriggers), pick(randStrategies), pick(randOutcomes))
		}
		var events []aggregate.Event
		for k := range r.IntN(4) {
			events = append(events, urge(starts[j].Add(time.Duration(k)*time.Minute), float64(r.IntN(11)), pick(randTriggers), pick(randStrategies), pick(randOutcomes)))
		}
		if r.IntN(4) == 0 {
			events = append(events, ev("zone", starts[j], map[string]any{"zone": pick([]string{"red", "yellow", "green"})}))
		}
		u.Sessions = append(u.Sessions, session(fmt.Sprint("s-", j), starts[j], r.IntN(90), summary, events...))
	}
	return u
}

func BenchmarkWeekly(b *testing.B) {
	u := dan(b)
	// Ten sessions in the week, each with two urge events and a zone event.
	u.Sessions = u.Sessions[:1]
	for i := range 10 {
		start := local(b, chicago, "2026-11-16 07:00").Add(time.Duration(i) * 15 * time.Hour)
		u.Sessions = append(u.Sessions, session(fmt.Sprint("s-", i), start, 30,
			elderSummary(float64(i%10), randTriggers[i%4], randStrategies[i%4], randOutcomes[i%3]),
			urge(start.Add(5*time.Minute), 6, "loneliness", "called sponsor", "urge_passed"),
			urge(start.Add(15*time.Minute), 4, "work stress", "prayer", "ongoing_struggle"),
			ev("zone", start, map[string]any{"zone": "yellow"})))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := aggregate.Weekly(u, "2026-11-22"); !ok {
			b.Fatal("no activity")
		}
	}
}

// disagrees says how a week's analytics contradict themselves, or "": a
// vulnerability time or day without an urge session (urge_sessions 0 beside
// a late-night urge, issue 33), times and days that count different urges,
// more sessions with an intensity than with an urge, a mean without them.
func disagrees(w aggregate.WeeklyAnalytics) string {
	times, days, withIntensity := 0, 0, 0
	for _, t := range w.VulnerabilityTimes {
		times += t.Frequency
	}
	for _, d := range w.VulnerabilityDays {
		days += d.Frequency
	}
	for _, d := range w.UrgeByWeekday {
		withIntensity += d.Sessions
	}
	switch {
	case w.UrgeSessions == 0 && (times > 0 || days > 0):
		return fmt.Sprintf("urge_sessions 0 beside vulnerability times %+v and days %+v", w.VulnerabilityTimes, w.VulnerabilityDays)
	case times != days:
		return fmt.Sprintf("vulnerability times count %d urges, days %d", times, days)
	case times < w.UrgeSessions:
		return fmt.Sprintf("%d urge sessions but %d urge times", w.UrgeSessions, times)
	case withIntensity > w.UrgeSessions:
		return fmt.Sprintf("%d sessions with an intensity, %d with an urge", withIntensity, w.UrgeSessions)
	case (withIntensity > 0) != (w.AverageUrgeIntensity != nil):
		return fmt.Sprintf("average intensity %v over %d sessions", w.AverageUrgeIntensity, withIntensity)
	case w.UrgeSessions > w.TotalSessionsCompleted:
		return fmt.Sprintf("%d urge sessions of %d", w.UrgeSessions, w.TotalSessionsCompleted)
	}
	return ""
}

// TestWeeklyAgreesWithItself (issue 33): a late-night check-in without an
// urge is no late-night urge, and an urge told in words without a strength
// is an urge session: urge_sessions and the vulnerability times and days
// count the same urges, and the mean intensity is over the sessions that
// said one.
func TestWeeklyAgreesWithItself(t *testing.T) {
	t.Parallel()
	at := func(wall string) time.Time { return local(t, chicago, wall) }
	week := func(sessions ...aggregate.Session) aggregate.WeeklyAnalytics {
		t.Helper()
		w, ok := aggregate.Weekly(aggregate.User{UserID: "u-1", Timezone: chicago, Sessions: sessions}, "2026-11-22")
		if !ok {
			t.Fatal("no activity")
		}
		if msg := disagrees(w); msg != "" {
			t.Errorf("the week contradicts itself: %s", msg)
		}
		return w
	}
	// Only a check-in at 23:40 with nothing about an urge.
	w := week(session("s-checkin", at("2026-11-18 23:40"), 15, elderSummary(nil, "", "", "")))
	if w.UrgeSessions != 0 || len(w.VulnerabilityTimes) != 0 || len(w.VulnerabilityDays) != 0 {
		t.Errorf("a check-in without an urge: urge_sessions %d, times %+v, days %+v; want none", w.UrgeSessions, w.VulnerabilityTimes, w.VulnerabilityDays)
	}
	// An urge at 23:40 told without a strength, still there at the end, and
	// one of strength 6 on Saturday afternoon.
	w = week(session("s-urge", at("2026-11-18 23:40"), 20, elderSummary(nil, "", "", "ongoing_struggle")),
		session("s-sat", at("2026-11-21 15:00"), 20, elderSummary(6.0, "boredom", "", "urge_passed")))
	want := []aggregate.TimeFrequency{{Time: "afternoon", Frequency: 1}, {Time: "late_night", Frequency: 1}}
	if w.UrgeSessions != 2 || !reflect.DeepEqual(w.VulnerabilityTimes, want) || w.AverageUrgeIntensity == nil || *w.AverageUrgeIntensity != 6 {
		t.Errorf("urge_sessions %d, times %+v, mean %v; want 2 urge sessions, %+v, mean 6 over the one with a strength",
			w.UrgeSessions, w.VulnerabilityTimes, w.AverageUrgeIntensity, want)
	}
}
