package eldertree

import (
	"encoding/json"
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

// eldertree (docs/presets.md, Elder Tree): the recovery mentor.
// ElderTree is the recovery companion: the kind of apps whose rules are "eldertree".
var ElderTree extract.Kind = kindElderTree{}

func init() { extract.Register(ElderTree) }

type kindElderTree struct{ extract.BaseKind }

// defaultBudget is the context pack's budget, in tokens, when neither the
// request nor the app's policy sets one.
const defaultBudget = 600

func (kindElderTree) Name() string { return "eldertree" }
func (kindElderTree) PackPolicy() extract.PackPolicy {
	return extract.PackPolicy{Budget: defaultBudget}
}
func (kindElderTree) View() extract.View {
	return extract.View{Heading: "Recovery insights", Page: extract.PageRecovery}
}
func (kindElderTree) Rules(res *extract.Result, _ prompts.Policy, s extract.Session, _ time.Time) {
	said := elderMine(s)
	if whole := s.Unscreened(); len(whole.Messages) > 0 && !slices.Equal(whole.Messages, s.Messages) {
		// A message the screen withheld (the user's own medium or high
		// risk) gives none of its words, but whether the user had an urge
		// or relapsed is a count, a number and a label: a relapse told in a
		// crisis still ends the streak.
		all := elderMine(whole)
		said.urges, said.intensity, said.relapsed, said.outcome = all.urges, all.intensity, all.relapsed, all.outcome
	}
	res.SessionSummary = elderTreeSummary(s.Events, said)
	elderStreakState(res.SessionSummary, said.profile, said)
	elderSummaryExtras(res.SessionSummary, said)
	maps.Copy(res.ProfileUpdates, said.profile)
}

// elderSummaryExtras adds to a summary what the user's words said beside
// the urge: every trigger named (triggers, only when one was), the risky
// events ahead (upcoming_events, likewise) and, when no other follow-up
// is due, a follow-up on them.
func elderSummaryExtras(sum map[string]any, said elderSaid) {
	var triggers []string
	seen := map[string]bool{}
	for _, t := range slices.Concat(said.triggers, said.named) {
		if k := extract.LabelKey(t); k != "" && !seen[k] {
			seen[k] = true
			triggers = append(triggers, t)
		}
	}
	if len(triggers) > 0 {
		sum["triggers"] = triggers
	}
	if len(said.events) > 0 {
		evs := make([]map[string]any, len(said.events))
		for i, e := range said.events {
			evs[i] = map[string]any{"date": e.Date, "event": e.Event}
		}
		sum["upcoming_events"] = evs
		if sum["follow_up_needed"] == "" {
			sum["follow_up_needed"] = FollowUpRiskyEvent
		}
	}
}
func (kindElderTree) Pack(in extract.PackInput) *extract.PackPlan { return packElderTree(in) }
func (kindElderTree) SpecialDefault() string                      { return prompts.SpecialKeep } // a recovery mentor's purpose

// Batches are Elder Tree's batches (batch.Declarer): the weekly recovery
// analytics of each user, and the supervisors' insights that add them up.
func (kindElderTree) Batches() []batch.Batch {
	return []batch.Batch{batch.WeeklyAnalytics(), batch.Insights()}
}

// Follow-up cues the rules give an Elder Tree session. They are fixed
// sentences, never text from the session.
const (
	FollowUpRelapse    = "Check in gently about the relapse."
	FollowUpEscalation = "Follow up on the escalation in the last session."
	FollowUpOngoing    = "Ask how the urge that was still present at the end of the last session went."
	FollowUpRiskyEvent = "Ask about the risky event ahead they mentioned and how they plan to handle it."
)

// elderTreeSummary builds the session_summary (docs/presets.md, Elder Tree:
// session summary) from urge, emotion and escalation events, in the order the
// chat service sent them, and when the session has no urge event, its urge
// fields (urge_intensity, primary_trigger, resistance_strategy_used, outcome)
// from what the user said (see elderMine): events win when present. It invents
// no text: key_insights stays empty, and urge_intensity is null when the
// session had no urge or none said how strong it was, so that averages are not
// pulled towards zero.
//
// A relapse anywhere in the session makes the outcome "relapsed", even when a
// later urge passed: the next session must not lose sight of it.
func elderTreeSummary(events []extract.Event, said elderSaid) map[string]any {
	var (
		intensity   = -1
		urges       int
		triggers    = map[string]int{}
		triggerSeen []string // display forms, in order of first appearance
		triggerName = map[string]string{}
		strategies  []string
		strategyKey = map[string]bool{}
		outcome     string
		relapsed    bool
		escalated   bool
		emoStart    string
		emoEnd      string
	)
	for _, e := range events {
		switch strings.ToLower(strings.TrimSpace(e.Type)) {
		case "urge":
			urges++
			d := extract.EventData(e.Data)
			if v, ok := num.Float(d["intensity"]); ok {
				intensity = max(intensity, int(math.Round(min(max(v, 0), 10))))
			}
			if t := extract.Label(d["trigger"]); extract.LabelKey(t) != "" {
				k := extract.LabelKey(t)
				if triggers[k] == 0 {
					triggerSeen = append(triggerSeen, k)
					triggerName[k] = t
				}
				triggers[k]++
			}
			if st := extract.Label(d["strategy"]); extract.LabelKey(st) != "" && !strategyKey[extract.LabelKey(st)] {
				strategyKey[extract.LabelKey(st)] = true
				strategies = append(strategies, st)
			}
			switch o, _ := d["outcome"].(string); strings.ToLower(strings.TrimSpace(o)) {
			case aggregate.OutcomeRelapsed:
				relapsed = true
				outcome = aggregate.OutcomeRelapsed
			case aggregate.OutcomeUrgePassed:
				outcome = aggregate.OutcomeUrgePassed
			case aggregate.OutcomeOngoing:
				outcome = aggregate.OutcomeOngoing
			}
		case "emotion":
			if emo := extract.Label(extract.EventData(e.Data)["emotion"]); emo != "" {
				if emoStart == "" {
					emoStart = emo
				}
				emoEnd = emo
			}
		case "escalation":
			escalated = true
		}
	}

	if !slices.ContainsFunc(events, func(e extract.Event) bool { return strings.EqualFold(strings.TrimSpace(e.Type), "urge") }) {
		// No urge event: what the user said stands in.
		urges, intensity, outcome, relapsed = said.urges, said.intensity, said.outcome, said.relapsed
		for _, t := range said.triggers {
			k := extract.LabelKey(t)
			if triggers[k] == 0 {
				triggerSeen = append(triggerSeen, k)
				triggerName[k] = t
			}
			triggers[k]++
		}
		strategies = said.strategies
	}

	primary, best := "", 0
	for _, k := range triggerSeen { // first seen wins a tie
		if triggers[k] > best {
			primary, best = triggerName[k], triggers[k]
		}
	}
	if relapsed {
		outcome = aggregate.OutcomeRelapsed
	}
	if urges > 0 && outcome == "" {
		outcome = aggregate.OutcomeOngoing
	}
	var urgeIntensity any // null when no urge said how strong it was
	if intensity >= 0 {
		urgeIntensity = intensity
	}
	followUp := ""
	switch {
	case outcome == aggregate.OutcomeRelapsed:
		followUp = FollowUpRelapse
	case escalated:
		followUp = FollowUpEscalation
	case outcome == aggregate.OutcomeOngoing:
		followUp = FollowUpOngoing
	}
	return map[string]any{
		"urge_intensity":           urgeIntensity,
		"primary_trigger":          primary,
		"resistance_strategy_used": strings.Join(strategies, ", "),
		"outcome":                  outcome,
		"key_insights":             []string{},
		"emotional_state_start":    emoStart,
		"emotional_state_end":      emoEnd,
		"follow_up_needed":         followUp,
	}
}

// Text rules. With no urge event, the Elder Tree rules read the user's own
// messages, sentence by sentence and clause by clause (clauseStarts), for
// what a mentor would note. They prefer missing a statement to inventing
// one: a question, a hedged or hypothetical clause ("if I drink …", "I
// might have a drink", hedges), a negated one ("I didn't drink", "no
// cravings"), a near miss ("I almost drank"), history ("I drank for twenty
// years") and a clause about someone else ("my brother relapsed", "he
// called his sponsor") say nothing. Sentences with sensitive data are not
// read. What they learn:
//
//   - relapse: "I drank on Saturday", "I used again", "I slipped", "I
//     relapsed", "I had a drink", "I got drunk", "I went back to using" →
//     outcome relapsed; a date said with it ("on Saturday", resolved in the
//     past tense in the session's zone) becomes recovery_start_date.
//   - urges: "urge", "craving", "tempted", "wanted to drink", … The
//     strength words near it give urge_intensity (elderStrength): unbearable,
//     worst, uncontrollable 10; overwhelming, intense, desperate, huge,
//     terrible, extreme 9; strong, bad, hard, big, serious 7; moderate, some,
//     manageable 5; mild, slight, small, little, a bit, kind of, weak 3;
//     tiny, fleeting 2. "really", "very", "so", "super", "extremely" before
//     a word raise it by one (lower a weak one by one); "7/10" and "7 out of
//     10" are taken as said. An urge without a strength word counts as an
//     urge of unknown strength.
//   - triggers, in a sentence with an urge or relapse: "my trigger was X",
//     "triggered by X", "at/after/during my X" ("at my cousin's birthday
//     party" → "cousin's birthday party"), "stress at work", loneliness,
//     boredom, anger, payday, late night.
//   - strategies, as fixed labels: "called sponsor", "went to a meeting",
//     "went for a run/walk/…", "prayer", "meditation", "breathing",
//     "journaling", "played the tape forward", "left the situation",
//     "reached out to someone".
//   - outcome: relapsed; else the last of "it passed", "I stayed sober", "I
//     didn't drink" (urge_passed) and "I'm still struggling" (ongoing_struggle);
//     else ongoing_struggle when an urge was told, as for urge events.
//   - profile: sponsor ("my new sponsor is Linda", "Linda is my sponsor" →
//     has_sponsor true and sponsor_name; "I don't have a sponsor anymore",
//     "I fired my sponsor" → has_sponsor false), fellowship ("I stopped going
//     to meetings", "I quit AA" → in_fellowship false; "I joined a Tuesday
//     group", "I started going to NA" → true, with fellowship_name when a
//     known fellowship is named), sobriety_days ("30 days sober today", "I've
//     been clean for one month": a week is 7 days, months and years by the
//     calendar; a day count said before a count in months it agrees with
//     stands)
//     and recovery_start_date ("my sobriety date is March 3", a dated
//     relapse). The last statement of a field wins.
type elderSaid struct {
	urges      int
	intensity  int // -1: no strength said
	relapsed   bool
	outcome    string
	triggers   []string // in the order said, repeats kept
	strategies []string
	profile    map[string]any
	named      []string                // triggers named outright, outside an urge
	events     []extract.UpcomingEvent // risky events ahead
	streak     int                     // the last hint or plain statement of staying sober (streakNone, …)
	since      string                  // the earliest day of the hints after the last plain statement
}

// elderClause is one clause of a user's sentence.
type elderClause struct {
	text  string // from the clause start to the next, interjections skipped
	words []string
	tail  string // from the clause start to the end of the sentence, at most elderReach past the clause
	sent  string // the sentence around the clause, at most elderReach either side
	at    time.Time
}

func elderMine(s extract.Session) elderSaid {
	said := elderSaid{intensity: -1, profile: map[string]any{}}
	loc := extract.SessionZone(s.Timezone)
	lastOutcome := ""
	stepNow, stepDone := false, 0
	prev := ""          // the user's previous grammar.Sentence, in this message or the one before
	var recent []string // the past day each of the user's last sentences names ("" for none), oldest first
	for _, msg := range s.Messages {
		if !extract.IsUser(msg.Role) {
			continue
		}
		at := msg.At
		if at.IsZero() {
			at = extract.SessionEnd(s)
		}
		content := extract.StraightApostrophes(strings.ToValidUTF8(msg.Content, "\uFFFD"))
		for _, sent := range grammar.Sentences(content) {
			sent.Text = elderCompoundSpan(sent.Text) // "a year and two months" is "14 months"
			if _, bad := extract.Sensitive(sent.Text); bad {
				prev = ""
				continue
			}
			if elderStatesCount(said.profile, func() { said.follow(prev, sent.Text, at, loc) }) {
				said.sober() // "Still clean. 323 days."
			}
			// The day a hint in this sentence is about.
			own := elderPastDay(sent.Text, at, loc)
			day := elderHintDay(own, recent, at, loc)
			recent = append(recent, own)
			if len(recent) > elderHintContext {
				recent = recent[1:]
			}
			e, ok := elderUpcoming(sent.Text, at, loc)
			if !ok && prev != "" && elderThatsDateRe.MatchString(sent.Text) {
				// "Anniversaries are hard. That's next Tuesday."
				e, ok = elderUpcoming(prev+" "+sent.Text, at, loc)
			}
			prev = sent.Text
			// A risky event ahead counts in a question too ("Should I go to
			// the party on Friday?").
			if ok && len(said.events) < elderMaxEvents &&
				!slices.ContainsFunc(said.events, func(x extract.UpcomingEvent) bool {
					return x.Date == e.Date && extract.LabelKey(x.Event) == extract.LabelKey(e.Event)
				}) {
				said.events = append(said.events, e)
			}
			first, _ := grammar.FirstWord(sent.Text, grammar.SkipInterjections(sent.Text, 0))
			if sent.Question || grammar.QuestionStart(first) {
				// "Can we not talk about counting days?" is no question.
				for _, c := range elderClauses(sent.Text, at) {
					if elderHint(c, true) {
						said.hint(day)
					}
				}
				continue
			}
			clauses := elderClauses(sent.Text, at)
			event := false // an urge or a relapse in this sentence
			for _, c := range clauses {
				hinted := elderHint(c, false)
				if hinted {
					said.hint(day)
				} else if elderSoberSaid(c, loc) {
					said.sober()
				}
				if elderSkip(c) {
					continue
				}
				if date, ok := elderRelapse(c, loc); ok {
					said.relapsed, event = true, true
					if date != "" {
						elderSetStart(said.profile, date, c.at, loc)
					}
				}
				if n, ok := elderUrge(c); ok {
					said.urges++
					event = true
					said.intensity = max(said.intensity, n)
				}
				for _, st := range elderStrategies(c) {
					if !slices.Contains(said.strategies, st) {
						said.strategies = append(said.strategies, st)
					}
				}
				switch elderResolution(c) {
				case aggregate.OutcomeUrgePassed:
					lastOutcome = aggregate.OutcomeUrgePassed
				case aggregate.OutcomeOngoing:
					lastOutcome = aggregate.OutcomeOngoing
				}
				if elderStatesCount(said.profile, func() { elderProfile(c, loc, said.profile) }) && !hinted {
					said.sober() // a time sober stated again, or a reset
				}
				elderIdentity(c, said.profile)
				if n, done, ok := elderStep(c); ok {
					if done {
						said.profile["step_"+strconv.Itoa(n)+"_completed"] = true
						stepDone = max(stepDone, n)
					} else {
						said.profile["current_step"] = n
						stepNow = true
					}
				}
				for _, t := range elderNamedTriggers(c) {
					said.named = append(said.named, t)
				}
			}
			if event {
				said.triggers = append(said.triggers, elderTriggers(sent.Text)...)
			}
		}
	}
	delete(said.profile, elderExact)
	if !stepNow && stepDone > 0 && stepDone < 12 {
		// "I finished my fourth step": the fifth is the one worked now.
		said.profile["current_step"] = stepDone + 1
	}
	switch {
	case said.relapsed:
		said.outcome = aggregate.OutcomeRelapsed
	case lastOutcome != "" && (said.urges > 0 || len(said.strategies) > 0):
		said.outcome = lastOutcome
	case said.urges > 0:
		said.outcome = aggregate.OutcomeOngoing
	}
	return said
}

// elderThatsDateRe is a sentence that dates what the one before it said:
// "That's next Tuesday.", "It's on Saturday."
var elderThatsDateRe = regexp.MustCompile(`(?i)^(?:that's|thats|that\s+is|it's|its|it\s+is|which\s+is)\s+(?:on\s+|this\s+coming\s+)?\S`)

// follow reads a sponsor named in apposition, and what a sentence says only
// with the user's sentence before it: a bare count after one that says sober or clean ("Still
// clean. 323 days."), and the name of a sponsor just got ("Got a sponsor!
// His name is Walt.").
func (said *elderSaid) follow(prev, sent string, at time.Time, loc *time.Location) {
	if m := elderSponsorApposRe.FindStringSubmatchIndex(sent); m != nil && elderOwnLead(sent[:m[0]]) {
		// "I'm working step 4 with my sponsor, Rick", "I'll call my
		// sponsor Hector tonight": a name in apposition, whatever the tense.
		if name := grammar.ParseName(sent[m[2]:m[3]]); name != "" && !grammar.NotAName(strings.ToLower(name)) && !elderNotNames[strings.ToLower(name)] {
			said.profile["has_sponsor"], said.profile["sponsor_name"] = true, name
		}
	}
	if prev == "" {
		return
	}
	text := strings.TrimRight(strings.TrimSpace(sent), ".!… ")
	if m := elderBareCountRe.FindStringSubmatch(text); m != nil && elderSoberWordRe.MatchString(prev) &&
		!grammar.Negated(grammar.LowerWords(prev)) && elderOwnLead(prev) {
		if span, ok := elderDays(m[1], m[2]); ok {
			elderSetSober(said.profile, span, at, loc)
		}
		return
	}
	if m := elderTheirNameRe.FindStringSubmatch(text); m != nil && strings.Contains(strings.ToLower(prev), "sponsor") &&
		(elderHasSponsorRe.MatchString(strings.TrimSpace(prev)) || elderGotSponsorRe.MatchString(prev)) {
		if name := grammar.ParseName(m[1]); name != "" && !grammar.NotAName(strings.ToLower(name)) {
			said.profile["has_sponsor"], said.profile["sponsor_name"] = true, name
		}
	}
}

// elderGotSponsorRe is a sentence that gets a sponsor without a subject:
// "Got a sponsor!", "Finally found a sponsor."
var elderGotSponsorRe = regexp.MustCompile(`(?i)^(?:i\s+)?(?:finally\s+|just\s+)?(?:got|have|found|picked|asked)\s+(?:myself\s+)?(?:a|a\s+new)\s+sponsor\b`)

// elderClauses cuts a sentence at its clause starts.
func elderClauses(sent string, at time.Time) []elderClause {
	starts := grammar.ClauseStarts(sent)
	out := make([]elderClause, 0, len(starts))
	for i, st := range starts {
		end := len(sent)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		p := grammar.SkipInterjections(sent, st)
		if slices.ContainsFunc(grammar.LowerWords(sent[st:p]), func(w string) bool { return w == "no" || w == "nope" || w == "nah" }) {
			p = st // "No urges today": the "no" is what it says
		}
		if p >= end {
			continue
		}
		if q, ok := grammar.SkipLeadingDate(sent, p); ok && q < end {
			p = q
		}
		text := strings.TrimRight(sent[p:end], " ,;:—–(")
		text = strings.TrimSuffix(text, " and")
		if text == "" {
			continue
		}
		tail := strings.TrimRight(sent[p:elderCut(sent, end+elderReach)], " .!…")
		around := sent[elderCutBack(sent, p-elderReach):elderCut(sent, end+elderReach)]
		out = append(out, elderClause{text: text, words: grammar.LowerWords(text), tail: tail, sent: around, at: at})
	}
	return out
}

// elderReach is how far, in bytes, a clause reads the rest of its sentence
// and the sentence around it: every rule that looks past a clause finds
// what it needs within a few words ("… day 428 actually", "just in case"),
// and a bound keeps a sentence of thousands of clauses linear to read
// rather than each clause reading all the others.
const elderReach = 320

// elderCut is the end of a window of sent that stops at i: the word
// boundary at or after i (or i itself within a very long word), never past
// the sentence.
func elderCut(sent string, i int) int {
	if i >= len(sent) {
		return len(sent)
	}
	for j := i; j < len(sent) && j < i+32; j++ {
		if sent[j] == ' ' {
			return j
		}
	}
	for i < len(sent) && !utf8.RuneStart(sent[i]) {
		i++
	}
	return i
}

// elderCutBack is the start of a window of sent that begins at i: the word
// boundary at or before i, never before the sentence.
func elderCutBack(sent string, i int) int {
	if i <= 0 {
		return 0
	}
	for j := i; j > 0 && j > i-32; j-- {
		if sent[j-1] == ' ' {
			return j
		}
	}
	for i > 0 && !utf8.RuneStart(sent[i]) {
		i--
	}
	return i
}

// elderNotSo mark a clause about what may come or is feared, not what
// happened or is.
var elderBe = extract.WordSet("i'm im am are we're is was were")

var elderNotSo = extract.WordSet("will ll gonna afraid scared worried fear fearing terrified tomorrow plan planning planned hope hoping want wanna try trying should shouldve suppose")

// elderSkip reports a clause the rules must not read: hedged ("if",
// "might", "would", "I think") or about what may come.
func elderSkip(c elderClause) bool {
	if slices.Contains(grammar.Hedges(c.words), true) {
		return true
	}
	for i, w := range c.words {
		w = strings.TrimPrefix(w, "i'")
		future := w == "going" && i > 0 && i+1 < len(c.words) && c.words[i+1] == "to" && elderBe[c.words[i-1]]
		if elderNotSo[w] || future {
			// "I want to drink" is an urge: it is read by elderUrge alone.
			if (w == "want" || w == "wanna") && elderWantsSubstance(c.words[i+1:]) {
				continue
			}
			return true
		}
	}
	return false
}

func elderWantsSubstance(ws []string) bool {
	j := 0
	if j < len(ws) && ws[j] == "to" {
		j++
	}
	if j < len(ws) && (ws[j] == "a" || ws[j] == "some") {
		j++
	}
	return j < len(ws) && elderSubstance[ws[j]]
}

var elderSubstance = extract.WordSet("drink drinks drinking use using drug drugs beer beers wine vodka whiskey hit pills gamble gambling bet high drunk smoke")

// elderOthers are words that make a clause about someone else when they
// come before what it says.
var elderOthers = extract.WordSet("he she they his her their him them he's she's they're hes shes theyre you your you're brother brother's sister sister's mom mom's mother dad dad's father wife wife's husband husband's son daughter cousin cousin's friend friend's friends sponsor sponsor's partner boyfriend girlfriend someone somebody everyone everybody people guy guys uncle aunt roommate coworker boss")

var elderFirstPerson = extract.WordSet("i i'm im i've ive i'd me my myself")

// elderOwn reports whether the words before a match make it the user's
// own: no one else named, and the user named or the match opening the
// clause (an elided subject: "… and went for a walk").
func elderOwn(before []string, opens int) bool {
	for _, w := range before {
		if elderOthers[w] {
			return false
		}
	}
	if len(before) <= opens {
		return true
	}
	return slices.ContainsFunc(before, func(w string) bool { return elderFirstPerson[w] })
}

var elderRelapseRe = regexp.MustCompile(`(?i)^(?:i|i've|ive|i\s+have)\s+(?:(?:just|actually|finally|totally|completely|kinda|kind\s+of|sort\s+of|ended\s+up|went\s+and)\s+)?` +
	`(relapsed|slipped(?:\s+up)?|drank|drunk|used|gambled|picked\s+up|been\s+(?:drinking|using)\s+again|` +
	`got\s+(?:drunk|high|wasted|loaded|hammered)|` +
	`had\s+(?:a|one|two|three|four|five|a\s+few|some|several|a\s+couple(?:\s+of)?|my\s+first)\s+(?:drinks?|beers?|shots?|glass(?:es)?\s+of\s+(?:wine|whiskey|vodka|beer)|hits?|relapse|slip)|` +
	`ended\s+up\s+(?:drinking|using)|went\s+back\s+to\s+(?:drinking|using|the\s+bottle)|started\s+(?:drinking|using)\s+again|` +
	`(?:broke|lost|blew)\s+my\s+(?:sobriety|streak|clean\s+time)|fell\s+off\s+the\s+wagon)\b(.*)$`)

// elderNotAlcohol is what "I drank" can be without being a relapse.
var elderNotAlcohol = extract.WordSet("water coffee tea juice soda milk pop lemonade smoothie smoothies kombucha cocoa")

// elderRelapseAfter are the words that may follow "I used", "I slipped" or
// "I picked up" for it to be a relapse ("I used again", not "I used my
// tools"; "I slipped last night", not "I slipped on the ice").
var elderRelapseAfter = extract.WordSet("again up yesterday last this today tonight on at after during when while over a drugs meth heroin cocaine coke weed pills opioids alcohol drinking using")

// elderHistory marks a clause about the past before recovery.
var elderHistoryRe = regexp.MustCompile(`(?i)\bfor\s+(?:\d+|many|so\s+many|\w+)\s+(?:years|decades)\b|\byears\s+ago\b|\bwhen\s+i\s+was\b|\bin\s+the\s+past\b|\bback\s+then\b|\bbefore\s+i\s+(?:got|was|became)\s+(?:sober|clean)\b|\bused\s+to\b`)

// elderRelapse reads "I drank on Saturday …": ok, and the day it happened
// when one was said.
func elderRelapse(c elderClause, loc *time.Location) (string, bool) {
	m := elderRelapseRe.FindStringSubmatch(c.text)
	if m == nil || elderHistoryRe.MatchString(c.text) {
		return "", false
	}
	verb := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
	rest := grammar.LowerWords(m[2])
	next := ""
	if len(rest) > 0 {
		next = rest[0]
	}
	switch verb {
	case "drank", "drunk":
		if slices.ContainsFunc(rest[:min(len(rest), 4)], func(w string) bool { return elderNotAlcohol[w] }) {
			return "", false
		}
	case "used", "slipped", "picked up":
		if next != "" && !elderRelapseAfter[next] {
			return "", false
		}
		if verb == "slipped" && next == "on" && len(rest) > 1 && !extract.IsWeekday(rest[1]) {
			return "", false // "slipped on the ice"
		}
	}
	if strings.Contains(verb, "drink") || strings.HasPrefix(verb, "had") {
		if strings.Contains(m[2], "of water") || strings.Contains(m[2], "of juice") {
			return "", false
		}
	}
	return elderPastDay(c.text, c.at, loc), true
}

var elderUrgeRe = regexp.MustCompile(`(?i)\b(?:urges?|cravings?|craved|craving|tempted|temptation|itching\s+(?:to|for)|(?:wanted|want|wanting|needed)\s+(?:to\s+(?:drink|use|get\s+(?:drunk|high)|gamble|pick\s+up)|a\s+(?:drink|beer|hit|bet))|wanna\s+(?:drink|use))\b`)

var elderNumericRe = regexp.MustCompile(`\b(10|[0-9])\s*(?:/|out\s+of)\s*10\b`)

// elderStrengths is the strength of an urge a word says, 0–10.
var elderStrengths = map[string]int{
	"unbearable": 10, "worst": 10, "uncontrollable": 10, "strongest": 10,
	"overwhelming": 9, "intense": 9, "desperate": 9, "desperately": 9, "huge": 9, "massive": 9, "terrible": 9, "awful": 9, "extreme": 9, "powerful": 9,
	"strong": 7, "bad": 7, "badly": 7, "hard": 7, "big": 7, "serious": 7, "heavy": 7,
	"moderate": 5, "some": 5, "manageable": 5, "medium": 5,
	"mild": 3, "slight": 3, "slightly": 3, "small": 3, "little": 3, "bit": 3, "minor": 3, "weak": 3, "kinda": 3,
	"tiny": 2, "fleeting": 2,
}

var elderIntensifiers = extract.WordSet("really very so super extremely incredibly pretty totally")

// elderUrge reads an urge the user had: ok, and its strength (-1 when no
// word said it).
func elderUrge(c elderClause) (int, bool) {
	loc := elderUrgeRe.FindStringIndex(c.text)
	if loc == nil {
		return -1, false
	}
	before := grammar.LowerWords(c.text[:loc[0]])
	if grammar.Negated(before) || !elderOwn(before, 3) {
		return -1, false
	}
	if m := elderNumericRe.FindStringSubmatch(c.text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, true
	}
	// Strength words within four words before the urge word and six after,
	// in the rest of the sentence ("craving so badly").
	ws := grammar.LowerWords(c.tail)
	kw := len(before)
	lo, hi := max(kw-4, 0), min(kw+7, len(ws))
	best := -1
	for i := lo; i < hi; i++ {
		w := ws[i]
		n, ok := elderStrengths[w]
		if (w == "kind" || w == "sort") && i+1 < len(c.words) && ws[i+1] == "of" {
			n, ok = 3, true
		}
		if !ok || (w == "some" && i != kw-1) {
			continue
		}
		if i > 0 && grammar.Negated(ws[i-1:i]) {
			continue // "not so bad"
		}
		if i > 0 && elderIntensifiers[ws[i-1]] {
			if n >= 5 {
				n = min(n+1, 10)
			} else {
				n = max(n-1, 1)
			}
		}
		if i > 1 && elderIntensifiers[ws[i-1]] && grammar.Negated(ws[i-2:i-1]) {
			continue
		}
		best = max(best, n)
	}
	return best, true
}

// elderTriggerRes find a trigger in a sentence with an urge or a relapse;
// group 1 is the trigger, or the pattern's label is.
var elderTriggerRes = []struct {
	re    *regexp.Regexp
	label string
}{
	{re: regexp.MustCompile(`(?i)\b(?:my\s+)?(?:biggest\s+|main\s+|real\s+)?trigger\s+(?:was|is)\s+(.+)`)},
	{re: regexp.MustCompile(`(?i)\btriggered\s+by\s+(.+)`)},
	{re: regexp.MustCompile(`(?i)\b(?:at|after|during|from)\s+(?:a|an|the|my|our|this|that)\s+(.+)`)},
	{re: regexp.MustCompile(`(?i)\b((?:argument|fight|row)\s+with\s+.+)`)},
	{re: regexp.MustCompile(`(?i)\bstress(?:ed)?\s+(?:at|from|about|over)\s+(?:my\s+)?(?:work|job|money|home|school)\b`)},
	{re: regexp.MustCompile(`(?i)\bwork\s+stress\b`), label: "work stress"},
	{re: regexp.MustCompile(`(?i)\b(?:lonely|loneliness)\b`), label: "loneliness"},
	{re: regexp.MustCompile(`(?i)\b(?:bored|boredom)\b`), label: "boredom"},
	{re: regexp.MustCompile(`(?i)\b(?:angry|anger)\b`), label: "anger"},
	{re: regexp.MustCompile(`(?i)\bpayday\b`), label: "payday"},
	{re: regexp.MustCompile(`(?i)\blate\s+(?:at\s+)?night\b`), label: "late night"},
}

// elderTriggerStops end a trigger phrase.
var elderTriggerStops = extract.WordSet("and but or so because cause when while where which that who i i'm i've i'd me to for on in at after before during last yesterday today tonight this was is were are had have has it then again really just")

// elderNotTriggers are phrases after "at the …" that are no trigger.
var elderNotTriggers = extract.WordSet("time moment end start beginning first last same weekend week morning evening night day meeting meetings moment point least most")

// elderTriggers are the triggers a sentence names, in the order said, as
// short labels.
func elderTriggers(sent string) []string {
	type found struct {
		at    int
		label string
	}
	var fs []found
	for _, t := range elderTriggerRes {
		for _, loc := range t.re.FindAllStringSubmatchIndex(sent, 2) {
			var l string
			switch {
			case t.label != "":
				l = t.label
			case len(loc) > 2 && loc[2] >= 0:
				l = elderPhrase(sent[loc[2]:loc[3]])
			default:
				l = strings.ToLower(sent[loc[0]:loc[1]])
			}
			if l = extract.Label(l); l != "" {
				fs = append(fs, found{loc[0], l})
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b found) int { return a.at - b.at })
	var out []string
	seen := map[string]bool{}
	for i, f := range fs {
		k := extract.LabelKey(f.label)
		// A phrase inside a longer one found at the same place counts once.
		if seen[k] || (i > 0 && strings.Contains(extract.LabelKey(fs[i-1].label), k)) {
			continue
		}
		seen[k] = true
		out = append(out, f.label)
	}
	return out
}

// elderPhrase is the noun phrase that opens s: up to five words, to a
// clause end, with one "with"/"of" inside ("argument with my wife").
func elderPhrase(s string) string {
	var out []string
	joined := false
	for _, raw := range strings.Fields(s) {
		w := strings.ToLower(strings.TrimRightFunc(raw, func(r rune) bool { return unicode.IsPunct(r) && r != '\'' }))
		end := w != strings.ToLower(raw) // punctuation after the word
		if w == "" {
			break
		}
		if (w == "with" || w == "of") && !joined && len(out) > 0 {
			joined = true
			out = append(out, w)
			continue
		}
		if elderTriggerStops[w] || extract.IsWeekday(w) || strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			break
		}
		out = append(out, w)
		if end || len(out) == 5 {
			break
		}
	}
	for len(out) > 0 && (out[len(out)-1] == "with" || out[len(out)-1] == "of" || extract.IsArticle(out[len(out)-1])) {
		out = out[:len(out)-1]
	}
	if len(out) == 0 || elderNotTriggers[out[0]] || (len(out) == 1 && elderNotTriggers[out[0]]) {
		return ""
	}
	return strings.Join(out, " ")
}

// elderStrategyRes are the strategies a clause may tell, with their labels.
var elderStrategyRes = []struct {
	re    *regexp.Regexp
	label string
}{
	{regexp.MustCompile(`(?i)\b(?:called|phoned|rang|texted|messaged|reached\s+out\s+to|talked\s+to|spoke\s+(?:to|with))\s+my\s+sponsor\b`), "called sponsor"},
	{regexp.MustCompile(`(?i)\b(?:went|got|made\s+it)\s+to\s+(?:a|an|the|my)\s+(?:\w+\s+)?meeting\b|\battended\s+(?:a|an|the|my)\s+(?:\w+\s+)?meeting\b|\bhit\s+a\s+meeting\b`), "went to a meeting"},
	{regexp.MustCompile(`(?i)\bwent\s+for\s+a\s+(?:run|jog)\b|\bwent\s+(?:running|jogging)\b`), "went for a run"},
	{regexp.MustCompile(`(?i)\bwent\s+for\s+a\s+walk\b|\bwent\s+walking\b|\b(?:took|had)\s+a\s+walk\b|\bwalked\s+(?:outside|it\s+off|around\s+the\s+block)\b`), "went for a walk"},
	{regexp.MustCompile(`(?i)\bwent\s+(?:to\s+the\s+gym|for\s+a\s+swim|swimming|for\s+a\s+(?:bike\s+ride|hike)|hiking)\b|\bworked\s+out\b`), "exercise"},
	{regexp.MustCompile(`(?i)\bprayed\b|\bsaid\s+a\s+prayer\b|\bprayers?\s+(?:helped|worked)\b`), "prayer"},
	{regexp.MustCompile(`(?i)\bmeditated\b|\bmeditation\s+(?:helped|worked)\b`), "meditation"},
	{regexp.MustCompile(`(?i)\b(?:did|tried|used|practiced|practised)\s+(?:some\s+|my\s+|the\s+)?(?:deep\s+)?breathing\b|\b(?:took|take)\s+(?:some\s+|a\s+few\s+)?deep\s+breaths\b|\bbreathing\s+(?:exercises?\s+)?(?:helped|worked)\b|\bbreathed\s+through\b`), "breathing"},
	{regexp.MustCompile(`(?i)\bjournaled\b|\bwrote\s+in\s+my\s+journal\b`), "journaling"},
	{regexp.MustCompile(`(?i)\bplayed\s+the\s+tape\s+forward\b`), "played the tape forward"},
	{regexp.MustCompile(`(?i)\bleft\s+(?:the\s+party|the\s+bar|early)\b|\bwalked\s+away\b`), "left the situation"},
	{regexp.MustCompile(`(?i)\b(?:called|phoned|texted|reached\s+out\s+to)\s+(?:a\s+friend|my\s+(?:friend|wife|husband|mom|mother|dad|father|brother|sister|partner))\b`), "reached out to someone"},
}

// elderStrategies are the strategies the user tells of in a clause.
func elderStrategies(c elderClause) []string {
	var out []string
	for _, s := range elderStrategyRes {
		loc := s.re.FindStringIndex(c.text)
		if loc == nil {
			continue
		}
		before := grammar.LowerWords(c.text[:loc[0]])
		if grammar.Negated(before) || !elderOwn(before, 1) {
			continue
		}
		out = append(out, s.label)
	}
	return out
}

var (
	elderPassedRe = regexp.MustCompile(`(?i)(?:^|\b(?:and|but|so)\s+)(?:it|the\s+urges?|the\s+cravings?|the\s+temptation|they)\s+(?:finally\s+|eventually\s+|slowly\s+)?(?:passed|went\s+away|faded|subsided|eased(?:\s+off)?)\b|` +
		`^(?:i\s+)?(?:stayed|remained)\s+(?:sober|clean)\b|^(?:i'm|im|i\s+am)\s+still\s+(?:sober|clean)\b|` +
		`^i\s+(?:didn't|did\s+not|never)\s+(?:drink|use|pick\s+up|give\s+in|relapse|gamble)\b|` +
		`^i\s+(?:resisted|made\s+it\s+through|got\s+through\s+it|beat\s+it|rode\s+it\s+out|held\s+on)\b|` +
		`^i\s+managed\s+not\s+to\s+(?:drink|use)\b`)
	elderOngoingRe = regexp.MustCompile(`(?i)^(?:i'm|im|i\s+am)\s+still\s+(?:struggling|craving|tempted|fighting\s+it)\b|` +
		`^(?:i'm|im|i\s+am)\s+struggling\b|\bstill\s+(?:want|wanting)\s+to\s+(?:drink|use)\b|` +
		`^(?:the\s+)?(?:urges?|cravings?)\s+(?:is|are)\s+still\b|\bha(?:s|ve)n't\s+(?:passed|gone\s+away)\b`)
)

// elderResolution is what a clause says of how an urge ended: urge_passed,
// ongoing_struggle or "".
func elderResolution(c elderClause) string {
	text := strings.Replace(c.text, "I'm", "i'm", 1)
	if elderOngoingRe.MatchString(text) {
		return aggregate.OutcomeOngoing
	}
	if elderPassedRe.MatchString(text) && !elderHistoryRe.MatchString(text) {
		return aggregate.OutcomeUrgePassed
	}
	return ""
}

// Profile statements.
var (
	elderSponsorNameRe = regexp.MustCompile(`(?i)^my\s+(?:new\s+)?sponsor(?:'s\s+name)?\s+is\s+(?:now\s+|called\s+)?(.+)$|^i\s+(?:got|have|found|picked)\s+a\s+new\s+sponsor\s*(?:,|:|-|—|called|named)\s*(.+)$`)
	elderNameSponsorRe = regexp.MustCompile(`^(\p{Lu}[\p{L}'-]*)\s+is\s+(?:now\s+)?my\s+(?:new\s+)?sponsor\b`)
	elderHasSponsorRe  = regexp.MustCompile(`(?i)^i\s+(?:have|got|found|picked)\s+(?:a|a\s+new)\s+sponsor\b`)
	elderNoSponsorRe   = regexp.MustCompile(`(?i)^i\s+(?:don't|do\s+not|dont)\s+have\s+a\s+sponsor\b|^i\s+(?:have\s+no|no\s+longer\s+have\s+a)\s+sponsor\b|` +
		`^i\s+(?:fired|lost|dropped|left)\s+my\s+sponsor\b|^my\s+sponsor\s+(?:and\s+i\s+)?(?:split\s+up|parted\s+ways|dropped\s+me|quit|fired\s+me|relapsed|passed\s+away|died)\b`)
	elderLeftFellowshipRe = regexp.MustCompile(`(?i)^i\s+(?:stopped|quit)\s+(?:going\s+to\s+)?(?:the\s+|my\s+)?(?:meetings|aa|na|ca|ga|smart\s+recovery|the\s+program|my\s+(?:home\s+)?group|the\s+fellowship|fellowship)\b|` +
		`^i\s+(?:left|dropped\s+out\s+of)\s+(?:aa|na|ca|ga|smart\s+recovery|the\s+program|my\s+(?:home\s+)?group|the\s+fellowship)\b|` +
		`^i\s+(?:don't|do\s+not|dont)\s+go\s+to\s+(?:meetings|aa|na|ca|ga)\s+any\s*more\b|^(?:i'm|im|i\s+am)\s+(?:not\s+going\s+to\s+meetings\s+any\s*more|done\s+with\s+(?:aa|na|meetings|the\s+program))\b`)
	elderJoinedFellowshipRe = regexp.MustCompile(`(?i)^i\s+(?:joined|found)\s+(?:a|an|the|my)\s+(?:new\s+)?(?:\w+\s+){0,2}(?:group|meeting|fellowship)\b|^i\s+(?:joined|started\s+going\s+to|went\s+back\s+to|started\s+attending|go\s+to)\s+(aa|na|ca|ga|smart\s+recovery|celebrate\s+recovery|meetings)\b|` +
		`^(?:i'm|im|i\s+am)\s+(?:back\s+)?in\s+(aa|na|ca|ga|smart\s+recovery)\b|^i\s+got\s+a\s+home\s+group\b|` +
		// "I go to a women's AA meeting on Tuesdays", "Still go to my home group every Thursday".
		`^(?:i\s+)?(?:still\s+|also\s+|usually\s+|always\s+)?(?:go|attend|hit)\s+(?:to\s+)?(?:a|an|the|my|our)\s+(?:[\w']+\s+){0,2}?(?:(aa|na|ca|ga)\s+)?(?:meetings?|home\s+group|group)\b`)
	elderSoberRe = regexp.MustCompile(`(?i)^(?:(?:i'm|im|i\s+am|i've\s+been|ive\s+been|i\s+have\s+been)\s+(?:now\s+|officially\s+|finally\s+)?|today\s+(?:is|marks)\s+|i\s+(?:have|hit|reached|made\s+it\s+to|just\s+hit)\s+)?` +
		`(\d{1,5}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|ninety|hundred)\s+(days?|weeks?|months?|years?)\s+(?:sober|clean|of\s+sobriety)(?:\s+(?:from|off)\s+(?:my\s+)?[\w']+)?(?:\s+(?:today|now|as\s+of\s+today))?$|` +
		`^(?:i'm|im|i\s+am|i've\s+been|ive\s+been|i\s+have\s+been)\s+(?:sober|clean)\s+(?:for\s+)?(\d{1,5}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|ninety|hundred)\s+(days?|weeks?|months?|years?)(?:\s+(?:from|off)\s+(?:my\s+)?[\w']+)?(?:\s+(?:now|today))?$`)
	elderSobrietyDateRe = regexp.MustCompile(`(?i)^my\s+(?:sobriety|clean|sober)\s+date\s+is\s+(.+)$`)
)

var elderTens = map[string]int{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
	"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}

// A time sober said in other orders than elderSoberRe's: a count with a
// sober word after it ("Fourteen months sober as of this morning", "2
// years clean from cocaine", "5 months out from my last bet", "90 days
// alcohol-free") or before it ("been off heroin 10 months", "sober 19 days
// from alcohol"). What comes before it must be the user saying it
// (elderSoberLead): "he's been clean 22 years" is the sponsor's.
const (
	elderNum  = `(\d{1,5}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)`
	elderUnit = `(days?|weeks?|months?|years?)`
	elderOff  = `(?:sober|clean|dry|free|off\s+(?:the\s+)?([\w']+)|([\w']+)[- ]free)`
)

var (
	elderCountFirstRe = regexp.MustCompile(`(?i)\b` + elderNum + `\s+(?:full\s+|whole\s+)?` + elderUnit + `\s+(?:of\s+)?(?:` + elderOff +
		`|sobriety|out\s+from\s+my\s+last\s+[\w']+|since\s+my\s+last\s+[\w']+|without\s+(?:a\s+)?(?:drink|drinking|using|bet|betting|gambling|hit|fix))\b`)
	elderCountAfterRe = regexp.MustCompile(`(?i)\b` + elderOff + `\s+(?:from\s+[\w']+\s+)?(?:for\s+)?(?:about\s+|almost\s+|nearly\s+|over\s+|just\s+over\s+)?` + elderNum + `\s+` + elderUnit + `\b`)
	// A date ahead after the count makes it an anniversary to come ("sober
	// for three years this June"), not the time sober now.
	elderSoberAhead = regexp.MustCompile(`(?i)^\s*(?:this|next|in|come|on)\s+(?:january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|fall|autumn|winter|week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)
	// The words that may come before a time sober the user says of
	// themselves ("I've got", "been", "Today marks", "still").
	elderSoberLead = extract.WordSet("i i'm im i've ive i'd am have has got been now just officially finally today is marks hit reached made it to over almost nearly about still and so well yeah yes ok okay as of already be will i'll ill hi hey m ve that's thats that this")
	// A count alone after a sentence that says sober or clean ("Still
	// clean. 323 days.").
	elderBareCountRe = regexp.MustCompile(`(?i)^` + elderNum + `\s+` + elderUnit + `(?:\s+(?:now|today|and\s+counting|strong|in))?$`)
	elderSoberWordRe = regexp.MustCompile(`(?i)\b(?:sober|clean|sobriety)\b`)

	// "with my sponsor, Rick", "my sponsor Imani".
	elderSponsorApposRe = regexp.MustCompile(`\b(?i:my\s+(?:new\s+)?sponsor),?\s+(\p{Lu}[\p{L}'-]+)\b`)
	// "His name is Walt" after a sentence that gets a sponsor.
	elderTheirNameRe = regexp.MustCompile(`^(?i:(?:his|her|their)\s+name(?:'s|\s+is))\s+(\p{Lu}[\p{L}'-]+)\b`)
	elderTherapistRe = regexp.MustCompile(`(?i)^(?:(?:i\s+(?:see|have|started\s+seeing|go\s+to)\s+a\s+(?:new\s+)?(?:therapist|counsell?or|psychologist|psychiatrist))|my\s+(?:new\s+)?(?:therapist|counsell?or|psychologist|psychiatrist))\b`)
)

// elderOwnLead reports whether the words before a match leave it the
// user's: none of them names someone else.
func elderOwnLead(before string) bool {
	for _, w := range grammar.LowerWords(before) {
		if elderOthers[w] {
			return false
		}
	}
	return true
}

// elderSoberSpan reads a time sober in days from a clause's text to the end
// of its sentence (see elderCountFirstRe); ok false when there is none, it
// is not the user's, or a substance named with it is none.
func elderSoberSpan(text string) (elderSpan, bool) {
	for _, re := range []*regexp.Regexp{elderCountFirstRe, elderCountAfterRe} {
		m := re.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		for _, w := range grammar.LowerWords(text[:m[0]]) {
			if !elderSoberLead[w] {
				return elderSpan{}, false
			}
		}
		if elderSoberAhead.MatchString(text[m[1]:]) || elderLastNotUse.MatchString(text[m[0]:m[1]]) {
			return elderSpan{}, false
		}
		var n, unit, thing string
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return text[m[2*i]:m[2*i+1]]
		}
		if re == elderCountFirstRe {
			n, unit, thing = g(1), g(2), g(3)+g(4)
		} else {
			thing, n, unit = g(1)+g(2), g(3), g(4)
		}
		if thing != "" {
			if _, ok := elderSubstanceWords[strings.ToLower(thing)]; !ok && !elderSoberThings[strings.ToLower(thing)] {
				return elderSpan{}, false // "off work 3 days", "3 days pain-free"
			}
		}
		return elderDays(n, unit)
	}
	return elderSpan{}, false
}

// elderSoberThings are what one is off or free of, beside elderSubstanceWords.
var elderSoberThings = extract.WordSet("bottle sauce booze stuff juice gear drugs drug alcohol it them everything substance substances")

var elderFellowships = map[string]string{"aa": "AA", "na": "NA", "ca": "CA", "ga": "GA", "smart recovery": "SMART Recovery", "celebrate recovery": "Celebrate Recovery"}

// elderProfile reads the profile statements of a clause into p.
func elderProfile(c elderClause, loc *time.Location, p map[string]any) {
	text := c.tail
	if m := elderSponsorNameRe.FindStringSubmatch(text); m != nil {
		if name := grammar.ParseName(m[1] + m[2]); name != "" && !grammar.NotAName(strings.ToLower(name)) && !elderNotNames[strings.ToLower(strings.Fields(name)[0])] {
			p["has_sponsor"], p["sponsor_name"] = true, name
			return
		}
	}
	if m := elderNameSponsorRe.FindStringSubmatch(text); m != nil && !elderNotNames[strings.ToLower(m[1])] {
		if name := grammar.ParseName(m[1]); name != "" {
			p["has_sponsor"], p["sponsor_name"] = true, name
			return
		}
	}
	// Negated forms are the statement itself here: test them before the
	// negation check the positive ones need.
	if elderNoSponsorRe.MatchString(text) {
		p["has_sponsor"] = false
		delete(p, "sponsor_name")
		return
	}
	if elderLeftFellowshipRe.MatchString(text) {
		p["in_fellowship"] = false
		return
	}
	if grammar.Negated(c.words) {
		return
	}
	if elderHasSponsorRe.MatchString(text) {
		p["has_sponsor"] = true
		return
	}
	if elderTherapistRe.MatchString(text) {
		p["has_therapist"] = true
	}
	if m := elderJoinedFellowshipRe.FindStringSubmatch(text); m != nil {
		p["in_fellowship"] = true
		for _, g := range m[1:] {
			if f, ok := elderFellowships[strings.ToLower(strings.Join(strings.Fields(g), " "))]; ok {
				p["fellowship_name"] = f
			}
		}
		return
	}
	m := elderSoberRe.FindStringSubmatch(strings.TrimRight(text, ".! "))
	if m == nil && c.text != text {
		m = elderSoberRe.FindStringSubmatch(strings.TrimRight(c.text, ".! ")) // "14 months sober and grateful"
	}
	if m != nil {
		n, unit := m[1], m[2]
		if n == "" {
			n, unit = m[3], m[4]
		}
		if span, ok := elderDays(n, unit); ok {
			elderSetSober(p, span, c.at, loc)
			if exact, ok := elderExactBeside(c.sent); ok && elderAgree(span, exact) {
				elderSetSober(p, exact, c.at, loc) // "14 months sober (day 428)"
			}
		}
		return
	}
	if days, ok := elderDayCount(c); ok {
		elderSetSober(p, elderSpan{days: days, dayCount: true}, c.at, loc)
		return
	}
	if span, ok := elderSoberSpan(c.tail); ok {
		elderSetSober(p, span, c.at, loc)
		if exact, ok := elderExactBeside(c.sent); ok && elderAgree(span, exact) {
			elderSetSober(p, exact, c.at, loc) // "14 months sober (day 428)"
		}
		return
	}
	for _, re := range []*regexp.Regexp{elderSobrietyDateRe, elderSinceRe} {
		if m := re.FindStringSubmatch(strings.TrimRight(text, ".!… ")); m != nil {
			if ds := extract.ResolveDatesTense(m[1], c.at, loc, extract.TensePast); len(ds) > 0 && ds[0].Start == 0 {
				elderSetStart(p, ds[0].Date, c.at, loc)
			}
			return
		}
	}
}

// elderNotNames are words after "my sponsor is" that are no name.
var elderNotNames = extract.WordSet("great amazing awesome busy away out sick on off in gone tough strict kind nice helpful good bad mad angry upset worried proud always never really very super so pretty too older younger")

// elderSpan is a stated time sober: days (a week is 7), or months (a year
// is 12) counted by the calendar back from the day it was said. said is
// the count as the user put it when it is months or years ("14 months"),
// dayCount whether it was a day count ("day 428").
type elderSpan struct {
	days, months int
	said         string
	dayCount     bool
}

// elderDays is a stated time sober: n units (days, weeks, months, years).
func elderDays(n, unit string) (elderSpan, bool) {
	k, err := strconv.Atoi(n)
	if err != nil {
		var ok bool
		if k, ok = extract.NumberWord(strings.ToLower(n)); !ok {
			if k, ok = elderTens[strings.ToLower(n)]; !ok {
				return elderSpan{}, false
			}
		}
	}
	if k < 0 || k > 100*365 {
		return elderSpan{}, false
	}
	u := strings.TrimSuffix(strings.ToLower(unit), "s")
	var span elderSpan
	switch u {
	case "week":
		span.days = 7 * k
	case "month":
		span.months = k
	case "year":
		span.months = 12 * k
	default:
		span.days = k
	}
	if span.days > 100*365 || span.months > 100*12 {
		return elderSpan{}, false
	}
	if span.months > 0 {
		span.said = strconv.Itoa(k) + " " + u
		if k != 1 {
			span.said += "s"
		}
	}
	return span, true
}

// --- Sobriety, step work, identity, triggers and risky events ahead
// (issue 23; docs/presets.md, Elder Tree: profile).

// elderSetSober records a time sober, said on the day of at (in loc):
// recovery_start_date that long before that day (months by the calendar:
// "14 months" on 24 November is 24 September of the year before) and
// sobriety_days the days between. A statement later in the session, or a
// reset ("Day 4 sober again"), replaces it: the last statement wins, and a
// later start date supersedes the profile's (Cues then sees a relapse),
// except that a count in months or years does not replace a day count
// said before it in the session that it agrees with to within its unit
// ("day 428 … 14 months sober": the day count is the exact one). A count
// in months or years is kept as said too (FieldSobrietySaid).
func elderSetSober(p map[string]any, span elderSpan, at time.Time, loc *time.Location) {
	y, m, d := at.In(loc).Date()
	day := extract.Civil(y, m, d)
	start := day.AddDate(0, -span.months, -span.days)
	if span.months > 0 && p[elderExact] == true {
		if prev, ok := extract.Date(p["recovery_start_date"]); ok {
			slack := 31
			if span.months%12 == 0 {
				slack = 366
			}
			if diff := prev.Sub(start) / (24 * time.Hour); diff >= time.Duration(-slack) && diff <= time.Duration(slack) {
				return
			}
		}
	}
	p["sobriety_days"] = int(day.Sub(start) / (24 * time.Hour))
	p["recovery_start_date"] = start.Format(time.DateOnly)
	if span.said != "" {
		p[FieldSobrietySaid] = span.said
	} else {
		delete(p, FieldSobrietySaid)
	}
	if span.dayCount || span.months == 0 {
		p[elderExact] = true
	} else {
		delete(p, elderExact)
	}
}

// elderExactRe is a count in days beside a count in months in one
// sentence, set apart: "14 months sober (day 428)", "… - 428 days to be
// exact", "…, day 428 actually". Group 1 is a day number, group 2 a number
// of days.
var elderExactRe = regexp.MustCompile(`(?i)(?:\(|\s-\s|\s–\s|,|;|\bactually\b|\bor\b|\bwell\b)\s*(?:it's\s+|its\s+|that's\s+|thats\s+|so\s+)?(?:day\s+(\d{1,5})|(\d{1,5})\s+days)\b`)

// elderExactBeside is the count in days a sentence sets beside a count in
// months (elderExactRe), as a day count.
func elderExactBeside(sent string) (elderSpan, bool) {
	m := elderExactRe.FindStringSubmatch(sent)
	if m == nil {
		return elderSpan{}, false
	}
	if m[1] != "" {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > 100*365 {
			return elderSpan{}, false
		}
		return elderSpan{days: n - 1, dayCount: true}, true
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n > 100*365 {
		return elderSpan{}, false
	}
	return elderSpan{days: n, dayCount: true}, true
}

// elderLastNotUse is a count since something that is no use: "3 days
// since my last craving" counts no time sober.
var elderLastNotUse = regexp.MustCompile(`(?i)\bmy\s+last\s+(?:craving|urge|meeting|session|call|chat|check-in|checkin|appointment|visit|therapy|shift)\b`)

// elderAgree reports whether a count in days is the count in months said
// beside it, to within its unit (a month, or a year for a count in years):
// "14 months sober, 3 days since my last craving" is two things.
func elderAgree(months, days elderSpan) bool {
	if months.months == 0 {
		return false
	}
	slack := 34
	if months.months%12 == 0 {
		slack = 369
	}
	approx := months.months * 365 / 12
	return abs(days.days-approx) <= slack
}

// elderCompoundRe is a time in years and months, or a year and a half:
// "a year and two months", "2 years and 3 months", "a year and a half",
// "two and a half years".
var elderCompoundRe = regexp.MustCompile(`(?i)\b` + elderNum + `\s+years?\s+and\s+(?:(a\s+half)|` + elderNum + `\s+months?)\b|\b` + elderNum + `\s+and\s+a\s+half\s+years\b`)

// elderCompoundSpan is sent with a compound time in years and months
// written as months ("a year and two months sober" is "14 months sober"),
// so that the patterns of one count read it.
func elderCompoundSpan(sent string) string {
	return elderCompoundRe.ReplaceAllStringFunc(sent, func(m string) string {
		g := elderCompoundRe.FindStringSubmatch(m)
		months := 0
		switch {
		case g[1] != "":
			y, ok := elderDays(g[1], "years")
			if !ok {
				return m
			}
			months = y.months
			if g[2] != "" {
				months += 6
			} else if mo, ok := elderDays(g[3], "months"); ok {
				months += mo.months
			} else {
				return m
			}
		case g[4] != "":
			y, ok := elderDays(g[4], "years")
			if !ok {
				return m
			}
			months = y.months + 6
		}
		return strconv.Itoa(months) + " months"
	})
}

// FieldSobrietySaid is the profile's time sober as the user last said it
// when they said it in months or years ("14 months"): sobriety_days is that
// counted by the calendar. A count in days, a date or a reset removes it.
const FieldSobrietySaid = "sobriety_said"

// elderExact marks, while a session is read, a profile whose time sober
// came from a count in days; it never leaves elderMine.
const elderExact = "\x00exact"

// elderSetStart records a recovery start date (YYYY-MM-DD) said on the day
// of at: recovery_start_date, and sobriety_days from it to that day. A
// date after that day is not recorded.
func elderSetStart(p map[string]any, date string, at time.Time, loc *time.Location) {
	start, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return
	}
	y, m, d := at.In(loc).Date()
	days := int(extract.Civil(y, m, d).Sub(start) / (24 * time.Hour))
	if days < 0 {
		return
	}
	p["recovery_start_date"] = date
	p["sobriety_days"] = days
	delete(p, FieldSobrietySaid)
	p[elderExact] = true
}

// elderDayRe reads a day count: "day 428", "Day 4 sober again", "today is
// day 30", "I'm on day 12", "back to day 1". Group 1 is the count, group 2
// what follows it.
var elderDayRe = regexp.MustCompile(`(?i)^(?:(?:it's|its|it\s+is|is|today\s+is|today's|todays|i'm\s+on|im\s+on|i\s+am\s+on|on|back\s+(?:to|at|on)|starting\s+(?:over\s+)?(?:at|from|on)|start(?:ed)?\s+(?:over\s+)?(?:at|from|on)|(?:i'm|im|i\s+am)\s+back\s+(?:to|at|on))\s+)?day\s+(\d{1,5}|one)\b(.*)$`)

// elderDayAfter are the words that may follow "day N" for it to be a day
// count ("day 3 of the conference" is not one).
var elderDayAfter = extract.WordSet("sober clean again today now here and for me of sobriety being recovery my no drinking using drink drugs alcohol booze actually technically exactly precisely officially counting")

// elderResetRe reads a reset without a count: "I had to reset my date",
// "I'm starting over at day one" is elderDayRe's.
var elderResetRe = regexp.MustCompile(`(?i)^(?:i\s+)?(?:had\s+to\s+|have\s+to\s+|just\s+)?reset(?:ting)?\s+my\s+(?:sobriety\s+|clean\s+|sober\s+)?(?:date|clock|count(?:er)?|days?|time)\b`)

// elderSinceRe reads "I've been sober since March 3"; group 1 is the date.
var elderSinceRe = regexp.MustCompile(`(?i)^(?:i'm|im|i\s+am|i've\s+been|ive\s+been|i\s+have\s+been|been)\s+(?:sober|clean)\s+since\s+(.+)$`)

// elderDayCount reads a day count or a reset from a clause: the days sober
// it says (day N is N−1 full days after the start day, so that "day 1" is
// the start day itself), and ok.
func elderDayCount(c elderClause) (int, bool) {
	if elderResetRe.MatchString(c.text) {
		return 0, true
	}
	m := elderDayRe.FindStringSubmatch(strings.TrimRight(c.text, ".!… "))
	if m == nil {
		return 0, false
	}
	n := 1
	if !strings.EqualFold(m[1], "one") {
		var err error
		if n, err = strconv.Atoi(m[1]); err != nil {
			return 0, false
		}
	}
	if n < 1 || n > 100*365 {
		return 0, false
	}
	rest := grammar.LowerWords(m[2])
	if len(rest) > 0 && !elderDayAfter[rest[0]] {
		return 0, false
	}
	if len(rest) > 1 && rest[0] == "of" && !elderDayAfter[rest[1]] {
		return 0, false // "day 3 of the trip"
	}
	return n - 1, true
}

// elderStepNumbers are the ways a step is numbered: "4", "four", "fourth", "4th".
var elderStepNumbers = func() map[string]int {
	out := map[string]int{}
	ords := []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"}
	words := []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	sfx := []string{"st", "nd", "rd", "th", "th", "th", "th", "th", "th", "th", "th", "th"}
	for i := range 12 {
		n := strconv.Itoa(i + 1)
		out[n], out[ords[i]], out[words[i]], out[n+sfx[i]] = i+1, i+1, i+1, i+1
	}
	return out
}()

const (
	elderStepSubject = `(?i)^(?:(?:i|we|[\w']+\s+and\s+i|me\s+and\s+[\w']+)(?:'m|m|\s+am|'re|re|\s+are|'ve|ve|\s+have)?(?:\s+been)?\s+)?(?:(?:now|currently|still|finally|just|actually|officially|already)\s+)*`
	elderStepObject  = `(?:my\s+|the\s+)?(?:step\s+(\w+)|(\w+)\s+step)\b(.*)$`
)

var (
	// "working step 4", "I'm on my fourth step", "I started step 5".
	elderStepNowRe = regexp.MustCompile(elderStepSubject +
		`(?:(?:started|starting|begun|began|beginning)\s+(?:on\s+|working\s+(?:on\s+)?|to\s+work\s+(?:on\s+)?)?|(?:working|doing)\s+(?:on\s+)?|on\s+|in\s+|at\s+|(?:moving|moved)\s+(?:on\s+)?(?:to|into)\s+|(?:redoing|repeating|restarting|start|starting\s+over\s+(?:on|with)|back\s+(?:on|to|at))\s+)` + elderStepObject)
	// "finished my fourth step", "I'm done with step 3".
	elderStepDoneRe = regexp.MustCompile(elderStepSubject +
		`(?:finished|completed|did|done|through|wrapped\s+up|got\s+through)\s+(?:with\s+)?(?:working\s+)?` + elderStepObject)
)

// elderStepAfter are words after "step N" that make it some other step
// ("the first step toward …", "the second step of the recipe").
var elderStepAfter = extract.WordSet("of toward towards to in at for forward back")

// elderStep reads step work from a clause: the step and whether it was
// completed (false: being worked now); ok false when the clause says none.
func elderStep(c elderClause) (step int, done, ok bool) {
	if grammar.Negated(c.words) {
		return 0, false, false
	}
	for _, re := range []*regexp.Regexp{elderStepDoneRe, elderStepNowRe} {
		m := re.FindStringSubmatch(c.text)
		if m == nil {
			continue
		}
		n := elderStepNumbers[strings.ToLower(cmpOr(m[1], m[2]))]
		rest := grammar.LowerWords(m[3])
		if n == 0 || (len(rest) > 0 && elderStepAfter[rest[0]] && !(rest[0] == "in" && len(rest) > 1 && rest[1] == "my")) {
			continue
		}
		return n, re == elderStepDoneRe, true
	}
	return 0, false, false
}

// cmpOr is the first non-empty string.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Identity: the name the user gives and what they are recovering from.
var (
	elderNameRe   = regexp.MustCompile(`(?i)^(?:my\s+name\s+is|my\s+name's|(?:you\s+can\s+|please\s+)?call\s+me|i\s+go\s+by)\s+(.+)$`)
	elderIntroRe  = regexp.MustCompile(`^(?i:i'm|im|i\s+am)\s+(\p{Lu}[\p{L}'-]*)\s*(?:$|,|\.|!|(?i:and)\b)`)
	elderNotIntro = extract.WordSet(`sober clean fine good okay ok here back done tired sorry grateful struggling alcoholic addict not so just still really doing feeling going new ready glad happy sad scared afraid worried angry lonely bored proud thankful blessed home out in on
		catholic christian jewish muslim buddhist hindu atheist agnostic pagan protestant baptist mormon
		american british english irish scottish welsh canadian mexican german french italian spanish australian indian chinese japanese
		sober clean okay alright ok well better worse sick ill hungry thirsty`)
)

// elderSubstanceWords name what someone is in recovery from, as the
// addiction_type label they give.
var elderSubstanceWords = map[string]string{
	"alcohol": "alcohol", "alcoholic": "alcohol", "alcoholism": "alcohol", "drinking": "alcohol", "booze": "alcohol", "drink": "alcohol",
	"opioids": "opioids", "opioid": "opioids", "opiates": "opioids", "opiate": "opioids", "painkillers": "opioids", "oxy": "opioids",
	"oxycodone": "opioids", "oxycontin": "opioids", "percocet": "opioids", "vicodin": "opioids",
	"heroin": "heroin", "fentanyl": "fentanyl", "cocaine": "cocaine", "coke": "cocaine", "crack": "crack cocaine",
	"meth": "methamphetamine", "methamphetamine": "methamphetamine", "crystal": "methamphetamine",
	"weed": "cannabis", "marijuana": "cannabis", "cannabis": "cannabis", "pot": "cannabis",
	"gambling": "gambling", "gambler": "gambling", "betting": "gambling",
	"benzos": "benzodiazepines", "benzodiazepines": "benzodiazepines", "xanax": "benzodiazepines",
	"pills": "pills", "drugs": "drugs", "nicotine": "nicotine", "smoking": "nicotine", "cigarettes": "nicotine", "vaping": "nicotine",
	"ketamine": "ketamine", "kratom": "kratom", "gaming": "gaming",
	"wine": "alcohol", "beer": "alcohol", "liquor": "alcohol", "vodka": "alcohol", "whiskey": "alcohol", "whisky": "alcohol",
	"bourbon": "alcohol", "gin": "alcohol", "rum": "alcohol", "tequila": "alcohol", "bottle": "alcohol",
	"bets": "gambling", "poker": "gambling", "slots": "gambling", "heroine": "heroin", "percs": "opioids", "norco": "opioids",
	"adderall": "stimulants", "speed": "amphetamines", "molly": "MDMA", "ecstasy": "MDMA",
}

var elderSubstanceRes = []*regexp.Regexp{
	// "I'm an alcoholic", "I'm a recovering heroin addict", "I'm a gambler".
	regexp.MustCompile(`(?i)^(?:hi\s+)?(?:i'm|im|i\s+am)\s+(?:a|an)\s+(?:recovering\s+|sober\s+|grateful\s+|functioning\s+)?(?:(\w+)\s+)?(alcoholic|gambler|addict)\b`),
	// "addicted to pills", "in recovery from alcohol", "14 months clean from heroin".
	regexp.MustCompile(`(?i)\b(?:addicted\s+to|(?:in\s+recovery|recovering|sober|clean)\s+from)\s+(?:my\s+)?(\w+)()`),
	// "my drug of choice was meth".
	regexp.MustCompile(`(?i)\bmy\s+(?:drug\s+of\s+choice|doc)\s+(?:is|was)\s+(\w+)()`),
	// "my gambling addiction", "my drinking problem".
	regexp.MustCompile(`(?i)\bmy\s+(\w+)\s+(?:addiction|habit|problem)()\b`),
	// "Opioids were my thing", "meth is what I keep going back to".
	regexp.MustCompile(`(?i)^(\w+)\s+(?:was|were|is|are)\s+(?:my|the)\s+(?:thing|drug|poison|vice|weakness|demon|problem|go-to|escape)\b()|^(\w+)\s+(?:is|was|are|were)\s+what\s+i\s+(?:keep\s+)?(?:going\s+back\s+to|go\s+back\s+to|struggle(?:d)?\s+with|used|use|was\s+hooked\s+on|got\s+hooked\s+on)()`),
	// "sober 19 days from alcohol", "been off heroin 10 months".
	regexp.MustCompile(`(?i)\b(?:sober|clean)\s+(?:for\s+)?\S+\s+(?:days?|weeks?|months?|years?)\s+(?:from|off)\s+(?:my\s+)?(\w+)()|\b(?:been|i'm|im|i\s+am|stayed|staying|got|getting|stay)\s+(?:clean\s+)?off\s+(?:the\s+)?(\w+)()`),
	// A fragment naming it: "Weed and booze both.", "Gambling, not booze".
	regexp.MustCompile(`(?i)^(\w+)(?:\s+and\s+\w+(?:\s+both)?[.!]?$|\s*,\s*not\s+\w+|\s*,\s*mostly\b|\s+mostly[.!]?$|[.!]?$)()`),
	// "I quit drinking".
	regexp.MustCompile(`(?i)^i\s+(?:quit|stopped|gave\s+up)\s+(drinking|gambling)()\b`),
}

// elderIdentity reads the user's name and addiction_type from a clause into p.
func elderIdentity(c elderClause, p map[string]any) {
	if m := elderNameRe.FindStringSubmatch(c.text); m != nil {
		if name := grammar.ParseName(m[1]); name != "" && !elderNotNames[strings.ToLower(strings.Fields(name)[0])] {
			p["preferred_name"] = name
		}
	} else if m := elderIntroRe.FindStringSubmatch(c.text); m != nil {
		w := strings.ToLower(m[1])
		if _, sub := elderSubstanceWords[w]; !sub && !elderNotIntro[w] && !elderNotNames[w] && !grammar.NotAName(w) && !elderOthers[w] {
			if name := grammar.ParseName(m[1]); name != "" {
				p["preferred_name"] = name
			}
		}
	}
	for _, re := range elderSubstanceRes {
		loc := re.FindStringSubmatchIndex(c.text)
		if loc == nil {
			continue
		}
		before := grammar.LowerWords(c.text[:loc[0]])
		if grammar.Negated(before) || grammar.Negated(grammar.LowerWords(c.text[loc[0]:loc[1]])) || slices.ContainsFunc(before, func(w string) bool { return elderOthers[w] }) {
			continue
		}
		// The word is the first group that matched (a pattern of
		// alternatives has one pair of groups each).
		word, second := "", 4
		for i := 2; i+1 < len(loc); i += 4 {
			if loc[i] >= 0 {
				word, second = strings.ToLower(c.text[loc[i]:loc[i+1]]), i+2
				break
			}
		}
		kind := elderSubstanceWords[word]
		if kind == "" && second > 0 && second+1 < len(loc) && loc[second] >= 0 {
			switch strings.ToLower(c.text[loc[second]:loc[second+1]]) {
			case "alcoholic":
				kind = "alcohol"
			case "gambler":
				kind = "gambling"
			}
		}
		if kind != "" {
			p["addiction_type"] = kind
			return
		}
	}
}

// Triggers the user names outside an urge: "payday is a big trigger for
// me", "loneliness triggers me", "my triggers are stress and payday", "I
// get triggered by conflict".
var (
	elderTriggersAreRe = regexp.MustCompile(`(?i)^my\s+(?:biggest\s+|main\s+|real\s+|usual\s+|top\s+)?triggers?\s+(?:is|are|was|were|include)\s+(.+)$`)
	elderIsTriggerRe   = regexp.MustCompile(`(?i)^(.+?)\s+(?:is|are|was|has\s+been)\s+(?:still\s+|always\s+|really\s+)?(?:a|an|my|the|one\s+of\s+my)\s+(?:\w+\s+)?triggers?\b|` +
		// "Family holidays, that's my trigger".
		`^(.+?),\s+(?:that's|thats|that\s+is|those\s+are|they're|theyre|it's|its)\s+(?:a|an|my|the)\s+(?:\w+\s+)?triggers?\b|` +
		// "Concerts are risky for me", "Late nights are still my danger zone", "Evenings are the worst".
		`^(.+?)\s+(?:is|are|has\s+been|have\s+been)\s+(?:still\s+|always\s+|really\s+|so\s+)?(?:(?:risky|dangerous|tricky|hard|tough|rough)\s+for\s+me|(?:my|a)\s+(?:danger\s+zone|weak\s+spot|red\s+flag|slippery\s+slope)|the\s+(?:worst|hardest|toughest|most\s+dangerous)(?:\s+(?:time|part|for\s+me))?)(?:$|[,.;!]|\s+(?:for|when|because|since|with|around|now))`)
	elderTriggersMeRe  = regexp.MustCompile(`(?i)^(.+?)\s+(?:really\s+|always\s+|still\s+)?triggers\s+me\b`)
	elderTriggeredByRe = regexp.MustCompile(`(?i)^i\s+(?:get|got|am|'m|m|feel)\s+(?:really\s+|so\s+)?triggered\s+by\s+(.+)$`)
)

// elderNotTriggerSubjects are subjects of "X is a trigger" that name nothing.
var elderNotTriggerSubjects = extract.WordSet("it that this what which everything anything something nothing there he she they you who today tonight yesterday tomorrow life things stuff")

// elderNamedTriggers are the triggers a clause names outright, as labels.
func elderNamedTriggers(c elderClause) []string {
	text := strings.TrimRight(c.tail, ".!… ")
	if grammar.Negated(grammar.LowerWords(c.text)) {
		return nil
	}
	var list string
	switch {
	case elderTriggersAreRe.MatchString(text):
		list = elderTriggersAreRe.FindStringSubmatch(text)[1]
	case elderTriggeredByRe.MatchString(text):
		list = elderTriggeredByRe.FindStringSubmatch(text)[1]
	default:
		var subj string
		if m := elderIsTriggerRe.FindStringSubmatch(text); m != nil {
			subj = m[1] + m[2] + m[3]
		} else if m := elderTriggersMeRe.FindStringSubmatch(text); m != nil {
			subj = m[1]
		}
		ws := strings.Fields(strings.ToLower(subj))
		for len(ws) > 0 && (ws[0] == "my" || ws[0] == "the" || ws[0] == "and" || ws[0] == "but" || ws[0] == "also") {
			ws = ws[1:]
		}
		if len(ws) == 0 || len(ws) > 5 || elderNotTriggerSubjects[ws[0]] || elderOthers[ws[0]] {
			return nil
		}
		if l := extract.Label(strings.Join(ws, " ")); l != "" {
			return []string{l}
		}
		return nil
	}
	var out []string
	for _, part := range regexp.MustCompile(`\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+`).Split(list, 5) {
		if l := extract.Label(elderPhrase(strings.TrimPrefix(strings.TrimPrefix(part, "my "), "the "))); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// A risky event ahead: an occasion where drink or drugs are likely
// (elderEventRe), said with a date on or after the day it was said
// ("next Friday I have a work happy hour", "my cousin's wedding on
// Saturday, open bar"). It becomes the summary's upcoming_events and a
// risky_event cue dated for that day (Cues). A sentence that turns it down
// ("I'm skipping the party on Friday") or tells of the past ("I went to a
// party on Saturday") gives none; neither does one about someone else with
// no word of the user's own.
var elderEventRe = regexp.MustCompile(`(?i)\b(happy\s+hours?|bachelor(?:ette)?\s+part(?:y|ies)|stag\s+(?:do|night)|hen\s+(?:do|night)|open\s+bar|` +
	`(?:dinner\s+|holiday\s+|office\s+|work\s+|christmas\s+|birthday\s+)?part(?:y|ies)|weddings?|wedding\s+receptions?|receptions?|` +
	`(?:a|the)\s+(?:bar|pub|club)|bars\s+with|pub\s+crawl|nightclubs?|clubbing|concerts?|festivals?|tailgat(?:e|es|ing)|barbecues?|bbqs?|cookouts?|reunions?|` +
	`work\s+(?:drinks|dinner|event|trip|conference|do)|(?:out\s+for|grab(?:bing)?|having|for)\s+drinks|drinks\s+(?:with|after)|` +
	`poker\s+night|casinos?|vegas|funerals?|wakes?|(?:bottomless\s+)?brunch|family\s+(?:gathering|dinner|reunion|christmas|thanksgiving)|` +
	`thanksgiving|christmas\s+(?:eve|dinner)|new\s+year'?s(?:\s+eve)?|super\s+bowl|game\s+day|birthday|anniversar(?:y|ies))\b`)

// elderEventRefused marks a sentence that turns the event down.
var elderEventRefused = regexp.MustCompile(`(?i)\b(?:not\s+going|won't\s+(?:be\s+)?go(?:ing)?|can't\s+go|(?:don't|dont|do\s+not)\s+have\s+to\s+go|skip(?:ping)?|skipped|cancel(?:l?ed|ling|s)?|avoid(?:ing|ed)?|decided\s+(?:not|against)|no\s+longer\s+going|got\s+out\s+of)\b`)

// elderEventLead are words before an event word that are not part of its
// name.
var elderEventLead = extract.WordSet("a an the my our his her their your this that these next last on at to for with and or but i we is are was were have has had going go went be get got attend attending big huge little fun first annual another same at in of from be it's its there's theres")

// elderSelf are the words that put the user in a sentence as a subject or object.
var elderSelf = extract.WordSet("i i'm im i've ive i'd i'll me we we're we'll us myself")

// elderMaxEvents caps the risky events one session records.
const elderMaxEvents = 3

// elderUpcoming reads a risky event ahead from a user's sentence said at
// at (in loc).
func elderUpcoming(sent string, at time.Time, loc *time.Location) (extract.UpcomingEvent, bool) {
	ev := elderEventRe.FindStringSubmatchIndex(sent)
	if ev == nil || elderEventRefused.MatchString(sent[:ev[0]]) {
		return extract.UpcomingEvent{}, false
	}
	// Someone else's event, with no word of the user's own: "my brother
	// has a party next week" (but "my cousin's wedding on Saturday" is the
	// user's to go to).
	words := grammar.LowerWords(sent)
	subj := words
	if len(subj) > 0 && subj[0] == "my" {
		subj = subj[1:]
	}
	if len(subj) > 0 && elderOthers[subj[0]] && !strings.HasSuffix(subj[0], "'s") &&
		!slices.ContainsFunc(words, func(w string) bool { return elderSelf[w] }) {
		return extract.UpcomingEvent{}, false
	}
	if elderTellsPast(words) {
		return extract.UpcomingEvent{}, false
	}
	y, m, d := at.In(loc).Date()
	today := extract.Civil(y, m, d).Format(time.DateOnly)
	date, dist := "", -1
	for _, dm := range extract.ResolveDates(sent, at, loc) {
		if dm.Date < today {
			continue
		}
		far := min(abs(dm.Start-ev[1]), abs(dm.End-ev[0]))
		if dist < 0 || far < dist {
			date, dist = dm.Date, far
		}
	}
	if date == "" {
		return extract.UpcomingEvent{}, false
	}
	name := strings.ToLower(strings.Join(strings.Fields(sent[ev[2]:ev[3]]), " "))
	for _, lead := range []string{"a ", "the ", "out for ", "grab ", "grabbing ", "having ", "for "} {
		name = strings.TrimPrefix(name, lead)
	}
	// Up to two words before it that name it ("work happy hour", "cousin's wedding").
	before := strings.Fields(strings.ToLower(sent[:ev[0]]))
	var lead []string
	for i := len(before) - 1; i >= 0 && len(lead) < 2; i-- {
		w := strings.TrimFunc(before[i], func(r rune) bool { return unicode.IsPunct(r) && r != '\'' })
		if w != before[i] && !strings.HasSuffix(w, "'s") || w == "" || elderEventLead[w] || extract.IsWeekday(w) ||
			strings.IndexFunc(w, unicode.IsDigit) >= 0 || elderFirstPerson[w] {
			break
		}
		lead = append([]string{w}, lead...)
	}
	if len(lead) > 0 {
		name = strings.Join(lead, " ") + " " + name
	}
	if name != "open bar" && strings.Contains(strings.ToLower(sent), "open bar") {
		name += " with an open bar"
	}
	name = extract.Label(name)
	if name == "" {
		return extract.UpcomingEvent{}, false
	}
	return extract.UpcomingEvent{Date: date, Event: name}, true
}

// elderPastWords and elderAheadWords tell a sentence about what happened
// from one about what is to come, when a weekday alone ("on Saturday")
// leaves the date's direction open: "I drank on Saturday at the party"
// is over; "I was invited to a wedding next Saturday" is not.
var (
	elderPastWords  = extract.WordSet("was were had did went drank drunk used got came made took saw spent relapsed slipped left stayed ended")
	elderAheadWords = extract.WordSet("will ll gonna going next tomorrow tonight upcoming coming have has is are am i'm im we're there's theres plan planning invited later soon should m re")
	elderNotPast    = extract.WordSet("need feed bed red wed speed seed shed weed bleed breed proceed exceed succeed indeed")
)

// elderTellsPast reports a sentence that tells of the past and of nothing
// ahead.
func elderTellsPast(words []string) bool {
	past := false
	for i, w := range words {
		if (w == "i've" || w == "ive" || w == "we've" || w == "weve") && i+1 < len(words) && words[i+1] == "got" {
			return false // "I've got a festival in two weeks": having, now
		}
		w = strings.TrimPrefix(strings.TrimPrefix(w, "i'"), "we'")
		if elderAheadWords[w] {
			return false
		}
		if elderPastWords[w] || (len(w) > 4 && strings.HasSuffix(w, "ed") && !elderNotPast[w]) {
			past = true
		}
	}
	return past
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// RiskExtras are the relapse cues read in Elder Tree's messages only: the
// substance at hand, or the first drink after sober days, is a relapse in
// progress (medium).
func (kindElderTree) RiskExtras() []extract.RiskPhrasing { return riskExtras }

var riskExtras = []extract.RiskPhrasing{
	extract.Phrasing(extract.RiskSubstance, extract.SeverityMedium, `\b(?:got|have|holding|bought|poured|opened)\s+(?:the\s+|a\s+|my\s+)?(?:needle|bag|bottle|drink|baggie|stash|gear|pills)\s+(?:ready|here|in\s+my\s+hand|in\s+front\s+of\s+me|right\s+here|open)\b|\bfirst\s+drink\s+in\s+[0-9a-z]+\s+(?:days|months|years)\b|\bback\s+on\s+(?:it|the\s+\w+)\s+after\b`),
}

// ScoredProfile is the profile updates as the evaluation scores them
// (eval.ProfileScorer): recovery_start_date is sobriety_days said as a date
// (the rules set both from one statement), one fact, scored once, by the
// count the user said: sobriety_said when they said months or years. Whether the streak is unconfirmed is state the
// rules keep beside what was said (unconfirmed.go), no fact of the
// evaluation's.
func (kindElderTree) ScoredProfile(profile map[string]any) map[string]any {
	_, days := profile["sobriety_days"]
	_, streak := profile[FieldStreakUnconfirmed]
	_, stated := profile[FieldSobrietySaid]
	if days || streak || stated {
		profile = maps.Clone(profile)
		if days {
			delete(profile, "recovery_start_date")
		}
		if stated { // "14 months", as said: the days are it counted
			delete(profile, "sobriety_days")
		}
		delete(profile, FieldStreakUnconfirmed)
		delete(profile, FieldStreakUnconfirmedSince)
	}
	return profile
}

// ScoredSummary hands the evaluation (eval.SummaryScorer) what the summary
// keeps in shapes its generic walk does not read:
//
//   - the risky events ahead, which the follow-up is about: the fixed
//     sentence that points to them says no event, the list holds each
//     event's label;
//   - every trigger named under "triggers", a key the evaluation's
//     categories do not know (the profile's is known_triggers): scored as
//     the triggers they are;
//   - the follow-up of a hint at a relapse (FollowUpUnconfirmed), a fixed
//     sentence that names nothing said: not scored.
func (kindElderTree) ScoredSummary(summary map[string]any, add func(key string, value any)) map[string]any {
	if summary["follow_up_needed"] == FollowUpUnconfirmed {
		// A fixed sentence that names nothing the user said.
		summary = maps.Clone(summary)
		delete(summary, "follow_up_needed")
	}
	if evs, ok := summary["upcoming_events"]; ok {
		summary = maps.Clone(summary)
		if summary["follow_up_needed"] == FollowUpRiskyEvent {
			delete(summary, "follow_up_needed")
		}
		if list, ok := asJSON(evs).([]any); ok {
			for _, e := range list {
				if o, ok := e.(map[string]any); ok {
					ev, _ := o["event"].(string)
					add("follow_up:risky_event", ev)
				}
			}
		}
	}
	if ts, ok := summary["triggers"]; ok {
		summary = maps.Clone(summary)
		delete(summary, "triggers")
		add("known_triggers", ts)
	}
	return summary
}

// asJSON is v as JSON decodes it (typed lists and maps become []any and
// map[string]any), so that ScoredSummary reads one shape.
func asJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return v
	}
	return out
}
