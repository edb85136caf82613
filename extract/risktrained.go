package extract

import (
	"regexp"
	"strings"

	"github.com/mnemo-ai/mnemo/extract/riskml"
)

// withTrained joins the trained layer's findings (extract/riskml) to the
// rules' findings of a session, per user message (docs/safety.md,
// "Sources and the policy"):
//
//   - a message the rules found nothing in takes the trained layer's
//     finding, with source trained and actor user: medium, or high when
//     the layer's acute head and the words of an intent, a plan, means, a
//     time or an act (acuteSignal) are both there;
//   - such a finding gives way to the rules' frames (trainedFramed): a
//     topic, a joke, play, an accident, hyperbole, a title, the past, an
//     animal as the actor, "end it" about a relationship; and it needs the
//     anchor of its class (a body or blood for self-harm, a person for
//     abuse, a substance for a substance crisis, a sign of acute distress,
//     a word of no future);
//   - a message the rules found the user's medium risk in is raised to
//     high, in the rules' class, when the trained layer finds high there
//     (source trained);
//   - the trained layer never lowers a finding, and never touches one the
//     rules gave to someone else or to the user's resolved past (low):
//     those are the rules' own frames.
//
// rules is in the order of the session's messages, and so is the result.
// grey lists the user messages worth a model's second look that have no
// finding: the trained layer's grey zone (riskml.Finding.Grey), and its
// findings that gave way to a frame or lacked an anchor.
func withTrained(s Session, rules []Risk) (out []Risk, grey []string) {
	m := riskml.Default()
	byMsg := make(map[string]int, len(rules))
	for i, r := range rules {
		byMsg[r.MessageID] = i
	}
	out = make([]Risk, 0, len(rules))
	prev := ""
	for _, msg := range s.Messages {
		if !isUser(msg.Role) {
			continue
		}
		before := prev
		prev = msg.Content
		i, has := byMsg[msg.ID]
		if has && (rules[i].Actor != ActorUser || rules[i].Severity != SeverityMedium) {
			out = append(out, rules[i])
			continue
		}
		f := m.Judge(msg.Content)
		if f.Class != "" {
			if f = trainedFinding(f, msg.Content, before); f.Class == "" {
				f.Grey = true
			}
		}
		switch {
		case f.Class == "":
			if has {
				out = append(out, rules[i])
			} else if f.Grey {
				grey = append(grey, msg.ID)
			}
		case !has:
			out = append(out, Risk{Class: f.Class, Severity: f.Severity, MessageID: msg.ID, Actor: ActorUser, Source: RiskSourceTrained})
		case f.Severity == SeverityHigh:
			r := rules[i]
			r.Severity, r.Source = SeverityHigh, RiskSourceTrained // the rules' class stands
			out = append(out, r)
		default:
			out = append(out, rules[i])
		}
	}
	return out, grey
}

// trainedFinding applies the frames, anchors and signals to a finding of
// the trained layer in text (prev is the user's turn before): the finding,
// possibly lowered to medium, or none.
func trainedFinding(f riskml.Finding, text, prev string) riskml.Finding {
	t, p := riskFold(text), riskFold(prev)
	if trainedFramed(t, p, f.Severity) || !anchored(f.Class, t) {
		return riskml.Finding{}
	}
	if f.Severity == SeverityHigh && (f.P < highBar(f.Class) || !acuteSignal.MatchString(t)) {
		f.Severity = SeverityMedium
	}
	return f
}

// highBar is the least probability of its class a finding of the trained
// layer needs to be high: halfway from the class's threshold to certainty.
// Below it the model is sure enough of a risk to alert (medium), not of an
// intent, a plan or an act.
func highBar(class string) float64 {
	th := riskml.Default().Meta.Threshold[class]
	return th + (1-th)/2
}

var (
	// acuteSignal: the words of an intent, a plan, means, a time or an act,
	// without which the trained layer's finding is medium at most.
	acuteSignal = regexp.MustCompile(`\b(?:going\s+to|gonna|gunna|will|i'll|ill|i'm\s+(?:doing|ending|taking|going)|decided|plan\w*|ready|tonight|tomorrow|today|now|this\s+(?:weekend|week|time)|friday|saturday|sunday|monday|tuesday|wednesday|thursday|when|after|before|pills?|tablets?|meds|rope|noose|belt|gun|knife|knives|blade|razor|bridge|roof|ledge|edge|cliff|train|tracks|car|overdos\w*|od|bottle|took|taken|swallowed|downed|cut\w*|burn\w*|slit|stabb?\w*|hang\w*|jump\w*|tried|attempt\w*|bled|bleeding|blood|hit|hits|punch\w*|beat\w*|chok\w*|strangl\w*|rap\w*|touch\w*|grabbed|locked|follow\w*|outside|door|waiting|mixed|mixing|can't\s+(?:breathe|feel|stand|move)|goodbye\w*|notes?|letters?|gave|giving|given|saved|saving|stash\w*|bought)\b`)
	// animalActor: an animal in the message or the turn before, for
	// whom being hit, bitten, scratched or followed is no abuse or harm.
	animalActor = regexp.MustCompile(`\b(?:cat|cats|kitten|kitty|dog|dogs|puppy|pup|doggo|hamster|rabbit|bunny|bird|parrot|budgie|horse|pony|goose|geese|duck|chicken|goat|cow|sheep|wasp|bee|squirrel|fox|tabby|pet|pets|ferret|guinea\s+pig)\b`)
	// The anchors of a class: words any statement of it holds.
	selfHarmAnchor     = regexp.MustCompile(`\b(?:myself|my\s*self|self[- ]?harm\w*|sh|skin|wrists?|arms?|thighs?|legs?|stomach|body|hips?|face|head|hands?|fingers?|knuckles|blood|bleed\w*|bled|scars?|blades?|razors?|cuts|cutting|burns|deeper|punish\w*|starv\w*|hurt\w*|wound\w*)\b`)
	abuseAnchor        = regexp.MustCompile(`\b(?:he|she|they|him|her|them|someone|somebody|man|woman|guy|men|boyfriend|girlfriend|husband|wife|partner|ex|dad|father|mum|mom|mother|stepdad|stepfather|stepmum|stepmom|uncle|aunt|brother|sister|cousin|grandad|grandpa|grandma|teacher|coach|boss|neighbou?r|stranger|friend|bf|gf|son|daughter|carer|nurse|landlord|people|everyone)\b`)
	distressAnchor     = regexp.MustCompile(`\b(?:panic\w*|cry\w*|cried|sob\w*|tears|shak\w*|trembl\w*|breath\w*|breathe|falling\s+apart|fall\s+apart|break(?:ing)?\s+down|broke\s+down|breakdown|cope|coping|overwhelm\w*|scared|terrified|frightened|afraid|hate\s+myself|hate\s+me|numb|losing\s+my\s+mind|lose\s+my\s+mind|spiral\w*|can't\s+(?:stop|sleep|eat|function|think|take)|haven't\s+(?:slept|eaten)|days|nights|hours|screaming|collapse\w*|shut\w*\s+down|pieces|unbearable|agony|torture|worthless|disgusting)\b`)
	hopelessnessAnchor = regexp.MustCompile(`\b(?:never|nothing|no\s+(?:point|future|hope|way|reason|one)|hopeless\w*|pointless|give\s+up|given\s+up|gave\s+up|forever|always|anymore|any\s+more|can't\s+see|point|worthless|useless|doomed|over|trapped|stuck|end|ever)\b`)
	substanceAnchor    = regexp.MustCompile(`\b(?:drunk|drank|drink\w*|alcohol|booze|vodka|whiskey|whisky|wine|beer|gin|rum|bottles?|pills?|tablets?|meds|medication|xanax|benzos?|oxy\w*|opioids?|heroin|fent\w*|coke|cocaine|crack|meth|mdma|molly|ketamine|weed|high|od|overdos\w*|dose|doses|used|using|relaps\w*|needle|shot|shots|mixed|mixing|took|taken|swallowed|downed|line|lines)\b`)
)

// anchored reports whether t holds the anchor of class.
func anchored(class, t string) bool {
	switch class {
	case RiskSelfHarm:
		return selfHarmAnchor.MatchString(t)
	case RiskAbuse:
		return abuseAnchor.MatchString(t)
	case RiskSubstance:
		return substanceAnchor.MatchString(t)
	case RiskDistress:
		return distressAnchor.MatchString(t)
	case RiskHopelessness:
		return hopelessnessAnchor.MatchString(t)
	}
	return true
}

// trainedFramed reports whether the rules read a frame in a message (t,
// folded; p, the user's turn before, folded) that the trained layer found
// a risk in and the rules found none: the frames of docs/safety.md, which
// a bag of words does not see. A medium finding gives way to any of them;
// a high one (an intent, plan, means or act signal) to the past, a joke,
// play, an accident, an animal, "end it" about a relationship, a thing or a
// group, "no point" about a chore, and to a topic or a title unless the
// user's own means or act is beside it ("everyone in my class hates me and
// I have the pills"). A grown-up's secret, touching or a threat is framed
// by no game and no story.
func trainedFramed(t, p, severity string) bool {
	secret := secretCue.MatchString(t)
	if historyMarks.MatchString(t) || resolvedPast.MatchString(t) || otherPast.MatchString(t) ||
		jokeFrame.MatchString(t) || (playFrame.MatchString(t) && !secret) || (accidentFrame.MatchString(t) && !deliberate.MatchString(t)) ||
		animalActor.MatchString(t) || animalActor.MatchString(p) || (mishap.MatchString(t) && !deliberate.MatchString(t)) {
		return true
	}
	if medRoutine.MatchString(t) && (!medExcess.MatchString(t) || medUsual.MatchString(t)) && !riskWish.MatchString(t) {
		return true
	}
	if severity != SeverityHigh && (addictionNamed.MatchString(t) || livesFor.MatchString(t)) && !riskWish.MatchString(t) {
		return true
	}
	if endsAThing.MatchString(t) && !ownMeans.MatchString(t) {
		return true
	}
	if endsThing.MatchString(t) && (relationshipFrame.MatchString(t) || relationshipFrame.MatchString(p) ||
		thingsFrame.MatchString(t) || thingsFrame.MatchString(p) || endsWith.MatchString(t) || committee.MatchString(t)) {
		return true
	}
	if trivialPoint.MatchString(t) || (strings.Contains(t, "if ") && trivialIf.MatchString(t) && idiomDeath.MatchString(t)) {
		return true
	}
	if !secret && (trainedTopic.MatchString(t) || titleContext.MatchString(t)) {
		// A topic or a title frames a high finding too, unless the user's
		// own means or act is there beside it ("everyone in my class
		// hates me and I have the pills"), which the rules read.
		return severity != SeverityHigh || !ownMeans.MatchString(t)
	}
	return severity != SeverityHigh && (hyperbole.MatchString(t) || idiomDeath.MatchString(t))
}

var (
	// secretCue: touching, clothes, a body, what is done to the user: a
	// disclosure no game or story frames ("he says it's our special game
	// and he touches me").
	secretCue = regexp.MustCompile(`\b(?:touch\w*|private|naked|clothes|pants|knickers|lap|kiss\w*|photos?\s+of\s+me|(?:does|did|doing)\s+(?:things\s+|stuff\s+)?to\s+me)\b`)
	// trainedTopic: school work, media, campaigns and study, the topics that
	// frame a trained finding. Narrower than the rules' topicFrame, which
	// reads a phrasing's own clause: a bag of words cannot tell "my essay
	// on suicide" from "I gave my books away", so objects ("books",
	// "records", "videos") and common verbs ("read", "show", "walk") do not
	// frame it here.
	trainedTopic = regexp.MustCompile(`\b(?:essays?|assignments?|homework|projects?|presentations?|lectures?|course(?:work)?|modules?|thesis|dissertation|research|paper\s+(?:on|about)|documentar(?:y|ies)|podcasts?|episodes?|series|films?|movies?|novels?|characters?|protagonist|villain|chapters?|lyrics|songs?|poems?|awareness|campaigns?|charity|fundrais\w*|prevention|training|workshop|webinar|seminar|articles?|news|(?:story|book|show|video|game)\s+(?:about|where|in\s+which)|in\s+the\s+(?:book|film|movie|show|game|story|series|cartoon|comic)|(?:reading|learn(?:ed|t|ing)|studying|writing)\s+about|psychology|sociology|criminology|exams?|revis(?:e|ing|ion)|quiz)\b`)
	// endsWith: ending something with someone, or a thing a group runs.
	endsWith  = regexp.MustCompile(`\bend(?:ing)?\s+(?:it|things)(?:\s+all)?\s+with\b`)
	committee = regexp.MustCompile(`\b(?:committee|club|team|group|choir|band|class|course|rota|volunteering|job|role|post)\b`)
	// trivialPoint: "no point" about a chore or a thing ("what's the point
	// of tidying my room").
	trivialPoint = regexp.MustCompile(`\b(?:what'?s\s+the|no|any)\s+point\s+(?:of|in)\s+(?:\w+ing|doing\s+(?:the|my)\s+\w+)\b`)
	// idiomDeath: dying of something that is not death.
	idiomDeath = regexp.MustCompile(`\b(?:die|dying|died|dead)\s+(?:of|from)\s+(?:boredom|embarrassment|shame|laughter|laughing|cringe|cuteness|happiness|excitement|jealousy|hunger|thirst|heat|the\s+heat)\b|\b(?:bored|embarrassed)\s+to\s+death\b`)
	// ownMeans: the user's own means or act, which no topic frames.
	ownMeans = regexp.MustCompile(`\b(?:i|i've|i'm|im|ive|i\s+have|i've\s+got|i\s+got)\b(?:\s+\w+){0,4}\s+(?:pills?|tablets?|rope|noose|gun|knife|blade|razor|bridge|roof|ledge|cut|cutting|overdos\w*|took|swallowed|jump\w*)\b`)
)

// mishap: contact by accident ("he didn't see me", "bumped into me").
var mishap = regexp.MustCompile(`\b(?:didn't|did\s+not|couldn't|never)\s+see\s+me\b|\bby\s+accident\b|\baccidental\w*|\b(?:bumped|knocked|crashed|ran)\s+into\s+me\b|\b(?:banged|bumped|knocked|whacked|stubbed|hit|caught|scraped|smacked)\s+my\s+(?:\w+\s+)?(?:head|knee|elbow|toe|shin|hip|arm|hand|finger|leg|foot|face)\s+(?:on|against|into|getting|reaching|when|while|as)\b`)

var (
	// medRoutine: the user's medicines in the day's routine ("the nurse
	// sorted my tablets", "I don't think I took my pills"), which a bag of
	// words reads as means. medExcess is an amount that makes them means
	// again, unless medUsual says it is the usual dose; riskWish a wish
	// beside them ("so I wouldn't wake up").
	medRoutine = regexp.MustCompile(`\b(?:took|take|taking|taken|had|have|sorted|sorts|collected|picked\s+up|forgot|forgotten|missed|ordered|need|needs|got|get|counted|started|stopped|changed)\b(?:\s+\w+){0,3}?\s+(?:my|the|his|her|our|these|those|new)\s+(?:\w+\s+)?(?:tablets?|pills?|meds|medication|medicine|prescription|inhaler|insulin|dose|doses|drops|vitamins)\b`)
	medExcess  = regexp.MustCompile(`\b(?:all|whole|every|lot|handful|box|bottle|packet|pack|too\s+many|double|extra|[1-9][0-9]+|twenty|thirty|forty|fifty|hundred|at\s+once|in\s+one\s+go|stash\w*|sav(?:e|ed|ing)\s+up)\b`)
	medUsual   = regexp.MustCompile(`\b(?:as\s+usual|as\s+prescribed|like\s+(?:the|my)\s+doctor\s+said|with\s+(?:my\s+)?(?:breakfast|tea|dinner|lunch|supper|food|water)|every\s+(?:morning|night|evening|day)|this\s+morning|daily|on\s+time|organi[sz]er|dosette|blister\s+pack)\b`)
	riskWish   = regexp.MustCompile(`\b(?:die|dead|death|end\s+it|end\s+my|kill|wake\s+up|never\s+wake|not\s+wake|suicid\w*|gone|goodbye|for\s+good|overdos\w*|od)\b`)
)

var (
	// addictionNamed: an addiction told as a condition ("I'm addicted to
	// pills", "my addiction"), which a recovery app hears every day; a
	// medium finding gives way to it, a high one (an act, a plan) does not.
	addictionNamed = regexp.MustCompile(`\b(?:addicted\s+to|my\s+addiction|an\s+addict|recovering\s+(?:addict|alcoholic)|in\s+recovery|my\s+(?:drinking|using)\s+(?:days|years)|i'm\s+an\s+alcoholic)\b`)
	// livesFor: living for something ("I live for the weekend"), not its
	// denial ("nothing to live for").
	livesFor = regexp.MustCompile(`\b(?:i|we)\s+(?:just\s+)?live\s+for\s+(?:the|my|our|this|these|weekends?|summer|music|football|coffee|sundays?|fridays?)\b`)
)

// endsAThing: ending, quitting or cancelling a thing ("ending my contract
// with the agency", "quitting the choir").
var endsAThing = regexp.MustCompile(`\b(?:end|ending|ended|quit|quitting|cancel\w*|leav(?:e|ing))\s+(?:my|the|our|this|that)\s+(?:\w+\s+)?(?:lease|contract|subscription|membership|job|tenancy|plan|deal|account|course|role|post|shift|placement|internship|apprenticeship|choir|club|team|band|gym|phone\s+contract)\b`)

// endsThing: ending something, which a relationship, a contract or a game
// makes a break-up.
var endsThing = regexp.MustCompile(`\bend(?:ing|s)?\s+(?:it|things|this|everything)\b`)

// TrainedRisk is the trained layer's reading of one user message as the
// screen takes it (withTrained): the model's finding with the rules'
// frames and the class's anchor applied, and high only with an acute
// signal; prev is the user's turn before ("" for none). It is what the
// trained source contributes on its own, for reports.
func TrainedRisk(prev, text string) (RiskFinding, bool) {
	f := riskml.Default().Judge(text)
	if f.Class == "" {
		return RiskFinding{}, false
	}
	if f = trainedFinding(f, text, prev); f.Class == "" {
		return RiskFinding{}, false
	}
	return RiskFinding{Class: f.Class, Severity: f.Severity, Actor: ActorUser}, true
}
