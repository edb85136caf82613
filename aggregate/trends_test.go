package aggregate_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
)

const berlin = "Europe/Berlin"

// trendsNow is Friday 2026-11-20, 22:00 in Berlin.
var trendsNow = time.Date(2026, 11, 20, 21, 0, 0, 0, time.UTC)

// peggy is a Clara user in Berlin (UTC+1 in November) with six sessions in
// the four weeks before trendsNow and one that ends after it. Events sit on
// the edges of the morning and evening windows, where local and UTC hours
// disagree.
func peggy(t testing.TB) aggregate.User {
	at := func(wall string) time.Time { return local(t, berlin, wall) }
	var locationQuestions []aggregate.Event
	for i := range 5 {
		locationQuestions = append(locationQuestions, question(at("2026-11-05 19:00").Add(time.Duration(i)*time.Minute), "location", float64(i)))
	}
	return aggregate.User{
		UserID:   "u-peggy-0001",
		App:      "clara",
		Timezone: berlin,
		Sessions: []aggregate.Session{
			session("s1", at("2026-10-28 10:00"), 30, nil,
				emotion(at("2026-10-28 10:05"), 0.4),
				emotion(at("2026-10-28 10:20"), 0.6)),
			session("s2", at("2026-11-05 19:00"), 40, nil, append(locationQuestions,
				emotion(at("2026-11-05 19:05"), 0.8),
				narrative(at("2026-11-05 19:10"), "calming_story"),
				emotion(at("2026-11-05 19:15"), 0.5), // -0.3 after calming_story
				narrative(at("2026-11-05 19:20"), "grounding"),
				emotion(at("2026-11-05 19:25"), 0.6),               // +0.1 after grounding
				narrative(at("2026-11-05 19:30"), "calming_story"), // nothing after it
			)...),
			session("s3", at("2026-11-12 05:50"), 30, nil,
				emotion(at("2026-11-12 05:59"), 0.9), // 04:59 UTC: no window
				emotion(at("2026-11-12 06:00"), 0.7), // 05:00 UTC, but 06:00 local: morning
				narrative(at("2026-11-12 06:05"), "Calming Story"),
				emotion(at("2026-11-12 06:10"), 0.6)), // -0.1 after calming_story
			session("s4", at("2026-11-19 11:30"), 40, nil,
				question(at("2026-11-19 11:40"), "time", 6),
				emotion(at("2026-11-19 11:59"), 0.2),  // morning
				emotion(at("2026-11-19 12:00"), 0.3)), // 11:00 UTC, but noon local: no window
			session("s5", at("2026-11-19 22:30"), 40, nil,
				question(at("2026-11-19 22:35"), "identity", 1),
				question(at("2026-11-19 22:36"), "Identity", 2),
				emotion(at("2026-11-19 22:59"), 0.5),  // evening
				emotion(at("2026-11-19 23:00"), 0.9)), // no window
			// Events lost, summary kept: its average_distress counts.
			session("s6", at("2026-11-20 09:00"), 20, map[string]any{"average_distress": 0.4, "dominant_emotion": "calm"}),
			// Ends 23:20 local, after now.
			session("s7", at("2026-11-20 23:00"), 20, nil, emotion(at("2026-11-20 23:05"), 1)),
		},
	}
}

func TestTrendsPeggy(t *testing.T) {
	t.Parallel()
	got := aggregate.Trends(peggy(t), trendsNow)
	want := aggregate.DistressTrends{
		// Session means 0.5, 0.633, 0.733, 0.25, 0.7, 0.4.
		BaselineDistress: f64(0.536),
		MorningAverage:   f64(0.5), // 0.4, 0.6, 0.7, 0.6, 0.2 (in UTC it would be 0.375)
		EveningAverage:   f64(0.6), // 0.8, 0.5, 0.6, 0.5
		WeeklyAverages: []aggregate.WeekDistress{
			{WeekEnding: "2026-10-30", Average: f64(0.5), Sessions: 1},
			{WeekEnding: "2026-11-06", Average: f64(0.633), Sessions: 1},
			{WeekEnding: "2026-11-13", Average: f64(0.733), Sessions: 1},
			{WeekEnding: "2026-11-20", Average: f64(0.45), Sessions: 3},
		},
		TopQuestionTypes: []aggregate.QuestionTypeCount{
			{QuestionType: "location", Count: 5},
			{QuestionType: "identity", Count: 2},
			{QuestionType: "time", Count: 1},
		},
		ChronicRepetitionSessions: 2, // s2 (five location questions), s4 (repeat_count 6)
		ChronicRepetitionPattern:  true,
		NarrativeEffectiveness: []aggregate.NarrativeEffect{
			{Category: "calming_story", Uses: 2, MeanDistressChange: -0.2},
			{Category: "grounding", Uses: 1, MeanDistressChange: 0.1},
		},
		SessionsConsidered: 6,
		ComputedAt:         "2026-11-20T21:00:00Z",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Trends:\ngot  %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}
	checkGolden(t, "trends_peggy.json", got)

	if again := aggregate.Trends(peggy(t), trendsNow); !bytes.Equal(mustJSON(t, again), mustJSON(t, got)) {
		t.Error("Trends differs between runs")
	}
}

func TestTrendsEmpty(t *testing.T) {
	t.Parallel()
	got := aggregate.Trends(aggregate.User{UserID: "u-1", Timezone: berlin}, trendsNow)
	b := string(mustJSON(t, got))
	want := `{
  "baseline_distress": null,
  "morning_average": null,
  "evening_average": null,
  "weekly_averages": [
    {
      "week_ending": "2026-10-30",
      "average": null,
      "sessions": 0
    },
    {
      "week_ending": "2026-11-06",
      "average": null,
      "sessions": 0
    },
    {
      "week_ending": "2026-11-13",
      "average": null,
      "sessions": 0
    },
    {
      "week_ending": "2026-11-20",
      "average": null,
      "sessions": 0
    }
  ],
  "top_question_types": [],
  "chronic_repetition_sessions": 0,
  "chronic_repetition_pattern": false,
  "narrative_effectiveness": [],
  "sessions_considered": 0,
  "computed_at": "2026-11-20T21:00:00Z"
}
`
	if b != want {
		t.Errorf("Trends of a user without sessions:\n%s", b)
	}
}

// TestTrendsWindow: only the last 30 sessions that ended by now count.
func TestTrendsWindow(t *testing.T) {
	t.Parallel()
	var sessions []aggregate.Session
	start := trendsNow.Add(-40 * 24 * time.Hour)
	for i := range 35 {
		at := start.Add(time.Duration(i) * 24 * time.Hour)
		sessions = append(sessions, session(fmt.Sprint("s-", i), at, 30, nil, emotion(at, float64(i)/100)))
	}
	// A session still running at now is not one of them.
	sessions = append(sessions, session("s-late", trendsNow.Add(-10*time.Minute), 30, nil, emotion(trendsNow, 1)))
	got := aggregate.Trends(aggregate.User{UserID: "u-1", Sessions: sessions}, trendsNow)
	if got.SessionsConsidered != 30 {
		t.Errorf("sessions_considered = %d, want 30", got.SessionsConsidered)
	}
	// Sessions 5..34: distress 0.05..0.34, mean 0.195.
	if got.BaselineDistress == nil || *got.BaselineDistress != 0.195 {
		t.Errorf("baseline_distress = %v, want 0.195", got.BaselineDistress)
	}
	var inWeeks int
	for _, w := range got.WeeklyAverages {
		inWeeks += w.Sessions
	}
	// Of the 30, those that ended on or after 2026-10-24, the first of the
	// last 28 days: sessions 13 … 34.
	if inWeeks != 22 {
		t.Errorf("sessions in weekly_averages = %d, want 22", inWeeks)
	}
}

func TestTrendsChronic(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	repeated := func(at time.Time, qtype string, n int, repeat float64) []aggregate.Event {
		var out []aggregate.Event
		for i := range n {
			out = append(out, question(at.Add(time.Duration(i)*time.Second), qtype, repeat))
		}
		return out
	}
	tests := []struct {
		name     string
		chronic  map[int][]aggregate.Event // session index → its events; 10 sessions
		sessions int
		pattern  bool
	}{
		{"none", nil, 0, false},
		{"repeat_count 5 is chronic, 4 is not", map[int][]aggregate.Event{
			8: repeated(base, "location", 1, 5), 9: repeated(base, "location", 1, 4)}, 1, false},
		{"five of one type is chronic, four and four is not", map[int][]aggregate.Event{
			7: repeated(base, "time", 5, 0), 8: append(repeated(base, "time", 4, 0), repeated(base, "activity", 4, 0)...)}, 1, false},
		{"unknown types count as general", map[int][]aggregate.Event{
			9: append(repeated(base, "weather", 3, 0), repeated(base, "", 2, 0)...)}, 1, false},
		{"two in the last seven: a pattern", map[int][]aggregate.Event{
			3: repeated(base, "location", 1, 7), 9: repeated(base, "identity", 6, 0)}, 2, true},
		{"two, but one older than the last seven: no pattern", map[int][]aggregate.Event{
			2: repeated(base, "location", 1, 7), 9: repeated(base, "identity", 6, 0)}, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var sessions []aggregate.Session
			for i := range 10 {
				at := base.Add(time.Duration(i) * 24 * time.Hour)
				sessions = append(sessions, session(fmt.Sprint("s-", i), at, 30, nil, tt.chronic[i]...))
			}
			got := aggregate.Trends(aggregate.User{UserID: "u-1", Sessions: sessions}, base.Add(30*24*time.Hour))
			if got.ChronicRepetitionSessions != tt.sessions || got.ChronicRepetitionPattern != tt.pattern {
				t.Errorf("chronic sessions %d, pattern %v; want %d, %v",
					got.ChronicRepetitionSessions, got.ChronicRepetitionPattern, tt.sessions, tt.pattern)
			}
		})
	}
}

func TestTrendsNarrativeEffectiveness(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	m := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	noTime := func(e aggregate.Event) aggregate.Event { e.At = time.Time{}; return e }
	tests := []struct {
		name     string
		sessions [][]aggregate.Event
		want     []aggregate.NarrativeEffect
	}{
		{"next minus last", [][]aggregate.Event{{emotion(m(0), 0.8), narrative(m(1), "music"), emotion(m(2), 0.55)}},
			[]aggregate.NarrativeEffect{{Category: "music", Uses: 1, MeanDistressChange: -0.25}}},
		{"no score before: skipped", [][]aggregate.Event{{narrative(m(0), "music"), emotion(m(1), 0.5)}},
			[]aggregate.NarrativeEffect{}},
		{"no score after in the same session: skipped", [][]aggregate.Event{
			{emotion(m(0), 0.8), narrative(m(1), "music")},
			{emotion(m(60), 0.1)},
		}, []aggregate.NarrativeEffect{}},
		{"an emotion at the same instant is before, whatever the order sent", [][]aggregate.Event{
			{emotion(m(0), 0.9), narrative(m(1), "grounding"), emotion(m(1), 0.6), emotion(m(2), 0.3)},
		}, []aggregate.NarrativeEffect{{Category: "grounding", Uses: 1, MeanDistressChange: -0.3}}},
		{"emotions without a distress score are passed over", [][]aggregate.Event{
			{emotion(m(0), 0.4), narrative(m(1), "humor"), ev("emotion", m(2), map[string]any{"emotion": "calm"}), emotion(m(3), 0.7)},
		}, []aggregate.NarrativeEffect{{Category: "humor", Uses: 1, MeanDistressChange: 0.3}}},
		{"two narratives before one emotion both get it", [][]aggregate.Event{
			{emotion(m(0), 0.5), narrative(m(1), "music"), narrative(m(2), "humor"), emotion(m(3), 0.2)},
		}, []aggregate.NarrativeEffect{
			{Category: "humor", Uses: 1, MeanDistressChange: -0.3},
			{Category: "music", Uses: 1, MeanDistressChange: -0.3},
		}},
		{"events without times keep the order sent", [][]aggregate.Event{
			{emotion(m(0), 0.5), noTime(narrative(m(9), "music")), noTime(emotion(m(9), 0.4)), emotion(m(1), 0.9)},
		}, []aggregate.NarrativeEffect{{Category: "music", Uses: 1, MeanDistressChange: -0.1}}},
		{"mean per category, three decimals, calming first", [][]aggregate.Event{
			{emotion(m(0), 0.5), narrative(m(1), "family_memory"), emotion(m(2), 0.4)},
			{emotion(m(10), 0.5), narrative(m(11), "Family memory"), emotion(m(12), 0.45)},
			{emotion(m(20), 0.5), narrative(m(21), "family-memory"), emotion(m(22), 0.5)},
			{emotion(m(30), 0.2), narrative(m(31), "A very long category made of many words"), emotion(m(32), 0.6)},
			{emotion(m(40), 0.3), narrative(m(41), ""), emotion(m(42), 0.3)},
		}, []aggregate.NarrativeEffect{
			{Category: "family_memory", Uses: 3, MeanDistressChange: -0.05},
			{Category: "uncategorized", Uses: 2, MeanDistressChange: 0.2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var sessions []aggregate.Session
			for i, events := range tt.sessions {
				sessions = append(sessions, session(fmt.Sprint("s-", i), t0.Add(time.Duration(i)*time.Hour-time.Minute), 55, nil, events...))
			}
			got := aggregate.Trends(aggregate.User{UserID: "u-1", Sessions: sessions}, t0.Add(24*time.Hour))
			if !reflect.DeepEqual(got.NarrativeEffectiveness, tt.want) {
				t.Errorf("narrative_effectiveness:\ngot  %+v\nwant %+v", got.NarrativeEffectiveness, tt.want)
			}
		})
	}
}

func BenchmarkTrends(b *testing.B) {
	var sessions []aggregate.Session
	start := trendsNow.Add(-30 * 24 * time.Hour)
	for i := range 30 {
		at := start.Add(time.Duration(i) * 24 * time.Hour)
		var events []aggregate.Event
		for j := range 20 {
			e := at.Add(time.Duration(j) * time.Minute)
			events = append(events, emotion(e, float64(j%10)/10), question(e, "location", float64(j%6)))
			if j%5 == 0 {
				events = append(events, narrative(e, "calming_story"))
			}
		}
		sessions = append(sessions, session(fmt.Sprint("s-", i), at, 30, nil, events...))
	}
	u := aggregate.User{UserID: "u-1", Timezone: berlin, Sessions: sessions}
	b.ReportAllocs()
	for b.Loop() {
		aggregate.Trends(u, trendsNow)
	}
}
