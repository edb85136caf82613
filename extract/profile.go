package extract

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// ProfileDiff is the part of updates that would change current: the fields
// whose JSON value differs, compared as JSON so that 3 and 3.0 are equal. A
// field whose update is null (or missing) is left alone, never erased: an
// extraction that does not mention the sponsor has not learnt that there is
// none. Values that cannot be written as JSON are ignored. The result is
// never nil.
func ProfileDiff(current map[string]any, updates map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range updates {
		nv, ok := canonical(v)
		if !ok || nv == nil {
			continue
		}
		if cv, ok := canonical(current[k]); ok && reflect.DeepEqual(cv, nv) {
			continue
		}
		out[k] = v
	}
	return out
}

// canonical is v as encoding/json would read it back.
func canonical(v any) (any, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, false
	}
	return out, true
}

// UpcomingEvent is a risky event ahead: its civil date and a short label.
type UpcomingEvent struct {
	Date  string `json:"date"`
	Event string `json:"event"`
}

// Types of cue a kind's cue rules raise (Kind.Cues), as the views show
// them (docs/presets.md: cues).
const (
	CueRelapse           = "relapse"
	CueFellowshipDropped = "fellowship_dropped"
	CueSponsorChange     = "sponsor_change"
	CueRecurringTrigger  = "recurring_trigger"
	// CueRiskyEvent is a risky event ahead the user told of (a party, a
	// wedding with an open bar), dated for its day: the summary's
	// upcoming_events.
	CueRiskyEvent = "risky_event"
)

// Cue is a significant change the next session should acknowledge. Detail
// holds only field names and values from the profile or summary (for
// example the previous sponsor's name, for "I remember you mentioning …"),
// never transcript text.
type Cue struct {
	Type   string         `json:"kind"`
	Field  string         `json:"field,omitempty"`
	Detail map[string]any `json:"detail"`
}

// CueInput is what a kind's cue rules read (Kind.Cues): a profile before
// and after one write, and the session's summary when a session's
// extraction made the write.
type CueInput struct {
	Before, After map[string]any
	// Summary is the session's summary; nil for an edit by the user or an
	// operator.
	Summary map[string]any
	// Significant are the app's significant fields (its policy's
	// significant_fields): only these profile fields produce cues.
	Significant []string
	// Now is when the write happened.
	Now time.Time
	// Summaries lists the summaries of the user's other sessions that
	// happened since a time; nil when there is no session (an edit) or no
	// history to read.
	Summaries func(since time.Time) ([]PastSummary, error)
}

// objectList reads a list of JSON objects as the rules write it
// ([]map[string]any) or as stored JSON decodes it ([]any); anything else,
// and any element that is not an object, gives nothing.
func objectList(v any) []map[string]any {
	switch l := v.(type) {
	case []map[string]any:
		return l
	case []any:
		var out []map[string]any
		for _, x := range l {
			if o, ok := x.(map[string]any); ok {
				out = append(out, o)
			}
		}
		return out
	}
	return nil
}

// upcomingEvents reads a summary's upcoming_events, as the rules wrote them
// or as stored JSON; entries without a valid date or a label are skipped,
// as is a second one of the same date.
func upcomingEvents(v any) []UpcomingEvent {
	raw := objectList(v)
	if l, ok := v.([]UpcomingEvent); ok {
		for _, e := range l {
			raw = append(raw, map[string]any{"date": e.Date, "event": e.Event})
		}
	}
	var out []UpcomingEvent
	seen := map[string]bool{}
	for _, o := range raw {
		e := UpcomingEvent{Date: text(o["date"]), Event: label(o["event"])}
		if !ValidDate(e.Date) || e.Event == "" || seen[e.Date] {
			continue
		}
		seen[e.Date] = true
		out = append(out, e)
	}
	return out
}

// text is a profile or summary string value, trimmed; "" for anything else.
func text(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// date reads a profile date: "2006-01-02" as the profile's date column
// (docs/presets.md#profile), or a full RFC 3339 time.
func date(v any) (time.Time, bool) {
	s := text(v)
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
