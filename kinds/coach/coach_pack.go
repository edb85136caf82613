package coach

import (
	"cmp"
	"slices"

	"github.com/mnemo-ai/mnemo/extract"
)

// The coach kind's context pack (docs/presets.md, Coach: context pack).

// Caps on how many candidates a section considers.
const (
	packActionSteps = 5 // action steps taken from one summary
	packCoachList   = 5 // goals, themes, coach preferences
	packThreads     = 5 // open threads per summary
)

// packCoach plans the pack of coach (docs/presets.md, Coach: context pack):
// CLIENT (name, goals, coaching preferences, recurring themes), OPEN THREADS
// (of the last three summaries, deduplicated, newest first) and LAST
// RECOGNITION MOMENT.
func packCoach(in extract.PackInput) *extract.PackPlan {
	const (
		client = iota
		threads
		steps
		recognition
	)
	p := extract.NewPackPlan(
		extract.PackSection{Name: "client", Header: "CLIENT:"},
		extract.PackSection{Name: "open_threads", Header: "OPEN THREADS:"},
		extract.PackSection{Name: "action_steps", Header: "OPEN ACTION STEPS:"},
		extract.PackSection{Name: "recognition", Header: "LAST RECOGNITION MOMENT:"},
	)
	prof := in.Profile
	if name := cmp.Or(extract.PackValue(prof["preferred_name"]), extract.PackQuote(in.DisplayName, extract.PackValueRunes)); name != "" {
		p.Add(extract.PackItem{Section: client, Prio: 0, Text: "Name: " + name})
	}
	list := func(field string, prio int, g *extract.PackGroup, lead string) {
		for i, s := range extract.PackStrings(prof[field]) {
			if i >= packCoachList {
				p.Capped(client)
				continue
			}
			p.Add(extract.PackItem{Section: client, Prio: prio, Group: g, Text: lead + s})
		}
	}
	list("goals", 10, nil, "Goal: ")
	list("coach_preferences", 30, &extract.PackGroup{One: "Coaching preference", Many: "Coaching preferences", Sep: "; "}, "")
	list("recurring_themes", 50, &extract.PackGroup{One: "Recurring theme", Many: "Recurring themes", Sep: "; "}, "")

	var shown []string
	n := 0
	for _, s := range in.Summaries[:min(len(in.Summaries), extract.PackSessions)] {
		for i, t := range extract.PackStrings(s.Data["open_threads"]) {
			// A thread once, in its newest wording, near duplicates folded
			// (coachSame).
			if extract.LabelKey(t) == "" || slices.ContainsFunc(shown, func(o string) bool { return coachSame(o, t) }) {
				continue
			}
			shown = append(shown, t)
			if i >= packThreads {
				p.Capped(threads)
				continue
			}
			p.Add(extract.PackItem{Section: threads, Prio: 20, Text: extract.PackDate(s.At) + ": " + t})
			n++
		}
	}
	// The action steps of the recent sessions, newest session first, each
	// step once (the newest mention): what the user said they would do is
	// what the next session checks in on. They come after the open
	// threads when the budget is short.
	// A step a later session reported done (its completed_steps) is closed.
	stepSeen := map[string]bool{}
	for _, s := range in.Summaries[:min(len(in.Summaries), extract.PackSessions)] {
		for i, st := range extract.PackStrings(s.Data["action_steps"]) {
			k := extract.LabelKey(st)
			if k == "" || stepSeen[k] {
				continue
			}
			stepSeen[k] = true
			if i >= packActionSteps {
				p.Capped(steps)
				continue
			}
			text := extract.PackDate(s.At) + ": " + st
			for _, d := range extract.ObjectList(s.Data["due_dates"]) {
				if due, ok := extract.Date(d["due"]); ok && extract.PackValue(d["step"]) == st {
					text += " (due " + due.Format("Mon 2006-01-02") + ")"
					break
				}
			}
			p.Add(extract.PackItem{Section: steps, Prio: 25, Text: text})
		}
		for _, st := range extract.PackStrings(s.Data["completed_steps"]) {
			stepSeen[extract.LabelKey(st)] = true // closes the older sessions' step
		}
	}
	for _, s := range in.Summaries {
		// A moment is a string, or a list of which the first counts.
		r := extract.PlainText(extract.Text(s.Data["recognition_moment"]), extract.PackTextRunes)
		if list, ok := s.Data["recognition_moment"].([]any); r == "" && ok {
			for _, m := range list {
				if r = extract.PlainText(extract.Text(m), extract.PackValueRunes); r != "" {
					break
				}
			}
		}
		if r != "" {
			p.AddCut(recognition, 40, extract.PackDate(s.At)+": ", r)
			break
		}
	}
	return p
}
