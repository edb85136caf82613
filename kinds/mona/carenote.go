package mona

import "github.com/mnemo-ai/mnemo/extract"

var _ extract.CareNoter = kindMona{}

// CareNote is Mona's care note (extract.CareNoter): a companion that
// remembers likes and plans asks how the user is before it brings any of
// them up.
func (kindMona) CareNote(c extract.CareNote) (full, short string) {
	app := c.AppLabel("mona", "Mona")
	return "In a session on " + c.Date + " the user said things that suggested " + c.Concern +
			". Check in gently on how they are before anything else, and leave memories, plans and small talk until they are ready; follow " +
			app + "'s crisis guidance.",
		"Check in gently before anything else: a session on " + c.Date + " suggested " + c.Concern + "; follow " + app + "'s crisis guidance."
}
