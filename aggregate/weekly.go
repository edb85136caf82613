package aggregate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/internal/num"
)

// Urge outcomes (docs/presets.md: session summary): the urge
// event's outcome in the recovery preset's events.schema.json.
const (
	OutcomeUrgePassed = "urge_passed"
	OutcomeRelapsed   = "relapsed"
	OutcomeOngoing    = "ongoing_struggle"
)

// Vulnerability time buckets, by local hour of an urge:
//
//	morning     05:00–11:59
//	afternoon   12:00–16:59
//	evening     17:00–21:59
//	late_night  22:00–01:59
//	night       02:00–04:59
const (
	TimeMorning   = "morning"
	TimeAfternoon = "afternoon"
	TimeEvening   = "evening"
	TimeLateNight = "late_night"
	TimeNight     = "night"
)

// timeBuckets lists the buckets in the order ties are broken in.
var timeBuckets = [...]string{TimeMorning, TimeAfternoon, TimeEvening, TimeLateNight, TimeNight}

// timeBucket is the index in timeBuckets of a local hour.
func timeBucket(hour int) int {
	switch {
	case hour >= 5 && hour < 12:
		return 0
	case hour >= 12 && hour < 17:
		return 1
	case hour >= 17 && hour < 22:
		return 2
	case hour >= 22 || hour < 2:
		return 3
	default:
		return 4
	}
}

// weekdays names days Monday first, the order of every by-day list.
var weekdays = [7]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// dayIndex is a weekday's index in weekdays.
func dayIndex(d time.Weekday) int { return (int(d) + 6) % 7 }

// TopTriggers is how many triggers a week's analytics lists.
const TopTriggers = 5

// WeeklyAnalytics is one user's week: the analytics_aggregate row
// (docs/presets.md: weekly analytics), plus the counts the
// anonymised insights are added up from (urge_sessions, outcomes,
// urge_by_weekday, successes), so that insights computed from stored rows equal
// insights computed in the same run.
type WeeklyAnalytics struct {
	// WeekEnding is the last local day of the week, YYYY-MM-DD.
	WeekEnding             string `json:"week_ending"`
	TotalSessionsCompleted int    `json:"total_sessions_completed"`
	// TotalMinutes is the sessions' summed length, rounded once at the end.
	TotalMinutes int `json:"total_minutes"`
	// TotalMiningMinutes is TotalMinutes under the design's name
	// (docs/presets.md: weekly analytics).
	TotalMiningMinutes int `json:"total_mining_minutes"`
	// AverageUrgeIntensity is the mean over sessions with an urge intensity
	// (0–10), one decimal; null when no session had one.
	AverageUrgeIntensity *float64 `json:"average_urge_intensity"`
	// UrgeSessions is how many sessions had an urge: an urge event, an urge
	// intensity or an urge outcome (urge_passed, ongoing_struggle,
	// relapsed). Only they count in the vulnerability times and days, so a
	// week with no urge session has none (issue 33).
	UrgeSessions int `json:"urge_sessions"`
	// StreakLength is in days; see Weekly.
	StreakLength         int                `json:"streak_length"`
	CommonTriggers       []TriggerCount     `json:"common_triggers"`
	SuccessfulStrategies []StrategyStat     `json:"successful_strategies"`
	VulnerabilityTimes   []TimeFrequency    `json:"vulnerability_times"`
	VulnerabilityDays    []DayFrequency     `json:"vulnerability_days"`
	StepWorkProgress     StepProgress       `json:"step_work_progress"`
	ZoneViolations       ZoneViolations     `json:"zone_violations"`
	Relapses             int                `json:"relapses"`
	Outcomes             OutcomeCounts      `json:"outcomes"`
	UrgeByWeekday        []WeekdayIntensity `json:"urge_by_weekday"`
}

// TriggerCount is a trigger and the number of sessions that named it.
type TriggerCount struct {
	Trigger string `json:"trigger"`
	Count   int    `json:"count"`
}

// StrategyStat is a resistance strategy: the sessions that used it, those
// of them whose outcome was urge_passed, and that share (two decimals).
type StrategyStat struct {
	Strategy    string  `json:"strategy"`
	Uses        int     `json:"uses"`
	Successes   int     `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
}

// TimeFrequency is how many urges fell in a time bucket.
type TimeFrequency struct {
	Time      string `json:"time"`
	Frequency int    `json:"frequency"`
}

// DayFrequency is how many urges fell on a weekday ("monday" … "sunday").
type DayFrequency struct {
	Day       string `json:"day"`
	Frequency int    `json:"frequency"`
}

// StepProgress is the twelve-step work the profile records.
type StepProgress struct {
	// CurrentStep is null when the profile names none.
	CurrentStep    *int `json:"current_step"`
	StepsCompleted int  `json:"steps_completed"`
}

// ZoneViolations counts zone events of the week by zone.
type ZoneViolations struct {
	Red    int `json:"red"`
	Yellow int `json:"yellow"`
}

// OutcomeCounts counts the week's sessions by outcome; sessions without a
// known outcome are in none of them.
type OutcomeCounts struct {
	UrgePassed      int `json:"urge_passed"`
	Relapsed        int `json:"relapsed"`
	OngoingStruggle int `json:"ongoing_struggle"`
}

// Total is the number of sessions with a known outcome.
func (o OutcomeCounts) Total() int { return o.UrgePassed + o.Relapsed + o.OngoingStruggle }

// WeekdayIntensity is the summed urge intensity (three decimals) of the
// sessions whose urge fell on a weekday, and how many they were.
type WeekdayIntensity struct {
	Day      string  `json:"day"`
	Sum      float64 `json:"sum"`
	Sessions int     `json:"sessions"`
}

// WeekBounds is the week that ends on weekEnding (YYYY-MM-DD) in the named
// zone: from local midnight six days before it to local midnight after it,
// end exclusive. A week across a DST change is 167 or 169 hours long. An
// empty or unknown zone is UTC.
func WeekBounds(weekEnding, timezone string) (start, end time.Time, err error) {
	loc := location(timezone)
	d, err := time.ParseInLocation(time.DateOnly, weekEnding, loc)
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("week ending %q: want a date YYYY-MM-DD", weekEnding)
	}
	y, m, day := d.Date()
	return time.Date(y, m, day-6, 0, 0, 0, 0, loc), time.Date(y, m, day+1, 0, 0, 0, 0, loc), nil
}

// elderSession is what one recovery session adds to a week.
type elderSession struct {
	intensity    float64
	hasIntensity bool
	// urge: the session had an urge, told with a strength or not: an urge
	// event, an urge intensity or an urge outcome (urge_passed,
	// ongoing_struggle, relapsed).
	urge       bool
	outcome    string
	triggers   []string
	strategies []string
}

// elderOutcome is a session's outcome: its summary's, else its urge
// events'. As the rules extractor reads them, a relapse in any urge event is
// the session's outcome, and urges that ended nowhere are a struggle.
func elderOutcome(s *Session) string {
	if o := outcome(s.Summary["outcome"]); o != "" {
		return o
	}
	out := ""
	for i := range s.Events {
		e := &s.Events[i]
		if kind(e) != "urge" {
			continue
		}
		switch o := outcome(e.Data["outcome"]); o {
		case OutcomeRelapsed:
			return o
		case OutcomeUrgePassed, OutcomeOngoing:
			out = o
		default:
			out = cmp.Or(out, OutcomeOngoing)
		}
	}
	return out
}

// readElderSession reads a session's summary (docs/presets.md:
// session summary), and its urge events where the summary is missing or
// silent on a field.
func readElderSession(s *Session) elderSession {
	var (
		es           elderSession
		maxEvent     = -1.0
		evTriggers   []string
		evStrategies []string
	)
	for i := range s.Events {
		e := &s.Events[i]
		if kind(e) != "urge" {
			continue
		}
		if v, ok := num.Float(e.Data["intensity"]); ok {
			maxEvent = max(maxEvent, min(max(v, 0), 10))
		}
		if t := label(e.Data["trigger"]); t != "" && !slices.Contains(evTriggers, t) {
			evTriggers = append(evTriggers, t)
		}
		if st := label(e.Data["strategy"]); st != "" && !slices.Contains(evStrategies, st) {
			evStrategies = append(evStrategies, st)
		}
	}
	sum := s.Summary
	if v, ok := num.Float(sum["urge_intensity"]); ok {
		es.intensity, es.hasIntensity = min(max(v, 0), 10), true
	} else if maxEvent >= 0 {
		es.intensity, es.hasIntensity = maxEvent, true
	}
	es.outcome = elderOutcome(s)
	es.urge = es.hasIntensity || es.outcome != "" || slices.ContainsFunc(s.Events, func(e Event) bool { return kind(&e) == "urge" })
	if es.triggers = labels(sum["primary_trigger"]); len(es.triggers) == 0 {
		es.triggers = evTriggers
	}
	if es.strategies = labels(sum["resistance_strategy_used"]); len(es.strategies) == 0 {
		es.strategies = evStrategies
	}
	return es
}

// outcome is a known urge outcome, or "".
func outcome(v any) string {
	switch o := strings.ToLower(strings.TrimSpace(text(v))); o {
	case OutcomeUrgePassed, OutcomeRelapsed, OutcomeOngoing:
		return o
	}
	return ""
}

// Weekly computes one user's analytics for the week ending on
// weekEnding (YYYY-MM-DD): the seven local days ending that date in the
// user's zone, Monday to Sunday when it is a Sunday. A session belongs to
// the week its end falls in (its start when the end is unknown). Weekly
// reports false, and no row should be written, when the user had no session
// that week or weekEnding is not a date.
//
// Per session, the stored summary is read first and the urge events fill
// what it lacks: the intensity is the summary's urge_intensity, else the
// strongest urge event's; the triggers are the summary's primary_trigger,
// else every urge event's trigger; the strategies are the summary's
// resistance_strategy_used (split at commas), else every urge event's; the
// outcome is the summary's, else the events' (a relapse in any urge event
// wins, urges without an outcome are ongoing_struggle). Labels are snake_case
// (see label). A trigger's count and a strategy's uses are numbers of
// sessions; a strategy succeeded in a session whose outcome is urge_passed,
// and a session without a known outcome counts as a use without success.
//
// Vulnerability times and days count each urge event at its local time (the
// session start for an urge event without a time, or for an urge session
// without urge events: an urge told in words). A session without an urge
// (see UrgeSessions) counts in neither: a check-in late at night is no
// late-night urge. urge_by_weekday puts each session's intensity on the
// local weekday of its first urge event (its start when it had none), and
// the average intensity is over the sessions that had one.
//
// Zone violations count events of kind "zone" whose data says
// {"zone": "red"} or {"zone": "yellow"}; chat services that send none get
// zeros. Step progress is the profile's current_step and how many of
// step_1_completed … step_12_completed are true.
//
// The streak is in whole local days up to weekEnding, counted from the
// latest of: the last relapse among all the user's sessions up to the end
// of the week (the store passes a 90-day lookback), and the profile's
// recovery_start_date. With neither, it counts from the first session the
// store passed. It is never negative. Taking the later of a relapse and
// recovery_start_date means a user who reset their start date after a
// relapse is not credited with the days in between.
//
// Weekly is deterministic: the same user and week give identical JSON,
// which the idempotent upsert relies on.
func Weekly(u User, weekEnding string) (WeeklyAnalytics, bool) {
	start, end, err := WeekBounds(weekEnding, u.Timezone)
	if err != nil {
		return WeeklyAnalytics{}, false
	}
	loc := start.Location()
	endDay := civilDay(end.AddDate(0, 0, -1))

	var (
		w = WeeklyAnalytics{
			WeekEnding:           start.AddDate(0, 0, 6).Format(time.DateOnly),
			CommonTriggers:       []TriggerCount{},
			SuccessfulStrategies: []StrategyStat{},
			VulnerabilityTimes:   []TimeFrequency{},
			VulnerabilityDays:    []DayFrequency{},
			UrgeByWeekday:        []WeekdayIntensity{},
		}
		duration          time.Duration
		urgeSum           float64
		intensitySessions int // sessions with an urge intensity, the mean's
		triggers          = map[string]int{}
		strategies        = map[string]*StrategyStat{}
		times             [len(timeBuckets)]int
		days              [7]int
		daySum            [7]float64
		dayN              [7]int
		lastRelapse       time.Time
		first             time.Time
	)
	for i := range u.Sessions {
		s := &u.Sessions[i]
		at := sessionEnd(*s)
		if at.IsZero() || !at.Before(end) {
			continue // after the week: a back-fill must not see the future
		}
		if b := orTime(s.StartedAt, at); first.IsZero() || b.Before(first) {
			first = b
		}
		if at.Before(start) {
			// Before the week: only a relapse matters, for the streak.
			if at.After(lastRelapse) && elderOutcome(s) == OutcomeRelapsed {
				lastRelapse = at
			}
			continue
		}
		es := readElderSession(s)
		if es.outcome == OutcomeRelapsed && at.After(lastRelapse) {
			lastRelapse = at
		}

		w.TotalSessionsCompleted++
		if !s.EndedAt.IsZero() && s.EndedAt.After(s.StartedAt) && !s.StartedAt.IsZero() {
			duration += s.EndedAt.Sub(s.StartedAt)
		}
		switch es.outcome {
		case OutcomeUrgePassed:
			w.Outcomes.UrgePassed++
		case OutcomeRelapsed:
			w.Outcomes.Relapsed++
		case OutcomeOngoing:
			w.Outcomes.OngoingStruggle++
		}
		for _, t := range es.triggers {
			triggers[t]++
		}
		for _, name := range es.strategies {
			st := strategies[name]
			if st == nil {
				st = &StrategyStat{Strategy: name}
				strategies[name] = st
			}
			st.Uses++
			if es.outcome == OutcomeUrgePassed {
				st.Successes++
			}
		}

		// Times of the urges, for vulnerability and the weekday of the
		// session's intensity.
		sessionAt := orTime(s.StartedAt, at)
		firstUrge := time.Time{}
		for j := range s.Events {
			e := &s.Events[j]
			switch kind(e) {
			case "urge":
				t := orTime(e.At, sessionAt).In(loc)
				times[timeBucket(t.Hour())]++
				days[dayIndex(t.Weekday())]++
				if firstUrge.IsZero() {
					firstUrge = t
				}
			case "zone":
				switch strings.ToLower(text(e.Data["zone"])) {
				case "red":
					w.ZoneViolations.Red++
				case "yellow":
					w.ZoneViolations.Yellow++
				}
			}
		}
		if firstUrge.IsZero() && es.urge {
			// An urge told in words: the session's start is its time.
			t := sessionAt.In(loc)
			times[timeBucket(t.Hour())]++
			days[dayIndex(t.Weekday())]++
			firstUrge = t
		}
		if es.urge {
			w.UrgeSessions++
		}
		if es.hasIntensity {
			intensitySessions++
			urgeSum += es.intensity
			d := dayIndex(firstUrge.Weekday())
			daySum[d] += es.intensity
			dayN[d]++
		}
	}
	if w.TotalSessionsCompleted == 0 {
		return WeeklyAnalytics{}, false
	}

	w.TotalMinutes = int(math.Round(duration.Minutes()))
	w.TotalMiningMinutes = w.TotalMinutes
	if intensitySessions > 0 {
		w.AverageUrgeIntensity = ptr(urgeSum/float64(intensitySessions), 1)
	}
	w.Relapses = w.Outcomes.Relapsed

	for t, n := range triggers {
		w.CommonTriggers = append(w.CommonTriggers, TriggerCount{t, n})
	}
	sortTriggers(w.CommonTriggers)
	w.CommonTriggers = w.CommonTriggers[:min(len(w.CommonTriggers), TopTriggers)]

	for _, st := range strategies {
		st.SuccessRate = round(float64(st.Successes)/float64(st.Uses), 2)
		w.SuccessfulStrategies = append(w.SuccessfulStrategies, *st)
	}
	sortStrategies(w.SuccessfulStrategies)

	for i, n := range times {
		if n > 0 {
			w.VulnerabilityTimes = append(w.VulnerabilityTimes, TimeFrequency{timeBuckets[i], n})
		}
	}
	slices.SortStableFunc(w.VulnerabilityTimes, func(a, b TimeFrequency) int { return cmp.Compare(b.Frequency, a.Frequency) })
	for i, n := range days {
		if n > 0 {
			w.VulnerabilityDays = append(w.VulnerabilityDays, DayFrequency{weekdays[i], n})
		}
	}
	slices.SortStableFunc(w.VulnerabilityDays, func(a, b DayFrequency) int { return cmp.Compare(b.Frequency, a.Frequency) })
	for i, n := range dayN {
		if n > 0 {
			w.UrgeByWeekday = append(w.UrgeByWeekday, WeekdayIntensity{weekdays[i], round(daySum[i], 3), n})
		}
	}

	w.StepWorkProgress = stepProgress(u.Profile)

	// Streak.
	from := -1
	if !lastRelapse.IsZero() {
		from = civilDay(lastRelapse.In(loc))
	}
	if d, ok := profileDate(u.Profile["recovery_start_date"]); ok {
		from = max(from, d)
	}
	if from < 0 && !first.IsZero() {
		from = civilDay(first.In(loc))
	}
	if from >= 0 {
		w.StreakLength = max(endDay-from, 0)
	}
	return w, true
}

// sortTriggers orders by count, most first, then by name.
func sortTriggers(ts []TriggerCount) {
	slices.SortFunc(ts, func(a, b TriggerCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Trigger, b.Trigger))
	})
}

// sortStrategies orders by success rate, highest first, then by uses, most
// first, then by name.
func sortStrategies(ss []StrategyStat) {
	slices.SortFunc(ss, func(a, b StrategyStat) int {
		return cmp.Or(cmp.Compare(b.SuccessRate, a.SuccessRate), cmp.Compare(b.Uses, a.Uses), strings.Compare(a.Strategy, b.Strategy))
	})
}

// stepProgress reads current_step and step_N_completed from a recovery
// profile.
func stepProgress(p map[string]any) StepProgress {
	var sp StepProgress
	if v, ok := num.Float(p["current_step"]); ok && v >= 1 && v <= 12 && v == math.Trunc(v) {
		n := int(v)
		sp.CurrentStep = &n
	}
	for _, key := range stepKeys {
		if done, _ := p[key].(bool); done {
			sp.StepsCompleted++
		}
	}
	return sp
}

// stepKeys are the profile's step_N_completed fields.
var stepKeys = func() (keys [12]string) {
	for i := range keys {
		keys[i] = fmt.Sprintf("step_%d_completed", i+1)
	}
	return keys
}()

// profileDate reads a profile date, YYYY-MM-DD (or a timestamp starting with
// one), as a civil day.
func profileDate(v any) (int, bool) {
	s := text(v)
	if len(s) < 10 {
		return 0, false
	}
	d, err := time.Parse(time.DateOnly, s[:10])
	if err != nil {
		return 0, false
	}
	return civilDay(d), true
}
