package grammar

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-ai/mnemo/extract"
)

// Memory that follows the conversation (issue 33): changes and endings of
// what the user said before, sarcasm and hedges that say the opposite of
// their words, and what the user states in a list or in answer to the
// companion's question.

// Reasons mineMessage gives besides extract's.
const (
	// DropSarcasm: "I just LOVE mondays", "I love getting stuck in
	// traffic, best part of my day": praise of a nuisance.
	DropSarcasm = "sarcasm"
	// DropHedged: "I'm vegan-ish", "idk, I like jazz I guess": the user
	// holds the fact loosely.
	DropHedged = "hedged"
	// DropPast: "I'm a nurse. well, I was, until last year": a fact the
	// user takes back as no longer true (an ending is stated instead).
	DropPast = "past"
)

// partnerKeys are the keys of a partner one breaks up with.
var partnerKeys = []string{"family:boyfriend", "family:girlfriend", "family:partner", "family:husband", "family:wife", "family:fiance"}

// workKeys are the keys of a job one quits.
var workKeys = []string{"works_at", "job:"}

const (
	opener    = `(?:(?:so|and|well|actually|update|ugh|yeah|oh|also|btw|anyway|news|welp|sadly|unfortunately)[,:!]?\s+)*`
	partners  = `boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?|bf|gf`
	changeAdv = `(?:(?:just|finally|officially|recently|actually|also|sadly|eventually|totally)\s+)?`
)

var (
	// "Marcus and I broke up", "me and Marcus split", "my boyfriend and I
	// broke up", "we broke up", "I broke up with Marcus".
	breakupRe = regexp.MustCompile(`(?i)^` + opener + `(?:me\s+and\s+(?:my\s+(` + partners + `)|(\p{L}+))|(?:my\s+(` + partners + `)|(\p{L}+))\s+and\s+(?:i|me)|we|i)\s+` +
		changeAdv + `(?:broke\s+up|split\s+up|split|separated|got\s+divorced|divorced|called\s+it\s+quits)\b(?:\s+with\s+(?:my\s+(` + partners + `)\s*,?\s*)?(\p{L}+)?)?`)
	// "I quit the roaster too", "I quit my job at the bank", "I left my
	// job", "I got laid off", "I don't work at the bank anymore".
	quitRe = regexp.MustCompile(`(?i)^` + opener + `i\s+` + changeAdv + `(?:quit|left|resigned\s+from|got\s+(?:fired|laid\s+off|let\s+go)\s+from|got\s+(?:fired|laid\s+off|let\s+go))\b\s*(.*)$`)
	// "my dog died", "Pickles passed away", "we had to put Pickles down",
	// "we rehomed Pickles".
	petGoneRe = regexp.MustCompile(`(?i)^` + opener + `(?:my\s+(?:(?:old|sweet|little|poor)\s+)?(` + wordAlt(species) + `)(?:\s*,?\s+(\p{L}+),?)?|(\p{Lu}\p{L}+))\s+` + changeAdv +
		`(?:died|passed(?:\s+away|\s+on)?|was\s+put\s+down|had\s+to\s+be\s+put\s+down|got\s+put\s+down|ran\s+away|got\s+rehomed|was\s+rehomed|is\s+gone|went\s+to\s+(?:a|live\s+with)\s+)`)
	petGoneWeRe = regexp.MustCompile(`(?i)^` + opener + `(?:we|i)\s+` + changeAdv + `(?:had\s+to\s+)?(?:put|rehome[d]?|gave)\s+(?:my\s+(?:(` + wordAlt(species) + `)\s+)?)?(\p{L}+)?\s*(down|away|up\s+for\s+adoption)?\b`)
	// "the wedding got moved to January 9th", "my appointment was
	// cancelled", "the party is off".
	eventChangeRe = regexp.MustCompile(`(?i)^` + opener + `(?:the|my|our|(?:my\s+)?\p{L}+'s)\s+((?:\p{L}+\s+){0,2}?(?:wedding|party|appointment|trip|interview|surgery|exam|test|concert|game|meeting|recital|shower|reunion|vacation|holiday|flight|graduation|visit|date|match|show|class|dinner|ceremony|conference|move|checkup|check-up))\s+` +
		`(?:(?:got|has\s+been|had\s+to\s+be|was|is(?:\s+being)?|just\s+got)\s+)?(moved|pushed(?:\s+back)?|postponed|rescheduled|changed|bumped|delayed|cancell?ed|called\s+off|is\s+off|off|now)\b\s*(.*)$`)
	// "I'm in Denver now", "I'm based in Denver", "I'm living in Denver
	// now": where the user lives, said as a change.
	nowInRe   = regexp.MustCompile(`(?i)^` + opener + `(?:i'm|im|i\s+am)\s+(?:now\s+|currently\s+)?(?:based\s+|living\s+|settled\s+)?in\s+(.+?)\s+(?:now|these\s+days|nowadays)\s*$`)
	movedToRe = regexp.MustCompile(`(?i)^` + opener + `(?:i|we)(?:'ve|\s+have)?\s+` + changeAdv + `moved\s+to\s+(.+)$`)
	// "I don't live in Seattle anymore", "I'm not a nurse anymore", "I no
	// longer work at the bank", "I used to live in Boston", "I was a nurse
	// until last year".
	notAnymoreRe = regexp.MustCompile(`(?i)^` + opener + `i(?:'m|m|\s+am)?\s+(?:(?:don't|do\s+not|dont)\s+(live|work|have)\s+(.+?)\s+(?:anymore|any\s+more)|no\s+longer\s+(live|work|have)\s+(.+?)|(?:not|no\s+longer)\s+(.+?)(?:\s+(?:anymore|any\s+more))?)\s*$`)
	usedToRe     = regexp.MustCompile(`(?i)^` + opener + `i\s+(?:used\s+to|once)\s+(live|work|be)\s+(.+)$`)
	untilRe      = regexp.MustCompile(`(?i)^` + opener + `i\s+(?:was|worked|lived)\s+(?:(?:an?|as\s+an?|at|in|for)\s+)?(.+?),?\s+(?:until|till|up\s+until|up\s+to)\s+(?:last|this|a|\d|recently|the)\b.*$`)
	// "well, I was, until last year", "not anymore", "used to be": the
	// sentence before it is no longer true.
	retractRe = regexp.MustCompile(`(?i)^` + opener + `(?:(?:i\s+)?was,?\s+(?:until|till|up\s+until)\b.*|not\s+anymore|not\s+any\s+more|no\s+longer|used\s+to\s+be|i\s+used\s+to\s+be|(?:at\s+least\s+)?i\s+was)\s*[.!]*$`)
)

// ending is an ending candidate of keys, naming ref, in the user's word.
func ending(word, ref string, keys ...string) extract.Memory {
	return extract.Memory{Key: keys[0], Value: firstNonEmpty(strings.TrimSpace(ref), word), Category: extract.CategoryFact, Importance: 70, Confidence: 0.8,
		Change: &extract.Change{Ends: true, Word: word, Keys: keys, Ref: ref}}
}

// refTrailing are words after what was quit or left that do not name it.
var refTrailing = []string{"too", "as well", "also", "already", "finally", "anymore", "any more", "last week", "last month", "last year", "yesterday", "today", "recently", "a while ago", "a few weeks ago", "lol", "haha"}

// changesOf are the changes a sentence states, and whether it states one
// that an event must not also be made of ("I quit the roaster" ends a job;
// it is no event "quit the roaster").
func changesOf(text string, dc dateContext) (out []extract.Memory, consumed bool) {
	t := strings.TrimRight(text, ".!… ")
	l := strings.ToLower(t)
	if sm := cued(breakupRe, t, l, "broke", "split", "separated", "divorced", "quits"); sm != nil {
		rel := firstNonEmpty(sm[1], sm[3], sm[5])
		ref := firstNonEmpty(sm[2], sm[4], sm[6])
		if ref != "" && !partnerName(ref, t) {
			ref = "" // "broke up with him", "… with my boyfriend two months ago"
		}
		keys := partnerKeys
		if rel != "" {
			if c, ok := relations[strings.ToLower(partnerWord(rel))]; ok {
				keys = []string{"family:" + c}
			}
		}
		// The break-up stays an event too ("broke up with my boyfriend").
		return []extract.Memory{ending("broke up", ref, keys...)}, false
	}
	if sm := cued(quitRe, t, l, "quit", "left", "resigned", "fired", "laid", "let go"); sm != nil {
		obj := strings.TrimSpace(stripTrailing(tidy(withoutDates(sm[1])), refTrailing))
		lower := strings.ToLower(obj)
		verb := strings.ToLower(strings.Fields(t[:len(t)-len(sm[1])])[len(strings.Fields(t[:len(t)-len(sm[1])]))-1])
		switch {
		case obj == "" && verb != "quit" && verb != "left":
			return []extract.Memory{ending("lost the job", "", "works_at")}, true // "I got laid off"
		case obj == "" || lower == "my job" || lower == "work" || lower == "my work" || lower == "the job" || lower == "job":
			return []extract.Memory{ending("quit", "", "works_at")}, true
		}
		for _, p := range []string{"my job at ", "my job with ", "my job as ", "working at ", "working for ", "my position at ", "the job at ", "my "} {
			if strings.HasPrefix(lower, p) {
				if p == "my job as " {
					return []extract.Memory{ending("quit", obj[len(p):], "occupation")}, true
				}
				obj, lower = obj[len(p):], lower[len(p):]
				break
			}
		}
		if strings.HasPrefix(lower, "the ") || hasUpper(obj[:1]) || strings.HasSuffix(lower, " job") {
			// "the roaster", "Starbucks", "my barista job": a workplace.
			return []extract.Memory{ending("quit", strings.TrimSuffix(obj, " job"), workKeys...)}, true
		}
		return nil, false // "I quit smoking": an event as before
	}
	if sm := cued(petGoneRe, t, l, "died", "passed", "put down", "ran away", "rehome", "gone", "went to"); sm != nil {
		keys := []string{"pet:"}
		if sm[1] != "" {
			if c, ok := species[strings.ToLower(sm[1])]; ok {
				keys = []string{"pet:" + c}
			}
		}
		word := "died"
		if strings.Contains(l, "rehome") || strings.Contains(l, "ran away") || strings.Contains(l, "went to") {
			word = "rehomed"
			if strings.Contains(l, "ran away") {
				word = "ran away"
			}
		}
		return []extract.Memory{ending(word, firstNonEmpty(sm[2], sm[3]), keys...)}, true
	}
	if sm := cued(petGoneWeRe, t, l, "put", "rehome", "gave"); sm != nil && (sm[3] != "" || strings.Contains(l, "rehome")) {
		keys := []string{"pet:"}
		if c, ok := species[strings.ToLower(sm[1])]; ok {
			keys = []string{"pet:" + c}
		}
		ref := sm[2]
		if referenceWords[strings.ToLower(ref)] || strings.EqualFold(ref, "him") || strings.EqualFold(ref, "her") {
			ref = ""
		}
		if ref == "" && sm[1] == "" {
			return nil, false
		}
		word := "rehomed"
		if strings.EqualFold(sm[3], "down") {
			word = "died"
		}
		return []extract.Memory{ending(word, ref, keys...)}, true
	}
	if sm := cued(eventChangeRe, t, l, eventNouns...); sm != nil {
		what, verb, rest := strings.ToLower(sm[1]), strings.ToLower(sm[2]), sm[3]
		ref := what[strings.LastIndexByte(what, ' ')+1:]
		keys := []string{"event:", "plan:"}
		switch {
		case strings.HasPrefix(verb, "cancel") || verb == "called off" || verb == "is off" || verb == "off":
			return []extract.Memory{ending("cancelled", ref, keys...)}, true
		}
		if !dc.on {
			return nil, true
		}
		ms := extract.ResolveDates(rest, dc.at, dc.loc)
		if len(ms) == 0 {
			return nil, verb != "now"
		}
		m := extract.Memory{Key: "event:" + slug(ref, articles), Value: what, Category: extract.CategoryEvent, Importance: 60, Confidence: 0.7,
			EventDate: ms[0].Date, Wording: ms[0].Wording, Change: &extract.Change{Word: "moved", Keys: keys, Ref: ref}}
		return []extract.Memory{m}, true
	}
	if sm := cued(nowInRe, t, l, " now", "these days", "nowadays"); sm != nil {
		if v, _ := place(sm[1], false); v != "" && !strings.ContainsAny(v, ",") {
			return []extract.Memory{fact("lives_in", v)}, true
		}
	}
	if sm := cued(movedToRe, t, l, "moved to"); sm != nil {
		after := stripTrailing(tidy(sm[1]), refTrailing)
		if v, _ := place(after, false); v != "" {
			return []extract.Memory{fact("lives_in", v)}, false
		}
	}
	if sm := cued(notAnymoreRe, t, l, "anymore", "any more", "no longer"); sm != nil {
		verb, obj := firstNonEmpty(sm[1], sm[3]), firstNonEmpty(sm[2], sm[4])
		if verb == "" {
			obj = sm[5]
			if !strings.Contains(l, "anymore") && !strings.Contains(l, "any more") && !strings.Contains(l, "no longer") {
				return nil, false
			}
		}
		if m, ok := endingOf(strings.ToLower(verb), obj, "no longer"); ok {
			return []extract.Memory{m}, true
		}
		return nil, false
	}
	if sm := cued(usedToRe, t, l, "used to", "once"); sm != nil {
		if m, ok := endingOf(strings.ToLower(sm[1]), sm[2], "used to"); ok {
			return []extract.Memory{m}, false // the past fact stays an event, as before
		}
	}
	if sm := cued(untilRe, t, l, "until", "till", "up to"); sm != nil {
		switch {
		case strings.Contains(l, " lived "):
			if m, ok := endingOf("live", "in "+sm[1], "until"); ok {
				return []extract.Memory{m}, true
			}
		case strings.Contains(l, " worked "):
			if m, ok := endingOf("work", "at "+sm[1], "until"); ok {
				return []extract.Memory{m}, true
			}
		default:
			if m, ok := endingOf("be", sm[1], "until"); ok {
				return []extract.Memory{m}, true
			}
		}
	}
	return nil, false
}

// partnerName reports whether w, said in sentence t, can be a person's
// name: name-shaped, no common word, and capitalised unless the sentence
// is typed all in lower case.
func partnerName(w, t string) bool {
	l := strings.ToLower(w)
	if !nameShaped(w) || nameStops[l] || nameReject[l] || referenceWords[l] || notItems[l] || numberWords[l] > 0 || conjunctions[l] {
		return false
	}
	r := []rune(w)[0]
	return unicode.IsUpper(r) || t == strings.ToLower(t)
}

// partnerWord is the usual word of a partner's short name.
func partnerWord(w string) string {
	switch strings.ToLower(w) {
	case "bf":
		return "boyfriend"
	case "gf":
		return "girlfriend"
	}
	return w
}

// endingOf is the ending of "live in X", "work at X", "work as X", "have a
// dog", "be a nurse" or "be vegan", in the user's word.
func endingOf(verb, obj, word string) (extract.Memory, bool) {
	// "in a bookstore when I was in college": the place, not the time.
	obj = strings.TrimSpace(stripTrailing(tidy(cutAtWords(obj, "when", "for", "since", "during", "while", "before", "after", "until", "till", "so", "but", "and")), refTrailing))
	lower := strings.ToLower(obj)
	cut := func(ps ...string) string {
		for _, p := range ps {
			if strings.HasPrefix(lower, p) {
				return obj[len(p):]
			}
		}
		return obj
	}
	switch verb {
	case "live":
		ref := cut("in ", "on ", "near ", "at ")
		if ref == "" || ref == obj && !hasUpper(ref) {
			return extract.Memory{}, false
		}
		return ending(word, ref, "lives_in"), true
	case "work":
		if strings.HasPrefix(lower, "as ") {
			return ending(word, occupationHead(cut("as a ", "as an ", "as ")), "occupation"), true
		}
		ref := cut("at ", "for ", "in ")
		if ref == obj {
			return extract.Memory{}, false
		}
		return ending(word, ref, workKeys...), true
	case "have":
		ws := lowerWords(obj)
		if len(ws) >= 2 && (ws[0] == "a" || ws[0] == "an" || ws[0] == "any") {
			if c, ok := species[ws[1]]; ok {
				return ending(word, "", "pet:"+c), true
			}
		}
		return extract.Memory{}, false
	case "be", "":
		ws := lowerWords(obj)
		if len(ws) == 0 || len(ws) > 4 {
			return extract.Memory{}, false
		}
		if ws[0] == "a" || ws[0] == "an" {
			ws = ws[1:]
		}
		if len(ws) == 0 {
			return extract.Memory{}, false
		}
		if diets := toSet("vegan vegetarian pescatarian keto paleo"); len(ws) == 1 && diets[ws[0]] {
			return ending(word, ws[0], "diet"), true
		}
		if occupationWord(ws[len(ws)-1]) {
			return ending(word, ws[len(ws)-1], "occupation"), true
		}
	}
	return extract.Memory{}, false
}

var occupationOnlyRe = regexp.MustCompile(`(?i)^(?:` + occupations + `)s?$`)

// occupationWord reports whether w is an occupation the rules know.
func occupationWord(w string) bool { return occupationOnlyRe.MatchString(w) }

// occupationHead is the last word of an occupation phrase.
func occupationHead(v string) string {
	ws := strings.Fields(v)
	if len(ws) == 0 {
		return ""
	}
	return ws[len(ws)-1]
}

// retracts reports whether a sentence takes back the one before it: "well,
// I was, until last year", "not anymore".
func retracts(text string) bool { return retractRe.MatchString(strings.TrimSpace(text)) }

// nuisances are things few people like, so that praise of them is
// sarcasm: "I just LOVE mondays".
var nuisances = toSet("monday mondays traffic commute commuting taxes homework chores laundry dishes meetings alarm alarms hangover hangovers dentist dentists flu sick waiting queue queues delays delayed paperwork bills deadlines overtime mosquitoes stuck ironing vacuuming layoffs audits")

// sarcasmMarks say that the praise before them is not meant.
var sarcasmMarks = []string{"best part of my day", "best part of the day", "my favorite thing ever", "my favourite thing ever", "just what i needed", "exactly what i needed", "love that for me", "living the dream", "what a joy", "oh joy", "yay", "/s", "🙄", "😒"}

// praiseRe are the words of praise sarcasm says: love, like, adore, can't
// wait.
var praiseRe = regexp.MustCompile(`(?i)\b(?:love|loves|loving|like|adore|enjoy|can't\s+wait|cant\s+wait|cannot\s+wait|favorite|favourite)\b`)

// sarcastic reports whether a sentence praises a nuisance with emphasis
// (a word of praise in capitals in a sentence that is not all capitals,
// "just love", or a mark of sarcasm in the message).
func sarcastic(sent, message string) bool {
	l := strings.ToLower(sent)
	if !strings.Contains(l, "lov") && !strings.Contains(l, "like") && !strings.Contains(l, "adore") && !strings.Contains(l, "enjoy") &&
		!strings.Contains(l, "wait") && !strings.Contains(l, "favo") {
		return false
	}
	loc := praiseRe.FindStringIndex(sent)
	if loc == nil {
		return false
	}
	after := lowerWords(sent[loc[1]:])
	hasNuisance := false
	for _, w := range after {
		if nuisances[w] {
			hasNuisance = true
			break
		}
	}
	if !hasNuisance {
		return false
	}
	word := sent[loc[0]:loc[1]]
	if !shouted(sent) && upperWord(word) {
		return true
	}
	if lower := l; strings.Contains(lower, "just love") || strings.Contains(lower, "just adore") || strings.Contains(lower, "sooo") {
		return true
	}
	m := strings.ToLower(message)
	for _, mark := range sarcasmMarks {
		if strings.Contains(m, mark) {
			return true
		}
	}
	return false
}

// upperWord reports whether every letter of w is upper case (at least
// two).
func upperWord(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) {
			n++
		}
	}
	return n >= 2
}

// looseRe marks a fact held loosely: "vegan-ish", "idk", "I guess",
// "sort of", "kind of a".
var looseRe = regexp.MustCompile(`(?i)(?:\p{L}-ish\b|\bish\b|\bidk\b|\bi\s+dunno\b|\bi\s+guess\b|\bor\s+something\b|\bi\s+suppose\b|\bsorta\b)`)

// loose reports whether a sentence holds its fact loosely.
func loose(sent string) bool {
	return cued(looseRe, sent, strings.ToLower(sent), "ish", "idk", "dunno", "guess", "something", "suppose", "sorta") != nil
}

// cued is re's submatches of t when its lower-case copy l holds one of
// the cues, words every match holds: most clauses hold none, and a
// strings.Contains is far cheaper than a regexp.
func cued(re *regexp.Regexp, t, l string, cues ...string) []string {
	for _, c := range cues {
		if strings.Contains(l, c) {
			return re.FindStringSubmatch(t)
		}
	}
	return nil
}

// eventNouns and ownedNouns are the cues of eventChangeRe and ownRe.
var (
	eventNouns = []string{"wedding", "party", "appointment", "trip", "interview", "surgery", "exam", "test", "concert", "game", "meeting", "recital",
		"shower", "reunion", "vacation", "holiday", "flight", "graduation", "visit", "date", "match", "show", "class", "dinner", "ceremony",
		"conference", "move", "checkup", "check-up"}
	ownedNouns = []string{"house", "home", "condo", "apartment", "flat", "car", "truck", "pickup", "motor", "scooter", "van", "suv", "jeep",
		"bike", "boat", "rv", "camper", "piano", "cabin", "farm"}
)

var (
	// "I drive a 2012 Civic", "I ride a vespa".
	driveRe = regexp.MustCompile(`(?i)^` + opener + `i\s+(?:also\s+|still\s+|now\s+|currently\s+)?(drive|ride)\s+(?:a|an|my)\s+(.+)$`)
	// "I own a house", "I have a red truck".
	ownRe = regexp.MustCompile(`(?i)^` + opener + `(?:i\s+(?:also\s+|now\s+|finally\s+|still\s+)?(own|have)|i've\s+got)\s+(?:a|an|my\s+own)\s+((?:[\p{L}\d\-]+\s+){0,3}?(?:house|home|condo|apartment|flat|car|truck|pickup|motorcycle|motorbike|scooter|van|suv|jeep|bike|boat|rv|camper|piano|cabin|farm))\b\s*(.*)$`)
	// "I also work weekends at a bookstore", "my second job is at a bar".
	secondJobRe = regexp.MustCompile(`(?i)^` + opener + `(?:i\s+also\s+work(?:\s+((?:on\s+)?weekends|nights|evenings|part[\s-]?time|on\s+the\s+side|a\s+few\s+(?:days|nights)\s+a\s+week|saturdays|sundays))?|i\s+(?:also\s+)?have\s+a\s+(?:second|side|weekend|part[\s-]?time)\s+job|my\s+(?:second|side|weekend|other)\s+job\s+is)\s+(?:at|for|in)\s+(.+)$`)
	// "stuff I'm into: bouldering, true crime podcasts and bad reality tv".
	intoListRe = regexp.MustCompile(`(?i)^` + opener + `(?:(?:some\s+)?(?:stuff|things)\s+(?:i'm|im|i\s+am|i'm\s+really|im\s+really)\s+into|my\s+(?:interests|hobbies)(?:\s+(?:are|include))?)\s*(?::|-|–|—|are|is|include|includes|=)\s*(.+)$`)
)

// factsOf are the facts of a clause that the patterns miss: vehicles and
// things owned, a second job, a list of what the user is into.
func factsOf(t string) []extract.Memory {
	t = strings.TrimRight(t, ".!… ")
	l := strings.ToLower(t)
	if sm := cued(driveRe, t, l, "drive", "ride"); sm != nil {
		what, long := cutClause(sm[2])
		what = stripTrailing(tidy(what), refTrailing)
		if ws := strings.Fields(what); !long && len(ws) > 0 && len(ws) <= 4 && !notItems[strings.ToLower(ws[0])] {
			verb := strings.ToLower(sm[1]) + "s"
			return []extract.Memory{owned(ws[len(ws)-1], verb+" "+article(what)+what)}
		}
	}
	if sm := cued(ownRe, t, l, ownedNouns...); sm != nil {
		verb := "owns"
		if sm[1] == "" || strings.EqualFold(sm[1], "have") {
			verb = "has"
		}
		what := strings.ToLower(strings.Join(strings.Fields(sm[2]), " "))
		ws := strings.Fields(what)
		if !slices.ContainsFunc(ws[:len(ws)-1], func(w string) bool { return qualifiers[w] || joiners[w] || w == "of" || w == "a" || w == "an" }) {
			// Not "a big library at home", "a friend with a cabin".
			return []extract.Memory{owned(ws[len(ws)-1], verb+" "+article(what)+what)}
		}
	}
	if sm := cued(secondJobRe, t, l, "also work", "job"); sm != nil {
		where, long := cutClause(sm[2])
		where = stripTrailing(tidy(where), refTrailing)
		if v, _ := org(where); v != "" && !long {
			if when := strings.ToLower(sm[1]); when != "" {
				v += " (" + strings.TrimPrefix(when, "on ") + ")"
			}
			if s := slug(strings.Split(v, " (")[0], articles); s != "" {
				if !strings.Contains(l, "also") && !strings.Contains(l, "second") && !strings.Contains(l, "side") && !strings.Contains(l, "other") {
					// "I have a part-time job at Burger King": the job.
					return []extract.Memory{fact("works_at", strings.Split(v, " (")[0])}
				}
				return []extract.Memory{{Key: "job:" + s, Value: v, Category: extract.CategoryFact, Importance: 75, Confidence: 0.8}}
			}
		}
	}
	return nil
}

// intoList are the likes of a sentence that lists what the user is into.
func intoList(t string) []extract.Memory {
	if sm := cued(intoListRe, strings.TrimRight(t, ".!… "), strings.ToLower(t), "into", "interests"); sm != nil {
		ms, _ := prefMemories(sm[1], "likes:")
		return ms
	}
	return nil
}

// owned is the memory of a thing the user owns or drives.
func owned(head, v string) extract.Memory {
	return extract.Memory{Key: "owns:" + slug(head, articles), Value: v, Category: extract.CategoryFact, Importance: 65, Confidence: 0.8}
}

// article is "a " or "an " for what, or "" when it opens with a number.
func article(what string) string {
	if what == "" || unicode.IsDigit(rune(what[0])) && !strings.HasPrefix(what, "8") {
		return "a "
	}
	if strings.ContainsRune("aeiouAEIOU", rune(what[0])) || strings.HasPrefix(what, "8") {
		return "an "
	}
	return "a "
}

// segments are a sentence's clauses cut at commas, semicolons and dashes,
// with where each begins.
func segments(s string) (segs []string, at []int) {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == ',' || c == ';') && i+1 < len(s) && s[i+1] == ' ' || c == ' ' && i+2 < len(s) && s[i+1] == '-' && s[i+2] == ' ' {
			if seg := strings.TrimSpace(s[start:i]); seg != "" {
				segs, at = append(segs, seg), append(at, start)
			}
			start = i + 1
		}
	}
	if seg := strings.TrimSpace(s[start:]); seg != "" {
		segs, at = append(segs, seg), append(at, start)
	}
	return segs, at
}

// An answer to the companion's question: "Where are you living now?"
// "austin. been here like 3 yrs." is where the user lives.
var (
	askLivesRe = regexp.MustCompile(`(?i)\bwhere\s+(?:are\s+you|r\s+u|do\s+you)\s+(?:(?:currently\s+|now\s+)?(?:living|based|located|live)\b|living\s+these\s+days)|\bwhat\s+(?:city|town|part\s+of\s+(?:the\s+)?(?:world|country))\s+(?:are\s+you|do\s+you\s+live)\s+in\b`)
	askFromRe  = regexp.MustCompile(`(?i)\bwhere\s+(?:are\s+you|r\s+u)\s+(?:originally\s+)?from\b|\bwhere\s+did\s+you\s+grow\s+up\b`)
	askWorkRe  = regexp.MustCompile(`(?i)\bwhere\s+do\s+you\s+work\b`)
	askJobRe   = regexp.MustCompile(`(?i)\bwhat\s+do\s+you\s+do\s+(?:for\s+(?:work|a\s+living)|these\s+days)\b|\bwhat(?:'s|\s+is)\s+your\s+(?:job|line\s+of\s+work)\b`)
	askNameRe  = regexp.MustCompile(`(?i)\bwhat(?:'s|\s+is)\s+your\s+name\b|\bwhat\s+should\s+i\s+call\s+you\b`)
	askHaveRe  = regexp.MustCompile(`(?i)\b(?:do|did)\s+you\s+have\s+(?:any\s+)?(?:pets?|kids|children|siblings|brothers|sisters|a\s+(?:pet|dog|cat|partner|boyfriend|girlfriend|car))\b`)
	askIntoRe  = regexp.MustCompile(`(?i)\bwhat\s+(?:are\s+you|r\s+u)\s+into\b|\bwhat\s+do\s+you\s+(?:like\s+to\s+)?do\s+for\s+fun\b|\b(?:any|what\s+are\s+your)\s+hobbies\b`)
)

// notPlaceAnswers open a reply to "where …?" that names no place: "at
// work", "still at my parents'", "nowhere special".
var notPlaceAnswers = toSet("at on to with still just almost not pretty getting nowhere somewhere everywhere anywhere same around here there home work school bed downtown uptown abroad")

// answerTo is what the user's reply states in answer to the question the
// other speaker's message ends with: a short reply ("austin.", "a nurse",
// "bouldering and thrifting") is read as the value asked for.
func answerTo(asked, reply string) []extract.Memory {
	q := strings.TrimSpace(asked)
	if !strings.HasSuffix(q, "?") {
		return nil
	}
	// Only the question that ends the message is answered.
	if i := strings.LastIndexAny(strings.TrimRight(q, "?"), ".!?\n"); i >= 0 {
		q = q[i+1:]
	}
	if askHaveRe.MatchString(q) {
		// "Any pets?" "yeah, a dog, Pickles": what the user has.
		return haveAnswer(reply)
	}
	first, ws, ok := replyHead(reply, true)
	if !ok {
		return nil
	}
	if len(ws) == 0 || notAnswers[ws[0]] || slicesContainsAny(ws, clauseSubjects) || slicesContainsAny(ws, newSubjects) || hedged(first) || loose(first) {
		return nil
	}
	switch {
	case askIntoRe.MatchString(q):
		ms, _ := prefMemories(first, "likes:")
		return ms
	case len(ws) > 4:
		return nil
	case askNameRe.MatchString(q):
		if v := parseName(first); v != "" {
			return []extract.Memory{{Key: "name", Value: v, Category: extract.CategoryFact, Importance: 90, Confidence: 0.8}}
		}
	case askFromRe.MatchString(q), askLivesRe.MatchString(q):
		v := first
		for _, p := range []string{"in ", "near ", "outside ", "from "} {
			v = strings.TrimPrefix(v, p)
		}
		if ws := strings.Fields(v); len(ws) == 0 || len(ws) > 3 || placeStops[strings.ToLower(ws[0])] || notPlaceAnswers[strings.ToLower(ws[0])] {
			return nil
		}
		if !hasUpper(v) {
			ws := strings.Fields(v)
			for i, w := range ws {
				ws[i] = nameCase(w)
			}
			v = strings.Join(ws, " ")
		}
		key := "lives_in"
		if askFromRe.MatchString(q) {
			key = "hometown"
		}
		return []extract.Memory{fact(key, v)}
	case askWorkRe.MatchString(q):
		if v, _ := org(first); v != "" {
			return []extract.Memory{fact("works_at", v)}
		}
	case askJobRe.MatchString(q):
		v := stripLeading(strings.ToLower(first), []string{"a", "an", "i'm a", "im a", "i'm an", "im an"})
		if ws := strings.Fields(v); len(ws) > 0 && occupationWord(ws[len(ws)-1]) {
			return []extract.Memory{fact("occupation", v)}
		}
	}
	return nil
}

// Notes (issue 33 §7): a disclosure the rules cannot key, kept in the
// user's own terms, third person, when the app's policy says so.

// noteOpeners are the first words of a sentence that may be a note: the
// user speaking of themselves.
var noteOpeners = toSet("i i'm im i've ive")

// noteNot are the words after "I" (or "I'm") that make a sentence talk,
// not a disclosure: "I think", "I agree", "I'm sorry", "I'm doing well".
var noteNot = toSet("think guess hope know bet agree understand see mean feel felt wish wonder believe suppose hear heard love like hate enjoy sorry glad good fine great ok okay okey doing well here not sure going gonna will would could should might may can't cannot just also too am was were did had got went said told asked thought thank thanks appreciate totally completely actually really so very pretty bad happy sad excited tired bored busy afraid want wanted need needed try tried remember forgot bet suppose see saw look looking")

// noteVague are words that leave a note about something it does not
// name ("I find them relaxing", "I'm there every Saturday").
var noteVague = toSet("it it's its this that these those them they there here one ones such something anything everything same user")

// noteTalk are what one "has" in talk, not in life: "I have a
// question", "I have some good news".
var noteTalk = toSet("question questions problem problems news idea ideas thought thoughts suggestion favor request doubt doubts concern point")

// noteEchoEnds end a sentence that echoes the other speaker.
var noteEchoEnds = toSet("too either also well")

// noteStates are passing states and moods after "I'm", not facts: "I'm
// free this weekend", "I'm in the mood for pizza", "I'm lucky".
var noteStates = toSet("free lucky ready happy sure fine in on off about available up down out back home interested curious open new")

// notePast are past forms that make a sentence a story, not a habit or a
// state.
var notePast = toSet("was were went had did got made took came saw said told thought felt left became began bought brought caught ate drank drove flew found gave grew heard kept knew lost met paid ran sat sold sent slept spent stood swam taught understood won wore wrote used")

// noteAdverbs may come between "I" and the verb of a note.
var noteAdverbs = toSet("also usually often always still sometimes mostly mainly regularly normally generally currently now never basically even actually")

// maxNoteWords bounds a note: a longer sentence is more than one fact.
const maxNoteWords = 14

// noteOf is the note memory a sentence makes, in the third person: "I
// take care of my grandma on weekends" is "takes care of their grandma on
// weekends". ok is false for a sentence that is no plain first-person
// present statement.
func noteOf(text string) (extract.Memory, bool) {
	t := strings.TrimRight(strings.TrimSpace(text), ".!… ")
	t = t[skipInterjections(t, 0):]
	ws := strings.Fields(t)
	if len(ws) < 3 || len(ws) > maxNoteWords || !noteOpeners[strings.ToLower(strings.Trim(ws[0], ",;:"))] {
		return extract.Memory{}, false
	}
	for _, w := range lowerWords(t) {
		if aboutAssistant[w] || w == "you're" || w == "youre" || w == "you've" || w == "lol" || w == "haha" || w == "we" || w == "us" || w == "our" ||
			noteVague[w] {
			return extract.Memory{}, false
		}
	}
	if ls := lowerWords(t); len(ls) > 0 && noteEchoEnds[ls[len(ls)-1]] {
		return extract.Memory{}, false // "I do too", "I don't either": an echo of the other speaker
	}
	if _, special := extract.SpecialCategory(t); special || strings.ContainsAny(t, "?\"()[]{}<>@#*/\\|") {
		return extract.Memory{}, false
	}
	out := make([]string, 0, len(ws))
	lower := func(i int) string { return strings.ToLower(strings.Trim(ws[i], ",;:")) }
	i := 0
	switch lower(0) {
	case "my":
		// "My daughter is seven": someone else's fact, not the user's.
		return extract.Memory{}, false
	case "i'm", "im":
		j := 1
		for j < len(ws)-1 && noteAdverbs[lower(j)] {
			j++
		}
		if noteNot[lower(j)] || noteStates[lower(j)] || strings.HasSuffix(lower(j), "ing") || strings.HasSuffix(lower(j), "ed") {
			return extract.Memory{}, false
		}
		out, i = append(out, "is"), 1
	case "i've", "ive":
		if lower(1) != "got" && !strings.HasSuffix(lower(1), "en") && lower(1) != "been" {
			return extract.Memory{}, false
		}
		if lower(1) == "got" {
			out, i = append(out, "has"), 2
		} else {
			return extract.Memory{}, false // "I've been …": a story
		}
	case "i":
		i = 1
		for i < len(ws) && (noteAdverbs[lower(i)] || strings.HasSuffix(lower(i), "ly") || lower(i) == "quite") {
			out = append(out, lower(i))
			i++
		}
		if i >= len(ws) {
			return extract.Memory{}, false
		}
		v := lower(i)
		switch {
		case v == "don't" || v == "dont" || v == "do" && i+1 < len(ws) && lower(i+1) == "not":
			if v == "do" {
				i++
			}
			out = append(out, "doesn't")
			i++
			for i < len(ws)-1 && (noteAdverbs[lower(i)] || lower(i) == "quite" || lower(i) == "really") {
				i++
			}
			if i >= len(ws) || noteNot[lower(i)] {
				return extract.Memory{}, false
			}
			out = append(out, lower(i))
			i++
		case v == "am":
			if i+1 >= len(ws) || noteNot[lower(i+1)] || strings.HasSuffix(lower(i+1), "ing") {
				return extract.Memory{}, false
			}
			out, i = append(out, "is"), i+1
		case v == "can" || v == "seem" || v == "have" && i+1 < len(ws) && (lower(i+1) == "to" || lower(i+1) == "been" || noteTalk[lower(i+1)] ||
			i+2 < len(ws) && noteTalk[lower(i+2)] || i+3 < len(ws) && noteTalk[lower(i+3)]):
			return extract.Memory{}, false // "I can tell", "I have to get going"
		case noteNot[v] || notePast[v] || strings.HasSuffix(v, "ed") || strings.HasSuffix(v, "'ll") || strings.HasSuffix(v, "'d") || !isLowerWord(v):
			return extract.Memory{}, false
		default:
			out, i = append(out, thirdPerson(v)), i+1
		}
	default:
		return extract.Memory{}, false
	}
	for ; i < len(ws); i++ {
		w := ws[i]
		core := strings.ToLower(strings.Trim(w, ",;:"))
		switch core {
		case "i", "i'm", "im", "i've", "i'd", "i'll":
			return extract.Memory{}, false // a second clause of its own
		case "my":
			w = strings.Replace(strings.ToLower(w), "my", "their", 1)
		case "me":
			w = strings.Replace(strings.ToLower(w), "me", "them", 1)
		case "myself":
			w = strings.Replace(strings.ToLower(w), "myself", "themselves", 1)
		case "mine":
			w = strings.Replace(strings.ToLower(w), "mine", "theirs", 1)
		}
		out = append(out, w)
	}
	v := tidy(strings.Join(out, " "))
	if len([]rune(v)) > extract.MaxValueRunes || len(strings.Fields(v)) < 2 || !hasContentWord(lowerWords(v)) {
		return extract.Memory{}, false
	}
	s := slug(v, noteSlugStop)
	if s == "" {
		return extract.Memory{}, false
	}
	return extract.Memory{Key: "note:" + s, Value: v, Category: extract.CategoryFact, Importance: 40, Confidence: 0.6}, true
}

// noteSlugStop are the words a note's key leaves out.
var noteSlugStop = toSet("a an the my their is are has have does doesn't to of and in on at for with it that this so very really")

// thirdPerson is an English verb in the third person singular: "go" is
// "goes", "study" is "studies", "have" is "has".
func thirdPerson(v string) string {
	switch v {
	case "have":
		return "has"
	case "do":
		return "does"
	case "can", "must":
		return v
	}
	n := len(v)
	switch {
	case n > 1 && v[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(v[n-2])):
		return v[:n-1] + "ies"
	case strings.HasSuffix(v, "s") || strings.HasSuffix(v, "sh") || strings.HasSuffix(v, "ch") || strings.HasSuffix(v, "x") || strings.HasSuffix(v, "z") || strings.HasSuffix(v, "o"):
		return v + "es"
	}
	return v + "s"
}

// "my sister Kayla is getting married on December 19th": a relative's
// occasion, dated.
var kinEventRe = regexp.MustCompile(`(?i)^` + opener + `my\s+((?:(?:older|younger|little|big|baby|twin|best)\s+)?(?:` + wordAlt(relations) + `|friend|best\s+friend|roommate))(?:\s*,?\s+(\p{Lu}\p{L}+|\p{L}+),?)?\s+(?:is|are)\s+(?:finally\s+|also\s+)?(getting\s+married|having\s+(?:a|her|his|their)\s+(?:baby|wedding|graduation|party)|graduating|getting\s+engaged|moving\s+out|retiring)\b(.*)$`)

// kinEvent is the event of a relative's occasion that the sentence dates.
func kinEvent(t string, dc dateContext) []extract.Memory {
	if !dc.on {
		return nil
	}
	sm := cued(kinEventRe, strings.TrimRight(t, ".!… "), strings.ToLower(t), "married", "having", "graduating", "engaged", "moving out", "retiring")
	if sm == nil {
		return nil
	}
	ds := extract.ResolveDates(sm[4], dc.at, dc.loc)
	if len(ds) == 0 {
		return nil
	}
	who := strings.ToLower(strings.Join(strings.Fields(sm[1]), " "))
	if name := sm[2]; name != "" && !referenceWords[strings.ToLower(name)] && !notItems[strings.ToLower(name)] {
		who += " " + nameCase(name)
	}
	what := strings.ToLower(strings.Join(strings.Fields(sm[3]), " "))
	var v string
	switch {
	case what == "getting married":
		v = who + "'s wedding"
	case strings.HasPrefix(what, "having "):
		v = who + "'s " + what[strings.LastIndexByte(what, ' ')+1:]
	case what == "getting engaged":
		v = who + "'s engagement"
	default:
		v = who + " " + what
	}
	m, _ := event(v)
	if m.Key == "" {
		return nil
	}
	m.EventDate, m.Wording = ds[0].Date, ds[0].Wording
	return []extract.Memory{m}
}

// replyHead is the first sentence of a reply without the words that open
// an answer ("oh", "mine is", "definitely") and its closing punctuation,
// with its lower-case words; commas become spaces unless keepCommas (a
// list keeps them). ok is false for a reply that opens with a question.
func replyHead(reply string, keepCommas bool) (first string, ws []string, ok bool) {
	sents := splitSentences(reply)
	if len(sents) == 0 || sents[0].question || strings.HasSuffix(strings.TrimSpace(sents[0].text), "?") {
		return "", nil, false
	}
	first = sents[0].text
	if !keepCommas {
		first = strings.ReplaceAll(first, ",", " ")
	}
	first = strings.Join(strings.Fields(first), " ")
	for changed := true; changed; {
		changed = false
		t := strings.TrimLeft(stripLeading(strings.TrimLeft(first, " ,"), answerLead), " ,")
		if t != first {
			first, changed = t, true
		}
	}
	first = strings.TrimRight(first, ".!… ")
	return first, lowerWords(first), true
}

// plainBeatsChange leaves out the changes that a plain statement of the
// same session makes moot: "I used to be a painter, but now I'm a
// housekeeper" says the occupation now, which supersedes the painter
// anyway. A change that names the plain statement's value ("my boyfriend
// Marcus …", then "Marcus and I broke up") is kept; said later, it wins.
func plainBeatsChange(mems []extract.Memory) []extract.Memory {
	var plain map[string][]string
	for _, m := range mems {
		if m.Change == nil {
			if plain == nil {
				plain = map[string][]string{}
			}
			plain[subject(m.Key)] = append(plain[subject(m.Key)], m.Value)
		}
	}
	if plain == nil {
		return mems
	}
	return slices.DeleteFunc(slices.Clone(mems), func(m extract.Memory) bool {
		if m.Change == nil || !m.Change.Ends {
			return false
		}
		vs, ok := plain[subject(m.Key)]
		if !ok {
			return false
		}
		ref := lowerWords(m.Change.Ref)
		return len(ref) == 0 || !slices.ContainsFunc(vs, func(v string) bool {
			have := lowerWords(v)
			for _, w := range ref {
				if !slices.Contains(have, w) {
					return false
				}
			}
			return true
		})
	})
}

// yesWords open a reply that says yes.
var yesWords = toSet("yes yeah yep yup ya yea mhm sure indeed")

// haveAnswer is what a reply of yes to "do you have …?" says the user has:
// "yeah, a dog named Pickles" is read as "I have a dog named Pickles".
func haveAnswer(reply string) []extract.Memory {
	sents := splitSentences(reply)
	if len(sents) == 0 || sents[0].question {
		return nil
	}
	t := strings.TrimLeft(sents[0].text, " ")
	w, next := firstWord(t+" ", 0)
	if !yesWords[w] {
		return nil
	}
	rest := strings.TrimLeft(t[min(next, len(t)):], " ,!-")
	if r, _ := firstWord(rest+" ", 0); r != "a" && r != "an" && r != "one" && r != "two" && r != "three" && r != "four" && (len(r) != 1 || r[0] < '1' || r[0] > '9') {
		return nil
	}
	found, _ := mineMessage("I have " + rest)
	return found
}
