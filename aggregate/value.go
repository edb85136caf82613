package aggregate

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-ai/mnemo/internal/zones"
)

// MaxLabelRunes caps a label (a trigger, a strategy, a narrative category)
// after normalisation.
const MaxLabelRunes = 40

func text(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// label normalises a structured value to snake_case: lower case, every run
// of characters other than letters, marks and digits one "_", none at either end,
// cut to MaxLabelRunes. "Work stress", "work-stress" and "WORK_STRESS" are
// one label. It returns "" for anything that is not a string.
func label(v any) string {
	s, _ := v.(string)
	if isLabel(s) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), 4*MaxLabelRunes))
	n, gap := 0, false // runes written; a separator is due
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
			gap = true
			continue
		}
		if gap && n > 0 {
			if n+1 >= MaxLabelRunes {
				break // never end on "_"
			}
			b.WriteByte('_')
			n++
		}
		if n >= MaxLabelRunes {
			break
		}
		gap = false
		b.WriteRune(unicode.ToLower(r))
		n++
	}
	return b.String()
}

// isLabel reports whether s is already what label makes of it, in ASCII:
// the common case, checked without allocating.
func isLabel(s string) bool {
	if s == "" || len(s) > MaxLabelRunes || s[0] == '_' || s[len(s)-1] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '_' && s[i-1] != '_':
		default:
			return false
		}
	}
	return true
}

// labels reads one or more labels: a string holding a list separated by
// commas, semicolons or new lines ("called sponsor, walked outside", as
// summaries join strategies), or a JSON list of strings. Duplicates are
// dropped; the order is the order of first appearance.
func labels(v any) []string {
	var parts []string
	switch x := v.(type) {
	case string:
		parts = strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == ';' || r == '\n' })
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				parts = append(parts, s)
			}
		}
	case []string:
		parts = x
	}
	var out []string
	for _, p := range parts {
		if l := label(p); l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// round rounds x to places decimals, half away from zero, and never gives a
// negative zero (which JSON would print as -0).
func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	r := math.Round(x*p) / p
	if r == 0 {
		return 0
	}
	return r
}

// ptr is a rounded value to put in an optional JSON number.
func ptr(x float64, places int) *float64 {
	r := round(x, places)
	return &r
}

// location is the user's zone. An empty, "Local" (which would depend on the
// machine) or unknown name is UTC: the handoff API validates zones, so an
// unknown one is an old row, and a batch must not fail a user over it.
func location(name string) *time.Location {
	loc, err := zones.Load(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// civilDay numbers local calendar days, so that differences between them
// are whole days whatever the DST transitions in between.
func civilDay(t time.Time) int {
	y, m, d := t.Date()
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// sessionEnd is when a session counts as having happened: its end, or its
// start when the end is unknown.
func sessionEnd(s Session) time.Time {
	if !s.EndedAt.IsZero() {
		return s.EndedAt
	}
	return s.StartedAt
}

// orTime is a, or b when a is zero.
func orTime(a, b time.Time) time.Time {
	if a.IsZero() {
		return b
	}
	return a
}

// timed is an event with the time it is read at: its own, or, when it has
// none, the time of the event sent before it (the session start for the
// first), so that a chat service that leaves times out keeps its own order.
type timed struct {
	at   time.Time
	sub  int // 0 for an event with a time; 1, 2, … for those after it without
	rank int // 0 for an emotion with a time, 1 otherwise
	e    *Event
}

// timeline orders a session's events by time, stably. Among events of one
// instant that were sent with it, emotions come first, so that an event
// sees the emotion recorded at the same moment as "at or before" it; events
// without a time follow the one before them in the order sent.
func timeline(s *Session) []timed {
	out := make([]timed, len(s.Events))
	prev, sub := s.StartedAt, 0
	for i := range s.Events {
		e := &s.Events[i]
		if e.At.IsZero() {
			sub++
		} else {
			prev, sub = e.At, 0
		}
		rank := 1
		if sub == 0 && kind(e) == "emotion" {
			rank = 0
		}
		out[i] = timed{prev, sub, rank, e}
	}
	order := func(a, b timed) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.sub, b.sub), cmp.Compare(a.rank, b.rank))
	}
	if !slices.IsSortedFunc(out, order) {
		slices.SortStableFunc(out, order)
	}
	return out
}

// kind is an event's kind in lower case.
func kind(e *Event) string {
	if isLabel(e.Type) {
		return e.Type
	}
	return strings.ToLower(strings.TrimSpace(e.Type))
}
