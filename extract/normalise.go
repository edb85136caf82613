package extract

import (
	"strings"
	"unicode"

	"github.com/mnemo-ai/mnemo/internal/spelling"
	"github.com/mnemo-ai/mnemo/prompts"
)

// SpellingCorrected is s with the misspelt words of its user messages
// corrected (package spelling) when p asks for it (correct_spelling, for
// an app whose users are children); otherwise s as it is. The words the user's memory already holds
// (the display name, the records' and the profile's texts) stay as
// written, as do names and chat words. The companion's messages are not
// changed, and s is not modified: the messages are a copy.
//
// A kind calls it at the start of its rules; the risk screen has read the
// messages as written before.
func (s Session) SpellingCorrected(p prompts.Policy) Session {
	if !p.CorrectSpelling || len(s.Messages) == 0 {
		return s
	}
	c := spelling.Default()
	known := knownWords(c, s)
	msgs := make([]Message, len(s.Messages))
	copy(msgs, s.Messages)
	for i, m := range msgs {
		if IsUser(m.Role) {
			msgs[i].Content, _ = c.Correct(m.Content, known...)
		}
	}
	s.Messages = msgs
	return s
}

// knownWords are the words of what the store holds about the user that the
// lists do not: a pet's or a toy's name, a word the child uses.
func knownWords(c *spelling.Corrector, s Session) []string {
	var out []string
	seen := map[string]bool{}
	add := func(text string) {
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
			lw := strings.ToLower(w)
			if len(lw) >= 4 && !seen[lw] && !c.Known(lw) {
				seen[lw] = true
				out = append(out, lw)
			}
		}
	}
	add(s.DisplayName)
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			add(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, r := range s.History.Records {
		if r.Delete {
			continue
		}
		add(strings.NewReplacer("_", " ", ":", " ").Replace(r.Key))
		walk(r.Data["value"])
	}
	walk(s.History.Profile)
	return out
}
