package extract

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// The rule toolkit: what the kinds outside this package (kinds/<name>) use
// of the engine's rules. Each is a thin, documented door onto the engine's
// own helper, so that the engine keeps one implementation.

// Sentence is one sentence of a message, as the rules split it.
type Sentence struct {
	Text     string // whitespace collapsed to single spaces
	Question bool   // it ended with a question mark
}

// Sentences splits text at line breaks and at runs of . ! ? … followed by
// a space or the end ("3.5" stays whole).
func Sentences(text string) []Sentence {
	ss := splitSentences(text)
	out := make([]Sentence, len(ss))
	for i, s := range ss {
		out[i] = Sentence{Text: s.text, Question: s.question}
	}
	return out
}

// StraightApostrophes is s with its curly apostrophes made straight, as the
// rules' word lists expect.
func StraightApostrophes(s string) string { return apostrophes.Replace(s) }

// LowerWords splits s into lower-case words of letters, digits and
// apostrophes.
func LowerWords(s string) []string { return lowerWords(s) }

// Negated reports whether one of the lower-case words before a match
// makes it untrue ("never", "didn't", …).
func Negated(before []string) bool { return elderNegated(before) }

// HasAlnum reports whether s holds a letter or a digit.
func HasAlnum(s string) bool { return hasAlnum(s) }

// IsUser reports whether a message's role is the user's.
func IsUser(role string) bool { return isUser(role) }

// SessionEnd is when s ended: EndedAt, or else its last known time.
func SessionEnd(s Session) time.Time { return sessionEnd(s) }

// SessionZone is a session's zone; an empty, "Local" or unknown name is UTC.
func SessionZone(name string) *time.Location { return sessionZone(name) }

// EventData decodes an event's data as a JSON object; an empty map when it
// is not one.
func EventData(raw json.RawMessage) map[string]any { return eventData(raw) }

// LabelKey is what makes two labels the same: "work_stress", "Work stress"
// and "work-stress" give one key.
func LabelKey(s string) string { return labelKey(s) }

// ObjectList reads a list of JSON objects as the rules write it
// ([]map[string]any) or as stored JSON decodes it ([]any); anything else,
// and any element that is not an object, gives nothing.
func ObjectList(v any) []map[string]any { return objectList(v) }

// Count writes n with its noun; one is used for n == 1.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// SessionMinutes is the session's length in whole minutes, rounded; 0 when
// its start or end is unknown.
func SessionMinutes(s Session) int {
	start := s.StartedAt
	if start.IsZero() {
		for _, m := range s.Messages {
			if !m.At.IsZero() && (start.IsZero() || m.At.Before(start)) {
				start = m.At
			}
		}
	}
	end := sessionEnd(s)
	if start.IsZero() || end.IsZero() || !end.After(start) {
		return 0
	}
	return int(math.Round(end.Sub(start).Minutes()))
}

// Text is a string value of decoded JSON, trimmed; "" for anything else.
func Text(v any) string { return text(v) }

// Label is a short label of event data (a trigger, a topic, an emotion):
// trimmed, lower-cased, spaces collapsed, cut to MaxValueRunes; "" for a
// value that is no string or looks sensitive (the chat service may have
// copied it from what the user typed).
func Label(v any) string { return label(v) }
