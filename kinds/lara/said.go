package lara

import (
	"regexp"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/grammar"
)

// What a child says, read as a child says it (issue 33 §5, §6): run-on
// sentences ("i dont like speling its borring"), favourites said with "the
// best" ("minecraft is the best game ever"), a preference after a filler
// ("ok wait i like spelling now"), and a skill the child says they have
// ("i can do my 7 times tables now"). The messages are already spelling
// corrected when the preset asks for it (correct_spelling).

// LaraSkill is a skill the child said they have ("i can do my 7 times
// tables now"), keyed by the concept's slug. It is what the child said, not
// a measured mastery: it never changes a learning record's mastery_level,
// which only attempts raise.
const LaraSkill = "said_skill"

// Skill is a LaraSkill record's data: the concept in the child's words and
// when it was first and last said.
type Skill struct {
	Stamp
	Concept   string `json:"concept"`
	FirstSaid string `json:"first_said"`
	LastSaid  string `json:"last_said"`
}

// skillPrefix marks a skill among the preferences a session's summary
// keeps for folding again ("mastery:<concept>").
const skillPrefix = "mastery:"

// runOn breaks a child's run-on sentence where a new clause starts with no
// stop: before "its", "it's", "it is", "they are", "because", "cos".
var runOn = regexp.MustCompile(`(?i)([a-z])\s+(it'?s|it\s+is|they\s+are|they'?re|theyre|(?:because|cos|cuz|coz)\s+(?:it|it's|its|they|they're|theyre|i|i'm|im|he|she|we|you|there|the|my))\s`)

// laraClauses is text with a stop where a child's run-on sentence starts a
// new clause, so that "i don't like spelling its boring" is read as two.
func laraClauses(text string) string {
	return runOn.ReplaceAllString(text, "$1. $2 ")
}

// laraMine is what the mona patterns and LaRa's own find in one message
// (spelling corrected): preferences and said skills, as key and value.
func laraMine(text string) []extract.Memory {
	text = laraClauses(repeatedVerb.ReplaceAllStringFunc(text, func(m string) string {
		ws := strings.Fields(m)
		for _, w := range ws[1:] {
			if !strings.EqualFold(w, ws[0]) {
				return m // "like love": as said
			}
		}
		return ws[0]
	}))
	found, _ := grammar.MineMessage(text)
	var out []extract.Memory
	for _, f := range found {
		if rest, ok := strings.CutPrefix(f.Key, "favorite_"); ok {
			// "football is my favorite sport i play defender": the thing
			// ends where a new clause begins.
			if cut := favoriteThingEnd.FindStringIndex(rest); cut != nil {
				rest = rest[:cut[0]]
				if rest == "" {
					continue
				}
				f.Key = "favorite_" + rest
			}
		}
		if laraPreferenceKey(f.Key) != "" {
			f.Value = strings.TrimSpace(valueHead.ReplaceAllString(f.Value, ""))
		}
		out = append(out, f)
	}
	lower := strings.ToLower(text)
	// "i used to hate maths but now i like it": the later wins.
	if m := changedMind.FindStringSubmatch(lower); m != nil && !hasPreference(out) {
		if v := strings.TrimSpace(prefHead.ReplaceAllString(m[2], "")); v != "" && !noThing.MatchString(v) && len(strings.Fields(v)) <= 4 {
			pol := "likes:"
			if m[3] == "" { // "… but now i don't"
				pol = "dislikes:"
			}
			out = append(out, extract.Memory{Key: pol + extract.Slug(v, true), Value: v})
		}
	}
	for _, re := range []*regexp.Regexp{likedThem, likedDoing} {
		if m := re.FindStringSubmatch(lower); m != nil && !hasPreference(out) {
			if v := strings.TrimSpace(prefHead.ReplaceAllString(m[1], "")); v != "" && !noThing.MatchString(v) && !pronounStart.MatchString(v) {
				out = append(out, extract.Memory{Key: "likes:" + extract.Slug(v, true), Value: v})
			}
		}
	}
	for _, clause := range clauseSplit.Split(lower, -1) {
		clause = strings.TrimSpace(clause)
		if clause == "" {
			continue
		}
		if s := laraSkill(clause); s != "" {
			out = append(out, extract.Memory{Key: skillPrefix + extract.Slug(s, true), Value: s})
		}
		if hasPreference(out) {
			continue
		}
		out = append(out, laraPreferences(clause)...)
	}
	return out
}

func hasPreference(found []extract.Memory) bool {
	for _, f := range found {
		if laraPreferenceKey(f.Key) != "" {
			return true
		}
	}
	return false
}

var (
	clauseSplit      = regexp.MustCompile(`[.!?;]+|,\s+(?:and\s+)?(?:i|we|so|but)\b`)
	favoriteThingEnd = regexp.MustCompile(`(?:^|_)(?:i|we|he|she|they|you|it|and|but|because|cos)(?:_|$)`)

	// A filler before what a child says: "ok wait", "so", "actually".
	filler = `^(?:(?:ok|okay|wait|so|now|and|but|well|actually|yeah|yes|um|umm|hmm|oh|guess\s+what|you\s+know\s+what)\W+)*`

	// "i like spelling now", "i really love drawing", "i still don't like fractions".
	childLikes = regexp.MustCompile(filler + `i\s+(?:really\s+|still\s+|kind\s+of\s+|kinda\s+|sort\s+of\s+|quite\s+|totally\s+|so\s+|do\s+|also\s+|now\s+|actually\s+|just\s+)*` +
		`(like|love|adore|hate|don't\s+like|do\s+not\s+like|dont\s+like|can't\s+stand)\s+(.+)$`)
	// "minecraft is the best game ever", "science is my best subject".
	bestThing = regexp.MustCompile(filler + `([a-z][a-z' ]{1,30}?)\s+(?:is|are)\s+(?:the|my)\s+(?:best|bestest|favou?rite)\s+([a-z]+)(?:\s+(?:ever|in\s+the\s+world))?$`)
	// "my favourite song is let it go": the value up to the clause's end.
	favoriteIs = regexp.MustCompile(filler + `my\s+(?:best\s+|most\s+)?favou?rite\s+([a-z]+)\s+(?:is|are)\s+(?:the\s+|a\s+|an\s+)?([a-z0-9][a-z0-9' ]{0,40})$`)

	// "i love love love horses": one love.
	repeatedVerb = regexp.MustCompile(`(?i)\b(?:love|hate|like)(?:\s+(?:love|hate|like))+\b`)
	// "i used to hate maths but now i like it", "i used to like drawing but
	// now i don't". Group 2 is the thing; group 3 is set for a like now.
	changedMind = regexp.MustCompile(filler + `i\s+used\s+to\s+(hate|not\s+like|dislike|like|love)\s+([a-z][a-z ]{1,30}?)\s*,?\s+but\s+now\s+i\s+(?:(?:really\s+|kind\s+of\s+|kinda\s+|quite\s+)?(like|love)\s+(?:it|them|\w+)|(?:don't|dont|do\s+not)(?:\s+like\s+(?:it|them))?)\b`)
	// "spelling is so boring", "maths is my worst subject": a dislike.
	thingBad = regexp.MustCompile(filler + `([a-z][a-z ]{1,30}?)\s+(?:is|are)\s+(?:so\s+|really\s+|very\s+|super\s+|too\s+|just\s+)*(?:boring|rubbish|horrible|awful|stupid|annoying|yucky|disgusting|gross|the\s+worst|my\s+worst\s+\w+|my\s+least\s+favou?rite(?:\s+\w+)?)$`)
	// "horses are the best", "dinosaurs are awesome", "i think lego is cool": a like.
	thingGood = regexp.MustCompile(`^(?:(?:ok|okay|wait|so|and|but|well|actually|yeah|yes|um|oh)\W+)*(?:i\s+think\s+)?([a-z][a-z ]{1,30}?)\s+(?:is|are)\s+(?:so\s+|really\s+|very\s+|super\s+|just\s+|soo+\s+)*(?:the\s+best|awesome|amazing|cool|brilliant|epic|fun|great|my\s+favou?rite)$`)

	// "so spelling tests are ok now, i kind of like them": the thing is
	// named before, the liking said of "them".
	likedThem = regexp.MustCompile(filler + `([a-z][a-z ]{1,30}?)\s+(?:is|are)\s+(?:ok|okay|fun|good|great|cool|easy|fine|alright|not\s+bad)(?:\s+now)?\W+(?:and\s+|so\s+)?i\s+(?:kind\s+of\s+|kinda\s+|really\s+|actually\s+|think\s+i\s+)?(?:like|love)\s+(?:them|it)\b`)
	// "we did the romans and it was actually cool".
	likedDoing = regexp.MustCompile(filler + `(?:we|i)\s+(?:did|learned|learnt|made|read|watched|played)\s+(?:the\s+|about\s+(?:the\s+)?)?([a-z][a-z ]{1,25}?)\s+and\s+(?:it|they)\s+(?:was|were)\s+(?:actually\s+|really\s+|so\s+|super\s+)?(?:cool|fun|great|awesome|amazing|brilliant)\b`)

	// Words after a liked thing that say how, not what.
	prefTail  = regexp.MustCompile(`\s+(?:now|too|a\s+bit|a\s+lot|lots|so\s+much|the\s+best|the\s+most|best|most|anymore|any\s+more|again|really|very\s+much|still|ever)$`)
	valueHead = regexp.MustCompile(`^(?i)(?:the|my)\s+`)
	prefHead  = regexp.MustCompile(`^(?:the|my|doing|to)\s+`)
	// Values that are no thing: a pronoun, or a clause.
	noThing = regexp.MustCompile(`^(?:it|them|that|this|those|these|him|her|you|me|us|when|how|what|if|being|to\s+be|today|tonight|tomorrow|yesterday|everything|everyone|everybody|nothing|life|he|she|they|we|i|there)\b|\b(?:when|if|because|but)\b`)
)

// laraPreferences are the preferences of one clause the mona patterns did
// not read.
func laraPreferences(clause string) []extract.Memory {
	if m := favoriteIs.FindStringSubmatch(clause); m != nil {
		v := strings.TrimSpace(prefTail.ReplaceAllString(m[2], ""))
		if v != "" && !noThing.MatchString(v) && len(strings.Fields(v)) <= 5 {
			return []extract.Memory{{Key: "favorite_" + extract.Slug(m[1], true), Value: v}}
		}
	}
	if m := bestThing.FindStringSubmatch(clause); m != nil {
		v := strings.TrimSpace(prefHead.ReplaceAllString(m[1], ""))
		if v != "" && !noThing.MatchString(v) && len(strings.Fields(v)) <= 3 && !pronounStart.MatchString(v) {
			return []extract.Memory{
				{Key: "favorite_" + extract.Slug(m[2], true), Value: v},
				{Key: "likes:" + extract.Slug(v, true), Value: v},
			}
		}
	}
	for _, x := range []struct {
		re  *regexp.Regexp
		pol string
	}{{thingBad, "dislikes:"}, {thingGood, "likes:"}} {
		if m := x.re.FindStringSubmatch(clause); m != nil {
			v := strings.TrimSpace(prefHead.ReplaceAllString(m[1], ""))
			if v != "" && !noThing.MatchString(v) && !pronounStart.MatchString(m[1]) && len(strings.Fields(v)) <= 3 {
				return []extract.Memory{{Key: x.pol + extract.Slug(v, true), Value: v}}
			}
		}
	}
	if m := childLikes.FindStringSubmatch(clause); m != nil {
		v := strings.TrimSpace(prefHead.ReplaceAllString(strings.TrimSpace(trimTail(prefTail, m[2])), ""))
		if v == "" || noThing.MatchString(v) || len(strings.Fields(v)) > 4 || extract.Slug(v, true) == "" {
			return nil
		}
		pol := "likes:"
		if verb := m[1]; verb != "like" && verb != "love" && verb != "adore" {
			pol = "dislikes:"
		}
		return []extract.Memory{{Key: pol + extract.Slug(v, true), Value: v}}
	}
	return nil
}

// trimTail is s without what tail matches at its end, as often as it does
// ("spelling now too" is "spelling").
func trimTail(tail *regexp.Regexp, s string) string {
	for {
		t := tail.ReplaceAllString(s, "")
		if t == s {
			return s
		}
		s = t
	}
}

var pronounStart = regexp.MustCompile(`^(?:i|we|he|she|they|you|it|(?:my|our)\s+(?:little\s+|big\s+|baby\s+|best\s+)?(?:brother|sister|mum|mummy|mom|mommy|dad|daddy|friend|cousin|teacher|nan|nana|gran|granny|grandma|grandad|grandpa|aunt|auntie|uncle|baby|class|classmate|neighbou?r))\b`)

// Skills said in words. Each pattern's first group is the verb (when it
// says what was done), its second the concept.
var (
	// "i can do my 7 times tables now", "i can spell necessary", "i can
	// count to 100 in 2s", "i can ride my bike without stabilisers".
	canDo = regexp.MustCompile(filler + `i\s+(?:can|could)\s+(?:now\s+|finally\s+|actually\s+|already\s+)?(do|say|spell|read|write|rite|count|tell\s+the\s+time\s+in|play|swim|ride|tie|draw|add|subtract|multiply|divide|skip|juggle)\s+(.+)$`)
	// "i know all my 5 times tables", "i know my 2 times table now".
	knowAll = regexp.MustCompile(filler + `i\s+(?:now\s+)?know\s+((?:all\s+)?(?:my|the|all)\s+.+)$`)
	// "i got all my 3 times tables right", "i spelt because right".
	gotRight = regexp.MustCompile(filler + `i\s+(?:got|spelt|spelled|did)\s+(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+)?(.+?)\s+(?:all\s+)?right\b`)
	// "i read a whole chapter book by myself".
	byMyself = regexp.MustCompile(filler + `i\s+(read|wrote|made|built|finished|did)\s+(?:a\s+)?(?:whole\s+|hole\s+)?(.+?)\s+(?:all\s+)?(?:by\s+myself|on\s+my\s+own)\b`)
	// "i did fractions at school and i got them", "i get fractions now".
	gotThem = regexp.MustCompile(filler + `i\s+(?:did|learned|learnt|practised|practiced|tried)\s+(.+?)(?:\s+(?:at|in)\s+school|\s+today|\s+in\s+class)?\s+and\s+i\s+(?:got|get|understand|understood)\s+(?:them|it)\b`)
	// "i know how to tie my shoes", "i learnt how to swim", "i learned to ride my bike".
	howTo = regexp.MustCompile(filler + `i(?:'ve|\s+have)?\s+(?:now\s+|finally\s+)?(?:know|learned|learnt|worked\s+out)\s+how\s+to\s+(.+)$|` +
		`^(?:\W*)i(?:'ve|\s+have)?\s+(?:finally\s+)?(?:learned|learnt)\s+to\s+(.+)$`)
	// "i passed my swimming test", "i got 10 out of 10 in my spelling test".
	passed = regexp.MustCompile(filler + `i\s+(?:passed|aced|smashed)\s+(?:my|the)\s+(.+?)(?:\s+(?:test|exam|quiz|grade|level|badge))\b|` +
		`^(?:\W*)i\s+got\s+(?:\d+|ten|twenty)\s+out\s+of\s+(?:\d+|ten|twenty)\s+(?:in|on|for)\s+(?:my|the)\s+(.+?)(?:\s+(?:test|quiz))?$`)
	// "i'm really good at maths now", "i'm getting better at spelling".
	goodAt = regexp.MustCompile(filler + `i(?:'m|m|\s+am)\s+(?:now\s+)?(?:really\s+|so\s+|very\s+|super\s+|getting\s+|much\s+)?(?:good|great|brilliant|amazing|better)\s+at\s+(.+)$`)
	// "i mastered long division", "i've learned my phonics", "i finally get fractions".
	learned = regexp.MustCompile(filler + `i(?:'ve|\s+have)?\s+(?:finally\s+)?(?:mastered|learned|learnt|understand|get)\s+(.+?)(?:\s+now)?$`)

	// A skill's concept ends before these.
	skillTail = regexp.MustCompile(`\s+(?:now|with\s+.+|in\s+the\s+test.*|at\s+school.*|today.*|by\s+heart|off\s+by\s+heart|really\s+well|too|already|all\s+by\s+myself|by\s+myself|on\s+my\s+own|yay|woo+)$`)
	// Things a child knows that are lessons (knowAll and learned need one).
	lessonWord = regexp.MustCompile(`\b(?:tables?|times|sums|letters|alphabet|numbers|number\s+bonds|words|spellings?|days|months|colou?rs|shapes|phonics|division|multiplication|fractions|decimals|addition|subtraction|counting|french|spanish|german|notes|chords|planets|countries|capitals|continents|poem|song|lines|piano|violin|guitar|recorder|clock|time|\d+)\b`)
	skillHead  = regexp.MustCompile(`^(?:all\s+)?(?:of\s+)?(?:my|the|all|a|an)\s+`)
	notSkill   = regexp.MustCompile(`^(?:it|that|this|them|what|how|why|if|when|you|him|her|anything|nothing|not)\b|\b(?:can't|cannot|don't|not)\b|^\w+\s+(?:it|that|this|them)$`)
)

// skillGerund names a skill by its verb: "i can spell necessary" is
// "spelling necessary". "do" and "say" name none ("i can do long division").
var skillGerund = map[string]string{
	"spell": "spelling", "read": "reading", "write": "writing", "rite": "writing", "wrote": "writing",
	"count": "counting", "swim": "swimming", "ride": "riding", "draw": "drawing", "play": "playing",
	"tie": "tying", "add": "adding", "subtract": "subtracting", "multiply": "multiplying", "divide": "dividing",
	"skip": "skipping", "juggle": "juggling", "tell": "telling", "made": "making", "built": "building",
}

// laraSkill is the concept of a skill the clause says the child has, or "".
func laraSkill(clause string) string {
	concept, verb := "", ""
	switch {
	case canDo.MatchString(clause):
		m := canDo.FindStringSubmatch(clause)
		verb, concept = m[1], m[2]
	case knowAll.MatchString(clause):
		concept = knowAll.FindStringSubmatch(clause)[1]
		if !lessonWord.MatchString(concept) {
			return ""
		}
	case gotRight.MatchString(clause):
		m := gotRight.FindStringSubmatch(clause)
		concept = m[1]
		if strings.Contains(clause, " spelt ") || strings.Contains(clause, " spelled ") {
			verb = "spell"
		}
	case byMyself.MatchString(clause):
		m := byMyself.FindStringSubmatch(clause)
		verb, concept = m[1], m[2]
	case goodAt.MatchString(clause):
		concept = goodAt.FindStringSubmatch(clause)[1]
	case howTo.MatchString(clause):
		m := howTo.FindStringSubmatch(clause)
		concept = m[1] + m[2]
	case passed.MatchString(clause):
		m := passed.FindStringSubmatch(clause)
		concept = m[1] + m[2]
	case gotThem.MatchString(clause):
		concept = gotThem.FindStringSubmatch(clause)[1]
	case learned.MatchString(clause):
		concept = learned.FindStringSubmatch(clause)[1]
		if !lessonWord.MatchString(concept) {
			return ""
		}
	default:
		return ""
	}
	concept = strings.TrimSpace(skillHead.ReplaceAllString(strings.TrimSpace(trimTail(skillTail, concept)), ""))
	concept = strings.Trim(concept, " '")
	if concept == "" || notSkill.MatchString(concept) || len(strings.Fields(concept)) > 6 {
		return ""
	}
	if g := skillGerund[strings.Fields(verb + " x")[0]]; g != "" {
		concept = g + " " + concept // "i can swim 25 metres": swimming 25 metres
	}
	return concept
}

// skills are the LaraSkill records of the skills a session said: a new
// concept starts at the time it was said, one said again keeps its first
// time. A skill said earlier than the stored one was last said (a session
// handed over late) changes nothing.
func (b laraBuilder) skills(said []laraPref) []extract.Record {
	latest := map[string]laraPref{}
	var keys []string
	for _, p := range said {
		key := strings.TrimPrefix(p.key, skillPrefix)
		if key == "" {
			continue
		}
		if q, ok := latest[key]; !ok || !p.at.Before(q.at) {
			if !ok {
				keys = append(keys, key)
			}
			latest[key] = p
		}
	}
	var out []extract.Record
	for _, key := range keys {
		p := latest[key]
		at := p.at.UTC().Format(time.RFC3339)
		d := Skill{Stamp: b.stamp(), Concept: p.value, FirstSaid: at, LastSaid: at}
		if r, ok := b.own[laraRef{LaraSkill, key}]; ok {
			prev, _ := extract.DecodeRecord[Skill](r)
			if last, ok := decay.Instant(prev.LastSaid); ok && last.After(p.at) {
				continue
			}
			if first, ok := decay.Instant(prev.FirstSaid); ok && first.Before(p.at) {
				d.FirstSaid = prev.FirstSaid
			}
		}
		out = append(out, extract.NewRecord(LaraSkill, key, d))
	}
	return out
}
