package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/store"
)

// insightWeeks is how many weeks of insights the page lists and charts.
const insightWeeks = 12

type insightsBody struct {
	Heading  string
	Weeks    []weekLink
	Sections []Section
}

type weekLink struct {
	Week, Label string
	Current     bool
}

// adminReader is what an operator's page starts with: 403 unless the
// viewer is an admin, then the store's ViewReader (every store implements
// it). false: the answer is written.
func (h *Handler) adminReader(w http.ResponseWriter, r *http.Request) (store.ViewReader, bool) {
	if !h.requireAdmin(w, r) {
		return nil, false
	}
	v, ok := h.cfg.Store.(store.ViewReader)
	if !ok {
		h.fail(w, r, fmt.Errorf("views: store %T cannot be read for views", h.cfg.Store))
		return nil, false
	}
	return v, true
}

// insights is the supervisors' page: one week's anonymised insights per
// app, groups smaller than k shown as suppressed, never hidden silently.
func (h *Handler) insights(w http.ResponseWriter, r *http.Request) {
	vr, ok := h.adminReader(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	weeks, err := vr.ViewInsightWeeks(ctx, insightWeeks)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	week := r.URL.Query().Get("week_ending")
	if week != "" {
		if _, err := time.Parse(time.DateOnly, week); err != nil {
			h.Error(w, r, http.StatusBadRequest, "Which week?", "week_ending must be a date such as 2026-11-22.")
			return
		}
	} else if len(weeks) > 0 {
		week = weeks[0]
	}
	body := insightsBody{Heading: "Anonymised, per app: counts and rates over at least k users; a smaller group is suppressed, and shown as such."}
	for _, wk := range weeks {
		body.Weeks = append(body.Weeks, weekLink{Week: wk, Label: "w/e " + WeekLabel(wk), Current: wk == week})
	}
	apps := h.insightApps()
	if week == "" {
		empty := h.afterBatch("Insights appear", aggregate.BatchInsights, time.UTC) + " It adds up the week's analytics of every user of " +
			appList(apps) + "; a week with fewer than k users is suppressed."
		body.Sections = []Section{{ID: "none", Title: "No insights yet", Empty: empty, Attr: "insights-empty"}}
		h.render(w, r, http.StatusOK, "insights", page{Title: "Supervisor insights", Body: body})
		return
	}
	current, err := h.weekInsights(ctx, vr, week)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	history := map[string]map[string]aggregate.Insights{} // week → app → insights
	for _, wk := range weeks {
		if history[wk], err = h.weekInsights(ctx, vr, wk); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	for _, app := range apps {
		in, ok := current[app]
		sec := Section{ID: "app-" + app, Title: app + ", week ending " + WeekLabel(week), Attr: "insights-" + app}
		switch {
		case !ok:
			sec.Empty = fmt.Sprintf("No insights for %s in the week ending %s: the insights batch has not run for it (%s).",
				app, week, h.afterBatch("they appear", aggregate.BatchInsights, time.UTC))
		case in.Suppressed:
			sec.Notice = fmt.Sprintf("Suppressed: fewer than %d users were active in this week, so nothing is shown that could describe an individual.", in.MinGroupSize)
			sec.Attr += " suppressed"
		default:
			h.insightSection(&sec, in)
		}
		sec.Charts = append(sec.Charts, h.insightHistory(app, weeks, history))
		sec.Tables = append(sec.Tables, insightWeeksTable(app, weeks, history))
		body.Sections = append(body.Sections, sec)
	}
	h.render(w, r, http.StatusOK, "insights", page{Title: "Supervisor insights", Body: body})
}

// insightApps are the apps whose users' weeks are added up into insights.
func (h *Handler) insightApps() []string {
	if h.cfg.AppsFeeding == nil {
		return nil
	}
	return h.cfg.AppsFeeding(aggregate.BatchInsights)
}

func appList(apps []string) string {
	if len(apps) == 0 {
		return "an app whose kind declares weekly analytics (none is configured)"
	}
	return fmt.Sprint(apps)
}

func (h *Handler) weekInsights(ctx context.Context, vr store.ViewReader, week string) (map[string]aggregate.Insights, error) {
	list, err := vr.ViewInsights(ctx, week)
	if err != nil {
		return nil, err
	}
	out := map[string]aggregate.Insights{}
	for _, in := range list {
		var a aggregate.Insights
		if err := json.Unmarshal(in.Data, &a); err != nil {
			return nil, errors.Join(fmt.Errorf("insights of %s %s do not decode", in.App, week), err)
		}
		out[in.App] = a
	}
	return out, nil
}

// insightSection fills a section with one app's week.
func (h *Handler) insightSection(sec *Section, in aggregate.Insights) {
	m := in.AggregateMetrics
	sec.Facts = []Fact{{Label: "Active users", Value: strconv.Itoa(in.TotalActiveUsers), Note: fmt.Sprintf("k = %d", in.MinGroupSize)}}
	if m == nil {
		return
	}
	sec.Facts = append(sec.Facts, Fact{Label: "Sessions", Value: strconv.Itoa(m.TotalSessions)},
		Fact{Label: "Mean urge intensity", Value: dec1(m.AverageUrgeIntensity), Note: "0–10"},
		Fact{Label: "Urges that passed", Value: pctPtr(m.OverallSuccessRate), Note: "of sessions with an outcome"})
	var tc []string
	var tv []float64
	for _, t := range m.MostCommonTriggers {
		tc, tv = append(tc, t.Trigger), append(tv, float64(t.Count))
	}
	var sc []string
	var sv []float64
	for _, s := range m.MostEffectiveStrategies {
		sc, sv = append(sc, fmt.Sprintf("%s (%d)", s.Strategy, s.Uses)), append(sv, s.SuccessRate)
	}
	sec.Charts = append(sec.Charts,
		BarChart(BarSpec{ID: "insights-triggers-" + in.App, Title: "Most common triggers", Horizontal: true,
			Desc: "Sessions naming each trigger; only triggers named by at least k users are shown.", CategoryLabel: "Trigger",
			ValueLabel: "Sessions", Categories: tc, Series: []BarSeries{{Values: tv}},
			Empty: fmt.Sprintf("No trigger was named by %d or more users this week.", in.MinGroupSize)}),
		BarChart(BarSpec{ID: "insights-strategies-" + in.App, Title: "Most effective strategies", Horizontal: true,
			Desc: "Success rate of each strategy used by at least k users; sessions in brackets.", CategoryLabel: "Strategy (sessions)",
			ValueLabel: "Success rate (%)", Categories: sc, Series: []BarSeries{{Values: sv}}, VMax: 1, Format: PctOf,
			Empty: fmt.Sprintf("No strategy was used by %d or more users this week.", in.MinGroupSize)}))
	sec.Lists = []List{{Title: "Notable patterns", Items: in.NotablePatterns, Empty: "No pattern stood out this week."}}
}

// insightHistory charts an app's active users and sessions over the weeks
// listed; a suppressed week is a gap, named as such in the table.
func (h *Handler) insightHistory(app string, weeks []string, history map[string]map[string]aggregate.Insights) *Chart {
	var ticks []Tick
	var users, sessions []XY
	ordered := slices.Clone(weeks)
	slices.Reverse(ordered)
	gap := false
	suppressed := 0
	var marks []Marker
	for i, wk := range ordered {
		lbl := "w/e " + WeekLabel(wk)
		ticks = append(ticks, Tick{float64(i), lbl})
		in, ok := history[wk][app]
		if !ok || in.Suppressed || in.AggregateMetrics == nil {
			if ok && in.Suppressed {
				suppressed++
				marks = append(marks, Marker{V: float64(i), Label: "suppressed", Class: "marker suppressed"})
			}
			gap = true
			continue
		}
		users = append(users, XY{X: float64(i), Y: float64(in.TotalActiveUsers), XText: lbl, Gap: gap})
		sessions = append(sessions, XY{X: float64(i), Y: float64(in.AggregateMetrics.TotalSessions), XText: lbl, Gap: gap})
		gap = false
	}
	c := LineChart(LineSpec{ID: "insights-history-" + app, Title: "Active users and sessions by week",
		Desc:   fmt.Sprintf("%s shown; %s suppressed (gaps in the lines).", Plural(len(users), "week", "weeks"), Plural(suppressed, "week", "weeks")),
		XLabel: "Week ending", YLabel: "Users, sessions", Series: []Series{{Name: "Active users", Points: users}, {Name: "Sessions", Points: sessions}},
		XTicks: ticks, XMin: -0.3, XMax: float64(max(len(ordered), 1)) - 0.7, Markers: marks,
		Empty: fmt.Sprintf("Every listed week of %s was suppressed or not computed: a week is shown once k or more users were active in it.", app)})
	for _, wk := range ordered {
		if in, ok := history[wk][app]; ok && in.Suppressed {
			c.Table.Rows = append(c.Table.Rows, append(make([]string, 0, 3), "Active users", "w/e "+WeekLabel(wk), "suppressed (fewer than "+strconv.Itoa(in.MinGroupSize)+" users)"))
		}
	}
	return c
}

// insightWeeksTable lists an app's weeks, newest first, a suppressed week
// said to be one.
func insightWeeksTable(app string, weeks []string, history map[string]map[string]aggregate.Insights) VTable {
	t := VTable{Caption: "Recent weeks of " + app, Head: []string{"Week ending", "Active users", "Sessions", "Shown"},
		Empty: "No week has insights yet."}
	for _, wk := range weeks {
		in, ok := history[wk][app]
		switch {
		case !ok:
			t.Rows = append(t.Rows, []string{WeekLabel(wk), "–", "–", "not computed"})
		case in.Suppressed:
			t.Rows = append(t.Rows, []string{WeekLabel(wk), "–", "–", fmt.Sprintf("suppressed: fewer than %d users", in.MinGroupSize)})
		default:
			sessions := "–"
			if in.AggregateMetrics != nil {
				sessions = strconv.Itoa(in.AggregateMetrics.TotalSessions)
			}
			t.Rows = append(t.Rows, []string{WeekLabel(wk), strconv.Itoa(in.TotalActiveUsers), sessions, "yes"})
		}
		if len(t.RowLinks) < len(t.Rows) {
			t.RowLinks = append(t.RowLinks, Prefix+"/insights?week_ending="+wk)
		}
	}
	return t
}

func dec1(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

func pctPtr(v *float64) string {
	if v == nil {
		return "–"
	}
	return PctOf(*v)
}
