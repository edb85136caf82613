package extract

import (
	"strings"
	"unicode"
)

// Withholding (docs/safety.md, "What the screen keeps out"): nothing of a
// message holding the user's own medium or high risk is stored, and that
// covers more than the memories Screen drops by their source message. A
// summary's topics, a "Worked on:" line, a preference a kind keeps in its
// records, a model's summary line: none of them says which message it
// came from. So the screen's findings decide once (screenRisks) and two
// things follow from that one answer:
//
//   - Rules reads the risks before the kind's rules and hands the kind a
//     session in which those messages are withheld: their id, role and
//     time stay (they are counted, and a question after the companion's
//     last turn is still after it), their text is empty. No kind's
//     builder can read them, whatever it builds.
//   - A model read the whole transcript, so on the LLM path Screen drops
//     every string of the answer (memory, record value, summary or
//     profile line) holding a word that only such a message said
//     (crisisWords). The same holds on the rules path for a message only
//     a model's second look found (the kind had read it).

// withhold is s as the kind's rules see it: the user messages in unsafe
// (the screen's answer, id -> class) have no text. The kind may ask for the
// text back with Unscreened, to derive a label only.
func withhold(s Session, unsafe map[string]string) Session {
	if len(unsafe) == 0 {
		return s
	}
	msgs := make([]Message, len(s.Messages))
	copy(msgs, s.Messages)
	ids := map[string]bool{}
	for i, m := range msgs {
		if _, ok := unsafe[m.ID]; ok && isUser(m.Role) {
			msgs[i].Content = ""
			ids[m.ID] = true
		}
	}
	if len(ids) == 0 {
		return s
	}
	s.unscreened, s.Messages, s.withheld = s.Messages, msgs, ids
	return s
}

// Withheld reports whether Rules withheld the text of message id from the
// kind's rules: the screen found the user's own medium or high risk in it.
// Its Content is then empty.
func (s Session) Withheld(id string) bool { return s.withheld[id] }

// Unscreened is s with the text of the messages Rules withheld (Withheld).
// It is for a reader that derives a label from them and keeps no word of
// theirs, as a caregiver concern is a label, a date and a message id (the
// risk finding itself is stored the same way). A summary, a topic, a
// record's value or a profile field is never built from it.
func (s Session) Unscreened() Session {
	if s.unscreened != nil {
		s.Messages, s.unscreened, s.withheld = s.unscreened, nil, nil
	}
	return s
}

// crisisWords are the words of the messages in heard (id -> class: the
// user's own medium or high risk, in a text the result's author read) that
// no other user message of s says, each with its message's class. A string
// holding one of them is of such a message. Words are compared folded and
// stemmed (wordKey); function words, the commonest verbs and words of fewer
// than three letters say nothing of a message and are left out.
func crisisWords(s Session, heard map[string]string) map[string]string {
	if len(heard) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, m := range s.Messages {
		if class, ok := heard[m.ID]; ok && isUser(m.Role) {
			for _, w := range textWords(m.Content) {
				if _, dup := out[w]; !dup {
					out[w] = class
				}
			}
		}
	}
	for _, m := range s.Messages {
		if _, ok := heard[m.ID]; !ok && isUser(m.Role) {
			for _, w := range textWords(m.Content) {
				delete(out, w)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// crisisIn is the class of the first word of text in words, if any.
func crisisIn(text string, words map[string]string) (class string, ok bool) {
	if len(words) == 0 {
		return "", false
	}
	for _, w := range textWords(text) {
		if c, ok := words[w]; ok {
			return c, true
		}
	}
	return "", false
}

// textWords are the content words of text, as wordKey keys them.
func textWords(text string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		if k := wordKey(f); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// wordKey folds a lower-cased word for comparison: no possessive or
// apostrophe, no plural, -ing or -ed ending ("pills" and "pill", "planning"
// and "plann"); "" for a word that says nothing of a message (no letter,
// fewer than three letters, or one of neutralWords).
func wordKey(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	w = strings.NewReplacer("'", "", "’", "").Replace(w)
	if len([]rune(w)) < 3 || neutralWords[w] || strings.IndexFunc(w, unicode.IsLetter) < 0 {
		return ""
	}
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if rest, ok := strings.CutSuffix(w, suf); ok && len([]rune(rest)) >= 3 && !strings.HasSuffix(w, "ss") {
			if suf == "es" && !strings.HasSuffix(rest, "s") && !strings.HasSuffix(rest, "x") && !strings.HasSuffix(rest, "ch") && !strings.HasSuffix(rest, "sh") {
				continue // "tablets" loses the s only, "boxes" the es
			}
			w = rest
			break
		}
	}
	if neutralWords[w] {
		return ""
	}
	return w
}

// neutralWords are words that say nothing of the message they are in:
// function words, pronouns, auxiliaries and the commonest verbs and
// adverbs, with contractions written without their apostrophe.
var neutralWords = toSet(`
	the and but for nor yet also too very just really only even still again ever never not
	all any some each every both either neither few many much more most less least lot lots
	one two three first last next other another such same own than then there here where when
	what who whom whose which why how that this these those its it's
	you your yours yourself yourselves him his himself her hers herself she they them their theirs
	themselves our ours ourselves myself mine
	was were are been being have has had having does did doing done will would shall should
	can could may might must ought
	isnt arent wasnt werent dont doesnt didnt hasnt havent hadnt wont wouldnt shant shouldnt
	cant couldnt mightnt mustnt aint
	im ive ill id youre youve youll youd hes shes its were weve well wed theyre theyve theyll theyd
	thats theres heres whats whos lets
	into onto from with without about above below over under between through during before after
	since until till upon within along across around against toward towards
	because though although while whether unless like
	get got gets getting make made makes making take took takes taking go goes going went gone
	come came comes coming say said says saying tell told tells know knew known think thought
	feel felt feels feeling want wants wanted need needs needed see saw seen look looks looked
	give gave given keep kept let put use used try tried seem seems seemed mean means meant
	yes yeah yep nope okay hey hello thanks thank please sorry well sure right now today
	something anything nothing everything someone anyone everyone nobody somebody anybody
	thing things stuff way ways kind sort bit
	`)
