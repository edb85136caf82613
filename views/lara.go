package views

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
)

// laraWindow is how far back LaRa's progress over time reaches.
const laraWindow = 90 * 24 * time.Hour

// laraMaxConcepts bounds the topics drawn over time (the most practised).
const laraMaxConcepts = 6

// laraMoods are the emotional counts LaRa keeps, with how the page names
// them: counts of moments, never a label about the child.
var laraMoods = []struct{ key, total, label string }{
	{extract.MoodFrustrated, "frustration_count", "Frustration moments"},
	{extract.MoodRecovered, "recovery_count", "Recoveries"},
	{extract.MoodStable, "stable_count", "Stable moments"},
	{extract.MoodAnxious, "anxious_count", "Anxious moments"},
}

// learning is a child's learning progress (docs/presets.md, LaRa): mastery per topic and over
// time, the emotional counts (never labels) and the preferences.
func (x *userCtx) learning(ctx context.Context) ([]Section, error) {
	recs, err := x.st.ListRecords(ctx, x.u.ID, nil)
	if err != nil {
		return nil, err
	}
	mastery := Section{ID: "mastery", Title: "Mastery by topic", Attr: "lara-mastery",
		Intro: fmt.Sprintf("Mastery runs from 0 to %d; it rises after a run of successes at the topic's difficulty, at most once a session.", extract.LaraMaxMastery)}
	over := Section{ID: "progress", Title: "Progress over time", Attr: "lara-progress",
		Intro: "The highest difficulty solved in each session, per topic, over the last 90 days (0: none solved that session)."}
	moods := Section{ID: "emotions", Title: "Emotional counts", Attr: "lara-emotions",
		Intro: "How many moments of each kind the learning app reported. Mnemo keeps counts only: it never stores a label about the child."}
	prefs := Section{ID: "preferences", Title: "Preferences", Attr: "lara-preferences"}

	var learning, preference, reinforcement []map[string]any
	var keys, prefKeys, styles []string
	var emotional map[string]any
	current := ""
	for _, r := range recs {
		if r.App != x.u.App {
			continue
		}
		d := decode(r.Data)
		switch r.Kind {
		case extract.LaraLearning:
			learning, keys = append(learning, d), append(keys, r.Key)
		case extract.LaraEmotional:
			emotional = d
		case extract.LaraPreference:
			preference, prefKeys = append(preference, d), append(prefKeys, r.Key)
		case extract.LaraReinforcement:
			reinforcement, styles = append(reinforcement, d), append(styles, r.Key)
		case extract.LaraReinforcementState:
			current = label(d, "style")
		}
	}

	// Mastery now.
	var lv []float64
	table := VTable{Caption: "Topics", Head: []string{"Topic", "Mastery", "Attempts", "Solved", "Difficulty now", "Last practised"}}
	for i, d := range learning {
		m, _ := fnum(d, "mastery_level")
		lv = append(lv, m)
		table.Rows = append(table.Rows, []string{keys[i], num(m) + " of " + strconv.Itoa(extract.LaraMaxMastery), strconv.Itoa(inum(d, "total_attempts")),
			strconv.Itoa(inum(d, "successful_attempts")), strconv.Itoa(inum(d, "difficulty")), dateIn(timeField(d, "last_practiced"), x.loc)})
	}
	mastery.Charts = []*Chart{BarChart(BarSpec{ID: "lara-mastery", Title: "Mastery by topic", Horizontal: true,
		Desc: "Each topic's mastery level now, 0 to 5.", CategoryLabel: "Topic", ValueLabel: "Mastery level (0–5)",
		Categories: keys, Series: []BarSeries{{Values: lv}}, VMax: float64(extract.LaraMaxMastery),
		Empty: "Topics appear once a session with attempt events (sent by the learning app at handoff) is processed."})}
	if len(table.Rows) > 0 {
		mastery.Tables = []VTable{table}
	}

	// Over time: the highest difficulty solved per session and topic.
	since := x.now.Add(-laraWindow)
	events, err := x.st.ListUserEvents(ctx, x.u.ID, []string{"attempt"}, since)
	if err != nil {
		return nil, err
	}
	byID := x.sessionByID()
	type cell struct {
		at   time.Time
		best float64
	}
	perConcept := map[string]map[string]*cell{} // concept → session → best
	practised := map[string]int{}
	for _, e := range events {
		d := decode(e.Data)
		c := label(d, "concept")
		if c == "" {
			continue
		}
		s, ok := byID[e.SessionID]
		at := e.At
		if ok {
			at = s.EndedAt
		}
		if perConcept[c] == nil {
			perConcept[c] = map[string]*cell{}
		}
		ce := perConcept[c][e.SessionID]
		if ce == nil {
			ce = &cell{at: at}
			perConcept[c][e.SessionID] = ce
			practised[c]++
		}
		if ok, _ := d["success"].(bool); ok {
			if diff, ok := fnum(d, "difficulty"); ok && diff > ce.best {
				ce.best = diff
			}
		}
	}
	concepts := sortedKeys(practised)
	slices.SortStableFunc(concepts, func(a, b string) int { return cmp.Compare(practised[b], practised[a]) })
	concepts = concepts[:min(len(concepts), laraMaxConcepts)]
	slices.Sort(concepts)
	var series []Series
	for _, c := range concepts {
		cells := make([]*cell, 0, len(perConcept[c]))
		for _, ce := range perConcept[c] {
			cells = append(cells, ce)
		}
		slices.SortFunc(cells, func(a, b *cell) int { return a.at.Compare(b.at) })
		sr := Series{Name: c}
		for _, ce := range cells {
			sr.Points = append(sr.Points, XY{X: unix(ce.at), Y: ce.best, XText: timeIn(ce.at, x.loc)})
		}
		series = append(series, sr)
	}
	// The axis starts a week before the first session shown.
	from := x.now
	for _, sr := range series {
		for _, p := range sr.Points {
			if t := time.Unix(int64(p.X), 0).AddDate(0, 0, -7); t.Before(from) {
				from = t
			}
		}
	}
	if from.Before(since) || len(series) == 0 {
		from = since
	}
	over.Charts = []*Chart{LineChart(LineSpec{ID: "lara-progress", Title: "Highest difficulty solved per session",
		Desc:   fmt.Sprintf("%s over the last 90 days.", plural(len(concepts), "topic", "topics")),
		XLabel: "Session ended (" + x.loc.String() + ")", YLabel: "Difficulty solved (0–10)", Series: series,
		XTicks: TimeTicks(from, x.now, x.loc), XMin: unix(from), XMax: unix(x.now), YMin: 0, YMax: 10,
		Empty: "Progress over time appears once sessions with attempt events from the last 90 days are handed over."})}

	// Emotional counts: totals, and per recent session.
	if emotional == nil {
		moods.Empty = "Counts appear once a session with mood events is processed."
	} else {
		var cats []string
		var totals []float64
		for _, m := range laraMoods {
			cats, totals = append(cats, m.label), append(totals, float64(inum(emotional, m.total)))
		}
		moods.Facts = []Fact{{Label: "Sessions counted", Value: strconv.Itoa(inum(emotional, "sessions"))},
			{Label: "Sessions in the last 30 days", Value: strconv.Itoa(inum(emotional, "last_30_day_sessions"))}}
		if avg, ok := fnum(emotional, "last_30_day_average"); ok {
			moods.Facts = append(moods.Facts, Fact{Label: "Frustration and anxious moments a session", Value: num(avg), Note: "30-day average"})
		}
		moods.Charts = append(moods.Charts, BarChart(BarSpec{ID: "lara-moods", Title: "Moments counted, all sessions", Horizontal: true,
			Desc: "How many moments of each kind were reported in all sessions.", CategoryLabel: "Kind of moment", ValueLabel: "Moments",
			Categories: cats, Series: []BarSeries{{Values: totals}}, Empty: "No moments counted yet."}))
		recent, _ := emotional["recent"].([]any)
		var sessions []string
		perMood := make([][]float64, len(laraMoods))
		for _, item := range recent {
			e, _ := item.(map[string]any)
			at := timeField(e, "at")
			if at.IsZero() {
				continue
			}
			sessions = append(sessions, at.In(x.loc).Format("Mon 2 Jan 15:04"))
			for i, m := range laraMoods {
				perMood[i] = append(perMood[i], float64(inum(e, m.key)))
			}
		}
		series := make([]BarSeries, len(laraMoods))
		for i, m := range laraMoods {
			series[i] = BarSeries{Name: m.label, Values: perMood[i]}
		}
		moods.Charts = append(moods.Charts, BarChart(BarSpec{ID: "lara-moods-recent", Title: "Moments per session, last 30 days",
			Desc:          fmt.Sprintf("Moments of each kind in each of the %s of the last 30 days.", plural(len(sessions), "session", "sessions")),
			CategoryLabel: "Session (" + x.loc.String() + ")", ValueLabel: "Moments", Categories: sessions, Series: series,
			Empty: "No session with mood events in the last 30 days."}))
	}

	// Preferences and the reinforcement style.
	unused := cmp.Or(x.h.cfg.Deps.Batch.Decay.PreferenceUnused, decay.DefaultPolicy().PreferenceUnused)
	ptable := VTable{Caption: "Likes and dislikes", Head: []string{"", "What", "First said", "Last said", "Forgotten if unmentioned until"},
		Empty: fmt.Sprintf("Likes and dislikes appear once the child says one (\"I like dinosaurs\") in a processed session. At most %d are kept; one unmentioned for %d days is removed.",
			extract.LaraMaxPreferences, int(unused.Hours()/24))}
	type prow struct {
		last time.Time
		row  []string
	}
	var prows []prow
	for i, d := range preference {
		kind := "Likes"
		switch {
		case strings.HasPrefix(prefKeys[i], "dislikes:"):
			kind = "Dislikes"
		case strings.HasPrefix(prefKeys[i], "favorite_"):
			kind = "Favourite " + strings.ReplaceAll(strings.TrimPrefix(prefKeys[i], "favorite_"), "_", " ")
		}
		last := timeField(d, "last_seen")
		until := "–"
		if !last.IsZero() {
			until = dateIn(last.Add(unused), x.loc)
		}
		prows = append(prows, prow{last, []string{kind, text(d, "value"), dateIn(timeField(d, "first_seen"), x.loc), dateIn(last, x.loc), until}})
	}
	slices.SortStableFunc(prows, func(a, b prow) int { return b.last.Compare(a.last) })
	for _, p := range prows {
		ptable.Rows = append(ptable.Rows, p.row)
	}
	prefs.Tables = []VTable{ptable}
	var rates []float64
	for _, d := range reinforcement {
		r, _ := fnum(d, "success_rate")
		rates = append(rates, r)
	}
	prefs.Facts = []Fact{{Label: "Preferences kept", Value: fmt.Sprintf("%d of %d", len(preference), extract.LaraMaxPreferences)},
		{Label: "Encouragement style", Value: cmpOr(current, "–"), Note: "switches only after enough evidence"}}
	prefs.Charts = []*Chart{BarChart(BarSpec{ID: "lara-styles", Title: "Encouragement styles that worked", Horizontal: true,
		Desc: "The success rate of each encouragement style tried.", CategoryLabel: "Style", ValueLabel: "Success rate (%)",
		Categories: styles, Series: []BarSeries{{Values: rates}}, VMax: 1, Format: pctOf,
		Empty: "Styles appear once sessions with reinforcement events are processed."})}
	return []Section{mastery, over, moods, prefs}, nil
}
