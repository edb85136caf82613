package extract

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The eldertree kind's context pack (docs/presets.md, Elder Tree: context
// pack).

func packElderTree(in PackInput) packPlan {
	const (
		userContext = iota
		momentum
		cues
	)
	p := newPackPlan(
		packSection{"user_context", "USER CONTEXT:"},
		packSection{"recent_momentum", "RECENT MOMENTUM:"},
		packSection{"conversation_cues", "CONVERSATION CUES:"},
	)
	prof := in.Profile
	sums := in.Summaries[:min(len(in.Summaries), packSessions)]

	// USER CONTEXT
	name := cmp.Or(packValue(prof["preferred_name"]), packQuote(in.DisplayName, packValueRunes))
	addiction := packValue(prof["addiction_type"])
	var who string
	switch {
	case name != "" && addiction != "":
		who = name + " is in recovery from " + addiction
	case name != "":
		who = "Preferred name: " + name
	case addiction != "":
		who = "In recovery from " + addiction
	}
	p.add(packItem{section: userContext, prio: 0, text: who})
	if step, ok := packInt(prof["current_step"]); ok && step > 0 {
		p.add(packItem{section: userContext, prio: 20, text: "Currently working Step " + strconv.Itoa(step)})
	}
	p.add(packItem{section: userContext, prio: 40, text: packElderSupport(prof)})

	triggers := packElderTriggers(prof, in.Summaries)
	g := &packGroup{one: "Key trigger", many: "Key triggers", sep: ", "}
	for i, t := range triggers {
		if i >= packTriggers {
			p.capped[userContext]++
			continue
		}
		p.add(packItem{section: userContext, prio: 50, group: g, text: t})
	}
	zones := &packGroup{one: "Zone boundaries", many: "Zone boundaries", sep: ", "}
	for _, z := range []struct{ field, name string }{
		{"red_zone_behaviors", "Red"}, {"yellow_zone_behaviors", "Yellow"}, {"green_zone_behaviors", "Green"},
	} {
		bs := packStrings(prof[z.field])
		if len(bs) == 0 {
			continue
		}
		bs = bs[:min(len(bs), packZoneBehaviours)]
		p.add(packItem{section: userContext, prio: 60, group: zones, text: z.name + " [" + strings.Join(bs, ", ") + "]"})
	}

	// RECENT MOMENTUM
	if days, ok := packElderStreak(prof, in.Summaries, in.Now); ok {
		p.add(packItem{section: momentum, prio: 21, text: "Current streak: " + packPlural(days, "day", "days")})
	}
	sessions := &packGroup{one: "Last session", many: "Last %d sessions", nested: true}
	for i, s := range sums {
		line := packDate(s.At) + ": " + packElderOutcome(s.Data)
		if t := packValue(s.Data["primary_trigger"]); t != "" {
			line += "; trigger: " + t
		}
		// The newest session's follow-up is a cue of its own.
		if f := packValue(s.Data["follow_up_needed"]); f != "" && i > 0 {
			line += "; follow-up: " + f
		}
		p.add(packItem{section: momentum, prio: 30, group: sessions, text: line})
	}

	// CONVERSATION CUES
	if len(sums) > 0 {
		if f := packValue(sums[0].Data["follow_up_needed"]); f != "" {
			p.add(packItem{section: cues, prio: 10, text: "Last session follow-up: " + f})
		}
	}
	seen := map[string]bool{}
	events := 0
	for _, c := range in.Cues {
		k := packKind(c.Kind)
		if k == CueRiskyEvent {
			// Each risky event is its own cue, for a while after its day.
			if line := packElderEvent(c.Detail, in.Now, in.Location); line != "" && events < packEvents && !seen[line] {
				seen[line] = true
				events++
				p.add(packItem{section: cues, prio: 12, text: line})
			}
			continue
		}
		if seen[k] {
			continue
		}
		if line := packElderCue(k, c.Detail); line != "" {
			seen[k] = true
			p.add(packItem{section: cues, prio: 11, text: line})
		}
	}
	if f := packValue(prof["current_focus"]); f != "" {
		p.add(packItem{section: cues, prio: 70, text: "Active growth area: " + f})
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
	evs := upcomingEvents([]any{d})
	if len(evs) == 0 {
		return ""
	}
	e := evs[0]
	day, _ := time.Parse(time.DateOnly, e.Date)
	if loc == nil {
		loc = time.UTC
	}
	past := packCivilDays(day, now.In(loc))
	when := day.Format("Mon 2 Jan 2006")
	switch {
	case past <= 0:
		return "Risky event ahead on " + when + ": " + packValue(e.Event) + "; ask how they plan to handle it."
	case past <= packEventDays:
		return "Risky event on " + when + ": " + packValue(e.Event) + "; ask how it went."
	}
	return ""
}

func packElderSupport(prof map[string]any) string {
	var parts []string
	sponsor := packValue(prof["sponsor_name"])
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
	fellowship := packValue(prof["fellowship_name"])
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
func packElderTriggers(prof map[string]any, sums []PastSummary) []string {
	ts := packStrings(prof["known_triggers"])
	seen := map[string]int{}
	for _, s := range sums {
		named := map[string]bool{}
		// Quoted, as packStrings gives the profile's.
		for _, t := range append([]string{packValue(text(s.Data["primary_trigger"]))}, packStrings(s.Data["triggers"])...) {
			k := labelKey(t)
			if k == "" || named[k] {
				continue
			}
			named[k] = true
			seen[k]++
			if !slices.ContainsFunc(ts, func(x string) bool { return labelKey(x) == k }) {
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
		k := labelKey(t)
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
func packElderStreak(prof map[string]any, sums []PastSummary, now time.Time) (int, bool) {
	var relapse time.Time
	for _, s := range sums {
		if strings.EqualFold(text(s.Data["outcome"]), OutcomeRelapsed) && s.At.After(relapse) {
			relapse = s.At
		}
	}
	if start, ok := date(prof["recovery_start_date"]); ok {
		from := start
		if !relapse.IsZero() && packCivilDays(start, relapse) > 0 {
			from = relapse
		}
		if d := packCivilDays(from, now); d >= 0 {
			return d, true
		}
		return 0, false
	}
	if days, ok := packInt(prof["sobriety_days"]); ok && days >= 0 && relapse.IsZero() {
		return days, true
	}
	return 0, false
}

func packElderOutcome(d map[string]any) string {
	o := text(d["outcome"])
	var s string
	switch strings.ToLower(o) {
	case OutcomeUrgePassed:
		s = "urge passed"
	case OutcomeRelapsed:
		s = "relapsed"
	case OutcomeOngoing:
		s = "still struggling at the end"
	case "":
		s = "no outcome recorded"
	default:
		s = packValue(o)
	}
	if n, ok := packInt(d["urge_intensity"]); ok && n >= 0 && n <= 10 {
		s += " (urge " + strconv.Itoa(n) + "/10)"
	}
	return s
}

// packElderCue is the fixed sentence of a cue kind, with the profile values its
// detail holds; "" for a kind it does not know.
func packElderCue(kind string, d map[string]any) string {
	switch kind {
	case CueRelapse:
		if n, ok := packInt(d["before"]); ok && n > 0 {
			return "A relapse was recorded after " + packPlural(n, "day", "days") + " sober; acknowledge it gently and ask what they need right now."
		}
		return "A relapse was recorded recently; acknowledge it gently and ask what they need right now."
	case CueFellowshipDropped:
		if f := packValue(d["fellowship_name"]); f != "" {
			return "Has stopped going to " + f + " meetings; ask what led to that, without judgement."
		}
		return "Has stopped going to fellowship meetings; ask what led to that, without judgement."
	case CueSponsorChange:
		prev, next := packValue(d["previous_sponsor_name"]), packValue(d["sponsor_name"])
		switch {
		case next != "" && prev != "":
			return "Sponsor changed from " + prev + " to " + next + "; invite them to talk about working with " + next + "."
		case next != "":
			return "Has a new sponsor, " + next + "; invite them to talk about working with them."
		case prev != "":
			return "No longer has a sponsor (previously " + prev + "); ask how it has been without sponsor support."
		}
		return "Their sponsor support changed; ask how it has been."
	case CueRecurringTrigger:
		t := packValue(d["trigger"])
		if t == "" {
			return ""
		}
		return "The trigger " + t + " has come up often lately; offer to explore it."
	}
	return ""
}
