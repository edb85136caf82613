package grammar

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
)

func wordAlt(m map[string]string) string {
	var ws []string
	for w := range m {
		ws = append(ws, strings.ReplaceAll(w, " ", `\s+`))
	}
	// Longer words first, so that "kids" is not read as "kid".
	sortByLenDesc(ws)
	return strings.Join(ws, "|")
}

func sortByLenDesc(ws []string) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && (len(ws[j]) > len(ws[j-1]) || (len(ws[j]) == len(ws[j-1]) && ws[j] < ws[j-1])); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

var (
	// occupations end the phrase of "I'm a nurse", "I'm a software engineer".
	occupations = `nurse|doctor|physician|surgeon|dentist|pharmacist|therapist|counselor|counsellor|psychologist|teacher|professor|lecturer|tutor|student|undergrad|engineer|developer|programmer|designer|architect|writer|author|journalist|editor|translator|artist|painter|musician|photographer|chef|cook|baker|barista|bartender|waiter|waitress|server|cashier|lawyer|attorney|paralegal|accountant|banker|consultant|analyst|manager|scientist|researcher|librarian|mechanic|electrician|plumber|carpenter|firefighter|paramedic|veterinarian|vet|pilot|driver|farmer|soldier|officer|cop|clerk|receptionist|secretary|assistant|technician|freelancer|entrepreneur|realtor|agent|caregiver|nanny|housewife|homemaker|stay[\s-]at[\s-]home\s+(?:mom|dad|parent|mother|father|wife|husband)|intern|actor|actress|dancer|singer|streamer|youtuber|coach|trainer|janitor|contractor|social\s+worker|data\s+scientist|housekeeper|custodian|athlete|olympian|player|tour\s+guide|guide|activist|veteran|model|stylist|hairdresser|salesman|saleswoman|salesperson|coder|blogger|vlogger|influencer|gamer|comedian|magician|sculptor|poet|novelist|composer|producer|director|dj|investor|trader|broker|miner|welder|fisherman|butcher|florist|tailor|jeweler|landscaper|gardener|courier|mailman|postman|trucker|ranger|guard|detective|judge|politician|stunt\s+double|lifeguard|babysitter|optometrist|midwife|zookeeper|archaeologist|astronaut|biologist|chemist|physicist|economist|historian|mathematician|geologist|botanist|volunteer|animator|illustrator|filmmaker|cameraman|reporter|anchor|host|owner|ceo|founder|(?:construction|factory|farm|office|social|care|warehouse|steel|road|dock|shipyard|retail|health\s+care|healthcare|youth|case|aid|charity|sex)\s+worker|wrestler|boxer|fighter|operator|inspector|supervisor|administrator|instructor|sailor|marine|rancher|barber|pianist|guitarist|drummer|violinist|cellist|rapper|bassist|lineman|machinist|plumber|roofer|painter|dispatcher|programmer|surveyor|auditor|bookkeeper|cleaner|maid|chauffeur|bus\s+driver|truck\s+driver|waitstaff|server|dishwasher|cook|caterer|pastry\s+chef|sous\s+chef|nutritionist|dietitian|hygienist|radiologist|anesthesiologist|pediatrician|paediatrician|physiotherapist|chiropractor|nurse\s+practitioner|teaching\s+assistant|substitute\s+teacher|principal|dean|coach|referee|umpire|jockey|stuntman|stuntwoman|clown|ballerina|bodybuilder|weightlifter|programmer|hacker|web\s+developer|game\s+developer|game\s+designer|tattoo\s+artist|makeup\s+artist|mechanic|locksmith|electrician|firefighter|fireman|policeman|policewoman|police\s+officer|sheriff|deputy|lumberjack|logger|fisher|beekeeper|shepherd|cowboy|cowgirl|vintner|winemaker|brewer|sommelier|baker|butler|doorman|bouncer|security\s+guard|mail\s+carrier|postal\s+worker|delivery\s+driver|flight\s+attendant|stewardess|cashier|salesclerk|shopkeeper|shop\s+owner|store\s+manager|personal\s+shopper|real\s+estate\s+agent|insurance\s+agent|travel\s+agent|dog\s+walker|pet\s+sitter|housekeeper|homeschooler|grad\s+student|phd\s+student|medical\s+student|law\s+student|freshman|sophomore|junior|senior\s+in\s+(?:high\s+school|college)`
	// selfJudgements make "I'm a terrible cook" a judgement, not a job.
	selfJudgements = toSet("terrible horrible awful bad good great decent amazing better worse lousy big huge total complete real bit little pretty natural born wannabe aspiring")
	diets          = `vegetarian|vegan|pescatarian|pescetarian|gluten[- ]free|dairy[- ]free|lactose[- ]intolerant|keto|paleo|plant[- ]based|flexitarian`
	foodGroups     = `meat|red\s+meat|pork|beef|fish|seafood|dairy|eggs|gluten|sugar|chicken|animal\s+products`
	hobbyVerbs     = `learning|practicing|practising|playing|doing|studying|taking|knitting|painting|drawing|cooking|baking|running|jogging|swimming|climbing|hiking|gardening|writing|reading|training\s+for|collecting|sewing|crocheting|dancing|singing|biking|cycling|skating|surfing|skiing|meditating|journaling|watching`
	// hobbyNeedsObject are the verbs that make no hobby on their own.
	hobbyNeedsObject = toSet("learning practicing practising playing doing studying taking training collecting watching play do practice practise collect take learn study watch")
	presentHobbies   = `walk|play|practice|practise|knit|paint|draw|bake|garden|surf|ski|climb|crochet|sew|collect|swim|hike|dance|sing|meditate|journal|run|volunteer|grow|speak|cook|coach|teach|ride|write|read|listen\s+to|watch|take|fix|restore|brew|sculpt|fish|hunt|compete|perform|mentor|tutor`
	// habitVerbs are presentHobbies that are a habit only with an object
	// that is no preposition: "I speak Chinese", not "I speak to my mom";
	// "I grow roses", not "I grow up".
	habitVerbs = toSet("walk grow speak coach teach ride watch take fix restore brew sculpt compete perform mentor tutor hunt")
	// specificWords open one particular thing, not a kind of thing.
	specificWords = toSet("a an the this that these those my his her their our your it them about")
	// lessonWords make "I take …" a habit: "dance lessons", "a pottery class".
	lessonWords = toSet("lessons lesson classes class course courses workshops")
	// teamWords make "I play on the soccer team" a hobby.
	teamWords    = toSet("team teams club league band orchestra choir squad crew")
	gerunds      = map[string]string{"play": "playing", "practice": "practicing", "practise": "practising", "do": "doing", "knit": "knitting", "paint": "painting", "draw": "drawing", "bake": "baking", "garden": "gardening", "surf": "surfing", "ski": "skiing", "climb": "climbing", "crochet": "crocheting", "sew": "sewing", "collect": "collecting", "swim": "swimming", "hike": "hiking", "dance": "dancing", "sing": "singing", "meditate": "meditating", "journal": "journaling", "run": "running", "listen to": "listening to", "take": "taking", "ride": "riding", "write": "writing", "volunteer": "volunteering"}
	goActivities = `hiking|running|swimming|climbing|fishing|camping|skiing|surfing|dancing|bowling|biking|cycling|jogging|skating|kayaking|sailing|snowboarding`
	// notObjects are what an activity is done "to" that makes it no hobby:
	// "I've been doing great", "I've been learning a lot".
	notObjects = toSet("a lot well great good fine ok okay alright better worse nothing something anything everything it that this things stuff so too much more less my your what how new skill skills some lately recently for with to at on around")
	// goalVerbs open a goal after "I want to": other wants are moods.
	goalVerbs = `learn|become|run|save|buy|travel|visit|start|finish|get\s+better\s+at|improve|move\s+to|write|build|open|launch|lose|quit|graduate`
	// workStops are what one works "at" or "for" that is not a workplace.
	workStops = toSet("home night nights night's the weekends weekend myself a living free it that this hours money me you him her them least all now moment times")
	// placeStops are what one lives "in" that is not a place.
	placeStops = toSet("fear denial hope peace poverty sin constant my this that it a an the here there home work school future past present moment shame dread terror bliss luxury misery harmony")
	// personWords make a preference one about a person: "I don't like my
	// new manager" is not a preference to remember.
	personWords = toSet("manager boss coworker coworkers colleague colleagues mom mum mother dad father parents sister sisters brother brothers wife husband boyfriend girlfriend partner friend friends teacher neighbor neighbour neighbors roommate ex son daughter kids children family in-laws people guy guys girl girls him her them you he she everyone someone nobody anybody somebody grandma grandpa aunt uncle cousin cousins fiance fiancé classmates classmate team teammates coach landlord")
	// introStops are capitalised words after "I'm" that are no name.
	introStops = toSet("ok okay fine good great well here back home done sorry sure not so just also still really very always never in on at from with the a an going getting trying looking doing being having feeling working thinking married single engaged divorced retired pregnant sick ill busy free ready new old young late early alive alright glad american canadian british english irish scottish welsh australian indian chinese japanese korean vietnamese filipino mexican brazilian italian french german spanish portuguese dutch swedish norwegian danish finnish polish russian ukrainian greek turkish egyptian nigerian kenyan african european asian latino latina hispanic jewish muslim catholic christian buddhist hindu atheist persian iranian israeli pakistani thai indonesian malaysian cuban colombian argentinian peruvian chilean jamaican haitian black white gay straight lesbian bi trans vegan vegetarian human your you me it this that what who how lol haha omg gonna about all like only almost kind sort")
)

// personItem reports whether the head of a like or dislike is a person.
func personItem(v string) bool {
	for i, w := range strings.Fields(v) {
		lw := strings.ToLower(strings.Trim(w, ",.!?;:\"'"))
		if qualifiers[lw] && i > 0 {
			break
		}
		// A capitalised word is a title's or a name's: "New Kids on the
		// Block" is a band, not children.
		if personWords[lw] && (isLowerWord(lw) && lw == strings.Trim(w, ",.!?;:\"'") || lw == "you") {
			return true
		}
	}
	return false
}

// fillers are words that carry no fact: "pretty exhausted to be honest" is
// exhausted. The multi-word ones are removed anywhere in a value.
var (
	fillerPhrases = []string{"to be honest", "to be fair", "if i'm honest", "you know", "i mean", "for real", "tbh", "honestly", "literally", "basically", "lol", "haha", "lmao"}
	// feelFillers open or interrupt a feeling: "I'm feeling like really
	// tired" is tired.
	feelFillers = toSet("pretty really so very quite super extremely rather somewhat totally completely just also still kinda sorta bit little incredibly truly absolutely utterly fairly slightly")
	feelPairs   = [][2]string{{"kind", "of"}, {"sort", "of"}, {"a", "bit"}, {"a", "little"}, {"a", "lot"}}
)

// trimFillers removes the filler phrases of v, whole words, in any case.
func trimFillers(v string) string {
	ws := strings.Fields(v)
	out := ws[:0:0]
	for i := 0; i < len(ws); {
		skip := 0
		for _, ph := range fillerPhrases {
			pw := strings.Fields(ph)
			if i+len(pw) <= len(ws) && equalFoldWords(ws[i:i+len(pw)], pw) {
				skip = len(pw)
				break
			}
		}
		if skip > 0 {
			i += skip
			continue
		}
		out = append(out, ws[i])
		i++
	}
	return tidy(strings.Join(out, " "))
}

func equalFoldWords(ws, want []string) bool {
	for i := range want {
		w := strings.TrimFunc(ws[i], func(r rune) bool { return unicode.IsPunct(r) && r != '\'' })
		if !strings.EqualFold(w, want[i]) {
			return false
		}
	}
	return true
}

// feelingLexicon is what a feeling may be, besides feelWord: a word outside
// it is a feeling only in a short phrase.
var feelingLexicon = toSet(strings.ReplaceAll(feelWord, "|", " ") + " down good great okay ok fine better worse well bad low blue off awful terrible horrible weird lost stuck motivated unmotivated energized energetic optimistic pessimistic disappointed guilty insecure numb empty tense uneasy unwell sore rested refreshed peaceful inspired loved lucky blessed overjoyed shy awkward bummed fed meh productive lazy")

// feelingReasons start the reason of a feeling: "anxious about the speech".
var feelingReasons = toSet("about for because over with after since of")

// maxFeelingReasonWords bounds the reason kept with a feeling: "nervous
// about my exam" keeps it, "anxious about the maid of honor speech" is
// anxious.
const maxFeelingReasonWords = 3

// feelingValue reduces what follows "I'm feeling" to the feeling: fillers and
// intensifiers out, the feeling word (or two, "tired and sad"), and a short
// reason. ok is false when no feeling can be read.
func feelingValue(after string) (string, string) {
	clause, long := cutClause(after)
	if long {
		return "", extract.DropTooLong
	}
	ws := lowerWords(trimFillers(clause))
	for changed := true; changed && len(ws) > 0; {
		changed = false
		if feelFillers[ws[0]] || (ws[0] == "like" && len(ws) > 1 && (feelFillers[ws[1]] || feelingLexicon[ws[1]])) {
			// "like" is a filler only before a feeling: "I feel like going
			// out" is no feeling.
			ws, changed = ws[1:], true
			continue
		}
		for _, p := range feelPairs {
			if len(ws) > 2 && ws[0] == p[0] && ws[1] == p[1] {
				ws, changed = ws[2:], true
				break
			}
		}
	}
	v := stripTrailing(strings.Join(ws, " "), feelTrailing)
	ws = strings.Fields(v)
	if len(ws) == 0 || notFeelings[ws[0]] || !hasAlnum(ws[0]) {
		return "", extract.DropInvalidValue
	}
	for _, ph := range []string{"stressed out", "burnt out", "burned out", "worn out", "freaked out", "under the weather", "on edge", "out of it", "left out", "fed up"} {
		if p := strings.Fields(ph); len(ws) >= len(p) && equalWords(ws[:len(p)], p) {
			return feelingTail(ph, ws[len(p):])
		}
	}
	if feelingLexicon[ws[0]] {
		return feelingTail(ws[0], ws[1:])
	}
	if len(ws) <= 2 {
		return strings.Join(ws, " "), ""
	}
	return "", extract.DropInvalidValue
}

// feelingTail keeps a second feeling ("tired and sad") or a short reason
// after the feeling f.
func feelingTail(f string, rest []string) (string, string) {
	if len(rest) >= 2 && (rest[0] == "and" || rest[0] == "but") && feelingLexicon[rest[1]] {
		f += " and " + rest[1]
		rest = rest[2:]
	}
	if len(rest) > 1 && feelingReasons[rest[0]] && len(rest)-1 <= maxFeelingReasonWords {
		return f + " " + strings.Join(rest, " "), ""
	}
	return f, ""
}

// items splits the value of a like, dislike, allergy or hobby into its
// list: "X and Y", "A, B and C", "A, B, or C". A comma list counts only
// when its last item is joined by "and" or "or"; "mac and cheese" and other
// fixed pairs stay one item.
func items(after string) ([]string, bool) {
	first, long := cutClause(after)
	if long {
		return nil, true
	}
	segs := []string{first}
	rest := after[min(len(after), len(first)):]
	listed := false
	whole := map[string]bool{}
	for len(segs) < maxListScan {
		rest = strings.TrimLeft(rest, " \"'")
		if !strings.HasPrefix(rest, ",") {
			break
		}
		rest = strings.TrimLeft(rest[1:], " ")
		w, _ := firstWord(rest, 0)
		joined := w == "and" || w == "or"
		if joined {
			_, next := firstWord(rest, 0)
			rest = rest[min(next, len(rest)):]
		}
		seg, long := cutClause(rest)
		if long || seg == "" || len(strings.Fields(seg)) > maxItemWords {
			// "to read, grow roses, and spend time with my friends and
			// family on weekends": a list all the same, its last item too
			// long to keep.
			listed = listed || (joined && len(segs) > 1)
			break
		}
		if fw, _ := firstWord(seg+" ", 0); subjects[fw] || notItems[fw] || clauseEnds[fw] {
			break
		}
		segs = append(segs, seg)
		rest = rest[min(len(rest), strings.Index(rest, seg)+len(seg)):]
		inner := strings.Contains(" "+strings.ToLower(seg)+" ", " and ") || strings.Contains(" "+strings.ToLower(seg)+" ", " or ")
		if !joined && inner && joinedNext(rest) {
			// "The Office, Parks and Recreation, and Brooklyn Nine-Nine":
			// the list goes on with its own "and", so this one is inside
			// the item.
			whole[seg] = true
			continue
		}
		if joined || inner {
			listed = true
			break
		}
	}
	if !listed {
		segs = segs[:1]
		// "small, family-owned businesses": a comma between adjectives.
		if len(strings.Fields(first)) == 1 && pairedAdjectives[strings.ToLower(first)] {
			if rest := strings.TrimLeft(after[min(len(after), len(first)):], " "); strings.HasPrefix(rest, ",") {
				if seg, _ := cutClause(strings.TrimLeft(rest[1:], " ")); seg != "" {
					segs = []string{first + " " + seg}
				}
			}
		}
	}
	var out []string
	for _, s := range segs {
		if whole[s] {
			out = append(out, s)
			continue
		}
		out = append(out, splitJoined(s)...)
	}
	if len(out) > maxListScan {
		out = out[:maxListScan]
	}
	return out, false
}

// joinedNext reports whether rest goes on with ", and" or ", or".
func joinedNext(rest string) bool {
	rest = strings.TrimLeft(rest, " \"'")
	if !strings.HasPrefix(rest, ",") {
		return false
	}
	w, _ := firstWord(strings.TrimLeft(rest[1:], " ")+" ", 0)
	return w == "and" || w == "or"
}

// pairedAdjectives are adjectives a comma may join to the next one before
// their noun: "small, family-owned businesses", "cozy, quiet cafes".
var pairedAdjectives = toSet("small big large little tiny huge old new young good great nice beautiful cute quiet cozy cosy local independent simple fresh hot cold warm cool dark long short slow fast loud soft sweet spicy fancy cheap classic vintage modern rustic peaceful relaxing calm busy lively")

// maxListItems is how many items of one list the rules keep: "I like A, B,
// …" keeps the first eight and records DropListCap for the rest, so that a
// long list is neither one memory nor a flood. maxListScan bounds how far
// a list is read.
const (
	maxListItems = 8
	maxListScan  = 32
	maxItemWords = 8 // a longer "item" is a clause
)

// capList keeps the first maxListItems of vs; capped reports a cut.
func capList(vs []string) (kept []string, capped bool) {
	if len(vs) > maxListItems {
		return vs[:maxListItems], true
	}
	return vs, false
}

// fixedPairs are items whose "and" is part of their name, and idiomatic
// pairs that name one thing ("peace and quiet", "friends and family").
var fixedPairs = toSet("mac_and_cheese macaroni_and_cheese fish_and_chips rock_and_roll salt_and_pepper peanut_butter_and_jelly bread_and_butter black_and_white pros_and_cons rhythm_and_blues simon_and_garfunkel mumford_and_sons hall_and_oates law_and_order pride_and_prejudice beauty_and_beast tom_and_jerry rick_and_morty drum_and_bass cookies_and_cream milk_and_cookies chips_and_salsa chips_and_guac pb_and_j sweet_and_sour sweet_and_salty arts_and_crafts dungeons_and_dragons hide_and_seek trick_or_treating truth_or_dare rain_or_shine now_or_never " +
	"peace_and_quiet rest_and_relaxation hustle_and_bustle fun_and_games friends_and_family family_and_friends bed_and_breakfast surf_and_turf trial_and_error wear_and_tear song_and_dance sun_and_sand sand_and_sun hugs_and_kisses bells_and_whistles odds_and_ends bits_and_pieces pen_and_paper cops_and_robbers cat_and_mouse bride_and_groom rise_and_shine war_and_peace sense_and_sensibility crime_and_punishment romeo_and_juliet hansel_and_gretel bonnie_and_clyde jack_and_jill key_and_peele")

// fixedJoin reports whether the "and" or "or" at ws[i] is inside a fixed
// pair that ends one to three words before it and starts one to three words
// after it: "the peace and quiet", "time with friends and family".
func fixedJoin(ws []string, i, start int) bool {
	for j := i - 1; j >= max(start, i-3); j-- {
		for k := i + 2; k <= min(len(ws), i+4); k++ {
			if fixedPairs[slug(strings.Join(ws[j:k], " "), articles)] {
				return true
			}
		}
	}
	return false
}

// splitJoined splits "X and Y" and "X or Y" into items unless they are a
// fixed pair.
func splitJoined(s string) []string {
	if fixedPairs[slug(s, articles)] {
		return []string{s}
	}
	ws := strings.Fields(s)
	var out, joins []string
	start := 0
	for i, w := range ws {
		if lw := strings.ToLower(w); (lw == "and" || lw == "or") && i > start && i+1 < len(ws) && !titleJoin(ws, i) && !fixedJoin(ws, i, start) {
			out = append(out, strings.Join(ws[start:i], " "))
			joins = append(joins, w)
			start = i + 1
		}
	}
	out = append(out, strings.Join(ws[start:], " "))
	// "rock climbing and feeling like I'm stuck": the list ends where a
	// clause about the user begins.
	for i, part := range out {
		if i > 0 && slicesContainsAny(lowerWords(part), clauseSubjects) {
			out = out[:i]
			break
		}
	}
	for i := 0; i+1 < len(out); i++ {
		join := false
		switch {
		case len(out) > 2 && titleWord(out[i]) && titleWord(out[i+1]):
			// "The Office and Parks and Recreation": within a list joined by
			// "and" alone, two capitalised single words are one title.
			join = true
		case sharedObject(out[i], out[i+1]):
			// "sending and receiving emails": one activity.
			join = true
		case !strings.ContainsRune(out[i+1], ' ') && strings.ContainsRune(out[i], ' ') && (pairedVerbs[out[i+1]] || pairedStates[out[i+1]]):
			// "seeing my students learn and grow", "helping people get fit
			// and healthy": a second verb or state of the item before.
			join = true
		}
		for _, j := range []string{" and ", " or "} {
			if fixedPairs[slug(out[i]+j+out[i+1], articles)] {
				join = true // "pizza and mac and cheese"
			}
		}
		if join {
			out[i] = out[i] + " " + joins[i] + " " + out[i+1]
			out = append(out[:i+1], out[i+2:]...)
			joins = append(joins[:i], joins[i+1:]...)
			i--
		}
	}
	return out
}

// pairedVerbs and pairedStates are single words that, after "and", go on
// the phrase before rather than start an item: "learn and grow", "fit and
// healthy".
var (
	pairedVerbs  = toSet("grow learn thrive improve relax unwind succeed laugh smile heal change develop explore play")
	pairedStates = toSet("healthy fit happy strong safe clean tidy neat organized organised warm comfortable relaxed calm active alive free independent")
)

// titleWord reports whether an item is one capitalised word, not "I".
func titleWord(item string) bool {
	if strings.ContainsRune(item, ' ') || len(item) < 2 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(item)
	return unicode.IsUpper(r)
}

// hobbyGerunds are the -ing forms of soloVerbs: activities of their own
// ("hiking and playing guitar" is two).
var hobbyGerunds = func() map[string]bool {
	out := map[string]bool{}
	for v := range soloVerbs {
		out[gerund(v)] = true
	}
	return out
}()

// sharedObject reports whether item a is a lone -ing verb that is no
// activity of its own and b an -ing verb with an object, which is then
// a's too: "sending and receiving emails", "buying and selling cars".
func sharedObject(a, b string) bool {
	if strings.ContainsRune(a, ' ') || !isLowerWord(a) || !strings.HasSuffix(a, "ing") || len(a) < 6 || hobbyGerunds[a] {
		return false
	}
	ws := strings.Fields(b)
	return len(ws) > 1 && strings.HasSuffix(ws[0], "ing") && isLowerWord(ws[0])
}

// titleJoin reports whether the "and" at ws[i] is inside a title that a
// common noun follows: "the Fast and Furious movies", "the Lord of the
// Rings and Hobbit books"; not "The Strokes and The Libertines".
func titleJoin(ws []string, i int) bool {
	if i == 0 || i+2 >= len(ws) || !hasUpper(ws[i-1]) || !hasUpper(ws[i+1]) {
		return false
	}
	for _, w := range ws[i+2:] {
		if isLowerWord(w) && !danglingWords[w] {
			return true
		}
	}
	return false
}

// expletiveIt is the "it" of "I like it when it rains", which names nothing.
var expletiveIt = regexp.MustCompile(`(?i)^it\s+(?:when|whenever|if|that)\b`)

// prefMemories are the likes or dislikes of a list.
func prefMemories(after string, key string) ([]extract.Memory, string) {
	if expletiveIt.MatchString(after) {
		return nil, extract.DropInvalidValue // "I like it when it rains": no thing is liked
	}
	vs, long := items(after)
	if long {
		return nil, extract.DropTooLong
	}
	vs, capped := capList(vs)
	// Only the first three bytes are read, never the rest of the sentence
	// lowered: a sentence of many likes would cost its length squared.
	lead := strings.TrimLeft(after, " ")
	infinitive := len(lead) >= 3 && strings.EqualFold(lead[:3], "to ")
	prevVerb := false // the item before was a verb: "to swim, sunbathe and skydive"
	var out []extract.Memory
	reason := ""
	for i, raw := range vs {
		if infinitive {
			// "I like to hike, run my little bakery and read": the verbs are
			// activities (hiking, reading), what one runs or owns is work.
			if m, ok := runsPlace(raw); ok {
				out = append(out, m)
				continue
			}
			ws := strings.Fields(strings.TrimPrefix(raw, "to "))
			// A later item is a verb too after a one-word verb ("to swim,
			// sunbathe and skydive"), or when a preposition follows it
			// ("color in coloring books"); else it may be an object ("to
			// eat pizza, pasta and sushi").
			verbish := i > 0 && len(ws) > 0 && isLowerWord(ws[0]) && !strings.HasSuffix(ws[0], "s") &&
				(prevVerb && len(ws) == 1 || len(ws) > 1 && itemPreps[ws[1]])
			g := gerundItem(raw, i == 0 || verbish)
			prevVerb = len(ws) == 1 && g != ws[0]
			if i > 0 && len(ws) > 1 && objectPronouns[strings.ToLower(ws[1])] && listVerbs[strings.ToLower(ws[0])] {
				reason = firstNonEmpty(reason, extract.DropInvalidValue) // "… and make me see things": a clause, not a like
				continue
			}
			raw = g
		} else if w, next := firstWord(raw, 0); i > 0 && (likeVerbs[w] || likeVerbs[strings.TrimSuffix(w, "ing")] || likeVerbs[strings.TrimSuffix(w, "ing")+"e"]) && next < len(raw) {
			// "being able to relax and enjoy the scenery": a second verb of
			// the first item, whose object is what is liked.
			raw = raw[next:]
		} else if ws := strings.Fields(raw); i > 0 && len(ws) > 1 && objectPronouns[strings.ToLower(ws[1])] && (listVerbs[w] || likeVerbs[w]) {
			reason = firstNonEmpty(reason, extract.DropInvalidValue) // "books that challenge me and make me see …"
			continue
		} else if i > 0 && next < len(raw) && listVerbs[w] && isLowerWord(w) && raw[:len(w)] == w {
			// "on Facebook and watch TV": a second activity, said as a verb.
			raw = gerund(w) + raw[next-1:]
		}
		if personItem(raw) {
			reason = firstNonEmpty(reason, extract.DropAboutPerson)
			continue
		}
		v, r := preference(raw)
		if v == "" && i == 0 && !infinitive && r == extract.DropUnresolved && len(vs) > 1 {
			return nil, extract.DropUnresolved // see below
		}
		if v == "" {
			reason = firstNonEmpty(reason, r, extract.DropInvalidValue)
			continue
		}
		if i == 0 && !infinitive && len(vs) > 1 {
			if _, pr := phraseValue(v); pr == extract.DropUnresolved {
				// "the way it captures the love and happiness between us":
				// what is joined to an unresolved phrase is part of it.
				return nil, extract.DropUnresolved
			}
		}
		if personItem(v) {
			reason = firstNonEmpty(reason, extract.DropAboutPerson)
			continue
		}
		k, ok := extract.CanonicalKey(key + slug(v, articles))
		if !ok {
			reason = firstNonEmpty(reason, extract.DropInvalidValue)
			continue
		}
		out = append(out, extract.Memory{Key: k, Value: v, Category: extract.CategoryPreference, Importance: 75, Confidence: 0.7})
	}
	if len(out) > 0 {
		if capped {
			return out, extract.DropListCap
		}
		return out, ""
	}
	return nil, reason
}

var (
	// likeVerbs open an item that restates the liking: "… and love gardening".
	likeVerbs = toSet("like love enjoy adore")
	// soloVerbs are activities named by a verb alone: "to hike, swim and read".
	soloVerbs = toSet("read cook bake swim hike run travel dance sing write draw paint knit sew shop fish camp ski surf garden relax explore walk jog bike cycle climb sleep eat volunteer sail skate golf play write craft")
)

// listVerbs may open a later item of "I like to …" with more words: "to
// read, go for walks and spend time with family".
var listVerbs = toSet("play watch go listen spend hang visit learn make build take try meet eat drink ride drive work help look collect fix grow volunteer bake attend do see sing tan dance explore cook write draw paint read travel hike swim run walk shop sew knit garden fish camp ski surf relax sleep bike climb spend sit lie browse chat talk teach study practice watch work")

// ownVerbs make an item of a list of likes the user's work or business.
var ownVerbs = toSet("run own manage")

// runsPlace reads "run my little bakery" in a list of likes as where the
// user works.
func runsPlace(item string) (extract.Memory, bool) {
	ws := strings.Fields(strings.TrimPrefix(strings.ToLower(item), "to "))
	if len(ws) < 2 || !ownVerbs[ws[0]] || (ws[1] != "my" && ws[1] != "a" && ws[1] != "an" && ws[1] != "our") {
		return extract.Memory{}, false
	}
	v, _ := org(strings.Join(ws[2:], " "))
	if v == "" {
		return extract.Memory{}, false
	}
	return fact("works_at", v), true
}

// gerundItem turns the verb that opens an item of "I like to …" into its
// -ing form, so that "to hike" and "hiking" are one like. The first item
// opens with a verb; a later one may be another object of it ("to play
// Mario Kart, Minecraft and Roblox", "to walk with my sisters and dogs"),
// so it is read as a verb only when it is one of soloVerbs or a lower-case
// word not ending in s followed by more words ("build sandcastles").
func gerundItem(item string, first bool) string {
	item = strings.TrimPrefix(item, "to ")
	// "often focus on details" is focusing on details.
	if w, next := firstWord(item, 0); itemAdverbs[w] && next < len(item) {
		item = item[next:]
	}
	w, next := firstWord(item, 0)
	if likeVerbs[w] && next < len(item) {
		return item[next:] // "… and love gardening"
	}
	if w == "" || strings.HasSuffix(w, "ing") && !soloVerbs[w] && !listVerbs[w] || notItems[w] || !isLowerWord(w) {
		return item
	}
	if !first && !soloVerbs[w] && !listVerbs[w] {
		return item // "RPGs and action games", "mystery novels and historical fiction": objects, not verbs
	}
	rest := ""
	if next < len(item) {
		rest = item[next-1:]
	}
	return gerund(w) + rest
}

// itemPreps after a word of a list of verbs make it a verb: "color in
// coloring books".
var itemPreps = toSet("in on with at around out for about through")

// objectPronouns after a verb make its item a clause about someone: "make
// me see things".
var objectPronouns = toSet("me us you him her them")

// itemAdverbs may open an item of "I like to …" before its verb.
var itemAdverbs = toSet("often usually sometimes also really just always occasionally regularly still even")

func isLowerWord(w string) bool {
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// gerund is the -ing form of a regular English verb.
func gerund(v string) string {
	if g, ok := gerunds[v]; ok {
		return g
	}
	n := len(v)
	vowel := func(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }
	switch {
	case v == "be" || v == "see":
		return v + "ing"
	case strings.HasSuffix(v, "ie"):
		return v[:n-2] + "ying"
	case n > 2 && v[n-1] == 'e' && !vowel(v[n-2]):
		return v[:n-1] + "ing"
	case n >= 3 && n <= 4 && !vowel(v[n-1]) && vowel(v[n-2]) && !vowel(v[n-3]) && strings.IndexByte("wxy", v[n-1]) < 0:
		return v + v[n-1:] + "ing"
	}
	return v + "ing"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// capWords reads up to n capitalised words (a place, an organisation, a
// name) from the start of s, allowing "of", "de", "la", "and" between them
// and an opening "the". It returns "" when s does not open with one.
func capWords(s string, n int) string {
	var out []string
	ws := strings.Fields(s[:min(len(s), 200)])
	for i := 0; i < len(ws) && len(out) < n; i++ {
		w := ws[i]
		trimmed := strings.TrimRightFunc(w, func(r rune) bool {
			return unicode.IsPunct(r) && r != '\'' && r != '-' && r != '&' && r != '.'
		})
		end := trimmed != w
		trimmed = strings.TrimRight(trimmed, ".")
		if trimmed == "" {
			break
		}
		r, _ := utf8.DecodeRuneInString(trimmed)
		switch {
		case newSubjects[strings.ToLower(trimmed)] || capPronouns[strings.ToLower(trimmed)]:
			return joinCap(out) // "Chicago and I work …": a pronoun names no place
		case unicode.IsUpper(r) || (unicode.IsDigit(r) && len(out) > 0):
		case len(out) == 0 && strings.EqualFold(trimmed, "the") && !end:
		case len(out) > 0 && (trimmed == "of" || trimmed == "de" || trimmed == "la" || trimmed == "and" || trimmed == "&") && !end && i+1 < len(ws):
			if r2, _ := utf8.DecodeRuneInString(ws[i+1]); !unicode.IsUpper(r2) {
				return joinCap(out)
			}
		default:
			return joinCap(out)
		}
		out = append(out, trimmed)
		if end {
			break
		}
	}
	return joinCap(out)
}

// capPronouns are capitalised words that are no part of a name.
var capPronouns = toSet("my his her their our your its me him them us")

func joinCap(ws []string) string {
	for len(ws) > 0 {
		last := strings.ToLower(ws[len(ws)-1])
		if last == "the" || last == "of" || last == "de" || last == "la" || last == "and" || last == "&" {
			ws = ws[:len(ws)-1]
			continue
		}
		break
	}
	if len(ws) == 0 || (len(ws) == 1 && strings.EqualFold(ws[0], "the")) {
		return ""
	}
	return strings.Join(ws, " ")
}

// hasUpper reports whether s has an upper-case letter.
func hasUpper(s string) bool { return strings.IndexFunc(s, unicode.IsUpper) >= 0 }

// place reads where someone lives or works: capitalised words, or, in a
// sentence typed all in lower case, a short phrase that is no state of mind
// ("i live in seattle", not "I live in fear").
func place(after string, lowerOK bool) (string, string) {
	if v := capWords(after, 5); v != "" {
		return v, ""
	}
	if v := lowerPlace(after); v != "" {
		return v, ""
	}
	if !lowerOK {
		return "", extract.DropInvalidValue
	}
	clause, long := cutClause(after)
	if long {
		return "", extract.DropTooLong
	}
	ws := strings.Fields(stripTrailing(clause, placeTrailing))
	if len(ws) == 0 || len(ws) > 3 || placeStops[strings.ToLower(ws[0])] {
		return "", extract.DropInvalidValue
	}
	for _, w := range ws {
		if qualifiers[w] || joiners[w] || subjects[w] {
			return "", extract.DropInvalidValue
		}
	}
	return strings.Join(ws, " "), ""
}

// placeNouns are the settlements and dwellings a lower-case place ends
// with: "a rural farming community", "the country", "a small town".
var placeNouns = toSet("town towns city village suburb suburbs community farm ranch house apartment flat condo cabin trailer neighborhood neighbourhood countryside country area region island coast mountains valley desert forest woods dorm dormitory shelter camp capital borough district hamlet bungalow mansion cottage castle boat houseboat igloo treehouse tent bay beach lake port reservation commune monastery cloud clouds mountain hills outskirts burbs")

// lowerPlace reads a place typed in lower case that names a kind of place:
// "a rural farming community", "the country", "a small town in Ohio"; ""
// for anything else ("in fear", "in the moment").
func lowerPlace(after string) string {
	clause, long := cutClause(after)
	if long {
		return ""
	}
	ws := strings.Fields(stripTrailing(clause, placeTrailing))
	if len(ws) < 2 || (ws[0] != "a" && ws[0] != "an" && ws[0] != "the") {
		return ""
	}
	for i, w := range ws[1:] {
		lw := strings.ToLower(w)
		if placeNouns[lw] && isLowerWord(lw) {
			end := i + 2
			// "a small town in Ohio", "a farm near Austin".
			if end+1 < len(ws) && (ws[end] == "in" || ws[end] == "near" || ws[end] == "outside") {
				if c := capWords(strings.Join(ws[end+1:], " "), 4); c != "" {
					return strings.Join(ws[:end+1], " ") + " " + c
				}
			}
			if end < len(ws) {
				return "" // "a house of cards", "the city that never sleeps": more than a place
			}
			return strings.Join(ws, " ")
		}
		if i >= 3 || !isLowerWord(strings.Trim(lw, "-")) && !strings.Contains(lw, "-") {
			return ""
		}
	}
	return ""
}

var placeTrailing = []string{"now", "right now", "currently", "these days", "at the moment", "for now", "still", "too"}

// fact is a memory of one of the plain fact keys.
func fact(key, v string) extract.Memory {
	return extract.Memory{Key: key, Value: v, Category: extract.CategoryFact, Importance: 80, Confidence: 0.8}
}

// buildAll builds the memories of a match of k at the start of rest: those
// of lists and of the broader facts here, the others by build.
func buildAll(k kind, rest string, loc []int, dated bool) ([]extract.Memory, string) {
	after := rest[loc[1]:]
	g := func(i int) string { return strings.ToLower(strings.Join(strings.Fields(group(rest, loc, i)), " ")) }
	switch k {
	case kindLike, kindDislike:
		key := "likes:"
		if k == kindDislike {
			key = "dislikes:"
		}
		if containsFoldASCII(rest[:loc[1]], "prefer") {
			after = cutAtWords(after, "over", "to", "rather", "instead", "than")
		}
		if k == kindLike && containsFoldASCII(rest[:loc[1]], "spend") {
			switch w, next := firstWord(after+" ", 0); w {
			case "with":
				after = "spending time " + after // "with my family" is how, not what
			case "on", "at", "in", "doing":
				after = after[min(next, len(after)):] // "on Facebook", "at the beach"
			default:
				if w2, _ := firstWord(after+" ", next); !strings.HasSuffix(w, "ing") && !strings.HasSuffix(w2, "ing") {
					return nil, extract.DropInvalidValue // "I spend time alone"; "bird watching" is an activity
				}
			}
		}
		return prefMemories(after, key)
	case kindPerson:
		what := firstNonEmpty(group(rest, loc, 1), group(rest, loc, 2))
		if ws := lowerWords(what); len(ws) == 0 || selfJudgements[ws[0]] && len(ws) == 1 {
			return nil, extract.DropInvalidValue // "I'm a huge fan"
		}
		return prefMemories(what, "likes:")
	case kindLiving:
		verb, obj := g(1), strings.TrimSpace(group(rest, loc, 2))
		if verb == "do" || verb == "work" {
			if obj == "" || notItems[strings.ToLower(firstField(obj))] {
				return nil, extract.DropInvalidValue // "what I do for a living"
			}
			return []extract.Memory{fact("occupation", strings.ToLower(obj))}, ""
		}
		if notItems[verb] || !isLowerWord(verb) {
			return nil, extract.DropInvalidValue
		}
		return []extract.Memory{fact("occupation", strings.TrimSpace(gerund(verb)+" "+obj))}, ""
	case kindDiet:
		if food := g(3); food != "" {
			return []extract.Memory{fact("diet", "no "+food)}, ""
		}
		if g(4) != "" {
			return drinks(after)
		}
		d := firstNonEmpty(g(1), g(2))
		if item, ok := strings.CutSuffix(strings.ReplaceAll(d, "-", " "), " intolerant"); ok {
			// An intolerance is the body's, not a choice: it must outlive
			// "I don't eat meat anymore", which restates the diet.
			return []extract.Memory{{Key: "allergy:" + item, Value: d, Category: extract.CategoryFact, Importance: 85, Confidence: 0.8}}, ""
		}
		return []extract.Memory{fact("diet", d)}, ""
	case kindNegated:
		return nil, extract.DropNegated
	case kindAllergy:
		var vs []string
		if one := group(rest, loc, 1); one != "" {
			vs = []string{one}
		} else {
			var long bool
			if vs, long = items(after); long {
				return nil, extract.DropTooLong
			}
			vs, _ = capList(vs)
		}
		var out []extract.Memory
		for _, raw := range vs {
			v, _ := preference(raw)
			if v == "" {
				continue
			}
			if key, ok := extract.CanonicalKey("allergy:" + slug(v, articles)); ok {
				out = append(out, extract.Memory{Key: key, Value: v, Category: extract.CategoryFact, Importance: 85, Confidence: 0.8})
			}
		}
		if len(out) == 0 {
			return nil, extract.DropInvalidValue
		}
		return out, ""
	case kindLives, kindHometown:
		v, reason := place(after, !hasUpper(after))
		if v == "" {
			return nil, reason
		}
		if k == kindHometown {
			return []extract.Memory{fact("hometown", v)}, ""
		}
		if prep := g(1); prep != "in" {
			v = prep + " " + v
		}
		return []extract.Memory{fact("lives_in", v)}, ""
	case kindWorks:
		return work(firstNonEmpty(g(1), g(2)), after)
	case kindOccupation:
		switch {
		case g(4) != "":
			return []extract.Memory{fact("occupation", "in the "+g(4))}, ""
		case g(5) != "":
			return []extract.Memory{fact("occupation", strings.ReplaceAll(g(5), "-", " "))}, ""
		}
		return occupation(g(1), firstNonEmpty(g(2), g(3)), after)
	case kindSelf:
		return self(rest, loc, g, after)
	case kindFavorite:
		if len(loc) > 4 && loc[2] < 0 && loc[4] < 0 {
			// "my favourite is …": a like.
			return prefMemories(after, "likes:")
		}
	case kindStudies:
		if v := g(1); v != "" {
			return []extract.Memory{fact("studies_at", v)}, ""
		}
		if v := capWords(after, 6); v != "" {
			return []extract.Memory{fact("studies_at", v)}, ""
		}
		if group(rest, loc, 0) != "" && containsFoldASCII(rest[:loc[1]], "attend ") && !containsFoldASCII(rest[:loc[1]], "school") {
			return nil, extract.DropInvalidValue
		}
		v, reason := org(after)
		if v == "" {
			return nil, reason
		}
		return []extract.Memory{fact("studies_at", v)}, ""
	case kindGoSchool:
		v := capWords(after, 6)
		for _, w := range strings.Fields(v) {
			switch strings.ToLower(w) {
			case "university", "college", "school", "academy", "institute", "high", "uni", "polytechnic":
				return []extract.Memory{fact("studies_at", v)}, ""
			}
		}
		return goesRegularly(after)
	case kindMajor:
		if l := strings.ToLower(after); strings.HasPrefix(l, "to be ") || strings.HasPrefix(l, "to become ") {
			// "I'm studying to be a computer programmer": a goal.
			what, _ := cutClause(after[strings.IndexByte(after[3:], ' ')+4:])
			return goal("become " + what)
		}
		if strings.HasSuffix(strings.ToLower(rest[:loc[1]]), "major") {
			// "I'm an art major": the user's own word for it.
			ms, reason := major(g(1))
			if len(ms) == 1 && ms[0].Key == "occupation" {
				ms[0].Value = strings.TrimSuffix(ms[0].Value, " student") + " major"
			}
			return ms, reason
		}
		return major(firstNonEmpty(g(1), after))
	case kindGoal:
		what, long := cutClause(after)
		if long {
			return nil, extract.DropTooLong
		}
		switch {
		case g(1) == "plan":
			return plan(what)
		case g(2) != "":
			what = g(2) + " " + what
		case g(3) != "":
			what = g(3) + " " + what
		case g(4) != "":
			// "to be a lawyer" is to become one.
			what = "become " + strings.TrimPrefix(strings.TrimPrefix(g(4), "become "), "be ") + " " + what
		}
		return goal(what)
	case kindPlan:
		what, long := cutClause(after)
		if long {
			return nil, extract.DropTooLong
		}
		if v := g(1); v != "" {
			what = strings.TrimSpace(v + " " + what) // "looking forward to going to business school"
		}
		return plan(what)
	case kindOwn:
		v := strings.TrimSpace(g(1) + " " + g(2))
		if ws := strings.Fields(v); len(ws) == 1 && genericWorkplaces[ws[0]] {
			v = "own " + v // "I run my own business"
		}
		return []extract.Memory{fact("works_at", v)}, ""
	case kindConsider:
		// What the user is thinking of doing, when it is something to do:
		// "changing jobs", "going hiking"; not "where to travel" or "whether to".
		what, long := cutClause(after)
		if long {
			return nil, extract.DropTooLong
		}
		first, _ := firstWord(what+" ", 0)
		if !strings.HasSuffix(first, "ing") || len(first) < 5 || first == "nothing" || first == "something" || first == "everything" || first == "anything" {
			return nil, extract.DropInvalidValue
		}
		return plan(what)
	case kindHobby:
		return hobby(rest, loc, after)
	case kindFamilyHave, kindPetHave:
		ms, reason := have(k, g(1), g(2), g(3), after)
		if len(ms) == 0 {
			return ms, reason
		}
		return haveMore(ms, after), ""
	case kindFamilyNamed, kindPetNamed:
		strict := !containsFoldASCII(rest[:loc[1]], "name") && !containsFoldASCII(rest[:loc[1]], "called")
		n := ""
		possessive := strings.HasPrefix(rest[loc[5]:loc[1]], "'") && !containsFoldASCII(rest[loc[5]:loc[1]], "name")
		if !possessive {
			n = nameAt(after, strict)
		}
		if n == "" {
			if k == kindFamilyNamed && strict {
				if possessive {
					after = " is " + after // "my dad's a plumber"
				}
				return familyFact(relations[g(2)], after)
			}
			return nil, ""
		}
		if k == kindFamilyNamed {
			return []extract.Memory{{Key: "family:" + relations[g(2)], Value: n, Category: extract.CategoryFact, Importance: 80, Confidence: 0.8}}, ""
		}
		return []extract.Memory{{Key: "pet:" + species[g(2)], Value: n, Category: extract.CategoryFact, Importance: 80, Confidence: 0.8}}, ""
	case kindHabit:
		return habit(g(1), strings.TrimSpace(strings.TrimRight(group(rest, loc, 2), ", ")), strings.Join(strings.Fields(group(rest, loc, 3)), " "))
	case kindIntro:
		if n := introName(after); n != "" {
			return []extract.Memory{{Key: "name", Value: n, Category: extract.CategoryFact, Importance: 90, Confidence: 0.8}}, ""
		}
		return nil, ""
	}
	m, reason := build(k, rest, loc, dated)
	if m.Key == "" {
		return nil, reason
	}
	if k == kindEvent {
		// "Actually I moved to Denver last month" also says where the user
		// lives now, and supersedes lives_in.
		if to, ok := strings.CutPrefix(strings.ToLower(m.Value), "moved to "); ok {
			if v, _ := place(m.Value[len(m.Value)-len(to):], !hasUpper(to)); v != "" {
				return []extract.Memory{m, fact("lives_in", v)}, ""
			}
		}
	}
	return []extract.Memory{m}, ""
}

// cutAtWords cuts s before the first of words that is not its first word.
func cutAtWords(s string, words ...string) string {
	p := 0
	for i := 0; p < len(s); i++ {
		w, next := firstWord(s, p)
		if i > 0 && slicesContains(words, w) {
			return strings.TrimSpace(s[:p])
		}
		p = next
	}
	return s
}

// clauseSubjects start a clause inside what looked like a list.
var clauseSubjects = toSet("i i'm im i've ive i'd i'll it's that's we they he she")

func slicesContainsAny(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if set[w] {
			return true
		}
	}
	return false
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// genericWorkplaces name no workplace on their own.
var genericWorkplaces = toSet("company job business firm office place boss startup corporation")

// org reads a workplace or school typed in lower case: "a bakery", "the
// local hospital". Capitalised ones are read by capWords.
func org(after string) (string, string) {
	clause, long := cutClause(after)
	if long {
		return "", extract.DropTooLong
	}
	clause = cutAtWords(trimFillers(clause), "as", "in", "on", "with", "since", "near", "during", "every", "for", "at", "from", "now", "right", "currently")
	v := stripLeading(stripTrailing(clause, placeTrailing), []string{"a", "an"})
	if t := stripLeading(v, []string{"the"}); t != v && !workStops[strings.ToLower(firstField(t))] {
		v = t // "the local supermarket"; not "the moment"
	}
	ws := strings.Fields(v)
	if len(ws) == 0 || len(ws) > 5 {
		return "", extract.DropInvalidValue
	}
	first := strings.ToLower(ws[0])
	last := strings.ToLower(ws[len(ws)-1])
	if workStops[first] || notItems[first] || unicode.IsDigit(rune(first[0])) {
		return "", extract.DropInvalidValue
	}
	if len(ws) == 1 && genericWorkplaces[first] {
		return "", extract.DropInvalidValue // "a company" says nothing
	}
	if first == "my" && (last == "company" || last == "job" || last == "office" || last == "work" || last == "workplace" || last == "place") {
		return "", extract.DropInvalidValue // "my current company" says nothing
	}
	return v, ""
}

// work builds "I work at Google", "I work for a bakery", "I work as a nurse"
// and "I work in marketing".
func work(prep, after string) ([]extract.Memory, string) {
	if w, _ := firstWord(after+" ", 0); (prep == "from" || prep == "at") && (w == "home" || w == "remotely") {
		return []extract.Memory{fact("works_at", "home")}, "" // "I work from home"
	}
	switch prep {
	case "from":
		return nil, extract.DropInvalidValue
	case "by", "with":
		prep = "at"
	case "as":
		clause, long := cutClause(after)
		if long {
			return nil, extract.DropTooLong
		}
		v := strings.ToLower(stripLeading(cutAtWords(trimFillers(clause), "at", "for", "in", "since", "now"), []string{"a", "an"}))
		if ws := strings.Fields(v); len(ws) == 0 || len(ws) > 4 || notItems[ws[0]] {
			return nil, extract.DropInvalidValue
		}
		return []extract.Memory{fact("occupation", v)}, ""
	case "in":
		w, _ := firstWord(after, 0)
		switch {
		case w == "a" || w == "an":
		case acronym(firstField(after)):
			// "I work in IT", "I work in HR": a field.
			return []extract.Memory{fact("occupation", strings.TrimRight(firstField(after), ".,!?"))}, ""
		case hasUpper(firstField(after)):
			return nil, extract.DropInvalidValue // "I work in Seattle": a place, or a company?
		default:
			clause, _ := cutClause(after)
			v := strings.ToLower(stripTrailing(cutAtWords(trimFillers(clause), "at", "for", "since", "as"), placeTrailing))
			if t, ok := strings.CutPrefix(v, "the "); ok && fieldWords[lastWord(t)] && strings.Contains(t, " ") {
				v = t // "the insurance business"
			}
			if ws := strings.Fields(v); len(ws) == 0 || len(ws) > 3 || workStops[ws[0]] || notItems[ws[0]] || placeStops[ws[0]] {
				return nil, extract.DropInvalidValue
			}
			return []extract.Memory{fact("occupation", v)}, ""
		}
	}
	if v := capWords(after, 5); v != "" {
		return []extract.Memory{fact("works_at", v)}, ""
	}
	v, reason := org(after)
	if v == "" {
		return nil, reason
	}
	return []extract.Memory{fact("works_at", v)}, ""
}

// acronym reports whether w is two to four capitals ("IT", "HR", "PR"),
// punctuation after it aside.
func acronym(w string) bool {
	w = strings.TrimRight(w, ".,!?;:")
	if len(w) < 2 || len(w) > 4 {
		return false
	}
	for _, r := range w {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// fieldWords end a line of work: "the insurance business".
var fieldWords = toSet("business industry field sector trade department world")

func lastWord(s string) string {
	ws := strings.Fields(s)
	if len(ws) == 0 {
		return ""
	}
	return ws[len(ws)-1]
}

func firstField(s string) string {
	if f := strings.Fields(s[:min(len(s), 64)]); len(f) > 0 {
		return f[0]
	}
	return ""
}

// occupationFollowers may follow an occupation: "I'm a nurse at St Mary's",
// "I'm a teacher and I love it".
var occupationFollowers = toSet("at for in and but by so who from with since now currently here too lol haha by the that as living during on of over to part-time full-time fulltime parttime there myself which when while because though although just actually professionally until till near around studying majoring working")

// occupation builds "I'm a software engineer" (mods "software", occ
// "engineer"), and the workplace or school "at" names.
func occupation(mods, occ, after string) ([]extract.Memory, string) {
	for _, m := range strings.Fields(mods) {
		if selfJudgements[m] || personWords[m] || m == "of" {
			return nil, extract.DropInvalidValue // "I'm a terrible cook" is a judgement
		}
	}
	if occ == "" {
		return nil, extract.DropInvalidValue
	}
	trimmed := strings.TrimLeft(after, " ")
	if occ == "volunteer" && mods == "" {
		// "I'm a volunteer at the homeless shelter": what one does, not a job.
		if w, _ := firstWord(trimmed+" ", 0); w == "at" || w == "with" || w == "for" || w == "in" {
			if clause, long := cutClause(trimmed); !long && len(strings.Fields(clause)) <= 8 {
				return []extract.Memory{{Key: "hobby:volunteering", Value: "volunteering " + clause, Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7}}, ""
			}
		}
	}
	next, nextAt := firstWord(trimmed, 0)
	if trimmed != "" && next != "" && unicode.IsLetter(rune(trimmed[0])) && !occupationFollowers[next] {
		return nil, extract.DropInvalidValue // "I'm a nurse practitioner": an occupation the rules do not know
	}
	v := strings.TrimSpace(mods + " " + occ)
	out := []extract.Memory{fact("occupation", v)}
	if next == "at" || next == "for" {
		if place := capWords(trimmed[min(nextAt, len(trimmed)):], 5); place != "" {
			key := "works_at"
			if occ == "student" {
				key = "studies_at"
			}
			out = append(out, fact(key, place))
		}
	}
	return out, ""
}

// maxGoalWords bounds a goal or plan: a longer one is a sentence.
const maxGoalWords = 10

// goalWords cleans what a goal or plan is: fillers, dates and trailing
// time words out; "" when it is no goal.
func goalWords(what string) (string, string) {
	v := stripTrailing(withoutDates(trimFillers(tidy(what))), eventTrailing)
	v = stripTrailing(v, prefTrailing)
	ws := strings.Fields(v)
	switch {
	case len(ws) == 0 || notItems[strings.ToLower(ws[0])] || notPlans[strings.ToLower(ws[0])] || !hasAlnum(v):
		return "", extract.DropInvalidValue
	case len(ws) > maxGoalWords || utf8.RuneCountInString(v) > extract.MaxValueRunes:
		return "", extract.DropTooLong
	}
	for _, w := range lowerWords(v) {
		if aboutAssistant[w] {
			return "", extract.DropNotAboutUser
		}
		if w == "him" || w == "her" || w == "them" {
			return "", extract.DropAboutPerson
		}
	}
	return v, ""
}

// goalKeyWords is the slug of v cut before its first qualifier: "go watch a
// movie with some friends" is go_watch_movie.
func goalKeyWords(v string) string {
	ws := strings.Split(slug(v, articles), "_")
	// "go on a trip to Mexico" is trip_to_mexico.
	if len(ws) > 2 && (ws[0] == "go" || ws[0] == "going") && (ws[1] == "on" || ws[1] == "to" || ws[1] == "for") {
		ws = ws[2:]
	}
	// A qualifier right after the first word ("stay in Spain") is kept.
	for i := 2; i < len(ws); i++ {
		if qualifiers[ws[i]] {
			ws = ws[:i]
			break
		}
	}
	return strings.Join(ws, "_")
}

func goal(what string) ([]extract.Memory, string) {
	v, reason := goalWords(what)
	if v == "" {
		return nil, reason
	}
	key, ok := extract.CanonicalKey("goal:" + goalKeyWords(v))
	if !ok {
		return nil, extract.DropInvalidValue
	}
	return []extract.Memory{{Key: key, Value: v, Category: extract.CategoryFact, Importance: 75, Confidence: 0.7}}, ""
}

func plan(what string) ([]extract.Memory, string) {
	v, reason := goalWords(what)
	if v == "" {
		return nil, reason
	}
	key, ok := extract.CanonicalKey("plan:" + goalKeyWords(v))
	if !ok {
		return nil, extract.DropInvalidValue
	}
	return []extract.Memory{{Key: key, Value: v, Category: extract.CategoryEvent, Importance: 60, Confidence: 0.6}}, ""
}

var (
	hobbyTrailing = []string{"recently", "lately", "these days", "a lot", "now", "right now", "again", "more", "too", "as well", "also", "for a while"}
	// hobbyFrequency may follow "I go hiking".
	hobbyFrequency = toSet("every on most at twice once regularly often sometimes usually with in a almost whenever when")
)

// hobby builds the ongoing activities: "I've been learning guitar", "I'm
// learning Spanish", "I started knitting", "I play tennis", "I go hiking
// every weekend".
func hobby(rest string, loc []int, after string) ([]extract.Memory, string) {
	ms, reason := hobbyOf(rest, loc, after)
	if len(ms) == 0 && group(rest, loc, 4) != "" {
		// "I watch the Super Bowl with my uncles every year": no hobby of
		// its own, but a habit.
		if m := habitTailRe.FindStringSubmatch(strings.TrimLeft(after, " ")); m != nil {
			if hs, _ := habit(strings.ToLower(strings.Fields(group(rest, loc, 4))[0]), strings.TrimSpace(strings.TrimRight(m[1], ", ")), strings.Join(strings.Fields(m[2]), " ")); len(hs) > 0 {
				return hs, ""
			}
		}
	}
	return ms, reason
}

// habitTailRe is what follows a verb in a habit: its object, then how often.
var habitTailRe = regexp.MustCompile(`(?i)^((?:[\p{L}\p{N}'\-]+,?\s+){1,8}?)(` + habitFrequency + `)\b`)

// hobbyOf is hobby without the fallback to a habit.
func hobbyOf(rest string, loc []int, after string) ([]extract.Memory, string) {
	if n := group(rest, loc, 6); n != "" {
		return collection(n, after)
	}
	if group(rest, loc, 9) != "" {
		// "fluent in English, Spanish and French": languages spoken.
		vs, long := items(after)
		if long {
			return nil, extract.DropTooLong
		}
		var out []extract.Memory
		for _, v := range vs {
			if v = tidy(v); languages[strings.ToLower(v)] {
				out = append(out, extract.Memory{Key: "hobby:" + strings.ToLower(v), Value: "speaking " + v, Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7})
			}
		}
		if len(out) == 0 {
			return nil, extract.DropInvalidValue
		}
		return out, ""
	}
	if doer := strings.ToLower(group(rest, loc, 8)); doer != "" {
		// "I'm an avid kayaker": the activity of the one who does it.
		if strings.EqualFold(group(rest, loc, 7), "professional") {
			return []extract.Memory{fact("occupation", "professional "+doer)}, ""
		}
		if next, _ := firstWord(strings.TrimLeft(after, " ")+" ", 0); next != "" && !occupationFollowers[next] {
			return nil, extract.DropInvalidValue // "I'm a runner up"
		}
		act := hobbyDoers[doer]
		return []extract.Memory{{Key: "hobby:" + strings.ReplaceAll(act, " ", "_"), Value: act, Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7}}, ""
	}
	alt, verb := 0, ""
	for i := 1; i <= 5; i++ {
		if v := group(rest, loc, i); v != "" {
			alt, verb = i, strings.ToLower(strings.Join(strings.Fields(v), " "))
			break
		}
	}
	present := ""
	if alt == 4 {
		present = strings.Fields(verb)[0]
		verb = gerund(verb)
	}
	base := strings.Fields(verb)[0]
	if i := strings.Index(strings.ToLower(after), " for a living"); i >= 0 && alt == 4 {
		// "I walk dogs for a living", "I play tennis for a living": work.
		if obj := strings.TrimSpace(after[:i]); obj != "" && len(strings.Fields(obj)) <= 4 {
			return []extract.Memory{fact("occupation", verb+" "+strings.ToLower(obj))}, ""
		}
	}
	// "a lot of Call of Duty" is Call of Duty.
	after = stripLeading(strings.TrimLeft(after, " "), []string{"a lot of", "lots of", "a bunch of", "plenty of", "tons of", "all kinds of", "all sorts of", "all types of", "different kinds of", "different types of", "different", "many"})
	if present == "teach" {
		if m, ok := teaches(after); ok {
			return []extract.Memory{m}, ""
		}
	}
	objs, long := items(after)
	if long {
		return nil, extract.DropTooLong
	}
	objs, _ = capList(objs)
	if len(objs) == 0 {
		objs = []string{""}
	}
	var out []extract.Memory
	reason := ""
	for _, obj := range objs {
		obj = stripTrailing(trimFillers(tidy(obj)), hobbyTrailing)
		for _, t := range hobbyTrailing {
			if strings.EqualFold(obj, t) {
				obj = ""
			}
		}
		first, _ := firstWord(stripLeading(obj, []string{"how to", "to"})+" ", 0)
		qualified := qualifiers[first] || hobbyFrequency[first]
		ws := lowerWords(obj)
		team := (first == "on" || first == "for" || first == "in") && len(ws) > 2 && teamWords[ws[len(ws)-1]]
		switch {
		case team:
			// "I play on the soccer team": the team is the hobby.
			qualified = false
		case (present == "compete" || present == "perform") && first == "in" && len(ws) > 1:
			// "I compete in dog agility classes"
			qualified, team = false, true
		case habitVerbs[present] && strings.HasPrefix(strings.ToLower(obj), "to "):
			reason = firstNonEmpty(reason, extract.DropInvalidValue) // "I walk to school"
			continue
		case habitVerbs[present] && (obj == "" || qualified || first == "to" || first == "up" || first == "out" || first == "about" || first == "back" || first == "over" || first == "off" || first == "into"):
			reason = firstNonEmpty(reason, extract.DropInvalidValue) // "I speak to my mom", "I grow up fast"
			continue
		case present == "take" && !lessonWords[headEnd(ws)]:
			reason = firstNonEmpty(reason, extract.DropInvalidValue) // "I take the bus" is no hobby; "I take dance lessons" is
			continue
		case habitVerbs[present] || present == "read" || present == "watch" || present == "write" || present == "cook":
			// "I read an article", "I watched the movie": one thing, and a
			// past tense spelt as the present; a habit has a kind of thing
			// ("I read mysteries", "I grow roses").
			if w, _ := firstWord(obj+" ", 0); specificWords[w] {
				reason = firstNonEmpty(reason, extract.DropInvalidValue)
				continue
			}
			if r, _ := utf8.DecodeRuneInString(obj); len(objs) > 1 && obj != objs[0] && !unicode.IsUpper(r) {
				continue // "I read the textbook, watch videos and …": the list is of verbs; "Seinfeld, Frasier and …" of titles
			}
		}
		switch {
		case team:
		case obj == "" && hobbyNeedsObject[base]:
			reason = firstNonEmpty(reason, extract.DropInvalidValue)
			continue
		case obj != "" && !qualified && (notObjects[first] || notItems[first] || first == "care") && !strings.HasPrefix(strings.ToLower(obj), "my own "):
			reason = firstNonEmpty(reason, extract.DropInvalidValue)
			continue
		case qualified && hobbyNeedsObject[base]:
			reason = firstNonEmpty(reason, extract.DropInvalidValue)
			continue
		case alt == 5 && obj != "" && !qualified:
			reason = firstNonEmpty(reason, extract.DropInvalidValue) // "I go hiking tomorrow" is no habit
			continue
		case (alt == 4 || alt == 3) && base == "running" && obj != "" && !qualified:
			reason = firstNonEmpty(reason, extract.DropInvalidValue) // "I run a small business"
			continue
		case obj != "" && personItem(obj) && !qualified:
			reason = firstNonEmpty(reason, extract.DropAboutPerson)
			continue
		}
		v := strings.TrimSpace(verb + " " + obj)
		if w, next := firstWord(obj+" ", 0); obj != objs[0] && (soloVerbs[w] || listVerbs[w]) && isLowerWord(w) && !qualified {
			// "I play the piano, guitar, and sing": a second verb of the
			// list, not a thing played.
			v = strings.TrimSpace(gerund(w) + " " + obj[min(next, len(obj)):])
			obj = ""
			verb = gerund(w)
		}
		tail := slug(obj, articles)
		if team {
			tail = slug(strings.Join(ws[1:], " "), articles)
		}
		if obj == "" || qualified || tail == "" || first != "" && unicode.IsDigit(rune(first[0])) || numberWords[first] > 1 {
			tail = slug(verb, nil) // "walking three miles every day" is walking
		}
		key, ok := extract.CanonicalKey("hobby:" + tail)
		if !ok || utf8.RuneCountInString(v) > extract.MaxValueRunes {
			reason = firstNonEmpty(reason, extract.DropInvalidValue)
			continue
		}
		out = append(out, extract.Memory{Key: key, Value: v, Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7})
	}
	if len(out) > 0 {
		return out, ""
	}
	return nil, reason
}

// familyJobRe reads what a family member is or does for work, after "my
// father": "is an electrician", "was a door to door salesman", "'s a
// retired nurse", "works as a plumber", "are both teachers", "served in
// the navy".
var familyJobRe = regexp.MustCompile(`(?i)^\s*(?:is|was|are|were|works\s+as|worked\s+as|used\s+to\s+be)\s+(?:(?:both|also|now|still|actually|currently)\s+)*(?:an?\s+)?((?:[\p{L}\-]+\s+){0,3}?)(` + occupations + `)s?\b`)

// familyServedRe reads a family member's service: "was in the army",
// "served in the navy".
var familyServedRe = regexp.MustCompile(`(?i)^\s*(?:is|was|are|were|served)\s+(?:(?:also|both)\s+)?in\s+the\s+(` + services + `)\b`)

// familyLivesRe reads where a family member lives: "lives in Denver".
var familyLivesRe = regexp.MustCompile(`(?i)^\s*(?:still\s+|now\s+|also\s+)?(?:lives|live)\s+(?:in|on|near)\s+`)

// familyFact builds what the user says of a family member, under the
// member's key: "my father is an electrician" is family:father_occupation,
// never the user's occupation; "my sister lives in Boston" is
// family:sister_lives_in.
func familyFact(rel, after string) ([]extract.Memory, string) {
	if rel == "" {
		return nil, ""
	}
	key := "family:" + strings.ReplaceAll(rel, " ", "_")
	if m := familyServedRe.FindStringSubmatch(after); m != nil {
		return []extract.Memory{{Key: key + "_occupation", Value: "in the " + strings.ToLower(m[1]), Category: extract.CategoryFact, Importance: 70, Confidence: 0.7}}, ""
	}
	if loc := familyJobRe.FindStringSubmatchIndex(after); loc != nil {
		mods, occ := strings.ToLower(strings.TrimSpace(after[loc[2]:loc[3]])), strings.ToLower(after[loc[4]:loc[5]])
		ms, reason := occupation(mods, occ, after[loc[1]:])
		if len(ms) == 0 {
			return nil, reason
		}
		v := strings.TrimSpace(mods + " " + strings.ToLower(after[loc[4]:loc[1]])) // "teachers" of "my parents are both teachers"
		if ms[0].Value != strings.TrimSpace(mods+" "+occ) {
			v = ms[0].Value
		}
		return []extract.Memory{{Key: key + "_occupation", Value: v, Category: extract.CategoryFact, Importance: 70, Confidence: 0.7}}, ""
	}
	if loc := familyLivesRe.FindStringIndex(after); loc != nil {
		if v, _ := place(after[loc[1]:], !hasUpper(after[loc[1]:])); v != "" {
			return []extract.Memory{{Key: key + "_lives_in", Value: v, Category: extract.CategoryFact, Importance: 70, Confidence: 0.7}}, ""
		}
	}
	return nil, ""
}

// drinks builds "I don't drink soda" (diet "no soda") and "I don't
// drink" (diet "no alcohol").
func drinks(after string) ([]extract.Memory, string) {
	clause, _ := cutClause(strings.TrimLeft(after, " "))
	w, _ := firstWord(clause+" ", 0)
	if clause == "" || joiners[w] || clauseEnds[w] || w == "anymore" || w == "either" || w == "at" || w == "much" && len(strings.Fields(clause)) == 1 {
		if w == "much" {
			return nil, extract.DropInvalidValue // "I don't drink much": how much is not a diet
		}
		return []extract.Memory{fact("diet", "no alcohol")}, ""
	}
	v, reason := preference(stripTrailing(clause, []string{"anymore", "either", "at all", "ever"}))
	if v == "" || len(strings.Fields(v)) > 3 || notObjects[w] {
		return nil, firstNonEmpty(reason, extract.DropInvalidValue)
	}
	return []extract.Memory{fact("diet", "no "+strings.ToLower(v))}, ""
}

// notHabitVerbs are verbs whose "every day" is no activity: being, having,
// wanting, feeling, and the modal and light verbs.
var notHabitVerbs = toSet("spend spent be am is are was were have has had get got go goes went need want feel think know miss hate love like wish hope try can could would should will cry worry use used make made say said tell told ask call text see saw mean let keep put come came give gave find found leave left seem look looks wake sleep don't dont do never always just")

// habit builds "I see the Rolling Stones in concert every year", "I
// donate to charity each month": an activity done again and again, keyed
// by its object. A verb of notHabitVerbs, a person or a pronoun makes none.
func habit(verb, obj, freq string) ([]extract.Memory, string) {
	if notHabitVerbs[verb] && verb != "see" && verb != "do" || strings.HasSuffix(verb, "ed") || strings.HasSuffix(verb, "ing") || strings.HasSuffix(verb, "s") && !strings.HasSuffix(verb, "ss") || obj == "" {
		return nil, ""
	}
	lw := lowerWords(obj)
	if len(lw) == 0 || notItems[lw[0]] || referenceWords[lw[0]] || personWords[lw[len(lw)-1]] || lw[0] == "to" && len(lw) < 3 {
		return nil, ""
	}
	if _, special := extract.SpecialCategory(verb + " " + obj); special {
		return nil, ""
	}
	if verbParticles[lw[0]] {
		// "I work out every day": the particle is the verb's.
		verb += " " + lw[0]
		obj = strings.TrimSpace(obj[len(lw[0]):])
		lw = lw[1:]
		if len(lw) == 0 {
			v := gerund(strings.Fields(verb)[0]) + " " + strings.Fields(verb)[1] + " " + freq
			return []extract.Memory{{Key: "hobby:" + slug(v[:strings.LastIndex(v, " "+freq)], nil), Value: v, Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7}}, ""
		}
	}
	key := obj
	if unicode.IsDigit(rune(lw[0][0])) || numberWords[lw[0]] > 1 {
		key = gerund(strings.Fields(verb)[0]) // "walk three miles every day" is walking
	} else if i := slices.IndexFunc(lw, func(w string) bool {
		return w == "in" || w == "at" || w == "with" || w == "to" || w == "for" || w == "on"
	}); i > 0 {
		key = strings.Join(lw[:i], " ") // "the Rolling Stones in concert" is keyed by the Rolling Stones
	}
	k, ok := extract.CanonicalKey("hobby:" + slug(key, articles))
	if !ok {
		return nil, ""
	}
	vs := strings.Fields(verb)
	v := strings.Join(append([]string{gerund(vs[0])}, vs[1:]...), " ") + " " + obj + " " + freq
	if utf8.RuneCountInString(v) > extract.MaxValueRunes {
		return nil, extract.DropTooLong
	}
	return []extract.Memory{{Key: k, Value: v, Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7}}, ""
}

// verbParticles complete a verb: "work out", "wake up".
var verbParticles = toSet("out up off")

// regularWords say that a place is gone to as a habit: "every week",
// "regularly", "twice a week".
var regularWords = toSet("every regularly often daily weekly twice once religiously usually always most")

// goesRegularly builds "I go to the gym regularly", "I go to the library
// every Saturday": a habit, when a word of regularWords says so.
func goesRegularly(after string) ([]extract.Memory, string) {
	clause, long := cutClause(strings.TrimLeft(after, " "))
	if long {
		return nil, ""
	}
	ws := strings.Fields(clause)
	at := slices.IndexFunc(ws, func(w string) bool { return regularWords[strings.ToLower(w)] })
	if at < 1 || at > 4 {
		return nil, ""
	}
	where := strings.Join(ws[:at], " ")
	lw := lowerWords(where)
	if lw[0] != "the" && lw[0] != "a" && lw[0] != "my" || len(lw) < 2 || personWords[lw[len(lw)-1]] {
		return nil, ""
	}
	if _, special := extract.SpecialCategory(where); special {
		return nil, "" // "church", "therapy": the special categories are not kept
	}
	key, ok := extract.CanonicalKey("hobby:" + slug(where, articles))
	if !ok {
		return nil, ""
	}
	return []extract.Memory{{Key: key, Value: "going to " + strings.Join(ws, " "), Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7}}, ""
}

// hobbyDoers are the people an activity names, with the activity: "I'm a
// skateboarder" is skateboarding.
var hobbyDoers = func() map[string]string {
	m := map[string]string{}
	for _, pair := range strings.Fields(`kayaker:kayaking skateboarder:skateboarding skater:skating runner:running jogger:jogging swimmer:swimming hiker:hiking surfer:surfing climber:climbing cyclist:cycling biker:biking knitter:knitting golfer:golfing skier:skiing snowboarder:snowboarding gardener:gardening camper:camping hunter:hunting bowler:bowling rower:rowing sailor:sailing diver:diving scuba_diver:scuba_diving birdwatcher:birdwatching bird_watcher:bird_watching backpacker:backpacking traveler:traveling traveller:travelling reader:reading bookworm:reading quilter:quilting crocheter:crocheting woodworker:woodworking fisherman:fishing angler:fishing marathoner:running triathlete:triathlons gamer:gaming cook:cooking baker:baking foodie:food dancer:dancing singer:singing painter:painting photographer:photography writer:writing collector:collecting`) {
		doer, act, _ := strings.Cut(pair, ":")
		m[strings.ReplaceAll(doer, "_", " ")] = strings.ReplaceAll(act, "_", " ")
	}
	return m
}()

// collection builds "I have over 1000 hats" and "I have a big collection
// of vinyl records" (n is "over 1000" or "a big collection"): collecting,
// keyed by what is collected, the amount in the value.
func collection(n, after string) ([]extract.Memory, string) {
	clause, long := cutClause(strings.TrimLeft(after, " "))
	if long {
		return nil, extract.DropTooLong
	}
	n = strings.Join(strings.Fields(n), " ")
	ws := strings.Fields(n)
	what, v := clause, ""
	switch lw := lowerWords(clause); {
	case !strings.EqualFold(ws[len(ws)-1], "collection"):
		// "over 1000 hats"
	case len(lw) >= 2 && lw[0] == "of":
		what = strings.TrimSpace(clause[strings.Index(strings.ToLower(clause), "of")+2:]) // "a collection of vinyl records"
	case len(ws) >= 3 && (len(lw) == 0 || occupationFollowers[lw[0]]):
		// "a hat collection": the kind of thing comes before "collection".
		what, v = strings.ToLower(ws[len(ws)-2])+"s", n
	default:
		return nil, extract.DropInvalidValue
	}
	what = cutAtWords(what, "at", "in", "from", "that", "which", "who", "and", "on", "for", "since")
	if i := strings.Index(strings.ToLower(what), " of "); i > 0 {
		if before := lowerWords(what[:i]); !containerNouns[before[len(before)-1]] {
			what = what[:i] // "hats of every colour"; "pairs of sneakers" stays
		}
	}
	lw := lowerWords(what)
	if len(lw) == 0 || len(lw) > 5 || !strings.HasSuffix(lw[len(lw)-1], "s") || timeUnits[lw[len(lw)-1]] || notItems[lw[0]] || specificWords[lw[0]] || personWords[lw[len(lw)-1]] || relations[lw[len(lw)-1]] != "" || species[lw[len(lw)-1]] != "" {
		return nil, extract.DropInvalidValue // "I have over 20 years of experience", "hundreds of friends"
	}
	switch {
	case v != "":
	case strings.EqualFold(ws[len(ws)-1], "collection"):
		v = n + " of " + what
	default:
		v = "a collection of " + n + " " + what
	}
	kw := lw
	for len(kw) > 1 && (amountWords[kw[0]] || unicode.IsDigit(rune(kw[0][0])) || containerNouns[kw[0]] || kw[0] == "of") {
		kw = kw[1:] // "over 1000 hats" is keyed by hats, "200 pairs of sneakers" by sneakers
	}
	key, ok := extract.CanonicalKey("hobby:" + slug(strings.Join(kw, " "), articles))
	if !ok {
		return nil, extract.DropInvalidValue
	}
	return []extract.Memory{{Key: key, Value: v, Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7}}, ""
}

// containerNouns count the things they are of: "pairs of sneakers".
var containerNouns = toSet("pairs pair sets set boxes box bottles bottle pieces piece jars jar copies copy kinds types sorts")

// amountWords say how many of a collection there are.
var amountWords = toSet("over more than about around nearly almost at least hundreds thousands dozens a an one hundred thousand")

// timeUnits and other measures are counted, not collected.
var timeUnits = toSet("years months weeks days hours minutes seconds times miles kilometers km pounds lbs dollars bucks euros people friends followers subscribers students employees kids children grandchildren points calories steps words pages")

// teachAt ends what is taught: "math at a high school", "yoga on weekends".
var teachAt = []string{"at", "in", "for", "to", "on", "with", "and", "but", "every", "twice", "once", "part-time", "full-time", "now", "too", "as"}

// teaches reads "I teach kindergarten", "I teach high school English",
// "I teach piano lessons" as the user's work: what one teaches is taught to
// others, most often for a living. A person ("my kids") or a pronoun is not
// what is taught.
func teaches(after string) (extract.Memory, bool) {
	clause, _ := cutClause(strings.TrimLeft(after, " "))
	if w, _ := firstWord(clause+" ", 0); w == "at" {
		return fact("occupation", "teacher"), true // "I teach at a community college"
	}
	ws := strings.Fields(cutAtWords(clause, teachAt...))
	for len(ws) > 1 && lessonWords[strings.ToLower(ws[len(ws)-1])] {
		ws = ws[:len(ws)-1] // "piano lessons" are taught by a piano teacher
	}
	lw := lowerWords(strings.Join(ws, " "))
	if len(lw) == 0 || len(lw) > 3 || specificWords[lw[0]] || notItems[lw[0]] || slicesContains(teachAt, lw[0]) || personWords[lw[len(lw)-1]] || lw[0] == "myself" || lw[0] == "people" {
		return extract.Memory{}, false
	}
	return fact("occupation", strings.Join(ws, " ")+" teacher"), true
}

// headEnd is the last word of ws before its first qualifier or frequency
// ("dance lessons once a week" is lessons), "" for none.
func headEnd(ws []string) string {
	for i := 1; i < len(ws); i++ {
		if qualifiers[ws[i]] || hobbyFrequency[ws[i]] {
			return ws[i-1]
		}
	}
	if len(ws) == 0 {
		return ""
	}
	return ws[len(ws)-1]
}

// ageFollowers may follow a bare age: "I'm 40, and …", "I'm four now".
var ageFollowers = toSet("and but so now too already this next soon lol haha")

// marriedWith reads "with two kids" after "I'm married".
var marriedWith = regexp.MustCompile(`(?i)^\s*with\s+(a|an|one|two|three|four|five|six|[1-9])\s+((?:[\p{L}\-]+\s+){0,2}?)(` + wordAlt(relations) + `|` + wordAlt(species) + `)\b`)

// self builds what the user says they are that is neither a job nor a
// name: an age ("I'm 40 years old", "I'm a 12 year old girl", "I'm in my
// thirties", "I just turned 18") and a marital status ("I'm married with
// two kids"). Nothing else after "I'm" is read here: it falls through to
// the name.
func self(rest string, loc []int, g func(int) string, after string) ([]extract.Memory, string) {
	if status := g(5); status != "" {
		if next, _ := firstWord(strings.TrimLeft(after, " ")+" ", 0); next == "to" && !containsFoldASCII(after, "to a ") && !containsFoldASCII(after, "to my ") {
			return nil, "" // "married to the job"
		}
		out := []extract.Memory{fact("family:marital_status", status)}
		if sm := marriedWith.FindStringSubmatch(after); sm != nil {
			if ms, _ := have(kindFamilyHave, strings.ToLower(sm[1]), strings.ToLower(sm[2]), strings.ToLower(sm[3]), after[len(sm[0]):]); len(ms) > 0 {
				out = append(out, ms...)
			}
		}
		return out, ""
	}
	if span := g(3); span != "" {
		return []extract.Memory{fact("age", "in my "+span)}, ""
	}
	n := firstNonEmpty(g(1), g(2), g(4))
	if n == "" {
		return nil, ""
	}
	said := strings.ToLower(rest[:loc[1]])
	trimmed := strings.TrimLeft(after, " ")
	if g(1) != "" && !strings.Contains(said, "old") {
		// A bare number is an age only where its clause ends: "I'm 40, and
		// …", not "I'm 2 hours away" or "I'm 100% sure".
		if trimmed != "" && !strings.ContainsRune(",.!;:", rune(trimmed[0])) {
			if next, _ := firstWord(trimmed+" ", 0); !ageFollowers[next] {
				return nil, ""
			}
		}
	}
	if strings.Contains(said, "turning") {
		return nil, "" // a birthday to come, not an age
	}
	v := n + " years old"
	if n == "one" || n == "1" {
		v = n + " year old"
	}
	return []extract.Memory{fact("age", v)}, ""
}

// petFollowers may follow "I have a dog".
var petFollowers = toSet("named called and who that which at too as")

// have builds "I have a younger sister named Maya" and "I have two cats".
func have(k kind, count, mods, what, after string) ([]extract.Memory, string) {
	if strings.HasPrefix(after, "'") {
		return nil, extract.DropInvalidValue
	}
	trimmed := strings.TrimLeft(after, " ")
	next, nextAt := firstWord(trimmed, 0)
	var n string
	switch {
	case strings.HasPrefix(trimmed, ","):
		n = nameAt(strings.TrimLeft(trimmed[1:], " "), true)
	case next == "named" || next == "called":
		n = nameAt(trimmed[min(nextAt, len(trimmed)):], false)
	case k == kindPetHave && trimmed != "" && unicode.IsLetter(rune(trimmed[0])) && !petFollowers[next]:
		return nil, extract.DropInvalidValue // "I have a fish tank"
	}
	key, v := "family:"+relations[what], n
	if k == kindPetHave {
		key = "pet:" + species[what]
	}
	if v == "" {
		v = strings.Join(strings.Fields(count+" "+mods+" "+what), " ")
	}
	return []extract.Memory{{Key: key, Value: v, Category: extract.CategoryFact, Importance: 80, Confidence: 0.8}}, ""
}

// moreHaveRe reads the next item of "I have one brother and three
// sisters", "I have a wife, two kids and a dog".
var moreHaveRe = regexp.MustCompile(`(?i)^\s*(?:,\s*(?:and\s+)?|\s+and\s+)(a|an|one|two|three|four|five|six|[1-9])\s+((?:[\p{L}\-]+\s+){0,2}?)(` + wordAlt(relations) + `|` + wordAlt(species) + `)\b`)

// haveNameRe is the name of the item before: "named Maya", ", Maya".
// (No (?i): \p{Lu} must mean a capital.)
var haveNameRe = regexp.MustCompile(`^\s*(?:(?:[Nn]amed|[Cc]alled)\s+\p{Lu}[\p{L}'\-]*|,\s*\p{Lu}[\p{L}'\-]*)`)

// haveMore adds the further relatives and pets of a "have" list to ms; a
// second of one key joins the first ("a golden retriever and a poodle").
func haveMore(ms []extract.Memory, after string) []extract.Memory {
	rest := after
	// The first item's own words ("named Maya") come before the next.
	if loc := haveNameRe.FindStringIndex(rest); loc != nil {
		rest = rest[loc[1]:]
	}
	for range maxListItems {
		sm := moreHaveRe.FindStringSubmatchIndex(rest)
		if sm == nil {
			break
		}
		count, mods, what := strings.ToLower(rest[sm[2]:sm[3]]), rest[sm[4]:sm[5]], strings.ToLower(rest[sm[6]:sm[7]])
		kind := kindFamilyHave
		if _, ok := relations[what]; !ok {
			kind = kindPetHave
		}
		more, _ := have(kind, count, mods, what, rest[sm[1]:])
		rest = rest[sm[1]:]
		for _, m := range more {
			if i := slices.IndexFunc(ms, func(x extract.Memory) bool { return x.Key == m.Key }); i >= 0 {
				ms[i].Value += " and " + m.Value
				continue
			}
			ms = append(ms, m)
		}
	}
	return ms
}

// nameAt reads the name at the start of s ("Maya", "Maya and Lea"):
// strict names must be capitalised as typed and not be a common word.
func nameAt(s string, strict bool) string {
	s = strings.TrimLeft(s, " ")
	if strict {
		r, _ := utf8.DecodeRuneInString(s)
		if !unicode.IsUpper(r) {
			return ""
		}
		w := strings.TrimRightFunc(firstField(s), func(r rune) bool { return unicode.IsPunct(r) })
		w = strings.TrimSuffix(w, "'s")
		if introStops[strings.ToLower(w)] || feelingLexicon[strings.ToLower(w)] || w == strings.ToUpper(w) {
			return ""
		}
	}
	n := parseName(sameCaseWords(s))
	if n == "" {
		return ""
	}
	n = strings.TrimSuffix(n, "'s")
	if rest := s[min(len(s), strings.Index(s+" ", " ")+1):]; len(strings.Fields(n)) == 1 && strings.HasPrefix(strings.ToLower(rest), "and ") {
		r, _ := utf8.DecodeRuneInString(rest[4:])
		if second := parseName(rest[4:]); second != "" && unicode.IsUpper(r) && !introStops[strings.ToLower(second)] {
			n += " and " + strings.Fields(second)[0]
		}
	}
	return n
}

// sameCaseWords is the start of s that a name may take: a name typed with
// a capital goes on only over capitalised words ("Elena lives in Lisbon"
// is Elena), one typed in lower case is one word.
func sameCaseWords(s string) string {
	ws := strings.Fields(s[:min(len(s), 200)])
	if len(ws) == 0 {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(ws[0])
	n := 1
	for unicode.IsUpper(r) && n < len(ws) {
		if r2, _ := utf8.DecodeRuneInString(ws[n]); !unicode.IsUpper(r2) {
			break
		}
		n++
	}
	return strings.Join(ws[:n], " ")
}

// introFollowers may follow the name of "I'm Priya".
var introFollowers = toSet("and but btw by from here nice lol haha too hi hello hey")

// introName reads "I'm Priya": one to three capitalised name-shaped words
// that are no state, nationality or common word, ending the clause or
// followed by "and", "from", "nice to meet you", …
func introName(after string) string {
	ws := strings.Fields(after[:min(len(after), 120)])
	var out []string
	i := 0
	for ; i < len(ws) && len(out) < 3; i++ {
		w := ws[i]
		t := strings.TrimRightFunc(w, func(r rune) bool { return unicode.IsPunct(r) && r != '\'' && r != '-' })
		end := t != w
		r, _ := utf8.DecodeRuneInString(t)
		lw := strings.ToLower(t)
		if !unicode.IsUpper(r) || !nameShaped(t) || utf8.RuneCountInString(t) < 2 || t == strings.ToUpper(t) ||
			introStops[lw] || feelingLexicon[lw] || nameReject[lw] || nameStops[lw] || commonSuffix(lw) {
			break
		}
		out = append(out, t)
		if end {
			i++
			if len(out) > 0 {
				return strings.Join(out, " ")
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	if i < len(ws) {
		next, _ := firstWord(ws[i], 0)
		if !introFollowers[next] {
			return ""
		}
	}
	return strings.Join(out, " ")
}

// commonSuffix reports whether w ends like an adjective or a verb form
// rather than a name: "Exhausted", "Starving", "Hopeless".
func commonSuffix(w string) bool {
	if utf8.RuneCountInString(w) < 6 {
		return false
	}
	for _, suf := range []string{"ing", "ful", "ous", "less", "able", "ible", "ated", "ized"} {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// notSubjects open what one is "studying" that is no subject: "for my
// exam", "abroad", "hard".
var notSubjects = toSet("for to a an the hard abroad at with now all right tonight today this that it up so because really more late in on my your some lots")

// major builds "I'm majoring in biology", "I'm studying psychology" and
// "I'm a history major": the user is a student of a subject, an occupation.
func major(after string) ([]extract.Memory, string) {
	clause, long := cutClause(after)
	if long {
		return nil, extract.DropTooLong
	}
	clause = cutAtWords(trimFillers(clause), "at", "in", "for", "since", "now", "and", "with", "because", "right", "this", "next", "last")
	ws := strings.Fields(stripTrailing(clause, placeTrailing))
	if len(ws) == 0 || len(ws) > 3 || notSubjects[strings.ToLower(ws[0])] || notItems[strings.ToLower(ws[0])] {
		return nil, extract.DropInvalidValue
	}
	v := strings.Join(ws, " ")
	if languages[strings.ToLower(v)] {
		// "I'm studying Spanish": a language learnt, not a course of study.
		return []extract.Memory{{Key: "hobby:" + slug(v, nil), Value: "studying " + v, Category: extract.CategoryPreference, Importance: 70, Confidence: 0.7}}, ""
	}
	return []extract.Memory{fact("occupation", v+" student")}, ""
}

// languages are what one studies as a hobby rather than a degree.
var languages = toSet("spanish french german italian japanese chinese mandarin cantonese korean portuguese russian arabic english latin greek hindi dutch swedish turkish hebrew polish")

// makesMeRe reads "painting makes me happy" over a whole clause.
var makesMeRe = regexp.MustCompile(`(?i)^(.+?)\s+(?:(?:always|really|just|truly|also)\s+)?makes?\s+me\s+(?:(?:so|really|very|feel|truly)\s+)*(?:happy|smile|laugh|calm|relaxed|good|joyful|feel\s+alive)$`)

// matchMakesMe reads "X makes me happy" as a like of X.
func matchMakesMe(rest string) ([]extract.Memory, bool, string) {
	clause, long := cutClause(rest)
	if long || len(clause) > reverseWindow {
		return nil, false, ""
	}
	sm := makesMeRe.FindStringSubmatch(clause)
	if sm == nil {
		return nil, false, ""
	}
	subj := sm[1]
	if w, next := firstWord(subj, 0); strings.HasSuffix(w, "ing") {
		subj = w + subj[min(len(subj), next-1):] // "Painting makes me happy": no name
		if next >= len(sm[1]) {
			subj = w
		}
	}
	ms, reason := prefMemories(subj, "likes:")
	return ms, true, reason
}

// appositionRe reads "Biscuit, my hamster" at a clause start.
var appositionRe = regexp.MustCompile(`^(\p{Lu}[\p{L}'\-]*(?:\s+\p{Lu}[\p{L}'\-]*)?),\s+[Mm]y\s+(?:(?:little|baby|big|older|younger|new|old|sweet)\s+)?([\p{L}]+)\b`)

// matchApposition reads a pet or relative named before it is introduced:
// "Biscuit, my hamster, is so cute".
func matchApposition(rest string) ([]extract.Memory, bool, string) {
	sm := appositionRe.FindStringSubmatch(rest[:min(len(rest), prefixWindow)])
	if sm == nil {
		return nil, false, ""
	}
	n := nameAt(sm[1], true)
	if lw := strings.ToLower(n); n == "" || interjections[lw] || strings.HasSuffix(lw, "ly") || commonSuffix(lw) {
		return nil, false, "" // "Sadly, my dog died"
	}
	w := strings.ToLower(sm[2])
	if sp, ok := species[w]; ok {
		return []extract.Memory{{Key: "pet:" + sp, Value: n, Category: extract.CategoryFact, Importance: 80, Confidence: 0.8}}, true, ""
	}
	if r, ok := relations[w]; ok {
		return []extract.Memory{{Key: "family:" + r, Value: n, Category: extract.CategoryFact, Importance: 80, Confidence: 0.8}}, true, ""
	}
	return nil, false, ""
}
