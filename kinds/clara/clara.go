package clara

import (
	"cmp"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/grammar"
	"github.com/mnemo-ai/mnemo/internal/num"
	"github.com/mnemo-ai/mnemo/prompts"
)

// clara (docs/presets.md, Clara): the dementia companion. Its pack is always
// empty, and only the summary text of an LLM answer is the model's: the arc,
// topics and anchors come from the chat service's events.
// Clara is the dementia companion, for its caregiver: the kind of apps whose rules are "clara".
var Clara extract.Kind = kindClara{}

func init() { extract.Register(Clara) }

type kindClara struct{ extract.BaseKind }

func (kindClara) Name() string { return "clara" }
func (kindClara) Rules(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	claraRules(res, p, s, now)
}
func (kindClara) SpecialDefault() string { return prompts.SpecialKeep } // a dementia companion's purpose

// Batches are Clara's batches (batch.Declarer): each person's trends, daily.
func (kindClara) Batches() []batch.Batch { return []batch.Batch{batch.Trends()} }

// PackPolicy: cross-session data never enters Clara's context, so its pack
// is always empty.
func (kindClara) PackPolicy() extract.PackPolicy { return extract.PackPolicy{Isolated: true} }

// View: a user's pages, and the concerns of a summary, are the caregiver's.
func (kindClara) View() extract.View {
	return extract.View{Heading: "Caregiver view", Page: extract.PageCaregiver, CaregiverOnly: true,
		CaregiverNotes: "concerns", WithoutNotes: ClaraWithoutConcerns, Notes: concernNotes}
}

// concernNotes are a summary's concerns (ClaraConcernsOf), each said to a
// caregiver.
func concernNotes(sum map[string]any) []extract.CaregiverNote {
	var out []extract.CaregiverNote
	for _, c := range ClaraConcernsOf(sum["concerns"]) {
		out = append(out, extract.CaregiverNote{What: concernName(c.Concern), Date: c.Date})
	}
	return out
}

// concernName says a concern to a caregiver in sentence case: its name
// in concernNames, or the concern with its "_" as spaces and its first
// letter upper case ("poor_sleep" is "Poor sleep"), so that the page's
// labels read alike.
func concernName(concern string) string {
	if what, ok := concernNames[concern]; ok {
		return what
	}
	what := strings.ReplaceAll(concern, "_", " ")
	if r, n := utf8.DecodeRuneInString(what); n > 0 {
		what = string(unicode.ToUpper(r)) + what[n:]
	}
	return what
}

// concernNames says the concerns whose words are not their key's.
var concernNames = map[string]string{
	ConcernOverdose:          "Too much medication at once",
	ConcernFall:              "Fall",
	ConcernPain:              "Pain",
	ConcernNotEating:         "Not eating",
	ConcernMedication:        "Medication confusion",
	ConcernStoppedMedication: "Stopped a medicine",
	ConcernLost:              "Getting lost",
	ConcernStrangerAtDoor:    "Stranger at the door",
	ConcernScam:              "Possible scam",
}

func (kindClara) CompleteLLM(llm, rules extract.Result) extract.Result {
	text, ok := llm.SessionSummary["summary"]
	llm.SessionSummary = maps.Clone(rules.SessionSummary)
	if llm.SessionSummary == nil {
		llm.SessionSummary = map[string]any{}
	}
	if ok {
		llm.SessionSummary["summary"] = text
		// The caregiver's text names the concerns the rules found, whoever wrote it.
		if t, isText := text.(string); isText {
			if cs := ClaraConcernsOf(rules.SessionSummary["concerns"]); len(cs) > 0 {
				llm.SessionSummary["summary"] = claraWithConcerns(t, cs)
			}
		}
	}
	llm.Records = rules.Records
	return llm
}

// Record types Clara sessions produce.
const (
	ClaraRepetition     = "repetition"
	ClaraNarrativeUsage = "narrative_usage"
)

// ClaraChronicRepetition is the repeat count from which Clara's repetition
// record flags a chronic_repetition_pattern (docs/presets.md, Clara: questions
// and repetition): a question event whose repeat_count reaches it, or this many
// questions of one type in a session.
const ClaraChronicRepetition = 5

// Question types of Clara's design (docs/presets.md, Clara: questions and
// repetition) and of prompts/clara/events.schema.json, as the trends batch
// counts them; anything else is general.
var claraQuestionTypes = aggregate.QuestionTypes

// claraQuestionTopics names question types as key_topics. The names describe
// what the questions were about, never how often they came back.
var claraQuestionTopics = map[string]string{
	"location": "location_confusion",
	"identity": "identity_confusion",
	"time":     "time_confusion",
	"activity": "activity_confusion",
	"person":   "asking_about_someone",
	"general":  "general_questions",
}

// Bounds of Clara's summary lists (the caps of prompts/clara/schema.json).
const (
	claraMaxTopics  = 8
	claraMaxAnchors = 10
	// claraTokenRunes and claraTokenWords bound a label taken from event
	// data (an emotion, a category, an anchor): anything longer is prose,
	// which may be the user's words, and is left out.
	claraTokenRunes = 40
	claraTokenWords = 3
	claraIDRunes    = 64
	// claraTextCategories bounds the narrative categories the summary names,
	// keeping it under the schema's 600 characters.
	claraTextCategories = 3
)

// claraRules summarises a Clara session from its events alone
// (docs/presets.md, Clara: session summary; Clara: questions and repetition;
// Clara: narratives): the session summary with its deterministic fields,
// and, when the session had question or narrative events, one repetition and
// one narrative_usage record keyed by the session.
//
// Clara's users live with dementia and the summary goes to their caregivers, so
// nothing here is taken from what the user typed: messages are only counted,
// and every value copied from event data must be a short label (see claraToken)
// or an ID. Fingerprints, which are normalised user text, are never copied. The
// summary describes what questions were about, not how often they came back
// (docs/presets.md, Clara: dementia-safe rules); the counts live in the
// repetition record, which is analytics only. Clara stores no memories and no
// profile, so p and now are not needed.
func claraRules(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	st := claraCollect(s)
	res.SessionSummary = st.summary(s)
	// A concern is a label, a date and a message id, never the words: it is
	// read in every message, those the screen withheld for the user's own
	// risk too ("I took all my tablets at once" is a concern and a crisis).
	if cs := claraFindConcerns(s.Unscreened()); len(cs) > 0 {
		list := make([]map[string]any, len(cs))
		for i, c := range cs {
			list[i] = map[string]any{"concern": c.Concern, "date": c.Date, "message_id": c.MessageID}
		}
		res.SessionSummary["concerns"] = list
		res.SessionSummary["summary"] = claraWithConcerns(res.SessionSummary["summary"].(string), cs)
	}
	if st.questions > 0 {
		res.Records = append(res.Records, extract.NewRecord(ClaraRepetition, s.ID, Repetition{
			QuestionTypes:            st.questionTypes,
			MaxRepeatCount:           st.maxRepeat(),
			ChronicRepetitionPattern: st.maxRepeat() >= ClaraChronicRepetition,
			Questions:                st.questions,
		}))
	}
	if len(st.uses) > 0 {
		uses := make([]NarrativeUse, len(st.uses))
		for i, u := range st.uses {
			uses[i] = NarrativeUse{NarrativeID: u.id, Mode: u.mode, Category: u.category, At: u.at, EmotionAtUsage: u.emotion}
		}
		res.Records = append(res.Records, extract.NewRecord(ClaraNarrativeUsage, s.ID, NarrativeUsage{Uses: uses, ByCategory: st.byCategory}))
	}
}

type claraUse struct {
	id, mode, category, at, emotion string
}

// claraStats is what a Clara session's events add up to.
type claraStats struct {
	emotions      []string // in time order
	emotionCount  map[string]int
	emotionConf   map[string]float64
	distressSum   float64
	distressN     int
	escalated     bool
	questions     int
	questionTypes map[string]int
	repeatMax     int
	uses          []claraUse
	categories    []string // narrative categories, in order of first use
	byCategory    map[string]int
	anchors       []string
	anchorSeen    map[string]bool
}

// claraCollect reads the events in time order. An event without a time
// keeps the place of the event sent before it, so that a chat service that
// leaves times out still gets its own order.
func claraCollect(s extract.Session) *claraStats {
	st := &claraStats{
		emotionCount:  map[string]int{},
		emotionConf:   map[string]float64{},
		questionTypes: map[string]int{},
		byCategory:    map[string]int{},
		anchorSeen:    map[string]bool{},
	}
	type timed struct {
		at time.Time
		e  extract.Event
	}
	events := make([]timed, len(s.Events))
	prev := s.StartedAt
	for i, e := range s.Events {
		if !e.At.IsZero() {
			prev = e.At
		}
		events[i] = timed{prev, e}
	}
	slices.SortStableFunc(events, func(a, b timed) int { return a.at.Compare(b.at) })

	// Events of one instant are read as a group, emotions first, so that a
	// narrative sees the emotion recorded at the same moment ("at or before").
	latest := ""
	for i := 0; i < len(events); {
		j := i
		for j < len(events) && events[j].at.Equal(events[i].at) {
			j++
		}
		group := events[i:j]
		for _, t := range group {
			if claraKind(t.e) == "emotion" {
				if emo := st.emotion(extract.EventData(t.e.Data)); emo != "" {
					latest = emo
				}
			}
		}
		for _, t := range group {
			d := extract.EventData(t.e.Data)
			switch claraKind(t.e) {
			case "question":
				st.question(d)
			case "narrative":
				st.narrative(t.e, d, latest)
			case "escalation":
				st.escalated = true
			}
		}
		i = j
	}
	return st
}

func claraKind(e extract.Event) string { return strings.ToLower(strings.TrimSpace(e.Type)) }

// emotion counts one emotion event and returns its emotion ("" when it has none).
func (st *claraStats) emotion(d map[string]any) string {
	if v, ok := num.Float(d["distress_score"]); ok && !math.IsNaN(v) {
		st.distressSum += min(max(v, 0), 1)
		st.distressN++
	}
	st.addAnchors(d)
	emo := claraToken(d["emotion"])
	if emo == "" {
		return ""
	}
	st.emotions = append(st.emotions, emo)
	st.emotionCount[emo]++
	if c, ok := num.Float(d["confidence"]); ok && !math.IsNaN(c) {
		st.emotionConf[emo] += min(max(c, 0), 1)
	}
	return emo
}

func (st *claraStats) question(d map[string]any) {
	st.questions++
	st.questionTypes[claraQuestionType(d["question_type"])]++
	if v, ok := num.Float(d["repeat_count"]); ok && v > 0 && !math.IsInf(v, 0) {
		st.repeatMax = max(st.repeatMax, int(math.Round(min(v, math.MaxInt32))))
	}
}

func (st *claraStats) narrative(e extract.Event, d map[string]any, emotion string) {
	u := claraUse{
		id:       claraID(d["narrative_id"]),
		mode:     claraMode(d["mode"]),
		category: claraCategory(d["category"]),
		emotion:  emotion,
	}
	if !e.At.IsZero() {
		u.at = e.At.UTC().Format(time.RFC3339)
	}
	st.uses = append(st.uses, u)
	if u.category != "" {
		if st.byCategory[u.category] == 0 {
			st.categories = append(st.categories, u.category)
		}
		st.byCategory[u.category]++
	}
	st.addAnchors(d)
}

// addAnchors takes the "anchors" and "tags" of event data: lists of short
// labels the chat service set (a narrative's theme tags, say), or one label.
func (st *claraStats) addAnchors(d map[string]any) {
	for _, field := range []string{"anchors", "tags"} {
		var vs []any
		switch v := d[field].(type) {
		case []any:
			vs = v
		case string:
			vs = []any{v}
		}
		for _, v := range vs {
			a := claraToken(v)
			k := extract.LabelKey(a)
			if k == "" || st.anchorSeen[k] || len(st.anchors) >= claraMaxAnchors {
				continue
			}
			st.anchorSeen[k] = true
			st.anchors = append(st.anchors, a)
		}
	}
}

// maxRepeat is the highest repeat count the events stated, or the count of
// the most asked question type when that is higher.
func (st *claraStats) maxRepeat() int {
	n := st.repeatMax
	for _, c := range st.questionTypes {
		n = max(n, c)
	}
	return n
}

// dominant is the most frequent emotion; a tie goes to the emotion with the
// higher total confidence, then to the first in alphabetical order. When
// several emotions were seen once each, none dominated and none is claimed
// (nil): a caregiver would read "dominant: calm" as a pattern.
func (st *claraStats) dominant() any {
	if len(st.emotionCount) > 1 && !slices.ContainsFunc(slices.Collect(maps.Values(st.emotionCount)), func(n int) bool { return n > 1 }) {
		return nil
	}
	best := ""
	for emo, n := range st.emotionCount {
		if best == "" {
			best = emo
			continue
		}
		bn := st.emotionCount[best]
		switch {
		case n > bn:
			best = emo
		case n == bn && st.emotionConf[emo] > st.emotionConf[best]:
			best = emo
		case n == bn && st.emotionConf[emo] == st.emotionConf[best] && emo < best:
			best = emo
		}
	}
	if best == "" {
		return nil
	}
	return best
}

// topQuestionType is the most asked question type, a tie going to the first
// in the order of claraQuestionTypes.
func (st *claraStats) topQuestionType() string {
	best, bn := "", 0
	for _, t := range claraQuestionTypes {
		if n := st.questionTypes[t]; n > bn {
			best, bn = t, n
		}
	}
	return best
}

// keyTopics are the question types seen, most asked first, then the
// narrative categories used, most used first.
func (st *claraStats) keyTopics() []string {
	topics := []string{}
	qt := slices.Clone(claraQuestionTypes)
	slices.SortStableFunc(qt, func(a, b string) int { return cmp.Compare(st.questionTypes[b], st.questionTypes[a]) })
	for _, t := range qt {
		if st.questionTypes[t] > 0 {
			topics = append(topics, claraQuestionTopics[t])
		}
	}
	cats := slices.Clone(st.categories)
	slices.SortStableFunc(cats, func(a, b string) int { return cmp.Compare(st.byCategory[b], st.byCategory[a]) })
	for _, c := range cats {
		if !slices.Contains(topics, c) {
			topics = append(topics, c)
		}
	}
	if len(topics) > claraMaxTopics {
		topics = topics[:claraMaxTopics]
	}
	return topics
}

func (st *claraStats) summary(s extract.Session) map[string]any {
	users := 0
	for _, m := range s.Messages {
		if extract.IsUser(m.Role) {
			users++
		}
	}
	arc := ""
	if n := len(st.emotions); n > 0 {
		arc = st.emotions[0] + " → " + st.emotions[n-1]
	}
	var distress any
	if st.distressN > 0 {
		distress = math.Round(st.distressSum/float64(st.distressN)*1000) / 1000
	}
	anchors := st.anchors
	if anchors == nil {
		anchors = []string{}
	}
	minutes := extract.SessionMinutes(s)
	return map[string]any{
		"summary":              st.text(minutes, len(s.Messages), users),
		"key_topics":           st.keyTopics(),
		"emotional_arc":        arc,
		"notable_anchors":      anchors,
		"dominant_emotion":     st.dominant(),
		"escalation_triggered": st.escalated,
		"duration_minutes":     minutes,
		"message_count":        len(s.Messages),
		"user_message_count":   users,
		"average_distress":     distress,
		"narratives_used":      len(st.uses),
	}
}

// text is the caregiver's summary: fixed sentences filled with counts and
// labels, in the manner of Clara's design (docs/presets.md, Clara: session
// summary), never a word the user typed.
func (st *claraStats) text(minutes, messages, users int) string {
	var b strings.Builder
	b.WriteString("A ")
	if minutes > 0 {
		b.WriteString(strconv.Itoa(minutes) + "-minute ")
	}
	if messages == 0 {
		b.WriteString("session with no messages.")
	} else {
		b.WriteString("session of " + extract.Count(messages, "message", "messages") + ", " + strconv.Itoa(users) + " from the user.")
	}

	if n := len(st.emotions); n > 0 {
		first, last := st.emotions[0], st.emotions[n-1]
		dom, _ := st.dominant().(string)
		switch {
		case len(st.emotionCount) == 1:
			b.WriteString(" The user seemed " + first + " throughout.")
		case first != last:
			b.WriteString(" The user seemed " + first + " at first and " + last + " by the end")
			if dom != "" && dom != first && dom != last {
				b.WriteString(", most often " + dom)
			}
			b.WriteString(".")
		default:
			b.WriteString(" The user seemed " + first + " at the start and at the end")
			if dom != first {
				b.WriteString(", most often " + dom)
			}
			b.WriteString(".")
		}
	} else {
		b.WriteString(" No emotions were recorded.")
	}

	if t := st.topQuestionType(); t != "" {
		if t == "general" {
			b.WriteString(" The user's questions were general.")
		} else {
			b.WriteString(" The user's questions were mostly about " + claraAbout[t] + ".")
		}
	}

	if n := len(st.uses); n > 0 {
		b.WriteString(" Clara shared " + extract.Count(n, "narrative", "narratives"))
		if len(st.categories) > 0 {
			var names []string
			for _, c := range st.categories[:min(len(st.categories), claraTextCategories)] {
				names = append(names, strings.ReplaceAll(c, "_", " "))
			}
			if more := len(st.categories) - len(names); more > 0 {
				names = append(names, extract.Count(more, "more", "more"))
			}
			b.WriteString(" (" + strings.Join(names, ", ") + ")")
		}
		b.WriteString(".")
	}

	if st.escalated {
		b.WriteString(" A safety escalation was triggered.")
	} else {
		b.WriteString(" No escalation.")
	}
	return b.String()
}

// claraAbout says what a question type is about, for the summary.
var claraAbout = map[string]string{
	"location": "where they were",
	"identity": "who people were",
	"time":     "the day and time",
	"activity": "what was happening",
	"person":   "someone they know",
}

// claraQuestionType normalises a question event's type; an unknown or
// missing one is general.
func claraQuestionType(v any) string {
	t := strings.ToLower(strings.TrimSpace(extract.Text(v)))
	if slices.Contains(claraQuestionTypes, t) {
		return t
	}
	return "general"
}

// claraMode is "seed" or "fallback" (docs/presets.md, Clara: narratives), or
// "" for anything else.
func claraMode(v any) string {
	switch m := strings.ToLower(strings.TrimSpace(extract.Text(v))); m {
	case "seed", "fallback":
		return m
	}
	return ""
}

// claraCategory is a narrative category in snake_case ("calming_story").
func claraCategory(v any) string {
	return strings.Join(strings.FieldsFunc(claraToken(v), func(r rune) bool { return r == ' ' || r == '-' || r == '_' }), "_")
}

// claraToken is a short label from event data: lower case, letters, digits,
// spaces, '_' and '-' only, at most claraTokenWords words and
// claraTokenRunes runes, and nothing Sensitive. Anything else is "": a
// longer value is prose, and prose in Clara's data may be the user's words.
func claraToken(v any) string {
	s := extract.Label(v)
	if s == "" || utf8.RuneCountInString(s) > claraTokenRunes || len(strings.Fields(s)) > claraTokenWords {
		return ""
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' && r != '_' && r != '-' {
			return ""
		}
	}
	if !extract.HasAlnum(s) {
		return ""
	}
	return s
}

// claraID is a narrative ID as the Narrative Library spells it: ASCII
// letters, digits and "_.:-", at most claraIDRunes long; "" otherwise.
func claraID(v any) string {
	s, _ := v.(string)
	s = strings.TrimSpace(s)
	if s == "" || len(s) > claraIDRunes {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.:-", r)) {
			return ""
		}
	}
	if _, bad := extract.Sensitive(s); bad {
		return ""
	}
	return s
}

// Caregiver concerns (issue 23): what the user's own words say a caregiver
// should know of. Each is a fixed label, the message it was said in and a
// date, never the words: the label names the kind of concern only.
const (
	// ConcernOverdose: many tablets taken at once ("I took all my tablets
	// at once"). It is also a risk (RiskExtras): an overdose now.
	ConcernOverdose   = "medication_overdose"
	ConcernFall       = "fall"
	ConcernPain       = "pain"
	ConcernNotEating  = "not_eating"
	ConcernMedication = "medication_confusion"
	// ConcernStoppedMedication: the user stopped a medicine of their own
	// accord ("I stopped the water tablets"), which a caregiver follows up
	// apart from confusion about it (issue 33).
	ConcernStoppedMedication = "stopped_medication"
	ConcernLost              = "getting_lost"
	ConcernStrangerAtDoor    = "stranger_at_door"
	ConcernScam              = "scam"
	ConcernUnwell            = "feeling_unwell"
	ConcernSleep             = "poor_sleep"
)

// ClaraConcerns lists the concern labels, in the order a summary names them:
// too much medication at once first (issue 32), as the most urgent. The
// six after it are issue 23's; a caller after money or a password (scam),
// new symptoms (dizziness, swelling, shaking) and broken nights are what a
// caregiver follows up as well.
var ClaraConcerns = []string{ConcernOverdose, ConcernFall, ConcernPain, ConcernNotEating, ConcernMedication, ConcernStoppedMedication, ConcernLost, ConcernStrangerAtDoor, ConcernScam, ConcernUnwell, ConcernSleep}

// claraConcernWords say a concern in the summary's text.
var claraConcernWords = map[string]string{
	ConcernOverdose:          "taking too much medication at once",
	ConcernFall:              "a fall",
	ConcernPain:              "pain",
	ConcernNotEating:         "not eating",
	ConcernMedication:        "confusion about their medication",
	ConcernStoppedMedication: "stopping a medicine",
	ConcernLost:              "getting lost",
	ConcernStrangerAtDoor:    "a stranger at the door",
	ConcernScam:              "a caller after money or personal details",
	ConcernUnwell:            "feeling unwell",
	ConcernSleep:             "poor sleep",
}

// The concerns' lexicons. claraMeds names medication, claraBody a part of
// the body that hurts, claraMeal a meal, claraStranger a person the user
// does not name, claraNumber a small hour of the night.
const (
	claraMeds     = `(?:pills?|medicine|medicines|medication|medications|meds|tablets?|prescriptions?|insulin|dose|doses|capsules?|inhaler|pill\s*box|pill\s*organi[sz]er|dosette(?:\s+box)?|blister\s+pack|painkillers?|statins?|antibiotics?|paracetamol|aspirin|warfarin|injections?)`
	claraMedsThe  = `(?:(?:my|the|these|those|them|this|that|his|her)\s+)?(?:\w+\s+){0,2}?` + claraMeds
	claraBody     = `(?:hips?|knees?|back|legs?|feet|foot|arms?|shoulders?|neck|head|tummy|stomach|belly|chest|hands?|wrists?|ankles?|toes?|fingers?|teeth|tooth|ears?|eyes?|joints|bones|side|ribs?|bottom|hip\s+joint)`
	claraMeal     = `(?:breakfast|lunch|dinner|supper|tea|a\s+meal|meals|anything|a\s+bite|food|a\s+proper\s+meal|something\s+to\s+eat)`
	claraStranger = `(?:strangers?|(?:a|an|some|this|that)\s+(?:young\s+|old\s+|strange\s+|big\s+|tall\s+|odd\s+)?(?:man|woman|person|guy|lady|chap|fellow|bloke|lad|men|people|couple)|someone|somebody)`
	claraNight    = `(?:one|two|three|four|1|2|3|4)(?:\s+o'clock|\s*am)?`
	// claraOwnMeds is the user's medication: "my tablets", "the little
	// white pills", "a week's tablets".
	claraOwnMeds = `(?:(?:my|the|these|those)\s+)?(?:[a-z']+\s+){0,2}?` + claraMeds
)

// claraStopped is the user stopping a medicine of their own accord: "I
// stopped the water tablets", "I've stopped taking my statins", "I'm not
// taking the blood pressure pills any more", "I came off my tablets", "I
// threw them in the bin". The doctor stopping one is no concern of this
// kind. Read on a lower-cased sentence with straight apostrophes.
const claraStopped = `(?:^|\bi(?:'ve|\s+have)?\s+|\band\s+(?:i\s+)?|\bso\s+i\s+)(?:just\s+|simply\s+|finally\s+|decided\s+to\s+)?` +
	`(?:stopped|stop|quit|gave\s+up|given\s+up|came\s+off|come\s+off|packed\s+in|binned|threw\s+away|thrown\s+away)\s+(?:taking\s+|having\s+|using\s+)?` + claraMedsThe +
	`|\bi(?:'ve|\s+have)?\s+(?:stopped|quit|given\s+up)\s+(?:taking\s+)?(?:them|it|those|these)\b` +
	`|\bi(?:'m|\s+am)\s+(?:not\s+(?:taking|bothering\s+with|having)|off)\s+` + claraMedsThe + `(?:\s+\w+){0,3}?\s+(?:any\s*more|now|these\s+days)\b` +
	`|\bi\s+(?:don't|do\s+not|won't|will\s+not|refuse\s+to)\s+take\s+(?:them|it|` + claraMedsThe + `)\s+(?:any\s*more|now|these\s+days)\b` +
	`|\bi\s+(?:threw|put|chucked|tipped|flushed)\s+(?:them|it|` + claraMedsThe + `)\s+(?:away|in\s+the\s+bin|down\s+the\s+(?:sink|toilet|loo))\b` +
	`|\bi(?:\s+haven't|\s+have\s+not|'ve\s+not|\s+have\s+stopped|'ve\s+stopped)\s+been\s+taking\s+` + claraMedsThe +
	`|\bi\s+(?:don't|do\s+not|can't\s+be\s+bothered\s+to)\s+(?:bother\s+(?:with|taking)\s+)?(?:take\s+)?` + claraMedsThe + `\s+(?:\w+\s+)?(?:any\s*more|these\s+days)\b` +
	`|\bi(?:'m|\s+am)\s+not\s+(?:going\s+to|gonna)\s+take\s+` + claraMedsThe + `|\bi\s+(?:refuse|won't|will\s+not)\s+(?:to\s+)?take\s+` + claraMedsThe

// claraOverdose is the user taking many tablets at once, now or just now:
// all of them at once or in one go, a whole box or a week's worth, too many,
// a handful. Read on a lower-cased sentence with straight apostrophes (a
// concern) and on the risk screen's folded text (RiskExtras). Taking all of
// one's tablets is no overdose without "at once": "I took all my tablets
// this morning as usual" is the day's dose.
const claraOverdose = `\b(?:i|and)(?:'ve|\s+have)?\s+(?:just\s+|accidentally\s+|gone\s+and\s+|went\s+and\s+)?(?:took|taken|swallowed|had)\s+(?:` +
	`(?:all|all\s+of|every\s+one\s+of|the\s+lot\s+of)\s+` + claraOwnMeds + `\s+(?:[a-z']+\s+){0,2}?(?:all\s+)?(?:at\s+once|in\s+one\s+go)` +
	`|(?:the\s+whole|a\s+whole|the\s+entire|a\s+full)\s+(?:(?:box|packet|pack|bottle|tub|strip|jar|week's|month's|fortnight's)(?:\s+worth)?\s+(?:of\s+)?` + claraOwnMeds +
	`|dosette(?:\s+box)?|pill\s*box|pill\s*organi[sz]er|blister\s+pack)` +
	`|(?:far\s+|way\s+|much\s+)?too\s+many\s+(?:of\s+)?` + claraOwnMeds +
	`|(?:a\s+handful|handfuls|a\s+load|loads)\s+of\s+` + claraOwnMeds +
	`)\b`

// claraOverdoseNot is what makes an overdose's words the day's dose or
// someone else's tablets: as usual, as prescribed, his or her tablets.
const claraOverdoseNot = `\b(?:as\s+usual|like\s+always|as\s+always|as\s+normal|like\s+every\s+(?:day|morning|night)|as\s+prescribed|as\s+i\s+should|as\s+the\s+doctor\s+said)\b|\b(?:all|every\s+one\s+of|too\s+many\s+of|the\s+lot\s+of|whole\s+[a-z']+\s+of)\s+(?:his|her|their)\b`

// claraOverdoseIntent is a wish to die beside an overdose: suicidal, not
// only a substance emergency.
const claraOverdoseIntent = `\b(?:on\s+purpose|so\s+(?:that\s+)?i\s+(?:wouldn't|would\s+not|won't|will\s+not|don't|do\s+not)\s+wake|never\s+wake\s+up|to\s+die|want(?:ed)?\s+to\s+die|to\s+end\s+(?:it|it\s+all|my\s+life|things)|be\s+done\s+with\s+(?:it|everything|life)|don't\s+want\s+to\s+(?:be\s+here|live|go\s+on)|can't\s+go\s+on|so\s+i\s+(?:can|could)\s+be\s+with)\b`

var claraOverdoseNotRe = regexp.MustCompile(claraOverdoseNot)

// RiskExtras: many tablets taken at once is an overdose now, a substance
// emergency of high severity (docs/safety.md: over-use, "the whole box");
// with a wish to die beside it, suicidal, high (an attempt). Read in
// Clara's messages only, where "my tablets" are an older person's
// prescription; the core lexicons read the other apps'.
func (kindClara) RiskExtras() []extract.RiskPhrasing { return riskExtras }

var riskExtras = []extract.RiskPhrasing{
	extract.Phrasing(extract.RiskSubstance, extract.SeverityHigh, claraOverdose).Except(claraOverdoseNot),
	extract.Phrasing(extract.RiskSuicidal, extract.SeverityHigh, claraOverdose).Except(claraOverdoseNot).Also(claraOverdoseIntent),
}

// claraConcernRes find a concern in a sentence of the user's, lower-cased
// and with straight apostrophes. Each says the user's own: a fall or pain
// of someone else ("my husband fell") is not the user's concern. "and" may
// stand for the user ("I walked to the shops and couldn't find my way").
var claraConcernRes = []struct {
	kind string
	re   *regexp.Regexp
	// negatable: a negation before the match unsays it ("I didn't fall");
	// the patterns of not eating and of medication confusion hold their
	// negation themselves.
	negatable bool
}{
	{ConcernOverdose, regexp.MustCompile(claraOverdose), true},
	{ConcernFall, regexp.MustCompile(`\bi\s+(?:just\s+|nearly\s+|almost\s+)?(?:fell|fall|tripped|stumbled|slipped|keep\s+falling|have\s+fallen|(?:had|took)\s+(?:a\s+bit\s+of\s+)?a\s+(?:bad\s+|little\s+|nasty\s+|small\s+|slight\s+)?(?:fall|tumble))\b(?:\s+(down|over|in|on|at|out|off|and|by|near|when|while|yesterday|today|last|this|again|hard|onto|into))?|\bi've\s+(?:had\s+(?:a\s+bit\s+of\s+)?a\s+(?:bad\s+|little\s+|nasty\s+|small\s+|slight\s+)?(?:fall|tumble)|fallen|taken\s+(?:a\s+bit\s+of\s+)?a\s+(?:bad\s+|little\s+|nasty\s+)?tumble)\b|^\W*(?:had|took)\s+(?:a\s+bit\s+of\s+)?a\s+(?:bad\s+|little\s+|nasty\s+|small\s+|slight\s+)?(?:fall|tumble)\b|\b(?:woke|woken|came\s+to|found\s+myself|ended\s+up|was\s+lying|been\s+lying)\s+(?:up\s+)?on\s+the\s+(?:floor|ground|carpet|bathroom\s+floor|kitchen\s+floor)\b|\b(?:i|and)\s+(?:couldn't|could\s+not|can't|cannot)\s+get\s+(?:back\s+)?up\s+(?:off|from)\s+the\s+(?:floor|ground)\b|\bmy\s+(?:legs?|knees?)\s+(?:gave\s+way|went\s+from\s+under\s+me|gave\s+out)\b` +
		`|\b(?:i|and)\s+(?:went\s+over\s+on\s+my\s+(?:ankle|foot)|went\s+flying|came\s+a\s+cropper|lost\s+my\s+(?:footing|balance)\s+and|missed\s+(?:a|the|my)\s+(?:step|footing)|went\s+down\s+(?:hard|in\s+the|on\s+the))\b|\bi(?:'ve|\s+have)\s+been\s+on\s+the\s+floor\b|\b(?:i|and)\s+lost\s+my\s+(?:balance|footing)\b|\bi\s+went\s+over\s+(?:in|on|outside|at|by|near|again|backwards|sideways|in\s+the)\b|\bdown\s+i\s+went\b|\bi(?:'ve|\s+have)\s+had\s+(?:another\s+|a\s+couple\s+of\s+|two\s+)(?:falls?|tumbles?)\b`), true},
	{ConcernPain, regexp.MustCompile(`\bmy\s+(?:\w+\s+)?(?:hurts?|is\s+(?:hurting|sore|aching|throbbing|killing\s+me)|aches?|are\s+(?:hurting|sore|aching|throbbing|killing\s+me))\b|\bmy\s+(?:\w+\s+)?` + claraBody + `\s+(?:is|are|has\s+been|have\s+been|feels?|keeps?|was|were)\s+(?:\w+\s+){0,2}?(?:sore|aching|hurting|throbbing|painful|agony|killing\s+me|giving\s+me\s+(?:gyp|jip|grief|trouble))\b|\bi(?:'m|\s+am)\s+in\s+(?:so\s+much\s+|a\s+lot\s+of\s+|terrible\s+|bad\s+|awful\s+|such\s+)?(?:pain|agony)\b|\bi(?:\s+have|'ve|\s+got|'ve\s+got|\s+have\s+got|'ve\s+had|\s+had)\s+(?:a\s+|an\s+|such\s+a\s+)?(?:terrible\s+|bad\s+|awful\s+|sharp\s+|dreadful\s+|nasty\s+|horrible\s+)?(?:pain|pains|headache|toothache|stomach\s*ache|tummy\s*ache|backache|earache|sore\s+\w+)\b|\bmy\s+(?:\w+\s+)?` + claraBody + `(?:'s|\s+is|\s+are|'re|\s+has|\s+have|'ve)?\s+(?:been\s+|really\s+|ever\s+so\s+|so\s+|properly\s+|still\s+)*(?:killing\s+me|playing\s+(?:me\s+)?up|acting\s+up|giving\s+me\s+(?:gyp|jip|grief|trouble|hell|what\s+for)|murdering\s+me|sore|aching|hurting|throbbing|painful|agony|bad|terrible|awful|stiff)\b|\bi(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+in\s+(?:\w+\s+){0,2}?(?:pain|agony)\b|\b(?:terrible|awful|bad|sharp|nasty|dreadful)\s+pains?\s+in\s+my\s+` + claraBody + `\b|\bi(?:'ve|\s+have)?\s+(?:got\s+)?(?:a\s+|such\s+a\s+)?(?:bad|sore|painful|dodgy|gammy|stiff|aching)\s+` + claraBody + `\b|\bmy\s+(?:arthritis|sciatica|gout|rheumatism|lumbago|migraine|neuralgia)(?:'s|\s+is|\s+has\s+been)\s+(?:\w+\s+)?(?:playing\s+(?:me\s+)?up|acting\s+up|flaring(?:\s+up)?|bad|terrible|awful|killing\s+me|giving\s+me\s+(?:gyp|jip|grief|trouble))\b|\bmy\s+head(?:'s|\s+is)\s+(?:pounding|throbbing|splitting|banging)\b|\bit\s+hurts\b|\beverything\s+hurts\b|\bi(?:'m|\s+am)\s+(?:so\s+|ever\s+so\s+|very\s+|really\s+)?(?:sore|aching)\b|\bi\s+ache\s+all\s+over\b`), true},
	{ConcernNotEating, regexp.MustCompile(`\bi\s+(?:haven't|have\s+not|havent|didn't|did\s+not|didnt|can't|cannot|cant|couldn't|don't|do\s+not|dont)\s+(?:eaten|eat|had\s+` + claraMeal + `)\b|\bi(?:'ve|\s+have)\s+not\s+(?:eaten|had\s+(?:my\s+|any\s+)?` + claraMeal + `)\b|\bi\s+(?:forgot|forget|keep\s+forgetting)\s+to\s+eat\b|\bi(?:'m|\s+am)\s+not\s+eating\b|\b(?:no|lost\s+my|lost\s+all\s+my)\s+appetite\b|\boff\s+my\s+food\b|\bnothing\s+to\s+eat\b|\bi\s+(?:don't|do\s+not|dont|haven't|have\s+not|didn't|did\s+not)\s+(?:felt|feel)\s+like\s+(?:eating|food)\b|\b(?:skipped|missed)\s+(?:my\s+)?(?:breakfast|lunch|dinner|supper|tea|meals?)\b|\b(?:only|just)\s+(?:been\s+)?eating\s+(?:only\s+|just\s+)?(?:toast|biscuits|crackers|cake|bread|soup|sweets|tea)\b|\beating\s+(?:only|nothing\s+but)\b|\bi\s+(?:can't|cannot|cant)\s+be\s+bothered\s+(?:to\s+)?(?:cook|eat|make\s+(?:a\s+)?(?:meal|food|dinner|lunch))\b|\bi(?:'m|\s+am)\s+never\s+hungry\b`), false},
	{ConcernMedication, regexp.MustCompile(`\b(?:(?:don't|do\s+not|dont)\s+think|not\s+sure(?:\s+if|\s+whether|\s+that)?)\s+i\s+(?:took|had|'ve\s+(?:taken|had)|have\s+(?:taken|had))\s+` + claraMedsThe + `|\b(?:can't|cannot|cant|don't|do\s+not|dont|couldn't)\s+(?:remember|recall|know|tell)\s+(?:if|whether|when|what|which)\s+(?:i\s+)?(?:took|take|had|have\s+taken|'ve\s+taken|already\s+took)?\s*` + claraMedsThe + `|\bdid\s+i\s+(?:take|have)\s+` + claraMedsThe + `|\bi\s+(?:forgot|forget|keep\s+forgetting)\s+(?:to\s+take\s+|about\s+)?` + claraMedsThe + `|\b(?:took|take|taken)\s+` + claraMedsThe + `\s+twice\b|\bwhat\s+(?:are|is)\s+` + claraMedsThe + `\s+for\b|\b(?:which|what)\s+(?:\w+\s+)?` + claraMeds + `\s+(?:do\s+i|am\s+i|should\s+i|are\s+(?:they|these|those|for)|is\s+(?:it|this|that|for))\b|\b` + claraMeds + `\b[^.]*\b(?:mixed\s+up|muddled|confused|don't\s+know\s+which|not\s+sure\s+(?:if|whether|which))|\b(?:mixed\s+up|muddled|confused)\s+(?:about\s+|with\s+)?` + claraMedsThe + `|\b(?:couldn't|can't|cannot|could\s+not)\s+(?:work\s+out|figure\s+out|understand|make\s+sense\s+of|manage|open|read)\s+` + claraMedsThe + `|\b` + claraMeds + `\b[^.]*\b(?:so\s+)?i\s+(?:didn't|did\s+not|haven't|have\s+not)\s+(?:take|taken)\s+(?:any|them|it)\b` +
		`|\bi(?:'ve|\s+have)?\s+(?:ran|run|running)\s+out\s+of\s+` + claraMedsThe + `|\b(?:can't|cannot|couldn't|can\s+not)\s+find\s+` + claraMedsThe +
		`|\bi\s+(?:missed|skipped|forgot)\s+` + claraMedsThe + `|\b(?:took|taken|had)\s+(?:a\s+)?double\s+(?:dose|` + claraMeds + `)|\bdoubled\s+up\s+on\s+` + claraMedsThe +
		`|\bi\s+(?:may|might|must)\s+have\s+(?:taken|had)\s+(?:them|it|` + claraMedsThe + `)\s+twice\b`), false},
	{ConcernStoppedMedication, regexp.MustCompile(claraStopped), true},
	{ConcernLost, regexp.MustCompile(`\b(?:i|and)\s+(?:got|get|was|am|'m|feel|felt|keep\s+getting|went|go)\s+(?:so\s+|very\s+|completely\s+|a\s+bit\s+|all\s+)?lost\b|\bi'm\s+(?:so\s+|very\s+|completely\s+|a\s+bit\s+)?lost\b|\b(?:i|and)\s+(?:couldn't|can't|could\s+not|cannot|cant)\s+(?:find|remember)\s+(?:my\s+way|the\s+way|my\s+(?:house|home|street|flat|road|room|front\s+door)|home|where\s+i\s+(?:lived?|was))\b|\b(?:i|and)\s+(?:don't|do\s+not|dont|didn't|did\s+not)\s+know\s+(?:where\s+i\s+(?:am|was)|how\s+to\s+get\s+(?:home|back)|the\s+way\s+(?:home|back))\b|\b(?:i|and)\s+(?:wandered|walked)\s+(?:off|away|too\s+far)\b|\b(?:i|and)\s+(?:ended\s+up|found\s+myself|woke\s+up)\s+(?:at|in|on)\s+the\s+wrong\s+\w+|\b(?:got\s+on|took)\s+the\s+wrong\s+(?:bus|train)\b|\b(?:found|brought|walked|took|drove|fetched)\s+me\s+(?:back\s+)?(?:home|back|wandering|in\s+the\s+(?:street|road|park)|outside|down\s+the\s+road)\b|\bi\s+(?:went|go|was)\s+(?:out\s+)?(?:wandering|walking\s+about)\s+(?:in|at|during)\s+the\s+night\b|\bi\s+went\s+out\s+in\s+the\s+(?:night|middle\s+of\s+the\s+night|dark)\b`), true},
	{ConcernStrangerAtDoor, regexp.MustCompile(`\b` + claraStranger + `\b[^.]*\b(?:door|doorbell|doorstep|bell|knock|knocked|knocking|knocks|window|windows|garden|porch|letterbox|gate)\b|\b(?:knock(?:ed|ing)?|rang|ringing|banging)\b[^.]*\bdoor\b[^.]*\b(?:don't|didn't|do\s+not|did\s+not)\s+know\b`), true},
	{ConcernScam, regexp.MustCompile(`\b(?:said|says|claimed|claiming|told\s+me)\s+(?:s?he|they|it|he'd|she'd)\s+(?:was|were|is|are|'s|was\s+calling|were\s+calling)\s+(?:calling\s+)?(?:from|with)\s+(?:the\s+|my\s+)?(?:bank|police|council|gas|electric|electricity|water|tax|taxman|revenue|post\s+office|microsoft|computer|pension)\b|\b(?:asked|asking|wanted|needed|needs|wants|asks)\s+(?:me\s+)?(?:for\s+)?(?:my\s+)?(?:password|pin|pin\s+number|bank\s+details|card\s+(?:number|details)|account\s+(?:number|details)|security\s+(?:number|code))\b|\bi\s+(?:told|gave|read\s+out\s+to)\s+(?:him|her|them|the\s+\w+)\s+my\s+(?:password|pin|bank|card|account|security)\b|\b(?:asked|asking|wanted|wants)\s+(?:me\s+)?for\s+(?:money|cash|a\s+payment)\b|\bfor\s+cash\s+(?:today|now|up\s+front|upfront)\b|\b(?:pay|paid)\s+(?:him|her|them)\s+(?:cash\s+)?(?:up\s*front|in\s+cash)\b|\bi(?:'ve|\s+have)\s+won\s+a\s+(?:prize|lottery)\b`), true},
	{ConcernUnwell, regexp.MustCompile(`\bi(?:'m|\s+am|'ve\s+been|\s+have\s+been|\s+feel|\s+felt|\s+keep|\s+get|\s+got|\s+went|\s+was|\s+keep\s+getting|\s+keep\s+feeling)\s+(?:getting\s+|feeling\s+|going\s+|so\s+|very\s+|a\s+bit\s+|all\s+|really\s+|ever\s+so\s+)*(?:dizzy|light-?headed|faint|giddy|woozy|breathless|short\s+of\s+breath|poorly|unwell|queasy|feverish|shaky|wobbly\s+on\s+my\s+feet)\b|\bmy\s+(?:legs?|ankles?|feet|hands?|fingers?|arms?|face)\s+(?:are|is|have\s+been|has\s+been|keep|keeps|got|get|went)\s+(?:all\s+|so\s+|very\s+|really\s+|a\s+bit\s+)?(?:swollen|swelling\s+up|swelling|shaking|shaky|numb|trembling|tingling|puffy|blue)\b|\bmy\s+(?:hands?|legs?|arms?)\s+(?:shakes?|trembles?|won't\s+stop\s+shaking)\b|\bthe\s+room\s+(?:is\s+|keeps\s+|was\s+|starts\s+|started\s+)?(?:spinning|going\s+round)\b|\bi\s+(?:can't|cannot|couldn't)\s+(?:catch\s+my\s+breath|breathe\s+properly|stop\s+shaking)\b|\bi\s+(?:was|have\s+been|'ve\s+been|keep)\s+(?:being\s+)?sick\b|\bi\s+(?:blacked|passed)\s+out\b`), true},
	{ConcernSleep, regexp.MustCompile(`\bi\s+(?:can't|cannot|cant|couldn't|could\s+not|don't|didn't|do\s+not|did\s+not|haven't|have\s+not)\s+(?:get\s+(?:to\s+)?|go\s+to\s+|been\s+(?:able\s+to\s+)?|slept|sleep|sleeping)?(?:sleep|slept|sleeping)\b|\bi(?:'m|\s+am|\s+was|'ve\s+been|\s+have\s+been)\s+(?:up|awake|wide\s+awake)\s+(?:at\s+` + claraNight + `\b|all\s+night|half\s+the\s+night|most\s+of\s+the\s+night|in\s+the\s+night|every\s+night|till\s+(?:dawn|morning|` + claraNight + `))|\b(?:no|hardly\s+any|barely\s+any|not\s+a\s+wink\s+of)\s+sleep\b|\bi\s+(?:hardly|barely|never)\s+(?:sleep|slept)\b|\b(?:lying|lie|lay)\s+awake\b|\bi\s+(?:keep\s+)?wak(?:e|ing)\s+up\s+(?:at\s+` + claraNight + `|all\s+night|every\s+hour|in\s+the\s+night)\b`), false},
}

// claraConcernNot are the phrases that make a match something else: a
// tumble dryer, falling asleep or in love, a joke that fell flat, pain of the heart in a song.
var claraConcernNot = regexp.MustCompile(`\btumble[\s-]*(?:dryer|drier)s?\b|\b(?:fell|fall|falling)\s+(?:asleep|in\s+love|for|behind|apart|through|short|flat|silent)\b|\bslipped\s+my\s+mind\b|\bhurts?\s+my\s+feelings\b|\b(?:my|the)\s+(?:feelings?|heart|pride)\s+(?:hurts?|is)\b|\bsick\s+(?:of|and\s+tired)\b|\b(?:asked|asking|wanted|wants)\s+(?:me\s+)?for\s+(?:money|cash)\s+for\s+(?:the\s+)?(?:church|raffle|charity|the\s+club|my\s+birthday)\b`)

// claraConcernPast marks a sentence about long ago, not a concern now.
var claraConcernPast = regexp.MustCompile(`\b(?:years|decades)\s+ago\b|\bwhen\s+i\s+was\s+(?:a\s+|young|little|small|\d)|\bas\s+a\s+(?:child|girl|boy)\b|\bused\s+to\b|\bin\s+the\s+war\b`)

// claraStrangerKnown are people the user knows, who at the door are no
// stranger ("my son came to the door").
var claraStrangerKnown = regexp.MustCompile(`\b(?:my|our)\s+(?:son|daughter|husband|wife|carer|caregiver|nurse|neighbou?r|friend|grandson|granddaughter|sister|brother|nephew|niece|daughter-in-law|son-in-law|cleaner|doctor)\b|\bthe\s+(?:nurse|carer|postman|postwoman|mailman|milkman|doctor|district\s+nurse|window\s+cleaner)\b|\bnever\s+(?:to\s+)?open\b`)

// ClaraConcern is a concern found in a user's message.
type ClaraConcern struct {
	Concern   string `json:"concern"`
	Date      string `json:"date"`
	MessageID string `json:"message_id"`
}

// claraFindConcerns reads the user's messages, questions included (a
// person with dementia asks "did I take my pills?"), for caregiver
// concerns: one per concern and message. Its date is the day it was said,
// in the session's zone, or the earlier day the sentence names ("I fell
// yesterday"). A negated one ("I didn't fall"), someone else's and one of
// long ago are left out, as are sentences with sensitive data.
func claraFindConcerns(s extract.Session) []ClaraConcern {
	loc := extract.SessionZone(s.Timezone)
	var out []ClaraConcern
	for _, msg := range s.Messages {
		if !extract.IsUser(msg.Role) {
			continue
		}
		at := msg.At
		if at.IsZero() {
			at = extract.SessionEnd(s)
		}
		y, m, d := at.In(loc).Date()
		today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		found := map[string]bool{}
		content := extract.StraightApostrophes(strings.ToValidUTF8(msg.Content, "\uFFFD"))
		for _, sent := range grammar.Sentences(content) {
			if _, bad := extract.Sensitive(sent.Text); bad {
				continue
			}
			lower := strings.ToLower(sent.Text)
			if claraConcernPast.MatchString(lower) {
				continue
			}
			for _, c := range claraConcernRes {
				if found[c.kind] {
					continue
				}
				// The first match that is no idiom and no negation counts
				// ("I fell asleep in the chair and woke up on the floor").
				var loc2 []int
				for _, m := range c.re.FindAllStringIndex(lower, -1) {
					if claraConcernNot.MatchString(lower[m[0]:min(len(lower), m[1]+24)]) {
						continue
					}
					before := grammar.LowerWords(lower[:m[0]])
					if c.negatable && grammar.Negated(before[max(len(before)-4, 0):]) {
						continue
					}
					loc2 = m
					break
				}
				if loc2 == nil {
					continue
				}
				if c.kind == ConcernStrangerAtDoor && claraStrangerKnown.MatchString(lower) {
					continue
				}
				if c.kind == ConcernOverdose && claraOverdoseNotRe.MatchString(lower) {
					continue
				}
				date := today
				// "I fell yesterday" dates the fall; "I haven't eaten since
				// Tuesday" is a concern of the day it is said.
				if ds := extract.ResolveDatesTense(sent.Text, at, loc, extract.TensePast); len(ds) > 0 && ds[0].Date <= today &&
					!strings.HasSuffix(strings.ToLower(strings.TrimSpace(sent.Text[:ds[0].Start])), "since") {
					date = ds[0].Date
				}
				found[c.kind] = true
				out = append(out, ClaraConcern{Concern: c.kind, Date: date, MessageID: msg.ID})
			}
		}
	}
	return out
}

// claraMaxText is the schema's bound on the summary's text.
const claraMaxText = 600

// claraWithConcerns is text with a fixed sentence naming the concerns,
// when it fits in claraMaxText; else text as it is (the concerns are in
// the summary's concerns list either way).
func claraWithConcerns(text string, cs []ClaraConcern) string {
	var names []string
	for _, k := range ClaraConcerns {
		if slices.ContainsFunc(cs, func(c ClaraConcern) bool { return c.Concern == k }) {
			names = append(names, claraConcernWords[k])
		}
	}
	if len(names) == 0 {
		return text
	}
	list := names[0]
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	out := strings.TrimSpace(text) + " The user spoke of " + list + "."
	if utf8.RuneCountInString(out) > claraMaxText {
		return text
	}
	return out
}

// ClaraConcernsOf reads a summary's concerns list, as the rules wrote it
// or as stored JSON; an entry with an unknown label or no valid date is
// skipped.
func ClaraConcernsOf(v any) []ClaraConcern {
	var out []ClaraConcern
	for _, o := range extract.ObjectList(v) {
		c := ClaraConcern{Concern: extract.Text(o["concern"]), Date: extract.Text(o["date"]), MessageID: extract.Text(o["message_id"])}
		if slices.Contains(ClaraConcerns, c.Concern) && extract.ValidDate(c.Date) {
			out = append(out, c)
		}
	}
	return out
}

// ClaraWithoutConcerns is a copy of a Clara summary without what is for
// the caregiver alone: the concerns list and the sentence of the text that
// names them. The chat service's own token reads the session's summary too
// (views.MayRead), and what it reads may reach the model's prompt, which
// the concerns never do.
func ClaraWithoutConcerns(sum map[string]any) map[string]any {
	out := maps.Clone(sum)
	cs := ClaraConcernsOf(out["concerns"])
	delete(out, "concerns")
	if t, ok := out["summary"].(string); ok && len(cs) > 0 {
		if with := claraWithConcerns("", cs); with != "" {
			out["summary"] = strings.TrimSpace(strings.TrimSuffix(t, strings.TrimSpace(with)))
		}
	}
	return out
}
