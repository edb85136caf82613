package eldertree

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/views"
)

// The page of a user of this kind: views builds the shell (title, the
// facts at the top, who may see it) and asks this package for the sections.
func init() {
	views.RegisterPage(extract.PageRecovery, func(p *views.UserPage, ctx context.Context) ([]views.Section, error) {
		return page{p}.recovery(ctx)
	})
}

// page is a user's page as this kind's builder reads it.
type page struct{ *views.UserPage }

// elderWeeks is how many weeks the recovery insights show.
const elderWeeks = 12

// vulnerabilityTimes are the time buckets of weekly analytics, in the
// day's order, with their local hours.
var vulnerabilityTimes = []struct{ key, label string }{
	{aggregate.TimeMorning, "Morning 05–12"},
	{aggregate.TimeAfternoon, "Afternoon 12–17"},
	{aggregate.TimeEvening, "Evening 17–22"},
	{aggregate.TimeLateNight, "Late night 22–02"},
	{aggregate.TimeNight, "Night 02–05"},
}

var weekdayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// recovery is the user's "Recovery Insights" (docs/presets.md, Elder Tree:
// weekly analytics): urge intensity over weeks, triggers, strategies with
// their success rates, vulnerable times, the streak, step work and the open
// cues (docs/presets.md, Elder Tree: cues).
func (x page) recovery(ctx context.Context) ([]views.Section, error) {
	rows, err := x.Store.ListWeeks(ctx, x.User.ID, "", elderWeeks)
	if err != nil {
		return nil, err
	}
	slices.Reverse(rows) // oldest first
	var weeks []aggregate.WeeklyAnalytics
	for _, r := range rows {
		var w aggregate.WeeklyAnalytics
		if json.Unmarshal(r.Data, &w) == nil {
			w.WeekEnding = r.WeekEnding
			weeks = append(weeks, w)
		}
	}
	empty := x.AfterBatch("Weekly recovery insights appear", jobs.BatchWeeklyAnalytics, x.Loc) +
		" A week is computed once it is over, for weeks with sessions."

	urges := views.Section{ID: "urges", Title: "Urge intensity by week", Attr: "eldertree-urges"}
	triggers := views.Section{ID: "triggers", Title: "Triggers", Attr: "eldertree-triggers",
		Intro: fmt.Sprintf("The triggers named in the last %d weeks, by how many sessions named them.", elderWeeks)}
	strategies := views.Section{ID: "strategies", Title: "What helps", Attr: "eldertree-strategies",
		Intro: "Each strategy's success rate: the share of the sessions it was used in where the urge passed."}
	times := views.Section{ID: "times", Title: "Vulnerable times", Attr: "eldertree-times",
		Intro: "When urges came, by time of day and day of the week, in the user's time zone."}
	progress := views.Section{ID: "progress", Title: "Streak and step work", Attr: "eldertree-progress"}
	cues := views.Section{ID: "cues", Title: "Open cues", Attr: "eldertree-cues",
		Intro: "Significant changes Elder Tree will acknowledge gently at the next session."}

	if len(weeks) == 0 {
		urges.Empty, triggers.Empty, strategies.Empty, times.Empty, progress.Empty = empty, empty, empty, empty, empty
	} else {
		var ticks []views.Tick
		var intensity, streak, step, steps []views.XY
		var cats []string
		var sessions, urgeSessions, relapses []float64
		trig := map[string]int{}
		type strat struct{ uses, successes int }
		strats := map[string]*strat{}
		timeFreq := map[string]int{}
		dayFreq := map[string]int{}
		gap := false
		for i, w := range weeks {
			lbl := "w/e " + views.WeekLabel(w.WeekEnding)
			ticks = append(ticks, views.Tick{V: float64(i), Label: lbl})
			cats = append(cats, views.WeekLabel(w.WeekEnding))
			if w.AverageUrgeIntensity != nil {
				// The mean is over the sessions that told a strength; an urge
				// told without one is an urge session too (issue 33).
				told := 0
				for _, d := range w.UrgeByWeekday {
					told += d.Sessions
				}
				note := views.Plural(w.UrgeSessions, "session with an urge", "sessions with an urge")
				if told < w.UrgeSessions {
					note = fmt.Sprintf("%d of %s told a strength", told, note)
				}
				intensity = append(intensity, views.XY{X: float64(i), Y: *w.AverageUrgeIntensity, XText: lbl, Note: note, Gap: gap})
				gap = false
			} else {
				gap = true
			}
			sessions = append(sessions, float64(w.TotalSessionsCompleted))
			urgeSessions = append(urgeSessions, float64(w.UrgeSessions))
			relapses = append(relapses, float64(w.Relapses))
			streak = append(streak, views.XY{X: float64(i), Y: float64(w.StreakLength), XText: lbl})
			if w.StepWorkProgress.CurrentStep != nil {
				step = append(step, views.XY{X: float64(i), Y: float64(*w.StepWorkProgress.CurrentStep), XText: lbl})
			}
			steps = append(steps, views.XY{X: float64(i), Y: float64(w.StepWorkProgress.StepsCompleted), XText: lbl})
			for _, t := range w.CommonTriggers {
				trig[t.Trigger] += t.Count
			}
			for _, s := range w.SuccessfulStrategies {
				st := strats[s.Strategy]
				if st == nil {
					st = &strat{}
					strats[s.Strategy] = st
				}
				st.uses += s.Uses
				st.successes += s.Successes
			}
			for _, t := range w.VulnerabilityTimes {
				timeFreq[t.Time] += t.Frequency
			}
			for _, d := range w.VulnerabilityDays {
				dayFreq[d.Day] += d.Frequency
			}
		}
		xr := func() (float64, float64) { return -0.3, float64(len(weeks)) - 0.7 }
		xmin, xmax := xr()
		urges.Intro = "The mean urge intensity of each week's sessions, from 0 (none) to 10 (overwhelming); weeks end on Sunday in the user's time zone."
		urges.Charts = []*views.Chart{
			views.LineChart(views.LineSpec{ID: "eldertree-intensity", Title: "Mean urge intensity by week",
				Desc:   fmt.Sprintf("%s of mean urge intensity.", views.Plural(len(intensity), "week", "weeks")),
				XLabel: "Week ending", YLabel: "Urge intensity (0–10)", Series: []views.Series{{Name: "Mean intensity", Points: intensity}},
				XTicks: ticks, XMin: xmin, XMax: xmax, YMin: 0, YMax: 10,
				Empty: "No session of these weeks had an urge with an intensity."}),
			views.BarChart(views.BarSpec{ID: "eldertree-sessions", Title: "Sessions by week",
				Desc:          "Sessions completed, sessions with an urge and relapses, per week.",
				CategoryLabel: "Week ending", ValueLabel: "Sessions", Categories: cats,
				Series: []views.BarSeries{{Name: "Sessions", Values: sessions}, {Name: "With an urge", Values: urgeSessions}, {Name: "Relapses", Values: relapses}},
				Empty:  "No sessions in these weeks."}),
		}
		last := weeks[len(weeks)-1]
		urges.Facts = []views.Fact{{Label: "Latest week", Value: "w/e " + views.WeekLabel(last.WeekEnding)},
			{Label: "Sessions that week", Value: strconv.Itoa(last.TotalSessionsCompleted)},
			{Label: "Minutes that week", Value: strconv.Itoa(last.TotalMinutes)},
			{Label: "Next weekly run", Value: views.CmpOr(x.NextRun(jobs.BatchWeeklyAnalytics, x.Loc), "not scheduled")}}

		tc := views.SortedKeys(trig)
		slices.SortStableFunc(tc, func(a, b string) int { return cmp.Compare(trig[b], trig[a]) })
		tc = tc[:min(len(tc), 8)]
		var tv []float64
		for _, t := range tc {
			tv = append(tv, float64(trig[t]))
		}
		triggers.Charts = []*views.Chart{views.BarChart(views.BarSpec{ID: "eldertree-triggers", Title: "Triggers named", Horizontal: true,
			Desc: "How many sessions named each trigger.", CategoryLabel: "Trigger", ValueLabel: "Sessions",
			Categories: tc, Series: []views.BarSeries{{Values: tv}}, Empty: "No trigger was named in these weeks."})}

		sc := views.SortedKeys(strats)
		slices.SortStableFunc(sc, func(a, b string) int { return cmp.Compare(strats[b].uses, strats[a].uses) })
		sc = sc[:min(len(sc), 8)]
		var sv []float64
		var scats []string
		table := views.VTable{Caption: "Strategies", Head: []string{"Strategy", "Used in sessions", "Urge passed", "Success rate"}, Empty: "None yet."}
		for _, s := range sc {
			st := strats[s]
			rate := 0.0
			if st.uses > 0 {
				rate = float64(st.successes) / float64(st.uses)
			}
			sv = append(sv, rate)
			scats = append(scats, fmt.Sprintf("%s (%d)", s, st.uses))
			table.Rows = append(table.Rows, []string{s, strconv.Itoa(st.uses), strconv.Itoa(st.successes), views.PctOf(rate)})
		}
		strategies.Charts = []*views.Chart{views.BarChart(views.BarSpec{ID: "eldertree-strategies", Title: "Success rate by strategy", Horizontal: true,
			Desc:          "The share of sessions using each strategy in which the urge passed; the number of sessions is in brackets.",
			CategoryLabel: "Strategy (sessions)", ValueLabel: "Success rate (%)", Categories: scats, Series: []views.BarSeries{{Values: sv}},
			VMax: 1, Format: views.PctOf, Empty: "No strategy was named in these weeks."})}
		strategies.Tables = []views.VTable{table}

		var tcats []string
		var tvals []float64
		for _, b := range vulnerabilityTimes {
			tcats, tvals = append(tcats, b.label), append(tvals, float64(timeFreq[b.key]))
		}
		var dcats []string
		var dvals []float64
		for _, d := range weekdayNames {
			dcats, dvals = append(dcats, strings.ToUpper(d[:1])+d[1:3]), append(dvals, float64(dayFreq[d]))
		}
		anyTime := slices.ContainsFunc(tvals, func(v float64) bool { return v > 0 })
		if !anyTime {
			tvals, dvals = nil, nil
		}
		times.Charts = []*views.Chart{
			views.BarChart(views.BarSpec{ID: "eldertree-times", Title: "Urges by time of day", Desc: "How many urges came in each part of the day.",
				CategoryLabel: "Time of day (hours, " + x.Loc.String() + ")", ValueLabel: "Urges", Categories: tcats,
				Series: []views.BarSeries{{Values: tvals}}, LabelEvery: 1, Empty: "No urge with a time in these weeks."}),
			views.BarChart(views.BarSpec{ID: "eldertree-days", Title: "Urges by day of the week", Desc: "How many urges came on each day of the week.",
				CategoryLabel: "Day of the week", ValueLabel: "Urges", Categories: dcats,
				Series: []views.BarSeries{{Values: dvals}}, LabelEvery: 1, Empty: "No urge with a time in these weeks."}),
		}

		cur := "–"
		if last.StepWorkProgress.CurrentStep != nil {
			cur = strconv.Itoa(*last.StepWorkProgress.CurrentStep)
		}
		progress.Facts = []views.Fact{{Label: "Streak", Value: views.Plural(last.StreakLength, "day", "days"), Note: "as of w/e " + views.WeekLabel(last.WeekEnding)},
			{Label: "Current step", Value: cur, Note: "of 12"},
			{Label: "Steps completed", Value: strconv.Itoa(last.StepWorkProgress.StepsCompleted)},
			{Label: "Zone violations that week", Value: fmt.Sprintf("%d red, %d yellow", last.ZoneViolations.Red, last.ZoneViolations.Yellow)}}
		progress.Charts = []*views.Chart{
			views.LineChart(views.LineSpec{ID: "eldertree-streak", Title: "Streak by week", Desc: "Days without a relapse at the end of each week.",
				XLabel: "Week ending", YLabel: "Streak (days)", Series: []views.Series{{Name: "Streak", Points: streak}}, XTicks: ticks,
				XMin: xmin, XMax: xmax, Empty: "No streak yet."}),
			views.LineChart(views.LineSpec{ID: "eldertree-steps", Title: "Step work by week", Desc: "The step being worked and the steps completed, per week.",
				XLabel: "Week ending", YLabel: "Step (1–12)", Series: []views.Series{{Name: "Current step", Points: step}, {Name: "Steps completed", Points: steps}},
				XTicks: ticks, XMin: xmin, XMax: xmax, YMin: 0, YMax: 12, Empty: "No step work recorded yet."}),
		}
	}

	if err := x.streakLines(ctx, &progress); err != nil { // the streak while unconfirmed (streak_view.go)
		return nil, err
	}
	open, err := x.Store.ListCues(ctx, x.User.ID, true)
	if err != nil {
		return nil, err
	}
	table := views.VTable{Caption: "Open cues", Head: []string{"Raised", "What", "From"},
		Empty: "No open cue. A relapse, a dropped fellowship, a sponsor change or a trigger named 5 times in 30 days appears here once the session that shows it is processed."}
	for i := len(open) - 1; i >= 0; i-- {
		c := open[i]
		if c.Type == memory.CueRisk {
			continue // the safety section shows them, a session's alike findings on one line
		}
		from := "a session"
		if c.SessionID == "" {
			from = "an edit of the profile"
		}
		table.Rows = append(table.Rows, []string{views.TimeIn(c.CreatedAt, x.Loc), cueSentence(c.Type, views.Decode(c.Detail)), from})
	}
	cues.Tables = []views.VTable{table}
	return []views.Section{urges, triggers, strategies, times, progress, cues}, nil
}

// cueSentence says what a cue is about, without names or text of the user's.
func cueSentence(kind string, d map[string]any) string {
	switch kind {
	case extract.CueRelapse:
		return "Relapse"
	case extract.CueFellowshipDropped:
		return "Stopped going to fellowship meetings"
	case extract.CueSponsorChange:
		return "Sponsor changed"
	case extract.CueRecurringTrigger:
		if t := views.FieldLabel(d, "trigger"); t != "" {
			return fmt.Sprintf("Trigger %q named %d times in %d days", t, views.FieldInt(d, "count"), views.FieldInt(d, "window_days"))
		}
		return "A trigger came back often"
	case extract.CueRiskyEvent:
		if d := views.FieldLabel(d, "date"); d != "" {
			return "Risky event ahead on " + d
		}
		return "Risky event ahead"
	case memory.CueRisk:
		return "Risk statement (" + views.CmpOr(views.FieldLabel(d, "class"), "unclassified") + ", " + views.CmpOr(views.FieldLabel(d, "severity"), "unknown") + " severity)"
	}
	return strings.ReplaceAll(kind, "_", " ")
}
