package eldertree

import "github.com/mnemo-ai/mnemo/extract"

var _ extract.CareNoter = kindElderTree{}

// CareNote is Elder Tree's care note (extract.CareNoter): a recovery
// companion asks how the person is before any streak, meeting or goal.
// It is a note of its own, beside the pack's recovery lines (a relapse, a
// streak), which it neither replaces nor repeats.
func (kindElderTree) CareNote(c extract.CareNote) (full, short string) {
	app := c.AppLabel("eldertree", "Elder Tree")
	return "In a session on " + c.Date + " the person said things that suggested " + c.Concern +
			". Check in gently on how they are before anything else, before any streak, meeting or goal; follow " +
			app + "'s crisis guidance.",
		"Check in gently before anything else: a session on " + c.Date + " suggested " + c.Concern + "; follow " + app + "'s crisis guidance."
}
