package lara

import "github.com/mnemo-ai/mnemo/extract"

var _ extract.CareNoter = kindLara{}

// CareNote is LaRa's care note (extract.CareNoter): safety comes before
// structure and learning (docs/presets.md, LaRa: principles), so the tutor
// asks the child, kindly and simply, how they are before any lesson. It
// labels no emotion of the child's: it tells what the words suggested.
func (kindLara) CareNote(c extract.CareNote) (full, short string) {
	app := c.AppLabel("lara", "LaRa")
	return "In a session on " + c.Date + " the child said things that suggested " + c.Concern +
			". Before any lesson, check in gently, in simple and kind words, on how they are; follow " +
			app + "'s crisis guidance for children.",
		"Check in gently before any lesson: a session on " + c.Date + " suggested " + c.Concern + "; follow " + app + "'s crisis guidance for children."
}
