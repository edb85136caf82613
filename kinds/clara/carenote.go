package clara

import "github.com/mnemo-ai/mnemo/extract"

var _ extract.CareNoter = kindClara{}

// CareNote is Clara's care note (extract.CareNoter). Clara's pack holds
// nothing of other sessions (docs/presets.md, Clara: dementia-safe rules),
// and the note keeps to that for the person: the companion asks how they
// feel now, and never mentions an earlier conversation, which would quiz
// them on what they said. The note is the one line of the pack, and only
// for the care note's period.
func (kindClara) CareNote(c extract.CareNote) (full, short string) {
	app := c.AppLabel("clara", "Clara")
	return "A session on " + c.Date + " suggested " + c.Concern +
			". Before anything else, gently ask how they are feeling right now, without mentioning any earlier conversation; follow " +
			app + "'s crisis guidance and tell the caregiver as it says.",
		"Gently ask how they feel now before anything else, never mentioning an earlier conversation (a session on " + c.Date +
			" suggested " + c.Concern + "); follow " + app + "'s crisis guidance."
}
