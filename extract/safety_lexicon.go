package extract

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// The risk screen's lexicons by family (issue 23 §1, docs/safety.md): the
// phrasings of corePatterns widened by paraphrase, inflection and the
// cues a family is recognised by together (a substance, an excess and a
// symptom; a secret, a grown-up and touching). Each is qualified by the
// frames judge applies to every phrasing (target, topic, hyperbole,
// negation, time, play, accident) and by its own not, needs, also and
// unless.

// basePatterns are the core phrasings and the families' lexicons; the
// patterns read (riskTables) add the kinds' extras.
var basePatterns = slices.Concat(splitAlternatives(corePatterns, false), splitAlternatives(familyPatterns, true), splitAlternatives(conceptPatterns, true))

// splitAlternatives gives each top-level alternative of a pattern's
// expression its own pattern, with the same options: a sentence then runs
// only the alternatives whose words it holds (the prefilter of an
// alternation is the union of its alternatives').
// A core phrasing with a not is kept whole (its alternatives shadow one
// another, and the not was written for the whole), unless all is set.
func splitAlternatives(ps []riskPattern, all bool) []riskPattern {
	var out []riskPattern
	for _, p := range ps {
		tree, err := syntax.Parse(p.re.String(), syntax.Perl)
		if err != nil || tree.Op != syntax.OpAlternate || (!all && p.not != nil) {
			out = append(out, p)
			continue
		}
		for _, sub := range tree.Sub {
			q := p
			q.re = regexp.MustCompile(sub.String())
			out = append(out, q)
		}
	}
	return out
}

// lx is a phrasing of class at the user's severity sev ("" for the
// class's own).
func lx(class, sev, re string) riskPattern {
	return riskPattern{class: class, sev: sev, re: regexp.MustCompile(re)}
}

func (p riskPattern) notAfter(re string) riskPattern {
	p.not = regexp.MustCompile(`^\s*(?:` + re + `)`)
	return p
}
func (p riskPattern) with2(re string) riskPattern { p.also = regexp.MustCompile(re); return p }
func (p riskPattern) except(re string) riskPattern {
	p.unless = regexp.MustCompile(re)
	return p
}
func (p riskPattern) weakly() riskPattern   { p.weak = true; return p }
func (p riskPattern) severe() riskPattern   { p.grave = true; return p }
func (p riskPattern) kept() riskPattern     { p.grave, p.secret = true, true; return p }
func (p riskPattern) byUser() riskPattern   { p.agent = true; return p }
func (p riskPattern) byPerson() riskPattern { p.person = true; return p }
func (p riskPattern) fromUser() riskPattern { p.first = true; return p }
func (p riskPattern) endsIt() riskPattern   { p.endIt = true; return p }

// Shared vocabulary of the lexicons.
const (
	days      = `(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)`
	loved     = `(?:family|kids|children|mum|mom|dad|parents|wife|husband|partner|sister|brother|son|daughter|grandchildren|grandkids|friends)`
	gone      = `(?:gone|dead|not\s+(?:here|around|alive))`
	meansWord = `(?:rope|noose|hose|hosepipe|razor\s+blades?|blades?|gun|pills|tablets|knife|charcoal)`
	// drugWord names a substance, or its use.
	drugWord = `\b(?:drinks?|drank|drunk|drinking|wine|vodka|whiske?y|beer|gin|rum|sherry|cider|booze|alcohol|bottles?|pills|tablets|meds|medication|dose|methadone|heroin|coke|cocaine|crack|meth|ket|ketamine|mdma|molly|weed|eighth|gram|bag|needle|used|using|relapsed|high|stuff|gear|fentanyl|xanax|benzos?|snorted|injected|shot\s+up|took|taken|had|smoked|did|done|dose)\b`
	// symptom is what a substance crisis feels like.
	symptom = `\b(?:feels?|feeling|felt)\s+(?:really\s+|so\s+|very\s+|all\s+)?(?:wrong|weird|off|strange|peculiar|not\s+right|funny|like\s+i'm\s+dying|cold|sick|scared)|\b(?:don't|do\s+not)\s+feel\s+right\b|\bcan'?t\s+(?:feel|breathe|stand|stop\s+shaking|see\s+straight|remember|move|think\s+straight|wake)|\bheart(?:'s|\s+is)?\s+(?:racing|pounding|beating|going\s+crazy|doing\s+something|won't\s+slow|skipping)|\bchest\b|\bnumb\b|\bdizzy\b|\bconfused\b|\bspinning\b|\bpass(?:ing)?\s+out|\bblack(?:ing)?\s+out|\bthrowing\s+up|\bvomit\w*|\bblurry\b|\bbreathing\s+(?:feels\s+)?(?:slow|weird|shallow|funny)|\bshaking\b|\bfuzzy\b|\bscared\b|\bfrightened\b|\bseeing\s+things|\bhallucinat\w*|\bdon'?t\s+care\b|\bwhatever\s+happens`
)

// selfHarmOnPurpose: what says a hurt the user did to their own body was
// on purpose, and selfHarmInnocent what explains it away (a kitchen, a
// fall, a haircut, frustration with homework).
const (
	selfHarmOnPurpose = `on\s+purpose|deliberately|to\s+feel|because\s+i\s+(?:was\s+bad|deserve|hate|was\s+stupid|messed)|so\s+i(?:'d|\s+would|\s+could)\s+(?:stop|feel|not)|punish|\bagain\b|\btill\b|\buntil\b|\btil\b|bled|bleed|bleeding|blood|marks|scars?|fresh|blade|razor|scissors|glass|lighter|cigarette|boiling|hot\s+iron|compass|urge|relapsed|clean\s+for|days\s+clean|long\s+sleeves|bandage|went\s+purple|bruise|patchy|bald|it\s+helps|calms?\s+me|every\s+(?:day|night|time)|when\s+(?:i'm|i\s+get|it\s+gets|i\s+feel)\s+(?:anxious|angry|upset|sad|bad|stressed|overwhelmed|like)|after\s+the\s+fight|can't\s+stop|couldn't\s+stop|wanted\s+to\s+hurt`
	selfHarmInnocent  = `\b(?:washing\s+up|dishes|broke\s+a\s+glass|broken\s+glass|dropped|onions?|bread|veg\w*|carrots?|kitchen|cooking|chopping|knife\s+slipped|oven|stove|pan|kettle|baking|curling\s+iron|straighteners?|ironing|hair\s+dryer|glue\s+gun|toaster|menace|clumsy|fell\s+off|falling\s+off|came\s+off\s+my\s+(?:bike|board|scooter|horse)|skateboard\w*|scooter|climbing|football|rugby|pavement|gravel|brambles?|thorns?|nettles?|mosquito\w*|bug\s+bites?|itch\w*|eczema|chickenpox|sunburn\w*|tattoo\w*|piercing|waxing|hair\s*cut|haircut|dye|braid\w*|barber|hairdresser|spreadsheet|homework|maths?|exam|frustrat\w*\s+with|over\s+this|trying\s+to\s+(?:remember|figure|work\s+out)|drummer|drums|gym|boxing|workout|nail\s+polish|manicure|dentist|braces|lol|haha)\b`
)

var familyPatterns = []riskPattern{
	// ---- Passive ideation: a wish not to live, said without intent. Medium.
	lx(RiskSuicidal, SeverityMedium, `\b(?:i'd|i\s+would|i'll|i\s+will|i'm|i\s+am|honestly\s+i'd)\s+(?:be\s+)?(?:ok|okay|fine|alright|happy|glad|relieved|at\s+peace|content)\s+(?:with\s+it\s+)?if\s+i\s+(?:just\s+)?(?:never|didn't|did\s+not|don't|do\s+not|wouldn't)\s+(?:woke|wake|waking)\s+up\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:better|easier|simpler|happier|lighter|relieved|fine|okay|breathe\s+easier|freer|free|less\s+(?:stressed|worried|burdened)|manage|cope|get\s+on)\b(?:\s+[a-z']+){0,6}?\s+(?:without\s+me\b|(?:with\s+)?me\s+(?:gone|dead|out\s+of\s+the\s+(?:way|picture))|if\s+i\s+(?:just\s+)?(?:was|were|wasn't|weren't)\s+(?:not\s+)?(?:gone|here|around|alive|dead|in\s+the\s+ground|out\s+of\s+the\s+(?:way|picture)|never\s+born)|if\s+i\s+(?:died|disappeared|vanished|left\s+for\s+good))`).
		notAfter(`for\s+(?:a|the|one|two|\d+|a\s+few|an)\s+(?:day|night|week|weekend|bit|while|hour|evening|morning|afternoon|days|nights|weeks|hours)|this\s+(?:weekend|week)|tonight|tomorrow|next\s+\w+|while\s+i'm|on\s+the\s+(?:trip|team|project)|at\s+(?:work|the\s+party)|in\s+the\s+(?:meeting|team|band|group)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:nobody|no\s+one|noone|not\s+a\s+single\s+(?:person|soul)|not\s+one\s+person)\b(?:\s+[a-z']+){0,4}?\s+(?:miss|mourn)\s+me\b|\bif\s+i\s+(?:just\s+)?(?:vanished|disappeared|died|was\s+gone|were\s+gone|was\s+dead|were\s+dead|wasn't\s+(?:here|around|alive)|weren't\s+(?:here|around|alive)|stopped\s+existing|didn't\s+exist|killed\s+myself|never\s+came\s+back|was\s+in\s+the\s+ground)\b`).
		notAfter(`from\s+(?:the|this)\s+(?:party|group|chat|class)|for\s+(?:a|the)\s+(?:day|week|weekend)`).
		needing(`\b(?:nobody|no\s+one|noone|not\s+a\s+single|not\s+one|who\s+would\s+(?:even\s+)?(?:care|notice|miss)|(?:would|'d|wud|will)\s+(?:even\s+)?(?:notice|care|realise|realize|miss|be\s+(?:relieved|happier|better|glad))|relieved|happier|better\s+off|easier|wouldn't\s+(?:even\s+)?(?:notice|care|miss))`),
	lx(RiskSuicidal, SeverityMedium, `^\s*(?:and\s+|cuz\s+|because\s+|coz\s+)?(?:nobody|no\s+one|noone)\s+(?:would|will|wud)\s+(?:even\s+)?(?:care|notice)\s*$`).weakly(),
	lx(RiskSuicidal, SeverityMedium, `\b(?:wish|wishing|wishes|want|wanted|wanna|hope|hopes|hoping|pray|prays|praying|asking|ask|asked|beg)\b(?:\s+[a-z']+){0,5}?\s+(?:to\s+)?(?:(?:go\s+to\s+|fall\s+)?(?:a)?sleep\s+(?:forever|for\s+ever|for\s+good|and\s+(?:never|not)\s+wake)|never\s+(?:wake|woke)\s+up|not\s+(?:to\s+)?(?:let\s+me\s+)?wake\s+up|stop\s+existing|not\s+(?:to\s+)?exist|be\s+(?:with\s+[a-z]+(?:\s+[a-z]+)?\s+)?in\s+heaven|go\s+(?:up\s+)?to\s+heaven)\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:god|the\s+lord|lord|jesus|the\s+good\s+lord)\s+(?:to\s+|would\s+|will\s+|could\s+|should\s+|might\s+)?(?:just\s+)?(?:take|takes|call|calls)\s+me\b`).
		notAfter(`(?:to|through|on|in\s+(?:his|her)\s+arms\s+and\s+(?:guide|bless))\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:sick|tired|done|exhausted|weary|fed\s+up)\s+(?:of|with)\s+(?:living|being\s+alive|existing|life|breathing|waking\s+up)\b|\bdone\s+living\b`).
		notAfter(`in\b|with\s+(?:my|a|the|him|her|them|roommates?|flatmates?|parents)|on\s+(?:my|a)|out\s+of|paycheck|at\s+home|at\s+my|here\s+in|like\s+a|off\s+`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:what'?s|whats|what\s+is)\s+(?:even\s+)?the\s+point\s+(?:of\s+|in\s+)?(?:me\b|my\s+(?:life|being)|living|being\s+alive|being\s+here|existing|going\s+on|waking\s+up|staying\s+alive)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:don't|do\s+not|can't|cannot|dont)\s+see\s+(?:the|a|any)\s+point\s+(?:any\s?more|in\s+(?:living|life|waking\s+up|getting\s+up|being\s+(?:here|alive)|going\s+on|carrying\s+on|any\s+of\s+it|it\s+all|me)|of\s+(?:living|life|me|being\s+(?:here|alive)|going\s+on|any\s+of\s+it|it\s+all)|to\s+(?:life|living|any\s+of\s+it))|\b(?:don't|do\s+not|can't|cannot|dont)\s+see\s+why\s+i\s+should\s+(?:even\s+)?(?:bother\s+)?(?:keep\s+going|go\s+on|carry\s+on|stay(?:ing)?\s+alive|be\s+here|live|keep\s+living|living|waking\s+up|wake\s+up)\b|\b(?:no|any)\s+reason\s+(?:for\s+me\s+)?to\s+(?:live|stay\s+alive|be\s+alive|keep\s+living|exist|stay)\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:i|i'm|i\s+am)\s+(?:shouldn't|should\s+not|shouldnt|don't\s+deserve\s+to|do\s+not\s+deserve\s+to)\s+(?:be\s+alive|exist|live|have\s+been\s+born|be\s+born)\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:i'd|i\s+would|id)\s+(?:rather|sooner)\s+(?:it\s+(?:was|were)\s+(?:all\s+)?over|not\s+(?:be\s+here|be\s+alive|exist|wake\s+up)|be\s+gone|be\s+in\s+the\s+ground|not\s+have\s+been\s+born)\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:not\s+sure|don't\s+know\s+if|doubt|don't|do\s+not|dont|no\s+longer)\s+(?:that\s+)?(?:i\s+)?(?:really\s+)?(?:want|wanna)\s+to\s+(?:be|stay)\s+(?:around|here|alive)\s+(?:much\s+longer|any\s?more|any\s+longer|no\s+more|for\s+much\s+longer)\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:i've|i\s+have)\s+(?:lived|been\s+(?:here|around))\s+(?:long\s+enough|too\s+long)\b|\bready\s+(?:for\s+(?:god|the\s+lord|jesus)\s+to\s+take\s+me|to\s+(?:leave\s+this\s+world|meet\s+my\s+maker|join\s+(?:him|her|my\s+\w+)\s+(?:in\s+heaven|up\s+there)|be\s+with\s+(?:him|her|my\s+\w+)\s+(?:again|in\s+heaven|up\s+there)))\b|\bhad\s+enough\s+of\s+(?:this\s+world|life|living|being\s+alive)\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:i'm|i\s+am|i\s+feel\s+like|feel\s+like|i've\s+become|i\s+have\s+become|i'm\s+just|i'm\s+only|nothing\s+but)\s+(?:such\s+|a\s+|just\s+|only\s+|nothing\s+but\s+|so\s+much\s+of\s+)*(?:a\s+)?(?:burden|weight|nuisance|drain|millstone)\s+(?:on|to|for)\s+(?:everyone|everybody|my\s+\w+|them|the\s+family|people|you\s+all|all\s+of\s+(?:you|them))\b`).
		notAfter(`budget|bill|wallet|schedule|team\s+(?:budget|today)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:disappear|vanish|go\s+away)\w*\s+and\s+never\s+(?:come\s+back|return|be\s+(?:seen|found))\b|\b(?:nobody|no\s+one)\s+(?:has|will\s+have)\s+to\s+worry\s+about\s+me\s+(?:again|any\s?more|after)|\bnobody\s+has\s+to\s+worry\s+about\s+me\b`).
		notAfter(`from\s+(?:the|this)\s+(?:party|group|chat)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:hope|hopes|hoping|wish|wishing|pray|praying)\b(?:\s+[a-z']+){0,4}?\s+(?:something\s+(?:bad\s+)?happens\s+to\s+me|i\s+(?:get|got)\s+(?:hit\s+by|run\s+over|killed)|i\s+(?:just\s+)?(?:don't|dont|won't|do\s+not)\s+(?:make\s+it\s+(?:through|to\s+(?:morning|tomorrow|the\s+morning|christmas|the\s+end|next|spring|summer))|survive\s+(?:the|this|tonight))|i\s+(?:just\s+)?(?:don't|dont|won't)\s+make\s+it\s*$)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:don't|do\s+not|can't|cannot)\s+see\s+myself\s+(?:seeing|making\s+it\s+to|reaching|living\s+to\s+see|being\s+here\s+(?:at|for|by))\s+(?:the\s+)?(?:new\s+year|christmas|my\s+birthday|spring|summer|next|another)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:brain|head|mind|voice|voices|thoughts)\s+(?:keeps?|keep|kept)\s+(?:saying|telling\s+me)\b(?:\s+[a-z']+){0,6}?\s+(?:i\s+)?(?:shouldn't|should\s+not|don't\s+deserve\s+to)\s+(?:be\s+alive|live|exist|be\s+here)|\b(?:should|shud)\s+(?:just\s+)?(?:die|be\s+dead|not\s+be\s+alive)\b`).
		notAfter(`of\b|laughing|from\b|for\b`),
	lx(RiskSuicidal, SeverityMedium, `\bwant\s+to\s+stop\s+being\s+(?:here|alive|around)\b|\b(?:don't|do\s+not|dont)\s+(?:really\s+|even\s+)?care\s+(?:what\s+happens\s+to\s+me|if\s+i\s+(?:live\s+or\s+die|die|wake\s+up|don't\s+wake\s+up|make\s+it))\b`).
		except(`\b(?:game|level|match|exam|test|party|lol|haha)\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:hope|hopes|hoping|wish|wishing|pray|praying)\b(?:\s+[a-z']+){0,3}?\s+i\s+(?:just\s+)?(?:don't|dont|won't|wont|do\s+not|will\s+not|never)\s+wake\s+up\b`).
		notAfter(`early|late|in\s+time|before|on\s+time|until|till|at\b|for\b|with\b|during|in\s+the\s+night|hungover|sick|tired`),

	// ---- Explicit and conditional intent: high.
	lx(RiskSuicidal, "", `\b(?:going\s+to|gonna|will|i'll|i\s+will|i'm\s+(?:going\s+to|gonna)|want\s+to|wanna|planning\s+to|plan\s+to|decided\s+to|about\s+to|ready\s+to|i'd|i\s+would|'ll)\s+(?:just\s+)?(?:(?:finish\s+(?:it|things|myself\s+off)\s+(?:for\s+good|off))|finish\s+myself\s+off|end\s+my\s+(?:own\s+)?life|do\s+something\s+to\s+myself|jump\s+(?:off|out|from|in\s+front)|throw\s+myself|run\s+(?:into|in\s+front|out\s+into)\s+(?:the\s+)?(?:road|traffic|a\s+(?:car|bus|train|lorry|truck)|the\s+(?:train|bus))|drive\s+(?:off|into)|step\s+in\s+front|take\s+(?:the\s+lot|them\s+all|all\s+of\s+them|the\s+whole\s+(?:bottle|box|packet|pack|lot|jar)|all\s+(?:my|the)\s+(?:pills|tablets))|hang\s+myself|drown\s+myself|overdose|stop\s+eating\s+until\s+i\s+die|make\s+myself\s+(?:disappear|dissapear|die)|make\s+sure\s+i'm\s+not\s+(?:here|around|alive)|not\s+(?:be|still\s+be)\s+(?:here|around|alive)\s+(?:to\s+see|for\s+it|by\s+then|any\s?more|after)|go\s+through\s+with\s+it)\b|\b(?:i'm|im)\s+(?:just\s+)?taking\s+(?:the\s+lot|them\s+all|all\s+of\s+them|the\s+whole\s+(?:bottle|box|packet|pack|lot|jar)|all\s+(?:my|the)\s+(?:pills|tablets))\b`).
		notAfter(`the\s+(?:high\s+)?(?:board|diving|dive|pier\s+into|rope\s+swing|boat|stage|plane)|into\s+the\s+(?:pool|lake|sea|water|river\s+for|deep\s+end)|with\s+(?:my|a)\s+parachute|out\s+of\s+(?:a|the)\s+plane|in\s+the\s+(?:pool|lake|sea)|(?:with|between)\s+(?:him|her|them|us|my\s+\w+)`),
	lx(RiskSuicidal, "", `\b(?:going\s+to|gonna|will|i'll|i\s+will|i'm\s+(?:going\s+to|gonna)|want\s+to|wanna|planning\s+to|decided\s+to|ready\s+to|i'd|i\s+would)\s+(?:rather\s+)?(?:just\s+)?end\s+(?:things|everything)\b|\b(?:i'm|im|i\s+am)\s+(?:just\s+)?ending\s+(?:things|it\s+all)\b`).
		notAfter(`(?:with|between)\s+(?:him|her|them|us|my\s+\w+)|on\s+a\s+(?:high|good)`).endsIt(),
	lx(RiskSuicidal, "", `\b(?:i'm|i\s+am|im)\s+(?:going\s+through|gonna\s+go\s+through)\s+with\s+it\b|\bi'll\s+(?:make\s+sure\s+of\s+(?:that|it)|see\s+to\s+(?:that|it))\b|\b(?:i'm|i\s+am)\s+not\s+(?:coming\s+back\s+from\s+(?:it|this)|sticking\s+around\s+(?:on\s+this\s+(?:planet|earth)|much\s+longer|for\s+long|to\s+see))\b|\bwon't\s+be\s+alive\s+(?:for|to|by|when)\b|\bnot\s+(?:going\s+to|gonna)\s+be\s+(?:around|here|alive)\s+(?:to\s+see|for\s+it|by\s+then)\b`).weakly(),
	lx(RiskSuicidal, "", `\b(?:i'm|i\s+am|im)\s+(?:out|done|gone|finished)\b(?:\s*[,.-]*\s*)(?:permanently|for\s+good|for\s+ever|forever)\b|\b(?:that's|thats)\s+me\s+(?:finished|done|gone)\b|\b(?:done|finished)\s*\.?\s*not\s+with\s+[a-z\s]+\s*\.?\s*with\s+everything\b`).weakly(),
	lx(RiskSuicidal, "", `\b(?:going\s+to|gonna|i'll|i\s+will)\s+finish\s+it\b`).weakly().
		notAfter(`off\b|up\b|by\b|before\b|after\b|later|first|tomorrow\s+(?:morning|at)|for\s+(?:you|him|her|them|school|work|class)|this\s+(?:week|weekend)\s+(?:for|and)`).
		except(`\b(?:essay|book|homework|project|report|series|show|game|level|puzzle|painting|knitting|novel|draft|course|degree|race|marathon|meal|drink|bottle|plate|job|task|chapter|episode|season)\b`),
	lx(RiskSuicidal, "", `\b(?:tomorrow|tonight|soon|by\s+(?:the\s+)?(?:morning|weekend|friday|monday))\s+i'll\s+be\s+gone\b|\bi'll\s+be\s+gone\s+(?:tomorrow|tonight|soon|by\s+the\s+morning)\b`).
		needing(`goodbye|goodby|farewell|letters?|notes?|sorry|forgive|can't\s+do\s+this|any\s?more|for\s+good|tell\s+(?:them|everyone)`),

	lx(RiskSuicidal, "", `\b(?:don't|do\s+not|not\s+going\s+to|won't|will\s+not)\s+(?:intend\s+to\s+|plan\s+to\s+)?wait\s+(?:for|until|till)\s+(?:my\s+time|god|the\s+lord|nature|the\s+end)\b`),
	// ---- Preparation: high.
	lx(RiskSuicidal, "", `\b(?:gave|giving|give|given|handing|handed|giving\s+out)\s+(?:away\s+)?(?:out\s+)?(?:all\s+(?:of\s+)?|most\s+of\s+)?(?:my|the)\s+(?:[a-z]+\s+)?(?:things|stuff|belongings|possessions|toys|books|records|clothes|games|guitar|jewel\w*|watch|cat|dog|pets?|rabbit|hamster|plants|furniture|savings|money|car|phone|bike|collection)\b`).
		needing(`(?:won't|wont|will\s+not)\s+(?:be\s+)?need|remember(?:s)?\s+me|rembers\s+me|while\s+i\s+(?:can|still\s+can)|(?:after|when|once)\s+i'm\s+(?:gone|dead)|not\s+(?:be\s+)?around|goodbye|goodby|\bnote\b|letter|nothing\s+left|for\s+after|won't\s+be\s+around|since\s+i\s+won't|sorted\s+(?:out\s+)?everything|everything\s+sorted|affairs|my\s+will\b|last\s+time|for\s+good`).
		except(`\b(?:moving|move\s+house|declutter\w*|charity\s+shop|car\s+boot|outgrown|spring\s+clean\w*|minimalis\w*|new\s+one|upgrade\w*|birthday|christmas\s+present)\b|` + movingFrame),
	lx(RiskSuicidal, "", `\b(?:wrote|written|writing|write|finished|left|leaving|started\s+writing|writing\s+out)\s+(?:a\s+|my\s+|the\s+|some\s+|all\s+my\s+)?(?:goodbye\s+|goodby\s+|farewell\s+|suicide\s+|last\s+|final\s+)?(?:letters?|notes?|messages?)\b`).
		needing(`for\s+after|(?:after|when|once)\s+i'm\s+(?:gone|dead|not\s+here)|goodbye|goodby|farewell|explain(?:ing)?\s+why|to\s+read\s+(?:after|when)|under\s+my\s+pillow|for\s+whoever|people\s+i\s+love|each\s+of\s+(?:them|my|the)|remembers?\s+me|rembers\s+me|just\s+in\s+case\s+i|in\s+case\s+i\s+(?:do|don't)|for\s+each\s+of|i'll\s+be\s+gone|when\s+they\s+find\s+me`).
		except(`\b(?:card|retir\w*|team|jobs?|company|changing\s+(?:jobs|schools)|leaving\s+do|farewell\s+party|coworker|colleague|class|teacher|new\s+job|moving\s+away|pen\s*pal|thank[- ]you|santa|tooth\s+fairy|christmas|birthday)\b|` + movingFrame),
	lx(RiskSuicidal, "", `\bmy\s+(?:note|letters?)\s+(?:is|are)\s+(?:written|done|ready|finished)\b|\b(?:said|saying)\s+(?:all\s+)?(?:my\s+)?goodbyes?\s+(?:to\s+(?:people|everyone|everybody)\s+)?(?:and\s+(?:there's\s+)?nothing\s+left|for\s+good|they\s+don't\s+know)|\bthey\s+don't\s+know\s+(?:that's|that\s+was|it\s+was)\s+(?:what\s+it\s+was|goodbye|the\s+last)`),
	lx(RiskSuicidal, "", `\b(?:said|saying|say)\s+(?:my\s+)?goodbyes?\s+to\s+(?:people|everyone|everybody|my\s+\w+)`).
		needing(`without\s+(?:them|anyone|anybody)\s+(?:realising|realizing|knowing)|(?:they|nobody|no\s+one)\s+(?:don't|doesn't|didn't)\s+know\s+(?:that's|that\s+was|it\s+was|it's)`),
	lx(RiskSuicidal, "", `\b(?:fatal|lethal|deadly)\s+(?:dose|amount|combination)\b|\bwould\s+be\s+(?:fatal|lethal|enough\s+to\s+(?:die|not\s+wake|kill\s+me|do\s+it))\b|\bhow\s+(?:long|much|many)\b(?:\s+[a-z']+){0,6}?\s+(?:to\s+(?:bleed\s+out|die|drown|not\s+wake\s+up|stop\s+breathing|kill\s+(?:me|myself|a\s+person)))\b|\b(?:worked\s+out|figured\s+out|found\s+out|know)\s+(?:the|what)\s+(?:dose|amount|number)\b`).
		except(`\b(?:safe(?:ly)?|pharmacist|doctor\s+said|prescri\w+|back\s+pain|headache|for\s+(?:my\s+)?(?:back|head|tooth|period|pain|cold|flu|fever|dog|cat)|essay|exam|biology|chemistry|nursing|vet)\b`),
	lx(RiskSuicidal, "", `\b(?:looked|look|looking|reading|read|research\w*|googl\w*|search\w*)\s+(?:up\s+|into\s+|up\s+on\s+|on\s+)?(?:how\s+(?:many|much)|what\s+(?:dose|amount|combination)|which\s+(?:combination|pills|tablets|dose|drugs?))\b`).
		needing(`\b(?:pills?|tablets?|meds|dose|drink|takes?\s+to|enough|wake|die|fatal|lethal|combination|the\s+number)\b`).
		except(`\b(?:safe(?:ly)?|pharmacist|doctor|prescri\w+|back\s+pain|headache|for\s+(?:my\s+)?(?:back|head|tooth|period|pain|cold|flu|fever|dog|cat)|essay|exam|biology|chemistry|nursing|vet|recipe|calories|caffeine|vitamin|protein)\b`),
	lx(RiskSuicidal, "", `\b(?:looked|look|looking|checked|checking|scouted|found|googled)\s+(?:up\s+|at\s+|out\s+)?(?:which|the|a|where\s+the|what)\s+(?:\w+\s+){0,2}?(?:bridge|building|car\s+park|parking\s+garage|multi-?storey|cliff|roof|tower|railway|train\s+line|tracks)\b`).
		needing(`(?:high|tall)\w*|drop|empty|nobody\s+(?:around|there)|quiet|do\s+it|jump`).
		with2(`near\s+me|in\s+(?:town|my\s+area|the\s+area)|around\s+here|nearby|local|closest|what\s+time|nobody|empty|do\s+it`).
		except(`\b(?:holiday|trip|tour|visit\w*|view|photos?|architecture|sightseeing|sunset|tourist|wedding)\b`),
	lx(RiskSuicidal, "", `\b(?:saving|stockpil\w*|stash(?:ed|ing)|hoard\w*)\s+(?:up\s+)?(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+|her\s+|his\s+)?(?:sleeping\s+|heart\s+|pain\s+)?(?:pills|tablets|meds|medication|paracetamol|painkillers)\b`).
		except(`\b(?:trip|holiday|vacation|travel\w*|pharmacy|prescription\s+runs|organis\w*|organiz\w*|pill\s*box|weekly|dosette|money|a\s+few\s+quid|on\s+(?:my|the)\s+(?:meds|prescription)|costs?|cheaper|nhs|insurance)\b`),
	lx(RiskSuicidal, "", `\b(?:put(?:ting)?|kept|keeping|keep|hid(?:den|ing)?|hide|stor(?:e|ed|ing)|collect(?:ed|ing)?|gather(?:ed|ing)?|sav(?:e|ed|ing)|stash(?:ed|ing)?|bought|buying)\b(?:\s+[a-z']+){0,4}?\s+(?:pills|tablets|meds|medication|paracetamol|painkillers|sleeping\s+\w+)\b|\b(?:have|got|i've\s+got)\s+(?:the\s+|my\s+|enough\s+)?(?:pills|tablets|meds)\s+(?:saved|stashed|hidden|ready)\b|\b(?:pills|tablets)\b(?:\s+[a-z']+){0,3}?\s+(?:and\s+)?(?:hid|hidden|saved|stashed|put\s+away|kept)\s+(?:them|it)\b`).
		needing(`\baside\b|one\s+(?:jar|place|box|bag|pile)|together|saved|(?:a|good|big)\s+pile|enough|for\s+when|when\s+the\s+time|the\s+lot|in\s+my\s+(?:drawer|room)|instead\s+of\s+taking|for\s+(?:later|after|the\s+day)|all\s+of\s+them|another\s+one|second\s+packet|a\s+few\s+weeks|for\s+weeks`).
		except(`\b(?:trip|holiday|vacation|travel\w*|pharmacy|prescription\s+runs|organis\w*|organiz\w*|pill\s*box|weekly|dosette|away\s+from\s+the\s+(?:kids|children|grandkids|dog)|safe\s+place|child-?proof)\b`),
	lx(RiskSuicidal, "", `\b(?:bought|got|have|got\s+hold\s+of|ordered|keep|keeping|carry|carrying)\b(?:\s+[a-z']+){0,5}?\s+(?:a\s+|the\s+|some\s+)?(?:rope|noose|hose|hosepipe|razor\s+blades|gun|charcoal)\b`).
		needing(`what\s+for|know\s+what\s+i'm\s+(?:going\s+to|gonna)\s+do|for\s+when|in\s+the\s+(?:boot|trunk)|sitting\s+here|for\s+myself|noose|just\s+in\s+case|nobody\s+knows|hidden|hid\s+it|exhaust|car\s+keys|ready`).
		except(`\b(?:garden|plants|lawn|wash\w*|climbing|camping|boat|sailing|hunting|range|dog|tow|swing|clothesline)\b`),
	lx(RiskSuicidal, "", `\bpracti[sc]\w*\s+(?:tying|how\s+to\s+tie)\s+(?:the|a)\s+(?:knot|noose)\b|\b(?:razor|blades?|rope|pills|tablets|gun)\b(?:\s+[a-z']+){0,8}?\s+i\s+know\s+what\s+i'm\s+(?:going\s+to|gonna)\s+do\b`).
		except(`\b(?:wedding|married|marry|sailing|scouts?|boat|climbing|fianc\w*|engaged)\b`),
	lx(RiskSuicidal, "", `\b(?:which|what)\s+(?:night|day|date|time)\s+i'm\s+(?:doing|going\s+to\s+do|gonna\s+do)\s+it\b|\b(?:is|will\s+be)\s+when\s+i'm\s+(?:going\s+to|gonna)\s+do\s+it\b`).
		needing(`\b(?:arranged|sorted|ready|planned|decided|goodbye|note|letters?|pills|rope|nobody|everyone|can't|any\s?more|worked\s+out)\b`).except(`\b(?:exam|test|interview|move|moving|wedding|proposal|propose|surgery|tattoo|haircut|presentation|marathon|jump\s+from\s+a\s+plane|skydiv\w*|bungee|quit(?:ting)?\s+(?:my\s+job|smoking))\b`),
	lx(RiskSuicidal, "", `\b(?:the\s+plan\s+is|it's\s+going\s+to\s+be|it\s+will\s+be|i've\s+decided\s+(?:it's|on))\s+(?:`+days+`|tonight|tomorrow|the\s+[0-9]+\w*|next\s+\w+)\b|\b(?:`+days+`|tonight|tomorrow)\s+is\s+the\s+(?:day|night)\b|\bgot\s+it\s+all\s+planned(?:\s+out)?\b|\bworking\s+(?:myself\s+)?up\s+to\s+it\b|\bjust\s+need\s+to\s+pick\s+(?:a|the)\s+(?:night|day|time|date)\b|\bwho\s+gets\s+what\b|\b(?:where|how)\s+i(?:'d|\s+would|'ll|\s+will|'m\s+going\s+to)\s+do\s+it\b|\bknow\s+how\s+to\s+do\s+it\s+now\b|\bi\s+know\s+how\s+now\b|\b(?:after\s+(?:everyone|everybody)(?:'s|\s+is)\s+asleep|when\s+(?:my\s+\w+|everyone|everybody)(?:'s|\s+is)\s+(?:away|out|asleep))\b`).weakly(),
	lx(RiskSuicidal, "", `\b(?:stood|standing|sat|sitting|been)\s+(?:on|at|to)\s+(?:the\s+)?(?:edge\s+of\s+)?(?:the\s+|my\s+)?(?:bridge|roof|ledge|cliff|edge|platform|tracks|top\s+floor)\b`).
		needing(`looked\s+down|jump|going\s+back|working\s+up|almost|nearly|couldn't\s+do\s+it|wanted\s+to|three\s+times|again\s+tomorrow|for\s+a\s+long\s+time`).
		except(`\b(?:view|photo|pictures?|beautiful|sunset|pretty|lovely|tourist|holiday|fish\w*|train\s+was\s+late|waiting\s+for\s+(?:the|my)\s+train)\b`),

	// ---- Self-harm acts without the word: high, when the user is the
	// one acting and something says it was on purpose.
	lx(RiskSelfHarm, "", `\b(?:cut|cutting|cuts|sliced|slicing|slash(?:ed|ing)|carv(?:ed|ing)|scratch(?:ed|ing)|scrach(?:ed|ing)?|scrap(?:ed|ing)|burn(?:ed|t|ing)|bit|biting|bite|hit|hitting|punch(?:ed|ing)|bang(?:ed|ing)|smash(?:ed|ing)|bash(?:ed|ing)|pull(?:ed|ing)|ripp?(?:ed|ing)|dug|digging|dig|stabb?(?:ed|ing)|press(?:ed|ing)|held|hold|holding|poured|pouring|put\s+out|stubbed|dragged|dragging|picked|picking|pinch(?:ed|ing)|squeez(?:ed|ing)|froze|freezing|starv(?:ed|ing))\b(?:\s+[a-z']+){0,5}?\s+(?:on\s+|into\s+|across\s+|over\s+|against\s+)?my\s+(?:own\s+)?(?:arms?|wrists?|thighs?|legs?|skin|stomach|tummy|hands?|fingers?|head|face|hips?|belly|chest|ankles?|knuckles|fists?|cheeks?|lips?|body)\b`).
		needing(selfHarmOnPurpose).except(selfHarmInnocent).byUser(),
	// Hair is pulled out, not cut: a haircut is no self-harm ("I cut my
	// hair!").
	lx(RiskSelfHarm, "", `\b(?:pull(?:ed|ing|s)?|ripp?(?:ed|ing|s)?|tear(?:ing|s)?|tore|yank(?:ed|ing|s)?|pluck(?:ed|ing|s)?)\s+(?:out\s+)?(?:(?:clumps|chunks|handfuls)\s+of\s+)?my\s+(?:own\s+)?(?:hair|eyelashes|lashes|eyebrows)\b`).
		needing(selfHarmOnPurpose).except(selfHarmInnocent + `|\b(?:over|because\s+of)\s+(?:this|that|the|my)\s+\w+|ponytail|bun\b|tied|back\s+(?:into|in\s+a|up)|brush\w*|comb\w*|tweez\w*|shape|threading`).byUser(),
	lx(RiskSelfHarm, "", `\b(?:i|i've|i\s+have|i\s+was|been)\s+(?:been\s+)?(?:cut|cutting|self-?harm\w*|burn(?:ed|t|ing)\s+myself|scratch(?:ed|ing)\s+myself)\s+(?:again|last\s+night|today|yesterday|this\s+(?:morning|week)|every\s+day|on\s+the\s+days|more|deeper|after)\b|\b(?:relapsed|slipped)\s+(?:with|on)\s+(?:the\s+)?(?:blade|razor|cutting|self-?harm\w*)\b|\b(?:used|picked\s+up|got\s+out)\s+(?:the|my|a)\s+(?:razor|blade|blades|scissors|compass|lighter)\s+again\b|\b(?:took|take|taking)\s+(?:a|the|my)\s+(?:razor|blade|knife|scissors|glass|lighter|compass)\s+to\s+(?:my|myself)\b|\b(?:marks|cuts|scars|burns|wounds)\s+on\s+my\s+\w+\s+(?:are\s+)?(?:fresh|new|open)\b|\b(?:covered\s+in|new|fresh)\s+(?:new\s+)?(?:marks|cuts|burns|scratches)\b|\bwhat\s+i\s+did\s+to\s+my\s+(?:wrists?|arms?|legs?|thighs?|skin|stomach)\b|\bmade\s+(?:my\s+\w+|myself)\s+bleed\b|\b(?:urge|urges)\s+(?:won|got\s+the\s+better|was\s+too\s+strong)\b|\bthe\s+urge\s+to\s+(?:cut|hurt\s+myself|burn)\b`).
		except(`\b(?:chopping|slicing\s+(?:onions|bread|veg\w*)|cooking|kitchen|shaving|paper\s+cut|garden\w*|fell|tripped|slipped|accident\w*|bike|tattoo|hair\s*cut|grass|lawn|hedge|fabric|coupons?|cut\s+(?:back|down)\s+on|cutting\s+(?:back|down|carbs|sugar|class|school)|lol)\b`),

	// ---- Danger from others: high; control: medium.
	lx(RiskAbuse, "", `\b(?:push(?:ed|es|ing)?|shov(?:ed|es|ing|e)|smack(?:ed|s)?|whack(?:ed|s)?|spat\s+at|spits\s+at|bit|bites|scratched|pinned|pins|kicks|kicked|tripped|threw\s+(?:\w+\s+){0,2}at)\s+me\b`).
		notAfter(`(?:really\s+)?hard\s+(?:in|at|to|during)|to\s+(?:do|be|try|work|train|improve|succeed|the\s+limit|my\s+limits)|in\s+(?:training|practice|class|the\s+(?:pram|wheelchair|buggy|swing|queue))|out\s+of\s+my\s+comfort|forward|ahead|away\b|on\s+the\s+swing|around\s+in|to\s+apply|towards?|into\s+(?:applying|it|doing|going|trying)|the\s+ball|a\s+(?:ball|frisbee|party)|off\s+(?:my\s+)?(?:plate|list)|(?:off|out\s+of)\s+(?:the|a|my|our)\s+(?:team|squad|server|chat|group|course|list|bus|game|class|project|band|club)|` + inGame).byPerson(),
	lx(RiskAbuse, "", `\b(?:push(?:ed|es|ing)?|shov(?:ed|es|ing|e)|knock(?:ed|s)?|threw|throws|slamm?(?:ed|s)|dragg?(?:ed|s)|kick(?:ed|s))\s+me\s+(?:over|down|into|against|onto|across|out\s+of|off|to\s+the)\b`).byPerson().
		notAfter(`(?:\w+\s+)?(?:the|a|my|our)\s+(?:team|squad|server|chat|group|course|list|bus|game|class|project)|off\s+(?:the|a|my|our)\s+(?:team|squad|server|chat|group|course|list|bus|game|class|project)|out\s+of\s+(?:the|a|my|our)\s+(?:team|squad|server|chat|group|course|game|class|band|club)`),
	lx(RiskAbuse, "", `\b(?:hands?|fingers|arms?)\s+(?:round|around)\s+my\s+(?:neck|throat)\b|\b(?:held|holds|pulled|pointed|waved|had|put)\s+(?:a|his|her|the|their)\s+(?:knife|gun|blade|bat|hammer|weapon)\s+(?:up\s+)?(?:to|at|on|against)\s+(?:me|my)\b|\bthreaten(?:ed|s)?\s+me\s+with\s+(?:a|his|her|the)\s+(?:knife|gun|blade|bat|hammer)\b|\b(?:strangl|chok)(?:ed|ing|es)\s+me\b`).byPerson().severe(),
	lx(RiskAbuse, "", `\b(?:locked|locks|locking|trapped|traps|shut|cornered|corners)\s+me\s+(?:in|inside|up|into|in\s+the)\b|\b(?:won't|wouldn't|wouldnt|wont|didn't|did\s+not|would\s+not)\s+let\s+me\s+(?:go|out|leave|get\s+(?:out|up|away|past))\s*(?:$|[,.!]|\s+(?:and|until|no\s+matter|even|of\s+the\s+(?:room|house|car|toilets?|cupboard|bathroom)))`).byPerson().severe().
		notAfter(`out\s+of\s+(?:my|the)\s+(?:account|phone|computer|game|chat|group)`),
	lx(RiskAbuse, "", `\b(?:sitting|waiting|parked|standing|lurking|hanging\s+around|loitering|watching)\s+(?:in\s+(?:his|her|their|a|the)\s+(?:car|van)\s+)?(?:across\s+the\s+(?:road|street)|outside(?:\s+(?:my|our|the)\s+\w+)?|over\s+the\s+road|at\s+the\s+end\s+of\s+(?:my|our|the)\s+(?:road|street|drive)|(?:outside|at|by|near)\s+(?:my|our)\s+(?:house|home|flat|door|building|window|work|school|gate|clinic|gym|office|car))\b|\b(?:waiting|waited)\s+for\s+me\s+(?:at|by|outside)\s+(?:the|my)\s+(?:gate|door|school|clinic|work|car|house)\b`).
		byPerson().except(benignVisit.String()),
	lx(RiskAbuse, "", `\b(?:keeps?|kept)\s+(?:showing\s+up|turning\s+up|appearing|following\s+me|finding\s+me|coming\s+(?:to|round|back))\b|\b(?:found|finds)\s+(?:me|the\s+new\s+one|where\s+i\s+(?:live|work|moved))\b|\bstalk(?:s|ed|ing)?\s+me\b|\b(?:tracking|tracks|tracked)\s+(?:me|my\s+(?:car|phone|location))\b`).
		byPerson().needing(`\b(?:scared|afraid|frightened|terrified|again|every\s+(?:day|night|where|time)|won't\s+stop|changed|moved|new\s+one|watching|same\s+(?:man|car|person|guy)|ex\b|stalk|police|restraining|creepy|notes?)\b`).
		except(`\b(?:puppy|kitten|cat|dog|baby|toddler|little\s+(?:brother|sister)|cute|like\s+a\s+shadow|lol|haha|in\s+the\s+game|annoying|around\s+the\s+(?:house|flat|kitchen|garden))\b`),
	lx(RiskAbuse, "", `\b(?:watching|watches|watched)\s+me\s+(?:from|through|outside|every|all\s+the\s+time|again|when\s+i\s+(?:sleep|undress|shower|change))\b|\bsaying\s+(?:they're|he's|she's|they\s+are|he\s+is)\s+watching\s+me\b|\blook(?:ing|ed|s)\s+in\s+(?:through\s+)?(?:my|the|our)\s+windows?\b|\bstanding\s+in\s+(?:my|our|the)\s+(?:garden|yard|driveway|hallway|stairwell|bedroom)\b|\bstood\s+over\s+my\s+bed\b`).
		byPerson().except(`\b(?:lol|haha|game|play|performance|recital|match|race|swim\w*|football|dance|show)\b`),
	lx(RiskAbuse, "", `\b(?:broke|breaks|broken|came|comes|got|getting|let\s+(?:himself|herself|themselves))\s+(?:in|into)\s+(?:my|our|the)\s+(?:house|home|flat|room|bedroom|place|apartment)\b|\bbroke\s+in\b`).
		byPerson().needing(`night|asleep|while\s+i\s+was|stood\s+over|moved\s+things|come\s+back|threat|scared|frightened|afraid|without\s+(?:asking|knocking|permission)|key|terrified|police`).
		except(`\b(?:to\s+(?:say|ask|check|help|wake)|breakfast|hug|tuck|goodnight|cat|dog)\b`),
	lx(RiskAbuse, "", `\b(?:banging|bangs|banged|hammering|pounding|kicking|knocking|knocks|knocked|trying)\s+(?:on|at)\s+(?:my|the|our)\s+(?:door|window|bedroom\s+door)s?\b|\btrying\s+(?:my|the)\s+(?:door\s+handle|door|windows?|back\s+door)\b|\bhiding\s+(?:in|under|from)\s+(?:the|my|him|her|them)\b`).
		needing(`night|scream\w*|shout\w*|yell\w*|let\s+(?:him|her|them)\s+in|hiding|scared|frightened|afraid|terrified|won't\s+go|keeps?|open\s+up|drunk|angry|knife|find\s+me|banging`).
		except(`\b(?:delivery|parcel|postman|neighbou?r\s+(?:wanted|needed|asking)|hide\s+and\s+seek|game|surprise|party|presents?|lol|haha|woodpecker|wind|rain|builders?)\b`),
	lx(RiskAbuse, "", `\bknows?\s+where\s+i\s+live\b|\b(?:coming|come|comes)\s+(?:round|over|back|for\s+me|after\s+me|to\s+get\s+me)\s+(?:tonight|for\s+the\s+money|to\s+(?:get|sort|deal\s+with)\s+me)\b|\bthey(?:'ll|\s+will)\s+come\s+back\b`).
		needing(`money|owe|threat|kill|hurt|knife|gun|dealer|said|says|scared|afraid|terrified|warn|watching|asleep|moved\s+things`),

	// Coercive control: medium, whoever the user (not a child's parent
	// setting rules, which controlled below).
	lx(RiskAbuse, SeverityMedium, `\b(?:won't|wouldn't|doesn't|don't|never|will\s+not|refuses\s+to)\s+(?:ever\s+)?let\s+me\s+(?:see|talk\s+to|call|text|go\s+(?:to\s+(?:meetings|work|church|the\s+doctor|my\s+(?:mum|mom|sister|brother|friends?|family|parents))|out\s+(?:alone|without)|anywhere)|leave\s+the\s+(?:house|flat)|have\s+(?:my\s+own|any)|use\s+the\s+(?:phone|telephone|car)|work|get\s+a\s+job|visit|drive|keep\s+(?:my|any))\b`).byPerson().
		except(`\b(?:homework|bedtime|school\s+night|sweets|screen\s*time|ipad|tablet|xbox|playstation|sleepover|grounded)\b`),
	lx(RiskAbuse, SeverityMedium, `\b(?:i'm|i\s+am|im|i'm\s+just)\s+not\s+(?:allowed|aloud)\s+(?:to\s+)?(?:go\s+out|see|talk\s+to|call|have\s+(?:any\s+)?(?:friends|freinds|money|my\s+own)|any\s+(?:friends|freinds|money)|out\b|leave|use\s+the\s+(?:phone|telephone|car)|work|drive|go\s+anywhere)`).
		needing(`\b(?:he|she|him|her|husband|wife|partner|boyfriend|girlfriend|bf|gf|son|grandson|nephew|carer|son-in-law|daughter-in-law|any\s+(?:friends|freinds)|anyone)\b`).
		except(`\b(?:homework|bedtime|school\s+night|grounded|sweets|screen\s*time|till\s+i'm|until\s+i'm|dark|curfew)\b`),
	lx(RiskAbuse, SeverityMedium, `\b(?:takes|took|taking|keeps|kept|hides|hid|hiding|controls?|controlling|counts|counted|checks|checked|checking|reads|read|goes\s+through|went\s+through|tracks|tracked|tracking|monitors|deletes|deleted|changed|changes|spends|spent|cashes|cashed)\s+(?:all\s+(?:of\s+)?)?(?:my|the)\s+(?:phone|pension|money|bank\s+card|card|cards|wages|salary|benefits|post|mail|letters|messages|texts|emails|location|passport|keys|car\s+keys|wallet|purse|wifi\s+password|password|savings|account|finances|pin|allowance)\b`).byPerson().
		needing(`every\s+(?:day|night|week|hour|time)|all\s+the\s+time|not\s+allowed|won't\s+let|can't|so\s+i\s+can't|without\s+asking|if\s+i\s+(?:ask|don't|tell|say)|shouts?|yells?|angry|punish\w*|scared|afraid|account\s+for|ask\s+(?:for|permission|him|her)|nonstop|non-stop|make\s+me|made\s+me|friends|freinds|family|sponsor|decides|controls?|jealous|prove|every\s+penny|while\s+i'm\s+(?:sleeping|asleep)|everything|before\s+i'm\s+allowed|to\s+himself|to\s+herself|never\s+gives?|put\s+me\s+in\s+a\s+home|bus\s+fare`),
	lx(RiskAbuse, SeverityMedium, `\b(?:cut|cutting|cuts|keeps|kept|keeping)\s+me\s+(?:off\s+)?(?:from|away\s+from)\s+(?:my|all\s+my)\s+(?:friends|family|sister|brother|mum|mom|parents|kids|children|daughter|son)\b|\bmade\s+me\s+(?:delete|block|unfriend|stop\s+seeing|cut\s+off|quit|give\s+up\s+my)\b|\bdecides?\s+(?:who|what|where|when)\s+i\s+(?:can|may|am\s+allowed|get\s+to)\b|\bneeds?\s+(?:photos|pictures|proof|to\s+know)\s+(?:to\s+prove\s+)?(?:of\s+)?where\s+i\s+am\b|\b(?:account|answer)\s+for\s+every\s+(?:penny|pound|dollar|cent|minute)\b|\bcalls?\s+me\s+(?:non-?stop|constantly|over\s+and\s+over)\s+if\s+i\b|\b(?:says?|said|tells|told)\s+(?:me\s+)?(?:that\s+)?(?:nobody|no\s+one)\s+(?:else\s+)?(?:would|will|could)\s+(?:ever\s+)?(?:want|love|put\s+up\s+with)\s+me\b|\b(?:i'm|i\s+am)\s+lucky\s+(?:he|she)\s+(?:stays|puts\s+up)\b|\bcontrols?\s+(?:all\s+)?(?:of\s+)?(?:the|my|our)\s+(?:money|finances|bank)\b|\bhave\s+to\s+ask\s+(?:him|her)\s+for\s+(?:money|bus\s+fare|permission)\b|\bwon't\s+allow\s+it\b`).
		except(`\b(?:game|coach\s+says\s+(?:i|we)|diet|budget\s+app|lol)\b`),
	lx(RiskAbuse, SeverityMedium, `\b(?:if|unless)\s+i\s+(?:ever\s+)?(?:leave|left|tell|told|report|go\s+to\s+the\s+police|call\s+the\s+police|say\s+anything|don't\s+do\s+what)\b(?:\s+[a-z']+){0,5}?\s+(?:he|she|they|i)(?:'ll|\s+will|'d|\s+would|\s+is\s+going\s+to|'s\s+going\s+to|\s+says?\s+(?:he|she)'ll)\b|\b(?:he|she|they)(?:'ll|\s+will|'s\s+going\s+to|\s+is\s+going\s+to|'d|\s+would)\s+(?:post|share|send|show|tell|make\s+sure|take\s+(?:the\s+kids|my)|put\s+me\s+in|stop\s+(?:visiting|giving)|leave\s+me|kick\s+me\s+out)\b(?:\s+[a-z']+){0,6}?\s+(?:if|unless)\s+i\b|\b(?:keep\s+quiet|stay\s+quiet|keep\s+my\s+mouth\s+shut|say\s+nothing|not\s+to\s+talk\s+to)\b(?:\s+[a-z']+){0,6}?\s+or\s+(?:else\b|(?:he|she|they)(?:'ll|\s+will))`).
		needing(`\b(?:he|she|they|him|her|them|husband|wife|partner|boyfriend|girlfriend|boss|son|grandson|dad|mum|mom|uncle|stepdad|son-in-law)\b`).
		except(`\b(?:surprise|party|present|gift|spoiler|lol|haha|game|birthday)\b`),

	// A silence imposed under a threat of harm, or about what was done to
	// the user's body: high (a silence threat alone is control, medium).
	lx(RiskAbuse, "", `\b(?:if\s+i\s+(?:ever\s+)?(?:tell|told)|not\s+to\s+tell|(?:don't|dont|never|can't|cant|mustn't|shouldn't)\s+tell|(?:no\s+one|nobody)\s+(?:would|will)\s+(?:ever\s+)?believe\s+me)\b`).
		needing(`\b(?:hurt\w*|kill|hit|beat|touch\w*|private|naked|pants|knickers|clothes|kiss\w*|photos?|pictures|did\s+stuff|does\s+stuff|did\s+things|does\s+things|what\s+(?:he|she|they)\s+(?:does|did)|tummy\s+hurts?|grown[- ]?ups?|bed|bath)\b`).
		except(`\b(?:surprise|party|present|gift|birthday|christmas|santa|spoiler|crush|lol|haha|who\s+broke|vase|cookie|biscuit)\b`).kept(),
	// ---- A child's secret: a secret a grown-up imposes, with touching,
	// clothes, photos, a bed or a threat. High, everywhere.
	lx(RiskAbuse, "", `\b(?:our|a|the|it's\s+(?:our|a)|its\s+(?:our|a)|special|little)\s+(?:special\s+|little\s+|big\s+)?secrets?\b|\bsecret\s+(?:game|thing|stuff|lesson|girlfriend|boyfriend|friend|touch\w*|cuddles?|between\s+us)\b|\bkeep\s+(?:it|this|the|a|secrets?)\s+(?:a\s+)?secrets?\b|\bkeep\s+(?:the\s+)?secrets?\b|\bnot\s+(?:allowed|aloud|supposed)\s+to\s+tell\b|\b(?:can't|cant|mustn't|musn't|must\s+not|shouldn't|not\s+supposed\s+to|never|not\s+to)\s+tell\s+(?:anyone|anybody|mum|mom|mummy|mommy|dad|daddy|my\s+\w+|the\s+teacher|the\s+secret)\b|\bif\s+i\s+tell\s+the\s+secret\b`).
		needing(`touch\w*|private|bath|bed\b|bedroom|my\s+room|clothes|naked|undress\w*|pants|knickers|lap\b|kiss\w*|photos?|pictures?|videos?|special\s+(?:girl|boy|friend)|favourite|sweets|presents?|money\s+after|don'?t\s+like|scared|hurts?|changing\s+room|locks?\s+the\s+door|sleeps\s+in\s+my\s+bed|bath\s+time|down\s+there|prison|taken\s+away|break\s+up|normal|all\s+kids|shows?\s+me\s+his|makes?\s+me|made\s+me|does\s+(?:it|things|stuff)|the\s+(?:bad|secret)\s+thing|what\s+we\s+do|what\s+(?:he|she|daddy|dad|uncle)\s+does|happens\s+in|wants\s+to\s+meet|girlfriend|boyfriend|in\s+trouble|my\s+fault`).
		with2(`\b(?:he|she|him|his|her|uncle|stepdad|step\s+dad|stepfather|stepmum|coach|tutor|teacher|man|men|grown[- ]?ups?|adult|someone|somebody|person|lady|woman|boy|girl|guy|online|grandad|grandpa|granddad|boyfriend|friend|daddy|dad|mummy|babysitter|neighbou?r|priest|cousin|brother|aunt\w*|nephew)\b`).
		except(`\b(?:surprise|party|present|gift|birthday|christmas|santa|recipe|crush|spoiler|hiding\s+place|password|secret\s+club|den|treasure|cookie|biscuit|ate\s+the)\b`).kept(),
	lx(RiskAbuse, "", `\b(?:touch(?:es|ed|ing)?|feels?|felt|rubs?|rubbed)\s+(?:me\s+)?(?:my\s+)?(?:private|down\s+there|under\s+my|between\s+my|in\s+my\s+(?:pants|knickers))|\bshows?\s+me\s+(?:his|her)\s+(?:private|willy|penis|thing|body)\b|\bmakes?\s+me\s+(?:touch|sit\s+on\s+his\s+lap|take\s+off|undress|kiss|take\s+(?:off\s+)?(?:all\s+)?my\s+clothes)\b|\bmade\s+me\s+(?:touch|undress|take\s+off|kiss|take\s+(?:off\s+)?(?:all\s+)?my\s+clothes)\b|\b(?:takes?|took|taking)\s+(?:pictures|photos|videos)\s+of\s+me\s+(?:in\s+the\s+(?:bath|shower)|naked|without|with\s+no|in\s+my\s+(?:pants|underwear))|\bsleeps?\s+in\s+my\s+bed\b|\bcomes?\s+(?:in|into)\s+my\s+(?:room|bed)\s+at\s+night\b|\bwhat\s+(?:he|she|daddy|dad|uncle|grandad)\s+does\s+(?:at|in)\s+(?:bath|bed)\s*time\b|\bmakes?\s+me\s+do\s+(?:secret|bad|weird|grown-?up)\s+(?:stuff|things)\b`).byPerson().
		needing(`secret|don'?t\s+like|scared|tell|touch|private|hurt|bath|naked|cry|weird|uncomfortable|not\s+allowed|pants|night|stuff|things`).kept(),

	// ---- Acute distress: medium.
	lx(RiskDistress, "", `\b(?:crying|sobbing|weeping|bawling|in\s+tears|cry|cried)\b`).
		needing(`can'?t\s+stop|won't\s+stop|for\s+(?:hours|days|ages|the\s+whole|so\s+long)|all\s+(?:day|night|morning|afternoon|evening)|non-?stop|on\s+the\s+(?:bathroom\s+|kitchen\s+|bedroom\s+)?floor|in\s+the\s+(?:toilets?|bathroom|car)|myself\s+to\s+sleep|crying\s+and\s+crying|since\s+(?:the|last|this|yesterday|` + days + `)|every\s+(?:day|night)|so\s+hard|shaking|can't\s+breathe|panic|throwing\s+up|keep\s+crying|keeps?\s+crying|sit\s+and\s+cry|can't\s+(?:settle|calm)|terrible\s+state`).
		except(`\b(?:laugh\w*|happy\s+tears|tears\s+of\s+joy|film|movie|show|episode|book|ending|wedding|onions?|lol|haha|so\s+cute|proud|the\s+baby|toddler|newborn|teething|my\s+(?:son|daughter|baby|kid)\s+(?:is|was|has)|final|series)\b`),
	lx(RiskDistress, "", `\b(?:heart\s+(?:is\s+|'s\s+)?(?:racing|pounding|going\s+(?:so\s+|super\s+|ever\s+so\s+|really\s+|too\s+)?fast|won't\s+slow)|chest\s+(?:is\s+)?(?:so\s+)?tight|hyperventilat\w*|shaking\s+(?:so\s+hard|uncontrollably|all\s+over|and\s+(?:crying|can't))|(?:hands|fingers)\s+(?:are\s+)?(?:numb|tingling)|can'?t\s+breathe|can'?t\s+sit\s+still|shaking\s+on\s+the|i'm\s+shaking|can't\s+stop\s+shaking)\b`).
		needing(`scared|frightened|terrified|panick?\w*|freaking\s+out|can'?t\s+(?:calm\s+down|think|settle|make\s+it\s+stop|cope|hold)|going\s+crazy|going\s+mad|falling\s+apart|crying|sobbing|scream\w*|too\s+much|walls\s+(?:are\s+)?closing|want\s+(?:my\s+)?(?:mum|mom|mummy)|don't\s+know\s+where\s+i\s+am|explode|losing\s+(?:it|my\s+mind)|everything\s+is|4am|3am|floor|kitchen\s+floor|numb|shaking`).
		except(`\b(?:excited|exciting|run\b|running|ran\b|exercise|workout|gym|cardio|spin\s+class|hike|stairs|rollercoaster|ride|film|movie|horror|scary\s+movie|coffee|caffeine|espresso|exam|test|interview|date|concert|crush|lol|haha|cold\s+(?:water|plunge)|game)\b`),
	lx(RiskDistress, "", `\bhyperventilat\w*|\bcan'?t\s+calm\s+(?:myself\s+)?down\b|\bwalls\s+(?:are\s+)?closing\s+in\b|\bscream\s+inside\s+me\b|\b(?:screaming|sobbing|crying|shaking)\s+(?:in|on)\s+(?:my|the)\s+(?:car|floor|bathroom\s+floor|kitchen\s+floor|bed)\b|\bsobbing\s+so\s+hard\b|\b(?:i'm|i\s+am)\s+(?:in\s+(?:a|such\s+a)\s+(?:terrible|awful|bad|horrible)\s+state|losing\s+my\s+mind|freaking\s+out|going\s+crazy|seeing\s+things)\b|\bfeel\s+like\s+i'm\s+(?:going\s+(?:to\s+)?(?:explode|crazy|mad)|losing\s+my\s+mind|going\s+insane)\b|\bdon't\s+know\s+where\s+i\s+am\b`).
		except(`\b(?:excited|exam|test|interview|lol|haha|lmao|game|level|film|movie|karaoke|sing\w*|concert|rollercoaster|ride|party|wedding|meme|baby\s+(?:was|is)|app|keeps\s+crashing|crashed\s+again|bugs?|code|laptop|computer|wifi|printer|software|spreadsheet|this\s+(?:traffic|noise|weather|song))\b|\bin\s+(?:the\s+)?(?:game|book|film|show)\b`),
	lx(RiskDistress, "", `\b(?:haven't|have\s+not|hasn't|not|didn't|can't|couldn't|barely|no)\s+(?:been\s+able\s+to\s+|really\s+)?(?:slept|eaten|eat|sleep|sleeping|eating|food)\b(?:\s+(?:anything|properly|at\s+all|a\s+thing|much|a\s+wink|or\s+(?:eaten|slept|eat|sleep)|and\s+(?:eaten|slept)))*\s+(?:since\s+(?:`+days+`|last\s+\w+|yesterday\s+morning|the\s+(?:funeral|phone\s+call|accident|news|weekend))|for\s+(?:ages|days|weeks|[a-z0-9]+\s+(?:days|nights|weeks))|in\s+(?:days|weeks|[a-z0-9]+\s+(?:days|nights|weeks)))\b|\b(?:[a-z0-9]+\s+)?(?:days|nights)\s+(?:of\s+)?(?:no|without)\s+(?:sleep|food|eating|sleeping)\b|\bin\s+bed\s+for\s+(?:days|[a-z0-9]+\s+days)\b`).
		except(`\b(?:baby|newborn|fasting|ramadan|lent|diet|jet\s*lag|flight|deadline|festival|busy|night\s+shifts?|we're\s+managing|but\s+(?:i'm|we're)\s+(?:ok|okay|fine|managing|good)|lol|haha|so\s+excited|camping|flu|cold|covid|sick|ill\b|fever|surgery|operation|virus|bug|injury|dentist|tooth|wisdom|cleanse|detox|exam\s+season|revision|gaming|binge\w*|netflix)\b`),
	lx(RiskDistress, "", `\b(?:sitting|lying|curled\s+up|been)\s+(?:in|on)\s+(?:my|the)\s+(?:car|floor|bathroom\s+floor|kitchen\s+floor|bed|bathroom)\s+(?:screaming|sobbing|crying|shaking|rocking)\b`).
		except(`\b(?:karaoke|sing\w*|lol|haha|laugh\w*|music|song)\b`),
	lx(RiskDistress, "", `\b(?:i'm|i\s+am|im|i\s+feel)\s+(?:so\s+)?(?:scared|frightened|terrified)\s+(?:all\s+the\s+time|every\s+(?:night|day))\b|\bscared\s+all\s+the\s+time\b`).
		except(`\b(?:spiders?|dogs?|heights|clowns|flying|exam|lol|haha)\b`),
	lx(RiskDistress, "", `\b(?:everything|it\s+all|it)\s+(?:is|feels|'s)\s+(?:too\s+much|falling\s+(?:down|apart)\s+(?:on|around)\s+me)\b|\bcan'?t\s+think\s+straight\b`).
		needing(`scared|frightened|terrified|panick?\w*|can'?t\s+(?:calm|breathe|stop|cope|hold|think)|crying|shaking|heart|chest|falling|too\s+much`).
		except(`\b(?:exam|test|interview|lol|haha|excited|hangover|hungover|tired|busy\s+week|work\s+is|deadline|wedding\s+planning|emails|all[- ]nighters?|essay|coffee|caffeine|energy\s+drinks?|jet\s*lag\w*)\b`),

	// ---- Substance crisis: high. An excess and a symptom, with a
	// substance named; or the substance at hand and not caring.
	lx(RiskSubstance, "", `\b(?:way|far|a\s+lot|much|so\s+much|loads|twice|double|triple)\s+(?:more|too\s+much)\b|\bmore\s+than\s+(?:usual|normal|i\s+(?:usually|normally|ever|should))\b|\bmore\s+than\s+i\s+(?:normally|usually|ever)\s+(?:do|have)\b|\btoo\s+much\b|\bdouble\s+(?:my|the)\s+(?:usual\s+)?(?:dose|amount)\b|\b(?:a\s+)?(?:double|triple)\s+dose\b|\b(?:taken|took|had)\s+(?:my\s+)?(?:[a-z]+\s+)?(?:pills|tablets|meds|medication|dose)\s+(?:twice|two\s+times|three\s+times|again)\b|\ba\s+(?:whole|full)\s+(?:bottle|bag|eighth|gram|packet|box)\b|\ba\s+handful\b|\b(?:a\s+(?:whole\s+)?bunch|a\s+couple|loads)\s+of\s+(?:\w+\s+)?(?:pills|tablets|sleeping)\b|\b(?:two|three|four|2|3|4)\s+bottles\b|\ball\s+day\b|\bsince\s+(?:noon|lunch|midday|this\s+morning|last\s+night)\b|\bon\s+top\b|\bmixed\b|\bwith\s+the\s+(?:wine|vodka|whiske?y|beer|booze|alcohol|sherry|gin)\b|\bstreet\s+stuff\b|\bwhatever\s+was\s+in\b|\bsomething\s+someone\s+gave\s+me\b|\bcan't\s+remember\s+what\b|\ba\s+few\s+extra\b|\bextra\s+(?:pills|tablets|doses?)\b|\bso\s+(?:high|drunk|wasted|off\s+my\s+face)\b|\bsame\s+amount\s+as\s+before\b|\bwhat\s+i\s+used\s+to\s+take\b|\bthe\s+next\s+(?:eight|seven|six|five|four|few|[0-9]+)\b|\b(?:after|from)\s+what\s+i\s+(?:took|had|used|drank|smoked|snorted|injected)\b|\bhad\s+so\s+much\b|\bsome\s+of\s+my\s+(?:\w+'s\s+)?(?:pills|tablets)\b|\btook\s+(?:some|a\s+few)\s+of\s+(?:my\s+)?\w+'s\s+(?:pills|tablets)\b`).
		needing(symptom).with2(drugWord).
		except(`\b(?:hungover|hangover|lol|haha|lmao|fun\b|caffeine|coffee|energy\s+drinks?|red\s*bull|monster\s+(?:energy|cans?)|pre-?workout|espresso|sugar|cake|chocolate|pizza|food|ate|eating|gym|workout|training|homework|work\b|emails?|screen\s*time|netflix|tv)\b`),
	lx(RiskSubstance, "", `\b(?:don't|dont|do\s+not)\s+(?:really\s+)?care\s+(?:what\s+happens|any\s?more|if\s+i\s+(?:wake|die|live|overdose|od)|how\s+much|if\s+it's\s+too\s+much)|\bpast\s+caring\b|\bwhatever\s+happens\s+happens\b|\bcouldn't\s+care\s+less\s+(?:what\s+happens|if)\b`).
		needing(`holding|hand|have|got|bought|ready|staring\s+at|sitting|poured|in\s+front\s+of\s+me|here|next\s+to\s+me|finish\s+it|going\s+to\s+(?:drink|use|take|finish)|goes\s+in|took|drank|used`).
		with2(`\b(?:drinks?|bottle|wine|vodka|whiske?y|beer|gin|booze|pills|tablets|bag|needle|syringe|stash|baggie|eighth|gram|gear|dose|drug|used|using|relapsed|drunk|high)\b`).
		except(`\b(?:party|game|exam|grades?|what\s+(?:people|they)\s+think|lol|haha)\b`),
	lx(RiskSubstance, "", `\b(?:a\s+)?(?:bottle|drink|wine|vodka)\s+and\s+(?:a\s+handful|a\s+bunch|a\s+load|loads|all)\s+of\s+(?:\w+\s+)?(?:pills|tablets)\b|\b(?:a\s+handful|a\s+bunch|a\s+load|loads)\s+of\s+(?:\w+\s+)?(?:pills|tablets)\s+and\s+(?:a\s+)?(?:bottle|drink|wine|vodka)\b`),
}

// spellings are children's and hurried spellings of the lexicons' words
// (a child's "nobody wud care", "kill myslef"), folded word by word before
// the phrasings are read. Only spellings that are no other word.
var spellings = map[string]string{
	"wud": "would", "wuld": "would", "wood": "", "culd": "could", "cud": "could", "shud": "should", "shuld": "should",
	"evryone": "everyone", "evry1": "everyone", "every1": "everyone", "evreyone": "everyone", "everone": "everyone",
	"evrybody": "everybody", "everybdy": "everybody", "nobdy": "nobody", "nobodi": "nobody", "no1": "no one",
	"myslef": "myself", "mysef": "myself", "myslf": "myself", "mself": "myself", "myelf": "myself", "meself": "myself",
	"kil": "kill", "dissapear": "disappear", "disapear": "disappear", "dissappear": "disappear",
	"dissapeared": "disappeared", "disapeared": "disappeared", "forevr": "forever", "4ever": "forever", "foreva": "forever",
	"happyer": "happier", "beter": "better", "freind": "friend", "freinds": "friends", "frend": "friend", "frends": "friends",
	"borned": "born", "tomorow": "tomorrow", "tommorow": "tomorrow", "2morrow": "tomorrow", "rembers": "remembers",
	"scrached": "scratched", "scrach": "scratch", "scratchd": "scratched", "agian": "again", "agin": "again",
	"becuase": "because", "becos": "because", "bcuz": "because", "cuz": "because", "coz": "because", "bc": "because",
	"pils": "pills", "hurted": "hurt", "secrit": "secret", "secert": "secret", "alowed": "allowed", "aloud": "allowed",
	"sucide": "suicide", "suiside": "suicide", "sucidal": "suicidal", "wana": "wanna", "gona": "gonna", "wanne": "wanna",
	"wont": "won't", "wasnt": "wasn't", "werent": "weren't", "shouldnt": "shouldn't", "couldnt": "couldn't",
	"theres": "there's", "hes": "he's", "shes": "she's", "thats": "that's", "youre": "you're", "theyre": "they're",
	"isnt": "isn't", "arent": "aren't", "wouldnt": "wouldn't", "u": "you", "ur": "your", "mums": "mum's", "moms": "mom's",
	"dads": "dad's", "nite": "night", "tonite": "tonight", "nomore": "no more",
	"wen": "when", "wit": "with", "ppl": "people", "tho": "though", "rn": "right now",
	"ive": "i've", "ill": "", "im": "i'm", "dont": "don't", "cant": "can't", "didnt": "didn't",
	"doesnt": "doesn't", "havent": "haven't", "hasnt": "hasn't", "whats": "what's", "itll": "it'll", "ima": "i'm gonna",
	"step-dad": "stepdad", "sleepin": "sleeping", "cryin": "crying", "dyin": "dying",
}

// foldSpellings rewrites the words of spellings in s (lower case, from
// riskNorm): a new string only when one was found.
func foldSpellings(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			i++
			continue
		}
		j := i
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9' || s[j] == '\'' || s[j] == '-') {
			j++
		}
		w := strings.TrimRight(s[i:j], "'-")
		if to, ok := spellings[w]; ok && to != "" && to != w {
			if b.Len() == 0 {
				b.Grow(len(s) + 16)
			}
			b.WriteString(s[last:i])
			b.WriteString(to)
			last = i + len(w)
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// riskFold is riskNorm with the spellings folded: the text the risk
// phrasings read.
func riskFold(text string) string { return foldSpellings(riskNorm(text)) }

// danglingIf: a turn that is only a condition ("if it happens again"), whose
// consequent is the user's next turn.
var danglingIf = regexp.MustCompile(`^\s*(?:and\s+|but\s+|so\s+)?(?:if|when|once)\s+[^,;]*$`)

// nowMarks: a statement of the present or the recent past, which a marker
// of a resolved past beside it does not lower ("40 days clean and I
// relapsed"; "it's still happening").
var nowMarks = regexp.MustCompile(`\b(?:again|relapsed|messed\s+(?:it\s+)?up|last\s+night|yesterday|today|tonight|right\s+now|still\s+(?:happening|do|does|doing|going\s+on)|this\s+(?:week|morning)|lately|these\s+days)\b`)

// agentOther: the last words before a self-harm act name someone or
// something else that acted ("the cat scratched my arm").
var agentNotUser = set("cat", "dog", "kitten", "puppy", "wasp", "bee", "hamster", "rabbit", "horse", "parrot", "bird",
	"baby", "toddler", "thorns", "branch", "bush", "rosebush", "he", "she", "they", "it", "someone", "somebody", "kid", "boy", "girl")

// actedByOther reports whether the subject nearest before a self-harm act
// is someone or something other than the user.
func actedByOther(prefix string) bool {
	words := riskWordsOf(prefix)
	for i := len(words) - 1; i >= 0 && i >= len(words)-6; i-- {
		w := strings.TrimSuffix(words[i], "'s")
		switch {
		case w == "i" || w == "i'm" || w == "i've" || w == "i'd" || w == "i'll" || w == "myself" || w == "me":
			return false
		case agentNotUser[w] || personNouns[w] || animals[w]:
			return true
		}
	}
	return false
}

// thingsFrame: what "end it" is about when it is no life: a contract, a
// game, a call ("if they raise the price again I'm ending it").
var thingsFrame = regexp.MustCompile(`\b(?:lease|contract|subscription|membership|game|level|match|season|call|meeting|project|job|account|deal|price|phone\s+(?:plan|contract)|gym|netflix|broadband|insurance|streak|series|book|essay|course|diet|tenancy|plan)\b`)

// crisisNear: words beside "end it" that keep it a crisis whatever else is
// named ("the job is gone and I want to end it all, I can't go on").
var crisisNear = regexp.MustCompile(`\b(?:can't\s+go\s+on|kill\s+myself|die|dead|pills|goodbye|no\s+point|life|living|alive|suicid\w*)\b`)

// topicStrict is the topic frame of grave phrasings: school work and
// media named as such, not a "game" or a "lesson" a child is made to keep
// secret.
var topicStrict = regexp.MustCompile(`\b(?:essays?|assignments?|homework|projects?|presentations?|lectures?|books?|novels?|comics?|films?|movies?|documentar(?:y|ies)|podcasts?|articles?|episodes?|series|tv|netflix|awareness|campaigns?|training|workshop)\b`)

// prevIf reports whether the user's previous turn is a condition waiting
// for its consequent ("if it happens again").
func (c *riskCtx) prevIf() bool {
	if c.prevIfMemo == 0 {
		prev := c.previous()
		c.spend(2 * len(prev))
		c.prevIfMemo = 1
		if prev != "" && danglingIf.MatchString(strings.TrimRight(prev, " .!?")) && !consequent.MatchString(prev) {
			c.prevIfMemo = 2
		}
	}
	return c.prevIfMemo == 2
}

// abuseOfUser reports whether a phrasing of the families' abuse lexicon is
// about the user as the one in danger: it names no one else as the victim.
func abuseOfUser(p riskPattern, match string) bool {
	if p.class != RiskAbuse {
		return false
	}
	for _, w := range riskWordsOf(match) {
		if w == "her" || w == "him" || w == "them" || w == "their" {
			return false
		}
	}
	return true
}

// benignVisit: the innocent explanation of someone waiting or showing up
// outside ("it was the delivery guy").
var benignVisit = regexp.MustCompile(`\b(?:to\s+(?:fix|repair|check|service|look\s+at|inspect|fit|install)\s+(?:the|my|our)\s+(?:boiler|heating|sink|shower|leak|pipes?|meter|wifi|router|fridge|washing\s+machine|oven|lock|door|window|roof|radiator|toilet|smoke\s+alarm)|read\s+the\s+meter|delivery|deliver\w*|parcel|package|postman|post\s+man|courier|taxi|uber|cab|lift|pick\s+me\s+up|picking\s+me\s+up|surprise|lost\s+(?:dog|cat)|false\s+alarm|it\s+was\s+(?:just|only|the|my)|mum|mom|dad|nan|grandma|grandpa|friend|bestie|date|lol|haha|pick\s+up|to\s+collect|school\s+run)\b`)

// namesOther reports whether a phrasing names someone else's body or self
// ("cutting her arms", "hurts himself"): then it is that person's act.
func namesOther(match string) bool {
	for _, w := range riskWordsOf(match) {
		switch w {
		case "his", "her", "their", "himself", "herself", "themselves", "themself":
			return true
		}
	}
	return false
}

// riskPersons are the people a risk statement's subject may be: the
// person nouns of memories and more (AboutPerson keeps its own list).
var riskPersons = func() map[string]bool {
	m := set("boy", "girl", "kid", "lady", "bloke", "fella", "lad", "teen", "teenager", "dealer", "buddy", "pal",
		"grandson", "granddaughter", "grandkid", "grandchild", "son-in-law", "daughter-in-law", "lodger", "tenant",
		"driver", "instructor", "doctor", "nurse", "neighbours", "neighbors", "caregiver", "stepson", "stepdaughter",
		"auntie", "aunty", "grandad", "granddad", "grampa", "gramps", "nana", "sponsor", "sponsee", "therapist", "men", "women", "someone's")
	for w := range personNouns {
		m[w] = true
	}
	return m
}()

// personBefore reports whether a person noun is among the few words before
// a thing ("a man in a car").
func personBefore(words []string) bool {
	for i := len(words) - 1; i >= 0 && i >= len(words)-3; i-- {
		if riskPersons[words[i]] || subjectGeneric[words[i]] {
			return true
		}
	}
	return false
}

// sportFrame: contact in a sport, or by accident and apologised for.
var sportFrame = regexp.MustCompile(`\b(?:by\s+accident|accidentally|didn't\s+mean\s+to|said\s+sorry|apologi[sz]ed|football|rugby|soccer|hockey|basketball|netball|match|practice|training|tackl\w*|sparring|karate|judo|boxing|taekwondo|wrestling\s+(?:class|match)|dodgeball|in\s+pe\b)\b`)

// resolution: the user's own past that is over, said in so many words.
var resolution = regexp.MustCompile(`\b(?:left\s+(?:him|her|them)|never\s+looked\s+back|(?:all\s+)?behind\s+me|moved\s+(?:away|cities|out|on|house)|safe\s+now|divorced|free\s+of\s+(?:it|him|her)|not\s+my\s+life\s+any\s?more|that's\s+over|it's\s+over\s+now|(?:clean|free|sober)\s+for|restraining\s+order|got\s+away|he's\s+gone|she's\s+gone|in\s+prison\s+now)\b`)

// otherRecovery: someone else's story told with its recovery ("today he
// got his one year chip"): no finding.
var otherRecovery = regexp.MustCompile(`\b(?:got\s+(?:clean|sober|help)|(?:one|two|three|four|five|[0-9]+)\s+years?\s+(?:now|clean|sober)|(?:his|her|their)\s+(?:one|two|[0-9]+)\s+year\s+chip|chip\b|therapy\s+(?:saved|fixed|helped)|(?:saved|changed)\s+(?:her|his|their)\s+life|strongest|inspir\w*|(?:he|she|they)(?:'s|\s+is|'re|\s+are)\s+(?:doing\s+)?(?:well|better|fine|great|thriving)\s+now|got\s+(?:her|him|them)\s+walking|recovered|in\s+recovery|got\s+through\s+it|(?:he|she)\s+got\s+(?:his|her)\s+life\s+back)\b`)

// badIf: a condition that is a loss or a blow, after which a weak
// phrasing is a consequent of intent.
var badIf = regexp.MustCompile(`\b(?:if|when|once)\b(?:\s+[a-z']+){0,6}?\s+(?:lose|loses|lost|fail|fails|leave|leaves|left|takes?\s+(?:my|the)\s+(?:kids|children|house|home|baby)|take\s+(?:my|the)\s+(?:kids|children)\s+away|divorce|results?|diagnosis|hearing|sight|goes\s+under|evict\w*|again|relapse|slip\s+up|warning|fired|sacked|dumps?|cheats?|split\s+up|hospital|care\s+home|doesn't\s+get\s+better|gets?\s+worse|come\s+back\s+bad|bank\s+takes|happens\s+again|goes\s+completely|one\s+more\s+time|shouts?\s+again|laugh\w*\s+at\s+me|call\s+(?:me\s+)?back|answer|reply|replies|reject\w*|can'?t\s+pay|rent|bills?|debts?|section\w*|sectioned|comes?\s+back\s+positive|positive|hurts?\s+me|hits?\s+me|another|find\s+out|finds\s+out|found\s+out)\b`)

// tails: a sentence that is only an adverb of time completes the one
// before it ("I'm out. Permanently.").
var tails = set("permanently", "for good", "forever", "for ever", "for real", "for real this time", "this time")

// riskSentence is a sentence of a message, as the risk screen reads it,
// and where it starts in the message (-1: it was joined with its tails).
type riskSentence struct {
	text string
	at   int
}

// riskSentences are the sentences of msg (splitRiskSentences) with each
// sentence that is a tail joined to the one before it, in one pass: a run
// of tails is joined once, not copied again for each of them.
func riskSentences(msg string) []riskSentence {
	var out []riskSentence
	var joined []string // the run of tails of the last sentence out, after it
	flush := func() {
		if len(joined) > 0 {
			last := &out[len(out)-1]
			last.text, last.at, joined = last.text+" "+strings.Join(joined, " "), -1, nil
		}
	}
	for i, sp := range riskSentenceSpans(msg) {
		sent := msg[sp[0]:sp[1]]
		if i > 0 && tails[strings.TrimSpace(sent)] && (len(joined) > 0 || strings.TrimSpace(out[len(out)-1].text) != "") {
			joined = append(joined, sent)
			continue
		}
		flush()
		out = append(out, riskSentence{sent, sp[0]})
	}
	flush()
	return out
}

// hasVerbs follow "mum's" when it is "mum has" or "mum is", not a
// possessive.
var hasVerbs = set("been", "going", "gonna", "always", "never", "not", "got", "just", "so", "really", "a", "the", "being",
	"still", "coming", "saying", "told", "had", "done", "gone", "started", "on", "in", "at", "out", "home", "here", "there")

// mayHold reports whether the message or the previous turn may hold the
// cue of bit (-1: no cue asked).
func (c *riskCtx) mayHold(bit int) bool {
	if bit < 0 || c.msgMask.has(bit) {
		return true
	}
	if !c.prevMasked {
		c.prevMasked = true
		if prev := c.previous(); prev != "" {
			c.prevMask = c.tables().set.mask(prev)
		}
	}
	return c.prevMask.has(bit)
}

// Concepts the families share, composed rather than listed by sentence
// (issue 23 §1, second pass): the user's absence (gone, not in the
// picture, not waking, staying asleep), what survives the user (letters,
// pets, debts, things given away), the means at hand and its lethality,
// a partner's hold over the user's phone, keys, money, friends and
// whereabouts, a person at the door, an amount of a substance with what
// it does to the body. Each is qualified by the same frames as the
// lexicons above.
const (
	// absent is the user not being here, in the words people use for it.
	absent = `(?:gone|dead|not\s+(?:here|around|alive|in\s+the\s+picture)|no\s+longer\s+(?:here|around|alive)|out\s+of\s+the\s+(?:way|picture)|in\s+the\s+ground|six\s+feet\s+under)`
	// partner is someone who may hold power over the user.
	partner = `(?:he|she|they|my\s+(?:husband|wife|partner|boyfriend|girlfriend|bf|gf|ex|fianc\w*|man|missus|other\s+half|stepdad|step\s+dad|carer))`
	// heldThings are what a controlling partner takes or keeps.
	heldThings = `(?:phone|mobile|car\s+keys|keys|money|bank\s+cards?|cards?|passport|wages|pay|pension|benefits|documents|id|wallet|purse|savings|laptop|sim)`
	// bodyHarm: what a substance does to the body, beyond symptom.
	bodyHarm = `\b(?:stay\s+awake|keep\s+(?:my\s+)?eyes\s+open|(?:keep|kept|keeps)\s+(?:being|getting|throwing\s+up|vomiting)|being\s+sick|can'?t\s+(?:stand(?:\s+up)?|breathe\s+(?:right|properly)|feel\s+my|walk|see\s+properly)|lips\s+(?:have\s+)?(?:gone|turned|are|look)\s+(?:blue|grey|purple)|(?:chest|heart)\s+(?:hurts|is\s+tight|pain|won't\s+slow)|hurts\s+to\s+breathe|struggling\s+to\s+(?:breathe|stay|stand|wake)|going\s+in\s+and\s+out|everything'?s?\s+(?:is\s+)?(?:spinning|going\s+(?:dark|black|blurry))|can't\s+stop\s+(?:shaking|being\s+sick)|(?:can|can't|could|couldn't)\s+(?:barely|hardly)?\s*keep\s+my\s+eyes\s+open|heart(?:'s|\s+is)\s+all\s+over|can'?t\s+move\s+my|slurring|seeing\s+double|going\s+(?:dark|black|grey))`
)

var conceptPatterns = []riskPattern{
	// ---- Passive ideation: the user's absence, wished for or imagined
	// as a relief to others. Medium.
	lx(RiskSuicidal, SeverityMedium, `\b(?:better|easier|simpler|happier|lighter|relieved|fine|okay|ok|cope|manage|move\s+on|get\s+over\s+it|breathe)\b(?:\s+[a-z']+){0,6}?\s+(?:if|once|when)\s+i\s+(?:just\s+)?(?:was|were|wasn't|weren't|am|'m|was\s+finally)\s+(?:not\s+)?`+absent).
		notAfter(`for\s+(?:a|the|one|two|\d+|a\s+few)\s+\w+|this\s+(?:weekend|week)|tonight|at\s+(?:work|the)|on\s+(?:the|my)\s+(?:trip|holiday)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:don't|dont|do\s+not)\s+(?:know|see|get)\s+why\s+(?:i'm|im|i\s+am)\s+(?:even\s+)?still\s+(?:here|alive|around|breathing)\b|\bwhy\s+(?:am\s+i|i'm|im)\s+(?:even\s+)?still\s+(?:alive|breathing|here\s*$)|\bwhat\s+(?:am\s+i|i'm|im)\s+(?:even\s+)?(?:still\s+)?(?:staying\s+alive|alive|living|still\s+here)\s+for\b`).
		notAfter(`at\b|in\b|on\b|with\b|waiting|working|doing`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:hop|wish|pray)(?:e|es|ed|ing)?\b(?:\s+[a-z']+){0,5}?\s+(?:i\s+)?(?:just\s+)?(?:don't|dont|won't|wont|never|do\s+not|wouldn't)\s+(?:open\s+my\s+eyes|come\s+round|see\s+(?:the\s+)?(?:morning|tomorrow|another\s+(?:day|morning|year|birthday|christmas))|make\s+it\s+to\s+(?:morning|tomorrow))\b|\b(?:go\s+to\s+sleep|fall\s+asleep|sleep)\s+and\s+(?:just\s+)?(?:stay\s+(?:asleep|that\s+way|there)|never\s+come\s+back|not\s+come\s+back)\b|\bstay\s+asleep\s+(?:forever|for\s+good|for\s+ever|permanently)\b`).
		notAfter(`till|until|on\s+(?:my|a)\s+(?:day|lie)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:tired|sick|weary|exhausted)\s+of\s+(?:being\s+(?:here|around)\s+(?:at\s+all|any\s?more|on\s+this\s+(?:earth|planet))|being\s+me\b|existing|waking\s+up\s+(?:at\s+all|every\s+day|each\s+morning))|\b(?:stopped|stop|quit)\s+wanting\s+to\s+(?:be\s+alive|live|be\s+here|exist|wake\s+up|keep\s+going)\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:wouldn't|would\s+not|won't|wouldnt)\s+(?:mind|care)\s+if\s+i\s+(?:just\s+)?(?:didn't|did\s+not|never|don't)\s+(?:wake\s+up|see\s+(?:another|the\s+(?:morning|new\s+year|next))|make\s+it|come\s+back|exist)|\b(?:wouldn't|wouldnt|would\s+not)\s+(?:mind|care)\s+if\s+i\s+(?:just\s+)?(?:died|was\s+gone|got\s+hit|never\s+woke|stopped\s+existing|disappeared)`),
	lx(RiskSuicidal, SeverityMedium, `\bwish\w*\b(?:\s+[a-z']+){0,6}?\s+(?:hadn't|had\s+not|didn't|hadnt)\s+(?:swerved|stopped|braked|missed\s+me|saved\s+me|found\s+me|revived\s+me|brought\s+me\s+back|pulled\s+me\s+out|woken\s+me)\b|\bwish\w*\b(?:\s+[a-z']+){0,5}?\s+(?:had|would\s+have)\s+(?:hit|killed|finished)\s+me\b`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:would|will|does|do)\s+(?:anyone|anybody|people|they|any\s+of\s+them)\s+(?:even\s+)?(?:notice|clock|care|miss\s+me|realise|realize)\w*\b(?:\s+[a-z']+){0,3}?\s+(?:if|when)\s+i\s+(?:just\s+)?(?:stopped\s+(?:existing|being\s+here|turning\s+up|breathing)|wasn't\s+(?:here|around)|weren't\s+(?:here|around)|was\s+gone|disappeared|vanished|died|didn't\s+(?:exist|wake\s+up|come\s+back)|never\s+came\s+back)`),
	lx(RiskSuicidal, SeverityMedium, `\b(?:just\s+)?taking\s+up\s+(?:space|air|room)\s+(?:that|someone|on\s+this|in\s+this\s+world)|\b(?:waste\s+of\s+(?:a\s+)?life|shouldn't\s+(?:still\s+)?be\s+here)\b`).fromUser().
		except(`\b(?:desk|car|boxes|garage|storage|shelf|cupboard|wardrobe|fridge|sofa|couch|parking|lol|haha)\b`),

	// ---- Preparation: what survives the user, set in order. High.
	lx(RiskSuicidal, "", `\b(?:written|wrote|writing|write|left|leaving|recorded|recording|made|making|finished)\b(?:\s+[a-z']+){0,3}?\s+(?:goodbye\s+|farewell\s+|last\s+)?(?:letters?|notes?|messages?|videos?|cards?)\s+(?:to|for)\s+(?:everyone|everybody|each\s+of|all\s+of|every\s+one\s+of|the\s+people\s+i\s+love)\s*(?:$|[,.;]|and\s+(?:left|put|hid)|i\s+love|who\s+matters|in\s+my\s+life|to\s+(?:read|find|open))|\b(?:letters?|notes?|messages?|videos?|recording)\b(?:\s+[a-z']+){0,6}?\s+(?:to\s+(?:read|watch|open|find|have)\s+)?(?:after|when)\s+i'?m\s+(?:gone|dead|not\s+(?:here|around)|no\s+longer\s+(?:here|around))\b`).
		except(`\b(?:committee|petition|residents|neighbours|about\s+the|club|team|class|thank\s*you|thanks|christmas|xmas|birthday|wedding|invitations?|cv|application|council|mp\b|complain\w*|valentine|postcards?|holiday|retire\w*|leaving\s+do|new\s+job|moving\s+(?:house|abroad|away)|funeral\s+plan|solicitor)\b`),
	lx(RiskSuicidal, "", `\b(?:gave|giving|given|give)\s+(?:away\s+)?(?:all\s+|most\s+|the\s+rest\s+)?(?:of\s+)?my\s+(?:\w+\s+){0,2}?(?:stuff|things|belongings|clothes|books|games|jewellery|jewelry|records|tools|collection|possessions|savings|guitar|console|switch|xbox|playstation|bike|plants)\b|\b(?:been\s+)?giving\s+(?:away\s+)?(?:all\s+)?(?:my|everything|all\s+my)\b(?:\s+[a-z']+){0,3}?\s+away\b`).
		needing(`won'?t\s+(?:be\s+)?(?:need|needing|using|use|around|here)|not\s+(?:going\s+to|gonna)\s+need|no\s+use\s+to\s+me|(?:after|when)\s+i'?m\s+gone|\beverything\b|all\s+week|wont\s+need|where\s+i'?m\s+going|for\s+when|last\s+(?:few|things)|nothing\s+left|keep\s+them\s+safe|remember\s+me`).
		except(`\b(?:baby|babies|outgrow\w*|old\s+(?:baby|school|work)|due|pregnant|expecting|charity|charity\s+shop|clear\w*\s+out|declutter\w*|moving|move\b|outgrown|too\s+small|spring\s+clean\w*|kondo|car\s+boot|ebay|vinted|sell\w*|sold|upgrade|new\s+one|bigger|smaller\s+flat|downsiz\w*|minimalis\w*|freecycle)\b|` + movingFrame),
	lx(RiskSuicidal, "", `\b(?:new\s+home|someone\s+to\s+(?:take|look\s+after|have)|somewhere\s+(?:to\s+go|safe))\s+for\s+(?:my\s+|the\s+)?(?:cat|dog|pets?|bird|rabbit|hamster|fish|budgie|kitten|puppy)\b|\b(?:rehomed|rehoming|rehome|found\s+a\s+(?:new\s+)?home\s+for)\s+(?:my\s+|the\s+)?(?:cat|dog|pets?|bird|rabbit|hamster|fish|budgie)\b|\bmade\s+sure\s+(?:my\s+|the\s+)?(?:cat|dog|pets?|kids|children)\s+(?:has|have|will\s+have|is|are|will\s+be)\b`).
		needing(`\bafter\b|be\s+around|won'?t\s+be|when\s+i'?m\s+gone|better\s+off|someone\s+who'?ll|look\s+after\s+(?:her|him|them)|taken\s+care\s+of\s+(?:after|when)|not\s+(?:here|around)|somewhere\s+to\s+go`).
		except(`\b(?:moving|move\b|allerg\w*|landlord|new\s+(?:flat|job|baby|house)|can't\s+afford|baby|holiday|trip|vacation|kennels?|cattery|sitter|while\s+(?:i'm|we're)\s+away|working\s+away|hospital\s+(?:stay|for\s+(?:a|the))|operation|surgery)\b`),
	lx(RiskSuicidal, "", `\b(?:sorted|wrote|written|made|updated|finished|paid\s+off|cancelled|canceled|closed|settled|tied\s+up|put)\b(?:\s+[a-z']+){0,6}?\s+(?:so\s+(?:that\s+)?(?:nobody|no\s+one|noone|they|the\s+kids|my\s+\w+)\s+(?:has|have|is|are|'s|won't|doesn't|don't)\b(?:\s+[a-z']+){0,3}?\s+(?:mess|deal\s+with|sort\s+out|clean\s+up|left\s+with|worry|burden)|(?:after|when)\s+i'?m\s+(?:gone|not\s+here|dead)|all\s+(?:my\s+)?loose\s+ends|(?:my\s+)?affairs\s+in\s+order)`).
		except(`\b(?:funeral\s+plan|solicitor|lawyer|at\s+my\s+age|one\s+day|eventually|in\s+years|years\s+to\s+come|sensible|the\s+adviser|financial\s+adviser|retire\w*|moving|emigrat\w*|new\s+job|before\s+(?:the\s+)?(?:baby|holiday|trip|operation|surgery)|travel\w*|gap\s+year|wedding)\b`),
	lx(RiskSuicidal, "", `\b(?:looked|look|looking|googl\w*|search\w*|research\w*|checked|checking|read|reading|worked|found|asked)\s+(?:up\s+|into\s+|out\s+|up\s+on\s+|online\s+)?(?:how\s+(?:many|much)\s+(?:it\s+)?(?:would|it'd|will|i'd|i\s+would|you'd)\s+(?:take|need)|(?:which|what)\s+(?:\w+\s+){0,2}?(?:would|will|could|can)?\s*(?:stop\s+(?:your|my|a|the)\s+heart|kill\s+(?:you|me|a\s+person|someone)|be\s+(?:fatal|lethal|enough))|(?:which|what)\s+(?:pills|tablets|painkillers|drugs|meds)\s+(?:stop|kill|are\s+(?:fatal|lethal)))`).
		except(`\b(?:dog|cat|pet|puppy|kitten|toddler|baby|kids?|child|grandchild\w*|essay|exam|nursing|vet|pharmacolog\w*|biology|chemistry|course|lecture|revision|recipe|paint|tiles|wallpaper|bricks|flour|people\s+(?:to|for|at)|guests|chairs|seats|tickets|buses|coaches|tins|cans|bags\s+of|hours|days|weeks|miles)\b`),
	lx(RiskSuicidal, "", `\b(?:rope|noose|pills|tablets|gun|blades?|razor|charcoal|hose(?:pipe)?|painkillers)\b(?:\s+[a-z']+){0,4}?\s+(?:ready|sorted|all\s+set|counted\s+out|lined\s+up|set\s+up|hidden|waiting|in\s+the\s+(?:shed|garage|car|boot|drawer|loft|attic))\b`).
		needing(`\b(?:now|ready|all\s+set|counted|lined\s+up|set\s+up|hidden|waiting|tonight|later|when|nobody|no\s+one|the\s+lot|enough)\b`).
		except(`\b(?:garden|plants|lawn|wash\w*|climbing|camping|boat|sailing|hunting|range|dog|tow|swing|clothesline|holiday|trip|pill\s*box|dosette|weekly|morning|bbq|barbecue|grill|shav\w*|craft\w*|diy|shoot(?:ing)?\s+(?:range|club)|clay|game|play|prop|costume|halloween|tug)\b`),
	lx(RiskSuicidal, "", `\b(?:picked|chosen|chose|set|decided\s+on|settled\s+on|worked\s+out)\s+(?:a\s+|the\s+)?(?:`+days+`(?:\s+night)?|tonight|tomorrow(?:\s+night)?|the\s+date|a\s+date|the\s+day|a\s+day|the\s+night|a\s+night|the\s+time|next\s+\w+)\b`).
		needing(`\bempty\b|\bnobody\b|\bno\s+one\b|\balone\b|(?:everyone|everybody|they|the\s+kids)(?:'s|\s+is|'re|\s+are|'ll\s+be|\s+will\s+be)\s+(?:out|away|asleep)|won't\s+be\s+found|won't\s+find\s+me|when\s+(?:the\s+house|everyone|everybody)`).
		except(`\b(?:wedding|party|date\s+night|holiday|move|moving|birthday|interview|appointment|surgery|exam|match|game|film|movie|restaurant|dinner|sleepover|friends\s+over|mates\s+over|gaming|netflix|bath|clean\w*|tidy|decorat\w*|paint\w*|practi[sc]e|study|revis\w*|gig|concert|pamper|spa|self-?care|me\s+time|takeaway|sale)\b`),

	// ---- Intent in other words: high.
	lx(RiskSuicidal, "", `\b(?:do|did|doing|done)\s+myself\s+in\b`).
		notAfter(`(?:lifting|carrying|moving|at\s+the\s+gym|on\s+the|with\s+(?:the|that|all)|running|training|working)`),
	lx(RiskSuicidal, "", `\b(?:take|taking|took|swallow|swallowing|down|downing)\s+(?:every|each)\s+(?:single\s+)?(?:pill|tablet|painkiller)\b|\b(?:take|taking|swallow|swallowing)\s+everything\s+in\s+the\s+(?:cabinet|cupboard|medicine\s+\w+|drawer|house)\b`).
		except(`\b(?:prescribed|as\s+prescribed|on\s+time|every\s+(?:day|morning|night)|doctor|gp|course\s+of|antibiotics?|vitamins?|remember(?:ed)?\s+to)\b`),
	lx(RiskSuicidal, "", `\b(?:going\s+to|gonna|will|i'll|want\s+to|wanna|planning\s+to|plan\s+to|about\s+to|ready\s+to|thinking\s+of|thought\s+about|nearly|almost)\s+(?:just\s+)?(?:drive|crash|steer|wrap|swerve|plough|plow)\s+(?:my\s+|the\s+)?(?:car|van|truck|bike|motorbike)?\s*(?:into|off|under)\s+(?:a|the|an)\s+(?:wall|tree|bridge|river|lake|cliff|lorry|truck|pillar|motorway|oncoming|sea|quarry|reservoir|canal|bus|train)\b`).
		except(`\b(?:lol|haha|parking|reversing|learner|driving\s+lesson|instructor|game|gta|mario|icy|ice|fog)\b`),
	lx(RiskSuicidal, "", `\b(?:going\s+to|gonna|will|i'll|want\s+to|wanna|planning\s+to|plan\s+to|about\s+to|ready\s+to)\s+(?:just\s+)?(?:slit|slash|open|cut)\s+(?:my\s+)?(?:wrists?|throat|veins)\b`),
	lx(RiskSuicidal, "", `\bnot\s+(?:sticking|hanging|staying)\s+around\b|\bthat'?s\s+it\s+for\s+me\b|\b(?:i'm|im|i\s+am)\s+(?:done|finished)\s+with\s+(?:living|being\s+alive|this\s+life|life)\b`).weakly(),
	lx(RiskSuicidal, "", `\b(?:going\s+to|gonna)\s+(?:make\s+it\s+happen|do\s+it|go\s+through\s+with\s+it)\b`).
		needing(`\b(?:want\s+to\s+die|wanna\s+die|kill\s+myself|end\s+(?:it|my\s+life|things)|not\s+be\s+here|be\s+dead|ready\s+to\s+go|goodbye|i've\s+decided)\b`).weakly(),

	// ---- Self-harm acts in other words: high.
	lx(RiskSelfHarm, "", `\b(?:put|stub|stubbed|stubbing|putting)\s+(?:a\s+|my\s+|the\s+)?(?:cigarette|fag|ciggie|joint|match|lighter)\s+out\s+on\s+(?:my\s+)?(?:own\s+)?(?:arms?|wrists?|hands?|legs?|thighs?|skin|stomach|chest|neck)\b|\b(?:slamm?(?:ed|ing)?|smash(?:ed|ing)?|bang(?:ed|ing)?|hit(?:ting)?|beat(?:ing)?)\s+my\s+(?:own\s+)?head\s+(?:against|into|on|off)\b`).
		needing(`again|until|till|so\s+(?:hard|i)|on\s+purpose|deliberately|quiet|stop|bled|bleed|blood|bruise|punish|deserve|hate|because|every|feel|make\s+it|lighter|cigarette`).
		except(`\b(?:accident\w*|cupboard|low\s+ceiling|beam|car\s+door|bunk|tripped|fell|slipped|clumsy|lol|haha|frustrat\w*\s+with|homework|maths?|puzzle|crossword|spreadsheet|code|coding|bug\b)\b`).byUser(),
	lx(RiskSelfHarm, "", `\b(?:covered\s+in|fresh|new|open|raw|red)\s+(?:new\s+|fresh\s+|red\s+|deep\s+)?(?:lines|cuts|slashes|scabs|wounds|gashes|burns|scratches|marks)\s+(?:on|up|down|across|all\s+over|under)\b`).
		needing(`\b(?:my|sleeves?|hoodie|hide|hiding|jumper|nobody|again|did|made)\b`).
		except(`\b(?:cat|kitten|dog|puppy|hamster|brambles?|thorns?|garden\w*|kitchen|cooking|bike|fell|tripped|climbing|rugby|football|tattoo\w*|surgery|operation|stitches|chickenpox|eczema|sunburn|code|poem|song|script|play|notebook|page|paper)\b`),

	// ---- Danger now in other words: high.
	lx(RiskAbuse, "", `\b(?:he|she|they|my\s+ex|someone|somebody|a\s+(?:man|guy|woman|stranger)|the\s+(?:man|guy|woman))(?:'s|\s+is|'re|\s+are)\s+(?:still\s+|back\s+)?(?:outside|downstairs|at\s+(?:the|my|our)\s+(?:door|window|gate|front\s+door|back\s+door))\b`).
		needing(`right\s+now|won'?t\s+(?:stop|go|leave)|keeps?\s+(?:ringing|knocking|banging|calling|shouting)|scared|frightened|terrified|afraid|bang\w*|shout\w*|scream\w*|again|hiding|let\s+(?:him|her|them)\s+in|won'?t\s+answer|threat\w*|kill|hurt|drunk|angry|knife|police`).
		except(benignVisit.String()),
	lx(RiskAbuse, "", `\b(?:kicking|kicked|kicks|banging|hammering|pounding|smashing|smashed|trying\s+to\s+(?:kick|break|force|smash))\s+(?:in\s+|down\s+)?(?:the|my|our)\s+(?:bedroom\s+|bathroom\s+|front\s+|back\s+)?(?:door|window)s?(?:\s+in|\s+down)?\b|\btrying\s+to\s+(?:get|break|climb|force\s+(?:his|her|their)\s+way)\s+in\b`).
		needing(`\b(?:locked|hiding|hide|scared|frightened|terrified|afraid|he|she|they|him|her|them|night|shout\w*|scream\w*|drunk|angry|police|hear)\b`).
		except(`\b(?:delivery|parcel|postman|locked\s+(?:myself\s+)?out|lost\s+(?:my|the)\s+keys?|forgot\s+(?:my|the)\s+keys?|locksmith|cat|dog|wind|storm|builders?|police\s+(?:did|had\s+to)|neighbou?r\s+(?:wanted|needed)|game|film|movie|lol|haha|fire\s+(?:drill|brigade)|firefighters?)\b`).byPerson().severe(),
	lx(RiskAbuse, "", `\b(?:he|she|they|my\s+ex|my\s+\w+)(?:'s|\s+has|\s+had|'ve|\s+have)\s+(?:got\s+)?(?:a|his|her|their|the)\s+(?:knife|gun|blade|machete|bat|hammer|weapon)\b|\bthreaten(?:ed|ing|s)?\s+(?:to\s+(?:kill|stab|shoot|hurt|strangle|burn|beat)\s+me|me\s+with)\b`).
		needing(`threat\w*|use\s+it|on\s+me|at\s+me|kill|hurt|stab|shoot|waving|pointing|scared|terrified|coming|said\s+he|said\s+she|if\s+i|means\s+it`).
		except(`\b(?:game|film|movie|lol|haha|kitchen|cooking|chopping|cutting\s+(?:the|up)|carving|joking|jokingly|messing|play(?:ing)?|toy|nerf|water\s+gun|hunting|range|diy|shed)\b`).severe(),
	lx(RiskAbuse, SeverityMedium, `\b(?:tracker|tracking\s+(?:device|app)|airtag|air\s+tag|gps\s+(?:tracker|tag))\s+(?:on|in|under|inside)\s+my\s+(?:car|bag|phone|coat|handbag|bike|keys)\b|\b(?:put|hid|found|planted|installed)\s+(?:a\s+|an\s+)?(?:tracker|airtag|air\s+tag|tracking\s+(?:device|app)|spy\s*ware|spy\s+app)\b`).
		except(`\b(?:lost\s+(?:my|the)|so\s+i\s+(?:can|could|don't)|my\s+(?:dog|cat|luggage|suitcase)|on\s+(?:my|the)\s+(?:dog|cat|luggage|suitcase)|kids?'?s?\s+(?:bag|phone)|find\s+my|theft|stolen|insurance)\b`),

	// ---- Coercive control in other words: medium.
	lx(RiskAbuse, SeverityMedium, `\b`+partner+`\b(?:\s+[a-z']+){0,2}?\s+(?:took|takes|has\s+taken|keeps|kept|hides|hid|holds|controls|confiscated|confiscates|locked\s+away|locks\s+away|won't\s+give\s+(?:me\s+)?(?:back\s+)?)\s+(?:all\s+)?(?:of\s+)?my\s+`+heldThings+`\b|\b`+partner+`\s+(?:has|keeps|controls)\s+(?:all\s+)?(?:of\s+)?my\s+(?:bank\s+cards?|cards?|money|wages|pension|benefits|passport|savings|documents)\b`).
		except(`\b(?:shopping|errands|to\s+(?:pay|get|do|fix|help|mend|charge|update)|borrow\w*|lend|by\s+mistake|accident\w*|forgot|left\s+(?:it|them)|safe\s+for\s+me|for\s+safe|grounded|punish\w*|bedtime|screen\s*time|naughty|homework|school|until|till|for\s+(?:a|the)\s+(?:day|week|night)|lol|haha|joke|prank|thief|thieves|mugged|robbed|stole|burglar|pickpocket|teacher)\b`),
	lx(RiskAbuse, SeverityMedium, `\b(?:not|never)\s+allowed\s+(?:to\s+)?(?:out\s+(?:on\s+my\s+own|alone|without)|to\s+(?:see|talk\s+to|speak\s+to|call|text|visit|contact)\s+(?:my\s+)?(?:friends|family|mum|mom|mam|dad|parents|sister|brother|anyone|anybody|people)|to\s+have\s+(?:my\s+own\s+)?(?:money|a\s+phone|friends|a\s+job|a\s+bank)|to\s+(?:work|drive|leave\s+the\s+house|go\s+out))\b|\bonly\s+allowed\s+(?:out|to\s+(?:go|leave|see|call|spend))\b|\b`+partner+`\s+(?:won't|doesn't|wouldn't|never|will\s+not|does\s+not)\s+let\s+me\s+(?:have\s+(?:my\s+own\s+)?(?:money|a\s+phone|friends|a\s+job|a\s+bank)|see\s+(?:my\s+)?(?:friends|family|mum|mom|dad|parents|sister|brother|anyone)|talk\s+to\s+(?:anyone|my\s+\w+)|work|drive|leave\s+the\s+house|out\s+of\s+(?:his|her|their)\s+sight)\b`).
		except(`\b(?:grounded|homework|bedtime|sweets|screen\s*time|ipad|games?|punish\w*|naughty|teacher|school|covid|lockdown|quarantine|isolat\w*\s+(?:with|for)|doctor|hospital|surgery|infection|chickenpox|contagious|exam|until\s+i'm|till\s+i'm|lol|haha|work\s+(?:rules|policy)|boss|manager|contract|night\s+shift|during\s+(?:work|the\s+shift))\b`),
	lx(RiskAbuse, SeverityMedium, `\b(?:have|has|had|make|makes|made|forces?|forced)\s+(?:me\s+)?(?:to\s+)?(?:send|share|show|text|call|ring|report|check\s+in|video\s+call|facetime)\b(?:\s+[a-z']+){0,6}?\s+(?:where\s+i\s+am|my\s+location|who\s+i'm\s+with|every\s+(?:hour|half\s+hour|time\s+i|\d+\s+minutes)|all\s+the\s+time|whenever\s+i'm\s+out)\b|\b(?:checks|tracks|monitors|watches|follows|checks\s+up\s+on)\s+(?:my\s+)?(?:location|where\s+i\s+am|where\s+i\s+go)\b`).
		needing(`\b(?:he|she|him|her|they|them|my\s+(?:husband|wife|partner|boyfriend|girlfriend|ex|bf|gf))\b`).
		except(`\b(?:mum|mom|dad|parents|school|safety\s+app|uni|work|boss|job|delivery|driver|shift|lone\s+worker|hiking|night\s+out\s+with|safe\s+home|got\s+home\s+safe|lol|haha)\b`),
	lx(RiskAbuse, SeverityMedium, `\b(?:goes|go|gets|went|flips|flipped|kicks\s+off|kicked\s+off|loses\s+it|lost\s+it)\s+(?:mental|mad|crazy|nuts|ballistic|off\s+on\s+one|psycho|furious|violent|angry|off)?\s*(?:at\s+me\s+)?(?:if|when|whenever|every\s+time)\s+i\s+(?:even\s+)?(?:talk\s+to|speak\s+to|see|text|call|ring|go\s+out|meet|visit|look\s+at|wear|spend\s+(?:time|money))\b|\b(?:decides|chooses|controls|dictates|tells\s+me)\s+(?:\w+\s+){0,6}?who\s+i\s+(?:see|speak|talk|can|am\s+allowed|text|meet|hang)\b|\bso\s+(?:that\s+)?i\s+(?:can't|cannot|couldn't|can\s+not)\s+(?:contact|call|ring|talk\s+to|text|reach|message)\s+(?:anyone|anybody|my\s+\w+|help|the\s+police|people)\b|\b(?:cut|cuts|cutting|isolat\w+|kept|keeps|keeping|stopped|stops)\s+me\s+(?:off\s+)?(?:away\s+)?from\s+(?:seeing\s+)?(?:my\s+|all\s+my\s+)?(?:family|friends|mum|mom|dad|parents|sister|brother|everyone|people)\b`).
		byPerson().
		except(`\b(?:grounded|homework|bedtime|teacher|school|covid|lockdown|quarantine|doctor|hospital|infection|contagious|exam|lol|haha|revision|chores|tidy|mess|homesick)\b`),
	lx(RiskAbuse, "", `\bif\s+i\s+(?:ever\s+)?(?:tell|told|say|said|breathe\s+a\s+word|speak)\b(?:\s+[a-z']+){0,6}?\s+(?:he'll|she'll|they'll|he\s+will|she\s+will|they\s+will|he'd|she'd|he\s+would|she\s+would)\s+(?:make\s+me\s+(?:pay|regret|sorry)|hurt|kill|beat|hit|do\s+something|find\s+me|take\s+(?:the\s+kids|my\s+\w+)|send|post|share|ruin)\b`).
		except(`\b(?:surprise|party|present|gift|spoiler|lol|haha|joke|kidding|ending|secret\s+santa|mum\s+about\s+the)\b`).severe(),

	// ---- A child's secret, in other words: a secret marker with
	// somewhere private or the body. High.
	lx(RiskAbuse, "", `\b(?:nobody|no\s+one|noone)\s+(?:can|must|is\s+allowed\s+to|should|is\s+supposed\s+to)\s+(?:ever\s+)?know\b|\b(?:i'm|im|i\s+am)\s+not\s+(?:allowed|aloud|supposed)\s+to\s+(?:say|tell|talk\s+about)\b|\b(?:its|it's|it\s+is)\s+(?:ok|okay|alright|fine)\s+(?:cos|cause|because|coz|since)\s+(?:it's|its|it\s+is)\s+(?:a\s+|our\s+)?secret\b`).
		needing(`touch\w*|private|bath\w*|shower|\bbed\b|bedroom|my\s+room|at\s+night|clothes|naked|undress\w*|pants|knickers|lap\b|kiss\w*|photos?|pictures?|videos?|body|hurts?|game|comes?\s+in`).
		with2(`\b(?:he|she|him|his|her|uncle|stepdad|step\s+dad|stepfather|stepmum|coach|tutor|teacher|man|grown[- ]?ups?|adult|someone|babysitter|neighbou?r|grandad|grandpa|boyfriend|cousin|brother|dad|daddy|mummy's|priest|aunt\w*)\b`).
		except(`\b(?:surprise|party|present|gift|birthday|christmas|santa|recipe|crush|spoiler|hiding\s+place|password|secret\s+club|den|treasure|cookie|biscuit|ate\s+the|the\s+ending|the\s+plot)\b`).kept(),

	// ---- Acute distress in other words: medium.
	lx(RiskDistress, "", `\b(?:falling\s+to\s+pieces|coming\s+apart\s+at\s+the\s+seams|can'?t\s+(?:catch\s+my\s+breath|get\s+(?:up\s+)?off\s+the\s+(?:floor|bathroom\s+floor|kitchen\s+floor)|stop\s+(?:trembling|hyperventilating))|breaking\s+down\s+(?:in\s+tears|every\s+day|all\s+the\s+time|again|constantly)|keep\s+breaking\s+down|(?:chest|throat)\s+(?:is\s+)?(?:so\s+|really\s+)?tight|pacing\s+(?:for\s+hours|all\s+night|since)|(?:hands|legs|body|whole\s+body)\s+(?:won't|wont|will\s+not)\s+stop\s+(?:shaking|trembling)|having\s+a\s+(?:breakdown|meltdown)\s+right\s+now|(?:i'm|im|i\s+am)\s+(?:completely\s+|totally\s+)?(?:overwhelmed|a\s+wreck|a\s+mess)\s+(?:and|i\s+can't|can't|right\s+now|all\s+the\s+time|every\s+day))\b`).
		except(`\b(?:lol|haha|lmao|exam|test|interview|excited|car\s+(?:broke|has\s+broken)|the\s+car|the\s+washing\s+machine|laptop|phone\s+(?:is|has)|sofa|furniture|jigsaw|lego|robot|in\s+the\s+(?:game|film|book|show)|running|run\b|gym|workout|stairs|hike|cold|flu|asthma\s+(?:is\s+)?(?:fine|ok)|my\s+(?:toddler|baby|son|daughter|dog|cat)\s+(?:is|was|keeps|had))\b`),

	// ---- Substance crisis in other words: an amount past the usual, a
	// binge or a mix, and what it does to the body. High.
	lx(RiskSubstance, "", `\b(?:double|twice|triple|way\s+too\s+much|far\s+too\s+much|too\s+much|too\s+many|a\s+lot\s+more|loads\s+more|way\s+more|much\s+more|most\s+of\s+a\s+bottle|a\s+whole\s+(?:bottle|packet|box)|a\s+load\s+of|loads\s+of|since\s+this\s+morning|all\s+(?:day|night))\b|\b(?:don't|dont|do\s+not)\s+know\s+how\s+(?:much|many)\s+(?:i've|i\s+have|i)\s+(?:had|taken|took|drunk|drank|done|used|smoked)\b|\blost\s+count\b|\bon\s+(?:it|a\s+bender|a\s+binge|the\s+\w+)\s+(?:since|for\s+(?:\w+\s+)?(?:days|nights|hours))\b|\b(?:grams?|pills|tablets|lines|bags|pints|shots)\b(?:\s+[a-z']+){0,3}?\s+(?:and|with|plus|on\s+top\s+of)\s+(?:\w+\s+){0,3}?(?:bottles?|drinks?|wine|vodka|whiske?y|beer|pills|tablets|gin|rum|cans)\b|\b(?:after|from)\s+what\s+i\s+(?:took|had|used|smoked|drank|snorted)\b`).
		needing(bodyHarm + `|` + symptom).with2(drugWord + `|\b(?:took|had|used|drank|on\s+it)\b`).
		except(`\b(?:hungover|hangover|lol|haha|lmao|caffeine|coffee|energy\s+drinks?|red\s*bull|monster\s+(?:energy|cans?)|pre-?workout|espresso|sugar|cake|chocolate|pizza|food|ate|eating|gym|workout|training|run\b|running|homework|emails?|screen\s*time|netflix|flu|cold|covid|food\s+poisoning|dentist|anaesthetic|anesthetic|surgery|operation|hospital\s+gave|doctor\s+gave|prescribed|side\s+effects?\s+of\s+my\s+new)\b`),
	lx(RiskSubstance, SeverityMedium, `\b(?:had|drunk|drank|downed|done|taken|took|on\s+(?:my|about))\s+(?:about\s+|like\s+|around\s+|maybe\s+|over\s+|at\s+least\s+)?(?:[6-9]|1[0-9]|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)\s+(?:drinks|pints|shots|cans|units|glasses|beers|bottles|lines|pills|tablets)\b`).
		needing(`still\s+(?:going|drinking|at\s+it)|can't\s+stop|cant\s+stop|keep\s+going|not\s+stopping|won't\s+stop|another\s+one|more\s+on\s+the\s+way|getting\s+more|alone|by\s+myself|on\s+my\s+own|don't\s+care|relapse\w*|sober|clean\b|days?\s+\d+|day\s+\w+`).
		except(`\b(?:lol|haha|party|wedding|stag|hen|birthday|celebrat\w*|mates|friends|the\s+lads|the\s+girls|pub\s+quiz|over\s+the\s+(?:week|month|year)|in\s+(?:a|the)\s+(?:week|month|year)|last\s+(?:year|month)|used\s+to|years\s+ago|back\s+then|water|coffee|tea|espresso|cups)\b`),

	// ---- Second pass: wider compositions of the same concepts.
	lx(RiskSuicidal, SeverityMedium, `\b(?:ok|okay|fine|happy|glad|relief|relieved|happier|better|easier|kindest|best\s+thing|at\s+peace|want|wanna|wish|hope|hoping|rather)\b(?:\s+[a-z']+){0,7}?\s+(?:not\s+(?:exist(?:ing)?|be(?:ing)?\s+alive|waking\s+up)|never\s+waking\s+up|fad(?:e|ing)\s+(?:out|away)\s+(?:and|for\s+good|forever|completely)|stop\s+existing|ceas(?:e|ing)\s+to\s+exist|out\s+of\s+(?:their|his|her|everyone's|your)\s+li(?:fe|ves)\s+(?:for\s+good|forever|permanently)|just\s+go\s*$|go\s+for\s+good|not\s+be(?:ing)?\s+around\s+any\s?more)\b`).
		notAfter(`for\s+(?:a|the|one|two|\d+|a\s+few)\s+\w+|this\s+(?:weekend|week)|tonight|at\s+(?:work|the)|on\s+(?:the|my)\s+(?:trip|holiday)|early|late|in\s+time|until|till|at\b|with\b`).
		except(`\b(?:lol|haha|game|party|meeting|class|lesson|shift|alarm|hangover|lie\s+in|weekend|holiday|dinosaurs?|species|band|brand|shop|company|tradition|the\s+(?:old|former))\b`),
	lx(RiskSuicidal, SeverityMedium, `\bno\s+(?:room|place|space)\s+for\s+me\s+(?:in\s+this\s+world|on\s+this\s+earth|here\s+any\s?more|any\s?more)\b|\b(?:don't|do\s+not|dont)\s+(?:think|know\s+if|really\s+think)\s+i\s+(?:really\s+)?(?:want|wanna)\s+to\s+(?:be\s+alive|live|exist|be\s+here\s+any\s?more|keep\s+living)\b|\b(?:picturing|imagin\w+|dream\w*\s+about|fantasi[sz]\w+\s+about)\s+my\s+(?:own\s+)?funeral\b|\b(?:hop|wish|pray)\w*\b(?:\s+[a-z']+){0,7}?\s+(?:it|something|god|cancer|the\s+\w+)\s+(?:just\s+)?(?:takes|take|finishes|finish)\s+me\b`).
		notAfter(`to\b|home|there|back|out|round|away\s+from|on\s+(?:a|the)|through`).
		except(`\b(?:funeral\s+plan|pre-?paid|insurance|lol|haha)\b`),
	lx(RiskSuicidal, "", `\b(?:when|after|once)\s+i'?m\s+(?:not\s+(?:around|here)\s+any\s?more|no\s+longer\s+(?:here|around))\b|\bsaid\s+(?:my\s+)?goodbyes?\s+to\s+(?:everyone|everybody|them\s+all|all\s+of\s+them|the\s+people|my\s+(?:family|friends|kids))\b`).
		needing(`can\s+have|gets?\b|left|told|arranged|instructions|sorted|so\s+(?:she|he|they)\s+can|own\s+way|don'?t\s+know|didn'?t\s+know|without|quietly|last\s+time|properly|for\s+the\s+last|wills?|letters?|notes?`).
		except(`\b(?:moving|emigrat\w*|leaving\s+(?:for|the\s+country|town|the\s+company|work)|new\s+job|holiday|trip|party|leaving\s+do|retire\w*|at\s+my\s+age|years|one\s+day|eventually|solicitor|funeral\s+plan|uni|university|travel\w*)\b`),
	lx(RiskSuicidal, "", `\b(?:worked\s+out|figured\s+out|know|calculated|counted(?:\s+out)?)\s+(?:exactly\s+)?how\s+(?:much|many)\s+(?:of\s+them\s+)?(?:i'?d\s+|i\s+would\s+|i\s+)?(?:need|needs|have|will\s+need)\s+to\s+(?:take|swallow|drink)\b|\b(?:swallow|take|neck|down|taking|swallowing)\s+(?:the\s+)?(?:whole|entire|full)\s+(?:packet|pack|box|bottle|jar|lot|strip|tub)\b`).
		except(`\b(?:doctor|gp|prescri\w*|for\s+my\s+(?:back|pain|head|cold|flu)|recipe|calories|vitamins?|antibiotics|course|water|protein|supplements?|sweets|chocolates?|biscuits|crisps|popcorn|lol|haha)\b`),
	lx(RiskSuicidal, "", `\b(?:tonight|today|tomorrow)(?:'s|\s+is)\s+the\s+(?:night|day)\b|\bgot\s+(?:everything|all|what)\s+i\s+need(?:ed)?\b|\bi'?ll\s+(?:just\s+)?(?:jump|do\s+it|go\s+through\s+with\s+it)\s*(?:$|[,.!]|off|in\s+front|from)`).weakly(),
	lx(RiskSuicidal, "", `\b(?:walk|swim|wade|go|going)\s+(?:out\s+)?into\s+the\s+(?:sea|river|lake|ocean|water|waves|canal)\b`).
		needing(`not\s+come\s+back|never\s+come\s+back|not\s+coming\s+back|keep\s+(?:going|walking|swimming)|stones|weigh|pockets|end\s+it|for\s+good|won'?t\s+(?:stop|come)|until`).
		except(`\b(?:swim\w*\s+(?:club|lesson|costume)|wetsuit|paddle|surf\w*|holiday|beach\s+day|kids|dog|fetch|lol|haha)\b`),
	lx(RiskAbuse, "", `\b(?:been|is|are|was|'s|'re|keeps?|kept|started|start)\s+follow(?:ing)?\s+me\b`).
		needing(`scared|afraid|frightened|terrified|home|minutes|for\s+(?:ages|the\s+last|miles|blocks)|every\s+(?:day|night|time|where)|again|won'?t\s+stop|still|same\s+(?:car|man|guy|person|van)|car|van|creepy|stranger|man|guy|ex\b|lost\s+him|shop\s+to`).
		except(`\b(?:lol|haha|dog|cat|puppy|kitten|duck\w*|goose|geese|seagulls?|on\s+(?:insta\w*|twitter|tiktok|x\b|social|here|twitch|youtube|spotify)|followers|follow\s+me\s+back|account|page|toddler|little\s+(?:brother|sister|one)|baby|shadow|the\s+music|bad\s+luck|rain|cloud|smell|song|tune)\b`),
	lx(RiskAbuse, "", `\b(?:hands?|fingers|arm|arms)\s+(?:on|round|around|over)\s+my\s+(?:neck|throat|mouth)\b|\b(?:tied|tie|ties|taped|handcuffed|chained|zip\s*tied)\s+me\s+(?:up|to|down)\b`).
		except(`\b(?:game|play\w*|knots?|scouts?|lol|haha|costume|halloween|hug\w*|cuddl\w*|massage|scarf|necklace|doctor|nurse|dentist|hypno\w*)\b`).byPerson().severe(),
	lx(RiskAbuse, SeverityMedium, `\b(?:logs|logged|logging|gets|got|goes|went|breaks|broke|hacked|hacks)\s+into\s+my\s+(?:email|emails|accounts?|phone|facebook|instagram|social\s+media|bank|messages|laptop)\b|\b`+partner+`\s+(?:always\s+|even\s+|also\s+)?checks\s+(?:the\s+)?(?:mileage|my\s+receipts|receipts|my\s+(?:bank|phone|texts|messages|browser|history|emails?|car|pockets|bag))\b|\b(?:he'll|she'll|they'll|he\s+will|she\s+will|he'd|she'd)\s+(?:leave\s+me\s+with\s+nothing|take\s+the\s+kids|throw\s+me\s+out|cut\s+me\s+off|make\s+my\s+life\s+hell|tell\s+everyone|post\s+(?:the|my)\s+(?:photos|pictures|videos))\b`).
		byPerson().except(`\b(?:help\w*|fix\w*|password\s+reset|scam|hacker|virus|it\s+support|tech|lol|haha|mum\s+checks|dad\s+checks|teacher|school|security|boss|manager|time\s+limits?|screen\s*time|bank\s+called|fraud|kids?\s+(?:phone|account))\b`),
	lx(RiskAbuse, "", `\bif\s+i\s+(?:ever\s+)?(?:tell|told|say|said|breathe\s+a\s+word|speak)\b(?:\s+[a-z']+){0,6}?\s+(?:they'll|they\s+will|he'll|she'll|i'll|i\s+will|i'd)\s+(?:take\s+me\s+away|send\s+me\s+away|get\s+(?:in|into)\s+(?:big\s+)?trouble|go\s+to\s+prison|be\s+(?:taken|sent)\s+away|not\s+love\s+me|never\s+see)\b`).with(SeverityMedium).
		except(`\b(?:surprise|party|present|gift|spoiler|lol|haha|joke|kidding|ending|secret\s+santa|broke\s+the|smashed|ate\s+the|lied|lying|homework|grades?|detention)\b`),
	lx(RiskDistress, "", `\b(?:having|had|having\s+another|had\s+another)\s+(?:a|another)?\s*(?:breakdown|meltdown|nervous\s+breakdown)\b|\bscreaming\s+into\s+(?:my|a|the)\s+pillow\b`).
		except(`\bin\s+my\s+(?:teens|twenties|thirties|forties|fifties|sixties|\d+s)\b|\byears\s+ago\b|\bwhen\s+i\s+was\b|\bback\s+(?:in|then)\b|\bused\s+to\b|\bstronger\s+now\b|\b(?:car|laptop|computer|phone|washing\s+machine|boiler|toddler|baby|my\s+(?:son|daughter|kid|dog|cat)|lol|haha|the\s+kids|she\s+had|he\s+had|they\s+had)\b`),
}

// accidentContact: a push or a knock by someone who did not see the user
// ("some guy pushed me cause he didn't see me in the rain").
var accidentContact = regexp.MustCompile(`\b(?:he|she|they|guy|man|woman|lady|driver|cyclist|person|kid|bloke)\s+(?:just\s+|obviously\s+|probably\s+|clearly\s+|simply\s+)?(?:didn't|did\s+not|couldn't|could\s+not|never)\s+(?:even\s+)?see\s+me(?:\s*$|\s*[,.!;)]|\s+(?:there|coming|in\s+the|at\s+all|behind|at\s+first|until|and|so|because|lol|haha))|\b(?:wasn't|weren't|was\s+not|were\s+not|not)\s+looking\s+where\b|\bbumped\s+into\s+me\b`)

// Referents of a pronoun that is the subject of an abuse phrasing.
const (
	referentNone = iota
	referentPerson
	referentAnimal
)

// animals are the pets and animals a "she" or a "he" may be ("my cat is so
// needy | she hits me when she wants food").
var animals = set("cat", "cats", "kitty", "kitten", "kittens", "dog", "dogs", "doggo", "doggy", "pup", "pups", "puppy", "puppies",
	"pooch", "mutt", "tabby", "stray", "horse", "horses", "pony", "goose", "geese", "duck", "ducks", "swan", "swans", "seagull", "seagulls", "gull",
	"bird", "birds", "parrot", "budgie", "cockatoo", "hamster", "gerbil", "rabbit", "bunny", "guinea", "ferret", "rat", "rats",
	"mouse", "goat", "goats", "cow", "cows", "bull", "sheep", "ram", "rooster", "cockerel", "chicken", "chickens", "hen", "hens",
	"pig", "donkey", "llama", "alpaca", "monkey", "squirrel", "fox", "raccoon", "crow", "magpie", "pigeon", "pigeons", "snake",
	"lizard", "gecko", "tortoise", "turtle", "crab", "pet", "pets", "furball", "moggy", "kitteh", "pupper", "lamb", "deer")

// pronounSubject reports whether the one who acts in an abuse phrasing is
// a bare pronoun ("she hits me"), not a person named ("my mum hits me").
func pronounSubject(prefix, match string) bool {
	if i := strings.IndexAny(match, " '"); i > 0 && subjectOther[match[:i]] {
		return true // "he'll kill me"
	}
	words := riskWordsOf(prefix)
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		switch {
		case w == "me" || w == "us" || w == "myself":
			continue
		case riskPersons[strings.TrimSuffix(w, "'s")] || subjectGeneric[w] || subjectUser[w] || animals[strings.TrimSuffix(w, "'s")]:
			return false
		case subjectOther[w]:
			return true
		}
	}
	return false
}

// referent is who a pronoun at start in sent stands for: the last person
// or animal named before it in the message, else in the turn before
// (inPrev), else the first named after it ("she follows me everywhere, the
// cat"). An animal is the referent only when no person is named at all:
// "my ex has a dog | he followed me home" may be the ex.
//
// What the message and the turn before say is read once per message; what
// follows the pronoun, within riskWindow.
func (c *riskCtx) referent(sent string, start int) (ref int, inPrev bool) {
	at := len(c.msg)
	if i := c.sentAt; i >= 0 { // sent is the sentence being judged
		at = i + start
	}
	ref = c.lastMentionBefore(at)
	if ref == referentNone {
		ref, inPrev = c.prevMentioned(), true
	}
	if ref == referentNone {
		after := c.msg[at:windowEnd(c.msg, at)]
		c.spend(len(after))
		ref, inPrev = mentioned(after, false), false
	}
	if ref == referentAnimal && c.personNamed() {
		ref = referentPerson
	}
	return ref, inPrev
}

// namesPerson reports whether text names a person.
func namesPerson(text string) bool {
	for _, w := range riskWordsOf(text) {
		if w = strings.TrimSuffix(w, "'s"); riskPersons[w] || w == "someone" || w == "somebody" {
			return true
		}
	}
	return false
}

// mentioned is the last (or first) person or animal text names.
func mentioned(text string, last bool) int {
	words := riskWordsOf(text)
	for k := range words {
		i := k
		if last {
			i = len(words) - 1 - k
		}
		if r := mentionOf(words, i); r != referentNone {
			return r
		}
	}
	return referentNone
}

// mentionOf is the person or animal words[i] names, if any.
func mentionOf(words []string, i int) int {
	w := strings.TrimSuffix(words[i], "'s")
	switch {
	case animals[w] && pronounBefore(words[:i]):
		return referentPerson // "he kicked the dog": the dog is his object, not the pronoun
	case animals[w]:
		return referentAnimal
	case riskPersons[w] || w == "someone" || w == "somebody":
		return referentPerson
	}
	return referentNone
}

// pronounBefore reports whether a person's pronoun acts among the few
// words before an animal named: the animal is that person's object ("he
// locked the dog out and then he hit me"), not the pronoun itself ("he's
// such a velcro dog").
func pronounBefore(words []string) bool {
	for i := len(words) - 1; i >= 0 && i >= len(words)-4; i-- {
		if subjectOther[words[i]] && !copula[words[i]] && (i+1 >= len(words) || !copula[words[i+1]]) {
			return true
		}
	}
	return false
}

// copula: "he's", "she is": what follows names the pronoun, not its object.
var copula = set("he's", "she's", "they're", "it's", "is", "was", "are", "were", "such", "so", "a", "an", "the", "my", "our", "being")

// animalAct is what a pet or an animal does to the user: a bite, a blow,
// a jump, following, keeping the user in.
var animalAct = regexp.MustCompile(`^(?:hits?|hitting|kicks?|kicked|kicking|bit|bites|biting|scratch\w*|push\w*|shov\w*|smack\w*|whack\w*|jumped|attacked|grabbed|grabs|pinned|pins|tripped|hurts)\s+me(?:\s+(?:down|over))?$|^(?:pushed|pushes|knocked|knocks|knock)\s+me\s+(?:over|down)$|^follow(?:s|ed|ing)?\s+me\s+(?:home|around|everywhere|from|to\s+(?:my|the)\s+\w+)$|^(?:is|are|was|were|been|keeps?|kept|'s|started|start)\s+follow(?:ing)?\s+me$|^(?:won't|wouldn't|doesn't|didn't|will\s+not|would\s+not|never)\s+let\s+me\s+(?:leave|go|out|sleep)\b|^(?:sitting|waiting|standing|watching)\s+(?:outside|at|by)\s+(?:my|our)\s+(?:door|window|house|room)$`)

// onPurpose: a contact done on purpose, which no accident explains.
var onPurpose = regexp.MustCompile(`\b(?:on\s+purpose|deliberately|intentionally|meant\s+to)\b`)

// humanOnly: what no animal does or is ("when he's drunk", "said sorry"),
// which keeps a pronoun a person whatever animal is named beside it.
var humanOnly = regexp.MustCompile(`\b(?:drunk|drinking|high\s+on|angry|furious|mad\s+at|yell\w*|shout\w*|swear\w*|says?|said|told\s+me|tells\s+me|call(?:s|ed)?\s+me|belt|fists?|slap\w*|punch\w*|chok\w*|strangl\w*|rap(?:e|ed|es|ing)|apologi\w*|sorry|threat\w*|police|knife|gun|husband|wife|boyfriend|girlfriend|partner)\b`)

// harmSaid: harm, fear or repetition said beside a bare "she hits me",
// which keeps it high though no one is named.
var harmSaid = regexp.MustCompile(harmWords + `|\b(?:again|every\s+(?:day|night|time|week)|always|all\s+the\s+time|keeps?|won't\s+stop|right\s+now|just\s+(?:hit|punched|slapped|kicked|pushed|grabbed|attacked|choked)|tonight|last\s+night|this\s+morning)\b`)

// harmWords: harm or fear said in so many words, which keeps a pronoun
// that an animal was named before a person ("my cat is so needy | he hit
// me and I'm scared").
const harmWords = `\b(?:hurt\w*|bruis\w*|blood\w*|bleed\w*|black\s+eye|marks\b|scared|afraid|terrified|frightened|fear|drunk|high\b|angry|belt|fists?|help\b|police|hospital|broke\s+my|broken|pain|cry\w*|nightmares?|threat\w*|kill|knife|gun|locked|attack\w*|assault\w*|mugg\w*|robbed|stabb\w*|held\s+me\s+(?:under|down)|drown\w*|on\s+purpose|deliberately)\b`

var harmNamed = regexp.MustCompile(harmWords)

// movingFrame: moving house or away, which explains goodbyes, notes and
// things given away ("writing a goodbye note for the next tenants").
const movingFrame = `\b(?:mov(?:e|ed|ing)\s+(?:house|out|in|away|abroad|back|cities|countries|flats?|home)|movers|removal\s+(?:van|men|company)|new\s+(?:flat|place|house|home|apartment|city|country|job|school|room|tenants?)|old\s+(?:flat|place|house|home|apartment|school|job|room|street|neighbou?rhood)|last\s+(?:night|day|week)\s+(?:in|at)\s+(?:the|this|my|our)\s+(?:flat|place|house|home|apartment|room|town|city|halls)|(?:next|new|old)\s+tenants?|emigrat\w*|relocat\w*|leaving\s+(?:for|the\s+country|town|the\s+flat|the\s+house|uni|home)|off\s+to\s+(?:uni|university|college)|gap\s+year)\b`

// inGame, after "beat me", "killed me", "jumped me": a game or a match
// ("she beat me at chess again", "they jumped me at the bridge in the
// raid").
const inGame = `(?:(?:again|twice|easily|badly|so\s+bad(?:ly)?|hard|up)\s+)?(?:(?:at|in|on|by|near|from)\s+(?:(?:the|a|an|our|my)\s+)?[a-z']+\s+)?(?:at|in|on|during|playing)\s+(?:(?:the|a|an|our|my|this|that|their|his|her)\s+)?(?:[a-z]+\s+)?(?:chess|cards|poker|scrabble|monopoly|uno|darts|snooker|tennis|ping\s*pong|badminton|squash|golf|bowling|trivia|quiz|mario\s*kart|smash\s+bros|fifa|fortnite|minecraft|among\s+us|call\s+of\s+duty|cod|valorant|overwatch|apex|halo|roblox|raid|ranked|games?|matches|match|level|arena|pvp|tournament|arm\s+wrestling|xbox|playstation|ps5|online|finals?|semis?)\b`

// bareAct is a blow or a following said with nothing more ("hits me",
// "followed me home"), which an animal, a child or a game may be; a
// specific act ("threw me against the wall", "dragged me out of the car")
// is danger whoever did it.
var bareAct = regexp.MustCompile(`^(?:hits?|hitting|beats?|beating|kicks?|kicked|kicking|slaps?|slapped|slapping|punch\w*|bit|bites|biting|scratch\w*|push\w*|shov\w*|smack\w*|whack\w*|jumped|attacked|grabbed|grabs|pinned|pins|tripped|hurts)\s+me$|^follow(?:s|ed|ing)?\s+me\s+(?:home|around|everywhere)$|^(?:is|are|was|were|been|keeps?|kept|'s|started|start)\s+follow(?:ing)?\s+me$`)

// elidedSubjectOther reports whether a self-harm act whose clause has no
// subject of its own ("... and scratched my arm") continues a clause whose
// subject is someone or something else ("my rabbit kicked me and scratched
// my arm").
func elidedSubjectOther(prefix, clause string) bool {
	if strings.TrimSpace(clause) != "" || len(prefix) <= len(clause) {
		return false
	}
	before := prefix[:len(prefix)-len(clause)]
	if ends := clauseBoundaryEnds(before); len(ends) > 1 {
		before = before[ends[len(ends)-2]:]
	}
	for _, w := range riskWordsOf(before) {
		w = strings.TrimSuffix(w, "'s")
		switch {
		case w == "i" || w == "i'm" || w == "i've" || w == "i'd" || w == "i'll":
			return false
		case agentNotUser[w] || personNouns[w] || animals[w]:
			return true
		}
	}
	return false
}

// smallChild: people who may be a small child in the user's care, whose
// kick while being changed or put to bed is no abuse (childCare).
var smallChild = set("nephew", "niece", "son", "daughter", "grandson", "granddaughter", "grandkid", "grandchild", "kid", "boy", "girl")

// childCare: a small child being cared for.
var childCare = regexp.MustCompile(`\b(?:toddler|newborn|infant|nappy|nappies|diapers?|changing\s+(?:him|her)|teething|tantrum|(?:\d|one|two|three|four)[- ]year[- ]old|(?:\d+|six|eight|ten|eighteen)[- ]months?[- ]old|car\s+seat|high\s*chair|buggy|pram|cot\b|crib)\b`)
