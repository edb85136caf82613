package grammar

import (
	"regexp"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/extract"
)

// The last check every value the rules mine passes: a value is a complete
// phrase or nothing (issue 23, "values that are not values"). The patterns
// cut a value where its clause ends; this catches what they let through in
// chatty text: "Chicago and I" (a new clause after "and"), "a walk with" (a
// dangling function word), "He" (a pronoun whose referent is elsewhere).

var (
	// newSubjects open a new clause after "and", "or", "but": "Chicago and
	// I work as …". Matched in lower case.
	newSubjects = toSet("i i'm im i've ive i'd i'll he she we they you it's he's she's we're they're")
	// danglingWords cannot end a phrase: "a walk with", "the history of".
	// Only words typed in lower case count, so that "The Who" keeps its name.
	danglingWords = toSet("a an the and or but nor of to with for from at in on by into onto about my your his her their our its that which who whose than as is are was were be been so because if when while then")
	// referenceWords point at something said elsewhere: a value made of them
	// alone is unresolved ("He is my favourite actor", "I hate that").
	referenceWords = toSet("it this that these those he she they him her them his hers theirs one ones")
	// functionOnly are the words that make no value on their own, besides
	// referenceWords: "my", "the", "some".
	functionOnly = toSet("i me my mine you your yours we us our ours a an the some any all both each every such same other another something anything everything nothing someone anyone everyone so very much many more most thing things stuff lot lots kind kinds sort sorts")
)

// completeValue checks the value of a mined memory: a new clause is cut
// off, dangling function words are trimmed, and a value left with nothing
// but pronouns and determiners is dropped, with DropUnresolved when it
// points at something else ("that", "he") and DropInvalidValue otherwise.
// Names are left to parseName, which reads them word by word.
func completeValue(m extract.Memory) (extract.Memory, string) {
	if m.Key == "name" || m.Key == "nickname" {
		return m, ""
	}
	if plainKeys[m.Key] {
		// "bar and study at night": a place or job ends where a verb of
		// the user's next clause begins.
		ws := strings.Fields(m.Value)
		for i := 1; i+1 < len(ws); i++ {
			if (ws[i] == "and" || ws[i] == "but") && sharedSubjectVerbs[ws[i+1]] {
				m.Value = strings.Join(ws[:i], " ")
				break
			}
		}
	}
	v, reason := phraseValue(m.Value)
	if v == "" {
		return extract.Memory{}, reason
	}
	if v != m.Value {
		// A like keyed by words that were cut off is keyed again.
		for _, p := range []string{"likes:", "dislikes:"} {
			if strings.HasPrefix(m.Key, p) {
				k, ok := extract.CanonicalKey(p + slug(v, articles))
				if !ok {
					return extract.Memory{}, extract.DropInvalidValue
				}
				m.Key = k
			}
		}
	}
	m.Value = v
	return m, ""
}

// phraseValue is completeValue's value, or "" and why it is none.
func phraseValue(v string) (string, string) {
	ws := strings.Fields(v)
	for i := 1; i+1 < len(ws); i++ {
		if lw := strings.ToLower(ws[i]); (joiners[lw] || lw == "but" || lw == "nor") && newSubjects[strings.ToLower(strings.Trim(ws[i+1], ",.!?"))] {
			ws = ws[:i]
			break
		}
	}
	full := ws
	for len(ws) > 0 && danglingWords[ws[len(ws)-1]] && !(len(ws) > 2 && ws[len(ws)-1] == "while" && ws[len(ws)-2] == "a") {
		ws = ws[:len(ws)-1]
	}
	if !hasContentWord(ws) {
		ws = full // "the who" is a band: nothing is left to dangle from
	}
	if len(ws) == 0 {
		return "", extract.DropInvalidValue
	}
	if last := ws[len(ws)-1]; (last == "one" || last == "ones") && len(ws) > 1 && !strings.EqualFold(ws[len(ws)-2], "number") {
		return "", extract.DropUnresolved // "the peanut butter ones": ones of what?
	}
	for i, w := range ws[1:] {
		if w = strings.Trim(w, ",.!?"); w == "ones" || (w == "their" || w == "its" || w == "theirs") && !slices.Contains(ws[:i+1], "and") {
			// "watching ones about the war", "a few of their concerts":
			// whose? ("went to a coffee shop and tried their coffee" says.)
			return "", extract.DropUnresolved
		}
	}
	if anaphoric(ws) {
		return "", extract.DropUnresolved // "the story", "the way it makes me feel": of what?
	}
	if last := strings.ToLower(strings.Trim(ws[len(ws)-1], ",.!?")); len(ws) <= 3 && (last == "there" || last == "here") && len(ws) > 1 {
		return "", extract.DropUnresolved // "go there": where?
	}
	if n := len(ws); n >= 3 && strings.EqualFold(ws[n-2], "to") && hobbyNeedsObject[strings.ToLower(ws[n-1])] {
		return "", extract.DropUnresolved // "learn how to play": play what?
	}
	if pointsBack(ws) {
		if i := slices.IndexFunc(ws, func(w string) bool { return feelingReasons[w] }); i > 0 && feelingLexicon[strings.ToLower(ws[0])] {
			return strings.Join(ws[:i], " "), "" // "excited about it" is excited
		}
		return "", extract.DropUnresolved // "learn it", "making the most of it": what?
	}
	ref := false
	for _, w := range ws {
		lw := strings.ToLower(strings.Trim(w, ",.!?'"))
		switch {
		case lw == "it" && strings.Trim(w, ",.!?'") == "IT":
			return strings.Join(ws, " "), "" // the trade, not the pronoun
		case referenceWords[lw]:
			ref = true
		case functionOnly[lw], lightGerunds[lw], danglingWords[w]:
		default:
			return strings.Join(ws, " "), ""
		}
	}
	if ref {
		return "", extract.DropUnresolved
	}
	return "", extract.DropInvalidValue
}

// lightGerunds carry no content of their own: "doing those things" is
// "those things".
var lightGerunds = toSet("doing do having getting making trying")

// relationalNouns are parts or qualities of something: after "the", alone
// or with a pronoun, they point at what was being talked about ("I love
// the characters and the story", "the way it makes me feel").
var relationalNouns = toSet("story stories plot characters character ending endings excitement atmosphere vibe vibes energy way idea message lyrics beat melody sound taste smell flavor flavour view views scenery colors colours color colour design name style setting part parts rest music food people show movie book game song album concept premise writing acting animation graphics soundtrack cast speed thrill challenge feeling feel look smell service staff rules gameplay artwork art voice voices dialogue humor humour twist twists details detail history culture actors actor actress cast director author writer narrator hero heroine villain protagonist ones")

// pointsBack reports whether a value of more than one word holds "it" or
// "them" as an object, typed in lower case: "learn it", "making the most
// of it", "bought them". "IT" (the trade) and a value that is only the
// pronoun are left to the other checks.
func pointsBack(ws []string) bool {
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws[1:] {
		if w = strings.Trim(w, ",.!?'"); w == "it" || w == "them" {
			return true
		}
	}
	return false
}

// abstractEndings are the endings of abstract nouns: after "the" alone
// they name a quality of what was being talked about ("I love the
// competition", "the camaraderie", "the freedom"), not a thing of its own.
var abstractEndings = []string{"ion", "ity", "ism", "ness", "ship", "ment", "ence", "ance", "erie", "dom", "ure"}

// aspectNouns are qualities or parts of an experience that "the" points
// back to without an abstract ending: "the suspense", "the rides".
var aspectNouns = toSet("suspense rides ride flavors flavours flavor flavour drama climax thrills scares magic hustle mystery teamwork exercise competition scenery weather food views beats workouts crowds crowd vibe fans rush challenge challenges process variety details people company moves action")

// abstractHead reports whether w, after "the" alone, names a quality of
// something said before: an aspect noun or an abstract ending, not a
// place ("the city", "the countryside").
func abstractHead(w string) bool {
	w = strings.ToLower(w)
	if aspectNouns[w] {
		return true
	}
	if placeNouns[w] || !isLowerWord(w) || len(w) < 6 {
		return false
	}
	for _, e := range abstractEndings {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
}

// anaphoric reports whether a value is a definite relational noun that
// points back: "the story", "the characters", "the way it makes me feel";
// not "the sound of the birds singing" or "the Beatles".
func anaphoric(ws []string) bool {
	if len(ws) < 2 || !strings.EqualFold(ws[0], "the") {
		return false
	}
	head := strings.Trim(ws[1], ",.!?'")
	if len(ws) == 2 && abstractHead(head) {
		return true // "the competition", "the camaraderie"
	}
	if !relationalNouns[head] {
		return false
	}
	if len(ws) == 2 {
		return true
	}
	for _, w := range ws[2:] {
		if referenceWords[strings.ToLower(strings.Trim(w, ",.!?'"))] {
			return true
		}
	}
	return false
}

// reportedRe finds speech someone else is reported to have said: a
// speech verb whose subject is not "I", then a quote (to its closing quote,
// or the end of the message) or a colon or comma (to the end of the
// sentence). "He said: I like cheese" and `she texted "I love you"` are
// not the user's.
var reportedRe = regexp.MustCompile(`(?i)\b([\p{L}']+)\s+(?:said|says|told\s+(?:me|us|him|her|them)|tells\s+(?:me|us)|asked|asks|wrote|writes|texted|texts|messaged|yelled|shouted|screamed|replied|whispered|goes|went\s+like|was\s+like|is\s+like|keeps\s+saying|kept\s+saying)\s*(?:,|:)?\s*(?:"[^"]*(?:"|$)|[,:]\s*[^.!?\n]*)`)

// speechWords are in every match of reportedRe: a cheap test first.
var speechWords = []string{"said", "says", "told", "tells", "ask", "wrote", "writes", "text", "messaged", "yelled", "shouted", "screamed", "replied", "whispered", "goes", "went like", "was like", "is like", "saying"}

// withoutReported blanks the reported speech of text (reportedRe), so that
// no pattern reads a third party's words as the user's; "I said …" stays.
func withoutReported(text string) string {
	if !strings.ContainsAny(text, `":,`) || !slices.ContainsFunc(speechWords, func(w string) bool { return containsFoldASCII(text, w) }) {
		return text
	}
	locs := reportedRe.FindAllStringSubmatchIndex(text, -1)
	if locs == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if strings.EqualFold(text[l[2]:l[3]], "i") {
			continue
		}
		b.WriteString(text[last:l[3]])
		b.WriteString(strings.Repeat(" ", l[1]-l[3]))
		last = l[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// hasContentWord reports whether ws holds a word that is no function word.
func hasContentWord(ws []string) bool {
	for _, w := range ws {
		lw := strings.ToLower(strings.Trim(w, ",.!?'"))
		if !referenceWords[lw] && !functionOnly[lw] && !danglingWords[lw] {
			return true
		}
	}
	return false
}
