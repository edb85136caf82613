package aggregate

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/internal/num"
)

// Trend parameters (docs/operations.md, "Scheduled batches"; docs/presets.md:
// emotional trends).
const (
	// TrendSessions is how many of the latest sessions trends read.
	TrendSessions = 30
	// TrendWeeks is how many weeks weekly_averages covers.
	TrendWeeks = 4
	// TopQuestionTypes is how many question types trends list.
	TopQuestionTypes = 5
	// ChronicRepeat is the repeat count that makes a session one of chronic
	// repetition (5 or more: docs/presets.md: questions and repetition),
	// as the rules count it: a question event's repeat_count,
	// or that many questions of one type in the session.
	ChronicRepeat = 5
	// ChronicWindow and ChronicMinSessions define the chronic repetition
	// pattern: at least ChronicMinSessions of the last ChronicWindow
	// sessions were sessions of chronic repetition.
	ChronicWindow      = 7
	ChronicMinSessions = 2
)

// Local hours of the time-of-day averages, start inclusive, end exclusive:
// morning 06:00–11:59, evening 18:00–22:59.
const (
	morningFrom, morningTo = 6, 12
	eveningFrom, eveningTo = 18, 23
)

// UncategorizedNarrative is the category of a narrative event whose
// category is missing or is not a short label.
const UncategorizedNarrative = "uncategorized"

// QuestionTypes are the types of a question event that trends count
// (docs/presets.md: questions and repetition;
// prompts/<app>/events.schema.json); any other is general. The rules that
// write the events read them from here.
var QuestionTypes = []string{"location", "identity", "time", "activity", "person", "general"}

// DistressTrends is one user's emotional trends for caregivers
// (docs/presets.md: emotional trends). Distress scores are 0–1; averages
// have three decimals and are null when there was nothing to average.
type DistressTrends struct {
	// BaselineDistress is the mean of the sessions' mean distress.
	BaselineDistress *float64 `json:"baseline_distress"`
	// MorningAverage and EveningAverage average the distress of emotion
	// events by local time: 06:00–11:59 and 18:00–22:59.
	MorningAverage *float64 `json:"morning_average"`
	EveningAverage *float64 `json:"evening_average"`
	// WeeklyAverages are the last four weeks ending on the local day of
	// computed_at, oldest first.
	WeeklyAverages            []WeekDistress      `json:"weekly_averages"`
	TopQuestionTypes          []QuestionTypeCount `json:"top_question_types"`
	ChronicRepetitionSessions int                 `json:"chronic_repetition_sessions"`
	ChronicRepetitionPattern  bool                `json:"chronic_repetition_pattern"`
	NarrativeEffectiveness    []NarrativeEffect   `json:"narrative_effectiveness"`
	SessionsConsidered        int                 `json:"sessions_considered"`
	// ComputedAt is the now the trends were computed for, RFC 3339 UTC.
	ComputedAt string `json:"computed_at"`
}

// WeekDistress is one week of distress: the mean of the mean distress of
// the sessions that ended in it (null when none had a score), and how many
// sessions ended in it.
type WeekDistress struct {
	WeekEnding string   `json:"week_ending"`
	Average    *float64 `json:"average"`
	Sessions   int      `json:"sessions"`
}

// QuestionTypeCount is how many question events had a type.
type QuestionTypeCount struct {
	QuestionType string `json:"question_type"`
	Count        int    `json:"count"`
}

// NarrativeEffect is how a narrative category moved distress: over its uses
// that had an emotion score both before and after, the mean of the next
// score minus the last one (negative is calming), three decimals.
type NarrativeEffect struct {
	Category           string  `json:"category"`
	Uses               int     `json:"uses"`
	MeanDistressChange float64 `json:"mean_distress_change"`
}

type mean struct {
	sum float64
	n   int
}

func (m *mean) add(v float64) { m.sum += v; m.n++ }

func (m mean) value(places int) *float64 {
	if m.n == 0 {
		return nil
	}
	return ptr(m.sum/float64(m.n), places)
}

// Trends computes a user's trends at now over their latest sessions:
// those that ended at or before now (by start when the end is unknown), at
// most the last TrendSessions of them in the order the store streams them
// (oldest first).
//
// A session's mean distress is the mean distress_score of its emotion
// events, or its summary's average_distress when no event had a score.
// Morning and evening averages read emotion events by their own local time
// in the user's zone; events without a time are left out of them. Weeks are
// whole local days: the last ends with now's local day, and a session
// belongs to the week its end falls in. Weekly averages only see the
// sessions considered, so a user with more than TrendSessions sessions in
// four weeks has the oldest weeks thinned.
//
// Question types are those of question events (unknown types are general).
// A session is one of chronic repetition when a question event's
// repeat_count, or the number of questions of one type, reaches
// ChronicRepeat; the pattern holds when ChronicMinSessions of the last
// ChronicWindow sessions were.
//
// Narrative effectiveness reads each session's events in time order (an
// event without a time keeps the place of the one before). For a narrative
// event, the score before is the last emotion score at or before it, the
// score after the first emotion score strictly after it, both in the same
// session; only emotion events with a distress_score count, and narratives
// without both are skipped. Categories are labels (see label).
func Trends(u User, now time.Time) DistressTrends {
	loc := location(u.Timezone)
	tr := DistressTrends{
		WeeklyAverages:         make([]WeekDistress, 0, TrendWeeks),
		TopQuestionTypes:       []QuestionTypeCount{},
		NarrativeEffectiveness: []NarrativeEffect{},
		ComputedAt:             now.UTC().Format(time.RFC3339),
	}

	// The last TrendSessions sessions that had ended by now.
	sessions := make([]*Session, 0, min(len(u.Sessions), TrendSessions))
	for i := range u.Sessions {
		s := &u.Sessions[i]
		if at := sessionEnd(*s); at.IsZero() || at.After(now) {
			continue
		}
		if len(sessions) == TrendSessions {
			copy(sessions, sessions[1:])
			sessions = sessions[:TrendSessions-1]
		}
		sessions = append(sessions, s)
	}
	tr.SessionsConsidered = len(sessions)

	// Weeks, oldest first: week w covers the local days
	// [today-7(TrendWeeks-w)+1, today-7(TrendWeeks-1-w)].
	y, m, d := now.In(loc).Date()
	var weekStart [TrendWeeks + 1]time.Time
	for w := range weekStart {
		weekStart[w] = time.Date(y, m, d+1-7*(TrendWeeks-w), 0, 0, 0, 0, loc)
	}
	weeks := make([]mean, TrendWeeks)
	weekSessions := make([]int, TrendWeeks)

	var (
		baseline, morning, evening mean
		questionTypes              = map[string]int{}
		effects                    = map[string]*mean{}
		chronic                    = make([]bool, len(sessions))
	)
	for si, s := range sessions {
		var (
			distress  mean
			perType   = map[string]int{}
			repeatMax float64
			last      = -1.0     // the last emotion score so far
			pending   []narrated // narratives waiting for the next score
		)
		for _, t := range timeline(s) {
			e := t.e
			switch kind(e) {
			case "emotion":
				v, ok := num.Float(e.Data["distress_score"])
				if !ok {
					continue
				}
				v = min(max(v, 0), 1)
				distress.add(v)
				if !e.At.IsZero() {
					switch h := e.At.In(loc).Hour(); {
					case h >= morningFrom && h < morningTo:
						morning.add(v)
					case h >= eveningFrom && h < eveningTo:
						evening.add(v)
					}
				}
				// A score at the same instant as a narrative is "at or
				// before" it (timeline puts it first), never after.
				pending = slices.DeleteFunc(pending, func(n narrated) bool {
					if t.at.Compare(n.at) == 0 && t.sub <= n.sub || t.at.Before(n.at) {
						return false
					}
					effects[n.category].add(v - n.before)
					return true
				})
				last = v
			case "question":
				qt := questionType(e.Data["question_type"])
				questionTypes[qt]++
				perType[qt]++
				if v, ok := num.Float(e.Data["repeat_count"]); ok {
					repeatMax = max(repeatMax, v)
				}
			case "narrative":
				if last < 0 {
					continue // no score before it
				}
				c := narrativeCategory(e)
				if effects[c] == nil {
					effects[c] = &mean{}
				}
				pending = append(pending, narrated{t.at, t.sub, c, last})
			}
		}
		if distress.n == 0 {
			if v, ok := num.Float(s.Summary["average_distress"]); ok {
				distress.add(min(max(v, 0), 1))
			}
		}
		w := weekOf(sessionEnd(*s), weekStart[:])
		if w >= 0 {
			weekSessions[w]++
		}
		if distress.n > 0 {
			sm := distress.sum / float64(distress.n)
			baseline.add(sm)
			if w >= 0 {
				weeks[w].add(sm)
			}
		}
		chronic[si] = repeatMax >= ChronicRepeat
		for _, n := range perType {
			chronic[si] = chronic[si] || n >= ChronicRepeat
		}
	}

	tr.BaselineDistress = baseline.value(3)
	tr.MorningAverage = morning.value(3)
	tr.EveningAverage = evening.value(3)
	for w := range TrendWeeks {
		tr.WeeklyAverages = append(tr.WeeklyAverages, WeekDistress{
			WeekEnding: weekStart[w+1].AddDate(0, 0, -1).Format(time.DateOnly),
			Average:    weeks[w].value(3),
			Sessions:   weekSessions[w],
		})
	}

	for qt, n := range questionTypes {
		tr.TopQuestionTypes = append(tr.TopQuestionTypes, QuestionTypeCount{qt, n})
	}
	slices.SortFunc(tr.TopQuestionTypes, func(a, b QuestionTypeCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.QuestionType, b.QuestionType))
	})
	tr.TopQuestionTypes = tr.TopQuestionTypes[:min(len(tr.TopQuestionTypes), TopQuestionTypes)]

	for _, c := range chronic {
		if c {
			tr.ChronicRepetitionSessions++
		}
	}
	recent := 0
	for _, c := range chronic[max(len(chronic)-ChronicWindow, 0):] {
		if c {
			recent++
		}
	}
	tr.ChronicRepetitionPattern = recent >= ChronicMinSessions

	for c, m := range effects {
		if m.n > 0 {
			tr.NarrativeEffectiveness = append(tr.NarrativeEffectiveness, NarrativeEffect{c, m.n, round(m.sum/float64(m.n), 3)})
		}
	}
	slices.SortFunc(tr.NarrativeEffectiveness, func(a, b NarrativeEffect) int {
		return cmp.Or(cmp.Compare(a.MeanDistressChange, b.MeanDistressChange), cmp.Compare(b.Uses, a.Uses), strings.Compare(a.Category, b.Category))
	})
	return tr
}

// narrated is a narrative event waiting for the emotion score after it.
type narrated struct {
	at       time.Time
	sub      int
	category string
	before   float64
}

// weekOf is the index of the week t falls in, or -1.
func weekOf(t time.Time, starts []time.Time) int {
	for w := range len(starts) - 1 {
		if !t.Before(starts[w]) && t.Before(starts[w+1]) {
			return w
		}
	}
	return -1
}

// questionType is a question event's type; an unknown or missing one is
// general.
func questionType(v any) string {
	t := strings.ToLower(text(v))
	if slices.Contains(QuestionTypes, t) {
		return t
	}
	return "general"
}

// narrativeCategory is a narrative event's category as a label of at most
// four words, or UncategorizedNarrative.
func narrativeCategory(e *Event) string {
	if c := label(e.Data["category"]); c != "" && strings.Count(c, "_") < 4 {
		return c
	}
	return UncategorizedNarrative
}
