package extract

import (
	"cmp"
	"slices"
)

// The coach kind's context pack (docs/presets.md, Coach: context pack).

// packActionSteps caps the action steps taken from one summary.
const packActionSteps = 5

func packCoach(in PackInput) packPlan {
	const (
		client = iota
		threads
		steps
		recognition
	)
	p := newPackPlan(
		packSection{"client", "CLIENT:"},
		packSection{"open_threads", "OPEN THREADS:"},
		packSection{"action_steps", "OPEN ACTION STEPS:"},
		packSection{"recognition", "LAST RECOGNITION MOMENT:"},
	)
	prof := in.Profile
	if name := cmp.Or(packValue(prof["preferred_name"]), packQuote(in.DisplayName, packValueRunes)); name != "" {
		p.add(packItem{section: client, prio: 0, text: "Name: " + name})
	}
	list := func(field string, prio int, g *packGroup, prefix string) {
		for i, s := range packStrings(prof[field]) {
			if i >= packCoachList {
				p.capped[client]++
				continue
			}
			p.add(packItem{section: client, prio: prio, group: g, text: prefix + s})
		}
	}
	list("goals", 10, nil, "Goal: ")
	list("coach_preferences", 30, &packGroup{one: "Coaching preference", many: "Coaching preferences", sep: "; "}, "")
	list("recurring_themes", 50, &packGroup{one: "Recurring theme", many: "Recurring themes", sep: "; "}, "")

	var shown []string
	n := 0
	for _, s := range in.Summaries[:min(len(in.Summaries), packSessions)] {
		for i, t := range packStrings(s.Data["open_threads"]) {
			// A thread once, in its newest wording, near duplicates folded
			// (coachSame).
			if labelKey(t) == "" || slices.ContainsFunc(shown, func(o string) bool { return coachSame(o, t) }) {
				continue
			}
			shown = append(shown, t)
			if i >= packThreads {
				p.capped[threads]++
				continue
			}
			p.add(packItem{section: threads, prio: 20, text: packDate(s.At) + ": " + t})
			n++
		}
	}
	// The action steps of the recent sessions, newest session first, each
	// step once (the newest mention): what the user said they would do is
	// what the next session checks in on. They come after the open
	// threads when the budget is short.
	// A step a later session reported done (its completed_steps) is closed.
	stepSeen := map[string]bool{}
	for _, s := range in.Summaries[:min(len(in.Summaries), packSessions)] {
		for i, st := range packStrings(s.Data["action_steps"]) {
			k := labelKey(st)
			if k == "" || stepSeen[k] {
				continue
			}
			stepSeen[k] = true
			if i >= packActionSteps {
				p.capped[steps]++
				continue
			}
			p.add(packItem{section: steps, prio: 25, text: packDate(s.At) + ": " + st})
		}
		for _, st := range packStrings(s.Data["completed_steps"]) {
			stepSeen[labelKey(st)] = true // closes the older sessions' step
		}
	}
	for _, s := range in.Summaries {
		// A moment is a string, or a list of which the first counts.
		r := packClean(text(s.Data["recognition_moment"]), packTextRunes)
		if list, ok := s.Data["recognition_moment"].([]any); r == "" && ok {
			for _, m := range list {
				if r = packClean(text(m), packValueRunes); r != "" {
					break
				}
			}
		}
		if r != "" {
			p.add(packCutItem(recognition, 40, packDate(s.At)+": ", r))
			break
		}
	}
	return p
}
