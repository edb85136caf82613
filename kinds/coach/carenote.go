package coach

import "github.com/mnemo-ai/mnemo/extract"

var _ extract.CareNoter = kindCoach{}

// CareNote is the coach's care note (extract.CareNoter): the coach asks
// how the client is before any goal, action step or open thread.
func (kindCoach) CareNote(c extract.CareNote) (full, short string) {
	app := c.AppLabel("coach", "the coach")
	return "In a session on " + c.Date + " the client said things that suggested " + c.Concern +
			". Check in gently on how they are before anything else, before any goal, action step or open thread; follow " +
			app + "'s crisis guidance.",
		"Check in gently before anything else: a session on " + c.Date + " suggested " + c.Concern + "; follow " + app + "'s crisis guidance."
}
