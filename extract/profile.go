package extract

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/internal/num"
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

// Urge outcomes (docs/presets.md, Elder Tree: session summary).
const (
	OutcomeUrgePassed = "urge_passed"
	OutcomeRelapsed   = "relapsed"
	OutcomeOngoing    = "ongoing_struggle"
)

// UpcomingEvent is a risky event ahead: its civil date and a short label.
type UpcomingEvent struct {
	Date  string `json:"date"`
	Event string `json:"event"`
}

// Kinds of cue (docs/presets.md, Elder Tree: cues).
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

// A trigger becomes a recurring_trigger cue when it is the primary trigger of
// RecurringTriggerCount sessions within RecurringTriggerWindow.
const (
	RecurringTriggerCount  = 5
	RecurringTriggerWindow = 30 * 24 * time.Hour
)

// Cue is a significant change the next session should acknowledge. Detail
// holds only field names and values from the profile or summary (for
// example the previous sponsor's name, for "I remember you mentioning …"),
// never transcript text.
type Cue struct {
	Kind   string         `json:"kind"`
	Field  string         `json:"field,omitempty"`
	Detail map[string]any `json:"detail"`
}

// TriggerSeen is the primary trigger of an earlier session and when that
// session was.
type TriggerSeen struct {
	Trigger string
	At      time.Time
}

// Cues compares a profile before and after a session's updates, and the
// session's summary, and returns the changes worth acknowledging, in a fixed
// order: relapse, fellowship_dropped, sponsor_change, recurring_trigger,
// risky_event.
//
//   - relapse: the summary's outcome is "relapsed", sobriety_days fell below
//     half of what it was, or recovery_start_date moved later;
//   - fellowship_dropped: in_fellowship went from true to false;
//   - sponsor_change: has_sponsor went from true to false, or a sponsor_name
//     that was set changed (a first sponsor is not a change of sponsor);
//   - recurring_trigger: the summary's primary_trigger, counted with the
//     earlier sessions' triggers in recentTriggers (which must not include
//     this session), was seen RecurringTriggerCount times within
//     RecurringTriggerWindow before now. It fires only when the count reaches
//     exactly that number, so that it is raised once rather than after every
//     session that mentions the trigger again.
//   - risky_event: one per entry of the summary's upcoming_events (a date
//     and a short label of the event), its field the date, so that the
//     next session can ask about it before or after that day.
//
// When significant is not empty, only the profile fields it lists produce
// cues; a relapse told by the summary and a recurring trigger always do. A
// field missing from after is not a change. The result is never nil.
func Cues(before, after map[string]any, summary map[string]any, recentTriggers []TriggerSeen, significant []string, now time.Time) []Cue {
	watch := func(field string) bool { return len(significant) == 0 || slices.Contains(significant, field) }
	cues := []Cue{}

	relapse := Cue{Kind: CueRelapse, Detail: map[string]any{}}
	if o, _ := summary["outcome"].(string); strings.TrimSpace(o) == OutcomeRelapsed {
		relapse.Detail["outcome"] = OutcomeRelapsed
	}
	if watch("sobriety_days") {
		b, okb := num.Float(before["sobriety_days"])
		a, oka := num.Float(after["sobriety_days"])
		if okb && oka && b > 0 && a < b/2 {
			relapse.Field = "sobriety_days"
			relapse.Detail["before"] = before["sobriety_days"]
			relapse.Detail["after"] = after["sobriety_days"]
		}
	}
	if relapse.Field == "" && watch("recovery_start_date") {
		b, okb := date(before["recovery_start_date"])
		a, oka := date(after["recovery_start_date"])
		if okb && oka && a.After(b) {
			relapse.Field = "recovery_start_date"
			relapse.Detail["before"] = before["recovery_start_date"]
			relapse.Detail["after"] = after["recovery_start_date"]
		}
	}
	if len(relapse.Detail) > 0 {
		cues = append(cues, relapse)
	}

	if watch("in_fellowship") && before["in_fellowship"] == true && after["in_fellowship"] == false {
		c := Cue{Kind: CueFellowshipDropped, Field: "in_fellowship", Detail: map[string]any{}}
		if name := text(before["fellowship_name"]); name != "" {
			c.Detail["fellowship_name"] = name
		}
		cues = append(cues, c)
	}

	oldSponsor := text(before["sponsor_name"])
	switch {
	case watch("has_sponsor") && before["has_sponsor"] == true && after["has_sponsor"] == false:
		c := Cue{Kind: CueSponsorChange, Field: "has_sponsor", Detail: map[string]any{"has_sponsor": false}}
		if oldSponsor != "" {
			c.Detail["previous_sponsor_name"] = oldSponsor
		}
		cues = append(cues, c)
	case watch("sponsor_name") && oldSponsor != "" && after["sponsor_name"] != nil &&
		!strings.EqualFold(oldSponsor, text(after["sponsor_name"])):
		cues = append(cues, Cue{Kind: CueSponsorChange, Field: "sponsor_name", Detail: map[string]any{
			"previous_sponsor_name": oldSponsor,
			"sponsor_name":          text(after["sponsor_name"]),
		}})
	}

	trigger := text(summary["primary_trigger"])
	if key := labelKey(trigger); key != "" {
		count := 1 // this session
		for _, t := range recentTriggers {
			if labelKey(t.Trigger) == key && !t.At.After(now) && now.Sub(t.At) < RecurringTriggerWindow {
				count++
			}
		}
		if count == RecurringTriggerCount {
			cues = append(cues, Cue{Kind: CueRecurringTrigger, Field: "primary_trigger", Detail: map[string]any{
				"trigger":     trigger,
				"count":       count,
				"window_days": int(RecurringTriggerWindow / (24 * time.Hour)),
			}})
		}
	}
	for _, e := range upcomingEvents(summary["upcoming_events"]) {
		cues = append(cues, Cue{Kind: CueRiskyEvent, Field: e.Date, Detail: map[string]any{"date": e.Date, "event": e.Event}})
	}
	return cues
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
// (docs/presets.md, Elder Tree: profile), or a full RFC 3339 time.
func date(v any) (time.Time, bool) {
	s := text(v)
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
