package grammar

import "strings"

// The sentence and clause toolkit that the kinds use (kinds/<name>): the
// same splitting and word lists the general grammar reads.

// Sentence is one sentence of a message, as the rules split it.
type Sentence struct {
	Text     string // whitespace collapsed to single spaces
	Question bool   // it ended with a question mark
}

// Sentences splits text at line breaks and at runs of . ! ? … followed by
// a space or the end ("3.5" stays whole).
func Sentences(text string) []Sentence {
	ss := splitSentences(text)
	out := make([]Sentence, len(ss))
	for i, s := range ss {
		out[i] = Sentence{Text: s.text, Question: s.question}
	}
	return out
}

// LowerWords splits s into lower-case words of letters, digits and
// apostrophes.
func LowerWords(s string) []string { return lowerWords(s) }

// Negated reports whether one of the lower-case words before a match
// makes it untrue ("never", "didn't", …).
func Negated(before []string) bool {
	for _, w := range before {
		if negations[w] || strings.HasSuffix(w, "n't") {
			return true
		}
	}
	return false
}

// negations are the words that make what follows them untrue.
var negations = toSet("no not never without zero none nor nobody nothing barely hardly almost nearly")

// Tidy is a value with its quotes, trailing punctuation and extra spaces
// taken off.
func Tidy(v string) string { return tidy(v) }

// ClauseStarts lists the byte offsets at which the clauses of a
// space-collapsed sentence start: its first word and each word after a
// clause mark or a joining word.
func ClauseStarts(s string) []int { return clauseStarts(s) }

// SkipInterjections is the offset of the first word of s at or after p that
// is no interjection ("well", "oh", "ok"); p when there is none.
func SkipInterjections(s string, p int) int { return skipInterjections(s, p) }

// ParseName reads a person's name at the start of rest ("Sam", "Dr. Sam
// Lee"); "" when rest starts with none.
func ParseName(rest string) string { return parseName(rest) }

// NotAName reports whether a lower-case word the name patterns may catch
// is no name ("secret", "whatever", …).
func NotAName(w string) bool { return nameReject[w] }

// Hedges marks the lower-case words that hedge what a clause says
// ("maybe", "might", "wouldn't", …).
func Hedges(words []string) []bool { return hedges(words) }

// FirstWord is the word of a space-collapsed s that starts at p, and the
// offset of the next one.
func FirstWord(s string, p int) (string, int) { return firstWord(s, p) }

// QuestionStart reports whether a lower-case word opens a question ("do",
// "what", "isn't", …).
func QuestionStart(w string) bool { return questionStarts[w] }

// SkipLeadingDate is the offset past a date that opens s at p ("on
// Monday, …"), and whether there was one.
func SkipLeadingDate(s string, p int) (int, bool) { return skipLeadingDate(s, p) }
