package coach

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/grammar"
	"github.com/mnemo-ai/mnemo/prompts"
)

// coach (docs/presets.md, Coach): the life coach. Recurring themes span
// sessions, which only the rules see.
// Coach is the life coach: the kind of apps whose rules are "coach".
var Coach extract.Kind = kindCoach{}

func init() { extract.Register(Coach) }

type kindCoach struct{ extract.BaseKind }

// defaultBudget is the context pack's budget, in tokens, when neither the
// request nor the app's policy sets one.
const defaultBudget = 500

func (kindCoach) Name() string                   { return "coach" }
func (kindCoach) PackPolicy() extract.PackPolicy { return extract.PackPolicy{Budget: defaultBudget} }
func (kindCoach) View() extract.View {
	return extract.View{Heading: "Coaching goals and threads", Page: extract.PageCoaching}
}
func (kindCoach) Rules(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	coachRules(res, p, s, now)
}
func (kindCoach) Pack(in extract.PackInput) *extract.PackPlan { return packCoach(in) }
func (kindCoach) SpecialDefault() string                      { return prompts.SpecialKeepSealed } // in the sealed transcript only

var _ extract.ProfileDeriver = kindCoach{}

// DeriveProfile (extract.ProfileDeriver): the recurring themes span the
// user's sessions, which only the rules see; a rules result takes the whole derived profile.
func (kindCoach) DeriveProfile(res *extract.Result, fresh extract.Result) {
	if res.Source == extract.SourceLLM {
		res.ProfileUpdates["recurring_themes"] = fresh.ProfileUpdates["recurring_themes"]
	} else {
		res.ProfileUpdates = fresh.ProfileUpdates
	}
}

func (k kindCoach) CompleteLLM(llm, rules extract.Result) extract.Result {
	llm = k.BaseKind.CompleteLLM(llm, rules)
	if themes, ok := rules.ProfileUpdates["recurring_themes"]; ok {
		if llm.ProfileUpdates == nil {
			llm.ProfileUpdates = map[string]any{}
		}
		llm.ProfileUpdates["recurring_themes"] = themes
	}
	return llm
}

// Bounds of the coach summary and profile (docs/presets.md, Coach: session
// summary; Coach: profile), and the caps of prompts/coach/schema.json.
const (
	CoachMinLines        = 8
	CoachMaxLines        = 12
	CoachMaxActionSteps  = 5
	CoachMaxOpenThreads  = 5
	CoachMaxGoals        = 3
	CoachMaxThemes       = 3
	CoachMaxPreferences  = 3
	CoachMaxItemRunes    = 140 // an action step, open thread, goal or preference
	coachMaxMomentRunes  = 240 // the recognition moment: one or two lines
	coachMaxTopics       = 3
	coachThemeMinSession = 2 // a theme recurs when it is in this many sessions' summaries
)

// coachRules summarises a coaching session (docs/presets.md, Coach: session
// summary) from the user's own words and derives the profile from that summary
// and the earlier ones.
//
// Only user messages are read; the assistant's are never mined (whether one
// came after a question is all that is looked at). The sentences of a user
// message that hold sensitive data are left out, the whole message when the
// data runs across sentences, and the message is reported in extract.Dropped
// (without its text). Nothing is guessed: a recognition moment, an action
// step, an open thread, a goal or a preference is a sentence, or the rest of
// a clause, in which the user said so in one of a few fixed ways ("I
// realized …", "I will …", "I'm not sure whether …", "my goal is …", "I
// prefer …"). Questions the user asked after the coach's last turn are open
// threads too.
//
// The summary's text is 8 to 12 lines of fixed shapes. Its "topics" (a few
// keywords of what the user talked about) and its lists are what later
// sessions read to find recurring themes. The profile updates are goals and
// coaching preferences (this session's, newest first, then the profile's)
// and the keywords found in at least two coach summaries; a key is left out
// when it would be empty. p and now are not needed: coach stores no
// memories.
func coachRules(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	m := coachMine(s)
	res.Dropped = append(res.Dropped, m.sensitive...)
	topics := coachTopics(m)
	res.SessionSummary = map[string]any{
		"summary":            coachText(s, m, topics),
		"recognition_moment": m.moment,
		"action_steps":       m.steps,
		"open_threads":       m.threads,
		"coach_notes":        coachNotes(m),
		"topics":             topics,
		// What this session said of goals and preferences, in the order said:
		// the profile is derived from every session's lists.
		"goals":             coachNonNil(m.goals),
		"coach_preferences": coachNonNil(m.prefs),
	}
	// The day each step is due by, when it says one ("… by Wednesday"),
	// as a date: "Wednesday" means nothing a week later.
	if due := coachDueDates(s, m.steps); len(due) > 0 {
		res.SessionSummary["due_dates"] = due
	}
	// The earlier sessions' open action steps this session reported done,
	// each closed by its best match (coachCloses).
	var completed []string
	open := coachOpenSteps(s)
	for _, d := range m.done {
		best, bestShare := "", 0.0
		for _, st := range open {
			if share, ok := coachCloses(d, st); ok && share > bestShare {
				best, bestShare = st, share
			}
		}
		if best != "" && !slices.Contains(completed, best) {
			completed = append(completed, best)
		}
	}
	if len(completed) > 0 {
		res.SessionSummary["completed_steps"] = completed
	}
	// What the user reported done this session, closing a known step or
	// not ("Sent the portfolio to all five!"): the win the next session
	// can build on, as the user put it.
	var reported []string
	for _, d := range m.done {
		if v := coachValue(d, 2, 140); v != "" && !slices.ContainsFunc(reported, func(o string) bool { return extract.LabelKey(o) == extract.LabelKey(v) }) {
			reported = append(reported, v)
		}
	}
	if len(reported) > 0 {
		res.SessionSummary["done_this_session"] = coachLastN(reported, CoachMaxActionSteps)
	}
	if len(m.retracted) > 0 {
		res.SessionSummary["retracted_goals"] = m.retracted
	}

	// The profile is derived from all of the user's sessions, newest first
	// by the session's time, whatever order they were handed over in.
	var goals, prefs, retracted []string
	legacy := false
	for _, ps := range coachParts(s, m) {
		if ps.legacy {
			legacy = true
			continue
		}
		// A goal taken back in a newer session is no goal of this one's.
		for _, g := range coachReversed(ps.goals) {
			if !coachMatchesRetracted(g, retracted) {
				goals = append(goals, g)
			}
		}
		prefs = append(prefs, coachReversed(ps.prefs)...)
		retracted = append(retracted, ps.retracted...)
	}
	if legacy {
		// Summaries written before they carried their goals: what the
		// profile holds stands in for them, after every newer session.
		for _, g := range coachStrings(s.History.Profile["goals"]) {
			if !coachMatchesRetracted(g, retracted) {
				goals = append(goals, g)
			}
		}
		prefs = append(prefs, coachStrings(s.History.Profile["coach_preferences"])...)
	}
	if goals := coachMerge(goals, nil, CoachMaxGoals); len(goals) > 0 {
		res.ProfileUpdates["goals"] = goals
	}
	if themes := coachThemes(s, topics, m); len(themes) > 0 {
		res.ProfileUpdates["recurring_themes"] = themes
	}
	if prefs := coachMerge(prefs, nil, CoachMaxPreferences); len(prefs) > 0 {
		res.ProfileUpdates["coach_preferences"] = prefs
	}
}

func coachNonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// coachPart is what one coach session contributes to the profile.
type coachPart struct {
	at           time.Time
	id           string
	terms        map[string]bool
	goals, prefs []string
	retracted    []string
	// legacy marks a summary written before summaries kept their goals.
	legacy bool
}

// coachParts are this session and the user's earlier coach summaries
// (other apps' and this session's own earlier one left out), newest first
// by session time, then by id.
func coachParts(s extract.Session, m coachMined) []coachPart {
	out := []coachPart{{at: extract.SessionEnd(s), id: s.ID, goals: m.goals, prefs: m.prefs, retracted: m.retracted,
		terms: coachSummaryTerms(coachTopics(m), m.moment, m.steps, m.threads)}}
	for _, past := range s.History.Summaries {
		if past.SessionID != "" && past.SessionID == s.ID {
			continue // this session's own earlier summary: counted once
		}
		d := past.Data
		if !coachShaped(d) {
			continue // another app's summary of the same user
		}
		moment := ""
		if ms := coachStrings(d["recognition_moment"]); len(ms) > 0 {
			moment = ms[0]
		}
		_, hasGoals := d["goals"]
		out = append(out, coachPart{at: past.At, id: past.SessionID, legacy: !hasGoals,
			goals: coachStrings(d["goals"]), prefs: coachStrings(d["coach_preferences"]), retracted: coachStrings(d["retracted_goals"]),
			terms: coachSummaryTerms(coachStrings(d["topics"]), moment,
				coachStrings(d["action_steps"]), coachStrings(d["open_threads"]))})
	}
	slices.SortStableFunc(out, func(a, b coachPart) int {
		return cmp.Or(b.at.Compare(a.at), strings.Compare(b.id, a.id))
	})
	return out
}

// coachMined is what the user's messages say, in the order said.
type coachMined struct {
	messages, users int
	sentences       []string // every sentence of the user's usable messages
	moment          string
	steps           []string
	threads         []string
	goals           []string
	prefs           []string
	sensitive       []extract.Dropped // one per message with sensitive data
	dropped         int               // sentences left out for it
	done            []string          // what the user reported done ("I sent the application")
	retracted       []string          // goals the user took back ("scratch the promotion")
}

type coachKind int

const (
	coachStep coachKind = iota
	coachGoal
	coachPref
	coachThread
)

// coachPattern matches at a clause start; group 1 is where the value starts.
type coachPattern struct {
	kind coachKind
	re   *regexp.Regexp
	// lead is put before the value: "figure out " for "I still need to
	// figure out …", "go to " for "I'm going to the gym".
	lead string
	// question allows the pattern in a question ("Could you be more direct?").
	question bool
	// style asks the value to name a way of being coached (coachStyled):
	// "keep it short" is a request about coaching, "keep going" is not.
	style bool
}

// coachWindow bounds the text after a clause start that the patterns read.
const coachWindow = 192

const (
	// coachDueDay is the day a step is due by: a weekday, tomorrow, the end
	// of the week or month, next week.
	coachDueDay = `monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|the\s+end\s+of\s+(?:the\s+)?(?:day|week|month)|end\s+of\s+(?:the\s+)?(?:day|week|month)|next\s+week|the\s+weekend`
	coachIAm    = `(?:i'm|im|i\s+am)`
	coachWh     = `(?:whether|if|how|what|when|why|where|who|which)\b`
	coachStop   = `(?:really\s+|just\s+|definitely\s+|actually\s+|also\s+|still\s+|honestly\s+)*`
)

var coachPatterns = []coachPattern{
	{kind: coachStep, lead: "go to ", re: extract.Prefix(coachIAm + `\s+` + coachStop + `going\s+to\s+((?:the|a|an|my|our|school|bed|church|class|therapy|college)\s.*)`)},
	{kind: coachStep, re: extract.Prefix(
		`(?:i\s+will|i'll)\s+`+coachStop+`(.+)`,
		coachIAm+`\s+`+coachStop+`(?:going\s+to|gonna)\s+(.+)`,
		`(?:my\s+|the\s+)?(?:next|first|one)\s+step\s+(?:is|will\s+be|'s|is\s+going\s+to\s+be)\s*:?\s+(?:to\s+)?(.+)`,
		`next\s+up\s*(?:is|:)\s+(?:to\s+)?(.+)`,
		`(?:my\s+|the\s+)?(?:next|first)\s+step\s*:\s+(.+)`,
		`(?:action\s+item|to-?do|my\s+plan\s+for\s+(?:this|the)\s+week|plan\s+for\s+(?:this|the)\s+week|this\s+week's\s+plan)\s*:\s+(?:to\s+)?(.+)`,
		`my\s+plan\s+(?:is|for\s+(?:this|the)\s+week\s+is)\s+(?:to\s+)(.+)`,
		// "I need to set up the page by Wednesday": a need with a day it
		// is due is a step.
		`i\s+`+coachStop+`(?:need|have|got)\s+to\s+(.+?\s+(?:by|before)\s+(?:`+coachDueDay+`)\b.*)`,
		`my\s+next\s+steps\s+are\s+(?:to\s+)?(.+)`,
		`i\s+`+coachStop+`commit\s+(?:myself\s+)?to\s+(.+)`,
		coachIAm+`\s+committing\s+(?:myself\s+)?to\s+(.+)`)},
	{kind: coachThread, re: extract.Prefix(
		coachIAm+`\s+`+coachStop+`(?:not\s+(?:really\s+|quite\s+|totally\s+|entirely\s+|yet\s+)?sure|unsure|undecided)\s+(?:about\s+)?(`+coachWh+`.+)`,
		`i\s+`+coachStop+`(?:don't|do\s+not|dont)\s+(?:really\s+|yet\s+)?know\s+(?:yet\s+)?(`+coachWh+`.+)`,
		coachIAm+`\s+`+coachStop+`(?:wondering|torn\s+about)\s+(`+coachWh+`.+)`,
		`i\s+`+coachStop+`wonder\s+(`+coachWh+`.+)`)},
	{kind: coachThread, re: extract.Prefix(
		`(?:`+coachIAm+`\s+)?`+coachStop+`(?:(?:a\s+(?:bit|little)|kind\s+of|so|very|pretty|quite)\s+)?((?:worried|anxious|nervous|concerned|scared|afraid)\s+(?:about|of)\s+.+)`,
		`i\s+`+coachStop+`((?:worry|fret)\s+about\s+.+)`,
		`my\s+(?:biggest\s+|main\s+|real\s+|one\s+)?(?:worry|concern|fear)\s+is\s+(.+)`,
		`i\s+`+coachStop+`(?:haven't|have\s+not|havent|still\s+haven't)\s+(?:yet\s+)?(?:figured|worked)\s+out\s+(`+coachWh+`.+)`,
		`i\s+`+coachStop+`(?:can't|cannot|cant)\s+(?:seem\s+to\s+)?figure\s+out\s+(`+coachWh+`.+)`)},
	{kind: coachThread, lead: "figure out ", re: extract.Prefix(
		`i\s+`+coachStop+`(?:need|have|want|got)\s+to\s+(?:still\s+)?figure\s+out\s+(.+)`,
		`i\s+`+coachStop+`(?:gotta|must)\s+figure\s+out\s+(.+)`,
		coachIAm+`\s+`+coachStop+`(?:trying\s+to\s+figure|figuring)\s+out\s+(.+)`)},
	{kind: coachGoal, re: extract.Prefix(
		`my\s+(?:main\s+|big\s+|biggest\s+|real\s+|long[- ]term\s+|ultimate\s+|one\s+)?goal\s+(?:is|will\s+be|for\s+\S+(?:\s+\S+)?\s+is)\s+(?:to\s+)?(.+)`,
		`my\s+goals\s+are\s+(?:to\s+)?(.+)`,
		`i(?:'d|\s+would)\s+`+coachStop+`(?:like|love)\s+to\s+(get\s+better\s+at\s+.+)`,
		`i\s+`+coachStop+`want\s+to\s+(.+)`)},
	{kind: coachPref, re: extract.Prefix(
		`i\s+`+coachStop+`(?:like|love|appreciate)\s+it\s+when\s+you\s+(.+)`,
		`i(?:'d|\s+would)?\s+`+coachStop+`prefer\s+(?:it\s+)?(?:when\s+|if\s+)?(?:you\s+to\s+|that\s+you\s+|you\s+|to\s+)?(.+)`,
		`please\s+((?:be|try\s+to\s+be|keep\s+being)\s+.+)`)},
	{kind: coachPref, question: true, re: extract.Prefix(
		`(?:can|could|would)\s+you\s+(?:please\s+)?((?:be|try\s+to\s+be)\s+(?:more|less|a\s+bit\s+more|a\s+little\s+more|a\s+bit\s+less)\s+.+)`)},
	// "Can you be a bit playful?", "I'd rather you ask questions than give
	// me advice", "Gentle is good for me right now": a way of coaching.
	{kind: coachPref, question: true, style: true, re: extract.Prefix(
		`(?:can|could|would)\s+you\s+(?:please\s+)?(?:try\s+to\s+)?(be\s+(?:a\s+bit\s+|a\s+little\s+|more\s+|a\s+bit\s+more\s+)?\w+)\s*$`)},
	{kind: coachPref, style: true, re: extract.Prefix(
		`i(?:'d|\s+would)\s+`+coachStop+`rather\s+you\s+(.+)`,
		`((?:\w+\s+){0,2}?\w+)\s+(?:is|works|feels)\s+(?:good|best|better|right)\s+for\s+me\b.*`)},
	// Requests about how to be coached (issue 23): "challenge me directly",
	// "keep it short", "please don't give me lists", "I want you to push
	// me", "I need tough love".
	{kind: coachPref, style: true, re: extract.Prefix(
		`(?:please\s+)?(?:just\s+)?((?:challenge|push)\s+me\b.*|keep\s+(?:it|things|this|them|your\s+\w+|answers|replies|responses|messages)\s+.*|` +
			`be\s+(?:more\s+|less\s+|really\s+|very\s+|a\s+bit\s+more\s+)?(?:direct|blunt|honest|gentle|brief|concise|straight|tough|harsh|patient|straightforward)\b.*|` +
			`(?:don't|do\s+not|dont|stop|no\s+more|never)\s+.*|give\s+me\s+.*|tell\s+me\s+(?:straight|directly|honestly|bluntly|the\s+truth|how\s+it\s+is)\b.*|` +
			`call\s+me\s+out\b.*|hold\s+me\s+accountable\b.*|push\s+back\b.*|ask\s+me\s+(?:more\s+)?(?:hard\s+|tough\s+)?questions\b.*|skip\s+the\s+.*|cut\s+the\s+.*|` +
			`go\s+easy\s+on\s+me\b.*|talk\s+to\s+me\s+like\s+.*|use\s+(?:bullet\s+points|plain\s+language|fewer\s+words)\b.*)`)},
	{kind: coachPref, style: true, lead: "No ", re: extract.Prefix(
		`i\s+` + coachStop + `(?:don't|do\s+not|dont)\s+(?:need|want|like)\s+(?:any\s+|more\s+|a\s+lot\s+of\s+|all\s+the\s+)?((?:hand[- ]?holding|lists?|bullet\s+points|long\s+(?:answers|replies|messages|responses)|pep\s+talks?|cheerleading|sugar[- ]?coating|fluff|lectures?|platitudes|jargon|praise)\b.*)`)},
	{kind: coachPref, style: true, re: extract.Prefix(
		`i(?:'d|\s+would)?\s+`+coachStop+`(?:want|need|like|prefer)\s+you\s+to\s+(.+)`,
		`i\s+`+coachStop+`(?:need|like|want|respond\s+(?:well|best)\s+to|do\s+(?:better|best)\s+with|work\s+(?:better|best)\s+with)\s+((?:tough\s+love|directness|bluntness|honesty|short\s+answers|straight\s+talk|accountability|structure|a\s+push|a\s+kick|a\s+sounding\s+board|less\s+structure|more\s+structure|concrete\s+\w+|examples|practical\s+\w+)\b.*)`)},
}

// coachStyleWords name a way of being coached: a request about coaching
// names one of them ("keep it short", "no hand-holding").
var coachStyleWords = extract.WordSet(`direct directly blunt bluntly honest honestly straight straightforward gentle gently patient kind
	short shorter brief briefly concise simple list lists bullet bullets harder hard tough harsh accountable accountability
	handholding sugarcoat sugarcoating fluff pep cheerleading cheerleader challenge challenged challenging push pushing
	questions lecture lectures platitudes jargon praise easy structure directness bluntness honesty kick homework
	ramble rambling long longer wordy paragraphs essays truth playful fun funny light lighter serious vague vagueness concrete
	exercises theory practical examples sounding board advice listen listening back`)

// coachStyled reports whether a value names a way of being coached.
func coachStyled(v string) bool {
	v = strings.ReplaceAll(strings.ToLower(v), "-", " ")
	ws := grammar.LowerWords(strings.NewReplacer("hand holding", "handholding", "sugar coat", "sugarcoat").Replace(v))
	for _, w := range ws {
		if coachStyleWords[w] || coachStyleWords[strings.ReplaceAll(w, "'", "")] {
			return true
		}
	}
	return false
}

// coachLeadRe matches the time phrases a statement may open with: "This
// week I want to …", "From now on, I will …".
var coachLeadRe = extract.Prefix(`(?:(?:this|next|every)\s+(?:week|month|year|weekend|morning|afternoon|evening|time|day)|from\s+now\s+on|going\s+forward|for\s+now|tomorrow|first|after\s+that|finally|in\s+the\s+meantime)\s*,?\s+`)

// coachRecognitionRe finds a moment of recognition anywhere in a sentence.
var coachRecognitionRe = regexp.MustCompile(`(?i)\b(?:i\s+(?:just\s+|finally\s+|now\s+|suddenly\s+|really\s+)?(?:realize|realized|realise|realised|noticed|notice)\b|i\s+(?:can\s+)?see\s+now\b|now\s+i\s+(?:can\s+)?(?:see|understand|get\s+it|realize|realise|know)\b|i\s+(?:finally\s+)?(?:understand|get\s+it)\s+now\b|it\s+(?:just\s+|finally\s+|really\s+)?(?:hit|struck|dawned\s+on)\s+me\b|it\s+(?:just\s+|finally\s+)?clicked\b)`)

// coachHedges make a step or a goal too uncertain to record.
var coachHedges = extract.WordSet("maybe might perhaps probably possibly hopefully")

// coachNotSteps begin values of "I will …" that are conversation, not a step.
var coachNotSteps = []string{"be honest", "admit", "say", "tell you", "explain", "answer", "let you know", "see how", "see what", "see if", "think about it", "keep that in mind", "do that", "do it", "do my best", "try my best"}

// coachNotGoals begin values of "I want to …" that steer the conversation.
var coachNotGoals = []string{"talk", "discuss", "ask", "say", "tell", "share", "mention", "know", "see", "hear", "check", "vent", "thank", "clarify", "add", "explain", "start with", "start by", "begin with", "begin by", "go back to", "come back to", "follow up", "pick up", "be honest", "stop here", "end", "continue", "focus on today", "make sure you"}

func coachMine(s extract.Session) coachMined {
	var m coachMined
	m.messages = len(s.Messages)
	lastAssistant := -1
	for i, msg := range s.Messages {
		if strings.EqualFold(strings.TrimSpace(msg.Role), "assistant") {
			lastAssistant = i
		}
	}
	seen := map[coachKind]map[string]bool{coachStep: {}, coachGoal: {}, coachPref: {}, coachThread: {}}
	lists := map[coachKind]*[]string{coachStep: &m.steps, coachGoal: &m.goals, coachPref: &m.prefs, coachThread: &m.threads}
	add := func(k coachKind, v string) {
		key := extract.LabelKey(v)
		if key == "" || seen[k][key] {
			return
		}
		seen[k][key] = true
		if k != coachStep {
			// A near duplicate folds into one, in the later wording.
			*lists[k] = slices.DeleteFunc(*lists[k], func(o string) bool { return coachSame(o, v) })
		}
		*lists[k] = append(*lists[k], v)
	}
	for i, msg := range s.Messages {
		if !extract.IsUser(msg.Role) {
			continue
		}
		m.users++
		content := strings.ToValidUTF8(msg.Content, "\uFFFD")
		sents := grammar.Sentences(extract.StraightApostrophes(content))
		if reason, bad := extract.Sensitive(content); bad {
			m.sensitive = append(m.sensitive, extract.Dropped{MessageID: msg.ID, Reason: "sensitive:" + reason})
			sents = m.withoutSensitive(sents)
		}
		for _, sent := range sents {
			m.sentences = append(m.sentences, sent.Text)
			if !sent.Question {
				m.doneAndRetracted(sent.Text)
			}
			if !sent.Question && coachRecognitionRe.MatchString(sent.Text) {
				if v := coachMoment(sent.Text); v != "" {
					m.moment = v // the last one said
				}
			}
			for _, f := range coachSentence(sent) {
				add(f.kind, f.value)
			}
			if sent.Question && i > lastAssistant {
				if v := coachQuestion(sent.Text); v != "" {
					add(coachThread, v)
				}
			}
		}
	}
	// The end of a session is where steps are agreed and threads left open.
	m.steps = coachLastN(m.steps, CoachMaxActionSteps)
	m.threads = coachLastN(m.threads, CoachMaxOpenThreads)
	return m
}

// doneAndRetracted reads, clause by clause, what a sentence reports done
// and the goals it takes back; a goal taken back leaves the goals said
// before it in the session.
func (m *coachMined) doneAndRetracted(sent string) {
	if g := coachColonDone.FindStringSubmatch(sent); g != nil { // "Outline: done."
		m.done = append(m.done, g[1])
		return
	}
	starts := grammar.ClauseStarts(sent)
	verb := ""       // the verb of the last clause that reported something done
	pending := false // that clause ended at an "and"
	for i, st := range starts {
		end := len(sent)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		clause := sent[grammar.SkipInterjections(sent, st):end]
		if v := coachDone(clause, i == 0); v != "" {
			// "I finished the outline AND the draft": the clause may end at
			// the "and", the draft being the next one's.
			trimmed := coachTrailingAnd.ReplaceAllString(v, "")
			m.done = append(m.done, trimmed)
			verb, pending = strings.Fields(v)[0], trimmed != v
		} else if mm := coachAlsoDoneRe.FindStringSubmatch(strings.TrimRight(clause, " .!…")); mm != nil && verb != "" && (pending || mm[1] != "") {
			m.done = append(m.done, verb+" "+mm[2])
			pending = false
		} else {
			verb, pending = "", false
		}
		if v := coachRetracted(clause); v != "" {
			m.retracted = append(m.retracted, v)
			m.goals = slices.DeleteFunc(m.goals, func(g string) bool { return coachMatchesRetracted(g, []string{v}) })
		}
	}
}

// withoutSensitive drops the sentences of a sensitive message that hold the
// sensitive data. When what is left still does (a card number split over
// two lines), or no sentence alone does, the whole message is dropped.
func (m *coachMined) withoutSensitive(sents []grammar.Sentence) []grammar.Sentence {
	kept := make([]grammar.Sentence, 0, len(sents))
	texts := make([]string, 0, len(sents))
	for _, s := range sents {
		if _, bad := extract.Sensitive(s.Text); bad {
			m.dropped++
			continue
		}
		kept = append(kept, s)
		texts = append(texts, s.Text)
	}
	if _, still := extract.Sensitive(strings.Join(texts, " ")); still || len(kept) == len(sents) {
		m.dropped += len(kept)
		return nil
	}
	return kept
}

type coachFound struct {
	kind  coachKind
	value string
}

// coachSentence finds the steps, goals, preferences and open threads of one
// sentence. Each value runs to the clause where the next one starts, so that
// "I will call her, and then I'll write the plan" gives two steps.
func coachSentence(sent grammar.Sentence) []coachFound {
	type hit struct {
		kind        coachKind
		clause, val int
		lead        string
		style       bool
	}
	var hits []hit
	for _, st := range grammar.ClauseStarts(sent.Text) {
		if st > 0 && coachSubordinate[coachWordBefore(sent.Text, st)] {
			continue // "… because I want to be liked" gives a reason, not a goal
		}
		p := grammar.SkipInterjections(sent.Text, st)
		if loc := coachLeadRe.FindStringIndex(sent.Text[p:]); loc != nil {
			p += loc[1]
		}
		// The patterns only need to find where a value starts; a bounded
		// window keeps the cost of a try independent of the text after it.
		rest := sent.Text[p:]
		if len(rest) > coachWindow {
			rest = rest[:coachWindow]
			rest = rest[:max(strings.LastIndexByte(rest, ' '), 0)]
		}
		for _, pat := range coachPatterns {
			if sent.Question && !pat.question {
				continue
			}
			loc := pat.re.FindStringSubmatchIndex(rest)
			if loc == nil {
				continue
			}
			start := -1
			for g := 2; g+1 < len(loc); g += 2 {
				if loc[g] >= 0 {
					start = loc[g]
					break
				}
			}
			if start >= 0 {
				hits = append(hits, hit{pat.kind, st, p + start, pat.lead, pat.style})
			}
			break
		}
	}
	var out []coachFound
	for i, h := range hits {
		end := len(sent.Text)
		if i+1 < len(hits) {
			end = hits[i+1].clause
		}
		if end <= h.val {
			continue
		}
		clause := sent.Text[h.clause:end]
		raw := sent.Text[h.val:end]
		if (h.kind == coachStep || h.kind == coachGoal) && coachHedged(clause) {
			continue
		}
		minWords := 2
		switch h.kind {
		case coachStep:
			if coachStartsWith(raw, coachNotSteps) {
				continue
			}
		case coachGoal:
			if coachStartsWith(raw, coachNotGoals) {
				continue
			}
		case coachPref:
			minWords = 1
			// "I'd rather you listen than lecture me": the way wanted,
			// not the one compared with.
			if i := strings.Index(strings.ToLower(raw), " than "); i > 0 && coachRatherRe.MatchString(clause) {
				raw = raw[:i]
			}
			if h.style && !coachStyled(raw) {
				continue
			}
		}
		if v := coachValue(h.lead+raw, minWords, CoachMaxItemRunes); v != "" {
			out = append(out, coachFound{h.kind, v})
		}
	}
	return out
}

// coachRatherRe is a preference said as a choice ("I'd rather you …").
var coachRatherRe = regexp.MustCompile(`(?i)\brather\b`)

// coachSubordinate are conjunctions after which a clause gives a reason or
// a concession rather than the user's statement.
var coachSubordinate = extract.WordSet("because cause though although")

// coachWordBefore is the lower-cased word that ends before offset p.
func coachWordBefore(s string, p int) string {
	prev := strings.TrimRight(s[:p], " ")
	return strings.ToLower(prev[strings.LastIndexByte(prev, ' ')+1:])
}

func coachHedged(s string) bool {
	for _, w := range grammar.LowerWords(s) {
		if coachHedges[w] {
			return true
		}
	}
	return false
}

// coachStartsWith reports whether the value starts with one of the phrases,
// as whole words.
func coachStartsWith(v string, phrases []string) bool {
	words := strings.Join(grammar.LowerWords(v), " ") + " "
	for _, ph := range phrases {
		if strings.HasPrefix(words, ph+" ") {
			return true
		}
	}
	return false
}

// coachFirstPerson are the words that make a question the user's own open
// question rather than one put to the coach ("What do you think?").
var coachFirstPerson = extract.WordSet("i i'm im i've ive i'd i'll me my mine myself we we're our us")

// coachAsksCoach is a question put to the coach for their view of the
// user ("be blunt: am I stalling?", "honestly, do you think I'm ready?",
// "am I overthinking this?"): the coach answers it in the session; it is no
// thread left open.
var coachAsksCoach = regexp.MustCompile(`(?i)\b(?:be\s+(?:blunt|honest|straight|real|brutal)|tell\s+me\s+(?:straight|honestly|the\s+truth)|level\s+with\s+me|real\s+talk|honestly|(?:do|would)\s+you\s+(?:think|say|reckon)|what\s+do\s+you\s+(?:think|reckon)|your\s+(?:take|opinion|view|honest)|in\s+your\s+(?:opinion|view))\b|^\W*(?:so\s+|ok\s+|okay\s+|well\s+|be\s+\w+\s*[:,-]\s*)?(?:am\s+i|was\s+i|is\s+it\s+(?:just\s+)?me|do\s+i\s+(?:seem|sound|look)|does\s+(?:this|that|it)\s+(?:sound|seem|look))\b`)

// coachQuestion is an unanswered question worth keeping: the user's own,
// at least three words long, not one put to the coach (coachAsksCoach).
func coachQuestion(s string) string {
	ws := grammar.LowerWords(s)
	if len(ws) < 3 || !slices.ContainsFunc(ws, func(w string) bool { return coachFirstPerson[w] }) || coachAsksCoach.MatchString(s) {
		return ""
	}
	v := coachValue(s, 3, CoachMaxItemRunes-1)
	if v == "" {
		return ""
	}
	if !strings.HasSuffix(v, "…") {
		v += "?"
	}
	return v
}

// coachMoment is a recognition sentence, kept as the user said it.
func coachMoment(s string) string {
	return coachValue(s, 3, coachMaxMomentRunes)
}

// coachValue tidies a value: quotes and trailing punctuation and joining
// words removed, the first letter capitalised, clipped at a word to
// maxRunes with an ellipsis. It is "" below minWords words.
func coachValue(v string, minWords, maxRunes int) string {
	ws := strings.Fields(grammar.Tidy(v))
	for len(ws) > 0 {
		last := strings.ToLower(strings.TrimRightFunc(ws[len(ws)-1], unicode.IsPunct))
		if last != "" && !coachTrailingJoiners[last] {
			break
		}
		ws = ws[:len(ws)-1]
	}
	v = grammar.Tidy(strings.Join(ws, " "))
	if len(strings.Fields(v)) < minWords || !extract.HasAlnum(v) {
		return ""
	}
	r, size := utf8.DecodeRuneInString(v)
	v = string(unicode.ToUpper(r)) + v[size:]
	return coachClip(v, maxRunes)
}

var coachTrailingJoiners = extract.WordSet("and or but so then also plus because cause while though although when")

// coachClip cuts s to at most n runes at a word boundary, ending in "…".
func coachClip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	cut = strings.TrimRightFunc(cut, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	return cut + "…"
}

func coachLastN(list []string, n int) []string {
	if list == nil {
		return []string{}
	}
	if len(list) > n {
		return list[len(list)-n:]
	}
	return list
}

func coachReversed(list []string) []string {
	out := slices.Clone(list)
	slices.Reverse(out)
	return out
}

// coachStrings reads a list of strings from a stored profile or summary,
// leaving out what is not a string or holds sensitive data.
func coachStrings(v any) []string {
	var out []string
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" {
			return
		}
		if _, bad := extract.Sensitive(s); bad {
			return
		}
		out = append(out, s)
	}
	switch l := v.(type) {
	case []any:
		for _, x := range l {
			if s, ok := x.(string); ok {
				add(s)
			}
		}
	case []string:
		for _, s := range l {
			add(s)
		}
	case string:
		add(l)
	}
	return out
}

// coachMerge is newer's items, then older's, without repeats or near
// duplicates (coachSame: the newer wording stays), at most n.
func coachMerge(newer, older []string, n int) []string {
	out := []string{}
	for _, v := range slices.Concat(newer, older) {
		if extract.LabelKey(v) == "" || slices.ContainsFunc(out, func(o string) bool { return coachSame(o, v) }) {
			continue // a near duplicate of a newer item (coachSame)
		}
		out = append(out, coachClip(v, CoachMaxItemRunes))
		if len(out) == n {
			break
		}
	}
	return out
}

// coachText is the summary's 8 to 12 lines: date, messages, topics,
// recognition, each action step, each open thread (on one line when they
// would make the text longer than 12 lines), notes and a closing line.
func coachText(s extract.Session, m coachMined, topics []string) string {
	lines := []string{coachDateLine(s)}
	lines = append(lines, "Messages: "+strconv.Itoa(m.messages)+" ("+strconv.Itoa(m.users)+" from the user).")
	if len(topics) > 0 {
		lines = append(lines, "Worked on: "+strings.Join(topics, ", ")+".")
	} else {
		lines = append(lines, "Worked on: no clear topic in the user's words.")
	}
	if m.moment != "" {
		lines = append(lines, "Recognition moment: "+coachEnd(m.moment))
	} else {
		lines = append(lines, "Recognition moment: none named.")
	}
	if len(m.steps) == 0 {
		lines = append(lines, "Action steps: none named.")
	}
	for _, st := range m.steps {
		lines = append(lines, "Action step: "+coachEnd(st))
	}
	const fixedAfter = 2 // notes and closing line
	switch {
	case len(m.threads) == 0:
		lines = append(lines, "Open threads: none.")
	case len(lines)+len(m.threads)+fixedAfter <= CoachMaxLines:
		for _, t := range m.threads {
			lines = append(lines, "Open thread: "+coachEnd(t))
		}
	default:
		ends := make([]string, len(m.threads))
		for i, t := range m.threads {
			ends[i] = strings.TrimSuffix(t, ".")
		}
		lines = append(lines, "Open threads: "+strings.Join(ends, "; ")+".")
	}
	lines = append(lines, "Coach notes: "+coachNotes(m)+".")
	switch {
	case len(m.steps) > 0:
		lines = append(lines, "Next time: check in on the action steps.")
	case len(m.threads) > 0:
		lines = append(lines, "Next time: pick up the open threads.")
	default:
		lines = append(lines, "Next time: ask what the user wants to work on.")
	}
	return strings.Join(lines, "\n")
}

// coachDateLine says when the session was, in the offset the chat service
// sent its start in.
func coachDateLine(s extract.Session) string {
	start := s.StartedAt
	if start.IsZero() {
		for _, msg := range s.Messages {
			if !msg.At.IsZero() {
				start = msg.At
				break
			}
		}
	}
	if start.IsZero() {
		return "Date: unknown."
	}
	line := "Date: " + start.Format(time.DateOnly)
	if minutes := extract.SessionMinutes(s); minutes > 0 {
		line += ", " + extract.Count(minutes, "minute", "minutes")
	}
	return line + "."
}

// coachEnd ends a line's value with a full stop unless it has an ending.
func coachEnd(v string) string {
	if strings.HasSuffix(v, "?") || strings.HasSuffix(v, "!") || strings.HasSuffix(v, "…") || strings.HasSuffix(v, ".") {
		return v
	}
	return v + "."
}

// coachNotes counts what the summary holds; it never judges.
func coachNotes(m coachMined) string {
	parts := []string{
		extract.Count(len(m.steps), "action step", "action steps"),
		extract.Count(len(m.threads), "open thread", "open threads"),
	}
	if m.moment != "" {
		parts = append(parts, "a recognition moment")
	}
	if len(m.goals) > 0 {
		parts = append(parts, extract.Count(len(m.goals), "goal stated", "goals stated"))
	}
	if len(m.prefs) > 0 {
		parts = append(parts, extract.Count(len(m.prefs), "coaching preference", "coaching preferences"))
	}
	if m.dropped > 0 {
		parts = append(parts, extract.Count(m.dropped, "sentence left out for sensitive data", "sentences left out for sensitive data"))
	}
	return strings.Join(parts, "; ")
}

// Keywords: the words of a text that say what it is about, and the pairs of
// such words that stand next to each other ("public speaking").

// coachStopwords are words that say nothing about a topic: function words,
// filler, time words and the vocabulary of coaching itself.
var coachStopwords = extract.WordSet(`
a about above after again against all almost already also although always am among an and another any anybody anyone anything anyway anyways are around as ask asked asking at away
back bad be because been before being below best better between big bit both but by bye
can cannot cant come comes coming could couldnt
day days did didnt do does doesnt doing done dont down during
each either else enough even ever every everybody everyone everything exactly
feel feeling feels felt few figure figured figuring find fine first for from
get gets getting give go goes going gonna good got gotta great guess guys
had hadnt has hasnt have havent having he hello her here hers herself hey hi him himself his honestly hope how however hmm
idea if ill im in into is isnt it its itself ive
just keep kind kinda know knew
last least less let lets like little lot lots
made make makes making many maybe me mean means might mine more most much must my myself
need needed needs never new next nice no nobody none nor not nothing now
of off oh ok okay on once one only or other others our ours ourselves out over own
part people perhaps please pretty probably put
quite
rather really right
said same say saying see seem seems shall she should shouldnt since so some somebody someone something sometimes soon sorry still stuff such sure
take talk talked talking tell than thank thanks that thats the their theirs them themselves then there these they thing things think thinking this those though thought through to today together tomorrow tonight too toward try trying
um under until up upon us use used
very
want wanted wants was wasnt way we well went were what whatever when where whether which while who whom whose why will wish with within without wonder wondering wont would wouldnt
yeah yes yesterday yet you your yours yourself youre
week weekend weeks month months year years morning evening night
monday tuesday wednesday thursday friday saturday sunday
realize realized realise realised notice noticed hit dawned clicked understand understood
step steps goal goals plan action actions thread threads coach coaching session sessions user
able actually basically definitely literally totally lately recently currently
commit committing start started starting stop stopped
`)

// coachTerms returns the keywords of text in order: each content word
// (lower case, plurals folded) and each pair of adjacent content words.
func coachTerms(text string) []string {
	var out []string
	prev := ""
	for _, w := range grammar.LowerWords(text) {
		w = coachWord(w)
		if w == "" {
			prev = ""
			continue
		}
		out = append(out, w)
		if prev != "" {
			out = append(out, prev+" "+w)
		}
		prev = w
	}
	return out
}

// coachWord is a word's keyword form, or "" for a word that is no keyword.
func coachWord(w string) string {
	w = strings.TrimSuffix(w, "'s")
	w = strings.ReplaceAll(w, "'", "")
	if utf8.RuneCountInString(w) < 3 || coachStopwords[w] || strings.IndexFunc(w, unicode.IsDigit) >= 0 {
		return ""
	}
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	if coachStopwords[w] {
		return ""
	}
	return w
}

func coachIsPair(term string) bool { return strings.Contains(term, " ") }

// coachTopics are up to three keywords of what the user talked about: the
// most frequent in their words, where what they named as a step, thread,
// goal or recognition counts three times. A pair needs to occur twice; a
// word ranks by how often it occurs outside its most frequent pair, so that
// "deep work" is one topic rather than "deep" and "work".
func coachTopics(m coachMined) []string {
	score := map[string]int{}
	first := map[string]int{}
	var order []string
	count := func(text string, weight int) {
		for _, t := range coachNounTerms(text) {
			if _, ok := first[t]; !ok {
				first[t] = len(order)
				order = append(order, t)
			}
			score[t] += weight
		}
	}
	for _, s := range m.sentences {
		count(s, 1)
	}
	for _, list := range [][]string{m.steps, m.threads, m.goals, {m.moment}} {
		for _, v := range list {
			count(v, 2)
		}
	}
	rank := map[string]int{}
	inPair := map[string]int{} // a word's score in its most frequent pair
	for _, t := range order {
		if coachIsPair(t) && score[t] >= 2 {
			rank[t] = score[t]
			for _, w := range strings.Fields(t) {
				inPair[w] = max(inPair[w], score[t])
			}
		}
	}
	for _, t := range order {
		if !coachIsPair(t) {
			rank[t] = score[t] - inPair[t]
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		if c := cmp.Compare(rank[b], rank[a]); c != 0 {
			return c
		}
		if coachIsPair(a) != coachIsPair(b) {
			if coachIsPair(a) {
				return -1
			}
			return 1
		}
		return cmp.Compare(first[a], first[b])
	})
	picked := coachPick(order, func(t string) bool { return rank[t] > 0 }, coachMaxTopics)
	// A word that is the head of one noun phrase only, said at least half as
	// often as the word, is that phrase: "freelance work", not "work"
	// (issue 33).
	phraseOf, several := map[string]string{}, map[string]bool{}
	for _, t := range order {
		if !coachIsPair(t) {
			continue
		}
		ws := strings.Fields(t)
		head := ws[len(ws)-1]
		if p, ok := phraseOf[head]; ok && p != t {
			several[head] = true
		}
		phraseOf[head] = t
	}
	for i, t := range picked {
		if p := phraseOf[t]; p != "" && !several[t] && 2*score[p] >= score[t] && !slices.Contains(picked, p) {
			picked[i] = p
		}
	}
	return picked
}

// coachPick takes up to n terms in order that ok accepts, leaving out a word
// of a pair already chosen and a pair sharing a word with one (a pair may
// follow one of its words: "work", then "deep work").
func coachPick(order []string, ok func(string) bool, n int) []string {
	out := []string{}
	inPair := map[string]bool{}
	for _, t := range order {
		if len(out) == n {
			break
		}
		if !ok(t) {
			continue
		}
		ws := strings.Fields(t)
		if slices.ContainsFunc(ws, func(w string) bool { return inPair[w] }) {
			continue
		}
		if len(ws) > 1 {
			for _, w := range ws {
				inPair[w] = true
			}
		}
		out = append(out, t)
	}
	return out
}

// coachSummaryTerms are the keywords of one summary: its topics, recognition
// moment, action steps and open threads. A term is true when it may be a
// theme: a topic, or a noun phrase of the texts (coachNounTerms); the other
// keywords (false) only count towards a theme's sessions, so that "money"
// recurs when one session worried about money and another named it in a
// step.
func coachSummaryTerms(topics []string, moment string, steps, threads []string) map[string]bool {
	set := map[string]bool{}
	for _, list := range [][]string{topics, {moment}, steps, threads} {
		for _, v := range list {
			for _, t := range coachTerms(v) {
				set[t] = set[t] || false
			}
			for _, t := range coachNounTerms(v) {
				set[t] = true
			}
		}
	}
	for _, t := range topics {
		if k := strings.Join(grammar.LowerWords(t), " "); k != "" {
			set[k] = true
		}
	}
	return set
}

// Noun phrases. Topics and themes are noun phrases, found without a
// tagger by a small heuristic: a phrase is a run of one to three content
// words (coachWord: no stop word, no number, no adverb or comparative) that
//
//   - follows an opener: a determiner or possessive ("the", "my", "our"),
//     a preposition ("about", "at", "with") or a quantifier ("two",
//     "some"), adjectives such as "new" or "big" read past; or opens a
//     clause without being a verb ("Money is tight", not "Finish two …");
//   - ends where the phrase does: at punctuation, a stop word or the end of
//     the text, so that "portfolio case" of "portfolio case studies" is no
//     phrase, and a run longer than three words gives none.
//
// So "react worse" (a verb, a comparative) and "finish two" (a verb, a
// number) are no topics, "worried about money" gives "money" and "my
// portfolio case studies" gives "portfolio case study".

var (
	coachOpeners = extract.WordSet(`the a an my our your his her their its this that these those
		about on with for of in at from into around regarding during without against over
		two three four five six seven eight nine ten few several some many much more less any enough every each no`)
	coachAdjectives = extract.WordSet("new big good bad little great next last own whole same other first nice hard real huge small old young long short")
	coachNotNouns   = extract.WordSet(`two three four five six seven eight nine ten eleven twelve twenty hundred thousand half dozen
		worse better harder easier faster slower bigger smaller longer shorter earlier later best worst
		usually probably quickly slowly badly honestly seriously completely easily constantly mostly nearly barely hardly immediately certainly especially mainly simply truly clearly likely
		though although anyway instead else`)
	// coachVerbs open a clause without naming what it is about.
	coachVerbs            = extract.WordSet(`react finish make get go do say tell ask try want need feel think know see look take give find keep let put seem help start stop call send write read run walk talk speak meet plan book block draft email text change move quit leave stay join learn practise practice improve avoid handle deal manage fix build create prepare schedule spend save pay buy sell apply decide choose figure sleep eat drink exercise focus push hold protect accept admit notice realize realise understand remember forget wonder worry hope wish love hate enjoy miss lose win fail struggle share update review check scare frighten bother annoy drain stress kill drive hurt matter`)
	coachConjunctionWords = extract.WordSet("and but so or because then while when")
)

// coachVerbAfter reports a word that, after the first word of a phrase,
// is a verb rather than part of the phrase: a verb in the third person
// ("public speaking scares me"), not a noun such as "plan" in "my work plan".
func coachVerbAfter(lower, w string) bool {
	return strings.HasSuffix(lower, "s") && coachVerbs[w] || coachPastAfter(lower)
}

// coachPastAfter reports a past tense after the first word of a phrase
// ("my freelance work dried up", "the launch slipped"): it ends the phrase,
// which is "freelance work", not "freelance work dried" (issue 33).
func coachPastAfter(lower string) bool {
	return len(lower) > 4 && strings.HasSuffix(lower, "ed") && !strings.HasSuffix(lower, "eed") && !coachNotPast[lower]
}

// coachNounTerms are the noun phrases of text (see above), folded by
// coachWord, and for a phrase of several words its last word too (so that
// a phrase said once does not outrank the word it is built on).
func coachNounTerms(text string) []string {
	type tok struct {
		w     string // coachWord form, "" for none
		lower string
		stop  bool // punctuation after it
	}
	var toks []tok
	for _, raw := range strings.Fields(text) {
		core := strings.TrimFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
		lower := strings.ToLower(strings.Trim(core, "'"))
		end := strings.IndexFunc(raw[strings.Index(raw, core)+len(core):], func(r rune) bool { return unicode.IsPunct(r) && r != '\'' }) >= 0
		w := ""
		if !coachNotNouns[lower] {
			w = coachWord(lower)
		}
		toks = append(toks, tok{w, lower, end || core == ""})
	}
	var out []string
	clauseStart := true
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		start := -1
		switch {
		case coachOpeners[t.lower] && !t.stop:
			start = i + 1
			for start < len(toks) && coachAdjectives[toks[start].lower] && !toks[start].stop {
				start++
			}
		case clauseStart && t.w != "" && !coachVerbs[t.w] && !strings.HasSuffix(t.lower, "ed"):
			start = i
		}
		clauseStart = t.stop || coachConjunctionWords[t.lower]
		if start < 0 || start >= len(toks) {
			continue
		}
		var run []string
		k := start
		// A verb after the first word ends the phrase ("public speaking
		// scares me").
		for k < len(toks) && toks[k].w != "" && len(run) < 4 && (len(run) == 0 || !coachVerbAfter(toks[k].lower, toks[k].w)) {
			run = append(run, toks[k].w)
			if toks[k].stop {
				k++
				break
			}
			k++
		}
		// The phrase must end here: punctuation, the end, or a word that is
		// no content word.
		complete := len(run) > 0 && len(run) <= 3 &&
			(k == len(toks) || toks[k-1].stop || toks[k].w == "" || coachVerbAfter(toks[k].lower, toks[k].w))
		if !complete {
			continue
		}
		out = append(out, strings.Join(run, " "))
		if len(run) > 1 {
			out = append(out, run[len(run)-1])
		}
		if k-1 > i {
			i = k - 2 // the loop's i++ lands on the phrase's last word
			clauseStart = false
		}
	}
	return out
}

// coachShaped reports whether a stored summary is a coach summary.
func coachShaped(d map[string]any) bool {
	for _, k := range []string{"action_steps", "open_threads", "recognition_moment", "coach_notes"} {
		if _, ok := d[k]; ok {
			return true
		}
	}
	return false
}

// coachThemes are up to three keywords found in at least two sessions'
// summaries, this one's and the earlier ones, most sessions first.
func coachThemes(s extract.Session, topics []string, m coachMined) []string {
	var sessions []map[string]bool
	for _, cs := range coachParts(s, m) {
		sessions = append(sessions, cs.terms)
	}
	in := map[string]int{}
	first := map[string]int{}
	var order []string
	for i, set := range sessions {
		terms := make([]string, 0, len(set))
		for t := range set {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		for _, t := range terms {
			if _, ok := first[t]; !ok {
				first[t] = i
				order = append(order, t)
			}
			in[t]++
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		if c := cmp.Compare(in[b], in[a]); c != 0 {
			return c
		}
		if coachIsPair(a) != coachIsPair(b) {
			if coachIsPair(a) {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(first[a], first[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	noun := map[string]bool{}
	for _, set := range sessions {
		for t, ok := range set {
			noun[t] = noun[t] || ok
		}
	}
	return coachPick(order, func(t string) bool { return noun[t] && in[t] >= coachThemeMinSession }, CoachMaxThemes)
}

// --- Near duplicates, completions and goal corrections (issue 23).

// coachLemmas gives the irregular past forms their present, so that "I
// sent the application" meets "Send the application".
var coachLemmas = map[string]string{
	"sent": "send", "wrote": "write", "written": "write", "did": "do", "done": "do", "made": "make", "took": "take", "taken": "take",
	"went": "go", "gone": "go", "bought": "buy", "spoke": "speak", "spoken": "speak", "met": "meet", "paid": "pay", "told": "tell",
	"got": "get", "gotten": "get", "ran": "run", "began": "begin", "begun": "begin", "left": "leave", "built": "build", "found": "find",
	"gave": "give", "given": "give", "kept": "keep", "sold": "sell", "won": "win", "brought": "bring", "thought": "think", "taught": "teach",
	"applied": "apply", "tried": "try", "emailed": "email", "submitted": "submit",
	"finished": "finish", "finishing": "finish", "completed": "complete", "sending": "send", "writing": "write", "called": "call",
	"booked": "book", "scheduled": "schedule", "drafted": "draft", "updated": "update", "talked": "talk", "asked": "ask", "started": "start",
}

// coachStem is a word's form for comparing two items: coachWord's form,
// irregular pasts and "-ed"/"-ing" folded to the present.
func coachStem(w string) string {
	if l, ok := coachLemmas[w]; ok {
		return l
	}
	if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
		return w // "chapter 4" is not "chapter 5"
	}
	w = strings.ReplaceAll(strings.TrimSuffix(w, "'s"), "'", "")
	if len(w) < 3 || coachFunctionWords[w] {
		return ""
	}
	if l, ok := coachLemmas[w]; ok {
		return l
	}
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	if l, ok := coachLemmas[w]; ok {
		return l
	}
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ied"):
		w = w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3]
	}
	return w
}

// coachFunctionWords are left out when two items are compared: function
// words, hedges and time words, not the verbs and nouns that say what an
// item is ("ask", "make", "money").
var coachFunctionWords = extract.WordSet(`the and but for nor yet with from into onto about above after again against all also any are
	been before being below between both can could did does doing done down during each few had has have having her hers him his
	how its just more most much not now off once only other our ours out over own same she should some such than that the their
	them then there these they this those through too under until very was were what when where whether which while who whom
	why will would you your yours really still maybe might perhaps probably actually finally already soon today tomorrow week
	weekend month year next last time way thing things stuff lot bit kind sort able need want like get got going gonna try
	monday tuesday wednesday thursday friday saturday sunday tonight end`)

// coachStems are the content words of s, stemmed (coachStem), once each.
func coachStems(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range grammar.LowerWords(s) {
		if st := coachStem(w); st != "" {
			out[st] = true
		}
	}
	return out
}

// coachSameThreshold: two open threads or goals are one when their content
// words overlap by at least this share of the shorter one's (the overlap
// coefficient |A∩B| / min(|A|,|B|)), with at least two words in common, or
// when their keys (extract.LabelKey) are equal. "Whether to ask for a raise" and
// "Whether I should ask for a raise?" are one; "save money" and "save
// time" are not.
const coachSameThreshold = 0.75

// coachSame reports near-duplicate items (coachSameThreshold).
func coachSame(a, b string) bool {
	if extract.LabelKey(a) == extract.LabelKey(b) {
		return true
	}
	A, B := coachStems(a), coachStems(b)
	common := 0
	for w := range A {
		if B[w] {
			common++
		}
	}
	small := min(len(A), len(B))
	return common >= 2 && float64(common) >= coachSameThreshold*float64(small)
}

// coachCloseThreshold: a reported completion closes an open action step
// when they share at least this share of the step's content words and at
// least one of the shared words is not a verb (coachVerbs): "I sent the
// application" closes "Send the application to Acme" (2 of 3), "I sent my
// mom flowers" does not ("send" alone).
const coachCloseThreshold = 0.5

// coachCloses reports whether a completion's words close step.
func coachCloses(done, step string) (float64, bool) {
	S, D := coachStems(step), coachStems(done)
	// A completion that names only a thing ("The pitch went out", "Pitch
	// is out") closes the step whose first thing it is: "Send the pitch to
	// three editors".
	if len(D) > 0 && !slices.ContainsFunc(slices.Collect(maps.Keys(D)), func(w string) bool { return coachVerbs[w] }) {
		for _, w := range grammar.LowerWords(step) {
			if st := coachStem(w); st != "" && !coachVerbs[st] {
				if D[st] {
					return coachCloseThreshold, true
				}
				break
			}
		}
	}
	common, noun := 0, false
	for w := range S {
		if D[w] {
			common++
			noun = noun || !coachVerbs[w]
		}
	}
	if len(S) == 0 || !noun {
		return 0, false
	}
	share := float64(common) / float64(len(S))
	return share, share >= coachCloseThreshold
}

// coachDoneRes read a reported completion at a clause start; group 1 is
// what was done.
var coachDoneRes = []*regexp.Regexp{
	extract.Prefix(coachIAm+`\s+`+coachStop+`(?:finally\s+|all\s+)?(?:done|finished|through)\s+with\s+(.+)`,
		`(?:all\s+)?done\s+with\s+(.+)`,
		`i\s+(?:have\s+|'ve\s+|ve\s+)?`+coachStop+`(?:finally\s+|already\s+)?(?:got|gotten)\s+(.+?)\s+done\b`,
		`i\s+(?:have\s+|'ve\s+|ve\s+)?`+coachStop+`(?:finally\s+|already\s+)?checked\s+off\s+(.+)`),
	// "I sent the application", "I've finally booked the appointment".
	extract.Prefix(`(?:i\s+(?:have\s+|'ve\s+|ve\s+)?)` + coachStop + `(?:finally\s+|already\s+|actually\s+)?((?:[a-z]+ed|sent|wrote|did|made|took|went|bought|spoke|met|paid|told|got|ran|began|built|found|gave|sold|won|brought|set\s+up|put\s+up|handed\s+in|turned\s+in)\s+` + coachDoneObject + `.*)`),
	// "The resume draft is done".
	regexp.MustCompile(`(?i)^((?:the|my)\s+.+?)\s+(?:is|are)\s+(?:finally\s+|all\s+)?(?:done|finished|sent|booked|submitted|written|complete|completed|out)$`),
	// "Outline done.", "Pitch sent!", "Outline: done.", "Pitch is out.",
	// "The Substack page is live!", "The pitch went out on Monday".
	regexp.MustCompile(`(?i)^((?:the\s+|my\s+)?(?:[a-z][a-z'-]*\s+){0,3}?[a-z][a-z'-]+)\s*(?::\s*|\s+(?:is|are|went|got)\s+)?(?:all\s+|finally\s+)?(?:done|finished|sent|submitted|booked|written|out|live|up|published|posted|launched)(?:\s+(?:now|already|too|as\s+well|today|yesterday|on\s+\w+|at\s+last))?$`),
	// "I hit send on the pitch": the pitch is sent.
	regexp.MustCompile(`(?i)^i\s+(?:finally\s+|just\s+)?hit\s+send\s+on\s+(.+)`),
}

// coachDoneObject is how the object of a reported completion begins: a
// determiner, a particle or a number ("sent the application", "signed up
// for the course", "ran 8k"); "I worked Saturday again" reports no step.
const coachDoneObject = `(?:the|my|a|an|all|both|every|each|those|these|that|this|some|off|up|in|out|for|to|it|them|on|with|through|\d)\b`

// coachDueRe finds the day a step is due by.
var coachDueRe = regexp.MustCompile(`(?i)\b(?:by|before)\s+(?:` + coachDueDay + `)\b`)

// coachDueDates are the steps that say a day they are due by, each with
// that day (YYYY-MM-DD) from the session's end in its zone: {step, due}.
func coachDueDates(s extract.Session, steps []string) []map[string]any {
	var out []map[string]any
	loc := extract.SessionZone(s.Timezone)
	at := extract.SessionEnd(s)
	for _, st := range steps {
		loc2 := coachDueRe.FindStringIndex(st)
		if loc2 == nil {
			continue
		}
		phrase := strings.ToLower(st[loc2[0]:loc2[1]])
		phrase = strings.NewReplacer("by the end of", "at the end of", "by end of", "at the end of", "by ", "", "before ", "").Replace(phrase)
		if ds := extract.ResolveDatesTense(phrase, at, loc, extract.TenseFuture); len(ds) > 0 {
			out = append(out, map[string]any{"step": st, "due": ds[0].Date})
		}
	}
	return out
}

// coachColonDone is a completion said as a list's line: "Outline: done."
var coachColonDone = regexp.MustCompile(`(?i)^\W*((?:the\s+|my\s+)?[a-z][a-z' -]{1,40}?)\s*:\s*(?:done|finished|sent|submitted|booked|out|live|complete|completed)\W*$`)

// coachAlsoDoneRe is a clause that adds an object to the completion
// before it: "… and the draft", "… plus the cover letter".
var coachAlsoDoneRe = regexp.MustCompile(`(?i)^((?:and|&|plus|as\s+well\s+as|also)\s+)?(?:also\s+)?((?:the|my|a|an|both|all|that|this|those|these)\s+.+?)(?:\s+(?:too|as\s+well|also))?$`)

// coachTrailingAnd is an "and" that ends a completion's clause.
var coachTrailingAnd = regexp.MustCompile(`(?i)\s+(?:and|&|plus)$`)

// coachNotPast are -ed words that are no past tense ("I need to …").
var coachNotPast = extract.WordSet("need needs feed bleed speed proceed exceed succeed seed bed red shed needed wanted loved liked hated seemed looked sounded felt worried missed used")

// coachDoneBareRe reads a completion without a subject at a sentence's
// start, a past verb and its object: "Sent the portfolio to all five!",
// "Booked the exam for January 14!" (not a feeling: "needed the break").
var coachDoneBareRe = regexp.MustCompile(`(?i)^((?:[a-z]{2,}ed|sent|wrote|did|made|met|ran|bought|built|paid|told|read|got|took|gave|sold|won|set\s+up|handed\s+in|turned\s+in)\s+(?:the|my|a|an|all|both|every|those|these|that|this|off|up|in|out|for|to|it|them|\d)\b.*)$`)

// coachDone reads what a clause reports done; "" when nothing. bare also
// reads a completion without a subject (the sentence's first clause).

func coachDone(clause string, bare bool) string {
	text := strings.TrimRight(clause, " .!…")
	if grammar.Negated(grammar.LowerWords(text)) || coachHedged(text) {
		return ""
	}
	res := coachDoneRes
	if bare {
		res = append([]*regexp.Regexp{coachDoneBareRe}, res...)
	}
	for _, re := range res {
		if m := re.FindStringSubmatch(text); m != nil {
			g := coachGroup(m)
			if f := strings.Fields(strings.ToLower(g)); len(f) > 0 && coachNotPast[f[0]] {
				continue
			}
			if strings.Contains(strings.ToLower(m[0]), "hit send") {
				g = "sent " + g
			}
			return coachDoneTail.ReplaceAllString(g, "")
		}
	}
	return ""
}

// coachDoneTail are words after what was done that say nothing of it.
var coachDoneTail = regexp.MustCompile(`(?i)\s+(?:too|as\s+well|also|now|already)$`)

// coachGroup is the first group a match of alternatives filled.
func coachGroup(m []string) string {
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	return ""
}

// coachRetractRes read a goal the user takes back; group 1 names it.
var coachRetractRes = []*regexp.Regexp{
	extract.Prefix(`(?:actually\s+|ok\s+|okay\s+|so\s+)?(?:scratch|forget(?:\s+about)?|drop|ditch|never\s*mind(?:\s+about)?|cross\s+off|strike)\s+(?:that\s+)?(.+)`,
		`i\s+`+coachStop+`(?:no\s+longer|don't|do\s+not|dont)\s+(?:really\s+)?(?:want|care\s+about)\s+(?:to\s+)?(.+?)\s+any\s*more$`,
		`i\s+`+coachStop+`no\s+longer\s+want\s+(?:to\s+)?(.+)`,
		`(?:i'm|im|i\s+am)\s+(?:giving\s+up\s+on|done\s+chasing|not\s+going\s+after|no\s+longer\s+going\s+after)\s+(.+)`,
		`instead\s+of\s+(.+)`),
	regexp.MustCompile(`(?i)^(.+?)\s+is\s+(?:off\s+the\s+table|no\s+longer\s+(?:my\s+|a\s+)?goal|not\s+my\s+goal\s+any\s*more)\b`),
}

// coachRetracted reads the goal a clause takes back; "" when none.
func coachRetracted(clause string) string {
	text := strings.TrimRight(clause, " .!…,")
	for _, re := range coachRetractRes {
		if m := re.FindStringSubmatch(text); m != nil {
			v := strings.TrimSpace(coachGroup(m))
			if len(coachStems(v)) == 0 || coachStartsWith(v, []string{"it", "that", "this", "about it"}) {
				return ""
			}
			return v
		}
	}
	return ""
}

// coachMatchesRetracted reports whether goal is one a retraction names: a
// content word (not a verb) in common.
func coachMatchesRetracted(goal string, retracted []string) bool {
	G := coachStems(goal)
	for _, r := range retracted {
		for w := range coachStems(r) {
			if G[w] && !coachVerbs[w] {
				return true
			}
		}
	}
	return false
}

// coachOpenSteps are the action steps of the earlier sessions not yet
// closed by a later one's completed_steps, newest session first.
func coachOpenSteps(s extract.Session) []string {
	var out []string
	closed := map[string]bool{}
	for _, past := range s.History.Summaries { // newest first
		if past.SessionID != "" && past.SessionID == s.ID || !coachShaped(past.Data) {
			continue
		}
		for _, st := range coachStrings(past.Data["action_steps"]) {
			if k := extract.LabelKey(st); k != "" && !closed[k] && !slices.ContainsFunc(out, func(o string) bool { return extract.LabelKey(o) == k }) {
				out = append(out, st)
			}
		}
		for _, st := range coachStrings(past.Data["completed_steps"]) {
			closed[extract.LabelKey(st)] = true
		}
	}
	return out
}
