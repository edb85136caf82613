package lara

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
	"github.com/mnemo-ai/mnemo/views"
)

// The page of a user of this kind: views builds the shell (title, the
// facts at the top, who may see it) and asks this package for the sections.
func init() {
	views.RegisterPage(extract.PageLearning, func(p *views.UserPage, ctx context.Context) ([]views.Section, error) {
		return page{p}.learning(ctx)
	})
}

// page is a user's page as this kind's builder reads it.
type page struct{ *views.UserPage }

// laraWindow is how far back LaRa's progress over time reaches.
const laraWindow = 90 * 24 * time.Hour

// laraMaxConcepts bounds the topics drawn over time (the most practised).
const laraMaxConcepts = 6

// laraMoods are the emotional counts LaRa keeps, with how the page names
// them: counts of moments, never a label about the child.
var laraMoods = []struct {
	label   string
	total   func(Emotional) float64   // all sessions
	session func(MoodSession) float64 // one recent session
}{
	{"Frustration moments", func(e Emotional) float64 { return float64(e.FrustrationCount) }, func(m MoodSession) float64 { return float64(m.Frustrated) }},
	{"Recoveries", func(e Emotional) float64 { return float64(e.RecoveryCount) }, func(m MoodSession) float64 { return float64(m.Recovered) }},
	{"Stable moments", func(e Emotional) float64 { return float64(e.StableCount) }, func(m MoodSession) float64 { return float64(m.Stable) }},
	{"Anxious moments", func(e Emotional) float64 { return float64(e.AnxiousCount) }, func(m MoodSession) float64 { return float64(m.Anxious) }},
}

// learning is a child's learning progress (docs/presets.md, LaRa): mastery per topic and over
// time, the emotional counts (never labels) and the preferences.
func (x page) learning(ctx context.Context) ([]views.Section, error) {
	recs, err := x.Store.ListRecords(ctx, x.User.ID, nil)
	if err != nil {
		return nil, err
	}
	mastery := views.Section{ID: "mastery", Title: "Mastery by topic", Attr: "lara-mastery",
		Intro: fmt.Sprintf("Mastery runs from 0 to %d; it rises after a run of successes at the topic's difficulty, at most once a session.", LaraMaxMastery)}
	over := views.Section{ID: "progress", Title: "Progress over time", Attr: "lara-progress",
		Intro: "The highest difficulty solved in each session, per topic, over the last 90 days (0: none solved that session)."}
	moods := views.Section{ID: "emotions", Title: "Emotional counts", Attr: "lara-emotions",
		Intro: "How many moments of each kind the learning app reported. Mnemo keeps counts only: it never stores a label about the child."}
	prefs := views.Section{ID: "preferences", Title: "Preferences", Attr: "lara-preferences"}

	var learning []Learning
	var preference []Preference
	var reinforcement []Reinforcement
	var keys, prefKeys, styles []string
	var emotional *Emotional
	current := ""
	for _, r := range recs {
		if r.App != x.User.App {
			continue
		}
		switch r.Type {
		case LaraLearning:
			learning, keys = append(learning, extract.DecodeJSON[Learning](r.Data)), append(keys, r.Key)
		case LaraEmotional:
			e := extract.DecodeJSON[Emotional](r.Data)
			emotional = &e
		case LaraPreference:
			preference, prefKeys = append(preference, extract.DecodeJSON[Preference](r.Data)), append(prefKeys, r.Key)
		case LaraReinforcement:
			reinforcement, styles = append(reinforcement, extract.DecodeJSON[Reinforcement](r.Data)), append(styles, r.Key)
		case LaraReinforcementState:
			current = views.ShortLabel(extract.DecodeJSON[ReinforcementState](r.Data).Style)
		}
	}

	// Mastery now.
	var lv []float64
	table := views.VTable{Caption: "Topics", Head: []string{"Topic", "Mastery", "Attempts", "Solved", "Difficulty now", "Last practised"}}
	for i, d := range learning {
		m := float64(d.MasteryLevel)
		lv = append(lv, m)
		table.Rows = append(table.Rows, []string{keys[i], views.Num(m) + " of " + strconv.Itoa(LaraMaxMastery), strconv.Itoa(d.TotalAttempts),
			strconv.Itoa(d.SuccessfulAttempts), strconv.Itoa(d.Difficulty), views.DateIn(views.ParseTime(d.LastPracticed), x.Loc)})
	}
	mastery.Charts = []*views.Chart{views.BarChart(views.BarSpec{ID: "lara-mastery", Title: "Mastery by topic", Horizontal: true,
		Desc: "Each topic's mastery level now, 0 to 5.", CategoryLabel: "Topic", ValueLabel: "Mastery level (0–5)",
		Categories: keys, Series: []views.BarSeries{{Values: lv}}, VMax: float64(LaraMaxMastery),
		Empty: "Topics appear once a session with attempt events (sent by the learning app at handoff) is processed."})}
	if len(table.Rows) > 0 {
		mastery.Tables = []views.VTable{table}
	}

	// Over time: the highest difficulty solved per session and topic.
	since := x.Now.Add(-laraWindow)
	events, err := x.Store.ListUserEvents(ctx, x.User.ID, []string{"attempt"}, since)
	if err != nil {
		return nil, err
	}
	byID := x.SessionByID()
	type cell struct {
		at   time.Time
		best float64
	}
	perConcept := map[string]map[string]*cell{} // concept → session → best
	practised := map[string]int{}
	for _, e := range events {
		d := views.Decode(e.Data)
		c := views.FieldLabel(d, "concept")
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
			if diff, ok := views.FieldFloat(d, "difficulty"); ok && diff > ce.best {
				ce.best = diff
			}
		}
	}
	concepts := views.SortedKeys(practised)
	slices.SortStableFunc(concepts, func(a, b string) int { return cmp.Compare(practised[b], practised[a]) })
	concepts = concepts[:min(len(concepts), laraMaxConcepts)]
	slices.Sort(concepts)
	var series []views.Series
	for _, c := range concepts {
		cells := make([]*cell, 0, len(perConcept[c]))
		for _, ce := range perConcept[c] {
			cells = append(cells, ce)
		}
		slices.SortFunc(cells, func(a, b *cell) int { return a.at.Compare(b.at) })
		sr := views.Series{Name: c}
		for _, ce := range cells {
			sr.Points = append(sr.Points, views.XY{X: views.Unix(ce.at), Y: ce.best, XText: views.TimeIn(ce.at, x.Loc)})
		}
		series = append(series, sr)
	}
	// The axis starts a week before the first session shown.
	from := x.Now
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
	over.Charts = []*views.Chart{views.LineChart(views.LineSpec{ID: "lara-progress", Title: "Highest difficulty solved per session",
		Desc:   fmt.Sprintf("%s over the last 90 days.", views.Plural(len(concepts), "topic", "topics")),
		XLabel: "Session ended (" + x.Loc.String() + ")", YLabel: "Difficulty solved (0–10)", Series: series,
		XTicks: views.TimeTicks(from, x.Now, x.Loc), XMin: views.Unix(from), XMax: views.Unix(x.Now), YMin: 0, YMax: 10,
		Empty: "Progress over time appears once sessions with attempt events from the last 90 days are handed over."})}

	// Emotional counts: totals, and per recent session.
	if emotional == nil {
		moods.Empty = "Counts appear once a session with mood events is processed."
	} else {
		var cats []string
		var totals []float64
		for _, m := range laraMoods {
			cats, totals = append(cats, m.label), append(totals, float64(int(m.total(*emotional))))
		}
		moods.Facts = []views.Fact{{Label: "Sessions counted", Value: strconv.Itoa(emotional.Sessions)},
			{Label: "Sessions in the last 30 days", Value: strconv.Itoa(emotional.Last30DaySessions)}}
		if avg := emotional.Last30DayAverage; avg != nil {
			moods.Facts = append(moods.Facts, views.Fact{Label: "Frustration and anxious moments a session", Value: views.Num(*avg), Note: "30-day average"})
		}
		moods.Charts = append(moods.Charts, views.BarChart(views.BarSpec{ID: "lara-moods", Title: "Moments counted, all sessions", Horizontal: true,
			Desc: "How many moments of each kind were reported in all sessions.", CategoryLabel: "Kind of moment", ValueLabel: "Moments",
			Categories: cats, Series: []views.BarSeries{{Values: totals}}, Empty: "No moments counted yet."}))
		var sessions []string
		perMood := make([][]float64, len(laraMoods))
		for _, e := range emotional.Recent {
			at := views.ParseTime(e.At)
			if at.IsZero() {
				continue
			}
			sessions = append(sessions, at.In(x.Loc).Format("Mon 2 Jan 15:04"))
			for i, m := range laraMoods {
				perMood[i] = append(perMood[i], float64(int(m.session(e))))
			}
		}
		series := make([]views.BarSeries, len(laraMoods))
		for i, m := range laraMoods {
			series[i] = views.BarSeries{Name: m.label, Values: perMood[i]}
		}
		moods.Charts = append(moods.Charts, views.BarChart(views.BarSpec{ID: "lara-moods-recent", Title: "Moments per session, last 30 days",
			Desc:          fmt.Sprintf("Moments of each kind in each of the %s of the last 30 days.", views.Plural(len(sessions), "session", "sessions")),
			CategoryLabel: "Session (" + x.Loc.String() + ")", ValueLabel: "Moments", Categories: sessions, Series: series,
			Empty: "No session with mood events in the last 30 days."}))
	}

	// Preferences and the reinforcement style.
	unused := cmp.Or(x.DecayPolicy().PreferenceUnused, decay.DefaultPolicy().PreferenceUnused)
	ptable := views.VTable{Caption: "Likes and dislikes", Head: []string{"", "What", "First said", "Last said", "Forgotten if unmentioned until"},
		Empty: fmt.Sprintf("Likes and dislikes appear once the child says one (\"I like dinosaurs\") in a processed session. At most %d are kept; one unmentioned for %d days is removed.",
			LaraMaxPreferences, int(unused.Hours()/24))}
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
		var last time.Time
		if d.LastSeen != nil {
			last = views.ParseTime(*d.LastSeen)
		}
		until := "–"
		if !last.IsZero() {
			until = views.DateIn(last.Add(unused), x.Loc)
		}
		prows = append(prows, prow{last, []string{kind, views.BoundText(d.Value), views.DateIn(views.ParseTime(d.FirstSeen), x.Loc), views.DateIn(last, x.Loc), until}})
	}
	slices.SortStableFunc(prows, func(a, b prow) int { return b.last.Compare(a.last) })
	for _, p := range prows {
		ptable.Rows = append(ptable.Rows, p.row)
	}
	prefs.Tables = []views.VTable{ptable}
	var rates []float64
	for _, d := range reinforcement {
		rates = append(rates, d.SuccessRate)
	}
	prefs.Facts = []views.Fact{{Label: "Preferences kept", Value: fmt.Sprintf("%d of %d", len(preference), LaraMaxPreferences)},
		{Label: "Encouragement style", Value: views.CmpOr(current, "–"), Note: "switches only after enough evidence"}}
	prefs.Charts = []*views.Chart{views.BarChart(views.BarSpec{ID: "lara-styles", Title: "Encouragement styles that worked", Horizontal: true,
		Desc: "The success rate of each encouragement style tried.", CategoryLabel: "Style", ValueLabel: "Success rate (%)",
		Categories: styles, Series: []views.BarSeries{{Values: rates}}, VMax: 1, Format: views.PctOf,
		Empty: "Styles appear once sessions with reinforcement events are processed."})}
	return []views.Section{mastery, over, moods, prefs}, nil
}
