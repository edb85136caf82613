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
	RiskSubstance    = "substance"    // a substance crisis: far more than usual and feeling wrong
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
var RiskClasses = []string{RiskSuicidal, RiskSelfHarm, RiskSubstance, RiskAbuse, RiskHopelessness, RiskDistress}

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
// sev, when set, is the severity of the user's own statement instead of
// the class's (passive ideation is medium, a plan is high). needs must
// match somewhere in the message (a silence threat with what is kept
// silent). weak phrasings ("I've picked the day") count only in a risk
// context: another risk or distress in the message or the user's previous
// turn. mention marks a bare topic noun ("suicide", "self-harm") that a
// topic frame cancels; endIt is "end it", which a relationship cancels.
type riskPattern struct {
	class   string
	re      *regexp.Regexp
	not     *regexp.Regexp
	person  bool
	first   bool
	sev     string
	needs   *regexp.Regexp
	weak    bool
	mention bool
	endIt   bool
	// also must match too, like needs (a third cue: a substance named
	// beside the excess and the symptom).
	also *regexp.Regexp
	// unless matching the message cancels the phrasing: the innocent
	// explanation of a lexicon's cue ("it was the delivery guy").
	unless *regexp.Regexp
	// apps, when set, is the kind the phrasing is an extra of
	// (Kind.RiskExtras).
	apps string
	// grave phrasings (restraint, a weapon, a secret) are not lowered
	// when the one who did it is a sibling or a friend, and play does
	// not cancel them.
	grave bool
	// secret: a child's secret, which play does not explain away.
	secret bool
	// agent: the user must be the one who acts ("the cat scratched my
	// arm until it bled" is no self-harm).
	agent bool
}

func rp(class, re, not string) riskPattern {
	p := riskPattern{class: class, re: regexp.MustCompile(re)}
	if not != "" {
		p.not = regexp.MustCompile(`^\s*(?:` + not + `)`)
	}
	return p
}

// with returns p with the user's severity sev.
func (p riskPattern) with(sev string) riskPattern { p.sev = sev; return p }

// needing returns p counted only when needs matches the message.
func (p riskPattern) needing(needs string) riskPattern {
	p.needs = regexp.MustCompile(needs)
	return p
}

const (
	reflexive  = `(?:myself|my\s+self|himself|herself|themselves|themself|yourself)`
	possessive = `(?:my|his|her|their)`
	// accident is what follows "cut myself" when it was not on purpose.
	accident = `out\b|on (?:a|an|the|some|broken)\b|on my (?:way|bike|skateboard)|while\b|when i (?:fell|slipped|tripped)|shaving|cooking|chopping|slicing|playing|at\b|during\b|in the (?:kitchen|garden|gym)|by accident|accidentally|lifting|running|skiing|falling|opening|trying to|doing|with (?:a|the) (?:can|paper|tin)|for (?:forgetting|being|not|that|this|missing|saying|doing)|laughing|over\b|to (?:finish|get|make|meet|keep up|pay|please|impress|death)`
	bodyPart = `(?:wrists?|arms?|forearms?|thighs?|legs?|skin|stomach|belly|hips?|body|chest|ankles?)`
	pills    = `(?:pills|tablets|meds|medication|medicine|insulin|paracetamol|tylenol|ibuprofen|painkillers|antidepressants|sleeping\s+pills|xanax|oxy\w*)`
)

var corePatterns = []riskPattern{
	// Suicidal: a wish to be dead is passive ideation, medium; intent,
	// plans, means and acts are high.
	rp(RiskSuicidal, `\b(?:want|wants|wanted|wanna|wish|wishes|wished|plan|planning|ready|trying|tried)\s+(?:to\s+)?(?:just\s+)?(?:die\b|dye?\s*$|be\s+(?:dead|ded)\b)`,
		`of\b|from\b|laughing|for\b|inside|on the inside|a little|my hair|my\b|your\b|it\b|the\b|them\b|in (?:a|my) (?:game|dream)`).with(SeverityMedium),
	rp(RiskSuicidal, `\b(?:kill?|kill(?:ing|ed)|hang(?:ing|ed)?|drown(?:ing|ed)?|poison(?:ing|ed)?|shoot(?:ing)?|off(?:ing)?)\s+`+reflexive+`\b`, accident+`|in\b|with work|lol|haha|jk`),
	rp(RiskSuicidal, `\b(?:end|ending|take|taking|took)\s+`+possessive+`\s+(?:own\s+)?life\b`, ""),
	rp(RiskSuicidal, `\bend(?:ing)?\s+it\s+all\b`, `with\b|between\b`),
	rp(RiskSuicidal, `\b(?:put|putting)\s+an\s+end\s+to\s+(?:myself|my\s+(?:own\s+)?life)\b|\b(?:end|ending)\s+myself\b`, ""),
	{class: RiskSuicidal, mention: true, re: regexp.MustCompile(`\bsuicid(?:e|al)\b`),
		not: regexp.MustCompile(`^\s*(?:squad|bomber|doors|prevention|awareness|rates?\b|statistics|hotline)`)},
	rp(RiskSuicidal, `\bwish(?:es|ed)?\s+(?:i|he|she|they)(?:'d|\s+had|\s+was|\s+were|\s+would)?\s+(?:never\s+been\s+born|not\s+been\s+born|was\s+never\s+born|never\s+born|never\s+existed|dead|ded|die|not\s+wake\s+up|wasn't\s+(?:here|alive|born))\b`, "").with(SeverityMedium),
	rp(RiskSuicidal, `\b(?:don't|do\s+not|doesn't|does\s+not|no\s+longer|never|dont)\s+(?:wants?\s+to|wanna)\s+(?:live|be\s+alive|exist|wake\s+up|be\s+(?:here|around)\s+(?:any\s?mor|no\s+more)|carry\s+on|go\s+on|keep\s+going|keep\s+living)`, `\s*(?:in|with|near|like|the|a|an|this|that|my|our|to|at|for|tour|holiday|vacation|trip|stage|about|and\s+on|playing|working|doing)\b`).with(SeverityMedium),
	rp(RiskSuicidal, `\b(?:better|beter|happier|easier|fine|okay|ok|lighter)\s+(?:off\s+)?(?:for\s+(?:everyone|everybody|them|all)\s+)?(?:dead|without\s+me|if\s+i\s+(?:just\s+)?(?:was|were|wasn't|weren't)\s*(?:not\s+|never\s+)?(?:gone|here|around|alive|dead|born))\b|\b(?:would|i'd|we'd|they'd|it'd|everyone'd)\b(?:\s+[a-z']+){0,5}?\s+if\s+i\s+(?:just\s+)?(?:wasn't\s+(?:around|here|alive)|weren't\s+(?:around|here|alive)|was\s+(?:gone|dead|never\s+born)|were\s+(?:gone|dead)|died|disappeared|didn't\s+exist|never\s+existed)\b`,
		`for\b|tonight|this\s+(?:evening|weekend|week)|while|at\b|today|tomorrow|on\b|in\s+the\s+(?:kitchen|car|house)`).with(SeverityMedium),
	rp(RiskSuicidal, `\b(?:want|wanna|wish|wishing|hope|hoping|ready)\b(?:\s+(?:i|to|just|could|would|can|that|i'd))*\s+(?:be\s+gone|go\s+away\s+(?:forever|for\s+good|and\s+never\s+come\s+back)|stop\s+existing|not\s+exist|cease\s+to\s+exist|not\s+be\s+(?:here|alive|around)|go\s+to\s+heaven|be\s+in\s+heaven|fall\s+asleep\s+forever|never\s+wake\s+up)\b|\b(?:won't|will\s+not|not\s+going\s+to|wont)\s+(?:be|still\s+be)\s+(?:here|around|alive)\s+(?:much\s+longer|for\s+(?:much\s+)?long|next\s+\w+)\b|\bcan'?t\s+see\s+myself\s+(?:being\s+)?(?:alive|here|around)\b|\bnever\s+(?:have\s+to\s+)?(?:feel\s+anything|wake\s+up|exist)\s+again\b|\b(?:going\s+to|gonna|might|will|i'll)\s+do\s+something\s+(?:stupid|drastic)\b|\b(?:favou?r|kindness)\s+by\s+(?:not\s+being\s+(?:here|around|alive)|dying|disappearing)\b|\b(?:wish|wishing|hope|hoping|pray|praying)\b(?:\s+[a-z']+){0,4}?\s+(?:would|will|could)\s+(?:just\s+)?(?:hit\s+me|kill\s+me|run\s+me\s+over|take\s+me)\b|\bstop\s+(?:being\s+alive|living|breathing)\b`, "").with(SeverityMedium),
	rp(RiskSuicidal, `\b(?:thoughts?\s+(?:of|about)|thinking\s+(?:of|about)|thought\s+(?:of|about)|imagin(?:e|ing)|fantasi[sz]\w*\s+about|dream\s+about)\s+(?:ending\s+(?:it|my\s+life|everything)|jumping\s+(?:off|from|in\s+front)|dying|being\s+dead|not\s+being\s+(?:here|alive|around)|killing\s+myself|hanging\s+myself|overdosing|my\s+own\s+funeral|disappearing\s+forever|crashing\s+my\s+car|driving\s+(?:off|into))\b`,
		`(?:my|her|his|the)\s+(?:hair|shirt|clothes|jeans|eggs|fabric)|it\s+(?:pink|red|blue|green|purple|black|blonde)|(?:pink|red|blue|green|purple|black|blonde)\b|the\s+(?:high\s+)?(?:dive|diving\s+board|board|boat|pier|rocks\s+into)|into\s+the\s+(?:pool|lake|sea)|(?:it\s+)?with\s+(?:him|her|them|my|the|a|our|this)\b`).with(SeverityMedium),
	rp(RiskSuicidal, `\b(?:hope|hoping|wish|wishing|pray|praying)\b(?:\s+[a-z']+){0,6}?\s+(?:won't|wouldn't|never|don't|didn't|not)\s+wake\s+up\b|\b(?:a)?sleep\s+and\s+(?:never|not)\s+wake\s+up\b|\b(?:hope|hoping|pray|praying)\s+(?:that\s+)?(?:i\s+(?:just\s+)?(?:die|don't\s+make\s+it)|(?:it's|this\s+is)\s+my\s+last)\b|\b(?:disappointed|sad|upset|angry|annoyed|gutted)\s+(?:that\s+)?i\s+(?:woke\s+up|wake\s+up|am\s+still\s+(?:here|alive)|'m\s+still\s+(?:here|alive)|survived)\b`, `early|late|in time|before|until|till|on time|at\b`).with(SeverityMedium),
	rp(RiskSuicidal, `\b(?:kms|unalive\s+myself)\b`, ""),
	// Passive ideation in other words.
	rp(RiskSuicidal, `\b(?:disappear|vanish)\w*\s+(?:for\s+good|forever|for\s+ever|permanently)\b|\b(?:nobody|no\s+one|no-one|noone)\b(?:\s+[a-z']+){0,4}?\s+(?:notice|care|miss\s+me|even\s+notice)\w*\s+if\s+i\s+(?:was|were|died|disappeared|vanished|wasn't|weren't|didn't|stopped|was\s+gone|never)\b`,
		`into\b|in\b|behind\b|under\b`).with(SeverityMedium),
	rp(RiskSuicidal, `\btired\s+of\s+(?:being\s+alive|living|existing|life)\b|\b(?:life|living)\s+(?:isn't|is\s+not|ain't|is\s+no\s+longer)\s+worth\s+(?:living|it)\b|\bdon't\s+care\s+if\s+i\s+(?:die|live|wake\s+up|don't\s+wake\s+up)\b`,
		`in\b|with\b|at\b|on\b|like\s+th|out\s+of|paycheck`).with(SeverityMedium),
	rp(RiskSuicidal, `\b(?:rather|sooner)\s+(?:be\s+)?(?:dead|die)\b`, `than\s+(?:wear|eat|go|do|watch|listen|sit|be\s+seen|admit|lose|miss|work|sing|dance|drive|call|ask|say|tell)|lol|haha`).with(SeverityMedium),
	// Preparation: farewells, giving things away, researching a method or
	// a quantity, stockpiling, a chosen time.
	rp(RiskSuicidal, `\b(?:wrote|written|writing|write|left|leave|leaving)\s+(?:a\s+|my\s+|the\s+)?(?:goodbye|farewell|suicide|last)\s+(?:letters?|notes?|messages?|videos?)\b|\b(?:note|letter)\s+for\s+whoever\s+finds\s+me\b|\b(?:letters?|notes?|messages?)\b(?:\s+[a-z']+){0,4}?\s+(?:saying|to\s+say)\s+(?:sorry\s+and\s+)?goodbye\b`,
		`(?:on|in)\s+(?:(?:a|the|my|his|her|their|[a-z]+'s)\s+){1,2}(?:[a-z]+\s+)?card|to\s+(?:my\s+)?(?:old\s+)?(?:school|team|class|job|coworkers?|colleagues?|teacher|office|students)|for\s+(?:my\s+)?(?:colleague|coworker|boss|teacher|class|team)`).except(movingFrame),
	rp(RiskSuicidal, `\b(?:gave|giving|give|given|handing|handed)\b(?:[\s,]+[a-z']+){0,10}?[\s,]+(?:(?:won't|wont|will\s+not)\s+(?:be\s+)?need(?:ing)?\s+(?:it|them|those|these|anything|any\s+of)|to\s+remember\s+me\s+by|(?:when|after|once)\s+i'm\s+(?:gone|dead|not\s+around))\b`, "").
		except(movingFrame + `|\b(?:gave|giving|give|given|handed|handing)\s+(?:(?:him|her|them)\s+)?(?:(?:all|most)\s+(?:of\s+)?)?(?:his|her|their|(?:\w+\s+){0,3}?back\b)`),
	rp(RiskSuicidal, `\b(?:easiest|quickest|fastest|painless|surest|least\s+painful|best)\s+ways?\s+to\s+(?:die|kill\s+myself|end\s+(?:it|my\s+life))\b|\blethal\s+dose\b|\bhow\s+to\s+(?:kill\s+myself|end\s+my\s+life|hang\s+myself|overdose)\b|\bhow\s+(?:many|much)\s+(?:of\s+)?(?:my\s+|the\s+|these\s+|those\s+)?(?:[a-z]+\s+)?`+pills+`\b(?:\s+[a-z']+){0,3}?\s+(?:take|kill|be\s+enough|be\s+fatal|i'd\s+need|i\s+would\s+need)\b|\bhow\s+(?:high|tall)\s+(?:a|the)\s+(?:bridge|building|roof|cliff|balcony)\s+(?:has|would\s+have|needs)\s+to\s+be\b|\b(?:letters?|notes?)\b(?:\s+[a-z']+){0,5}?\s+explaining\s+why\b`, `for\s+(?:a|my|the)\s+(?:headache|cold|pain|flu|fever|back|period|migraine)`),
	rp(RiskSuicidal, `\b(?:saving|saved|stockpil\w*|hoard\w*|stashing|stashed|collecting)\s+(?:up\s+)?(?:all\s+)?(?:my\s+|of\s+my\s+)?`+pills+`\b|\benough\s+(?:of\s+)?(?:my\s+)?`+pills+`\s+(?:saved|stashed|hidden|put\s+away|to\s+(?:die|do\s+it|end\s+it|not\s+wake))`, `for\s+(?:the|a|my)\s+(?:trip|holiday|vacation|flight)`),
	{class: RiskSuicidal, weak: true, unless: regexp.MustCompile(movingFrame), re: regexp.MustCompile(`\b(?:picked|chosen|chose|set|decided\s+on)\s+(?:a|the)\s+(?:day|date|time|night|place|spot)\b|\b(?:do|doing)\s+it\s+(?:tonight|tomorrow|this\s+weekend)\b|\btonight\s+is\s+the\s+night\b|\bsaid\s+(?:all\s+)?my\s+goodbyes\b|\bhow\s+i(?:'d|\s+would|\s+will|'ll|'m\s+going\s+to)\s+do\s+it\b|\b(?:letters?|notes?)\s+(?:to|for)\s+(?:everyone|each\s+of|my\s+(?:family|kids|children|parents|mum|mom|dad|wife|husband|sister|brother))\b`)},
	// Acts: an overdose, an attempt.
	rp(RiskSuicidal, `\b(?:tried|attempted)\s+to\s+(?:overdose|od)\b|\bi(?:'ve|\s+have)?\s+overdosed?\b|\b(?:took|taken|swallowed)\s+(?:like\s+)?(?:[0-9][0-9]+|twenty|thirty|forty|fifty|a\s+(?:whole|full)\s+(?:bottle|box|pack|packet)\s+of)\s+(?:of\s+)?(?:my\s+|the\s+)?(?:`+pills+`|pills)\b|\b(?:take|swallow|down)\s+(?:all|every\s+one\s+of|the\s+whole\s+(?:bottle|box|pack)\s+of)\s+(?:of\s+)?(?:my|the|these|those)\s+`+pills+`\b|\b(?:took|taken|swallowed)\b(?:\s+[a-z']+){0,5}?\s+`+pills+`\s+on\s+purpose\b`, "").
		except(`\boverdos(?:e|ed|ing)\s+on\s+(?:\w+\s+)?(?:garlic|salt|sugar|chocolate|cheese|carbs|caffeine|coffee|netflix|tv|anime|memes|cuteness|sun|candy|sweets|pizza|food|work|drama|nostalgia|spice|chil(?:l)?i|cinnamon|butter|hot\s+sauce|glitter|pasta|bread|fun|k-?dramas?|reality\s+tv|music|podcasts?|true\s+crime)\b`),
	// Intent to "end it": a relationship, a call or a game cancels it.
	{class: RiskSuicidal, endIt: true, re: regexp.MustCompile(`\b(?:want|wanna|going|gonna|ready|plan|planning|decided|will|i'll|just|i'm)\s+(?:to\s+)?(?:just\s+)?end(?:ing)?\s+(?:it|everything)\b`),
		not: regexp.MustCompile(`^\s*(?:with|all\s+with|between|before\s+(?:the|we|i|my|our|a|lunch|dinner|christmas|summer|\w+day)\b|after|here|there|now\s+with|early|off|on\s+a|for\s+us|already)`)},

	// Self-harm.
	rp(RiskSelfHarm, `\b(?:cut|cuts|cutting|burn|burns|burned|burnt|burning|hurt|hurts|hurting|harm|harms|harmed|harming|scratch|scratched|scratching|starve|starving|punish|punishing|hit|hitting|punch(?:ed|ing)?|slap(?:ped|ping)?|bite|bit|biting|bang(?:ed|ing)?|pinch(?:ed|ing)?)\s+`+reflexive+`\b`, accident+`|(?:all\s+(?:day|week)\s+)?(?:for|before)\s+(?:this|the|a|tonight's|my|our)\s+(?:\w+\s+)?(?:buffet|dinner|feast|meal|barbecue|bbq|brunch|roast|curry|pizza|all-you-can-eat)\b`),
	{class: RiskSelfHarm, mention: true, re: regexp.MustCompile(`\bself[- ]?(?:harm|injur)\w*`)},
	rp(RiskSelfHarm, `\b(?:cut|cuts|cutting|slash(?:ed|ing)?|slit|carv(?:e|ed|ing)|burn(?:ed|t|ing|s)?|scratch(?:ed|es|ing)?|stab(?:bed|bing)?|press(?:ed|ing)?|razor|blade|lighter)\b(?:\s+[a-z']+){0,6}?\s+(?:on\s+|into\s+|in\s+)?(?:my|his|her)\s+(?:own\s+)?`+bodyPart+`\b`, accident),
	rp(RiskSelfHarm, `\bcutting\s+again\b|\b(?:until|till|til)\s+(?:it|they|i|my\s+\w+)\s+(?:bled|bleeds|bleed|was\s+bleeding|started\s+bleeding|hurt|hurts|broke\s+the\s+skin|bruise[sd]?)\b|\b(?:until|till|and)\b(?:\s+[a-z']+){0,5}?\s+(?:it|they)\s+(?:bleeds|bled|bleed)\b|\bto\s+feel\s+something\b|\bon\s+purpose\b|\bdeliberately\b|\b(?:bang\w*|smash\w*|bash\w*|hit\w*|slam\w*|punch\w*)\s+my\s+(?:head|fists?|hands?)\s+(?:against|on|into)\s+(?:the\s+|a\s+)?walls?\b`,
		"").needing(`\b(?:cut\w*|burn\w*|scratch\w*|hit\w*|bang\w*|punch\w*|press\w*|razor|blade|bite|biting|stab\w*|pinch\w*|carv\w*|pick\w*|dig\w*|tear\w*|rip\w*|pull\w*|smash\w*|bash\w*|slam\w*)\b(?:\s+[a-z']+){0,4}?\s+(?:my|myself|my\s+self)\b|\bcutting\s+again\b`),

	// Abuse and danger from others.
	{class: RiskAbuse, person: true, re: regexp.MustCompile(`\b(?:hits|hit|hitting|beats|beat|beating|kicks|kicked|kicking|slaps|slapped|slapping|punches|punched|punching|chokes|choked|choking|strangles|strangled|rapes|raped|abuses|abused|abusing|molests|molested|burns|burned|threatens|threatened|grabbed|attacked|jumped|mugged|assaulted|hurts)\s+me\b`),
		not: regexp.MustCompile(`^\s*(?:up\b|off\b|out\b|a\b|an\b|some\b|by\s+(?:the\s+hand|saying|ignoring|lying|not|leaving|cheating)|and\s+hugged|to\s+(?:dance|help|show)|when\s+(?:he|she|they)\s+(?:says|said|ignores|lies|leaves|talks)|feelings|emotionally|so\s+much\s+by|with (?:a|the) (?:ball|pillow|snowball)|in (?:a|the) (?:game|match)|` + inGame + `)`)},
	{class: RiskAbuse, person: true, re: regexp.MustCompile(`\b(?:threatens|threatened|threatening|said\s+(?:he|she|they)(?:'d|'ll|\s+would|\s+will)?)\s+(?:to\s+)?(?:kill|hurt|hit|beat)\s+me\b`)},
	rp(RiskAbuse, `\b(?:i'm|i\s+am|i\s+was|i've\s+been|i\s+have\s+been|i\s+got|i\s+get|i\s+keep\s+getting)\s+(?:being\s+|repeatedly\s+|sexually\s+)?(?:abused|raped|assaulted|molested|beaten(?:\s+up)?|groped|trafficked|strangled)\b`,
		`by (?:a|the) (?:car|ball|bus|truck|bike|train|wave|branch|door)|at (?:chess|cards|tennis|poker)`),
	{class: RiskAbuse, mention: true, re: regexp.MustCompile(`\bdomestic\s+(?:violence|abuse)\b`)},
	rp(RiskAbuse, `\b(?:afraid|scared|terrified)\s+(?:of\s+(?:my|his|her)\s+(?:husband|wife|partner|boyfriend|girlfriend|dad|father|mom|mum|mother|stepdad|stepfather|stepmom|stepmother|ex)\b|(?:he|she|they)(?:'ll|\s+will|\s+is\s+going\s+to|\s+might|'s\s+going\s+to)\s+(?:hurt|kill|hit|beat)\s+me\b)`,
		`(?:'s|s)?\s*(?:driving|cooking|dog|cat|snake|spider)`),
	{class: RiskAbuse, re: regexp.MustCompile(`\b(?:he|she|they)(?:'ll|\s+will|'s\s+going\s+to|\s+is\s+going\s+to|'d|\s+would|\s+might)\s+(?:hurt|kill|hit|beat)\s+(?:me|my\s+(?:family|mum|mom|dad|kids|children|baby|dog|cat|sister|brother))\b`),
		not:   regexp.MustCompile(`^\s*(?:if\s+i'm\s+late|when\s+(?:she|he|they)\s+(?:sees?|finds?)|if\s+(?:she|he|they)\s+finds?|for\s+(?:this|that|being|breaking|losing|eating|forgetting))`),
		needs: regexp.MustCompile(`\b(?:scared|afraid|terrified|frightened|threat\w*|told\s+me|said|says)\b`)},
	// Followed, watched, held, pushed, locked in.
	{class: RiskAbuse, person: true, re: regexp.MustCompile(`\bfollow(?:s|ed|ing)?\s+me\s+(?:home|to\s+(?:my|the)\s+\w+|from|around|every|again|everywhere)\b|\b(?:is|are|been|keeps|kept|was|were)\s+following\s+me\b|\b(?:showing|shows|showed|turning|turns|turned)\s+up\s+(?:at|outside)\s+(?:my|our)\s+(?:house|home|flat|apartment|door|building|work|job|school|office|place)\b|\b(?:waiting|standing|parked|hanging\s+around|lurking|watching)\s+(?:outside|across\s+from|near|by|at)\s+(?:my|our)\s+(?:house|home|flat|apartment|door|building|window|work|school|room|place)\b`),
		unless: benignVisit,
		not:    regexp.MustCompile(`^\s*(?:around\s+(?:the\s+|our\s+)?(?:house|flat|home|kitchen|room|shop|store)|on\s+(?:\w+gram|insta|twitter|tiktok|social)|back\b|to\s+(?:give|pick|take|drive|walk|collect|say)|for\s+me\s+to|like\s+a\s+puppy|.*\b(?:puppy|kitten|cute|like\s+a\s+shadow)\b)`)},
	{class: RiskAbuse, person: true, re: regexp.MustCompile(`\b(?:held|holds|holding|pinned|pins|pinning|pushed|pushes|shoved|shoves|grabbed|grabs|dragged|drags|locked|locks|tied|trapped|threw|throws|slammed|cornered)\s+me\s+(?:down\b|against|into\s+(?:a|the)\s+(?:wall|door|table|wardrobe|cupboard|car|floor|ground|mirror)|by\s+(?:the|my)\s+(?:throat|neck|hair|arm|wrist)|in\s+(?:a|the|my|his|her)\s+(?:room|closet|cupboard|car|bathroom|basement|house|shed)|to\s+the\s+(?:floor|ground|wall)|down\s+the\s+stairs|out\s+of\s+the\s+(?:car|house)|and\s+(?:wouldn't|won't|didn't|would\s+not)\s+let)`)},
	{class: RiskAbuse, person: true, re: regexp.MustCompile(`\b(?:won't|wouldn't|doesn't|didn't|will\s+not|would\s+not|never)\s+let\s+me\s+(?:leave|go\s+(?:out|home)|out)\b|\b(?:left|leaves|leaving|gave\s+me)\s+(?:me\s+with\s+)?(?:bruises|a\s+bruise|marks\s+on|a\s+black\s+eye|a\s+split\s+lip)\b|\b(?:grabbed|grabs|twisted|twists|yanked|yanks)\s+my\s+(?:arms?|wrists?|neck|hair|throat)\b|\bholds?\s+me\s+(?:down\s+)?in\s+(?:the|my|a)\s+(?:chair|bed)\b`)},
	{class: RiskAbuse, person: true, sev: SeverityMedium, re: regexp.MustCompile(`\b(?:won't|wouldn't|doesn't|don't|will\s+not|never)\s+let\s+me\s+(?:see|talk\s+to|call|text|have\s+my\s+(?:own\s+)?(?:money|phone|bank|card))\b|\bcontrols?\s+(?:all\s+)?(?:of\s+)?(?:my|our)\s+(?:money|finances|phone|life|every\s+move)\b`),
		not: regexp.MustCompile(`^\s*(?:the\s+(?:movie|film|show|game|end)|it\b|that\b|this\b)`)},
	{class: RiskAbuse, person: true, sev: SeverityMedium, re: regexp.MustCompile(`\b(?:checks|checked|checking|goes\s+through|went\s+through|reads|tracks|tracking|monitors)\s+(?:my\s+)?(?:phone|messages|texts|location|emails)\b`),
		needs: regexp.MustCompile(`\b(?:angry|mad|furious|yell\w*|scream\w*|every\s+(?:night|day)|all\s+the\s+time|not\s+allowed|scared|afraid|controls?|jealous|punish\w*|friends|family|money|freak\w*|lose\s+it|loses\s+it|rage)\b`)},
	// A secret or silence kept under threat, and touching a child.
	{class: RiskAbuse, sev: SeverityMedium, re: regexp.MustCompile(`\b(?:if\s+i\s+(?:ever\s+)?(?:tell|told)|not\s+to\s+tell|(?:don't|dont|never|can't|cant|mustn't|shouldn't)\s+tell|keep\s+(?:it|this)\s+(?:a\s+)?secret|(?:our|a|it's\s+our|its\s+our)\s+(?:little\s+|special\s+)?secret|(?:no\s+one|nobody)\s+(?:would|will)\s+(?:ever\s+)?believe\s+(?:me|you))\b`),
		needs: regexp.MustCompile(`\b(?:touch\w*|private|hurt\w*|kill|trouble|hit|punish\w*|kiss\w*|naked|pants|clothes|photos?\s+of\s+me|does\s+to\s+me|did\s+to\s+me|what\s+(?:he|she|they)\s+(?:does|did)|send\s+me\s+away|take\s+me\s+away|taken\s+away|prison|my\s+fault|cry|break\s+up|in\s+trouble|hate\s+me|won't\s+love|sorry|regret|pay\s+for|or\s+else|believe)\b`)},
	{class: RiskAbuse, person: true, re: regexp.MustCompile(`\btouch(?:es|ed|ing)?\s+me\b|\b(?:does|did|doing)\s+(?:things|stuff)\s+to\s+me\b|\bmakes?\s+me\s+(?:touch|take\s+(?:off\s+)?my\s+clothes)`),
		needs: regexp.MustCompile(`\b(?:private|down\s+there|under|between|at\s+night|bed|bedroom|room|bath|shower|secret|inappropriately|weird|uncomfortable|alone|pants|clothes|don't\s+like|when\s+(?:mum|mom|dad|nobody|no\s+one)|nightmares?|flashbacks?|trauma\w*|used\s+to\s+touch|when\s+i\s+was\s+(?:[0-9]+|little|young|small|a\s+(?:kid|child|little\s+\w+)))\b`)},

	// Hopelessness.
	rp(RiskHopelessness, `\bhopeless(?:ness)?\b`, `at\b|with\b|when it comes|romantic|case|cook|at math`),
	rp(RiskHopelessness, `\bno\s+point\s+(?:in\s+|to\s+)?(?:anything|living|life|trying\s+any\s?more|going\s+on|being\s+alive|carrying\s+on|it\s+all|getting\s+up|any\s?more)\b`, ""),
	rp(RiskHopelessness, `\bwhat'?s\s+(?:even\s+)?the\s+point\s+(?:of\s+|in\s+)?(?:anything|living|life|going\s+on|being\s+alive|trying\s+any\s?more|any\s+of\s+it|it\s+all|me)\b`, ""),
	rp(RiskHopelessness, `\b(?:don't|do\s+not|doesn't|does\s+not|didn't|can't|cannot|dont)\s+see\s+(?:the|a|any)\s+point\s+(?:any\s?more|in\s+(?:anything|living|life|trying|going\s+on|getting\s+up|any\s+of)|of\s+(?:anything|living|life|me|trying|going\s+on|it\s+all|any\s+of|being\s+(?:here|alive))|to\s+(?:anything|life|living|any\s+of))`, ""),
	{class: RiskHopelessness, weak: true, re: regexp.MustCompile(`\b(?:don't|do\s+not|can't|cannot|dont)\s+see\s+(?:the|a|any)\s+point\s*$`)},
	rp(RiskHopelessness, `\b(?:nothing|no\s+one|nobody)\s+(?:left\s+)?to\s+live\s+for\b|\b(?:no|(?:don't|do\s+not|can't|cannot)\s+(?:see|find|have)\s+(?:a|any))\s+reason\s+(?:for\s+me\s+)?to\s+(?:live|go\s+on|keep\s+going|get\s+up|be\s+alive|stay|carry\s+on|be\s+here)\b`, ""),
	rp(RiskHopelessness, `\bcan(?:'?t|not)\s+(?:go\s+on|carry\s+on|keep\s+going|take\s+much\s+more)\b|\bcan(?:'?t|not)?\s+(?:keep\s+doing\s+this|take\s+(?:it|this)|do\s+this|hold\s+on|go\s+on|keep\s+going|carry\s+on|cope)\s+(?:much\s+longer|any\s?more|any\s+longer)\b`,
		`the\b|a\b|an\b|that\b|my\b|our\b|vacation|holiday|trip|tour|stage|air|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tonight|tomorrow|with\b|to\b|without\b`),
	rp(RiskHopelessness, `\b(?:nothing|it|things|life)\s+(?:will|is\s+going\s+to|'s\s+going\s+to|'ll)\s+(?:never|not\s+ever)\s+get\s+better\b|\bnothing\s+(?:will\s+)?ever\s+gets?\s+better\b`, ""),
	{class: RiskHopelessness, first: true, re: regexp.MustCompile(`\b(?:i'm|i\s+am|i\s+feel\s+like|i'm\s+just|i\s+am\s+just|i'm\s+nothing\s+but|i'm\s+only|i\s+feel\s+like\s+such)\s+(?:such\s+)?(?:a\s+)?burden\b`),
		not: regexp.MustCompile(`^\s*(?:on|to)\s+(?:the|our|my)\s+(?:budget|bill|wallet|finances|team|schedule)`)},
	rp(RiskHopelessness, `\bg(?:ive|iven|ave|iving)\s+up\s+on\s+(?:life|everything|myself|living)\b`, ""),
	rp(RiskHopelessness, `\bno\s+(?:hope|future)\s+(?:left|for\s+me|any\s?more)\b|\bno\s+way\s+out\b|\bwhy\s+i\s+(?:even\s+)?(?:bother|should\s+bother)\s+(?:waking\s+up|getting\s+up|living|trying|going\s+on)\b|\b(?:don't|do\s+not|can't|cannot)\s+see\s+(?:a|any)\s+(?:future|way\s+out|light\s+at\s+the\s+end|end\s+to\s+(?:this|it))\b|\blife\s+has\s+no\s+(?:meaning|point|purpose)\b|\b(?:done|finished)\s+with\s+(?:everything|life|living|it\s+all|being\s+alive)\b|\bnothing\s+matters\s+(?:to\s+me\s+)?any\s?more\b|\bwant\s+(?:it|everything|it\s+all|all\s+of\s+(?:it|this))\s+(?:all\s+)?to\s+(?:stop|end|be\s+over)\b`, `raining|snowing|beeping|ringing|barking|hurting|so\s+i\s+can|of\s+(?:the|this)\s+(?:contract|deal|room|maze|game|lease|traffic|parking|level)|at\s+work\s+today|for\s+(?:today|the\s+day|now)`),

	// Severe and acute distress.
	rp(RiskDistress, `\bhat(?:e|es|ed|ing)\s+`+possessive+`\s+(?:life|lives|existence)\b`, `choices|decisions|coach|insurance|phone|plan`),
	rp(RiskDistress, `\bhat(?:e|es|ed|ing)\s+(?:`+reflexive+`|being\s+alive|being\s+me|who\s+i\s+am|everything\s+about\s+me)\b`, `for\b`),
	{class: RiskDistress, first: true, re: regexp.MustCompile(`\b(?:i'm|i\s+am|i\s+feel|i've\s+been\s+feeling|i\s+have\s+been\s+feeling|feeling|feel)\s+(?:so\s+|completely\s+|totally\s+|really\s+|just\s+|very\s+|utterly\s+)*(?:worthless|dead\s+inside|empty\s+inside|broken\s+inside|like\s+(?:a\s+)?(?:nothing|a\s+waste\s+of\s+space)|a\s+waste\s+of\s+(?:space|air|oxygen))\b`)},
	rp(RiskDistress, `\bcan'?t\s+stop\s+(?:crying|shaking|sobbing|panicking)\b|\bcry(?:ing)?\s+myself\s+to\s+sleep\b`, ""),
	{class: RiskDistress, first: true, re: regexp.MustCompile(`\bi(?:'ve|\s+have|'m|\s+am|\s+was|\s+keep|\s+just\s+keep)?\s+(?:been\s+)?crying\s+(?:for\s+(?:hours|days|the\s+whole\s+day)|all\s+(?:day|night)|non-?stop|and\s+(?:i\s+)?can'?t\s+stop)\b`)},
	rp(RiskDistress, `\b(?:my\s+)?life\s+(?:is|feels)\s+(?:so\s+)?(?:pointless|meaningless)\b|\bmy\s+life\s+is\s+(?:a\s+living\s+hell|hell|meaningless|pointless|worthless|ruined|over|falling\s+apart|a\s+nightmare)\b`, ""),
	{class: RiskDistress, first: true, re: regexp.MustCompile(`\b(?:i'm|i\s+am)\s+(?:completely\s+|totally\s+)?falling\s+apart\b|\b(?:i'm|i\s+am)\s+drowning\b`),
		not: regexp.MustCompile(`^\s*(?:in\b|with\b|under\b|(?:the|a|an|it|them|my|his|her|some|this|that|these|those|our|your|everything)\b)`)},
	rp(RiskDistress, `\bwant\s+to\s+disappear\b`, `for\s+(?:a|the)\s+(?:day|weekend|week)|on\s+(?:a|an)\s+(?:island|holiday|vacation)|into\b|in\b`),
	rp(RiskDistress, `\bpanic\s+attacks?\b|\bcan'?t\s+breathe\b|\b(?:feel|felt|feeling)\s+like\s+i'm\s+(?:dying|having\s+a\s+heart\s+attack|going\s+to\s+die)\b|\bheart\s+won't\s+stop\s+(?:pounding|racing)\b`, `of\b|from|laughing|lol|haha|in\s+(?:this|that|these|here)|with\s+(?:this|my)\s+(?:cold|mask)`),
	rp(RiskDistress, `\b(?:haven't|have\s+not|hasn't|not|didn't|can't|cannot|couldn't|barely|unable\s+to)\s+(?:been\s+able\s+to\s+)?(?:eaten|slept|eat|sleep|been\s+(?:eating|sleeping))(?:\s+(?:or|and|nor)\s+(?:eaten|slept|eat|sleep))?\b(?:\s+(?:anything|properly|at\s+all|a\s+thing|much|a\s+wink))?\s+(?:in|for)\s+(?:[a-z0-9]+\s+)?(?:days|nights|weeks|a\s+week)\b|\b(?:awake|up)\s+for\s+(?:[a-z0-9]+\s+)?(?:days|nights)\s+(?:straight|in\s+a\s+row)\b`, ""),

	// Substance crisis: far more than usual and feeling wrong; holding the
	// drink or the drug and not caring what happens.
	{class: RiskSubstance, re: regexp.MustCompile(`\b(?:took|taken|swallowed|popped)\s+(?:some|a\s+few|a\s+bunch|a\s+handful|a\s+lot|loads|all)\s+(?:of\s+)?(?:my\s+|the\s+|her\s+|his\s+)?` + pills + `\b|\b(?:drank|downed|finished)\s+(?:a\s+whole|an\s+entire|two|three|a\s+full)\s+bottles?\b`),
		needs: substanceBody},
	{class: RiskSubstance, re: regexp.MustCompile(`\b(?:took|taken|used|using|drank|drinking|had|did|done|smoked|snorted|injected)\b(?:[\s,]+[a-z']+){0,4}?[\s,]+(?:way|far|a\s+lot|much|so\s+much|loads|twice|double)\s+more\s+(?:[a-z]+\s+)?(?:than\s+(?:usual|normal|i\s+(?:usually|normally|should|ever))|of\s+it)\b`),
		needs: substanceBody},
	{class: RiskSubstance, re: regexp.MustCompile(`\bdon't\s+care\s+(?:what\s+happens|any\s?more|if\s+i\s+wake)`),
		needs: regexp.MustCompile(`\b(?:holding|have|got|staring\s+at|sitting|poured|bought|in\s+front\s+of\s+me|in\s+my\s+hand|here\s+with|next\s+to\s+me)\b.{0,40}?\b(?:bottle|drink|pills|bag|needle|syringe|glass|vodka|whiskey|wine|gin|stash|baggie|it)\b`)},
}

// substanceBody: what a substance crisis feels like.
var substanceBody = regexp.MustCompile(`\b(?:feels?|feeling|felt)\s+(?:really\s+|so\s+|very\s+)?(?:wrong|weird|off|strange|sick|bad|scared|not\s+right|funny|like\s+i'm\s+dying)|\bcan'?t\s+(?:feel|breathe|stand|stop\s+shaking|see\s+straight)|\bheart\s+(?:is\s+)?(?:racing|pounding|beating)|\bchest\b|\bnumb\b|\bdizzy\b|\bpass(?:ing)?\s+out|\bthrowing\s+up|\bshaking\b|\bdon'?t\s+care\b`)

// Words the subject of a statement may be.
var (
	subjectUser    = set("i", "i'm", "i've", "i'd", "i'll", "me", "myself", "we", "we're", "we've", "us")
	subjectOther   = set("he", "she", "they", "he's", "she's", "they're", "he'd", "she'd", "they'd", "him", "them", "himself", "herself", "themselves", "his")
	subjectYou     = set("you", "you're", "you've", "you'd", "yourself", "u")
	subjectGeneric = set("people", "someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody", "one", "characters", "character")
	// personNouns are the people a statement may be about, one word list.
	personNouns = set(strings.Fields(`husband wife partner boyfriend girlfriend bf gf ex dad father mom mum mother stepdad stepfather
		stepmom stepmother parents parent brother sister uncle aunt grandpa grandfather grandma grandmother
		cousin teacher coach boss manager coworker co-worker colleague roommate flatmate neighbor neighbour
		friend friends classmate fiance fiancé fiancee spouse son daughter family guardian carer caretaker
		priest man guy woman bully bullies kids boys girls landlord supervisor mate bestie pastor nephew
		niece in-law in-laws stepbrother stepsister stepmum mummy daddy nan gran granny babysitter nanny
		tutor foster carer's stranger`)...)
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
	historyMarks = regexp.MustCompile(`\b(?:used\s+to|back\s+when|when\s+i\s+was\s+(?:drinking|using|at\s+uni|in\s+(?:school|college|uni)|at\s+school)|when\s+i\s+was\s+(?:young|younger|little|a\s+(?:kid|child|teen|teenager))|as\s+a\s+(?:kid|child|teen|teenager)|years\s+ago|in\s+the\s+past)\b`)
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
	spans := riskSentenceSpans(s)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = s[sp[0]:sp[1]]
	}
	return out
}

// riskSentenceSpans are the spans in s of splitRiskSentences's sentences.
func riskSentenceSpans(s string) [][2]int {
	stop := func(c byte) bool { return c == '.' || c == '!' || c == '?' || c == '\n' }
	var out [][2]int
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
		out = append(out, [2]int{start, i})
		start, i = j, j
	}
	return append(out, [2]int{start, len(s)})
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

// Frames that qualify a phrasing (issue 23). Each is read on the sentence,
// the message or the user's previous turn, as its comment says.
var (
	// topicFrame: school work, media, campaigns, someone's story. In the
	// sentence it cancels a bare topic noun and what is not the user's own
	// first-person statement; in the message or the previous turn, what is
	// someone else's.
	topicFrame = regexp.MustCompile(`\b(?:essays?|assignments?|homework|projects?|reports?|presentations?|class|lessons?|lectures?|course|module|assembly|awareness|prevention|campaigns?|charity|fundrais\w*|walk|books?|novels?|comics?|manga|stor(?:y|ies)|films?|movies?|shows?|series|episodes?|documentar(?:y|ies)|podcasts?|games?|level|characters?|hero|heroine|villain|protagonist|author|articles?|poems?|songs?|lyrics|scenes?|chapters?|learn(?:ed|t|ing)\s+about|studying|thesis|research\s+paper|recovery|anime|thriller|drama|sitcom|soap|audiobook|tv|netflix|read|reading\s+(?:a|the|this|about|my)|watched|watching|coursework|psychology|sociology|criminology|biology|history|exams?|revis(?:e|ing|ion)|dissertation|paper|seminar|webinar|workshop|training|youtuber|youtube|video|vlog|tiktok|fundraiser|marathon|10k|5k|sponsored|raise\s+money|raising\s+money|module|curriculum|syllabus|quiz|pshe)\b`)
	// jokeFrame in the sentence lowers a wish to die or to hurt oneself.
	jokeFrame = regexp.MustCompile(`\b(?:lol|lmao|rofl|haha\w*|hehe\w*|jk|just\s+kidding|kidding|joking)\b|😂|🤣`)
	// hyperbole in the sentence cancels a wish to die: a ride, an illness,
	// laughter.
	hyperbole = regexp.MustCompile(`\b(?:(?:ate|eaten|eating)\s+(?:so|too|way\s+too)\s+much|food\s+coma|roller\s?coasters?|rides?|flu|fever|food\s+poisoning|hangover|laugh\w*|embarrass\w*|hilarious|so\s+funny|cringe)\b`)
	// playFrame in the message cancels being hit, pushed or held.
	playFrame = regexp.MustCompile(`\b(?:play[- ]?fight\w*|playing|play|messing\s+around|mucking\s+about|horsing\s+around|chas(?:e|ed|ing)\s+each\s+other|wrestl\w*|pillow\s+fight|tickl\w*|as\s+a\s+joke|for\s+a\s+joke|for\s+fun|so\s+fun|joking|kidding|lol|lmao|rofl|haha\w*|hide\s+and\s+seek|hilarious|tag|water\s+fight|snowball\w*|prank\w*|game)\b`)
	// accidentFrame in the sentence cancels a self-harm act unless it was
	// on purpose.
	accidentFrame = regexp.MustCompile(`\b(?:accident\w*|shaved|shave|slipped|tripped|fell|falling|cooking|chopping|slicing|shaving|oven|stove|pan|iron|kettle|paper\s+cut|rosebush|thorns?|garden\w*|rocks?|beach|bike|skateboard|by\s+mistake|broken\s+glass|bites?|mosquito\w*|itch\w*|eczema|rash|scabs?|sunburn\w*|nick|plasters?|band-?aids?|just\s+a\s+(?:little|small|tiny))\b`)
	// victimMe: a silence kept about what is done to the user.
	victimMe   = regexp.MustCompile(`\btouch\w*\s+me\b|\bto\s+me\b|\bif\s+i\s+(?:ever\s+)?(?:tell|told)\b|\bme\s+away\b|\bphotos?\s+of\s+me\b`)
	deliberate = regexp.MustCompile(`\b(?:on\s+purpose|deliberately|to\s+feel\s+something|to\s+punish\s+myself|because\s+i\s+(?:wanted|deserved?|was\s+bad|hate\s+myself)|until\s+i\s+(?:couldn't|could\s+not)|(?:until|till|til)\s+it\s+(?:bled|hurt|blistered|burned|bruised)|so\s+i(?:'d|\s+would)\s+(?:stop|feel)|wanted\s+to\s+feel)\b`)
	// relationshipFrame in the message or the previous turn makes "end it"
	// a break-up, a call or a game.
	relationshipFrame = regexp.MustCompile(`\b(?:relationship|dating|boyfriend|girlfriend|bf|gf|husband|wife|partner|marriage|engaged|engagement|break\s+up|breaking\s+up|broke\s+up|divorce|him|her|them|friendship|lease|contract|subscription|membership|game|match|season|call|meeting|argument|fight|discussion|conversation|chat|project|job|together|lying|cheat\w*|amicabl\w*|hard\s+feelings)\b`)
	// trivialIf is an antecedent that makes "if X, I'll kill myself" a
	// figure of speech.
	trivialIf = regexp.MustCompile(`\b(?:meetings?|homework|class|lectures?|songs?|ads?|adverts?|commercials?|traffic|another|one\s+more\s+(?:[a-z]+\s+)?(?:meeting|email|song|salad|episode|word|minute)|sit\s+through|listen\s+to|hear|watch|eat|late|lol|haha\w*|lmao)\b`)
	// consequent after "if": the match is what will follow, not the
	// condition ("if he leaves me again I'll end it").
	consequent  = regexp.MustCompile(`,|\bi'll\b|\bi\s+will\b|\bi'm\s+(?:going|gonna)\b|\bi\s+would\b|\bi'd\b|\bthen\b|\bi\s+swear\b`)
	consequentI = regexp.MustCompile(`\bi'm\b|\bi\s+am\b`)
	// riskContext in the message or the previous turn lets a weak
	// phrasing count: drinking, a relapse, despair.
	riskContext = regexp.MustCompile(`\b(?:drank|drinking|drunk|relapsed?|used\s+again|high|sad|depressed|lonely|alone|hopeless|empty|numb|crying|cried|tired\s+of|exhausted|end(?:ing)?\s+it|kill\s+myself|die|dead|bad\s+(?:day|night|week)|rough|struggling|worthless|burden|hate\s+my\s+life|give\s+up|can't\s+do\s+this|too\s+much|can't\s+cope|overwhelmed|nobody\s+around|no\s+one\s+around|quiet\s+spot|(?:all|it\s+all)\s+planned(?:\s+out)?|after\s+(?:everyone|everybody)(?:'s|\s+is)\s+asleep|when\s+(?:my\s+\w+|everyone|everybody|nobody)(?:'s|\s+is)\s+(?:away|out|asleep|home)|everything(?:'s|\s+is)\s+(?:arranged|sorted|in\s+order)|affairs\s+in\s+order|goodbyes?|my\s+note|pills|rope)\b`)
	// otherPast: someone else's statement in a distant or resolved past is
	// no finding at all.
	otherPast = regexp.MustCompile(`\b(?:used\s+to|years\s+ago|decades\s+ago|long\s+ago|back\s+in\s+(?:the\s+day|(?:19|20)[0-9][0-9]|my\s+\w+\s+days|college|school|uni|high\s+school|university)|in\s+(?:19|20)[0-9][0-9]|when\s+(?:i|he|she|they|my\s+\w+)\s+was\s+(?:young|younger|little|small|a\s+(?:kid|child|baby|teen|teenager|boy|girl))|(?:now|today)\s+(?:he|she|they)(?:'s|\s+is|\s+are|'re)?\s+(?:doing|thriving|fine|better|happy|well|okay|a\s+\w+)|now\s+(?:he|she|they)\s+\w+s\b|thriving|recovered|in\s+recovery|in\s+the\s+(?:\w+ties|[0-9]0s)|lived\s+to|back\s+then|before\s+i\s+was\s+born|when\s+i\s+was\s+(?:[0-9]+|[a-z]+teen|little|young|a\s+\w+))\b`)
	// resolvedPast: the user's own statement about a past that is over.
	resolvedPast = regexp.MustCompile(`\b(?:doing\s+(?:well|better|good|great|okay|ok|fine)\s+now|better\s+now|clean\s+for|sober\s+for|in\s+recovery|recovered|back\s+in\s+(?:the\s+day|(?:19|20)[0-9][0-9]|my\s+\w+\s+days|college|school|uni|high\s+school|university)|as\s+a\s+teen(?:ager)?|last\s+year|when\s+i\s+was\s+(?:[0-9]+|[a-z]+teen)|a\s+long\s+time\s+ago|i'm\s+(?:good|okay|ok|fine|happy|better)\s+now|(?:\d+|two|three|four|five|six|seven|eight|nine|ten|many|several|a\s+few)\s+years?\s+(?:ago|clean|free|sober))\b`)
)

// riskCtx is what the frames read beyond the sentence: the message and the
// user's previous turn, normalised.
type riskCtx struct {
	msg, prev string
	app       string // the kind of app, for its extras
	// msgMask is the prefilters the message passes, prevMask the previous
	// turn's (read on first use).
	msgMask, prevMask wideBits
	prevMasked        bool
	msgMasked         bool // msgMask is set
	tab               *riskTables
	rawPrev           string // prev before normalising: most messages never need it
	prevDone          bool
	// work counts the reading's bytes and ends it with its context
	// (riskbound.go); nil reads to the end.
	work *budget
	// What is read once per message, per previous turn and per sentence
	// (riskbound.go).
	msgFrames, prevFrames, sentFrames frames
	sent                              string // the sentence sentFrames and sentAt are of
	sentAt                            int    // where sent starts in msg: -1 nowhere
	sentSpans                         map[*regexp.Regexp][][]int
	mentions                          *mentionsBefore
	prevMention                       int
	prevMentionDone                   bool
	personNamedMemo, prevIfMemo       int8 // 0 not read, 1 false, 2 true
}

// previous is the user's previous turn, normalised on first use.
// tables are the risk tables the message is read with, fixed for the
// message on first use.
func (c *riskCtx) tables() *riskTables {
	if c.tab == nil {
		c.tab = risks()
	}
	return c.tab
}

func (c *riskCtx) previous() string {
	if !c.prevDone {
		c.prevDone = true
		if c.rawPrev != "" {
			c.prev = riskFold(c.rawPrev)
		}
	}
	return c.prev
}

// RiskOf reports the strongest distress or crisis statement in text, a
// user's message. The conventions, chosen to be conservative (the
// taxonomy is docs/safety.md):
//
//   - The user's own statements: intent, plans, preparation, means, acts
//     and danger now are high ("I'm going to kill myself", "I've been
//     saving my pills", "he held me down"); passive ideation ("I wish I
//     wouldn't wake up", "everyone would be better off without me"),
//     hopelessness, distress and control ("he checks my phone") are
//     medium. Questions count when they are about the user or no one ("is
//     it normal to want to die?"), not when they ask the companion ("do you
//     ever want to die?") or about people in general.
//   - A negated wish to die or to hurt oneself ("I don't want to die", "I'm
//     not suicidal", "I would never hurt myself") and a past one ("I used
//     to cut myself", "years ago I tried, I'm doing well now") are low: a
//     denial is still worth seeing on the session, never an alert. Negated
//     or past hopelessness and distress are no risk at all; past abuse ("I
//     was abused as a child") is medium.
//   - Someone else's crisis ("my friend said she hates her life", "my
//     brother wants to kill himself") is a low risk with actor other: a
//     concern the user carries, not their own state. Someone else's past
//     ("my grandfather took his own life when my dad was little") is none.
//   - Frames cancel a phrasing: a topic (school work, books, films, games,
//     campaigns, someone's recovery story), a title or lyric, hyperbole
//     and idioms ("dying to see", "killing me", "thought I'd die on that
//     ride"), play ("we were play-fighting and he punched me"), accidents
//     ("cut my finger chopping onions"), "end it" about a relationship,
//     "no point" about a trivial thing, "if I have to sit through another
//     meeting I'll kill myself". A condition does not cancel intent: "if
//     he leaves me again I'll end it" is high.
//   - Quoted text is a title or lyric unless a speech verb introduces it
//     (`she said "I want to die"` is other, `I told him "I want to die"` is
//     the user's).
func RiskOf(text string) (RiskFinding, bool) {
	return RiskInTurn("", text)
}

// RiskInTurn is RiskOf of a user's message read after prev, the same
// user's previous turn in the session ("" for none): a frame there (a
// book being discussed, a boyfriend) and distress there ("I drank on
// Saturday.") qualify what the message says.
func RiskInTurn(prev, text string) (RiskFinding, bool) {
	return RiskInApp("", prev, text)
}

// RiskInApp is RiskInTurn for a message of an app of the kind named (""
// for none): the core lexicons, and the kind's extras (Kind.RiskExtras).
func RiskInApp(kind, prev, text string) (RiskFinding, bool) {
	ctx := &riskCtx{msg: riskFold(text), app: kind, rawPrev: prev}
	return riskIn(ctx)
}

// riskIn reads ctx's message (folded; its previous turn raw or folded).
func riskIn(ctx *riskCtx) (RiskFinding, bool) {
	tab := ctx.tables()
	may := tab.set.mask(ctx.msg)
	ctx.msgMask, ctx.msgMasked = may, true
	if !may.meets(&tab.patternBits) {
		return RiskFinding{}, false // most messages hold none of the patterns' words
	}
	best := riskPass(ctx, false)
	if !may.meets(&tab.weak) || maxFinding(best) || ctx.work.done() {
		return best, best.Class != ""
	}
	// A weak phrasing counts after a finding, in a risk context, or as
	// the consequent of a bad event ("if they take my kids away I'm not
	// going to be around to see it").
	if w := riskPass(ctx, true); w.Class != "" && better(w, best) {
		if best.Class != "" || ctx.inMsg(riskContext) || ctx.inPrev(riskContext) ||
			ctx.inMsg(badIf) || (ctx.prevIf() && ctx.inPrev(badIf)) {
			best = w
		}
	}
	return best, best.Class != ""
}

// riskPass reads the message's sentences once: the strong phrasings, or
// with weak the weak ones only.
func riskPass(ctx *riskCtx, weak bool) RiskFinding {
	var best RiskFinding
	for _, rs := range riskSentences(ctx.msg) {
		sent := rs.text
		if maxFinding(best) || !ctx.spend(len(sent)) {
			break // nothing can be stronger, or the reading was cancelled
		}
		// Quotes first: each is classified alone, then attributed.
		var quotes [][]int
		if mayQuote(sent) {
			quotes = quoted.FindAllStringIndex(sent, -1)
		}
		for _, loc := range quotes {
			inner := strings.Trim(strings.TrimSpace(sent[loc[0]:loc[1]]), `"'.,!?;: `)
			// The speech verb ends the text before the quote: its
			// window is read, not the whole sentence before it.
			before := strings.TrimSpace(sent[windowStart(sent, loc[0]):loc[0]])
			tail := speechTail(before)
			if !ctx.spend(len(tail)) {
				break
			}
			if !speechVerb.MatchString(tail) {
				continue // a title, a lyric, a name
			}
			for _, f := range sentenceRisks(" "+inner+" ", -1, ctx, weak) {
				if f.Actor == ActorUser && ctx.spend(len(before)) &&
					nearestSubject(strings.TrimSuffix(before, speechVerb.FindString(tail)), false) != ActorUser {
					f = RiskFinding{Class: f.Class, Severity: SeverityLow, Actor: ActorOther}
				}
				if better(f, best) {
					best = f
				}
			}
		}
		at := rs.at
		if len(quotes) > 0 {
			sent, at = replaceSpans(sent, quotes, " _ "), -1
		}
		for _, f := range sentenceRisks(sent, at, ctx, weak) {
			if better(f, best) {
				best = f
			}
		}
	}
	return best
}

// sentenceRisks lists what the patterns find in one normalised sentence:
// the strong phrasings, or with weak the weak ones.
//
// at is where sent starts in the message, -1 when it is no part of it (a
// quote read alone, a sentence joined with its tail or with its quotes
// left out).
func sentenceRisks(sent string, at int, ctx *riskCtx, weak bool) []RiskFinding {
	tab := ctx.tables()
	may := tab.set.mask(sent)
	if may.none() {
		return nil // most sentences hold none of the patterns' words
	}
	ctx.setSentence(sent, at)
	var out []RiskFinding
	for i, p := range tab.patterns {
		if !may.has(i) || p.weak != weak {
			continue // a sentence holds the words of few patterns, if any
		}
		if p.apps != "" && p.apps != ctx.app {
			continue // another app's extra
		}
		if !ctx.mayHold(tab.cues[i].needs) || !ctx.mayHold(tab.cues[i].also) {
			continue // the message and the turn before lack the cues it needs
		}
		if !ctx.spend(len(sent)) {
			return out
		}
		for _, loc := range p.re.FindAllStringIndex(sent, -1) {
			if f, ok := judge(p, sent, loc[0], loc[1], ctx); ok {
				out = append(out, f)
			}
			if ctx.work.done() {
				return out
			}
		}
	}
	return out
}

// judge decides what one match of p in sent means.
//
// It reads the sentence within riskWindow of the match (the prefix before
// it, the text after it); the frames of the whole sentence, message and
// previous turn are read once each (riskbound.go).
func judge(p riskPattern, sent string, start, end int, ctx *riskCtx) (RiskFinding, bool) {
	match := sent[start:end]
	lo, hi := windowStart(sent, start), windowEnd(sent, end)
	after := sent[end:hi]
	ctx.spend(8 * (hi - lo)) // the scans of the window below, a few times over
	if p.not != nil && p.not.MatchString(after) {
		return RiskFinding{}, false
	}
	borrowed := false // a cue was read in the turn before: its explanation is read there too
	if p.needs != nil && !ctx.inMsg(p.needs) {
		if !ctx.inPrev(p.needs) {
			return RiskFinding{}, false // the cues a phrasing needs, in the message or the turn before
		}
		borrowed = true
	}
	if p.also != nil && !ctx.inMsg(p.also) {
		if !ctx.inPrev(p.also) {
			return RiskFinding{}, false
		}
		borrowed = true
	}
	if p.unless != nil && (ctx.inMsg(p.unless) || borrowed && ctx.inPrev(p.unless)) {
		return RiskFinding{}, false // the innocent explanation of the cue ("too much coffee" | "awake all night")
	}
	prefix := sent[lo:start]
	clause, cs := prefix, lo // cs: where clause starts in sent
	if ends := clauseBoundaryEnds(prefix); len(ends) > 0 {
		clause, cs = prefix[ends[len(ends)-1]:], lo+ends[len(ends)-1]
	}
	if ctx.inSpan(titleContext, cs, start) {
		return RiskFinding{}, false
	}
	if (p.agent || p.class == RiskSelfHarm) && !namesOther(match) && (actedByOther(clause) || elidedSubjectOther(prefix, clause)) {
		return RiskFinding{}, false // "the cat scratched my arm": not the user's act
	}
	if strings.Contains(prefix, "accidentally") || strings.Contains(prefix, "by accident") {
		return RiskFinding{}, false
	}
	// A condition: the phrasing inside it is hypothetical ("what if I
	// wanted to die"), after it is intent unless the condition is trivial.
	conditional := false
	if ctx.prevIf() && p.class == RiskSuicidal && !strings.Contains(" "+prefix, " if ") {
		if ctx.inPrev(trivialIf) || ctx.inPrev(thingsFrame) {
			return RiskFinding{}, false
		}
		conditional = true // "if it happens again" | "i'm ending it"
	} else if i := strings.LastIndex(" "+prefix, " if "); i >= 0 && p.class != RiskAbuse {
		cond := sent[lo+max(i-1, 0) : end]
		condAfter := "" // the condition past its subject: "if I get fired| I'm ending it"
		if f := strings.Fields(cond); len(f) > 2 {
			condAfter = strings.Join(f[2:], " ")
		}
		if !consequent.MatchString(cond) && !consequentI.MatchString(condAfter) || trivialIf.MatchString(cond) || trivialIf.MatchString(after) {
			return RiskFinding{}, false
		}
		conditional = true // "if he leaves me again I'll end it": the leaving is no break-up frame
		if p.endIt && thingsFrame.MatchString(cond) {
			return RiskFinding{}, false // "if they raise the price again I'm ending it"
		}
	}
	if p.endIt && (ctx.inMsg(thingsFrame) || ctx.inPrev(thingsFrame)) && !ctx.inMsg(crisisNear) {
		return RiskFinding{}, false // a contract, a game, a call
	}
	if p.endIt && !conditional && (ctx.inMsg(relationshipFrame) || ctx.inPrev(relationshipFrame) ||
		(nearestSubject(prefix, false) == ActorUser && !singularI(prefix))) {
		return RiskFinding{}, false // ending a relationship, a call, a game; "we've decided to end it"
	}
	if p.class == RiskAbuse && !p.secret && ctx.inMsg(playFrame) {
		return RiskFinding{}, false // play-fighting, a pillow fight
	}
	if p.class == RiskAbuse && !p.grave && (ctx.inMsg(sportFrame) || ctx.inMsg(accidentContact) && !ctx.inMsg(onPurpose)) {
		return RiskFinding{}, false // a tackle, a kick by accident, "he didn't see me"
	}
	if p.class == RiskSelfHarm && !p.agent && ctx.inSent(accidentFrame) && !ctx.inSent(deliberate) {
		return RiskFinding{}, false // an accident or a minor injury
	}
	if p.class == RiskSuicidal && p.sev == SeverityMedium && ctx.inSent(hyperbole) {
		return RiskFinding{}, false // a ride, an illness, laughter
	}

	// Whose words: the phrasing's own pronouns, then a third-person verb,
	// then the nearest subject before it.
	actor := ""
	own := false // the phrasing names the user itself
	words := riskWordsOf(match)
	for _, w := range words {
		switch {
		case w == "i" || w == "my" || w == "myself" || w == "me" || w == "i'm" || w == "i'd" || w == "i've" || w == "i'll" || w == "self":
			own = true
			if actor == "" {
				actor = ActorUser
			}
		case (subjectOther[w] && w != "him" && w != "them") || w == "her" || w == "their" || w == "themself":
			// "him" and "them" are objects: "hid them" is no one else's words
			if actor == "" {
				actor = ActorOther
			}
		case w == "yourself":
			return RiskFinding{}, false
		}
	}
	if own && actor == ActorOther {
		actor = ActorUser // "carved his name into my arm"
	}
	if p.class == RiskAbuse && (strings.HasSuffix(match, " me") || own || strings.Contains(match, " our ") || (p.needs != nil && ctx.inMsg(victimMe)) || abuseOfUser(p, match)) {
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
	if strings.HasSuffix(prefix, " part of me ") {
		actor = ActorUser // "part of me wants to die"
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

	// A topic: a bare noun, someone else's words and what is not the
	// user's own statement are the topic's, not the user's state.
	topical := topicFrame
	if p.grave {
		topical = topicStrict // "a secret game": a game named by the child is no topic
	}
	if ctx.inSent(topical) && (p.mention || actor == ActorOther || (!own && !singularI(prefix))) {
		return RiskFinding{}, false
	}
	if actor == ActorOther && (ctx.inMsg(topicFrame) || ctx.inPrev(topicFrame)) {
		return RiskFinding{}, false
	}
	if p.mention && actor == ActorUser && !singularI(prefix) && !own {
		// "suicide rates", "domestic violence is": a mention, not a
		// statement, unless the user is the subject.
		if nearestSubject(prefix, false) != ActorUser {
			return RiskFinding{}, false
		}
	}

	f := RiskFinding{Class: p.class, Actor: actor, Severity: p.sev}
	if f.Severity == "" {
		switch p.class {
		case RiskSuicidal, RiskSelfHarm, RiskAbuse, RiskSubstance:
			f.Severity = SeverityHigh
		default:
			f.Severity = SeverityMedium
		}
	}
	if p.class == RiskAbuse && !p.secret && pronounSubject(prefix, match) {
		// "she hits me": whose blow the pronoun stands for is read in the
		// message and the turn before. What a pet or an animal does (a
		// bite, a blow, following) is no abuse, unless what is said is
		// something no animal does ("when he's drunk"); a bare blow or
		// following ("she hits me", "he followed me home") with no one
		// named at all and no harm said is medium.
		switch ref, inPrev := ctx.referent(sent, start); ref {
		case referentAnimal:
			if animalAct.MatchString(match) && !ctx.inMsg(humanOnly) && (!inPrev || !ctx.inMsg(harmNamed)) {
				return RiskFinding{}, false // "my cat is so needy | she hits me when she wants food"
			}
		case referentNone:
			if !p.grave && f.Severity == SeverityHigh && bareAct.MatchString(match) && !ctx.inMsg(harmSaid) && !ctx.inPrev(harmSaid) {
				f.Severity = SeverityMedium
			}
		}
	}
	if p.class == RiskAbuse && p.person && !p.grave && smallChild[nearestPerson(prefix)] && ctx.inMsg(childCare) {
		return RiskFinding{}, false // "my nephew kicked me in the face while I was changing him"
	}
	if p.class == RiskAbuse && p.person && !p.grave && peers[nearestPerson(prefix)] {
		if ctx.inMsg(madeUp) {
			return RiskFinding{}, false // "we're fine now"
		}
		f.Severity = SeverityMedium // a sibling's or a classmate's blow: a fight, seen, not an emergency
	}
	if actor == ActorOther {
		if ctx.inSent(otherPast) || ctx.inMsg(otherRecovery) {
			return RiskFinding{}, false // someone else's past
		}
		f.Severity = SeverityLow
		return f, true
	}
	negated := lastWordsNegate(clause, 3)
	history := ctx.inSpan(historyMarks, cs, start) || ctx.inSpan(historyMarks, end, hi) || ctx.inSent(resolvedPast)
	if history && ctx.inSent(nowMarks) {
		history = false // "40 days clean and I relapsed", "it's still happening"
	}
	switch {
	case negated && (p.class == RiskSuicidal || p.class == RiskSelfHarm):
		f.Severity = SeverityLow
	case negated:
		return RiskFinding{}, false
	case history && (p.class == RiskSuicidal || p.class == RiskSelfHarm):
		f.Severity = SeverityLow
	case history && p.class == RiskAbuse && ctx.inMsg(resolution):
		f.Severity = SeverityLow // "I left him in 1968"
	case history && p.class == RiskAbuse:
		f.Severity = SeverityMedium
	case history:
		return RiskFinding{}, false
	case ctx.inSent(jokeFrame) && (p.class == RiskSuicidal || p.class == RiskSelfHarm):
		f.Severity = SeverityLow
	case conditional && p.class == RiskSuicidal:
		f.Severity = SeverityHigh // conditional intent: "if she leaves, I'm done living"
	}
	return f, true
}

// peers are the people whose blows are a fight between children or
// friends rather than abuse by someone with power over the user.
var peers = set("brother", "sister", "cousin", "friend", "friends", "classmate", "kids", "boys", "girls", "bestie", "mate",
	"stepbrother", "stepsister")

// madeUp: a fight between peers that is over.
var madeUp = regexp.MustCompile(`\b(?:(?:we're|we\s+are|it's|we've)\s+(?:fine|ok|okay|good|friends\s+again|cool)\s+now|made\s+up)\b`)

// nearestPerson is the person noun nearest before a phrasing, or "".
func nearestPerson(prefix string) string {
	words := riskWordsOf(prefix)
	for i := len(words) - 1; i >= 0; i-- {
		w := strings.TrimSuffix(words[i], "'s")
		if riskPersons[w] {
			return w
		}
		if subjectUser[w] {
			return ""
		}
	}
	return ""
}

// singularI reports whether the nearest subject before a phrasing is the
// user alone ("I", not "we").
func singularI(prefix string) bool {
	words := riskWordsOf(prefix)
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		switch {
		case w == "i" || w == "i'm" || w == "i've" || w == "i'd" || w == "i'll" || w == "me" || w == "myself":
			return true
		case subjectUser[w] || subjectOther[w] || subjectYou[w] || subjectGeneric[w] || riskPersons[w]:
			return false
		}
	}
	return false
}

// nearestSubject reads the words before a phrasing backwards and names the
// first subject found: user, other, you, generic, person (a person noun, or
// he/she/they, when person is asked for) or "" for none. "it", "this" and
// "that" are skipped ("is it normal to want to die?").
func nearestSubject(prefix string, person bool) string {
	words := riskWordsOf(prefix)
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		if t := strings.TrimSuffix(w, "'s"); t != w && (subjectGeneric[t] || subjectOther[t]) {
			w = t // "someone's been waiting"
		}
		switch {
		case person && (w == "me" || w == "us" || w == "myself"):
			continue // an object: "he pushed me into the cupboard and ... wouldn't let me out"
		case subjectUser[w]:
			if person {
				return ""
			}
			return ActorUser
		case (riskPersons[w] || riskPersons[strings.TrimSuffix(w, "'s")]) && objectOfI(words[:i]):
			continue // "I wrote my mum a letter": my mum is the object
		case strings.HasSuffix(w, "'s") && riskPersons[strings.TrimSuffix(w, "'s")] && i+1 < len(words) && !hasVerbs[words[i+1]]:
			continue // "I found mum's pills": a possessive, not "mum's been"
		case riskPersons[w] || riskPersons[strings.TrimSuffix(w, "'s")]:
			return "person"
		case subjectOther[w]:
			if person {
				return "person"
			}
			return ActorOther
		case subjectYou[w]:
			return "you"
		case subjectGeneric[w] && objectOfUser(words[:i]):
			continue // "I'd be doing everyone a favour": everyone is the object
		case subjectGeneric[w]:
			if person {
				return "person"
			}
			return "generic"
		case person && (w == "it" || w == "this" || w == "that" || w == "ball" || w == "car") && !personBefore(words[:i]) &&
			(i == len(words)-1 || words[i+1] != "and" && words[i+1] != "then"):
			return "" // "the car hit me"; not "a man in a car"
		}
	}
	return ""
}

// objectOfI reports whether the person noun after before is the object of
// the user's own verb: "I wrote my mum", not "I think my brother".
func objectOfI(before []string) bool {
	n := len(before)
	if n < 3 || (before[n-1] != "my" && before[n-1] != "our") {
		return false
	}
	verb := before[n-2]
	return !complementVerbs[verb] && !subjectUser[verb] && (before[n-3] == "i" || before[n-3] == "i've" || before[n-3] == "just")
}

// objectOfUser reports whether a word after before is the object of the
// user's own verb ("I'd be doing everyone a favour").
func objectOfUser(before []string) bool {
	n := len(before)
	if n < 2 || complementVerbs[before[n-1]] || subjectUser[before[n-1]] || objectStops[before[n-1]] {
		return false
	}
	for j := n - 2; j >= 0 && j >= n-4; j-- {
		if before[j] == "i" || before[j] == "i'd" || before[j] == "i'm" || before[j] == "i've" || before[j] == "i'll" {
			return true
		}
	}
	return false
}

// objectStops end a clause or open a subordinate one.
var objectStops = set("that", "because", "cause", "when", "if", "and", "but", "so", "why", "how", "where", "while", "until", "with", "like")

// complementVerbs introduce someone else's statement: "I think my brother
// wants to die" is the brother's.
var complementVerbs = set("think", "thought", "know", "knew", "feel", "felt", "guess", "heard", "hear", "believe", "said", "say",
	"worry", "worried", "fear", "suspect", "reckon", "noticed", "notice", "found", "saw", "see", "swear", "bet", "hope", "wish")

// lastWordsNegate reports whether one of the last n words of clause negates
// what follows ("i don't really want to die").
func lastWordsNegate(clause string, n int) bool {
	words := riskWordsOf(clause)
	for i := len(words) - 1; i >= 0 && i >= len(words)-n; i-- {
		if i+1 < len(words) && doubtVerbs[words[i+1]] {
			return false // "I don't think I can go on": a doubt, not a denial
		}
		if negators[words[i]] || words[i] == "longer" {
			return true
		}
	}
	return false
}

// doubtVerbs after a negator make it a doubt about what follows.
var doubtVerbs = set("think", "know", "believe", "reckon")

// riskyText reports whether a candidate's own text (a memory's value, a
// summary line written by a model) holds a risk phrasing, whoever's and
// however negated: such a line never becomes a memory or a pack line.
func riskyText(text string) (class string, ok bool) {
	norm := riskFold(text)
	tab := risks()
	may := tab.set.mask(norm)
	for i, p := range tab.patterns {
		if !may.has(i) {
			continue
		}
		if p.apps != "" || (tab.cues[i].needs >= 0 && !may.has(tab.cues[i].needs)) || (tab.cues[i].also >= 0 && !may.has(tab.cues[i].also)) {
			continue // the text lacks the cues the phrasing needs
		}
		if p.weak {
			continue // a weak phrasing says nothing alone
		}
		locs := p.re.FindAllStringIndex(norm, -1) // first: most texts hold none
		if len(locs) == 0 || (p.needs != nil && !p.needs.MatchString(norm)) || (p.also != nil && !p.also.MatchString(norm)) ||
			(p.unless != nil && p.unless.MatchString(norm)) {
			continue // one short of its context, or explained away
		}
		for _, loc := range locs {
			if p.not != nil && p.not.MatchString(norm[loc[1]:windowEnd(norm, loc[1])]) {
				continue
			}
			if p.person && nearestSubject(norm[windowStart(norm, loc[0]):loc[0]], true) != "person" {
				continue
			}
			return p.class, true
		}
	}
	return "", false
}

// GuardRisk is the reason a kind's write guard gives for refusing a
// preference about harm.
const GuardRisk = "guard:risk"

// Screen's reasons in Dropped are "risk:<class>", "special:<category>",
// "sealed:<category>" and "about_person".

// dropAboutPerson: a like or dislike of a person ("I don't like my new
// manager at work") is a statement about someone else, not a preference of
// the user's. The memory rules give the same reason (DropAboutPerson).
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
//   - Every user message is read with RiskInTurn after the user's previous
//     turn; each statement found becomes a Risk (class, severity, message,
//     actor; never the text) in res.Risks. On the LLM path they are
//     combined with the model's own judgement (res.ModelRisks) by
//     CombineRisks, which records in res.RiskLowered what the model
//     lowered. Nothing of a message holding the user's own risk
//     statement of medium or high severity (before any lowering) is
//     stored: the message is reported in Dropped with reason
//     risk:<class> and its memories are dropped. Rules never lets the
//     kind's rules read it (withhold, in withheld.go); a result whose
//     author read it (a model's answer, or a rules result when only a
//     model's second look found the risk) loses every string holding a
//     word that only such a message said (crisisWords). Any candidate
//     whose own text holds a risk phrasing (a model's paraphrase, a
//     summary line) is dropped too, whoever's words and however negated.
//   - A like or dislike of a person is dropped as about_person.
//   - A candidate holding a special category of personal data
//     (SpecialCategory) is dropped with special:<category> under the
//     policy's drop, kept under keep, and under keep_sealed left in the
//     sealed transcript only, reported as sealed:<category>.
//
// Memories, records with a "value", and, for kinds whose packs carry
// what other sessions left (PackPolicy.Isolated), the strings of the profile
// updates and the session summary are screened; a kind that keeps nothing
// across sessions keeps its caregiver summary whole but for the words of a
// crisis message (crisisWords). Screen is idempotent: a second call finds
// the same risks and drops nothing more.
func Screen(res *Result, p prompts.Policy, s Session) {
	kind := screenKind(res, p)
	unsafe, screened, _ := screenRisks(res, kind, s, nil) // no context: read to the end
	// The messages whose words the result may hold: on the LLM path all of
	// them (the model read the transcript); on the rules path those the
	// kind's rules read because the screen alone found nothing there
	// (Rules withheld the others), found by a model's second look.
	heard := unsafe
	if res.Source != SourceLLM {
		heard = map[string]string{}
		for id, class := range unsafe {
			if _, ok := screened[id]; !ok {
				heard[id] = class
			}
		}
	}
	screenResult(res, p, kind, s, unsafe, heard)
}

// screenKind is the kind whose rule set the policy names, or the result's
// app's.
func screenKind(res *Result, p prompts.Policy) Kind {
	return KindOf(cmp.Or(p.Rules, res.App))
}

// screenRisks is Screen's reading of the risks, the one place that decides
// which messages nothing may be kept of: it sets res.Risks, RiskGrey and
// RiskLowered, reports in Dropped the model's entries it ignored, and
// returns unsafe, the messages of the user's own medium or high risk (before
// any lowering), id -> class, and screened, those of them the screen found
// without the model's judgement (the same set when there is none).
//
// work ends the reading early when its context ends; its error is then
// returned with nothing else. nil reads to the end.
func screenRisks(res *Result, kind Kind, s Session, work *budget) (unsafe, screened map[string]string, err error) {
	res.Risks = nil
	if res.Risks, err = rulesRisks(kind, s, work); err != nil {
		return nil, nil, err
	}
	if err := work.check(); err != nil {
		res.Risks = nil
		return nil, nil, err // the trained layer reads every message again
	}
	res.Risks, res.RiskGrey = withTrained(s, res.Risks)
	screen := res.Risks
	// One policy for every source (docs/safety.md, "Sources and the
	// policy"): the screen's findings, joined one per message, and the
	// model's judgement when there is one, which may add and raise but
	// never lower a high finding nor give the user's risk to someone else.
	var ignored []Dropped
	res.Risks, res.RiskLowered, ignored = CombineRisks(s, res.Risks, res.ModelRisks)
	for _, d := range ignored {
		if !slices.Contains(res.Dropped, d) {
			res.Dropped = append(res.Dropped, d)
		}
	}
	unsafe = unsafeOf(res.Risks, res.RiskLowered)
	if len(res.ModelRisks) == 0 {
		return unsafe, unsafe, nil
	}
	alone, lowered, _ := CombineRisks(s, screen, nil)
	return unsafe, unsafeOf(alone, lowered), nil
}

// rulesRisks are the risks the rules read in the user's messages, each
// read after the user's previous turn (RiskInTurn), in order; work's
// error when its context ends first.
func rulesRisks(kind Kind, s Session, work *budget) ([]Risk, error) {
	var risks []Risk
	var prev *riskCtx // the user's previous turn: its frames and distress carry over
	for _, m := range s.Messages {
		if !isUser(m.Role) {
			continue
		}
		if !work.spend(len(m.Content)) {
			return nil, work.err
		}
		// The previous turn was read folded and masked as a message: its
		// reading is passed on, not repeated.
		ctx := &riskCtx{msg: riskFold(m.Content), app: kind.Name(), work: work}
		if prev != nil {
			ctx.prev, ctx.prevDone, ctx.prevMask, ctx.prevMasked = prev.msg, true, prev.msgMask, prev.msgMasked
			ctx.prevFrames = prev.msgFrames
		}
		f, ok := riskIn(ctx)
		if work.done() {
			return nil, work.err
		}
		prev = ctx
		if ok {
			risks = append(risks, Risk{Class: f.Class, Severity: f.Severity, MessageID: m.ID, Actor: f.Actor, Source: RiskSourceRules})
		}
	}
	return risks, nil
}

// unsafeOf are the messages of the user's own medium or high risk among
// risks, and among the findings lowered (the memory drop follows the
// strongest finding before any lowering: a medium the model lowered with a
// frame still keeps its message out), id -> class.
func unsafeOf(risks []Risk, lowered []Lowering) map[string]string {
	unsafe := map[string]string{}
	for _, r := range risks {
		if r.Actor == ActorUser && r.Severity != SeverityLow {
			unsafe[r.MessageID] = r.Class
		}
	}
	for _, l := range lowered {
		if _, ok := unsafe[l.MessageID]; !ok && l.Actor == ActorUser && l.FromSeverity != SeverityLow {
			unsafe[l.MessageID] = l.FromClass
		}
	}
	return unsafe
}

// screenResult is Screen's gate on what the result would store, given
// unsafe and heard (Screen): each unsafe message is reported in Dropped as
// risk:<class>, its memories are dropped, and every candidate's text is
// judged (verdict), with the words only the messages in heard said
// (crisisWords).
func screenResult(res *Result, p prompts.Policy, kind Kind, s Session, unsafe, heard map[string]string) {
	special := SpecialPolicy(p, kind.Name())
	// One entry per message and reason, found in a set: a search of the
	// list for each drop would be quadratic in the drops.
	listed := make(map[Dropped]bool, len(res.Dropped))
	for _, d := range res.Dropped {
		listed[d] = true
	}
	drop := func(messageID, reason string) {
		d := Dropped{MessageID: messageID, Reason: reason}
		if !listed[d] {
			listed[d] = true
			res.Dropped = append(res.Dropped, d)
		}
	}
	for _, m := range s.Messages {
		if class, ok := unsafe[m.ID]; ok && isUser(m.Role) {
			drop(m.ID, "risk:"+class) // nothing of it is kept, whatever it would have given
		}
	}
	crisis := crisisWords(s, heard)
	// verdict is why a candidate's text must not be stored, or "".
	verdict := func(text string, preference bool) string {
		if class, ok := riskyText(text); ok {
			return "risk:" + class
		}
		if class, ok := crisisIn(text, crisis); ok {
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
				drop("", why) // a record is not a message
				continue
			}
		}
		recs = append(recs, r)
	}
	res.Records = recs

	screenDoc := func(doc map[string]any, verdict func(string, bool) string) {
		for k, v := range doc {
			if nv, why := screenValue(v, verdict); why != "" {
				drop("", why)
				doc[k] = nv
			}
		}
	}
	if kind.PackPolicy().Isolated {
		// The caregiver's summary stays whole but for the words of a
		// message nothing may be kept of.
		if crisis != nil {
			only := func(text string, _ bool) string {
				if class, ok := crisisIn(text, crisis); ok {
					return "risk:" + class
				}
				return ""
			}
			screenDoc(res.ProfileUpdates, only)
			screenDoc(res.SessionSummary, only)
		}
		return
	}
	screenDoc(res.ProfileUpdates, verdict)
	screenDoc(res.SessionSummary, verdict)
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

// prefiltersOf lists n prefilters, the ith from pre.
func prefiltersOf(n int, pre func(int) prefilter) []prefilter {
	out := make([]prefilter, n)
	for i := range out {
		out[i] = pre(i)
	}
	return out
}
