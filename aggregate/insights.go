package aggregate

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"slices"
	"strings"
)

// DefaultK is the smallest group insights describe (the default of
// MNEMO_INSIGHTS_K, cmd/worker/config.go).
const DefaultK = 5

// Insight list sizes and thresholds.
const (
	// TopInsightLabels is how many triggers and strategies insights list.
	TopInsightLabels = 5
	// maxLabelWords bounds a label insights may show: longer ones are
	// phrases, which may be someone's own words.
	maxLabelWords = 4
	// weekdayLift is how far above the week's mean a weekday's mean urge
	// intensity must be to be a notable pattern (25 %).
	weekdayLift = 1.25
	// timeShare is the share of urge times a time bucket must hold to be a
	// notable pattern (40 %).
	timeShare = 0.40
	// maxInsightLabels bounds the distinct triggers (and, apart, strategies)
	// an accumulator tracks; see InsightsAcc.
	maxInsightLabels = 4096
)

// insightLabel is what a trigger or strategy must look like to be shown.
var insightLabel = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

// Insights is an app's anonymised week for supervisors (docs/presets.md, Elder
// Tree: supervisor insights). It holds counts, means and rates over at least k
// users, and labels reported by at least k users; never a user ID, never free
// text.
type Insights struct {
	WeekEnding string `json:"week_ending"`
	App        string `json:"app"`
	// TotalActiveUsers is 0 when the insights are suppressed.
	TotalActiveUsers int `json:"total_active_users"`
	// MinGroupSize is the k the result was made with.
	MinGroupSize int  `json:"min_group_size"`
	Suppressed   bool `json:"suppressed"`
	// AggregateMetrics is null when the insights are suppressed.
	AggregateMetrics *AggregateMetrics `json:"aggregate_metrics"`
	NotablePatterns  []string          `json:"notable_patterns"`
}

// AggregateMetrics are the app's totals for the week.
type AggregateMetrics struct {
	TotalSessions int `json:"total_sessions"`
	// AverageUrgeIntensity is the mean over all sessions with an urge
	// intensity, one decimal; null when none had one.
	AverageUrgeIntensity *float64 `json:"average_urge_intensity"`
	// OverallSuccessRate is the share of sessions with a known outcome that
	// ended urge_passed, two decimals; null when none had an outcome.
	OverallSuccessRate      *float64       `json:"overall_success_rate"`
	MostCommonTriggers      []TriggerCount `json:"most_common_triggers"`
	MostEffectiveStrategies []StrategyRate `json:"most_effective_strategies"`
}

// StrategyRate is a strategy's success rate over all its uses (sessions)
// that week, two decimals.
type StrategyRate struct {
	Strategy    string  `json:"strategy"`
	SuccessRate float64 `json:"success_rate"`
	Uses        int     `json:"uses"`
}

// labelStat is a trigger or strategy summed over users.
type labelStat struct {
	users     int // users who reported it
	count     int // sessions (a trigger's count, a strategy's uses)
	successes int
}

// InsightsAcc adds up one app's weekly analytics, one user at a time, into
// Insights. Its memory does not grow with the number of users: it keeps sums
// and, per trigger and per strategy, a count of the users who reported it.
//
// Add must be called once per user: the distinct-user counts that k-anonymity
// rests on are counts of Add calls, which is why no set of user IDs is kept.
// A call repeating the previous call's user is ignored, so a store that
// streams a user's row twice in a row cannot inflate them.
//
// Distinct labels are bounded by maxInsightLabels per kind. When more arrive,
// the rarest are forgotten (those reported by one user, then two, and so on,
// until half the room is free), as in lossy counting. A label that comes back
// later starts again from zero, so its counts can only be under-counted: a
// label is never shown for fewer than k users. Labels are free to vary, so
// only an app with thousands of distinct labels in one week reaches this.
type InsightsAcc struct {
	app, weekEnding string
	lastUser        uint64
	users           int
	sessions        int
	urgeSum         float64
	urgeN           int
	passed          int
	outcomes        int
	triggers        map[string]*labelStat
	strategies      map[string]*labelStat
	days            [7]struct {
		sum   float64
		n     int
		users int
	}
	times [len(timeBuckets)]struct {
		freq, users, otherUsers int
	}
}

// NewInsights starts an app's insights for the week ending on weekEnding;
// analytics of other weeks are not added.
func NewInsights(app, weekEnding string) *InsightsAcc {
	return &InsightsAcc{
		app:        app,
		weekEnding: weekEnding,
		triggers:   map[string]*labelStat{},
		strategies: map[string]*labelStat{},
	}
}

func userHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// maxWeekCount bounds any count a plausible week holds (sessions, minutes
// are far below it): a stored row beyond it was not written by Weekly.
const maxWeekCount = 1_000_000

// Plausible reports whether a stored week could have been written by
// Weekly: no negative or absurd count, every weekday's summed intensity
// finite and within 0–10 per session. Insights read only plausible weeks,
// so that one row written by hand, or before a bound existed, cannot
// overflow an app's sums.
func (w WeeklyAnalytics) Plausible() bool {
	count := func(n int) bool { return n >= 0 && n <= maxWeekCount }
	if !count(w.TotalSessionsCompleted) || !count(w.TotalMinutes) || !count(w.UrgeSessions) || !count(w.StreakLength) ||
		!count(w.Relapses) || !count(w.Outcomes.UrgePassed) || !count(w.Outcomes.Relapsed) || !count(w.Outcomes.OngoingStruggle) {
		return false
	}
	if v := w.AverageUrgeIntensity; v != nil && !(*v >= 0 && *v <= 10) {
		return false
	}
	for _, d := range w.UrgeByWeekday {
		if !count(d.Sessions) || !(d.Sum >= 0 && d.Sum <= 10*float64(d.Sessions)+0.001) {
			return false
		}
	}
	for _, t := range w.VulnerabilityTimes {
		if !count(t.Frequency) {
			return false
		}
	}
	for _, d := range w.VulnerabilityDays {
		if !count(d.Frequency) {
			return false
		}
	}
	for _, t := range w.CommonTriggers {
		if !count(t.Count) {
			return false
		}
	}
	for _, st := range w.SuccessfulStrategies {
		if !count(st.Uses) || !count(st.Successes) || math.IsNaN(st.SuccessRate) || math.IsInf(st.SuccessRate, 0) {
			return false
		}
	}
	return true
}

// Add adds one active user's week. Analytics without a session, or of
// another week, are ignored. The user ID is used only to notice a repeated
// call (see InsightsAcc) and is not kept.
func (a *InsightsAcc) Add(userID string, w WeeklyAnalytics) {
	if w.TotalSessionsCompleted <= 0 || w.WeekEnding != a.weekEnding {
		return
	}
	h := userHash(userID)
	if a.users > 0 && h == a.lastUser {
		return
	}
	a.lastUser = h
	a.users++
	a.sessions += w.TotalSessionsCompleted
	a.passed += max(w.Outcomes.UrgePassed, 0)
	a.outcomes += max(w.Outcomes.Total(), 0)

	var seen [7]bool
	for _, d := range w.UrgeByWeekday {
		i := slices.Index(weekdays[:], d.Day)
		if i < 0 || d.Sessions <= 0 {
			continue
		}
		a.urgeSum += d.Sum
		a.urgeN += d.Sessions
		a.days[i].sum += d.Sum
		a.days[i].n += d.Sessions
		if !seen[i] {
			seen[i] = true
			a.days[i].users++
		}
	}

	var in [len(timeBuckets)]bool
	for _, t := range w.VulnerabilityTimes {
		if i := slices.Index(timeBuckets[:], t.Time); i >= 0 && t.Frequency > 0 {
			a.times[i].freq += t.Frequency
			in[i] = true
		}
	}
	for i := range in {
		if in[i] {
			a.times[i].users++
		}
		for j := range in {
			if j != i && in[j] {
				a.times[i].otherUsers++
				break
			}
		}
	}

	var keys []string
	for _, t := range w.CommonTriggers {
		if !showable(t.Trigger) || t.Count <= 0 || slices.Contains(keys, t.Trigger) {
			continue
		}
		keys = append(keys, t.Trigger)
		addLabel(a.triggers, t.Trigger, t.Count, 0)
	}
	keys = keys[:0]
	for _, s := range w.SuccessfulStrategies {
		if !showable(s.Strategy) || s.Uses <= 0 || slices.Contains(keys, s.Strategy) {
			continue
		}
		keys = append(keys, s.Strategy)
		addLabel(a.strategies, s.Strategy, s.Uses, min(max(s.Successes, 0), s.Uses))
	}
}

func addLabel(m map[string]*labelStat, key string, count, successes int) {
	st := m[key]
	if st == nil {
		if len(m) >= maxInsightLabels {
			prune(m)
		}
		st = &labelStat{}
		m[key] = st
	}
	st.users++
	st.count += count
	st.successes += successes
}

// prune forgets the labels reported by the fewest users until half of
// maxInsightLabels is free. Which labels go depends only on the counts, not
// on map order.
func prune(m map[string]*labelStat) {
	for floor := 1; len(m) > maxInsightLabels/2; floor++ {
		for k, st := range m {
			if st.users <= floor {
				delete(m, k)
			}
		}
	}
}

// showable reports whether a label may appear in insights: snake_case ASCII
// as label writes it, at most 40 characters and maxLabelWords words.
func showable(s string) bool {
	return insightLabel.MatchString(s) && label(s) == s && strings.Count(s, "_") < maxLabelWords
}

// Result is the insights with groups smaller than k left out (k below 1 is
// DefaultK). With fewer than k active users everything is suppressed: the
// result says suppressed, reports 0 active users, no metrics and no
// patterns, so that it does not even tell how small the group was. Otherwise
// a trigger or strategy is listed only when at least k users reported it,
// and a pattern is stated only over at least k users. Result may be called
// more than once.
func (a *InsightsAcc) Result(k int) Insights {
	if k < 1 {
		k = DefaultK
	}
	in := Insights{
		WeekEnding:      a.weekEnding,
		App:             a.app,
		MinGroupSize:    k,
		NotablePatterns: []string{},
	}
	if a.users < k {
		in.Suppressed = true
		return in
	}
	in.TotalActiveUsers = a.users
	m := &AggregateMetrics{
		TotalSessions:           a.sessions,
		MostCommonTriggers:      []TriggerCount{},
		MostEffectiveStrategies: []StrategyRate{},
	}
	if a.urgeN > 0 {
		m.AverageUrgeIntensity = ptr(a.urgeSum/float64(a.urgeN), 1)
	}
	if a.outcomes > 0 {
		m.OverallSuccessRate = ptr(float64(a.passed)/float64(a.outcomes), 2)
	}
	for t, st := range a.triggers {
		if st.users >= k {
			m.MostCommonTriggers = append(m.MostCommonTriggers, TriggerCount{t, st.count})
		}
	}
	sortTriggers(m.MostCommonTriggers)
	m.MostCommonTriggers = m.MostCommonTriggers[:min(len(m.MostCommonTriggers), TopInsightLabels)]
	for s, st := range a.strategies {
		if st.users >= k {
			m.MostEffectiveStrategies = append(m.MostEffectiveStrategies, StrategyRate{s, round(float64(st.successes)/float64(st.count), 2), st.count})
		}
	}
	slices.SortFunc(m.MostEffectiveStrategies, func(a, b StrategyRate) int {
		return cmp.Or(cmp.Compare(b.SuccessRate, a.SuccessRate), cmp.Compare(b.Uses, a.Uses), strings.Compare(a.Strategy, b.Strategy))
	})
	m.MostEffectiveStrategies = m.MostEffectiveStrategies[:min(len(m.MostEffectiveStrategies), TopInsightLabels)]
	in.AggregateMetrics = m
	in.NotablePatterns = a.patterns(k)
	return in
}

// patterns are sentences made from numbers alone, in a fixed order: weekdays
// whose mean urge intensity is at least 25 % above the week's, most above
// first; then time buckets holding at least 40 % of urge times, largest
// first. Each needs k users behind it; a time bucket also needs k users with
// urge times elsewhere, so that it never says what every user did.
func (a *InsightsAcc) patterns(k int) []string {
	out := []string{}
	type lift struct {
		i   int
		pct int
	}
	if a.urgeN > 0 && a.urgeSum > 0 {
		overall := a.urgeSum / float64(a.urgeN)
		var lifts []lift
		for i, d := range a.days {
			if d.users < k || d.n == 0 {
				continue
			}
			if ratio := d.sum / float64(d.n) / overall; ratio >= weekdayLift {
				lifts = append(lifts, lift{i, int(round((ratio-1)*100, 0))})
			}
		}
		slices.SortStableFunc(lifts, func(a, b lift) int { return cmp.Compare(b.pct, a.pct) })
		for _, l := range lifts {
			day := weekdays[l.i]
			out = append(out, fmt.Sprintf("%s%ss show %d%% higher urge intensity than the weekday average",
				strings.ToUpper(day[:1]), day[1:], l.pct))
		}
	}

	total := 0
	for _, t := range a.times {
		total += t.freq
	}
	if total > 0 {
		var shares []lift
		for i, t := range a.times {
			share := float64(t.freq) / float64(total)
			if t.users >= k && t.otherUsers >= k && share >= timeShare {
				shares = append(shares, lift{i, int(round(share*100, 0))})
			}
		}
		slices.SortStableFunc(shares, func(a, b lift) int { return cmp.Compare(b.pct, a.pct) })
		for _, s := range shares {
			out = append(out, fmt.Sprintf("%d%% of urges came %s", s.pct, timePhrase[s.i]))
		}
	}
	return out
}

// timePhrase says when each of timeBuckets is.
var timePhrase = [len(timeBuckets)]string{
	"in the morning (05:00–12:00)",
	"in the afternoon (12:00–17:00)",
	"in the evening (17:00–22:00)",
	"late at night (22:00–02:00)",
	"at night (02:00–05:00)",
}
