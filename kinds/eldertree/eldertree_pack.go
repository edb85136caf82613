package eldertree

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/extract"
)

// The eldertree kind's context pack (docs/presets.md, Elder Tree: context
// pack).

// Caps on how many candidates a section considers.
const (
	packTriggers       = 3 // key triggers
	packZoneBehaviours = 5 // per zone
)

// packElderTree plans the pack of eldertree (docs/presets.md, Elder Tree:
// context pack): USER CONTEXT (preferred name and addiction type, current
// step, sponsor and fellowship, the three known triggers most often primary
// in the summaries, red/yellow/green zones), RECENT MOMENTUM (the streak
// since the later of recovery_start_date and the last relapsed session, or
// sobriety_days when no session relapsed; while the streak is unconfirmed,
// since when instead of a count (unconfirmed.go); then the last three sessions:
// date, outcome, urge intensity, primary trigger, and the follow-up of all
// but the newest) and CONVERSATION CUES (the newest session's follow-up,
// each cue type once as a fixed sentence, the profile's current_focus).
func packElderTree(in extract.PackInput) *extract.PackPlan {
	const (
		userContext = iota
		momentum
		cues
	)
	p := extract.NewPackPlan(
		extract.PackSection{Name: "user_context", Header: "USER CONTEXT:"},
		extract.PackSection{Name: "recent_momentum", Header: "RECENT MOMENTUM:"},
		extract.PackSection{Name: "conversation_cues", Header: "CONVERSATION CUES:"},
	)
	prof := in.Profile
	sums := in.Summaries[:min(len(in.Summaries), extract.PackSessions)]

	// USER CONTEXT
	name := cmp.Or(extract.PackValue(prof["preferred_name"]), extract.PackQuote(in.DisplayName, extract.PackValueRunes))
	addiction := extract.PackValue(prof["addiction_type"])
	var who string
	switch {
	case name != "" && addiction != "":
		who = name + " is in recovery from " + addiction
	case name != "":
		who = "Preferred name: " + name
	case addiction != "":
		who = "In recovery from " + addiction
	}
	p.Add(extract.PackItem{Section: userContext, Prio: 0, Text: who})
	if step, ok := extract.PackInt(prof["current_step"]); ok && step > 0 {
		p.Add(extract.PackItem{Section: userContext, Prio: 20, Text: "Currently working Step " + strconv.Itoa(step)})
	}
	p.Add(extract.PackItem{Section: userContext, Prio: 40, Text: packElderSupport(prof)})

	triggers := packElderTriggers(prof, in.Summaries)
	g := &extract.PackGroup{One: "Key trigger", Many: "Key triggers", Sep: ", "}
	for i, t := range triggers {
		if i >= packTriggers {
			p.Capped(userContext)
			continue
		}
		p.Add(extract.PackItem{Section: userContext, Prio: 50, Group: g, Text: t})
	}
	zones := &extract.PackGroup{One: "Zone boundaries", Many: "Zone boundaries", Sep: ", "}
	for _, z := range []struct{ field, name string }{
		{"red_zone_behaviors", "Red"}, {"yellow_zone_behaviors", "Yellow"}, {"green_zone_behaviors", "Green"},
	} {
		bs := extract.PackStrings(prof[z.field])
		if len(bs) == 0 {
			continue
		}
		bs = bs[:min(len(bs), packZoneBehaviours)]
		p.Add(extract.PackItem{Section: userContext, Prio: 60, Group: zones, Text: z.name + " [" + strings.Join(bs, ", ") + "]"})
	}

	// RECENT MOMENTUM
	if line, ok := packElderUnconfirmed(prof, in.Summaries); ok {
		p.Add(extract.PackItem{Section: momentum, Prio: 5, Text: line})
	} else if days, ok := packElderStreak(prof, in.Summaries, in.Now); ok {
		p.Add(extract.PackItem{Section: momentum, Prio: 21, Text: "Current streak: " + extract.Count(days, "day", "days")})
	}
	sessions := &extract.PackGroup{One: "Last session", Many: "Last %d sessions", Nested: true}
	for i, s := range sums {
		line := extract.PackDate(s.At) + ": " + packElderOutcome(s.Data)
		if t := extract.PackValue(s.Data["primary_trigger"]); t != "" {
			line += "; trigger: " + t
		}
		// The newest session's follow-up is a cue of its own; that of a
		// hint at a relapse is the streak's line while it stands.
		if f := extract.PackValue(s.Data["follow_up_needed"]); f != "" && i > 0 && !packElderHintFollowUp(s.Data) {
			line += "; follow-up: " + f
		}
		p.Add(extract.PackItem{Section: momentum, Prio: 30, Group: sessions, Text: line})
	}

	// CONVERSATION CUES
	if len(sums) > 0 {
		if f := extract.PackValue(sums[0].Data["follow_up_needed"]); f != "" && !packElderHintFollowUp(sums[0].Data) {
			p.Add(extract.PackItem{Section: cues, Prio: 10, Text: "Last session follow-up: " + f})
		}
	}
	seen := map[string]bool{}
	events := 0
	for _, c := range in.Cues {
		k := strings.ToLower(strings.TrimSpace(c.Type))
		if k == extract.CueRiskyEvent {
			// Each risky event is its own cue, for a while after its day.
			if line := packElderEvent(c.Detail, in.Now, in.Location); line != "" && events < packEvents && !seen[line] {
				seen[line] = true
				events++
				p.Add(extract.PackItem{Section: cues, Prio: 12, Text: line})
			}
			continue
		}
		if seen[k] {
			continue
		}
		if line := packElderCue(k, c.Detail); line != "" {
			seen[k] = true
			p.Add(extract.PackItem{Section: cues, Prio: 11, Text: line})
		}
	}
	if f := extract.PackValue(prof["current_focus"]); f != "" {
		p.Add(extract.PackItem{Section: cues, Prio: 70, Text: "Active growth area: " + f})
	}
	return p
}

// packEvents caps the risky events the pack names; packEventDays is how
// long after its day a risky event is still asked about.
const (
	packEvents    = 3
	packEventDays = 14
)

// packElderEvent is the cue line of a risky event: ahead (today or later,
// in the user's zone), ask about a plan; past by at most packEventDays,
// ask how it went; older, nothing.
func packElderEvent(d map[string]any, now time.Time, loc *time.Location) string {
	evs := extract.UpcomingEvents([]any{d})
	if len(evs) == 0 {
		return ""
	}
	e := evs[0]
	day, _ := time.Parse(time.DateOnly, e.Date)
	if loc == nil {
		loc = time.UTC
	}
	past := extract.PackCivilDays(day, now.In(loc))
	when := day.Format("Mon 2 Jan 2006")
	switch {
	case past <= 0:
		return "Risky event ahead on " + when + ": " + extract.PackValue(e.Event) + "; ask how they plan to handle it."
	case past <= packEventDays:
		return "Risky event on " + when + ": " + extract.PackValue(e.Event) + "; ask how it went."
	}
	return ""
}

func packElderSupport(prof map[string]any) string {
	var parts []string
	sponsor := extract.PackValue(prof["sponsor_name"])
	switch prof["has_sponsor"] {
	case true:
		if sponsor != "" {
			parts = append(parts, "sponsor "+sponsor)
		} else {
			parts = append(parts, "has a sponsor")
		}
	case false:
		parts = append(parts, "no sponsor")
	default:
		if sponsor != "" {
			parts = append(parts, "sponsor "+sponsor)
		}
	}
	fellowship := extract.PackValue(prof["fellowship_name"])
	switch prof["in_fellowship"] {
	case true:
		if fellowship != "" {
			parts = append(parts, "attends "+fellowship)
		} else {
			parts = append(parts, "attends a fellowship")
		}
	case false:
		parts = append(parts, "not attending a fellowship")
	default:
		if fellowship != "" {
			parts = append(parts, "fellowship "+fellowship)
		}
	}
	if prof["has_therapist"] == true {
		parts = append(parts, "sees a therapist")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Support: " + strings.Join(parts, ", ")
}

// packElderTriggers are the profile's known triggers and the triggers the
// given sessions named (their primary_trigger and triggers), those named in
// most sessions first, then the profile's in its order, then by the newest
// session that named them.
func packElderTriggers(prof map[string]any, sums []extract.PastSummary) []string {
	ts := extract.PackStrings(prof["known_triggers"])
	seen := map[string]int{}
	for _, s := range sums {
		named := map[string]bool{}
		// Quoted, as packStrings gives the profile's.
		for _, t := range append([]string{extract.PackValue(extract.Text(s.Data["primary_trigger"]))}, extract.PackStrings(s.Data["triggers"])...) {
			k := extract.LabelKey(t)
			if k == "" || named[k] {
				continue
			}
			named[k] = true
			seen[k]++
			if !slices.ContainsFunc(ts, func(x string) bool { return extract.LabelKey(x) == k }) {
				ts = append(ts, t)
			}
		}
	}
	type ranked struct {
		t        string
		n, order int
	}
	var rs []ranked
	dup := map[string]bool{}
	for i, t := range ts {
		k := extract.LabelKey(t)
		if k == "" || dup[k] {
			continue
		}
		dup[k] = true
		rs = append(rs, ranked{t, seen[k], i})
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.order, b.order)) })
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.t
	}
	return out
}

// packElderStreak is the days since the later of recovery_start_date and the
// newest relapsed session; without a start date, sobriety_days when none of
// the sessions relapsed.
func packElderStreak(prof map[string]any, sums []extract.PastSummary, now time.Time) (int, bool) {
	from, relapse, ok := packElderStreakFrom(prof, sums)
	if ok {
		if d := extract.PackCivilDays(from, now); d >= 0 {
			return d, true
		}
		return 0, false
	}
	if days, ok := extract.PackInt(prof["sobriety_days"]); ok && days >= 0 && relapse.IsZero() {
		return days, true
	}
	return 0, false
}

// packElderStreakFrom is when the streak started: the later of
// recovery_start_date and the newest relapsed session (ok false without a
// start date); and that relapse (zero when none of sums relapsed).
func packElderStreakFrom(prof map[string]any, sums []extract.PastSummary) (from, relapse time.Time, ok bool) {
	for _, s := range sums {
		if strings.EqualFold(extract.Text(s.Data["outcome"]), aggregate.OutcomeRelapsed) && s.At.After(relapse) {
			relapse = s.At
		}
	}
	start, ok := extract.Date(prof["recovery_start_date"])
	if !ok {
		return time.Time{}, relapse, false
	}
	from = start
	if !relapse.IsZero() && extract.PackCivilDays(start, relapse) > 0 {
		from = relapse
	}
	return from, relapse, true
}

func packElderOutcome(d map[string]any) string {
	o := extract.Text(d["outcome"])
	var s string
	switch strings.ToLower(o) {
	case aggregate.OutcomeUrgePassed:
		s = "urge passed"
	case aggregate.OutcomeRelapsed:
		s = "relapsed"
	case aggregate.OutcomeOngoing:
		s = "still struggling at the end"
	case "":
		s = "no outcome recorded"
	default:
		s = extract.PackValue(o)
	}
	if n, ok := extract.PackInt(d["urge_intensity"]); ok && n >= 0 && n <= 10 {
		s += " (urge " + strconv.Itoa(n) + "/10)"
	}
	return s
}

// packElderCue is the fixed sentence of a cue type, with the profile values its
// detail holds; "" for a kind it does not know.
func packElderCue(kind string, d map[string]any) string {
	switch kind {
	case extract.CueRelapse:
		if n, ok := extract.PackInt(d["before"]); ok && n > 0 {
			return "A relapse was recorded after " + extract.Count(n, "day", "days") + " sober; acknowledge it gently and ask what they need right now."
		}
		return "A relapse was recorded recently; acknowledge it gently and ask what they need right now."
	case extract.CueFellowshipDropped:
		if f := extract.PackValue(d["fellowship_name"]); f != "" {
			return "Has stopped going to " + f + " meetings; ask what led to that, without judgement."
		}
		return "Has stopped going to fellowship meetings; ask what led to that, without judgement."
	case extract.CueSponsorChange:
		prev, next := extract.PackValue(d["previous_sponsor_name"]), extract.PackValue(d["sponsor_name"])
		switch {
		case next != "" && prev != "":
			return "Sponsor changed from " + prev + " to " + next + "; invite them to talk about working with " + next + "."
		case next != "":
			return "Has a new sponsor, " + next + "; invite them to talk about working with them."
		case prev != "":
			return "No longer has a sponsor (previously " + prev + "); ask how it has been without sponsor support."
		}
		return "Their sponsor support changed; ask how it has been."
	case extract.CueRecurringTrigger:
		t := extract.PackValue(d["trigger"])
		if t == "" {
			return ""
		}
		return "The trigger " + t + " has come up often lately; offer to explore it."
	}
	return ""
}
