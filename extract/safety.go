package extract

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/prompts"
)

// Risk classes RiskOf recognises, in the order a tie of severity is broken.
const (
	RiskSuicidal     = "suicidal"     // a wish to die, suicidal ideation or plans
	RiskSelfHarm     = "self_harm"    // hurting oneself on purpose
	RiskAbuse        = "abuse"        // being hit, abused, assaulted or threatened by someone
	RiskHopelessness = "hopelessness" // no point, nothing to live for, can't go on
	RiskDistress     = "distress"     // severe distress: "I hate my life", "I hate myself"
)

// Risk severities.
const (
	SeverityHigh   = "high"
	SeverityMedium = "medium"
	SeverityLow    = "low"
)

// Risk actors: whose words a risk statement is.
const (
	ActorUser  = "user"
	ActorOther = "other"
)

// RiskClasses lists the classes in tie-break order.
var RiskClasses = []string{RiskSuicidal, RiskSelfHarm, RiskAbuse, RiskHopelessness, RiskDistress}

// RiskFinding is what RiskOf found in a text: never the text itself.
type RiskFinding struct {
	Class    string
	Severity string
	Actor    string
}

// riskPattern is one phrasing of a class. not, when set, is matched against
// the text right after the phrasing and cancels it (idioms, accidents,
// titles: "want to die of embarrassment", "cut myself shaving"). person
// requires the nearest subject before the phrasing to be a person ("my
// husband hits me", not "the ball hit me"); first requires the phrasing to
// carry the speaker itself ("i'm worthless", not "this phone is worthless").
type riskPattern struct {
	class  string
	re     *regexp.Regexp
	not    *regexp.Regexp
	person bool
	first  bool
}

func rp(class, re, not string) riskPattern {
	p := riskPattern{class: class, re: regexp.MustCompile(re)}
	if not != "" {
		p.not = regexp.MustCompile(`^\s*(?:` + not + `)`)
	}
	return p
}

const (
	reflexive  = `(?:myself|himself|herself|themselves|themself|yourself)`
	possessive = `(?:my|his|her|their)`
	// accident is what follows "cut myself" when it was not on purpose.
	accident = `on (?:a|an|the|my|some|broken)\b|while\b|when i (?:fell|slipped|tripped)|shaving|cooking|chopping|slicing|playing|at\b|during\b|in the (?:kitchen|garden|gym)|by accident|accidentally|lifting|running|skiing|falling|opening|trying to|doing|with (?:a|the) (?:can|paper|tin)|for (?:forgetting|being|not|that|this|missing|saying|doing)|laughing|over\b|to (?:finish|get|make|meet|keep up|pay|please|impress|death)`
)

var riskPatterns = []riskPattern{
	// A wish to die, suicidal ideation or plans.
	rp(RiskSuicidal, `\b(?:want|wants|wanted|wanna|wish|wishes|wished|going|gonna|plan|planning|ready|trying|tried)\s+(?:to\s+)?(?:just\s+)?(?:die|be dead)\b`,
		`of\b|from\b|laughing|for\b|inside|on the inside|a little|my hair|my\b|your\b|it\b|the\b|them\b|in (?:a|my) (?:game|dream)`),
	rp(RiskSuicidal, `\bkill(?:ing|ed)?\s+`+reflexive+`\b`, accident),
	rp(RiskSuicidal, `\b(?:end|ending|take|taking|took)\s+`+possessive+`\s+(?:own\s+)?life\b`, ""),
	rp(RiskSuicidal, `\bend(?:ing)?\s+it\s+all\b`, ""),
	rp(RiskSuicidal, `\bsuicid(?:e|al)\b`, `squad|bomber|doors|prevention (?:training|course|charity)`),
	rp(RiskSuicidal, `\bwish(?:es|ed)?\s+(?:i|he|she|they)(?:'d|\s+had|\s+was|\s+were|\s+would)?\s+(?:never\s+been\s+born|not\s+been\s+born|dead|die|not\s+wake\s+up)\b`, ""),
	rp(RiskSuicidal, `\b(?:don't|do\s+not|doesn't|does\s+not|no\s+longer|never)\s+wants?\s+to\s+(?:live|be\s+alive|exist|wake\s+up|be\s+here\s+any\s?more)\b`, ""),
	rp(RiskSuicidal, `\bbetter\s+off\s+(?:dead|without\s+me|if\s+i\s+(?:was|were)(?:n't|\s+not)?\s+(?:gone|here|around))\b`, ""),
	rp(RiskSuicidal, `\bhope\s+i\s+(?:don't|never)\s+wake\s+up\b`, ""),
	rp(RiskSuicidal, `\b(?:kms|unalive\s+myself)\b`, ""),

	// Self-harm.
	rp(RiskSelfHarm, `\b(?:cut|cuts|cutting|burn|burns|burned|burnt|burning|hurt|hurts|hurting|harm|harms|harmed|harming|scratch|scratching|starve|starving|punish|punishing)\s+`+reflexive+`\b`, accident),
	rp(RiskSelfHarm, `\bself[- ]?(?:harm|injur)\w*`, ""),
	rp(RiskSelfHarm, `\b(?:cut|cutting|burn|burning|burned)\s+(?:my|his|her)\s+(?:wrists?|arms?|thighs?|legs?|skin)\b`, accident),
	rp(RiskSelfHarm, `\bcutting\s+again\b`, ""),

	// Abuse: hurt by someone.
	{class: RiskAbuse, person: true, re: regexp.MustCompile(`\b(?:hits|hit|hitting|beats|beat|beating|kicks|kicked|kicking|slaps|slapped|slapping|punches|punched|punching|chokes|choked|choking|strangles|strangled|rapes|raped|abuses|abused|abusing|molests|molested|burns|burned)\s+me\b`),
		not: regexp.MustCompile(`^\s*(?:up\b|with (?:a|the) (?:ball|pillow|snowball)|in (?:a|the) (?:game|match))`)},
	{class: RiskAbuse, person: true, re: regexp.MustCompile(`\b(?:threatens|threatened|threatening|going|gonna|will|would|said\s+(?:he|she|they)'?d?)\s+to\s+(?:kill|hurt|hit|beat)\s+me\b`)},
	rp(RiskAbuse, `\b(?:i'm|i\s+am|i\s+was|i've\s+been|i\s+have\s+been|i\s+got|i\s+get|i\s+keep\s+getting)\s+(?:being\s+|repeatedly\s+|sexually\s+)?(?:abused|raped|assaulted|molested|beaten(?:\s+up)?|groped|trafficked|strangled)\b`,
		`by (?:a|the) (?:car|ball|bus|truck|bike|train|wave|branch|door)|at (?:chess|cards|tennis|poker)`),
	rp(RiskAbuse, `\bdomestic\s+(?:violence|abuse)\b`, ""),
	rp(RiskAbuse, `\b(?:afraid|scared|terrified)\s+(?:of\s+(?:my|his|her)\s+(?:husband|wife|partner|boyfriend|girlfriend|dad|father|mom|mum|mother|stepdad|stepfather|stepmom|stepmother|ex)\b|(?:he|she|they)(?:'ll|\s+will|\s+is\s+going\s+to|\s+might|'s\s+going\s+to)\s+(?:hurt|kill|hit|beat)\s+me\b)`,
		`(?:'s|s)?\s*(?:driving|cooking|dog|cat|snake|spider)`),

	// Hopelessness.
	rp(RiskHopelessness, `\bhopeless(?:ness)?\b`, `at\b|with\b|when it comes|romantic|case|cook|at math`),
	rp(RiskHopelessness, `\bno\s+point\s+(?:in\s+|to\s+)?(?:anything|living|life|trying\s+any\s?more|going\s+on|being\s+alive|carrying\s+on|it\s+all|getting\s+up|any\s?more)\b`, ""),
	rp(RiskHopelessness, `\bwhat'?s\s+the\s+point\s+(?:of\s+|in\s+)?(?:anything|living|life|going\s+on|being\s+alive|trying\s+any\s?more|any\s+of\s+it|it\s+all|me)\b`, ""),
	rp(RiskHopelessness, `\b(?:nothing|no\s+one|nobody)\s+(?:left\s+)?to\s+live\s+for\b|\bno\s+reason\s+to\s+(?:live|go\s+on|keep\s+going|get\s+up|be\s+alive)\b`, ""),
	rp(RiskHopelessness, `\bcan'?t\s+(?:go\s+on|carry\s+on|keep\s+going|take\s+(?:it|this)\s+any\s?more|do\s+this\s+any\s?more|take\s+much\s+more)\b`,
		`the\b|a\b|an\b|that\b|my\b|our\b|vacation|holiday|trip|tour|stage|air|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tonight|tomorrow|with\b|to\b|without\b`),
	rp(RiskHopelessness, `\b(?:nothing|it|things|life)\s+(?:will|is\s+going\s+to|'s\s+going\s+to|'ll)\s+(?:never|not\s+ever)\s+get\s+better\b|\bnothing\s+(?:will\s+)?ever\s+gets?\s+better\b`, ""),
	{class: RiskHopelessness, first: true, re: regexp.MustCompile(`\b(?:i'm|i\s+am|i\s+feel\s+like|i'm\s+just|i\s+am\s+just)\s+(?:such\s+)?a\s+burden\b`)},
	rp(RiskHopelessness, `\bg(?:ive|iven|ave|iving)\s+up\s+on\s+(?:life|everything|myself|living)\b`, ""),
	rp(RiskHopelessness, `\bno\s+(?:hope|future)\s+(?:left|for\s+me|any\s?more)\b`, ""),

	// Severe distress.
	rp(RiskDistress, `\bhat(?:e|es|ed|ing)\s+`+possessive+`\s+(?:life|lives|existence)\b`, `choices|decisions|coach|insurance|phone|plan`),
	rp(RiskDistress, `\bhat(?:e|es|ed|ing)\s+(?:`+reflexive+`|being\s+alive|being\s+me|who\s+i\s+am|everything\s+about\s+me)\b`, `for\b`),
	{class: RiskDistress, first: true, re: regexp.MustCompile(`\b(?:i'm|i\s+am|i\s+feel|i've\s+been\s+feeling|i\s+have\s+been\s+feeling|feeling|feel)\s+(?:so\s+|completely\s+|totally\s+|really\s+|just\s+|very\s+|utterly\s+)*(?:worthless|dead\s+inside|empty\s+inside|broken\s+inside|like\s+(?:a\s+)?(?:nothing|a\s+waste\s+of\s+space))\b`)},
	rp(RiskDistress, `\bcan'?t\s+stop\s+crying\b|\bcry(?:ing)?\s+myself\s+to\s+sleep\b`, ""),
	rp(RiskDistress, `\bmy\s+life\s+is\s+(?:a\s+living\s+hell|hell|meaningless|pointless|worthless|ruined|over|falling\s+apart|a\s+nightmare)\b`, ""),
	{class: RiskDistress, first: true, re: regexp.MustCompile(`\b(?:i'm|i\s+am)\s+(?:completely\s+|totally\s+)?falling\s+apart\b`)},
	rp(RiskDistress, `\bwant\s+to\s+disappear\b`, `for\s+(?:a|the)\s+(?:day|weekend|week)|on\s+(?:a|an)\s+(?:island|holiday|vacation)`),
}

// Words the subject of a statement may be.
var (
	subjectUser    = set("i", "i'm", "i've", "i'd", "i'll", "me", "myself", "we", "we're", "we've", "us")
	subjectOther   = set("he", "she", "they", "he's", "she's", "they're", "he'd", "she'd", "they'd", "him", "them", "himself", "herself", "themselves", "his")
	subjectYou     = set("you", "you're", "you've", "you'd", "yourself", "u")
	subjectGeneric = set("people", "someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody", "one", "characters", "character")
	personNouns    = set("husband", "wife", "partner", "boyfriend", "girlfriend", "bf", "gf", "ex", "dad", "father", "mom", "mum", "mother",
		"stepdad", "stepfather", "stepmom", "stepmother", "parents", "parent", "brother", "sister", "uncle", "aunt", "grandpa", "grandfather",
		"grandma", "grandmother", "cousin", "teacher", "coach", "boss", "manager", "coworker", "co-worker", "colleague", "roommate",
		"flatmate", "neighbor", "neighbour", "friend", "friends", "classmate", "fiance", "fiancé", "fiancee", "spouse", "son", "daughter",
		"family", "guardian", "carer", "caretaker", "priest", "man", "guy", "woman", "bully", "bullies", "kids", "boys", "girls",
		"landlord", "supervisor", "mate", "bestie", "pastor", "nephew", "niece", "in-law", "in-laws", "stepbrother", "stepsister")
	thirdVerbs = set("wants", "hates", "wishes", "cuts", "burns", "hurts", "feels", "says", "kills", "harms", "takes", "ends")
	negators   = set("not", "don't", "dont", "doesn't", "didn't", "never", "won't", "wouldn't", "isn't", "aren't", "wasn't",
		"haven't", "hasn't", "stopped", "quit", "no", "can't", "cannot", "nor")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var (
	riskWords      = regexp.MustCompile(`[a-z][a-z'\-]*|[0-9]+`)
	clauseBoundary = regexp.MustCompile(`[,;:()]|\s(?:but|and|because|cause|so|though|although|yet|or)\s`)
	// titleContext before a phrasing makes it a title or lyric, not a statement.
	titleContext = regexp.MustCompile(`\b(?:song|songs|track|album|book|novel|movie|film|show|series|episode|poem|lyric|lyrics|sings|sang|singing|called|titled|named|meme|joke|quote|playlist|band)\b`)
	// speechVerb before a quote makes it reported speech.
	speechVerb = regexp.MustCompile(`\b(?:said|says|say|told\s+(?:me|him|her|them|you|my\s+\w+)|tells\s+(?:me|him|her|them|you)|texted|wrote|writes|posted|messaged|keeps\s+saying|kept\s+saying|was\s+like|goes|screamed|yelled|cried)\s*$`)
	quoted     = regexp.MustCompile(`"[^"]{1,400}"|(?:^|\s)'[^']{3,400}'(?:\s|[.,!?;:]|$)`)
	// historyMarks say a statement is about the past ("I used to cut myself").
	historyMarks = regexp.MustCompile(`\b(?:used\s+to|when\s+i\s+was\s+(?:young|younger|little|a\s+(?:kid|child|teen|teenager))|as\s+a\s+(?:kid|child|teen|teenager)|years\s+ago|in\s+the\s+past)\b`)
	contractions = strings.NewReplacer(" im ", " i'm ", " dont ", " don't ", " cant ", " can't ", " ive ", " i've ",
		" doesnt ", " doesn't ", " didnt ", " didn't ", " wouldnt ", " wouldn't ", " isnt ", " isn't ", " havent ", " haven't ", " whats ", " what's ")
)

// collapseSpaces replaces every run of \s in s with one space, as
// regexp.MustCompile(`\s+`).ReplaceAllString(s, " ") does, without the
// regexp: RE2's \s is tab, newline, form feed, carriage return and space,
// ASCII only, so no byte of a longer UTF-8 sequence is one.
func collapseSpaces(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\t', '\n', '\f', '\r', ' ':
			if !space {
				b.WriteByte(' ')
			}
			space = true
		default:
			b.WriteByte(c)
			space = false
		}
	}
	return b.String()
}

// splitRiskSentences is regexp `[.!?\n]+`'s Split(s, -1), without the regexp: the
// text between runs of . ! ? and line breaks, with an empty first or last
// one when s starts or ends with such a run.
func splitRiskSentences(s string) []string {
	stop := func(c byte) bool { return c == '.' || c == '!' || c == '?' || c == '\n' }
	var out []string
	start := 0
	for i := 0; i < len(s); {
		if !stop(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && stop(s[j]) {
			j++
		}
		out = append(out, s[start:i])
		start, i = j, j
	}
	return append(out, s[start:])
}

// mayQuote reports whether quoted can match in s: both of its forms need a
// double quote, or a single one at the start or after an RE2 space. Most
// sentences have neither, and the regexp need not run.
func mayQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			return true
		case '\'':
			if i == 0 || strings.IndexByte("\t\n\f\r ", s[i-1]) >= 0 {
				return true
			}
		}
	}
	return false
}

// replaceSpans is s with each of spans (in order, not overlapping) replaced
// by with: what ReplaceAllString does with the spans FindAllStringIndex gave.
func replaceSpans(s string, spans [][]int, with string) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(with)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// riskNorm folds text for the patterns: typographic quotes and apostrophes
// to ASCII, lower case, contractions typed without their apostrophe.
func riskNorm(text string) string {
	text = foldCase(apostrophes.Replace(strings.ToValidUTF8(text, " ")))
	text = collapseSpaces(" " + text + " ")
	text = contractions.Replace(contractions.Replace(text))
	return text
}

var severityRank = map[string]int{SeverityLow: 1, SeverityMedium: 2, SeverityHigh: 3}

func classRank(c string) int {
	for i, k := range RiskClasses {
		if k == c {
			return len(RiskClasses) - i
		}
	}
	return 0
}

// better reports whether a is a stronger finding than b.
func better(a, b RiskFinding) bool {
	if b.Class == "" {
		return true
	}
	if severityRank[a.Severity] != severityRank[b.Severity] {
		return severityRank[a.Severity] > severityRank[b.Severity]
	}
	if (a.Actor == ActorUser) != (b.Actor == ActorUser) {
		return a.Actor == ActorUser
	}
	return classRank(a.Class) > classRank(b.Class)
}

// RiskOf reports the strongest distress or crisis statement in text, a
// user's message. The conventions, chosen to be conservative:
//
//   - The user's own statements are high (suicidal, self_harm, abuse) or
//     medium (hopelessness, distress) severity. Questions count when they
//     are about the user or no one ("is it normal to want to die?"), not
//     when they ask the companion ("do you ever want to die?") or about
//     people in general ("why do people hurt themselves?").
//   - A negated wish to die or to hurt oneself ("I don't want to die", "I'm
//     not suicidal", "I would never hurt myself") and a past one ("I used
//     to cut myself") are low: a denial is still worth seeing on the
//     session, never an alert. Negated or past hopelessness and distress
//     ("I don't hate my life anymore") are no risk at all; past abuse ("I
//     was abused as a child") is medium.
//   - Reported speech about someone else ("my friend said she hates her
//     life", "my brother wants to kill himself") is a low risk with actor
//     other: a concern the user carries, not their own state.
//   - Quoted text is a title or lyric unless a speech verb introduces it
//     ("my song is "I Hate My Life"" is nothing; `she said "I want to
//     die"` is other, `I told him "I want to die"` is the user's). A
//     phrasing after song, film, book, called, lyrics… in its clause is a
//     title too.
//   - Idioms are not risks: "this traffic is killing me", "I could kill for
//     a coffee", "dying to see the movie", "I want to die of embarrassment",
//     "I cut myself shaving", "I'm hopeless at maths".
func RiskOf(text string) (RiskFinding, bool) {
	var best RiskFinding
	norm := riskNorm(text)
	for _, sent := range splitRiskSentences(norm) {
		// Quotes first: each is classified alone, then attributed.
		var quotes [][]int
		if mayQuote(sent) {
			quotes = quoted.FindAllStringIndex(sent, -1)
		}
		for _, loc := range quotes {
			inner := strings.Trim(strings.TrimSpace(sent[loc[0]:loc[1]]), `"'.,!?;: `)
			before := strings.TrimSpace(sent[:loc[0]])
			if !speechVerb.MatchString(before) {
				continue // a title, a lyric, a name
			}
			for _, f := range sentenceRisks(" " + inner + " ") {
				if f.Actor == ActorUser && nearestSubject(strings.TrimSuffix(before, speechVerb.FindString(before)), false) != ActorUser {
					f = RiskFinding{Class: f.Class, Severity: SeverityLow, Actor: ActorOther}
				}
				if better(f, best) {
					best = f
				}
			}
		}
		sent = replaceSpans(sent, quotes, " _ ")
		for _, f := range sentenceRisks(sent) {
			if better(f, best) {
				best = f
			}
		}
	}
	return best, best.Class != ""
}

// sentenceRisks lists what the patterns find in one normalised sentence.
func sentenceRisks(sent string) []RiskFinding {
	may := riskSet.mask(sent)
	if may == 0 {
		return nil // most sentences hold none of the patterns' words
	}
	var out []RiskFinding
	for i, p := range riskPatterns {
		if may&(1<<i) == 0 {
			continue // a sentence holds the words of few patterns, if any
		}
		for _, loc := range p.re.FindAllStringIndex(sent, -1) {
			if f, ok := judge(p, sent, loc[0], loc[1]); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// judge decides what one match of p in sent means.
func judge(p riskPattern, sent string, start, end int) (RiskFinding, bool) {
	match := sent[start:end]
	if p.not != nil && p.not.MatchString(sent[end:]) {
		return RiskFinding{}, false
	}
	prefix := sent[:start]
	clause := prefix
	if locs := clauseBoundary.FindAllStringIndex(prefix, -1); len(locs) > 0 {
		clause = prefix[locs[len(locs)-1][1]:]
	}
	if titleContext.MatchString(clause) {
		return RiskFinding{}, false
	}
	if strings.Contains(clause, " if ") || strings.HasPrefix(strings.TrimSpace(clause), "if ") ||
		strings.Contains(prefix, "accidentally") || strings.Contains(prefix, "by accident") {
		return RiskFinding{}, false
	}

	// Whose words: the phrasing's own pronouns, then a third-person verb,
	// then the nearest subject before it.
	actor := ""
	words := riskWords.FindAllString(match, -1)
	for _, w := range words {
		switch {
		case w == "i" || w == "my" || w == "myself" || w == "me" || w == "i'm" || w == "i'd":
			if actor == "" {
				actor = ActorUser
			}
		case subjectOther[w] || w == "her" || w == "their" || w == "themself":
			if actor == "" {
				actor = ActorOther
			}
		case w == "yourself":
			return RiskFinding{}, false
		}
	}
	if p.class == RiskAbuse && strings.HasSuffix(match, " me") {
		actor = ActorUser // "he hits me": the victim is the user, whatever the subject
	}
	subject := nearestSubject(prefix, p.person)
	switch {
	case p.person && subject != "person":
		return RiskFinding{}, false
	case p.first && actor != ActorUser:
		return RiskFinding{}, false
	case subject == "you" && actor != ActorUser:
		return RiskFinding{}, false
	case subject == "generic" && actor != ActorUser:
		return RiskFinding{}, false
	}
	if actor == "" && len(words) > 0 && thirdVerbs[words[0]] {
		actor = ActorOther
	}
	if actor == "" {
		switch subject {
		case ActorOther, "person":
			actor = ActorOther
		default:
			actor = ActorUser
		}
	}
	if actor == ActorUser && p.class != RiskAbuse && subject == ActorOther && !strings.Contains(match, "my") && !strings.Contains(match, "i") {
		actor = ActorOther
	}

	f := RiskFinding{Class: p.class, Actor: actor}
	switch p.class {
	case RiskSuicidal, RiskSelfHarm, RiskAbuse:
		f.Severity = SeverityHigh
	default:
		f.Severity = SeverityMedium
	}
	if actor == ActorOther {
		f.Severity = SeverityLow
		return f, true
	}
	negated := lastWordsNegate(clause, 3)
	history := historyMarks.MatchString(clause) || historyMarks.MatchString(sent[end:])
	switch {
	case negated && (p.class == RiskSuicidal || p.class == RiskSelfHarm):
		f.Severity = SeverityLow
	case negated:
		return RiskFinding{}, false
	case history && (p.class == RiskSuicidal || p.class == RiskSelfHarm):
		f.Severity = SeverityLow
	case history && p.class == RiskAbuse:
		f.Severity = SeverityMedium
	case history:
		return RiskFinding{}, false
	}
	return f, true
}

// nearestSubject reads the words before a phrasing backwards and names the
// first subject found: user, other, you, generic, person (a person noun, or
// he/she/they, when person is asked for) or "" for none. "it", "this" and
// "that" are skipped ("is it normal to want to die?").
func nearestSubject(prefix string, person bool) string {
	words := riskWords.FindAllString(prefix, -1)
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		switch {
		case subjectUser[w]:
			if person {
				return ""
			}
			return ActorUser
		case personNouns[w] || personNouns[strings.TrimSuffix(w, "'s")]:
			return "person"
		case subjectOther[w]:
			if person {
				return "person"
			}
			return ActorOther
		case subjectYou[w]:
			return "you"
		case subjectGeneric[w]:
			if person {
				return "person"
			}
			return "generic"
		case person && (w == "it" || w == "this" || w == "that" || w == "ball" || w == "car"):
			return ""
		}
	}
	return ""
}

// lastWordsNegate reports whether one of the last n words of clause negates
// what follows ("i don't really want to die").
func lastWordsNegate(clause string, n int) bool {
	words := riskWords.FindAllString(clause, -1)
	for i := len(words) - 1; i >= 0 && i >= len(words)-n; i-- {
		if negators[words[i]] || words[i] == "longer" {
			return true
		}
	}
	return false
}

// riskyText reports whether a candidate's own text (a memory's value, a
// summary line written by a model) holds a risk phrasing, whoever's and
// however negated: such a line never becomes a memory or a pack line.
func riskyText(text string) (class string, ok bool) {
	norm := riskNorm(text)
	may := riskSet.mask(norm)
	for i, p := range riskPatterns {
		if may&(1<<i) == 0 {
			continue
		}
		for _, loc := range p.re.FindAllStringIndex(norm, -1) {
			if p.not != nil && p.not.MatchString(norm[loc[1]:]) {
				continue
			}
			if p.person && nearestSubject(norm[:loc[0]], true) != "person" {
				continue
			}
			return p.class, true
		}
	}
	return "", false
}

// GuardRisk is LaraGuard's reason for refusing a preference about harm.
const GuardRisk = "guard:risk"

// harmWords are what a child's preference must not be about: LaRa keeps
// no preference for being hurt, dying or hurting (laraRisky).
var harmWords = regexp.MustCompile(`\b(?:hurt|hurting|hurts|pain|bleed|bleeding|blood|cut|cutting|cuts|die|dying|dead|death|kill|killing|suicide|hit|hitting|beaten|beating|punish|punished|punishment|starve|starving|choke|choking)\b`)

// laraRisky reports whether a LaRa preference record is about harm or
// risk ("I like being hurt"): LaraGuard refuses it as it refuses labels.
func laraRisky(r Record) bool {
	if r.Kind != LaraPreference || r.Delete {
		return false
	}
	text := strings.ReplaceAll(laraPreferenceKey(r.Key), "_", " ")
	if v, ok := r.Data["value"].(string); ok {
		text += " " + v
	}
	if _, ok := riskyText(text); ok {
		return true
	}
	return harmWords.MatchString(riskNorm(text))
}

// Screen's reasons in Dropped are "risk:<class>", "special:<category>",
// "sealed:<category>" and "about_person".

// dropAboutPerson: a like or dislike of a person ("I don't like my new
// manager at work") is a statement about someone else, not a preference of
// the user's. The mona rules give the same reason (DropAboutPerson).
const dropAboutPerson = "about_person"

// aboutPerson matches a preference value whose head is a person: "my new
// manager at work", "my sister", "him". A possessive ("my sister's
// cooking") or an activity ("talking to my sister") is not one.
var aboutPerson = func() *regexp.Regexp {
	nouns := make([]string, 0, len(personNouns))
	for n := range personNouns {
		nouns = append(nouns, regexp.QuoteMeta(n))
	}
	slices.SortFunc(nouns, func(a, b string) int { return len(b) - len(a) })
	return regexp.MustCompile(`^\s*(?:(?:my|our|his|her|their|your|the|that|this|these|those)\s+(?:[a-z\-]+\s+){0,2}?(?:` +
		strings.Join(nouns, "|") + `)(?:\s|$|[.,!])|(?:him|her|them|he|she|people|everyone|everybody)\s*$)`)
}()

// AboutPerson reports whether a like or dislike's value is a person.
func AboutPerson(value string) bool {
	v := riskNorm(value)
	loc := aboutPerson.FindStringIndex(v)
	return loc != nil && !strings.HasPrefix(v[loc[1]-1:], "'")
}

// Screen is the one gate every extraction result passes, whatever its kind
// and whether the rules or a model produced it: safety before memory.
//
//   - Every user message is read with RiskOf; each statement found becomes
//     a Risk (class, severity, message, actor; never the text) in
//     res.Risks. Nothing of a message holding the user's own risk
//     statement of medium or high severity is stored: its memories are
//     dropped with reason risk:<class>. Any candidate whose own text holds
//     a risk phrasing (a model's paraphrase, a summary line) is dropped
//     too, whoever's words and however negated.
//   - A like or dislike of a person is dropped as about_person.
//   - A candidate holding a special category of personal data
//     (SpecialCategory) is dropped with special:<category> under the
//     policy's drop, kept under keep, and under keep_sealed left in the
//     sealed transcript only, reported as sealed:<category>.
//
// Memories, records with a "value", and, for kinds whose packs carry
// what other sessions left (Kind.CrossSession), the strings of the profile
// updates and the session summary are screened; a kind that keeps nothing
// across sessions (Clara) keeps its caregiver summary whole. Screen is
// idempotent: a second call finds the same risks and drops nothing more.
func Screen(res *Result, p prompts.Policy, s Session) {
	name := p.Rules
	if name == "" {
		name = res.App
	}
	kind := KindOf(name)
	special := SpecialPolicy(p, kind.Name())
	res.Risks = nil
	unsafe := map[string]string{} // message ID -> class of the user's own medium or high risk
	for _, m := range s.Messages {
		if !isUser(m.Role) {
			continue
		}
		f, ok := RiskOf(m.Content)
		if !ok {
			continue
		}
		res.Risks = append(res.Risks, Risk{Class: f.Class, Severity: f.Severity, MessageID: m.ID, Actor: f.Actor})
		if f.Actor == ActorUser && f.Severity != SeverityLow {
			unsafe[m.ID] = f.Class
		}
	}
	drop := func(messageID, reason string) {
		d := Dropped{MessageID: messageID, Reason: reason}
		if !slices.Contains(res.Dropped, d) {
			res.Dropped = append(res.Dropped, d)
		}
	}
	// verdict is why a candidate's text must not be stored, or "".
	verdict := func(text string, preference bool) string {
		if class, ok := riskyText(text); ok {
			return "risk:" + class
		}
		if preference && AboutPerson(text) {
			return dropAboutPerson
		}
		if cat, ok := SpecialCategory(text); ok {
			switch special {
			case prompts.SpecialDrop:
				return "special:" + cat
			case prompts.SpecialKeepSealed:
				return "sealed:" + cat
			}
		}
		return ""
	}

	kept := res.Memories[:0]
	var gone []Mention
	for _, m := range res.Memories {
		if class, ok := unsafe[m.SourceMessageID]; ok {
			drop(m.SourceMessageID, "risk:"+class)
			gone = append(gone, Mention{m.Key, m.Value})
			continue
		}
		pref := strings.HasPrefix(m.Key, "likes:") || strings.HasPrefix(m.Key, "dislikes:")
		if why := verdict(m.Value, pref); why != "" {
			drop(m.SourceMessageID, why)
			g := Mention{Key: m.Key, Value: m.Value}
			if why == dropAboutPerson {
				g.Value = "" // not a secret, only not the user's: a line about that person may stay
			}
			gone = append(gone, g)
			continue
		}
		if why := verdict(keyWords(m.Key)+" "+m.Wording, false); why != "" && !strings.HasPrefix(why, "about") {
			drop(m.SourceMessageID, why)
			gone = append(gone, Mention{m.Key, m.Value})
			continue
		}
		kept = append(kept, m)
	}
	res.Memories = kept
	// The summary names what is stored, never what was dropped: its topics
	// and count are the memories kept (issue 22).
	UnmentionDropped(res.SessionSummary, gone, kept)

	recs := res.Records[:0]
	for _, r := range res.Records {
		if v, ok := r.Data["value"].(string); ok && !r.Delete {
			pref := strings.HasPrefix(r.Key, "likes:") || strings.HasPrefix(r.Key, "dislikes:")
			if why := verdict(v, pref); why != "" {
				drop("", why) // a record is not a message (see LaraGuard)
				continue
			}
		}
		recs = append(recs, r)
	}
	res.Records = recs

	if !kind.CrossSession() {
		return
	}
	screenDoc := func(doc map[string]any) {
		for k, v := range doc {
			if nv, why := screenValue(v, verdict); why != "" {
				drop("", why)
				doc[k] = nv
			}
		}
	}
	screenDoc(res.ProfileUpdates)
	screenDoc(res.SessionSummary)
}

// screenValue removes from a document value the strings verdict refuses:
// a list loses the items, a string the lines; why is the first reason.
func screenValue(v any, verdict func(string, bool) string) (out any, why string) {
	switch x := v.(type) {
	case string:
		lines := strings.Split(x, "\n")
		kept := lines[:0]
		for _, l := range lines {
			if w := verdict(l, false); w != "" {
				why = cmp.Or(why, w)
				continue
			}
			kept = append(kept, l)
		}
		if why == "" {
			return v, ""
		}
		return strings.Join(kept, "\n"), why
	case []any:
		kept := make([]any, 0, len(x))
		for _, it := range x {
			nv, w := screenValue(it, verdict)
			if w != "" {
				why = cmp.Or(why, w)
				if _, isMap := it.(map[string]any); isMap {
					continue // an item with a refused part goes whole
				}
				if s, ok := nv.(string); ok && strings.TrimSpace(s) == "" {
					continue
				}
			}
			kept = append(kept, nv)
		}
		if why == "" {
			return v, ""
		}
		return kept, why
	case []string:
		kept := make([]string, 0, len(x))
		for _, s := range x {
			if w := verdict(s, false); w != "" {
				why = cmp.Or(why, w)
				continue
			}
			kept = append(kept, s)
		}
		if why == "" {
			return v, ""
		}
		return kept, why
	case map[string]any:
		for k, e := range x {
			if nv, w := screenValue(e, verdict); w != "" {
				why = cmp.Or(why, w)
				x[k] = nv
			}
		}
		return x, why
	}
	return v, ""
}

// SpecialPolicy is what becomes of special-category data under p for an
// app of kind: the policy's special_categories, or the kind's default
// (drop for most).
func SpecialPolicy(p prompts.Policy, kind string) string {
	if p.SpecialCategories != "" {
		return p.SpecialCategories
	}
	return KindOf(kind).SpecialDefault()
}

// keyWords is a memory key read as words: "event:went_to_chemo" is "went to chemo".
func keyWords(key string) string {
	if i := strings.IndexByte(key, ':'); i >= 0 {
		key = key[i+1:]
	}
	return strings.ReplaceAll(key, "_", " ")
}

// riskSet reads a sentence once for the words of every risk pattern: a
// sentence with none of them has no finding.
var riskSet = newPrefilterSet(prefiltersOf(len(riskPatterns), func(i int) prefilter { return newPrefilter(riskPatterns[i].re) }))

// prefiltersOf lists n prefilters, the ith from pre.
func prefiltersOf(n int, pre func(int) prefilter) []prefilter {
	out := make([]prefilter, n)
	for i := range out {
		out[i] = pre(i)
	}
	return out
}
