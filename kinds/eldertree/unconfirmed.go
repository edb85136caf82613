package eldertree

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/grammar"
)

// An unconfirmed streak (issue 32 §5; docs/presets.md, Elder Tree:
// unconfirmed streak). A user who hints at drinking or using without
// saying it ("I didn't exactly stick to soda water", "a few became a lot",
// "woke up not remembering the drive home", "a bottle stashed just in
// case", "I don't want to talk about counting days") has not told a
// relapse, and the rules do not assert one; but the streak can no longer
// be counted as if nothing was said. The profile then holds
// streak_unconfirmed true and streak_unconfirmed_since, the day the hints
// are about; the pack tells the companion to check in gently instead of
// counting days, and the page shows the streak as unconfirmed since that
// day. A later plain statement settles it: a relapse ("I drank on
// Saturday": the existing relapse rules restart the streak) or a plain
// statement of staying sober ("no, I stayed sober at the wedding", "I
// didn't drink", a time sober stated again) sets streak_unconfirmed false.
// Within one session the last of them wins, and a relapse anywhere wins.
//
// The two fields are ordinary profile fields: each keeps its own timeline
// of statements, so a session handed over late changes nothing a later
// one settled, the same session processed twice states the same values
// again, and the user sees and may edit them like any other field.
const (
	FieldStreakUnconfirmed      = "streak_unconfirmed"
	FieldStreakUnconfirmedSince = "streak_unconfirmed_since"
)

// FollowUpUnconfirmed is the follow-up of a session that hinted at a
// relapse, when it needs no other. It is a fixed sentence, never the
// user's words.
const FollowUpUnconfirmed = "Check in gently about how things have been since the hints at drinking or using; do not assume either way."

// What the session's last statement about the streak was.
const (
	streakNone   = iota
	streakHinted // a hint at a relapse
	streakSober  // a plain statement of staying sober
)

// hint records a hint about day (YYYY-MM-DD): the streak is unconfirmed
// since the earliest day of the hints after the last plain statement.
func (said *elderSaid) hint(day string) {
	if said.streak != streakHinted || day < said.since {
		said.since = day
	}
	said.streak = streakHinted
}

// sober records a plain statement of staying sober.
func (said *elderSaid) sober() { said.streak, said.since = streakSober, "" }

// elderStreakState writes what the session said of the streak into the
// profile updates and the summary: a relapse (the summary's outcome)
// settles it, else the last hint or plain statement does.
func elderStreakState(sum, profile map[string]any, said elderSaid) {
	switch {
	case sum["outcome"] == aggregate.OutcomeRelapsed:
		profile[FieldStreakUnconfirmed] = false
	case said.streak == streakHinted:
		profile[FieldStreakUnconfirmed] = true
		profile[FieldStreakUnconfirmedSince] = said.since
		if f, _ := sum["follow_up_needed"].(string); f == "" {
			sum["follow_up_needed"] = FollowUpUnconfirmed
		}
	case said.streak == streakSober:
		profile[FieldStreakUnconfirmed] = false
	}
}

// The drinks someone sticks to when they stay sober.
const elderSoberDrinks = `(?:soda(?:\s+water)?|sparkling\s+water|club\s+soda|seltzer|water|mocktails?|soft\s+drinks?|lemonade|coke|diet\s+coke|` +
	`ginger\s+ale|tonic(?:\s+water)?|juice|iced\s+tea|tea|coffee|na\s+beers?|non[- ]?alcoholic\s+\w+|alcohol[- ]free\s+\w+|virgin\s+\w+)`

// The hints, each read in a clause and the rest of its sentence; a match
// must start in the clause.
var (
	// "I didn't exactly stick to soda water", "couldn't stay on the wagon",
	// "I wasn't exactly sober".
	elderHintSoberRe = regexp.MustCompile(`(?i)\b(?:didn't|didnt|did\s+not|couldn't|couldnt|could\s+not|wasn't\s+able\s+to|failed\s+to)\s+` +
		`(?:(?:exactly|quite|really|entirely|totally|completely|fully|strictly|100%|all\s+that|manage\s+to)\s+)*` +
		`(?:(?:stick|keep|stay)\s+(?:to|with|on)\s+(?:the\s+|my\s+)?(?:` + elderSoberDrinks + `|wagon|(?:sober|sobriety)\s+plan|plan\s+to\s+stay\s+sober)|stay\s+(?:sober|dry|clean))\b|` +
		`\b(?:wasn't|wasnt|was\s+not|not)\s+(?:exactly|entirely|totally|completely|quite|strictly|100%|fully)\s+(?:sober|dry|clean)\b`)
	// "a few became a lot", "one drink turned into five", "one led to another".
	elderHintMoreRe = regexp.MustCompile(`(?i)^(?:(?:and|but|so|then|well|yeah|honestly)\s+)*(?:just\s+)?` +
		`(?:a\s+few|one|a\s+couple|one\s+or\s+two|a\s+little|(?:a\s+couple\s+of|a\s+few|one|a)\s+(?:drinks?|beers?|glass(?:es)?(?:\s+of\s+wine)?|shots?|hits?|lines?|pills?|bets?))\s+` +
		`(?:became|turned\s+into|led\s+to|ended\s+up\s+(?:as|being)|snowballed\s+into|went\s+to)\s+` +
		`(?:a\s+lot(?:\s+more)?|lots|many|more|way\s+more|too\s+many|way\s+too\s+many|several|another|a\s+dozen|a\s+bunch|a\s+few\s+more|the\s+whole\s+bottle|a\s+bottle|` +
		`two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|\d+)\b`)
	// "woke up sunday not remembering the drive home", "I blacked out",
	// "I don't remember getting home", "last night is a blur".
	elderHintBlackoutRe = regexp.MustCompile(`(?i)\b(?:woke\s+up|came\s+to|came\s+round)\b[^.;!?]{0,40}?\b(?:not|without|couldn't|could\s+not|can't|cannot|didn't|did\s+not|don't|no)\s+(?:remember(?:ing)?|recall(?:ing)?|memory|idea\s+how)\b|` +
		`\b(?:blacked\s+out|had\s+a\s+blackout)\b|` +
		`\b(?:don't|do\s+not|can't|cannot|can\s+not|couldn't|could\s+not)\s+(?:really\s+)?(?:remember|recall)\s+(?:the\s+drive\s+home|driving\s+home|getting\s+home|how\s+i\s+got\s+home|` +
		`(?:most|much|any|half|the\s+rest|the\s+end)\s+of\s+(?:the|last|that)\s+night|last\s+night|the\s+night)\b`)
	// "Last night is a blur", read in the whole sentence (a clause starts
	// after a leading date).
	elderHintBlurRe = regexp.MustCompile(`(?i)^(?:(?:and|but|so|honestly|well)\s+)?(?:the\s+night|last\s+night|saturday\s+night|friday\s+night|the\s+rest\s+of\s+the\s+night|the\s+whole\s+night|` +
		`most\s+of\s+(?:it|the\s+night)|the\s+evening|the\s+weekend|the\s+party|the\s+wedding)\s+(?:is|was)\s+(?:a\s+)?(?:total\s+|complete\s+|bit\s+of\s+a\s+|bit\s+)?(?:blur|blank|haze)\b`)
	// "I've got a bottle stashed in the car just in case", "I hid a flask".
	elderHintStashRe = regexp.MustCompile(`(?i)\b(?:a|my|the|one|some|an)\s+(?:(?:little|small|spare|emergency|secret|hidden|back-?up|travel|airplane|mini)\s+)?` +
		`(bottles?|flasks?|fifth|pint|mickey|handle|stash|baggie|six-?pack|cans?\s+of\s+beer)(?:\s+of\s+([\w-]+))?\b`)
	elderStashedRe = regexp.MustCompile(`(?i)\b(?:stashed|stash|hidden|hid|hide|hiding|tucked\s+away|squirrell?ed\s+away|stowed)\b|\bjust\s+in\s+case\b|\bfor\s+emergencies\b|\bfor\s+a\s+rainy\s+day\b`)
	// Getting rid of it is the opposite of a hint: "I poured out the bottle I had stashed".
	elderStashGoneRe = regexp.MustCompile(`(?i)\b(?:poured|pour|threw|throw|tossed|dumped|emptied|got\s+rid\s+of|gave\s+away|handed|flushed|found)\b`)
	// "I don't want to talk about counting days", "can we not talk about my
	// streak", "I'd rather not discuss my sober date".
	elderHintCountRe = regexp.MustCompile(`(?i)(?:\b(?:don't|dont|do\s+not)\s+(?:really\s+)?(?:want|wanna|feel\s+like)\s+(?:to\s+)?|\b(?:i'd|id|i\s+would)\s+rather\s+not\s+|` +
		`\b(?:can|could)\s+we\s+(?:not|skip)\s+|\blet's\s+not\s+|\blets\s+not\s+|\bplease\s+don't\s+|^don't\s+)` +
		`(?:talk(?:ing)?\s+about|discuss(?:ing)?|go(?:ing)?\s+(?:into|over)|get(?:ting)?\s+into|ask(?:ing)?\s+(?:me\s+)?about|bring(?:ing)?\s+up|mention(?:ing)?|focus(?:ing)?\s+on|` +
		`look(?:ing)?\s+at|think(?:ing)?\s+about)\s+(?:(?:my|the|our)\s+)?` +
		`(?:counting\s+(?:the\s+)?days|day\s+count|days\s+count|(?:sober|sobriety|clean)\s+(?:days|time|date|count|streak)|streak|count|(?:number\s+of\s+)?days|milestones?)\b`)
)

// elderHintNot are words that make what looks like a blackout or a hint
// something else: surgery, a dream, a faint.
var elderHintNot = extract.WordSet("surgery operation anesthesia anaesthesia anesthetic anaesthetic sedation sedated procedure concussion seizure seizures dream dreams nightmare nap fainted faint migraine accident colonoscopy medication meds")

// elderHint reports whether a clause hints at drinking or using without
// saying it (see the patterns above): the user's own, not hedged, not
// about what may come, not history. In a question only avoiding the
// count is one ("can we not talk about my streak?").
func elderHint(c elderClause, question bool) bool {
	words := grammar.LowerWords(c.sent)
	if slices.ContainsFunc(words, func(w string) bool { return elderHintNot[w] }) || elderHistoryRe.MatchString(c.text) {
		return false
	}
	at := func(re *regexp.Regexp) (int, int, bool) {
		m := re.FindStringSubmatchIndex(c.tail)
		if m == nil || m[0] >= len(c.text) {
			return 0, 0, false
		}
		return m[0], m[1], true
	}
	mine := func(start, opens int) bool {
		before := grammar.LowerWords(c.tail[:start])
		return elderOwn(before, opens) && !slices.Contains(grammar.Hedges(before), true)
	}
	// Avoiding the count is a wish ("I don't want to …"): read before the
	// clause is skipped as one.
	if s, _, ok := at(elderHintCountRe); ok && mine(s, 1) {
		return true
	}
	if question || elderSkip(c) {
		return false
	}
	if s, _, ok := at(elderHintSoberRe); ok && mine(s, 1) {
		return true
	}
	if _, _, ok := at(elderHintMoreRe); ok {
		return true
	}
	if s, _, ok := at(elderHintBlackoutRe); ok && mine(s, 0) && !grammar.Negated(grammar.LowerWords(c.tail[:s])) {
		return true
	}
	if elderHintBlurRe.MatchString(c.sent) {
		return true
	}
	if m := elderHintStashRe.FindStringSubmatchIndex(c.tail); m != nil && m[0] < len(c.text) {
		before := grammar.LowerWords(c.tail[:m[0]])
		thing := ""
		if m[4] >= 0 {
			thing = strings.ToLower(c.tail[m[4]:m[5]])
		}
		if thing != "" && (elderNotAlcohol[thing] || thing == "water" || thing == "sparkling" || thing == "pills") {
			return false // "a bottle of water"; a bottle of pills is medicine
		}
		stashed := elderStashedRe.MatchString(c.tail[m[2]:])
		if strings.HasPrefix(strings.ToLower(c.tail[m[2]:m[3]]), "stash") {
			stashed = true // "my stash"
		}
		if !stashed {
			stashed = elderStashedRe.MatchString(c.tail[:m[0]]) // "I hid a bottle"
		}
		return stashed && mine(m[0], 2) && !grammar.Negated(before) && !elderStashGoneRe.MatchString(c.sent)
	}
	return false
}

// A plain statement of staying sober, read at a clause's start: "I stayed
// sober at the wedding", "I stuck to soda water all night", "I didn't
// drink", "I haven't had a drink", "I'm still sober".
var elderSoberSaidRe = regexp.MustCompile(`(?i)^(?:(?:no|nope|nah|actually|honestly|really|and|but|so)[,]?\s+)*(?:` +
	`(?:i\s+)?(?:stayed|remained|kept|was|were)\s+(?:totally\s+|completely\s+|fully\s+|stone[- ]cold\s+|100%\s+)?(?:sober|clean|dry)\b|` +
	`(?:i'm|im|i\s+am)\s+still\s+(?:sober|clean|dry)\b|` +
	`(?:i\s+)?(?:stuck|kept)\s+(?:to|with)\s+(?:the\s+|my\s+)?` + elderSoberDrinks + `\b|` +
	`(?:i\s+)?(?:only|just)\s+(?:had|drank)\s+(?:the\s+|some\s+)?` + elderSoberDrinks + `\b|` +
	`i\s+(?:didn't|didnt|did\s+not|never|haven't|havent|have\s+not|hadn't)\s+(?:even\s+)?(?:drink|drunk|drank|use|used|touch(?:ed)?\s+(?:a\s+drop|alcohol|a\s+drink|anything|it)|` +
	`(?:have|had)\s+(?:a|one|any|a\s+single)\s+(?:drink|drop|sip|beer)|pick(?:ed)?\s+up|relapse|relapsed|slip|slipped)\b|` +
	`not\s+(?:a\s+drop|one\s+drink|a\s+single\s+drink)\b)`)

// elderSoberSaid reports a plain statement of staying sober in a clause.
// One about today alone ("I didn't drink today") says nothing of the day
// a hint was about, unless it says "still".
func elderSoberSaid(c elderClause, loc *time.Location) bool {
	m := elderSoberSaidRe.FindStringIndex(c.text)
	if m == nil || elderSkip(c) || elderHistoryRe.MatchString(c.text) {
		return false
	}
	if strings.Contains(strings.ToLower(c.text), "still") {
		return true
	}
	y, mo, d := c.at.In(loc).Date()
	today := extract.Civil(y, mo, d).Format(time.DateOnly)
	for _, dm := range extract.ResolveDatesTense(c.tail, c.at, loc, extract.TensePast) {
		if dm.Date == today {
			return false
		}
	}
	return true
}

// elderHintWindow is how far before the day it was said a date said in an
// earlier sentence may date a hint; elderHintContext how many of the
// user's sentences before it are read for one.
const (
	elderHintWindow  = 14
	elderHintContext = 4
)

// elderPastDay is the day a past date said in text is about (YYYY-MM-DD,
// in loc, on or before the day of at): "last week" is its last day, "last
// month" its last, never later than that day; "" when text says none.
func elderPastDay(text string, at time.Time, loc *time.Location) string {
	ds := extract.ResolveDatesTense(text, at, loc, extract.TensePast)
	if len(ds) == 0 {
		return ""
	}
	y, mo, d := at.In(loc).Date()
	today := extract.Civil(y, mo, d)
	day := ds[0].Date
	// "last week", "last month": the day may be any of it; its last day (or
	// today) keeps the streak from being overstated.
	if t, err := time.Parse(time.DateOnly, day); err == nil {
		switch strings.ToLower(strings.Join(strings.Fields(ds[0].Wording), " ")) {
		case "last week":
			t = t.AddDate(0, 0, 6)
		case "last month":
			t = t.AddDate(0, 1, -1)
		}
		if t.After(today) {
			t = today
		}
		day = t.Format(time.DateOnly)
	}
	if day > today.Format(time.DateOnly) {
		return ""
	}
	return day
}

// elderHintDay is the day a hint said at at is about: a past date in its
// own sentence; else the newest said in the user's sentences just before
// it (recent, oldest first), within elderHintWindow days ("my cousin's
// wedding last saturday. open bar. I didn't exactly stick to soda
// water"); else the day it was said.
func elderHintDay(own string, recent []string, at time.Time, loc *time.Location) string {
	if own != "" {
		return own
	}
	y, mo, d := at.In(loc).Date()
	today := extract.Civil(y, mo, d)
	earliest := today.AddDate(0, 0, -elderHintWindow).Format(time.DateOnly)
	for i := len(recent) - 1; i >= 0; i-- {
		if recent[i] != "" && recent[i] >= earliest {
			return recent[i]
		}
	}
	return today.Format(time.DateOnly)
}

// elderStatesCount runs f, which may state a time sober into p, and
// reports whether it did: sobriety_days is set by f (a count, a reset or
// a start date), even to the value it had.
func elderStatesCount(p map[string]any, f func()) bool {
	old, had := p["sobriety_days"]
	delete(p, "sobriety_days")
	f()
	if _, now := p["sobriety_days"]; now {
		return true
	}
	if had {
		p["sobriety_days"] = old
	}
	return false
}

// UnconfirmedSince reads an unconfirmed streak from a profile and the
// user's newest session summaries: ok when streak_unconfirmed is true and
// the streak has not started again on or after the day it is about (a
// relapse told since, a reset); since is that day, zero when the profile
// does not say it.
func UnconfirmedSince(prof map[string]any, sums []extract.PastSummary) (since time.Time, ok bool) {
	if prof[FieldStreakUnconfirmed] != true {
		return time.Time{}, false
	}
	since, dated := extract.Date(prof[FieldStreakUnconfirmedSince])
	if from, _, started := packElderStreakFrom(prof, sums); started && dated && extract.PackCivilDays(since, from) >= 0 {
		return time.Time{}, false // the streak started again after it
	}
	if !dated {
		since = time.Time{}
	}
	return since, true
}

// packElderUnconfirmed is the pack's streak line while the streak is
// unconfirmed (UnconfirmedSince): no count, and what to do instead.
func packElderUnconfirmed(prof map[string]any, sums []extract.PastSummary) (string, bool) {
	since, ok := UnconfirmedSince(prof, sums)
	if !ok {
		return "", false
	}
	when := "unconfirmed: the user recently hinted at drinking or using without saying so"
	if !since.IsZero() {
		when = "unconfirmed since " + since.Format("Mon 2 Jan 2006") + ": the user hinted at drinking or using then without saying so"
	}
	return "Current streak: " + when + ". Do not congratulate them on their streak or count their days; check in gently first, without assuming either way.", true
}

// packElderHintFollowUp reports a summary whose follow-up is the fixed one
// of a hint at a relapse: the streak's line says it while the streak is
// unconfirmed, and it is stale once settled.
func packElderHintFollowUp(d map[string]any) bool {
	return extract.Text(d["follow_up_needed"]) == FollowUpUnconfirmed
}

// CompleteLLM keeps what the rules read of the streak when the model's
// answer says nothing of it: a hint the model passed over still leaves
// the streak unconfirmed, and a relapse the model found settles it.
func (k kindElderTree) CompleteLLM(llm, rules extract.Result) extract.Result {
	out := k.BaseKind.CompleteLLM(llm, rules)
	prof := maps.Clone(out.ProfileUpdates)
	if prof == nil {
		prof = map[string]any{}
	}
	if _, said := prof[FieldStreakUnconfirmed]; !said {
		if v, ok := rules.ProfileUpdates[FieldStreakUnconfirmed]; ok {
			prof[FieldStreakUnconfirmed] = v
			if since, ok := rules.ProfileUpdates[FieldStreakUnconfirmedSince]; ok && v == true {
				prof[FieldStreakUnconfirmedSince] = since
			}
		}
	}
	if extract.Text(out.SessionSummary["outcome"]) == aggregate.OutcomeRelapsed {
		prof[FieldStreakUnconfirmed] = false
		delete(prof, FieldStreakUnconfirmedSince)
	}
	out.ProfileUpdates = prof
	return out
}
