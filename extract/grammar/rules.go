package grammar

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

func mineSession(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	var mems []extract.Memory
	users := 0
	loc := sessionZone(s.Timezone)
	prev := ""
	for i, m := range s.Messages {
		if i > 0 && !isUser(s.Messages[i-1].Role) {
			prev = s.Messages[i-1].Content
		} else {
			prev = ""
		}
		if !isUser(m.Role) {
			continue
		}
		users++
		content := strings.ToValidUTF8(m.Content, "\uFFFD")
		if reason, ok := extract.Sensitive(content); ok {
			res.Dropped = append(res.Dropped, extract.Dropped{MessageID: m.ID, Reason: "sensitive:" + reason})
			continue
		}
		at := m.At
		if at.IsZero() {
			at = now
		}
		found, reasons := mineMessageAt(content, dateContext{at: at, loc: loc, on: true, notes: p.Notes})
		if asked := favoriteAsked(prev); asked != "" && len(found) == 0 {
			// "What's your favourite colour?" "Orange!": the answer names
			// the favourite the other speaker just asked about.
			if m, ok := favoriteAnswer(asked, content); ok {
				found = append(found, m)
			}
		}
		if len(found) == 0 && prev != "" {
			// "Where are you living now?" "austin. been here like 3 yrs."
			found = append(found, answerTo(prev, content)...)
		}
		for _, r := range reasons {
			res.Dropped = append(res.Dropped, extract.Dropped{MessageID: m.ID, Reason: r})
		}
		for _, f := range found {
			f.SourceMessageID, f.StatedAt = m.ID, at.UTC()
			f.ExpiresAt = extract.TTLFor(p, f.Category, ttlStart(f, at, loc))
			mems = append(mems, f)
		}
	}
	res.Memories = lastWins(mems)
	topics := make([]string, 0, len(res.Memories))
	for _, m := range res.Memories {
		topics = append(topics, m.Key)
	}
	slices.Sort(topics)
	res.SessionSummary = map[string]any{
		"message_count":      len(s.Messages),
		"user_message_count": users,
		"memories":           len(res.Memories),
		"topics":             topics,
	}
}

// favoriteAskedRe is a question about one favourite: "What's your
// favourite colour?", "what is your favorite food?".
var favoriteAskedRe = regexp.MustCompile(`(?i)\bwhat(?:'s|s|\s+is|\s+was)\s+your\s+(?:(?:absolute|all[- ]time|very)\s+)?fav(?:ou?rite|e)\s+((?:[\p{L}\-]+\s+){0,2}[\p{L}\-]+)\s*\?\s*$`)

// favoriteAsked is the thing whose favourite the other speaker's message
// ends by asking for, or "".
func favoriteAsked(msg string) string {
	if msg == "" || !strings.HasSuffix(strings.TrimSpace(msg), "?") || !containsFoldASCII(msg, "fav") {
		return ""
	}
	m := favoriteAskedRe.FindStringSubmatch(strings.TrimSpace(msg))
	if m == nil {
		return ""
	}
	return m[1]
}

// answerLead may open a short answer: "Oh, orange", "Mine is navy blue",
// "Definitely pizza".
var answerLead = []string{"oh", "ah", "hmm", "um", "well", "mine is", "mine's", "it's", "it is", "definitely", "probably", "easily", "gotta be", "has to be", "that would be", "that'd be", "i'd say", "i would say", "i guess", "i think", "ooh", "oh man", "honestly", "for sure"}

// notAnswers are replies that name no favourite.
var notAnswers = toSet("yes yeah yep no nope sure maybe thanks thank ok okay haha lol idk same hi hello hey hola good great nice cool wow really what why how both all none nothing everything anything that this it you too")

// favoriteAnswer reads a reply that opens with a short noun phrase ("Red.",
// "Mine is navy blue!", "Papaya. It's so sweet") as the favourite asked
// about. A reply that opens with a clause, a question or a word of
// notAnswers says none.
func favoriteAnswer(thing, reply string) (extract.Memory, bool) {
	first, ws, ok := replyHead(reply, false)
	if !ok {
		return extract.Memory{}, false
	}
	if len(ws) == 0 || len(ws) > 4 || notAnswers[ws[0]] || slicesContainsAny(ws, clauseSubjects) || slicesContainsAny(ws, newSubjects) || hedged(first) {
		return extract.Memory{}, false
	}
	for _, w := range ws {
		if notAnswers[w] && len(ws) == 1 || w == "you" || w == "your" || w == "is" || w == "are" || w == "was" {
			return extract.Memory{}, false
		}
	}
	m, _ := favorite(thing, first)
	if m.Key == "" {
		return extract.Memory{}, false
	}
	m, reason := completeValue(m)
	return m, reason == "" && m.Key != ""
}

// lastWins keeps, for every subject, only its last memory, in the order in
// which the kept memories were said.
func lastWins(mems []extract.Memory) []extract.Memory {
	mems = plainBeatsChange(mems)
	last := make(map[string]int, len(mems))
	for i, m := range mems {
		if j, ok := last[subject(m.Key)]; ok && m.Key == "occupation" && restates(mems[j].Value, m.Value) {
			continue
		}
		last[subject(m.Key)] = i
	}
	out := make([]extract.Memory, 0, len(last))
	for i, m := range mems {
		if last[subject(m.Key)] == i {
			out = append(out, m)
		}
	}
	return out
}

// restates reports whether the occupation later says the same job as
// earlier in other words: the same head noun ("school teacher", then "I
// teach third grade"), without all of earlier's words (which would make it
// the fuller statement: "teacher", then "kindergarten teacher"). The first
// wording is kept; a new job ("nurse", then "actually I'm a paramedic")
// replaces it.
func restates(earlier, later string) bool {
	e, l := lowerWords(earlier), lowerWords(later)
	if len(e) == 0 || len(l) == 0 || e[len(e)-1] != l[len(l)-1] {
		return false
	}
	for _, w := range e {
		if !slices.Contains(l, w) {
			return true
		}
	}
	return false
}

// dateContext is when and where a message was said, to resolve the dates
// of its events; a zero one resolves none.
type dateContext struct {
	at  time.Time
	loc *time.Location
	on  bool
	// notes keeps a first-person statement no pattern keys as a note
	// (prompts.Policy.Notes).
	notes bool
}

// mineMessage mines one user message, sentence by sentence, without dating
// its events. reasons are the distinct reasons for which a sentence that
// looked like a statement about the user was not mined.
func mineMessage(text string) (found []extract.Memory, reasons []string) {
	return mineMessageAt(text, dateContext{})
}

// mineMessageAt is mineMessage, giving event memories the date their
// sentence names (EventDate, Wording) when dc is on.
func mineMessageAt(text string, dc dateContext) (found []extract.Memory, reasons []string) {
	addReason := func(r string) {
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	message := apostrophes.Replace(text)
	lastFrom := -1 // where in found the last sentence's memories begin
	for _, sent := range hedgedClauses(statementHeads(splitSentences(withoutReported(message)))) {
		from := len(found)
		if shouted(sent.text) {
			// "I LOVE PIZZA": capitals that mark no proper noun.
			sent.text = strings.ToLower(sent.text)
		}
		if !sent.question && lastFrom >= 0 && lastFrom < from && retracts(sent.text) {
			// "I'm a nurse. well, I was, until last year": what the
			// sentence before said holds no longer.
			for _, m := range found[lastFrom:from] {
				if m.Change == nil {
					found = append(found, ending("until", m.Value, m.Key))
				}
			}
			found = append(found[:lastFrom], found[from:]...)
			addReason(DropPast)
			lastFrom = -1
			continue
		}
		lastFrom = from
		hits, rejected := matchSentence(sent.text, clauseStarts(sent.text))
		if gate := gateReason(sent); gate != "" {
			// "I might like sushi" is worth recording: without "might" it
			// would have been mined.
			hedgedOnly := gate == extract.DropUncertain && looksMineable(withoutHedges(sent.text))
			if len(hits) > 0 || len(rejected) > 0 || hedgedOnly || gate == extract.DropRequest || looksMineable(sent.text) {
				addReason(gate)
			}
			continue
		}
		if sarcastic(sent.text, message) {
			// "I just LOVE mondays": said to mean the opposite.
			if len(hits) > 0 || looksMineable(sent.text) {
				addReason(DropSarcasm)
			}
			continue
		}
		if loose(sent.text) {
			// "I'm vegan-ish", "idk, I like jazz".
			if len(hits) > 0 || looksMineable(sent.text) {
				addReason(DropHedged)
			}
			continue
		}
		// Changes of what the user said before, and the facts the
		// patterns miss, clause by clause; a clause that states a change
		// makes no other memory ("I quit the roaster" is no event).
		extra := append(kinEvent(sent.text, dc), intoList(sent.text)...)
		segs, at := segments(sent.text)
		if len(extra) > 0 {
			hits = slices.DeleteFunc(hits, func(h hit) bool { return h.m.Category == extract.CategoryEvent || strings.HasPrefix(h.m.Key, "likes:") })
		}
		for j, seg := range segs {
			cs, consumed := changesOf(seg, dc)
			fs := factsOf(seg)
			extra = append(append(extra, cs...), fs...)
			if consumed || len(fs) > 0 {
				lo, hi := at[j], at[j]+len(seg)
				hits = slices.DeleteFunc(hits, func(h hit) bool { return h.at >= lo && h.at < hi })
				rejected = slices.DeleteFunc(rejected, func(r string) bool { return r == extract.DropNegated })
			}
		}
		if dc.notes && len(hits) == 0 && len(extra) == 0 && !slices.ContainsFunc(rejected, func(r string) bool { return r != extract.DropInvalidValue }) {
			// A disclosure no pattern keys ("I take care of my grandma"
			// matched a pattern whose value was no item): a note.
			if m, ok := noteOf(sent.text); ok {
				found = append(found, m)
				continue
			}
		}
		for _, r := range rejected {
			addReason(r)
		}
		if dc.on {
			dateEvents(sent.text, hits, dc)
		}
		for _, h := range hits {
			m, reason := completeValue(h.m)
			if reason != "" {
				addReason(reason)
				continue
			}
			found = append(found, m)
		}
		found = append(found, extra...)
	}
	return found, reasons
}

// justRe is the "I just …" of an event that happened the day it was told.
var justRe = regexp.MustCompile(`(?i)^(?:i|i've|ive|i\s+have)\s+just\b`)

// dateEvents gives each event of a sentence its date: the first date
// expression after the event's clause start and before the next memory's,
// or else the last one before it ("Last weekend I went to …"). An event of
// "I just …" with no date happened that day.
func dateEvents(text string, hits []hit, dc dateContext) {
	var mentions []extract.DateMention
	scanned := false
	for i, h := range hits {
		if h.m.Category != extract.CategoryEvent {
			continue
		}
		if !scanned {
			mentions, scanned = extract.ResolveDates(text, dc.at, dc.loc), true
		}
		next, prev := len(text), 0
		if i+1 < len(hits) {
			next = hits[i+1].at
		}
		if i > 0 {
			prev = hits[i-1].at
		}
		var pick *extract.DateMention
		for j := range mentions {
			mn := &mentions[j]
			if mn.Start >= h.at && mn.Start < next {
				pick = mn
				break
			}
			if mn.End <= h.at && mn.Start >= prev {
				pick = mn
			}
		}
		switch {
		case pick != nil:
			hits[i].m.EventDate, hits[i].m.Wording = pick.Date, pick.Wording
		case justRe.MatchString(text[h.at:]):
			hits[i].m.EventDate = dc.at.In(dc.loc).Format(time.DateOnly)
		}
	}
}

// statementHeads splits the statement off a question that follows it in
// one sentence: "I'm George, what's your name?" is the statement "I'm
// George" and the question "what's your name?"; "I love hiking, do you?"
// and "I have two cats, and you?" tell before they ask. A sentence that
// asks from its start stays one question.
func statementHeads(sents []sentence) []sentence {
	var out []sentence
	for i, st := range sents {
		if !st.question {
			if out != nil {
				out = append(out, st)
			}
			continue
		}
		head, tail, ok := splitTagQuestion(st.text)
		if !ok {
			if out != nil {
				out = append(out, st)
			}
			continue
		}
		if out == nil {
			out = append(make([]sentence, 0, len(sents)+1), sents[:i]...)
		}
		out = append(out, sentence{text: head}, sentence{text: tail, question: true})
	}
	if out == nil {
		return sents
	}
	return out
}

// conditionalHedges make every clause of their sentence hypothetical: "If
// it rains, I stay home", "I would move, and I'd sell the car".
var conditionalHedges = toSet("if unless would could should suppose imagine pretend wish hypothetically i'd we'd you'd whether")

// hedgedClauses splits a statement that a hedge makes uncertain into its
// clauses joined by ", and", ", but", ", so" or ";", so that the hedge
// gates only its own clause: "I'm in high school right now, and I'm
// thinking about going into physical therapy" tells that the user is in
// high school. A sentence with a conditional (if, would, …) stays whole.
func hedgedClauses(sents []sentence) []sentence {
	var out []sentence
	for i, st := range sents {
		parts := splitHedged(st)
		if len(parts) < 2 {
			if out != nil {
				out = append(out, st)
			}
			continue
		}
		if out == nil {
			out = append(make([]sentence, 0, len(sents)+len(parts)), sents[:i]...)
		}
		out = append(out, parts...)
	}
	if out == nil {
		return sents
	}
	return out
}

func splitHedged(st sentence) []sentence {
	if st.question || (!strings.Contains(st.text, ", ") && !strings.Contains(st.text, "; ")) || !hedged(st.text) {
		return nil
	}
	ws := lowerWords(st.text)
	for _, w := range ws {
		if conditionalHedges[w] || conditionalHedges[strings.TrimSuffix(strings.TrimSuffix(w, "n't"), "nt")] {
			return nil
		}
	}
	var out []sentence
	start := 0
	for i := 0; i+2 < len(st.text); i++ {
		c := st.text[i]
		if c != ',' && c != ';' {
			continue
		}
		rest := st.text[i+1:]
		w, _ := firstWord(strings.TrimLeft(rest, " ")+" ", 0)
		if c == ';' || w == "and" || w == "but" || w == "so" {
			if part := strings.TrimSpace(st.text[start:i]); part != "" {
				out = append(out, sentence{text: part})
			}
			start = i + 1
		}
	}
	if len(out) == 0 {
		return nil
	}
	if part := strings.TrimSpace(st.text[start:]); part != "" {
		out = append(out, sentence{text: part})
	}
	return out
}

// tagQuestions are the short questions that follow a statement: "…, and
// you?", "…, right?".
var tagQuestions = map[string]bool{"you": true, "and you": true, "what about you": true, "how about you": true, "right": true, "yourself": true, "and yourself": true, "how about yourself": true, "what about yourself": true}

// splitTagQuestion finds the first clause of s, after its first, that asks
// (opens with a question word, or is a tag question) and returns what
// comes before it and the question.
func splitTagQuestion(s string) (head, tail string, ok bool) {
	if !strings.Contains(s, ",") && !strings.Contains(s, " and ") && !strings.Contains(s, " but ") && !strings.Contains(s, " so ") {
		return "", "", false
	}
	if first, _ := firstWord(s, skipInterjections(s, 0)); questionStarts[first] {
		return "", "", false
	}
	for _, at := range clauseStarts(s)[1:] {
		rest := s[at:]
		first, _ := firstWord(rest, 0)
		if !questionStarts[first] && !tagQuestions[strings.ToLower(strings.Trim(strings.Join(lowerWords(rest), " "), " "))] {
			continue
		}
		head = strings.TrimRight(s[:at], " ,;:")
		for _, j := range []string{" and", " but", " so"} {
			if strings.HasSuffix(strings.ToLower(head), j) {
				head = strings.TrimRight(head[:len(head)-len(j)], " ,")
			}
		}
		if !hasAlnum(head) {
			return "", "", false
		}
		return head, rest, true
	}
	return "", "", false
}

// gateReason says why a sentence must not be mined at all, or "".
func gateReason(s sentence) string {
	if s.question {
		return extract.DropQuestion
	}
	if first, _ := firstWord(s.text, skipInterjections(s.text, 0)); questionStarts[first] {
		return extract.DropQuestion
	}
	if (containsFoldASCII(s.text, "i'd") || containsFoldASCII(s.text, "id ") || containsFoldASCII(s.text, "i would")) && requestRe.MatchString(s.text) {
		return extract.DropRequest
	}
	if hedged(s.text) {
		return extract.DropUncertain
	}
	return ""
}

// looksMineable reports whether some pattern matches anywhere in s, not only
// at a clause start: it decides whether a gated sentence is worth a Dropped
// entry ("Do you think I like tea?" is; "How are you?" is not).
func looksMineable(s string) bool {
	may := memoryMask(s)
	favs, mys := foldedAt(s, "fav"), foldedAt(s, "my ")
	if may&comparisonBit == 0 {
		mys = nil
	}
	for _, p := range wordStarts(s) {
		if _, ok, _ := matchPrefix(s[p:], false, may); ok {
			return true
		}
		// What matchAt's containsFoldASCII would say of s[p:]'s head,
		// from one scan of s.
		for len(favs) > 0 && favs[0] < p {
			favs = favs[1:]
		}
		for len(mys) > 0 && mys[0] < p {
			mys = mys[1:]
		}
		end := min(len(s), p+reverseWindow)
		fav := len(favs) > 0 && favs[0]+len("fav") <= end
		mine := len(mys) > 0 && mys[0]+len("my ") <= end
		if _, ok, _ := matchReverse(s[p:], fav, mine); ok {
			return true
		}
	}
	return false
}

// foldedAt lists the offsets in s of the lower-case ASCII needle, ignoring
// the case of ASCII letters in s, as containsFoldASCII finds it.
func foldedAt(s, needle string) []int {
	var at []int
	for i := 0; i+len(needle) <= len(s); i++ {
		if containsFoldASCII(s[i:i+len(needle)], needle) {
			at = append(at, i)
		}
	}
	return at
}

// hit is a memory mined at byte offset at of a sentence, where the words
// of its pattern begin.
type hit struct {
	m  extract.Memory
	at int
}

// matchSentence mines every clause start of s. rejected are the reasons for
// which a pattern matched but gave no memory (DropTooLong when its value was
// longer than MaxValueRunes). A date that opens a clause ("Last weekend, I
// went …") is read past, and tells the patterns of things to come that the
// clause is dated.
func matchSentence(s string, starts []int) (found []hit, rejected []string) {
	may := memoryMask(s)
	for _, st := range starts {
		p := skipInterjections(s, st)
		dated := false
		if q, ok := skipLeadingDate(s, p); ok {
			p, dated = skipInterjections(s, q), true
		}
		ms, ok, reason := matchAt(s[p:], dated, may)
		if !ok {
			continue
		}
		if reason != "" && !slices.Contains(rejected, reason) {
			rejected = append(rejected, reason)
		}
		for _, m := range ms {
			found = append(found, hit{m, p})
		}
	}
	// "I grew up on a farm and now live in the city": a clause after "and"
	// or "but" that opens with a verb has the subject of the clause before,
	// read as the user's when that subject is "I".
	for _, st := range starts {
		v := implicitSubject(s, st)
		if v < 0 {
			continue
		}
		ms, ok, reason := matchAt("i "+s[v:], false, memoryMask("i "+s[v:]))
		if !ok {
			continue
		}
		if reason != "" && !slices.Contains(rejected, reason) {
			rejected = append(rejected, reason)
		}
		for _, m := range ms {
			if !slices.ContainsFunc(found, func(h hit) bool { return strings.EqualFold(h.m.Value, m.Value) }) {
				found = append(found, hit{m, st})
			}
		}
	}
	return found, rejected
}

// sharedSubjectVerbs may open a clause whose subject is the one before:
// "… and live in the country", "… but love hiking".
var sharedSubjectVerbs = toSet("live work have own love like enjoy adore hate prefer teach study play speak volunteer collect grow grew moved run manage attend major plan want")

// sharedSubjectAdverbs may come between the joining word and the verb.
var sharedSubjectAdverbs = toSet("now also still currently really actually just even")

// clauseSubjectWords are the words that name who a clause is about; the nearest
// one before a shared-subject clause decides whose it is.
var clauseSubjectWords = toSet("i i'm im i've ive i'd i'll he she they we you it my his her their our your who which that he's she's they're we're you're it's")

// implicitSubject is where the verb of the clause at st of s begins when
// the clause opens, after "and" or "but" and an adverb, with a verb of
// sharedSubjectVerbs and the nearest subject before it is "I"; else -1.
func implicitSubject(s string, st int) int {
	if st == 0 {
		return -1
	}
	prev := strings.TrimRight(s[:st], " ")
	pw := strings.ToLower(prev[strings.LastIndexByte(prev, ' ')+1:])
	if pw != "and" && pw != "but" {
		return -1
	}
	at := st
	w, next := firstWord(s, st)
	for sharedSubjectAdverbs[w] && next < len(s) {
		at = next
		w, next = firstWord(s, next)
	}
	if !sharedSubjectVerbs[w] {
		return -1
	}
	if v, _ := firstWord(s, next); clauseSubjectWords[v] && v != "that" && v != "which" || v == "i" {
		return -1 // "… and like I had no one": "like" is no verb here
	}
	ws := lowerWords(prev)
	for i := len(ws) - 2; i >= 0; i-- {
		if ws[i] == "to" {
			return -1 // "I like to read and play games": one more object of "like to"
		}
		if clauseSubjectWords[ws[i]] {
			if ws[i] == "i" || ws[i] == "i'm" || ws[i] == "im" || ws[i] == "i've" || ws[i] == "ive" || ws[i] == "i'd" || ws[i] == "i'll" {
				return at
			}
			return -1
		}
	}
	return -1
}

// shouted reports whether s is typed in capitals only.
func shouted(s string) bool {
	upper := 0
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) {
			upper++
		}
	}
	return upper > 2
}

type kind int

const (
	kindName kind = iota
	kindNickname
	kindFavorite
	kindDislike
	kindLike
	kindFeeling
	kindFeelingWord
	kindEvent
	kindPerson     // I'm more of a tea person
	kindDiet       // I'm vegetarian, I don't eat meat
	kindNegated    // I don't live in Seattle anymore
	kindAllergy    // I'm allergic to peanuts
	kindLives      // I live in Seattle
	kindHometown   // I'm from Portland
	kindWorks      // I work at Google, I work as a nurse
	kindOccupation // I'm a software engineer
	kindStudies    // I study at UCLA
	kindMajor      // I'm majoring in biology, I'm studying psychology
	kindGoal       // my goal is to run a marathon
	kindPlan       // I'm planning a trip to New Zealand
	kindConsider   // I'm thinking about changing jobs
	kindHobby      // I've been learning guitar
	kindOwn        // I have a dog walking business, I run a bakery
	kindLiving     // I walk dogs for a living
	kindFamilyHave // I have a younger sister named Maya
	kindPetHave    // I have a dog called Biscuit
	// The kinds below match nothing when what follows their prefix is not
	// theirs, and later patterns are tried.
	kindFamilyNamed // my sister Maya
	kindPetNamed    // my dog Biscuit
	kindGoSchool    // I go to Lincoln High School
	// The kinds of things to come are events only when a date says when.
	kindUpcoming // my sister's wedding is next Friday
	kindHave     // I have a job interview tomorrow
	kindGoing    // I'm flying to Lisbon on the 3rd
	kindSelf     // I'm 40 years old, I'm in my thirties, I'm married
	kindHabit    // I see the Rolling Stones in concert every year
	kindIntro    // I'm Priya
)

// fallsThrough reports whether a match of k that gives nothing lets later
// patterns try: the prefix alone ("my sister", "I'm") does not make the
// sentence one of k's.
func (k kind) fallsThrough() bool { return k >= kindFamilyNamed }

type pattern struct {
	kind kind
	// starts are the words the pattern can begin with; checking them first
	// spares running every pattern at every word of a long message.
	starts map[string]bool
	re     *regexp.Regexp // anchored at the clause start; matches the prefix before the value
}

// patternPre are the patterns' prefilters, in their order: words one of
// which every match of the pattern holds. A pattern of many words (an
// occupation, a relative, a hobby: dozens each) has an indexed one, which
// reads the window once.
var patternPre = func() []prefilter {
	out := make([]prefilter, len(patterns))
	for i, p := range patterns {
		out[i] = newPrefilter(p.re)
	}
	return out
}()

// comparisonPre holds the words one of which comparisonRe needs ("thing",
// "style", …): most clauses with "my" have none of them.
var comparisonPre = newPrefilter(comparisonRe)

// isASCII reports whether s is ASCII text.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// pastActs are the things done that make an event of "I …": bought, won,
// finished, lost a job, tried for the first time, served in the army.
const pastActs = `bought|won\s+(?:a|an|the|my|our|first|second|third|\d)|finished|completed|lost\s+(?:my|a|the|our)|tried|adopted|built|published|met|ran\s+(?:a|my|the|in)|climbed|quit|retired\s+from|served\s+(?:in|with|as)|used\s+to\s+(?:be\s+an?|work\s+(?:as|at|for|in))|got\s+(?:married|engaged|divorced|promoted|a\s+new|my\s+first)|started\s+(?:a\s+new|my\s+new|my\s+own|a\s+business|working|school|college)`

// habitFrequency says that something is done again and again: "every
// year", "twice a week", "on weekends".
const habitFrequency = `every\s+(?:single\s+)?(?:day|week|weekend|month|year|morning|night|evening|afternoon|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|each\s+(?:day|week|month|year|morning|summer)|on\s+(?:the\s+)?weekends|(?:once|twice|three\s+times)\s+a\s+(?:day|week|month|year)|daily|weekly`

// hobbyDoerWords are the keys of hobbyDoers that are no occupation of
// kindOccupation: a "baker" or "photographer" is one's job.
const hobbyDoerWords = `kayaker|skateboarder|skater|runner|jogger|swimmer|hiker|surfer|climber|cyclist|biker|knitter|golfer|skier|snowboarder|gardener|camper|hunter|bowler|rower|diver|scuba\s+diver|birdwatcher|bird\s+watcher|backpacker|traveler|traveller|reader|bookworm|quilter|crocheter|woodworker|angler|marathoner|triathlete|foodie|collector`

// ageWords are the ages in words: "I'm four", "a twelve year old".
const ageWords = `(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|a\s+hundred|one\s+hundred`

// businesses are what one has or runs as work: "I have a dog walking
// business", "I run a small bakery".
const businesses = `business|shop|store|company|bakery|restaurant|salon|cafe|café|coffee\s+shop|studio|firm|agency|startup|boutique|diner|food\s+truck|daycare|nursery|clinic|practice|brewery|winery|vineyard`

// services are the armed and uniformed services of "I'm in the army".
const services = `army|navy|air\s+force|marines|marine\s+corps|military|coast\s+guard|national\s+guard|peace\s+corps|reserves|special\s+forces`

const (
	iAm      = `(?:i'm|im|i am)`
	adverbs  = `(?:(?:really|just|absolutely|totally|truly|also|still|genuinely|honestly|seriously|definitely|actually|kind of|kinda|so|sure|do|always|especially|particularly)\s+)*`
	feelWord = `stressed out|burnt out|burned out|worn out|freaked out|tired|exhausted|sleepy|sad|happy|anxious|nervous|stressed|lonely|excited|angry|mad|upset|bored|depressed|worried|scared|afraid|frustrated|overwhelmed|sick|ill|hurt|grumpy|cranky|relaxed|calm|content|grateful|thankful|proud|hopeful|drained|miserable|heartbroken|jealous|confused|annoyed|irritated|restless|hungry|homesick|ashamed|embarrassed|terrified|thrilled|ecstatic|cheerful|joyful|glad|devastated|exhilarated|furious`
	thingRe  = `((?:[\p{L}\p{N}][\p{L}\p{N}'\-]*\s+){0,3}?[\p{L}\p{N}][\p{L}\p{N}\-]*)`
	favRe    = `(?:(?:absolute|all[- ]time|very|most|super)\s+)*fav(?:ou?rite|e|s)?`
)

// patterns are tried in order at each clause start; the first prefix that
// matches decides, even when its value is then rejected, so that "I don't
// like" is never also read as "I … like".
var patterns = []pattern{
	{kindName, toSet("my i'm im i"), prefix(
		`my\s+name(?:\s+is|'s)\s+`,
		`my\s+full\s+name\s+is\s+`,
		iAm+`\s+called\s+`)},
	{kindNickname, toSet("please you just call my i people ppl everyone everybody most some many folks they friends"), prefix(
		`(?:(?:please|you\s+can|just)\s+)*call\s+me\s+`,
		`my\s+nick\s*name(?:\s+is|'s)\s+`,
		`i\s+(?:usually\s+|mostly\s+)?go\s+by\s+`,
		`(?:(?:most|some|many)\s+)?(?:people|ppl|everyone|everybody|folks|friends|they|my\s+(?:friends|family|mom|mum|dad|parents|colleagues|coworkers|sister|brother))\s+(?:usually\s+|often\s+|always\s+|just\s+|all\s+)?calls?\s+me\s+`)},
	{kindFavorite, toSet("my"), prefix(
		`my\s+`+favRe+`\s+`+thingRe+`(?:\s+(?:is|are)|'s)\s+`,
		// "My dream car is a Rolls-Royce Ghost".
		`my\s+(dream\s+(?:[\p{L}\-]+\s+)?(?:car|house|home|job|vacation|holiday|trip|destination|bike|wedding|city|country|pet|dog|guitar|school|college))(?:\s+(?:is|are)|'s)\s+`,
		// "my favourite is New Kids on the Block": a favourite of no named
		// kind is a like.
		`my\s+(?:`+favRe+`|favou?rites)(?:\s+(?:one|ones|thing))?(?:\s+(?:is|are)|'s)\s+`)},
	{kindDislike, toSet("i i'm im"), prefix(
		`i\s+`+adverbs+`(?:don't|do\s+not|dont|never)\s+(?:(?:really|much|particularly|even)\s+)*(?:like|love|enjoy|care\s+for)\s+`,
		`i\s+`+adverbs+`(?:hate|dislike|detest|loathe|despise|can't\s+stand|cannot\s+stand|can\s+not\s+stand|cant\s+stand)s?\s+`,
		iAm+`\s+(?:(?:really|just|also|honestly)\s+)*not\s+(?:(?:really|very)\s+)?(?:much\s+of\s+)?(?:a\s+)?(?:(?:big|huge|great)\s+)?(?:fan\s+of|into|fond\s+of)\s+`)},
	{kindLike, toSet("i i'm im"), prefix(
		`i\s+`+adverbs+`(?:like|love|enjoy|adore|prefer)s?\s+`,
		// "I spend most of my time bird watching", "I spend my free time
		// on Facebook": how one likes to spend time.
		`i\s+(?:(?:also|usually|often|mostly|mainly|just|really|like\s+to|love\s+to)\s+)*spend\s+(?:(?:a\s+lot|lots|most|much|all|some|a\s+good\s+deal)\s+of\s+)?(?:my\s+)?(?:free\s+|spare\s+|extra\s+|leisure\s+)?time\s+`,
		iAm+`\s+(?:(?:really|totally|so|very|quite|also|such)\s+)*(?:a\s+)?(?:(?:big|huge|massive|real|total|great)\s+)?(?:fan\s+of|into|crazy\s+about|obsessed\s+with|passionate\s+about|fond\s+of|hooked\s+on)\s+`)},
	{kindFeeling, toSet("i'm im i i've ive"), prefix(
		`(?:i'm|im|i\s+am|i've\s+been|ive\s+been|i\s+have\s+been)\s+(?:(?:really|so|very|a\s+bit|a\s+little|kind\s+of|kinda|pretty|quite|super|just|also|still|honestly)\s+)*(not\s+)?feeling\s+`,
		`i\s+(?:(?:really|just|kinda|kind\s+of|honestly|also|still)\s+)*(don't\s+|do\s+not\s+|dont\s+)?feel\s+`)},
	{kindFeelingWord, toSet("i'm im i"), prefix(
		iAm + `\s+(?:(?:really|so|very|a\s+bit|a\s+little|kind\s+of|kinda|pretty|quite|super|just|also|still|totally|completely|extremely|feeling)\s+)*(` + feelWord + `)\b`)},
	{kindEvent, toSet("i i've ive we"), prefix(
		`(?:i|i've|ive|i\s+have)\s+just\s+(?:now\s+)?((?:got|came)\s+(?:back|home)|got|went|came|had|finished|started|visited|met|saw|bought|moved|arrived|left|returned|passed|graduated|won|lost|ate|woke\s+up|signed\s+up|booked|adopted|quit|joined|celebrated|broke\s+up)\b`,
		`(?:i've|ive|i\s+have)\s+(?:(?:also|already|even|actually|recently|just|once)\s+)?(been\s+to|visited|travell?ed\s+to|met|won\s+(?:a|an|the|my|first|second|third|\d)|bought|finished|completed|adopted|built|published|climbed|run\s+(?:a|my|the)|tried)\b`,
		`i\s+(?:(?:also|recently|finally|once|just|actually)\s+)?((?:got|came)\s+(?:back|home)\s+from|went\s+(?:to|on|for|out|home|back|shopping|swimming|running|hiking|camping|fishing|skiing|dancing|jogging|walking|bowling)|visited|graduated\s+from|moved\s+to|`+pastActs+`)\b`,
		// First person plural: what "we" did, the user did.
		`we\s+(?:(?:also|recently|finally|once|just|actually)\s+)?((?:got|came)\s+(?:back|home)\s+from|went\s+(?:to|on|for|camping|hiking|skiing|fishing)|visited|moved\s+to|won\s+(?:a|an|the|our|first|\d)|bought|adopted|got\s+(?:married|engaged)|celebrated)\b`)},
	{kindPerson, toSet("i'm im i"), prefix(
		iAm+`\s+(?:(?:more|much\s+more|definitely|really|totally|such|more\s+of)\s+)*an?\s+([\p{L}\-]+)\s+person\b`,
		// "I'm a big Star Wars fan", "I'm a social media enthusiast".
		iAm+`\s+(?:(?:also|really|such|definitely|totally)\s+)*an?\s+(?:(?:big|huge|massive|real|total|great|die-?hard|lifelong|longtime|avid|self-proclaimed|true)\s+)?((?:[\p{L}\-']+\s+){0,2}[\p{L}\-']+)\s+(?:fan|enthusiast|lover|buff|nut|junkie|fanatic|geek|nerd)\b`)},
	{kindDiet, toSet("i'm im i"), prefix(
		iAm+`\s+(?:(?:a|an|now|also|fully|strictly|mostly|currently|on\s+a)\s+)*(`+diets+`)\b(?:\s+diet)?`,
		`i\s+(?:eat|follow\s+a)\s+(`+diets+`)\b(?:\s+diet)?`,
		`i\s+(?:don't|do\s+not|dont|never|no\s+longer)\s+eat\s+(?:any\s+)?(`+foodGroups+`)\b`,
		// "I don't drink soda", "I don't drink": what one never drinks.
		`i\s+(?:(?:also|just|really|personally)\s+)?(?:don't|do\s+not|dont|never|no\s+longer)\s+(drink)\b(?:\s+any\b)?`)},
	{kindNegated, toSet("i i'm im"), prefix(
		`i\s+(?:don't|do\s+not|dont|never|no\s+longer)\s+(?:live|work|study|have\s+(?:a|an|any)|eat)\b`,
		iAm+`\s+(?:not|no\s+longer)\s+(?:allergic|from|married|living|working|studying|an?\s+(?:`+occupations+`|vegetarian|vegan))\b`)},
	{kindAllergy, toSet("i'm im i"), prefix(
		iAm+`\s+(?:(?:very|really|severely|super|deathly|mildly|slightly|so|also|highly|extremely)\s+)*allergic\s+to\s+`,
		`i\s+have\s+(?:an?\s+)?(?:(?:severe|bad|mild|serious|slight)\s+)?((?:[\p{L}]+\s+)?[\p{L}]+)\s+allerg(?:y|ies)\b`)},
	{kindLives, toSet("i i'm im i've ive"), prefix(
		`(?:i\s+(?:currently\s+|now\s+|still\s+|actually\s+)?live|` + iAm + `\s+(?:currently\s+|now\s+|still\s+)?living|(?:i've|ive|i\s+have)\s+(?:been\s+living|lived)|i\s+reside)\s+(in|on|near|outside(?:\s+of)?|just\s+outside(?:\s+of)?)\s+`)},
	{kindHometown, toSet("i'm im i"), prefix(
		iAm+`\s+(?:originally\s+)?from\s+`,
		`i\s+(?:grew\s+up|was\s+born\s+and\s+raised|was\s+born|was\s+raised)\s+(?:in|on)\s+`,
		`i\s+(?:originally\s+)?come\s+from\s+`)},
	{kindWorks, toSet("i i'm im i've ive"), prefix(
		`(?:i\s+(?:currently\s+|now\s+|still\s+|also\s+|actually\s+)?work(?:\s+(?:full[\s-]?time|part[\s-]?time))?|`+iAm+`\s+(?:currently\s+|now\s+|still\s+)?(?:working|interning)(?:\s+(?:full[\s-]?time|part[\s-]?time))?|(?:i've|ive|i\s+have)\s+been\s+working)\s+(at|for|in|as|from)\s+`,
		iAm+`\s+(?:currently\s+|now\s+)?(?:employed|hired)\s+(by|at|with)\s+`)},
	{kindOccupation, toSet("i'm im i"), prefix(
		iAm+`\s+(?:(?:now|currently|also|actually|just)\s+)*an?\s+((?:[\p{L}\-]+\s+){0,2}?)(`+occupations+`)s?\b`,
		iAm+`\s+(?:now\s+)?(retired)\b`,
		// "I'm in the army", "I'm ex military", "I served in the navy".
		iAm+`\s+(?:(?:now|currently|also|still)\s+)*(?:in|with)\s+the\s+(`+services+`)\b`,
		iAm+`\s+(?:an?\s+)?((?:ex|former|retired)[\s-]+(?:`+services+`|marine|soldier|cop))\b`)},
	{kindStudies, toSet("i i'm im"), prefix(
		`(?:i\s+(?:currently\s+)?study|`+iAm+`\s+(?:currently\s+)?studying|i\s+go\s+to\s+school|i\s+attend\s+school)\s+at\s+`,
		`i\s+(?:currently\s+)?attend\s+`,
		// "I'm in high school", "I'm in my second year of college".
		iAm+`\s+(?:(?:currently|still|now|also)\s+)?in\s+((?:high|middle|elementary|primary|secondary|grad|graduate|law|med|medical|nursing|art|culinary|business|film|boarding|summer)\s+school|college|university|grad\s+school|(?:the\s+)?(?:\w+\s+)?grade|(?:kinder|pre-?k|preschool|kindergarten))\b`)},
	{kindMajor, toSet("i i'm im"), prefix(
		iAm+`\s+(?:(?:currently|also|now|still)\s+)?(?:studying|majoring\s+in|doing\s+a\s+degree\s+in)\s+`,
		`i\s+(?:currently\s+|also\s+)?major\s+in\s+`,
		iAm+`\s+an?\s+([\p{L}\-]+(?:\s+[\p{L}\-]+)?)\s+major\b`)},
	{kindGoal, toSet("my i i'm im"), prefix(
		`my\s+(?:(?:big|main|biggest|long-term|long\s+term|ultimate|current|new\s+year'?s?)\s+)?(goal|dream|aim|resolution|ambition|plan)\s+is\s+to\s+`,
		iAm+`\s+(?:(?:currently|also|really|now)\s+)?((?:working\s+(?:toward|towards|on)|saving\s+(?:up\s+)?for|training\s+for))\s+`,
		`i\s+(?:really\s+)?(?:want|hope|aim)\s+to\s+((?:`+goalVerbs+`))\b\s*`,
		// "I'm studying to be a computer programmer", "I want to be a lawyer".
		`(?:`+iAm+`\s+(?:(?:currently|also|now)\s+)?(?:studying|training|working|going\s+to\s+school|in\s+school)|i\s+(?:really\s+)?(?:want|hope|plan|aim))\s+to\s+(be(?:come)?\s+an?)\s+`)},
	{kindPlan, toSet("i i'm im i've ive"), prefix(
		iAm+`\s+(?:(?:also|currently|now|really|actually|still|definitely|already|even)\s+)?planning\s+(?:to\s+|on\s+)?`,
		iAm+`\s+(?:(?:also|really|so|very|just)\s+)*looking\s+forward\s+to\s+(?:(?:finally|eventually)\s+)?([\p{L}]+ing)\b\s*`,
		`i\s+(?:also\s+)?plan\s+(?:to|on)\s+`,
		`(?:i've|ive|i\s+have)\s+been\s+planning\s+(?:to\s+|on\s+)?`,
		// Wishes and decisions about what the user will do ("I'd like to …"
		// stays a request, and "thinking about …" a hedge:
		// docs/presets.md#uncertain-statements).
		`(?:i've|ive|i\s+have)\s+(?:always|long)\s+wanted\s+to\s+`,
		`(?:i've|ive|i\s+have)\s+(?:just\s+)?decided\s+to\s+`,
		`i\s+(?:also\s+|really\s+)?want\s+to\s+`)},
	{kindConsider, toSet("i i'm im i've ive"), prefix(
		iAm+`\s+(?:(?:also|really|seriously|currently|now)\s+)?(?:thinking|considering)\s+(?:of\s+|about\s+)?`,
		`(?:i've|ive|i\s+have)\s+(?:also\s+|really\s+|seriously\s+)?been\s+(?:thinking|considering)\s+(?:of\s+|about\s+)?`,
		`i\s+(?:also\s+)?considered\s+`)},
	{kindHobby, toSet("i i've ive i'm im"), prefix(
		`(?:i've|ive|i\s+have)\s+(?:also\s+|recently\s+|really\s+|just\s+)?been\s+(?:really\s+|also\s+)?(`+hobbyVerbs+`)\b\s*`,
		iAm+`\s+(?:currently\s+|also\s+|now\s+|still\s+)?(learning|taking|practicing|practising)\b\s*`,
		`i\s+(?:also\s+|recently\s+|just\s+)?(?:started|began)\s+(`+hobbyVerbs+`)\b\s*`,
		`i\s+(?:(?:also|regularly|usually|often|still|sometimes|only|mostly|mainly|actually|really|frequently|occasionally|always|normally|typically|even|love\s+to|like\s+to|can|can\s+also|also\s+can)\s+)?(`+presentHobbies+`)\b\s*`,
		`i\s+(?:also\s+|usually\s+|often\s+|regularly\s+|sometimes\s+)?go\s+(`+goActivities+`)\b\s*`,
		// A collection: "I have over 1000 hats", "I own a huge collection
		// of vinyl records".
		`(?:i\s+(?:also\s+|now\s+|still\s+)?(?:have|own)|i've\s+got|ive\s+got)\s+((?:(?:over|more\s+than|about|around|nearly|almost|at\s+least)\s+)?(?:\d[\d,]*\d\d|hundreds|thousands|(?:a|an|one)\s+hundred|(?:a|an|one)\s+thousand|dozens)|(?:a|an|my)\s+(?:(?:huge|big|large|small|little|growing|massive|nice|whole)\s+)?(?:[\p{L}\-]+\s+)?collection)\b\s*`,
		// "I'm an avid kayaker", "I'm a skateboarder": who does an activity.
		iAm+`\s+(?:(?:also|really|such|definitely|totally|quite)\s+)*an?\s+(?:(avid|keen|passionate|serious|casual|competitive|amateur|professional|enthusiastic|lifelong|regular|big|huge|great|good|decent|real)\s+)?(`+hobbyDoerWords+`)\b`,
		// "I'm fluent in English, Spanish and French".
		iAm+`\s+(?:(?:also|now|completely)\s+)?(fluent|bilingual|trilingual)\s+in\s+`)},
	{kindOwn, toSet("i i've ive"), prefix(
		`(?:i\s+(?:also\s+|now\s+|currently\s+|still\s+)?(?:have|own|run|manage)|i've\s+got|ive\s+got)\s+(?:a|an|my\s+own|our\s+own|my|our|the\s+family)\s+((?:[\p{L}\-']+\s+){0,3}?)(` + businesses + `)\b`)},
	{kindLiving, toSet("i"), prefix(
		`i\s+(?:(?:currently|now|also|actually)\s+)?([a-z]+)\s+((?:[\p{L}\-']+\s+){0,4}?)for\s+a\s+living\b`)},
	{kindFamilyHave, toSet("i i've ive"), prefix(
		`(?:i\s+(?:also\s+|still\s+|now\s+|actually\s+)?have|i've\s+(?:also\s+)?got|ive\s+got|i\s+have\s+got)\s+(a|an|one|two|three|four|five|six|[1-9])\s+((?:(?:older|younger|little|big|baby|twin|step|half|elder|adult|grown|teenage|teen|[0-9]+-year-old)\s+)?)(` + wordAlt(relations) + `)\b`)},
	{kindPetHave, toSet("i i've ive"), prefix(
		`(?:i\s+(?:also\s+|still\s+|now\s+|actually\s+|do\s+|also\s+do\s+)?(?:have|own)|i've\s+(?:also\s+)?got|ive\s+got|i\s+have\s+got)\s+(a|an|one|two|three|four|five|six|[1-9])\s+((?:[\p{L}\-]+\s+){0,2}?)(` + wordAlt(species) + `)\b`)},
	{kindFamilyNamed, toSet("my"), prefix(
		`my\s+((?:(?:older|younger|little|big|baby|twin|step|half|elder|oldest|youngest)\s+)?)(` + wordAlt(relations) + `)(?:'s\s+name\s+is\s+|\s+is\s+(?:named|called)\s+|,\s+|\s+|'s\s+)`)},
	{kindPetNamed, toSet("my"), prefix(
		`my\s+((?:[\p{L}\-]+\s+)??)(` + wordAlt(species) + `)(?:'s\s+name\s+is\s+|\s+is\s+(?:named|called)\s+|,\s+|\s+)`)},
	{kindGoSchool, toSet("i"), prefix(
		`i\s+(?:currently\s+|still\s+)?go\s+to\s+`)},
	{kindUpcoming, toSet("my"), prefix(
		`my\s+((?:[\p{L}\p{N}][\p{L}\p{N}'\-]*\s+){0,3}?[\p{L}\p{N}][\p{L}\p{N}\-]*)\s+(?:is|are)\s+(?:(?:on|set\s+for|scheduled\s+for|planned\s+for)\s+)?`)},
	{kindHave, toSet("i i've ive"), prefix(
		`(?:i\s+have(?:\s+got)?|i've\s+got|ive\s+got)\s+(?:a|an|my|our|another)\s+`)},
	{kindGoing, toSet("i'm im i"), prefix(
		iAm + `\s+(going\s+to|gonna|flying\s+to|driving\s+to|travell?ing\s+to|heading\s+to|off\s+to|moving\s+to|visiting|meeting|starting|getting\s+married|celebrating|expecting)\b\s*`)},
	{kindSelf, toSet("i'm im i"), prefix(
		iAm+`\s+(?:(?:now|only|just|almost|nearly|about|over|turning)\s+)?(\d{1,3}|`+ageWords+`)(?:(?:\s+|-)years?(?:\s+|-)old|\s+yrs?\s+old)?`,
		iAm+`\s+an?\s+(\d{1,3}|`+ageWords+`)(?:\s+|-)years?(?:\s+|-)old\b`,
		iAm+`\s+(?:now\s+)?in\s+my\s+((?:early\s+|mid\s+|mid-|late\s+)?(?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties|20s|30s|40s|50s|60s|70s|80s|90s))\b`,
		`i\s+(?:just\s+|recently\s+)?turned\s+(\d{1,3}|`+ageWords+`)\b`,
		iAm+`\s+(?:(?:happily|recently|newly|also|still|now|currently|finally)\s+)*(married|engaged|divorced|widowed|separated)\b`)},
	{kindHabit, toSet("i"), prefix(
		`i\s+(?:(?:also|usually|often|always|still|regularly|normally|typically|try\s+to)\s+)?([a-z]{2,})\s+((?:[\p{L}\p{N}'\-]+,?\s+){0,8}?)(` + habitFrequency + `)\b`)},
	{kindIntro, toSet("i'm im i"), prefix(iAm + `\s+`)},
}

// favoriteBareReverseRe reads "horror movies are my favorite" over a
// whole clause.
var favoriteBareReverseRe = regexp.MustCompile(`(?i)^(.+?)\s+(?:is|are)\s+(?:definitely\s+|really\s+|also\s+)?my\s+` + favRe + `(?:\s+(?:one|ones|thing|things))?$`)

// favoriteReverseRe reads "pizza is my favorite food" over a whole clause.
var favoriteReverseRe = regexp.MustCompile(`(?i)^(.+?)\s+(?:is|are)\s+my\s+` + favRe + `\s+([\p{L}\p{N}][\p{L}\p{N}\-]*(?:\s+[\p{L}\p{N}][\p{L}\p{N}\-]*){0,3})$`)

// matchAt tries every pattern at the start of rest. ok reports that a pattern
// matched; it gives no memory when its value was rejected, and then reason
// says why.
// may is memoryMask of the sentence rest is the end of.
func matchAt(rest string, dated bool, may uint64) (ms []extract.Memory, ok bool, reason string) {
	if ms, ok, reason = matchPrefix(rest, dated, may); ok {
		return ms, ok, reason
	}
	head := rest[:min(len(rest), reverseWindow)]
	if ms, ok, reason = matchReverse(rest, containsFoldASCII(head, "fav"), may&comparisonBit != 0 && containsFoldASCII(head, "my ")); ok {
		return ms, ok, reason
	}
	if containsFoldASCII(head, "make") && containsFoldASCII(head, " me") {
		if ms, ok, reason = matchMakesMe(rest); ok {
			return ms, ok, reason
		}
	}
	if strings.Contains(head, ", my ") || strings.Contains(head, ", My ") {
		return matchApposition(rest)
	}
	return nil, false, ""
}

// comparisonBit is comparisonRe's in a memoryMask, after the patterns'.
var comparisonBit = uint64(1) << len(patterns)

// memorySet reads a sentence once for the words of every pattern and of
// comparisonRe.
var memorySet = newPrefilterSet(append(slices.Clone(patternPre), comparisonPre))

// memoryMask says which patterns may match somewhere in the sentence s (bit
// i for patterns[i], comparisonBit for comparisonRe). It reads a lower-case
// copy of ASCII text only: there a letter's case is all that (?i) ignores,
// while text with other letters may hold a case fold that ToLower does not
// undo ("ſ" for "s"), and may match anything.
func memoryMask(s string) uint64 {
	if !isASCII(s) {
		return ^uint64(0)
	}
	return memorySet.mask(strings.ToLower(s))
}

// byFirstWord lists, for each word a pattern can begin with, the patterns
// that can, in their order: a clause start looks its first word up once
// instead of once per pattern.
var byFirstWord = func() map[string][]int {
	out := map[string][]int{}
	for i, p := range patterns {
		for w := range p.starts {
			out[w] = append(out[w], i)
		}
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}()

// matchPrefix is matchAt's patterns, which read from the start of rest.
func matchPrefix(rest string, dated bool, may uint64) (ms []extract.Memory, ok bool, reason string) {
	// Prefixes are short; matching them against a bounded window keeps the
	// cost of a try independent of how much text follows.
	window := rest
	if len(window) > prefixWindow {
		// Cut at a space, so that no word is cut and \b means what it says.
		window = window[:prefixWindow]
		window = window[:max(strings.LastIndexByte(window, ' '), 0)]
	}
	first, _ := firstWord(window, 0)
	for _, i := range byFirstWord[first] {
		pat := patterns[i]
		if may&(1<<i) == 0 {
			continue // the sentence lacks every word the pattern needs
		}
		if loc := pat.re.FindStringSubmatchIndex(window); loc != nil {
			ms, reason = buildAll(pat.kind, rest, loc, dated)
			if len(ms) == 0 && reason == "" {
				if pat.kind.fallsThrough() {
					continue
				}
				reason = extract.DropInvalidValue // nothing silent
			}
			return ms, true, reason
		}
	}
	return nil, false, ""
}

// matchReverse is matchAt's patterns that read a whole clause ("pizza is my
// favourite food", "tea is more my thing"); fav and mine say whether the
// first reverseWindow bytes of rest hold "fav" and "my ", without which
// neither can match.
//
// The clause is rest's first words with its quotes made spaces, so a word
// it holds, rest holds too: callers clear mine when the sentence lacks the
// words comparisonRe ends with, which spares cutting the clause.
func matchReverse(rest string, fav, mine bool) (ms []extract.Memory, ok bool, reason string) {
	if !fav && !mine {
		return nil, false, ""
	}
	clause, long := cutClause(rest)
	if long || len(clause) > reverseWindow {
		return nil, false, ""
	}
	if fav {
		if sm := favoriteReverseRe.FindStringSubmatch(clause); sm != nil {
			m, reason := favorite(sm[2], sm[1])
			return one(m, reason)
		}
		if sm := favoriteBareReverseRe.FindStringSubmatch(strings.TrimRight(clause, "!. ")); sm != nil {
			// "Horror movies are my favorite!": a favourite of no named
			// kind is a like.
			ms, reason := prefMemories(sm[1], "likes:")
			return ms, true, reason
		}
	}
	if mine && (!isASCII(clause) || comparisonPre.mayMatch(strings.ToLower(clause))) {
		if sm := comparisonRe.FindStringSubmatch(clause); sm != nil {
			ms, reason := prefMemories(sm[1], "likes:")
			return ms, true, reason
		}
	}
	return nil, false, ""
}

// comparisonRe reads "tea is more my thing" over a whole clause.
var comparisonRe = regexp.MustCompile(`(?i)^(.+?)\s+(?:is|are|'s)\s+(?:(?:more|much\s+more|really|definitely|totally|also|just|so|very\s+much)\s+)*my\s+(?:thing|kind\s+of\s+thing|style|jam|speed|vibe|cup\s+of\s+tea|go-to)$`)

// one is the answer of matchAt for a pattern that gives at most one memory.
func one(m extract.Memory, reason string) ([]extract.Memory, bool, string) {
	if m.Key == "" {
		return nil, true, reason
	}
	return []extract.Memory{m}, true, ""
}

// containsFoldASCII reports whether s contains the lower-case ASCII needle,
// ignoring the case of ASCII letters in s.
func containsFoldASCII(s, needle string) bool {
	for i := 0; i+len(needle) <= len(s); i++ {
		j := 0
		for j < len(needle) {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
			j++
		}
		if j == len(needle) {
			return true
		}
	}
	return false
}

func group(rest string, loc []int, i int) string {
	if 2*i+1 >= len(loc) || loc[2*i] < 0 {
		return ""
	}
	return rest[loc[2*i]:loc[2*i+1]]
}

func build(k kind, rest string, loc []int, dated bool) (extract.Memory, string) {
	after := rest[loc[1]:]
	switch k {
	case kindName, kindNickname:
		v := parseName(after)
		if v == "" {
			return extract.Memory{}, ""
		}
		if k == kindName {
			return extract.Memory{Key: "name", Value: v, Category: extract.CategoryFact, Importance: 90, Confidence: 0.9}, ""
		}
		return extract.Memory{Key: "nickname", Value: v, Category: extract.CategoryFact, Importance: 85, Confidence: 0.9}, ""
	case kindFavorite:
		thing := firstNonEmpty(group(rest, loc, 1), group(rest, loc, 2))
		vs, long := items(after)
		if long || len(vs) == 0 {
			return extract.Memory{}, extract.DropTooLong
		}
		// "My favourite things to cook are shakshuka, pad thai and lentil
		// soup" is one favourite, all of the list.
		vs, _ = capList(vs)
		v := vs[0]
		if len(vs) > 1 {
			v = strings.Join(vs[:len(vs)-1], ", ") + " and " + vs[len(vs)-1]
		}
		return favorite(thing, v)
	case kindFeeling:
		neg := group(rest, loc, 1) != "" || group(rest, loc, 2) != ""
		if clause, _ := cutClause(after); aimedAtOther(clause) {
			return extract.Memory{}, extract.DropNotAboutUser // "I feel so happy for you"
		}
		v, reason := feelingValue(after)
		if v == "" {
			return extract.Memory{}, reason
		}
		if neg {
			v = "not " + v
		}
		return extract.Memory{Key: "feeling", Value: v, Category: extract.CategoryFeeling, Importance: 70, Confidence: 0.5}, ""
	case kindFeelingWord:
		w := strings.ToLower(strings.Join(strings.Fields(group(rest, loc, 1)), " "))
		clause, _ := cutClause(after)
		if aimedAtOther(clause) || reaction(w, clause) {
			return extract.Memory{}, extract.DropNotAboutUser // "glad you liked it", "proud of you", "glad we met"
		}
		if next := strings.Fields(after); len(next) > 0 {
			if n, _ := firstWord(next[0], 0); n == "to" || n == "of" || n == "that" {
				return extract.Memory{}, extract.DropInvalidValue // "I'm happy to help" is an offer, "sick of it" an opinion.
			}
		}
		v, _ := feelingTail(w, lowerWords(trimFillers(clause)))
		return extract.Memory{Key: "feeling", Value: v, Category: extract.CategoryFeeling, Importance: 70, Confidence: 0.5}, ""
	case kindEvent:
		start := loc[2]
		for i := 2; start < 0 && 2*i < len(loc); i++ {
			start = loc[2*i]
		}
		v, long := cutClause(rest[start:])
		if long {
			return extract.Memory{}, extract.DropTooLong
		}
		v = stripTrailing(withoutDates(trimFillers(tidy(v))), eventTrailing)
		if w := strings.Fields(strings.ToLower(v)); len(w) < 2 || (w[0] == "tried" && w[1] == "to") {
			return extract.Memory{}, extract.DropInvalidValue // "I tried to call": an attempt, no event; "I won": won what?
		} else if len(w) == 2 && (referenceWords[w[1]] || aboutAssistant[w[1]]) {
			return extract.Memory{}, extract.DropUnresolved // "I met him", "I bought that"
		}
		return event(v)
	case kindUpcoming:
		if !startsWithDate(after) {
			return extract.Memory{}, ""
		}
		return upcoming(group(rest, loc, 1))
	case kindHave:
		what, ok := untilDate(after, dated)
		if !ok {
			return extract.Memory{}, ""
		}
		return upcoming(what)
	case kindGoing:
		what, ok := untilDate(after, dated)
		if !ok {
			return extract.Memory{}, ""
		}
		verb := strings.ToLower(strings.Join(strings.Fields(group(rest, loc, 1)), " "))
		if verb == "gonna" {
			verb = "going to"
		}
		if w, _ := firstWord(what+" ", 0); notPlans[w] || (what == "" && verb != "getting married") {
			return extract.Memory{}, ""
		}
		return upcoming(strings.TrimSpace(verb + " " + what))
	}
	return extract.Memory{}, ""
}

// thirdPossessives point at someone named elsewhere.
var thirdPossessives = toSet("their his its theirs")

// aimedAtOther reports whether a feeling's clause is about the other
// speaker: "glad you liked it", "proud of you", "happy for you" are praise
// or sympathy, not the user's own state.
func aimedAtOther(clause string) bool {
	for _, w := range lowerWords(clause) {
		if aboutAssistant[w] || w == "you're" || w == "youre" || w == "you've" || w == "you'll" {
			return true
		}
	}
	return false
}

// reactionWords are feeling words said in reply rather than of oneself:
// "I'm glad", "I'm jealous!" answer the other speaker.
var reactionWords = toSet("glad jealous")

// reaction reports whether a feeling word and the clause after it answer
// the conversation rather than tell the user's state: "glad" and
// "jealous" on their own or before a clause ("I'm glad we met", "I'm glad
// I came"), and any feeling about what "we" did or have ("so happy we
// have that in common").
func reaction(w, clause string) bool {
	ws := lowerWords(clause)
	if reactionWords[w] {
		if len(ws) == 0 {
			return true
		}
		if r := ws[0]; !feelingReasons[r] || r == "that" {
			return true
		}
	}
	for _, x := range ws {
		if x == "we" || x == "we're" || x == "we've" || x == "both" {
			return true
		}
	}
	return false
}

// event is the event memory of value v, or none when v is empty or too long.
func event(v string) (extract.Memory, string) {
	if len(v) > 0 && utf8.RuneCountInString(v) > extract.MaxValueRunes {
		return extract.Memory{}, extract.DropTooLong
	}
	s := slug(v, articles)
	if v == "" || s == "" {
		return extract.Memory{}, ""
	}
	return extract.Memory{Key: "event:" + s, Value: v, Category: extract.CategoryEvent, Importance: 60, Confidence: 0.6}, ""
}

// maxPlanWords bounds what is planned: "job interview", "going to see a
// movie with my friends". A longer stretch before the date is a sentence.
const maxPlanWords = 8

var (
	// notPlans are the first words of what someone is "going to" do that
	// make no event: "I'm going to talk to you tomorrow".
	notPlans = toSet("be talk chat tell ask sleep bed think try say make do need keep stop know hear share thank recommend discuss mention express hang")
	// aboutAssistant are words that make the plan the assistant's, not the user's.
	aboutAssistant = toSet("you your yours u ya")
	// datePrepositions end what is planned before its date: "exam on", "flight for".
	datePrepositions = []string{"on", "for", "at", "in", "by", "until", "till", "from", "since", "this", "coming", "this coming"}
)

// upcoming is the event memory of a thing to come, "sister's wedding",
// whose date the sentence gives.
func upcoming(what string) (extract.Memory, string) {
	v := trimFillers(tidy(what))
	first, _ := firstWord(v+" ", 0)
	if v == "" || notItems[first] || !hasAlnum(v) || len(strings.Fields(v)) > maxPlanWords+2 {
		return extract.Memory{}, ""
	}
	for _, w := range lowerWords(v) {
		if aboutAssistant[w] {
			return extract.Memory{}, ""
		}
	}
	return event(v)
}

// untilDate returns what the clause at the start of rest says before its
// date: "job interview" of "job interview on Friday, so …". A clause that
// names no date gives nothing, unless a date opened it (dated); what comes
// before the date must be at most maxPlanWords words with no "and" or "or".
func untilDate(rest string, dated bool) (string, bool) {
	clause, long := cutClause(rest)
	if long {
		return "", false
	}
	es := scanDates(clause)
	var what string
	switch {
	case len(es) > 0:
		what = clause[:es[0].start]
	case dated:
		what = clause
	default:
		return "", false
	}
	words := strings.Fields(what)
	if len(words) > maxPlanWords {
		return "", false
	}
	if n := len(words); n > 0 && (strings.EqualFold(words[n-1], "every") || strings.EqualFold(words[n-1], "each")) {
		return "", false // "a shift every Tuesday" recurs: no one day
	}
	for _, w := range words {
		if joiners[strings.ToLower(w)] {
			return "", false
		}
	}
	return dropPrepositions(strings.Join(words, " ")), true
}

// dropPrepositions removes the prepositions that introduce a date from the
// end of s, which may leave it empty.
func dropPrepositions(s string) string {
	s = strings.TrimRight(s, " ,")
	for changed := true; changed; {
		changed = false
		for _, p := range datePrepositions {
			if strings.EqualFold(s, p) {
				return ""
			}
			if len(s) > len(p) && strings.EqualFold(s[len(s)-len(p):], p) && s[len(s)-len(p)-1] == ' ' {
				s, changed = strings.TrimRight(s[:len(s)-len(p)], " ,"), true
			}
		}
	}
	return s
}

// withoutDates takes the date expressions out of a lower-case value: a date
// that ends the value, or is followed by "and", "or", "then" or "but", ends
// it ("went for a run yesterday and ran" is "went for a run"); any other is
// cut out ("went to the dentist on friday with mom" is "went to the dentist
// with mom"). The preposition before a date goes with it.
func withoutDates(v string) string {
	es := scanDates(v)
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		before := dropPrepositions(v[:e.start])
		after := strings.TrimLeft(v[e.end:], " ,")
		if w, _ := firstWord(after+" ", 0); after == "" || w == "and" || w == "or" || w == "then" || w == "but" {
			v = before
			continue
		}
		v = strings.TrimSpace(before + " " + after)
	}
	return tidy(v)
}

var (
	// thingFillers are words around the thing of "my favorite kind of music"
	// that would only make the key longer.
	thingLeading  = []string{"kind of", "type of", "sort of", "genre of", "style of"}
	thingTrailing = []string{"right now", "now", "at the moment", "these days", "of all time", "ever", "lately", "in the world"}
)

func favorite(thing, value string) (extract.Memory, string) {
	thing = strings.ToLower(strings.Join(strings.Fields(thing), " "))
	thing = stripLeading(thing, thingLeading)
	thing = stripTrailing(thing, thingTrailing)
	for _, w := range strings.Fields(thing) {
		if w == "you" || w == "your" || w == "is" || w == "are" {
			return extract.Memory{}, extract.DropNotAboutUser // "my favorite thing about you" is about the assistant.
		}
	}
	v, reason := preference(stripLeading(value, []string{"called", "named"})) // "is called Stardew Valley"
	if v == "" {
		return extract.Memory{}, reason
	}
	s := slug(thing, nil)
	if s == "" {
		return extract.Memory{}, ""
	}
	return extract.Memory{Key: "favorite_" + s, Value: v, Category: extract.CategoryPreference, Importance: 80, Confidence: 0.8}, ""
}

var (
	// notItems are first words that make a "preference" about something that
	// is not a thing: "I like it", "I love you", "I like when it rains".
	notItems      = toSet("such it it's its that this them they these those you your yours him her me myself yourself us what how when where why who which whatever everything nothing anything everyone anyone someone somebody nobody think say believe know mine to and or but not")
	prefTrailing  = []string{"for fun", "just for fun", "sometimes", "often", "usually", "every day", "to be honest", "honestly", "tbh", "lol", "haha", "a lot", "lots", "so much", "very much", "too", "as well", "also", "anyway", "really", "a ton", "the most", "most", "more", "though", "a little", "a bit", "now", "right now", "anymore", "these days", "lately", "today"}
	eventTrailing = []string{"before", "last night", "yesterday", "today", "tonight", "this morning", "this afternoon", "this evening", "earlier", "just now", "again", "recently", "last week", "last weekend", "this weekend", "an hour ago", "a while ago"}
	feelTrailing  = []string{"today", "tonight", "right now", "now", "lately", "recently", "at the moment", "this morning", "this evening", "this afternoon", "these days", "again", "all day", "too", "as well"}
	notFeelings   = toSet("like that as you it this about for if i what how so")
)

// preference normalises the value of a like, dislike or favourite. It
// returns "" when the value is not an item.
func preference(v string) (string, string) {
	v = trimFillers(tidy(v))
	if strings.HasPrefix(v, "to ") {
		v = v[3:] // "To Kill a Mockingbird" keeps its "To"
	}
	v = stripTrailing(v, prefTrailing)
	v = stripLeading(v, []string{"a", "an"})
	// "a lot of different bands", "all kinds of music": the kind is the like.
	v = stripLeading(v, []string{"a lot of", "lot of", "lots of", "all kinds of", "all sorts of", "all types of", "many different", "different", "many", "various",
		"kinds of", "sorts of", "types of", "genres of", "styles of", "forms of", "kind of", "sort of", "type of"})
	first, _ := firstWord(v+" ", 0)
	for i, w := range lowerWords(v) {
		if i > 0 && (w == "it" || w == "them") {
			return "", extract.DropUnresolved // "playing it", "the storytelling aspect of it"
		}
		if aboutAssistant[w] {
			return "", extract.DropNotAboutUser // "I love that for you", "I like your idea"
		}
		if thirdPossessives[w] {
			return "", extract.DropUnresolved // "I love going to their concerts": whose?
		}
	}
	if referenceWords[first] {
		return "", extract.DropUnresolved // "I hate that", "He is my favourite actor"
	}
	if v == "" || notItems[first] && !strings.HasPrefix(v, "To ") || !hasAlnum(v) {
		return "", ""
	}
	if utf8.RuneCountInString(v) > extract.MaxValueRunes {
		return "", extract.DropTooLong
	}
	return v, ""
}

type sentence struct {
	text     string
	question bool // it ended with a question mark
}

func isTerminator(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

// splitSentences splits at line breaks and at runs of . ! ? … followed by a
// space or the end, so that "3.5" and "e.g.pizza" stay whole. Whitespace
// inside a sentence is collapsed to single spaces.
func splitSentences(text string) []sentence {
	var out []sentence
	eachSentence(text, func(s string, q bool) { out = append(out, sentence{text: s, question: q}) })
	return out
}

// eachSentence calls f with each sentence of text, as splitSentences splits
// it, and whether it ended with a question mark.
func eachSentence(text string, f func(s string, question bool)) {
	emit := func(s string, q bool) {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			f(s, q)
		}
	}
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n' || r == '\r':
			emit(text[start:i], false)
			i += size
			start = i
		case isTerminator(r):
			j, q := i, false
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !isTerminator(r2) {
					break
				}
				q = q || r2 == '?'
				j += s2
			}
			next, _ := utf8.DecodeRuneInString(text[j:])
			if r == '.' && j == i+1 && abbreviation(text[start:i]) {
				i = j
				continue
			}
			if j == len(text) || unicode.IsSpace(next) {
				emit(text[start:i], q)
				start = j
			}
			i = j
		default:
			i += size
		}
	}
	emit(text[start:], false)
}

// abbreviations end with a full stop that ends no sentence: "St. Mary's".
var abbreviations = toSet("st dr mr mrs ms mt jr sr prof vs etc ft")

// abbreviation reports whether s ends with a capitalised abbreviation.
func abbreviation(s string) bool {
	w := s[strings.LastIndexByte(s, ' ')+1:]
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && (abbreviations[strings.ToLower(w)] || utf8.RuneCountInString(w) == 1)
}

var (
	questionStarts = toSet("do does did is are am was were can could would should will shall what who whom whose where why how which what's who's where's how's isn't aren't doesn't didn't")
	interjections  = toSet("well oh ok okay yeah yes yep yup no nope nah so um uh umm hmm hm and but also actually honestly btw anyway anyways hey hi hello lol haha plus now alright sure ah aw wow sometimes today tonight yesterday lately recently currently")
	conjunctions   = toSet("and but so also plus then because cause anyway btw though although actually honestly")

	requestRe = regexp.MustCompile(`(?i)\bi(?:'d|d| would)\s+(?:(?:really|so|just|rather)\s+)?(?:like|love|prefer|enjoy|want)\b`)

	// Hedges (might, maybe, thinking about, if, would, could:
	// docs/presets.md#uncertain-statements) make a statement too uncertain
	// to remember.
	hedgeWords        = toSet("might maybe perhaps probably possibly if would could should unless suppose supposedly hypothetically imagine pretend wish wonder wondering unsure someday")
	hedgeContractions = toSet("i'd you'd we'd they'd he'd she'd it'd")
	hedgePairs        = map[[2]string]bool{
		{"thinking", "about"}: true, {"thinking", "of"}: true, {"not", "sure"}: true,
		{"i", "think"}: true, {"i", "guess"}: true, {"i", "believe"}: true,
	}
)

// lowerWords splits s into lower-case words of letters, digits and
// apostrophes.
func lowerWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// hedges marks the words of ws that hedge: "might", "wouldn't", "I'd", and
// both words of "thinking about" or "I think".
func hedges(ws []string) []bool {
	marks := make([]bool, len(ws))
	for i, w := range ws {
		base := strings.TrimSuffix(strings.TrimSuffix(w, "n't"), "nt")
		if hedgeWords[w] || hedgeWords[base] || hedgeContractions[w] {
			marks[i] = true
		}
		if i+1 < len(ws) && hedgePairs[[2]string{w, ws[i+1]}] {
			marks[i], marks[i+1] = true, true
		}
	}
	return marks
}

func hedged(s string) bool { return slices.Contains(hedges(lowerWords(s)), true) }

// withoutHedges is s, in lower case, without punctuation and its hedges:
// "I might like sushi" becomes "i like sushi".
func withoutHedges(s string) string {
	ws := lowerWords(s)
	marks := hedges(ws)
	kept := ws[:0]
	for i, w := range ws {
		if !marks[i] {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// firstWord is the lower-cased word at p without surrounding punctuation, and
// where the next word starts (len(s) when there is none).
func firstWord(s string, p int) (string, int) {
	end := strings.IndexByte(s[p:], ' ')
	next := len(s)
	if end < 0 {
		end = len(s)
	} else {
		end += p
		next = end + 1
	}
	w := strings.TrimFunc(s[p:end], func(r rune) bool { return unicode.IsPunct(r) && r != '\'' })
	return strings.ToLower(w), next
}

func skipInterjections(s string, p int) int {
	for p < len(s) {
		w, next := firstWord(s, p)
		if !interjections[w] || next >= len(s) {
			return p
		}
		p = next
	}
	return p
}

// wordStarts lists the byte offsets of the words of a space-collapsed sentence.
func wordStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && i+1 < len(s) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// clauseStarts are the places where a statement about the user may begin: the
// start of the sentence and after a comma, semicolon, colon, dash or joining
// word. Patterns only match there, so that "she thinks I like tea" or "Tom
// said my name is Bob" are not read as the user's own statement.
func clauseStarts(s string) []int {
	var out []int
	for i, ws := range wordStarts(s) {
		if i == 0 {
			out = append(out, ws)
			continue
		}
		prev := s[:ws-1]
		last, _ := utf8.DecodeLastRuneInString(prev)
		if strings.ContainsRune(",;:—–(", last) {
			out = append(out, ws)
			continue
		}
		pw := prev[strings.LastIndexByte(prev, ' ')+1:]
		if conjunctions[strings.ToLower(pw)] {
			out = append(out, ws)
		}
	}
	return out
}

// skipLeadingDate returns where the clause at p goes on after a date
// expression that opens it, and its comma.
func skipLeadingDate(s string, p int) (int, bool) {
	es, ok := leadingDate(s[p:])
	if !ok {
		return p, false
	}
	q := p + es[0].end
	for q < len(s) && (s[q] == ',' || s[q] == ' ') {
		q++
	}
	if q >= len(s) {
		return p, false
	}
	return q, true
}

// dateWindow bounds the text scanned for a date that opens it.
func dateWindow(s string) string {
	if len(s) > prefixWindow {
		s = s[:prefixWindow]
		s = s[:max(strings.LastIndexByte(s, ' '), 0)]
	}
	return s
}

// startsWithDate reports whether s opens with a date expression.
func startsWithDate(s string) bool {
	_, ok := leadingDate(s)
	return ok
}

// leadingDate returns the date expressions of the start of s when the first
// of them opens s.
func leadingDate(s string) ([]dateExpr, bool) {
	if w, _ := firstWord(s[:min(len(s), prefixWindow)], 0); !mayOpenDate(strings.TrimSuffix(w, ",")) {
		return nil, false
	}
	es := scanDates(dateWindow(s))
	return es, len(es) > 0 && es[0].start == 0
}

// stripLeading removes any of the given phrases (whole words) from the start
// of s, repeatedly.
func stripLeading(s string, phrases []string) string {
	for changed := true; changed; {
		changed = false
		for _, ph := range phrases {
			if len(s) > len(ph) && strings.EqualFold(s[:len(ph)], ph) && s[len(ph)] == ' ' {
				s = s[len(ph)+1:]
				changed = true
			}
		}
	}
	return s
}

// stripTrailing removes any of the given phrases (whole words, in any case)
// from the end of s, repeatedly, never leaving it empty.
func stripTrailing(s string, phrases []string) string {
	for changed := true; changed; {
		changed = false
		for _, ph := range phrases {
			if n := len(s) - len(ph) - 1; n > 0 && s[n] == ' ' && strings.EqualFold(s[n+1:], ph) {
				s = s[:n]
				changed = true
			}
		}
	}
	return s
}

// tidy removes double quotes, trims spaces, single quotes and trailing
// punctuation and symbols (emoji, "!"), keeping the + and # of "C++" and "C#",
// and collapses spaces.
func tidy(v string) string {
	v = strings.ReplaceAll(v, `"`, " ") // quotes mark the words, they are not part of them
	v = strings.TrimFunc(v, func(r rune) bool { return unicode.IsSpace(r) || r == '"' || r == '\'' })
	v = strings.TrimRightFunc(v, func(r rune) bool {
		return r != '+' && r != '#' && (unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r))
	})
	return strings.Join(strings.Fields(v), " ")
}

var (
	nameStops  = toSet("and but or so i i'm im i've btw by from too though also here now lol haha thanks thank please nice what who how are is was were the a an not just if actually because since when in at on of for with to you your my me it its it's and but")
	nameReject = toSet("not a an the secret unknown none nothing private irrelevant what weird long hard complicated something it that this also too same like just so very really kind sort no yes gone known going being changing different mine yours your my his her their our spelled pronounced written crazy old lazy back later tomorrow tonight anytime whatever anything maybe sometime soon again stupid silly names whenever everything")
)

// parseName reads up to three name-shaped words ("John", "Mary Ann",
// "O'Brien") and fixes their case when they were typed all lower or all
// upper case. It returns "" for "my name is not important".
func parseName(rest string) string {
	var out []string
	fields := strings.Fields(rest[:min(len(rest), 200)])
	title := ""
	if len(fields) > 1 && honorifics[strings.ToLower(strings.TrimSuffix(fields[0], "."))] {
		// "Dr. Smith": a title goes with the name after it, and is no name
		// of its own.
		title, fields = fields[0], fields[1:]
	}
	for _, w := range fields {
		trimmed := strings.TrimRightFunc(w, func(r rune) bool { return unicode.IsPunct(r) && r != '\'' && r != '-' })
		last := trimmed != w
		trimmed = strings.TrimRight(trimmed, "'-")
		if trimmed == "" || nameStops[strings.ToLower(trimmed)] || !nameShaped(trimmed) {
			break
		}
		out = append(out, nameCase(trimmed))
		if last || len(out) == 3 {
			break
		}
	}
	if len(out) == 0 || nameReject[strings.ToLower(out[0])] {
		return ""
	}
	if n := len(out); n < len(fields) {
		if next := strings.Trim(fields[n], ".,!?)]"); next != "" && unicode.IsDigit(rune(next[0])) {
			return "" // "User 1", "Player 2": a placeholder, not a name
		}
	}
	if title != "" {
		return title + " " + strings.Join(out, " ")
	}
	return strings.Join(out, " ")
}

// honorifics are the titles before a name: "Dr. Smith", "Mrs Jones".
var honorifics = toSet("dr mr mrs ms mx miss prof professor sir dame")

func nameShaped(w string) bool {
	if utf8.RuneCountInString(w) > 40 {
		return false
	}
	for i, r := range w {
		if i == 0 && !unicode.IsLetter(r) {
			return false
		}
		if !unicode.IsLetter(r) && !unicode.IsMark(r) && r != '\'' && r != '-' {
			return false
		}
	}
	return true
}

func nameCase(w string) string {
	if w != strings.ToLower(w) && w != strings.ToUpper(w) {
		return w // "McDonald" was typed with care.
	}
	r, size := utf8.DecodeRuneInString(w)
	return string(unicode.ToTitle(r)) + strings.ToLower(w[size:])
}
