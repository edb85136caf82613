package extract

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/zones"
	"github.com/mnemo-ai/mnemo/prompts"
)

// RulesVersion names the rule set. It is the PromptVersion of every rules
// result and changes whenever the rules would extract something different
// from the same session, so that stored results can be told apart and re-run.
const RulesVersion = "rules-5"

// MaxValueRunes is the longest memory value the rules produce and the merge
// policy accepts. A longer "value" is a sentence, not a fact: it is dropped,
// never cut, because a cut value can mean something the user did not say.
const MaxValueRunes = 100

// maxSlugWords bounds the key derived from a value ("event:went_to_dentist"),
// so that keys stay short while the value keeps the detail.
const maxSlugWords = 8

// maxKeyRunes bounds every key ValidKey accepts.
const maxKeyRunes = 120

// scanLimit bounds how far a value is scanned for its end. A clause that has
// not ended by then is far longer than MaxValueRunes and is dropped; the bound
// keeps mining linear in the length of a message.
const scanLimit = 4 * 4 * MaxValueRunes

// prefixWindow bounds the text a pattern's prefix ("my favorite color is")
// is matched against, so that the cost of a try does not grow with the text
// that follows.
const prefixWindow = 128

// Reasons Rules gives in Dropped besides "sensitive:<kind>".
const (
	DropQuestion  = "question"  // the sentence asks rather than tells
	DropRequest   = "request"   // "I'd like a glass of water" is not a preference
	DropUncertain = "uncertain" // might, maybe, if, would, could, …
	DropTooLong   = "too_long"  // the value is longer than MaxValueRunes
	// DropInvalidValue: a pattern matched but what follows is no item, name,
	// place or feeling ("I like it when it rains", "call me crazy").
	DropInvalidValue = "invalid_value"
	// DropAboutPerson: a preference about a person ("I don't like my new
	// manager") is not the user's to be remembered by.
	DropAboutPerson = "about_person"
	// DropNegated: a negated fact ("I don't live in Seattle anymore").
	DropNegated = "negated"
	// DropNotAboutUser: the statement is about the assistant ("my favorite
	// thing about you").
	DropNotAboutUser = "not_about_user"
	// DropUnresolved: the value is a pronoun ("He is my favourite actor",
	// "I hate that") whose referent the sentence does not name.
	DropUnresolved = "unresolved_reference"
	// DropListCap: a list longer than maxListItems; its first items are kept.
	DropListCap = "list_cap"
)

// Rules is the deterministic extractor. It never calls out, never guesses and
// never copies text it cannot attribute to a user's own statement.
//
// For eldertree it summarises the session's urge and emotion events into its
// session_summary (docs/presets.md, Elder Tree: session summary) and stores
// nothing else: profile fields are never guessed from text. For every other app
// it mines the user's messages (never the assistant's or the system's) for the
// memory keys name, nickname, favorite_<thing>, likes:<item>, dislikes:<item>,
// feeling and event:<slug>. A message with sensitive data yields no memory at
// all, only a Dropped entry. When one key is stated twice, the later statement
// wins; the merge policy keeps the history.
//
// app may be nil, in which case the session's app and an empty policy (no
// TTLs) are used. The slices and maps of the result are never nil.
func Rules(app *prompts.App, s Session, now time.Time) Result {
	name := s.App
	var policy prompts.Policy
	if app != nil {
		if app.Name != "" {
			name = app.Name
		}
		policy = app.Policy
	}
	res := Result{
		App:            name,
		Source:         SourceRules,
		PromptVersion:  RulesVersion,
		Memories:       []Memory{},
		ProfileUpdates: map[string]any{},
		SessionSummary: map[string]any{},
		Dropped:        []Dropped{},
	}
	kind := policy.Rules
	if kind == "" {
		kind = name
	}
	KindOf(kind).Rules(&res, policy, s, now)
	Screen(&res, policy, s) // safety before memory, every kind
	return res
}

// TTLFor is when a memory of category, learnt at from, expires under p: nil
// when the category has no TTL (or a zero one), which means never.
func TTLFor(p prompts.Policy, category string, from time.Time) *time.Time {
	d, ok := p.MemoryTTL[category]
	if !ok || d <= 0 {
		return nil
	}
	t := from.Add(time.Duration(d)).UTC()
	return &t
}

// ValidKey reports whether key has one of the documented shapes (see the
// vocabulary in keys.go): a plain key (name, nickname, feeling, lives_in,
// hometown, works_at, studies_at, occupation, diet) or a prefix
// (favorite_, likes:, dislikes:, hobby:, event:, plan:, family:, pet:,
// allergy:, goal:) followed by a slug, lower-case words of letters and
// digits joined by single underscores.
func ValidKey(key string) bool {
	if utf8.RuneCountInString(key) > maxKeyRunes {
		return false
	}
	if plainKeys[key] {
		return true
	}
	for _, p := range keyPrefixes {
		if rest, ok := strings.CutPrefix(key, p.prefix); ok {
			return validSlug(rest)
		}
	}
	return false
}

// CanonicalKey brings a key into its documented shape, so that one fact has
// one key whoever extracted it: the LLM's "likes:Ice Cream" and
// "event:went-to-the-dentist" become the rules' "likes:ice_cream" and
// "event:went_to_dentist". Articles and "my" are left out of every prefixed
// key but favorite_, as the rules leave them out. Near-duplicates share one
// key: a like, dislike or hobby is keyed by its head ("likes:hiking_on_weekends"
// is "likes:hiking"), a relation or species by its usual word
// ("family:mom" is "family:mother", "pet:puppy" is "pet:dog"), an allergy
// by its singular. ok is false when no documented shape can be made of key.
func CanonicalKey(key string) (canonical string, ok bool) {
	k := strings.TrimSpace(key)
	lower := strings.ToLower(k)
	if c := strings.ReplaceAll(strings.ReplaceAll(lower, " ", "_"), "-", "_"); plainKeys[c] {
		return c, true
	}
	for _, p := range keyPrefixes {
		if len(k) >= len(p.prefix) && strings.EqualFold(k[:len(p.prefix)], p.prefix) {
			drop := articles
			if p.prefix == "favorite_" {
				drop = nil
			}
			tail := slug(k[len(p.prefix):], drop)
			if tail != "" {
				tail = canonicalTail(p.prefix, tail)
			}
			c := p.prefix + tail
			return c, ValidKey(c)
		}
	}
	return k, false
}

func validSlug(s string) bool {
	if s == "" {
		return false
	}
	for part := range strings.SplitSeq(s, "_") {
		if part == "" {
			return false
		}
		for _, r := range part {
			if !slugRune(r) || unicode.IsUpper(r) {
				return false
			}
		}
	}
	return true
}

func slugRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// slug turns a phrase into the snake_case tail of a key. Apostrophes vanish
// ("mom's" is "moms"), words in drop are left out, every other run of
// non-letters is one underscore.
func slug(phrase string, drop map[string]bool) string {
	var words []string
	var cur strings.Builder
	end := func() {
		if cur.Len() > 0 {
			if w := cur.String(); !drop[w] {
				words = append(words, w)
			}
			cur.Reset()
		}
	}
	for _, r := range phrase {
		switch {
		case r == '\'':
		case slugRune(r):
			// A few capitals have no lower case; they are left out rather
			// than break the lower-case shape of keys.
			if r = unicode.ToLower(r); !unicode.IsUpper(r) {
				cur.WriteRune(r)
			}
		default:
			end()
		}
	}
	end()
	if len(words) > maxSlugWords {
		words = words[:maxSlugWords]
	}
	return strings.Join(words, "_")
}

var articles = map[string]bool{"a": true, "an": true, "the": true, "my": true, "our": true}

// apostrophes folds typographic quotes into ASCII ones so that one pattern
// serves "I'm" and "I’m".
var apostrophes = strings.NewReplacer(
	"\u2019", "'", "\u2018", "'", "\u02bc", "'", "`", "'",
	"\u201c", `"`, "\u201d", `"`,
)

func isUser(role string) bool { return strings.EqualFold(strings.TrimSpace(role), "user") }

// sessionZone is the session's zone; an empty, "Local" or unknown name is
// UTC (the handoff API validates zones; extraction must not fail over one).
func sessionZone(name string) *time.Location {
	loc, err := zones.Load(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// ttlStart is when a memory's TTL starts running: when it was said, or for
// an event still to come, the end of its day in the user's zone, so that
// "my sister's wedding is next Friday" outlives the wedding by the event
// TTL rather than expiring a week after it was said.
func ttlStart(m Memory, said time.Time, loc *time.Location) time.Time {
	if m.EventDate == "" {
		return said
	}
	if end, ok := EndOfDate(m.EventDate, loc); ok && end.After(said) {
		return end
	}
	return said
}

// subject is what a key is about: likes:x and dislikes:x share one, so that
// the later of two contradicting statements wins.
func subject(key string) string {
	if item, ok := strings.CutPrefix(key, "likes:"); ok {
		return "pref:" + item
	}
	if item, ok := strings.CutPrefix(key, "dislikes:"); ok {
		return "pref:" + item
	}
	return key
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

	// Hedges (might, maybe, thinking about, if, would, could: docs/presets.md,
	// Mona: uncertain statements) make a statement too uncertain to remember.
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

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
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

// prefix compiles alternatives into one case-insensitive pattern anchored at
// the start. One leading ^ for all of them lets regexp stop after the first
// position instead of searching the whole text.
func prefix(alternatives ...string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:` + strings.Join(alternatives, "|") + `)`)
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
func hasAlnum(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
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
