package eldertree

import (
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/num"
)

// Cues are Elder Tree's cue rules (Kind.Cues): Cues on the profile before
// and after, with the primary triggers of the user's sessions of the last
// RecurringTriggerWindow when the session's summary names one.
func (kindElderTree) Cues(in extract.CueInput) ([]extract.Cue, error) {
	var seen []TriggerSeen
	if in.Summaries != nil && in.Summary["primary_trigger"] != nil {
		recent, err := in.Summaries(in.Now.Add(-RecurringTriggerWindow))
		if err != nil {
			return nil, err
		}
		for _, s := range recent {
			if t, ok := s.Data["primary_trigger"].(string); ok && t != "" {
				seen = append(seen, TriggerSeen{Trigger: t, At: s.At})
			}
		}
	}
	return Cues(in.Before, in.After, in.Summary, seen, in.Significant, in.Now), nil
}

// A trigger becomes a recurring_trigger cue when it is the primary trigger of
// RecurringTriggerCount sessions within RecurringTriggerWindow.
const (
	RecurringTriggerCount  = 5
	RecurringTriggerWindow = 30 * 24 * time.Hour
)

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
func Cues(before, after map[string]any, summary map[string]any, recentTriggers []TriggerSeen, significant []string, now time.Time) []extract.Cue {
	watch := func(field string) bool { return len(significant) == 0 || slices.Contains(significant, field) }
	cues := []extract.Cue{}

	relapse := extract.Cue{Type: extract.CueRelapse, Detail: map[string]any{}}
	if o, _ := summary["outcome"].(string); strings.TrimSpace(o) == aggregate.OutcomeRelapsed {
		relapse.Detail["outcome"] = aggregate.OutcomeRelapsed
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
		b, okb := extract.Date(before["recovery_start_date"])
		a, oka := extract.Date(after["recovery_start_date"])
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
		c := extract.Cue{Type: extract.CueFellowshipDropped, Field: "in_fellowship", Detail: map[string]any{}}
		if name := extract.Text(before["fellowship_name"]); name != "" {
			c.Detail["fellowship_name"] = name
		}
		cues = append(cues, c)
	}

	oldSponsor := extract.Text(before["sponsor_name"])
	switch {
	case watch("has_sponsor") && before["has_sponsor"] == true && after["has_sponsor"] == false:
		c := extract.Cue{Type: extract.CueSponsorChange, Field: "has_sponsor", Detail: map[string]any{"has_sponsor": false}}
		if oldSponsor != "" {
			c.Detail["previous_sponsor_name"] = oldSponsor
		}
		cues = append(cues, c)
	case watch("sponsor_name") && oldSponsor != "" && after["sponsor_name"] != nil &&
		!strings.EqualFold(oldSponsor, extract.Text(after["sponsor_name"])):
		cues = append(cues, extract.Cue{Type: extract.CueSponsorChange, Field: "sponsor_name", Detail: map[string]any{
			"previous_sponsor_name": oldSponsor,
			"sponsor_name":          extract.Text(after["sponsor_name"]),
		}})
	}

	trigger := extract.Text(summary["primary_trigger"])
	if key := extract.LabelKey(trigger); key != "" {
		count := 1 // this session
		for _, t := range recentTriggers {
			if extract.LabelKey(t.Trigger) == key && !t.At.After(now) && now.Sub(t.At) < RecurringTriggerWindow {
				count++
			}
		}
		if count == RecurringTriggerCount {
			cues = append(cues, extract.Cue{Type: extract.CueRecurringTrigger, Field: "primary_trigger", Detail: map[string]any{
				"trigger":     trigger,
				"count":       count,
				"window_days": int(RecurringTriggerWindow / (24 * time.Hour)),
			}})
		}
	}
	for _, e := range extract.UpcomingEvents(summary["upcoming_events"]) {
		cues = append(cues, extract.Cue{Type: extract.CueRiskyEvent, Field: e.Date, Detail: map[string]any{"date": e.Date, "event": e.Event}})
	}
	return cues
}
