package aggregate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
)

const insightsWeek = "2026-11-22"

// freeText is what one user typed as a trigger; insights must never show it.
const freeText = "my ex called me at 3am and I freaked out"

// cohortUser is an Elder Tree user with two sessions in the week: Monday
// evening (intensity 4, work stress, called sponsor, passed) and Friday late
// at night (intensity 8, loneliness, nature walk, relapsed for even i).
// Users 0 and 1 also name payday and cold showers; user 2 typed free text.
func cohortUser(t testing.TB, i int) aggregate.User {
	at := func(wall string) time.Time { return local(t, chicago, wall) }
	monTrigger, monStrategy := "work stress", "called sponsor"
	if i < 2 {
		monTrigger, monStrategy = "work stress, payday", "called sponsor, cold shower"
	}
	friTrigger := "loneliness"
	if i == 2 {
		friTrigger = "loneliness, " + freeText
	}
	friOutcome := "urge_passed"
	if i%2 == 0 {
		friOutcome = "relapsed"
	}
	return aggregate.User{
		UserID:   fmt.Sprintf("user-%03d-secret", i),
		App:      "eldertree",
		Timezone: chicago,
		Sessions: []aggregate.Session{
			session("mon", at("2026-11-16 18:00"), 30, elderSummary(4.0, monTrigger, monStrategy, "urge_passed"),
				urge(at("2026-11-16 18:05"), 4, "", "", "")),
			session("fri", at("2026-11-20 23:00"), 30, elderSummary(8.0, friTrigger, "nature walk", friOutcome),
				urge(at("2026-11-20 23:05"), 8, "", "", "")),
		},
	}
}

func cohort(t testing.TB, n int) []aggregate.User {
	users := make([]aggregate.User, n)
	for i := range users {
		users[i] = cohortUser(t, i)
	}
	return users
}

func insightsOf(t testing.TB, users []aggregate.User, k int) aggregate.Insights {
	t.Helper()
	acc := aggregate.NewInsights("eldertree", insightsWeek)
	for _, u := range users {
		w, ok := aggregate.Weekly(u, insightsWeek)
		if !ok {
			t.Fatalf("user %s had no activity", u.UserID)
		}
		acc.Add(u.UserID, w)
	}
	return acc.Result(k)
}

func TestInsightsCohort(t *testing.T) {
	t.Parallel()
	got := insightsOf(t, cohort(t, 5), 5)
	want := aggregate.Insights{
		WeekEnding:       insightsWeek,
		App:              "eldertree",
		TotalActiveUsers: 5,
		MinGroupSize:     5,
		AggregateMetrics: &aggregate.AggregateMetrics{
			TotalSessions:        10,
			AverageUrgeIntensity: f64(6),
			OverallSuccessRate:   f64(0.7), // 5 Mondays and 2 Fridays of 10 sessions
			// payday (2 users) and the free text (1 user) are left out.
			MostCommonTriggers: []aggregate.TriggerCount{{Trigger: "loneliness", Count: 5}, {Trigger: "work_stress", Count: 5}},
			// cold_shower (2 users) is left out.
			MostEffectiveStrategies: []aggregate.StrategyRate{
				{Strategy: "called_sponsor", SuccessRate: 1, Uses: 5},
				{Strategy: "nature_walk", SuccessRate: 0.4, Uses: 5},
			},
		},
		NotablePatterns: []string{
			"Fridays show 33% higher urge intensity than the weekday average",
			"50% of urges came in the evening (17:00–22:00)",
			"50% of urges came late at night (22:00–02:00)",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Insights:\ngot  %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}
	checkGolden(t, "insights_eldertree.json", got)
}

func TestInsightsSuppression(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		users, k   int
		suppressed bool
		wantK      int
	}{
		{"k-1 users: suppressed", 4, 5, true, 5},
		{"k users: shown", 5, 5, false, 5},
		{"k below 1 is the default 5", 4, 0, true, 5},
		{"k of 3", 3, 3, false, 3},
		{"no users", 0, 5, true, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := insightsOf(t, cohort(t, tt.users), tt.k)
			if got.Suppressed != tt.suppressed {
				t.Fatalf("suppressed = %v, want %v", got.Suppressed, tt.suppressed)
			}
			b := string(mustJSON(t, got))
			if tt.suppressed {
				want := fmt.Sprintf(`{
  "week_ending": "2026-11-22",
  "app": "eldertree",
  "total_active_users": 0,
  "min_group_size": %d,
  "suppressed": true,
  "aggregate_metrics": null,
  "notable_patterns": []
}
`, tt.wantK)
				if b != want {
					t.Errorf("suppressed insights should say nothing:\n%s", b)
				}
				return
			}
			if got.TotalActiveUsers != tt.users || got.MinGroupSize != tt.wantK || got.AggregateMetrics == nil {
				t.Errorf("insights of %d users:\n%s", tt.users, b)
			}
		})
	}
}

// TestInsightsNothingIndividual: no user ID, no free text, no label fewer
// than k users reported, whatever the group size.
func TestInsightsNothingIndividual(t *testing.T) {
	t.Parallel()
	for n := range 12 {
		users := cohort(t, n)
		b := mustJSON(t, insightsOf(t, users, 5))
		for _, u := range users {
			if bytes.Contains(b, []byte(u.UserID)) {
				t.Errorf("%d users: insights hold user ID %s", n, u.UserID)
			}
		}
		for _, banned := range []string{"secret", "user-", "u-", "payday", "cold_shower", "freaked", "3am", "my_ex"} {
			if bytes.Contains(b, []byte(banned)) {
				t.Errorf("%d users: insights hold %q:\n%s", n, banned, b)
			}
		}
	}
}

// TestInsightsLabels: a label must look like a label, and k users must have
// reported it, before insights show it.
func TestInsightsLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		label string
		users int
		shown bool
	}{
		{"loneliness", 5, true},
		{"late_night_phone", 5, true},
		{"hungry_angry_lonely_tired", 5, true},
		{"loneliness", 4, false},
		{"after_a_long_argument_with_mom", 5, false}, // six words: a phrase
		{"Work Stress", 5, false},                    // not a normalised label
		{"work__stress", 5, false},
		{"einsamkeit_ärger", 5, false},
		{strings.Repeat("x", 41), 5, false},
		{"", 5, false},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			t.Parallel()
			acc := aggregate.NewInsights("eldertree", insightsWeek)
			for i := range 6 {
				w := aggregate.WeeklyAnalytics{WeekEnding: insightsWeek, TotalSessionsCompleted: 1}
				if i < tt.users {
					w.CommonTriggers = []aggregate.TriggerCount{{Trigger: tt.label, Count: 2}}
					w.SuccessfulStrategies = []aggregate.StrategyStat{{Strategy: tt.label, Uses: 2, Successes: 1, SuccessRate: 0.5}}
				}
				acc.Add(fmt.Sprint("u-", i), w)
			}
			m := acc.Result(5).AggregateMetrics
			shownT := len(m.MostCommonTriggers) == 1 && m.MostCommonTriggers[0] == aggregate.TriggerCount{Trigger: tt.label, Count: 2 * tt.users}
			shownS := len(m.MostEffectiveStrategies) == 1 && m.MostEffectiveStrategies[0] == aggregate.StrategyRate{Strategy: tt.label, SuccessRate: 0.5, Uses: 2 * tt.users}
			if shownT != tt.shown || shownS != tt.shown {
				t.Errorf("shown as trigger %v, as strategy %v; want %v: %+v", shownT, shownS, tt.shown, m)
			}
			if !tt.shown && (len(m.MostCommonTriggers) > 0 || len(m.MostEffectiveStrategies) > 0) {
				t.Errorf("something shown: %+v", m)
			}
		})
	}
}

// TestInsightsAddContract: one call per user of the week; a repeated call
// for the same user, a week without sessions or another week change nothing.
func TestInsightsAddContract(t *testing.T) {
	t.Parallel()
	users := cohort(t, 5)
	acc := aggregate.NewInsights("eldertree", insightsWeek)
	for i, u := range users[:4] {
		w, _ := aggregate.Weekly(u, insightsWeek)
		acc.Add(u.UserID, w)
		acc.Add(u.UserID, w) // the same row twice in a row
		if i == 3 {
			other, _ := aggregate.Weekly(users[4], "2026-11-29")
			acc.Add(users[4].UserID, other)
			acc.Add(users[4].UserID, aggregate.WeeklyAnalytics{WeekEnding: insightsWeek})
		}
	}
	if got := acc.Result(5); !got.Suppressed {
		t.Errorf("4 users added twice, 1 of another week and 1 without sessions are not 5 users: %s", mustJSON(t, got))
	}
}

// TestInsightsDeterministic: the same users in any order, and their rows
// read back from JSON, give the same bytes.
func TestInsightsDeterministic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var rows []aggregate.WeeklyAnalytics
	var ids []string
	for i := range 150 {
		u := randomElderUser(r, i)
		if w, ok := aggregate.Weekly(u, insightsWeek); ok {
			rows = append(rows, w)
			ids = append(ids, u.UserID)
		}
	}
	for _, u := range cohort(t, 80) {
		w, _ := aggregate.Weekly(u, insightsWeek)
		rows = append(rows, w)
		ids = append(ids, u.UserID)
	}
	result := func(order []int, fromJSON bool) []byte {
		acc := aggregate.NewInsights("eldertree", insightsWeek)
		for _, i := range order {
			w := rows[i]
			if fromJSON {
				var back aggregate.WeeklyAnalytics
				if err := json.Unmarshal(mustJSON(t, w), &back); err != nil {
					t.Fatal(err)
				}
				w = back
			}
			acc.Add(ids[i], w)
		}
		return mustJSON(t, acc.Result(5))
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	want := result(order, false)
	if !bytes.Contains(want, []byte("higher urge intensity")) {
		t.Fatalf("the cohort should show a weekday pattern:\n%s", want)
	}
	for run := range 5 {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		if got := result(order, run%2 == 1); !bytes.Equal(got, want) {
			t.Fatalf("run %d differs:\n%s\nwant\n%s", run, got, want)
		}
	}
}

func TestInsightsWeekdayPattern(t *testing.T) {
	t.Parallel()
	row := func(mon, fri float64, friday bool) aggregate.WeeklyAnalytics {
		w := aggregate.WeeklyAnalytics{WeekEnding: insightsWeek, TotalSessionsCompleted: 2,
			UrgeByWeekday: []aggregate.WeekdayIntensity{{Day: "monday", Sum: mon, Sessions: 1}}}
		if friday {
			w.UrgeByWeekday = append(w.UrgeByWeekday, aggregate.WeekdayIntensity{Day: "friday", Sum: fri, Sessions: 1})
		}
		return w
	}
	tests := []struct {
		name      string
		mon, fri  float64
		fridayers int
		want      []string
	}{
		{"exactly 25% above", 3, 5, 5, []string{"Fridays show 25% higher urge intensity than the weekday average"}},
		{"just under 25%", 3, 4.9, 5, []string{}},
		{"only k-1 users on Fridays", 2, 9, 4, []string{}},
		{"twice the mean", 0, 10, 5, []string{"Fridays show 100% higher urge intensity than the weekday average"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			acc := aggregate.NewInsights("eldertree", insightsWeek)
			for i := range 5 {
				acc.Add(fmt.Sprint("u-", i), row(tt.mon, tt.fri, i < tt.fridayers))
			}
			if got := acc.Result(5).NotablePatterns; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("notable_patterns = %q, want %q", got, tt.want)
			}
		})
	}
}

func BenchmarkInsightsAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	var rows []aggregate.WeeklyAnalytics
	for i := 0; len(rows) < 1000; i++ {
		if w, ok := aggregate.Weekly(randomElderUser(r, i), insightsWeek); ok {
			rows = append(rows, w)
		}
	}
	ids := make([]string, len(rows))
	for i := range ids {
		ids[i] = fmt.Sprintf("u-%06d", i)
	}
	acc := aggregate.NewInsights("eldertree", insightsWeek)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		acc.Add(ids[i%len(ids)], rows[i%len(rows)])
		i++
	}
	_ = acc.Result(aggregate.DefaultK)
}
