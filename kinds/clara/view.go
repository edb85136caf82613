package clara

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/views"
)

// The page of a user of this kind: views builds the shell (title, the
// facts at the top, who may see it) and asks this package for the sections.
func init() {
	views.RegisterPage(extract.PageCaregiver, func(p *views.UserPage, ctx context.Context) ([]views.Section, error) {
		return page{p}.caregiver(ctx)
	})
}

// page is a user's page as this kind's builder reads it.
type page struct{ *views.UserPage }

// claraWindow is how far back Clara's emotion timeline reaches.
const claraWindow = 30 * 24 * time.Hour

// claraSessionCharts is how many recent sessions get a timeline of their own.
const claraSessionCharts = 5

// caregiver is the caregiver's page (docs/presets.md, Clara): at the top
// the risk findings (views' safety section) and the concerns, then emotions per session and over
// 30 days, the distress baseline with morning and evening, repetition, and
// which narratives calm. It reads the chat service's events and the
// summaries' structured fields, never what the user typed.
func (x page) caregiver(ctx context.Context) ([]views.Section, error) {
	since := x.Now.Add(-claraWindow)
	events, err := x.Store.ListUserEvents(ctx, x.User.ID, []string{"emotion", "narrative", "escalation"}, since)
	if err != nil {
		return nil, err
	}
	sums, _, err := x.Summaries(ctx, 60)
	if err != nil {
		return nil, err
	}
	byID := x.SessionByID()
	bySession := map[string][]store.Event{}
	for _, e := range events {
		bySession[e.SessionID] = append(bySession[e.SessionID], e)
	}
	recent := x.Recent(since)

	// Over 30 days: every emotion reading with a distress score; each
	// session's readings joined, sessions apart.
	var pts []views.XY
	var escalations []views.Marker
	readings, withReadings := 0, 0
	for _, s := range recent {
		first := true
		for _, e := range bySession[s.ID] {
			d := views.Decode(e.Data)
			switch e.Type {
			case "emotion":
				v, ok := views.FieldFloat(d, "distress_score")
				if !ok {
					continue
				}
				pts = append(pts, views.XY{X: views.Unix(e.At), Y: v, XText: views.TimeIn(e.At, x.Loc), Note: views.FieldLabel(d, "emotion"), Gap: first})
				if first {
					withReadings++
				}
				first = false
				readings++
			case "escalation":
				escalations = append(escalations, views.Marker{V: views.Unix(e.At), Label: "escalation"})
			}
		}
	}
	timeline := views.LineChart(views.LineSpec{ID: "clara-30-days", Title: "Distress over the last 30 days",
		Desc:   fmt.Sprintf("%s from %s; each session's readings are joined by a line.", views.Plural(readings, "emotion reading", "emotion readings"), views.Plural(withReadings, "session", "sessions")),
		XLabel: "Date (" + x.Loc.String() + ")", YLabel: "Distress (0–1)", Series: []views.Series{{Name: "Distress", Points: pts}},
		XTicks: views.TimeTicks(since, x.Now, x.Loc), XMin: views.Unix(since), XMax: views.Unix(x.Now), YMin: 0, YMax: 1, Markers: escalations,
		Empty: "Emotion readings appear here once a session with emotion events (sent by the chat service at handoff) ends in the last 30 days."})
	over := views.Section{ID: "emotions", Title: "Emotions over 30 days", Attr: "clara-emotions",
		Intro:  "Each point is an emotion reading the chat service sent with a session: its distress score from 0 (calm) to 1 (very distressed).",
		Charts: []*views.Chart{timeline}}
	over.Facts = []views.Fact{{Label: "Sessions in 30 days", Value: strconv.Itoa(len(recent))},
		{Label: "Escalations in 30 days", Value: strconv.Itoa(len(escalations))}}

	// The latest sessions, each on its own timeline.
	per := views.Section{ID: "sessions", Title: "Recent sessions", Attr: "clara-sessions",
		Intro: "Distress through each of the latest sessions, in minutes from its start; dashed lines mark the stories Clara told and escalations."}
	var shown []store.Session
	for i := len(recent) - 1; i >= 0 && len(shown) < claraSessionCharts; i-- {
		if len(bySession[recent[i].ID]) > 0 {
			shown = append(shown, recent[i])
		}
	}
	for _, s := range shown {
		var sp []views.XY
		var marks []views.Marker
		for _, e := range bySession[s.ID] {
			d := views.Decode(e.Data)
			mins := e.At.Sub(s.StartedAt).Minutes()
			switch e.Type {
			case "emotion":
				if v, ok := views.FieldFloat(d, "distress_score"); ok {
					sp = append(sp, views.XY{X: mins, Y: v, XText: fmt.Sprintf("%s (minute %s)", e.At.In(x.Loc).Format("15:04"), views.Num(mins)), Note: views.FieldLabel(d, "emotion")})
				}
			case "narrative":
				marks = append(marks, views.Marker{V: mins, Label: views.CmpOr(views.FieldLabel(d, "category"), "story")})
			case "escalation":
				marks = append(marks, views.Marker{V: mins, Label: "escalation"})
			}
		}
		length := s.EndedAt.Sub(s.StartedAt).Minutes()
		per.Charts = append(per.Charts, views.LineChart(views.LineSpec{ID: "clara-session-" + strconv.Itoa(len(per.Charts)+1),
			Title:  "Session of " + views.TimeIn(s.EndedAt, x.Loc),
			Desc:   fmt.Sprintf("%s over %s minutes.", views.Plural(len(sp), "emotion reading", "emotion readings"), views.Num(length)),
			XLabel: "Minutes from the session's start", YLabel: "Distress (0–1)", Series: []views.Series{{Name: "Distress", Points: sp}},
			XMin: 0, XMax: max(length, 1), YMin: 0, YMax: 1, Markers: marks, Height: 200,
			Empty: "This session had no emotion reading with a distress score."}))
	}
	if len(shown) == 0 {
		per.Empty = "Timelines of the latest sessions appear once a session with emotion events is handed over."
	}
	table := views.VTable{Caption: "Sessions of the last 30 days", Head: []string{"Ended", "Minutes", "Messages", "Dominant emotion", "Emotional arc", "Escalation", "Stories told"},
		Empty: "No session ended in the last 30 days."}
	for i := len(recent) - 1; i >= 0; i-- {
		s := recent[i]
		sum := sums[s.ID]
		if sum == nil {
			table.Rows = append(table.Rows, []string{views.TimeIn(s.EndedAt, x.Loc), views.Num(s.EndedAt.Sub(s.StartedAt).Minutes()),
				strconv.Itoa(s.MessageCount), "–", "–", "–", "not processed yet"})
			continue
		}
		table.Rows = append(table.Rows, []string{views.TimeIn(s.EndedAt, x.Loc), strconv.Itoa(views.FieldInt(sum, "duration_minutes")),
			strconv.Itoa(views.FieldInt(sum, "message_count")), views.CmpOr(views.FieldLabel(sum, "dominant_emotion"), "–"), views.CmpOr(arc(sum), "–"),
			views.FieldFlag(sum, "escalation_triggered"), strconv.Itoa(views.FieldInt(sum, "narratives_used"))})
	}
	per.Tables = []views.VTable{table}

	// Concerns the user's own words raised, as labels with their day: the
	// caregiver's page alone shows them (SeesCaregiverNotes).
	concerns := views.Section{ID: "concerns", Title: "Concerns", Attr: "clara-concerns",
		Intro: "What the person said that a caregiver may want to follow up: a fall, pain, not eating, confusion about medication, getting lost, a stranger at the door. Labels only, never their words."}
	ctable := views.VTable{Caption: "Concerns of the last 30 days, newest first", Head: []string{"Day", "Concern", "Session"},
		Empty: "No concern in the sessions of the last 30 days."}
	for i := len(recent) - 1; i >= 0; i-- {
		s := recent[i]
		var ns []extract.CaregiverNote
		if notes := x.Kind().View().Notes; notes != nil {
			ns = notes(sums[s.ID])
		}
		for j := len(ns) - 1; j >= 0; j-- {
			ctable.Rows = append(ctable.Rows, []string{ns[j].Date, ns[j].What, x.SessionLabel(s)})
		}
	}
	concerns.Facts = []views.Fact{{Label: "Concerns in 30 days", Value: strconv.Itoa(len(ctable.Rows))}}
	concerns.Tables = []views.VTable{ctable}

	// Trends: baseline, morning and evening, weeks, repetition, narratives.
	trendsEmpty := x.AfterBatch("The distress baseline, morning and evening averages, repetition and narrative effects appear", jobs.BatchTrends, x.Loc)
	base := views.Section{ID: "baseline", Title: "Distress baseline", Attr: "clara-baseline",
		Intro: "Over the latest 30 sessions: the baseline is the mean of each session's mean distress; morning is 06:00–11:59 and evening 18:00–22:59 in the user's time zone."}
	rep := views.Section{ID: "repetition", Title: "Repetition", Attr: "clara-repetition",
		Intro: "Which kinds of question came back, for the caregiver only: Clara never tells the user they asked before."}
	calm := views.Section{ID: "narratives", Title: "What calms", Attr: "clara-narratives",
		Intro: "The mean change in distress from the reading before a story to the reading after it, by kind of story: below zero, distress fell."}
	row, err := x.Store.GetTrends(ctx, x.User.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		base.Empty, rep.Empty, calm.Empty = trendsEmpty, trendsEmpty, trendsEmpty
	case err != nil:
		return nil, err
	default:
		var tr aggregate.DistressTrends
		if err := json.Unmarshal(row.Data, &tr); err != nil {
			base.Empty = "The stored trends could not be read; they are computed again by the next trends batch."
			rep.Empty, calm.Empty = base.Empty, base.Empty
			break
		}
		computed, _ := time.Parse(time.RFC3339, tr.ComputedAt)
		base.Facts = []views.Fact{{Label: "Baseline distress", Value: views.Dec(tr.BaselineDistress), Note: "0 calm – 1 very distressed"},
			{Label: "Morning average", Value: views.Dec(tr.MorningAverage), Note: "06:00–11:59"},
			{Label: "Evening average", Value: views.Dec(tr.EveningAverage), Note: "18:00–22:59"},
			{Label: "Sessions considered", Value: strconv.Itoa(tr.SessionsConsidered)},
			{Label: "Computed", Value: views.TimeIn(computed, x.Loc), Note: "next: " + views.CmpOr(x.NextRun(jobs.BatchTrends, x.Loc), "not scheduled")}}
		base.Charts = append(base.Charts, views.BarChart(views.BarSpec{ID: "clara-morning-evening", Title: "Baseline, morning and evening distress",
			Desc:          "Mean distress overall, in the morning and in the evening.",
			CategoryLabel: "Time of day", ValueLabel: "Mean distress (0–1)", Categories: []string{"Baseline", "Morning", "Evening"},
			Series: []views.BarSeries{{Name: "", Values: []float64{views.NaNOr(tr.BaselineDistress), views.NaNOr(tr.MorningAverage), views.NaNOr(tr.EveningAverage)}}},
			VMax:   1, Format: func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
			Empty: "No emotion reading with a distress score yet."}))
		var wk []views.XY
		var ticks []views.Tick
		for i, w := range tr.WeeklyAverages {
			lbl := "w/e " + views.WeekLabel(w.WeekEnding)
			ticks = append(ticks, views.Tick{V: float64(i), Label: lbl})
			if w.Average != nil {
				wk = append(wk, views.XY{X: float64(i), Y: *w.Average, XText: lbl, Note: views.Plural(w.Sessions, "session", "sessions")})
			}
		}
		var marks []views.Marker
		if tr.BaselineDistress != nil {
			marks = append(marks, views.Marker{V: *tr.BaselineDistress, Label: "baseline", Horizontal: true, Class: "marker baseline"})
		}
		base.Charts = append(base.Charts, views.LineChart(views.LineSpec{ID: "clara-weeks", Title: "Mean distress by week",
			Desc: "The last four weeks ending today, with the baseline for reference.", XLabel: "Week ending (" + x.Loc.String() + ")",
			YLabel: "Mean distress (0–1)", Series: []views.Series{{Name: "Weekly mean", Points: wk}}, XTicks: ticks,
			XMin: -0.3, XMax: float64(max(len(tr.WeeklyAverages), 1)) - 0.7, YMin: 0, YMax: 1, Markers: marks,
			Empty: "No session with a distress score ended in the last four weeks."}))

		chronic := "no"
		if tr.ChronicRepetitionPattern {
			chronic = "yes"
		}
		rep.Facts = []views.Fact{{Label: "Chronic repetition", Value: chronic, Note: fmt.Sprintf("%d or more of the last %d sessions", aggregate.ChronicMinSessions, aggregate.ChronicWindow)},
			{Label: "Sessions of chronic repetition", Value: strconv.Itoa(tr.ChronicRepetitionSessions), Note: fmt.Sprintf("a question repeated %d+ times", aggregate.ChronicRepeat)}}
		var cats []string
		var counts []float64
		for _, q := range tr.TopQuestionTypes {
			cats, counts = append(cats, q.QuestionType), append(counts, float64(q.Count))
		}
		rep.Charts = append(rep.Charts, views.BarChart(views.BarSpec{ID: "clara-question-types", Title: "Questions by type", Horizontal: true,
			Desc: "How many questions of each type the latest sessions held.", CategoryLabel: "Question type", ValueLabel: "Questions",
			Categories: cats, Series: []views.BarSeries{{Name: "", Values: counts}},
			Empty: "No question events in the latest sessions."}))

		cats, counts = nil, nil
		var uses []string
		for _, n := range tr.NarrativeEffectiveness {
			cats = append(cats, n.Category)
			counts = append(counts, n.MeanDistressChange)
			uses = append(uses, n.Category+": "+views.Plural(n.Uses, "story", "stories")+", mean change "+views.Signed(n.MeanDistressChange))
		}
		calm.Charts = append(calm.Charts, views.BarChart(views.BarSpec{ID: "clara-narratives", Title: "Change in distress after a story", Horizontal: true,
			Desc: "Mean change in distress after each kind of story; negative values mean the user grew calmer.", CategoryLabel: "Kind of story",
			ValueLabel: "Mean change in distress", Categories: cats, Series: []views.BarSeries{{Name: "", Values: counts}}, Format: views.Signed,
			Empty: "No story had an emotion reading before and after it yet."}))
		calm.Lists = []views.List{{Title: "Stories and their effect", Items: uses, Empty: "None yet."}}
	}

	// Questions per session, from the repetition records.
	recs, err := x.Store.ListRecords(ctx, x.User.ID, []string{ClaraRepetition})
	if err != nil {
		return nil, err
	}
	var cats []string
	var qs, maxes []float64
	type qrow struct {
		at   time.Time
		name string
		q, m float64
	}
	var rows []qrow
	for _, r := range recs {
		s, ok := byID[r.Key]
		if !ok || s.EndedAt.Before(since) {
			continue
		}
		d := extract.DecodeJSON[Repetition](r.Data)
		rows = append(rows, qrow{s.EndedAt, x.SessionLabel(s), float64(d.Questions), float64(d.MaxRepeatCount)})
	}
	slices.SortFunc(rows, func(a, b qrow) int { return a.at.Compare(b.at) })
	for _, r := range rows {
		cats, qs, maxes = append(cats, r.name), append(qs, r.q), append(maxes, r.m)
	}
	if rep.Empty == "" {
		rep.Charts = append(rep.Charts, views.BarChart(views.BarSpec{ID: "clara-questions", Title: "Questions per session (30 days)",
			Desc:          "Questions asked in each session and the most times one question came back.",
			CategoryLabel: "Session ended (" + x.Loc.String() + ")", ValueLabel: "Questions",
			Categories: cats, Series: []views.BarSeries{{Name: "Questions", Values: qs}, {Name: "Most repeats of one question", Values: maxes}},
			Empty: "No session with question events in the last 30 days."}))
	}
	// What the caregiver must see first: the risk findings (always at the
	// top on this page, not only after a recent one) and the concerns.
	safety, _, err := x.Safety(ctx)
	if err != nil {
		return nil, err
	}
	return []views.Section{safety, concerns, over, per, base, rep, calm}, nil
}

// arc is a summary's emotional arc when it is two labels ("anxious → calm").
func arc(sum map[string]any) string {
	s, _ := sum["emotional_arc"].(string)
	if len([]rune(s)) > 90 {
		return ""
	}
	return s
}
