package views

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

// Risk findings on the pages (docs/safety.md): every user's page has a
// safety section, first when there is a finding of the last 30 days, and
// the operations page counts the findings and lists the lowered ones for
// review. A finding is shown by its class, severity, source and what
// became of it (its alert sent, pending, failed or off for the app, as its
// risk_alert job's state says; lowered with its frame; or not alerted and
// why):
// never the words that raised it, which no store read here returns.

// SafetyID is the id of a user page's safety section: a page builder
// that places the section itself (UserPage.Safety) returns it under this
// id, and the shell then adds no other.
const SafetyID = "safety"

const (
	// safetyRecent is how recent a finding puts the safety section first.
	safetyRecent = 30 * 24 * time.Hour
	// safetyGroups bounds the lines a user's safety section reads.
	safetyGroups = 200
	// opsLowered bounds the lowered findings the operations page lists.
	opsLowered = 200
	// alertJobsKept is how long the worker keeps finished jobs, and so a
	// risk alert's state (cmd/worker's CompletedRetention and
	// FailedRetention): a finding older without a job may have had one.
	alertJobsKept = 30 * 24 * time.Hour
)

// riskClassWords say each risk class in plain words.
var riskClassWords = map[string]string{
	extract.RiskSuicidal:     "Suicidal thoughts or plans",
	extract.RiskSelfHarm:     "Self-harm",
	extract.RiskSubstance:    "A substance crisis",
	extract.RiskAbuse:        "Abuse or threats by someone",
	extract.RiskHopelessness: "Hopelessness",
	extract.RiskDistress:     "Severe distress",
}

// RiskClassLabel says a risk class in plain words; a class this package
// does not know is shown as its short label, or "Unclassified".
func RiskClassLabel(class string) string {
	if w, ok := riskClassWords[class]; ok {
		return w
	}
	if l := ShortLabel(strings.ReplaceAll(class, "_", " ")); l != "" {
		return l
	}
	return "Unclassified"
}

// riskFrameWords say why a model lowered a finding (extract's frame codes).
var riskFrameWords = map[string]string{
	extract.FrameTopic:       "a topic, not the user's own",
	extract.FrameFiction:     "fiction or a story",
	extract.FrameHyperbole:   "a figure of speech",
	extract.FramePast:        "something in the past",
	extract.FrameOtherPerson: "about someone else",
}

// riskFrameLabel says a frame code in plain words, with the code.
func riskFrameLabel(frame string) string {
	if w, ok := riskFrameWords[frame]; ok {
		return w + " (" + frame + ")"
	}
	return CmpOr(ShortLabel(frame), "a frame")
}

// riskSourceLabel names the layer that found a finding.
func riskSourceLabel(source string) string {
	switch source {
	case extract.RiskSourceRules:
		return "rules"
	case extract.RiskSourceTrained:
		return "trained layer"
	case extract.RiskSourceModel:
		return "model"
	}
	return "not recorded"
}

// severityLabel is a severity with a capital; an unknown one "Unknown".
func severityLabel(severity string) string {
	switch severity {
	case extract.SeverityHigh, extract.SeverityMedium, extract.SeverityLow:
		return kindLabel(severity)
	}
	return "Unknown"
}

// severityRank orders severities, strongest first.
func severityRank(severity string) int {
	switch severity {
	case extract.SeverityHigh:
		return 0
	case extract.SeverityMedium:
		return 1
	case extract.SeverityLow:
		return 2
	}
	return 3
}

// classRank orders classes as extract.RiskClasses does; unknown ones last.
func classRank(class string) int {
	if i := slices.Index(extract.RiskClasses, class); i >= 0 {
		return i
	}
	return len(extract.RiskClasses)
}

// RiskAlerting reports whether a finding not lowered is one that is
// alerted: the user's own, of medium or high severity (the rule the risk
// alert job applies, jobs.Alerting).
func RiskAlerting(severity, actor string) bool {
	return actor == extract.ActorUser && (severity == extract.SeverityHigh || severity == extract.SeverityMedium)
}

// alertState is what became of a session's alert of one class, as the
// state of its risk_alert job says.
type alertState int

const (
	alertUnknown alertState = iota // no job queue in this process to ask
	alertNone                      // no job: alerts are off for the app
	alertGone                      // no job, but older than the jobs are kept
	alertPending
	alertSent
	alertFailed
)

// alertStateOf reads a job's state: sent, pending or failed.
func alertStateOf(s rivertype.JobState) alertState {
	switch s {
	case rivertype.JobStateCompleted:
		return alertSent
	case rivertype.JobStateDiscarded, rivertype.JobStateCancelled:
		return alertFailed
	}
	return alertPending // available, scheduled, retryable, running, pending
}

// riskOutcome says what became of a group of findings: for one that
// alerts, its alert's real state (sent, pending, failed, or none because
// alerts are off for the app); else lowered with its frame, or not
// alerted and why; and whether all are resolved.
func riskOutcome(g store.RiskGroup, alert alertState) string {
	var s string
	switch {
	case g.Frame != "":
		s = "Lowered by a model: " + riskFrameLabel(g.Frame)
	case RiskAlerting(g.Severity, g.Actor):
		switch alert {
		case alertSent:
			s = "Alert sent"
		case alertPending:
			s = "Alert pending"
		case alertFailed:
			s = "Alert failed"
		case alertNone:
			s = "No alert: alerts are off for this app"
		case alertGone:
			s = "Alert not known: alert jobs are kept 30 days"
		default:
			s = "Alert not known: no job queue in this process"
		}
	case g.Actor == extract.ActorOther:
		s = "Not alerted: someone else's words, reported"
	case g.Severity == extract.SeverityLow:
		s = "Not alerted: low severity"
	default:
		s = "Not alerted"
	}
	if g.Unresolved == 0 {
		s += "; resolved"
	}
	return s
}

// alertStates reads the state of the alert of each session and class of
// the groups that alert, in one query (queue.RiskAlertStates); nil when
// this process has no job queue.
func (x *UserPage) alertStates(ctx context.Context, groups []store.RiskGroup) (map[queue.RiskAlertKey]rivertype.JobState, error) {
	q := x.h.cfg.Queue
	if q == nil {
		return nil, nil
	}
	var sessions []string
	keys := 0
	for _, g := range groups {
		if g.Frame == "" && RiskAlerting(g.Severity, g.Actor) {
			keys++
			if !slices.Contains(sessions, g.SessionID) {
				sessions = append(sessions, g.SessionID)
			}
		}
	}
	// A key may have more than one job (a failed alert enqueued again):
	// room for a few each, newest first.
	return queue.RiskAlertStates(ctx, q, sessions, 4*keys+100)
}

// safetyLine is one line of the safety section.
type safetyLine struct {
	g  store.RiskGroup
	at time.Time // the session's end; when it was recorded if the session is unknown
}

// Safety is the user's safety section and whether it holds a finding of
// the last 30 days (then it belongs first on the page). The shell adds it
// to every user's page; a page builder that wants it elsewhere (a
// caregiver's page: at the top, always) calls this and returns it.
func (x *UserPage) Safety(ctx context.Context) (Section, bool, error) {
	sec := Section{ID: SafetyID, Title: "Safety", Attr: "safety",
		Intro: "What the safety screen found in this user's messages, newest first: when, what kind of risk, how severe, " +
			"which layer found it (the rules, the trained layer or a model), and whether its alert was sent, is pending or failed, or why there is none (alerts off for the app, or lowered by a model, and why). " +
			"Never the words themselves."}
	vr, ok := x.Store.(store.ViewReader)
	if !ok {
		return sec, false, fmt.Errorf("views: store %T cannot be read for views", x.Store)
	}
	groups, err := vr.ViewUserRisks(ctx, x.User.ID, safetyGroups)
	if err != nil {
		return sec, false, err
	}
	if len(groups) == 0 {
		sec.Empty = "No risk finding in this user's sessions."
		return sec, false, nil
	}
	states, err := x.alertStates(ctx, groups)
	if err != nil {
		return sec, false, err
	}
	alertOf := func(g store.RiskGroup) alertState {
		if states == nil {
			return alertUnknown
		}
		st, ok := states[queue.RiskAlertKey{SessionID: g.SessionID, Class: g.Class}]
		if !ok && g.LastAt.Before(x.Now.Add(-alertJobsKept)) {
			return alertGone
		}
		if !ok {
			return alertNone
		}
		return alertStateOf(st)
	}
	sessions := x.SessionByID()
	lines := make([]safetyLine, 0, len(groups))
	for _, g := range groups {
		at := g.FirstAt
		if s, ok := sessions[g.SessionID]; ok && !s.EndedAt.IsZero() {
			at = s.EndedAt
		}
		lines = append(lines, safetyLine{g, at})
	}
	slices.SortStableFunc(lines, func(a, b safetyLine) int {
		if c := b.at.Compare(a.at); c != 0 {
			return c
		}
		if c := strings.Compare(a.g.SessionID, b.g.SessionID); c != 0 {
			return c
		}
		if c := severityRank(a.g.Severity) - severityRank(b.g.Severity); c != 0 {
			return c
		}
		return classRank(a.g.Class) - classRank(b.g.Class)
	})
	since := x.Now.Add(-safetyRecent)
	var recent, alerting, lowered int64
	var latest *safetyLine
	t := VTable{Caption: "Risk findings, newest first", Head: []string{"Date", "Risk", "Severity", "Found by", "Alert", "Messages", "Session"}}
	for i, l := range lines {
		t.Rows = append(t.Rows, []string{TimeIn(l.at, x.Loc), RiskClassLabel(l.g.Class), severityLabel(l.g.Severity),
			riskSourceLabel(l.g.Source), riskOutcome(l.g, alertOf(l.g)), strconv.FormatInt(l.g.Findings, 10), l.g.SessionID})
		if l.at.Before(since) {
			continue
		}
		if latest == nil {
			latest = &lines[i]
		}
		recent += l.g.Findings
		switch {
		case l.g.Frame != "":
			lowered += l.g.Findings
		case RiskAlerting(l.g.Severity, l.g.Actor):
			alerting += l.g.Findings
		}
	}
	sec.Tables = []VTable{t}
	sec.Facts = []Fact{{Label: "Findings in the last 30 days", Value: strconv.FormatInt(recent, 10), Note: "messages"},
		{Label: "Alerting", Value: strconv.FormatInt(alerting, 10), Note: "the user's own, medium or high, not lowered, in 30 days; each line says what became of its alert"},
		{Label: "Lowered by a model", Value: strconv.FormatInt(lowered, 10), Note: "in 30 days"}}
	if len(groups) == safetyGroups {
		sec.Intro += fmt.Sprintf(" The newest %d lines are shown.", safetyGroups)
	}
	if latest == nil {
		return sec, false, nil
	}
	sec.Attr = "safety recent"
	sec.Notice = fmt.Sprintf("Risk findings in the last 30 days: the latest on %s (%s, %s severity).", DateIn(latest.at, x.Loc),
		RiskClassLabel(latest.g.Class), strings.ToLower(severityLabel(latest.g.Severity)))
	return sec, true, nil
}

// withSafety places the safety section on a user's page: first when it
// holds a finding of the last 30 days, else last. A page whose builder
// placed it already is left as it is.
func (x *UserPage) withSafety(ctx context.Context, sections []Section) ([]Section, error) {
	if slices.ContainsFunc(sections, func(s Section) bool { return s.ID == SafetyID }) {
		return sections, nil
	}
	sec, recent, err := x.Safety(ctx)
	if err != nil {
		return nil, err
	}
	if recent {
		return append([]Section{sec}, sections...), nil
	}
	return append(sections, sec), nil
}

// riskRow is one line of the operations page's counts.
type riskRow struct{ app, class, severity string }

// opsRisk is the operations page's risk findings: counts by app, class and
// severity over the last 7 and 30 days (UTC days, by when each finding
// was recorded), and the findings a model lowered, with their sessions,
// for an operator to review.
func (h *Handler) opsRisk(ctx context.Context, vr store.ViewReader, now time.Time) (Section, error) {
	sec := Section{ID: "risk", Title: "Risk findings", Attr: "ops-risk",
		Intro: "What the safety screen recorded across every app, by the day it was recorded (UTC): each message with a finding counts once. " +
			"Alerting findings are the user's own, of medium or high severity, not lowered. A model may lower a medium finding only with a frame; " +
			"those are listed below with their session, for review. No words of any message are shown."}
	dayEnd := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	from30, from7 := dayEnd.AddDate(0, 0, -opsDays), dayEnd.AddDate(0, 0, -7)
	counts, err := vr.ViewRiskCounts(ctx, from30, dayEnd)
	if err != nil {
		return sec, err
	}
	type tally struct{ week, month, alerting, lowered int64 }
	rows := map[riskRow]*tally{}
	var total tally
	for _, c := range counts {
		k := riskRow{c.App, c.Class, c.Severity}
		tl := rows[k]
		if tl == nil {
			tl = &tally{}
			rows[k] = tl
		}
		for _, x := range []*tally{tl, &total} {
			x.month += c.Count
			if !c.Day.Before(from7) {
				x.week += c.Count
			}
			switch {
			case c.Frame != "":
				x.lowered += c.Count
			case RiskAlerting(c.Severity, c.Actor):
				x.alerting += c.Count
			}
		}
	}
	keys := make([]riskRow, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b riskRow) int {
		if c := strings.Compare(a.app, b.app); c != 0 {
			return c
		}
		if c := classRank(a.class) - classRank(b.class); c != 0 {
			return c
		}
		if c := strings.Compare(a.class, b.class); c != 0 {
			return c
		}
		return severityRank(a.severity) - severityRank(b.severity)
	})
	ct := VTable{Caption: "Findings by app, risk and severity", Head: []string{"App", "Risk", "Severity", "Last 7 days", "Last 30 days",
		"Alerting, 30 days", "Lowered, 30 days"}, Empty: "No risk finding in the last 30 days."}
	for _, k := range keys {
		tl := rows[k]
		ct.Rows = append(ct.Rows, []string{k.app, RiskClassLabel(k.class) + " (" + CmpOr(ShortLabel(k.class), "–") + ")", severityLabel(k.severity),
			strconv.FormatInt(tl.week, 10), strconv.FormatInt(tl.month, 10), strconv.FormatInt(tl.alerting, 10), strconv.FormatInt(tl.lowered, 10)})
	}
	sec.Facts = []Fact{{Label: "Last 7 days", Value: strconv.FormatInt(total.week, 10), Note: "findings"},
		{Label: "Last 30 days", Value: strconv.FormatInt(total.month, 10), Note: "findings"},
		{Label: "Alerting, 30 days", Value: strconv.FormatInt(total.alerting, 10)},
		{Label: "Lowered, 30 days", Value: strconv.FormatInt(total.lowered, 10), Note: "listed below"}}

	lowered, err := vr.ViewRiskLowerings(ctx, from30, dayEnd, opsLowered)
	if err != nil {
		return sec, err
	}
	lt := VTable{Caption: "Findings a model lowered, last 30 days, newest first", Head: []string{"Recorded", "App", "Session", "Message",
		"Finding", "Model's answer", "Frame"}, Empty: "No finding was lowered in the last 30 days."}
	if len(lowered) == opsLowered {
		lt.Caption += fmt.Sprintf(" (the newest %d)", opsLowered)
	}
	for _, l := range lowered {
		answer := "not a risk"
		if l.ToClass != "" && l.ToClass != extract.RiskNone {
			answer = RiskClassLabel(l.ToClass) + ", " + strings.ToLower(severityLabel(l.ToSeverity))
		}
		lt.Rows = append(lt.Rows, []string{l.CreatedAt.UTC().Format(dateTimeLayout), l.App, l.SessionID, l.MessageID,
			RiskClassLabel(l.FromClass) + ", " + strings.ToLower(severityLabel(l.FromSeverity)), answer, riskFrameLabel(l.Frame)})
	}
	if n := max(total.lowered, int64(len(lowered))); n > 0 {
		sec.Notice = Plural(int(n), "finding was", "findings were") + " lowered by a model in the last 30 days: review them below (GET /v1/sessions/{id} shows each session's risk_lowered)."
	}
	sec.Tables = []VTable{ct, lt}
	return sec, nil
}
