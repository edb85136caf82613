package extract

import (
	"context"
	"regexp"
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
const RulesVersion = "rules-6"

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
// It reads the session's risks first (the risk screen of Screen), runs the
// rules of the app's kind (Kind.Rules; what each kind reads is documented
// in its package under kinds/ and in docs/presets.md) on the session with
// the text of every message of the user's own medium or high risk withheld
// (Session.Withheld), then passes the result through the rest of Screen.
// The user's messages are read, never the assistant's or the system's. A
// message with sensitive data yields no memory at all, only a Dropped
// entry. When one key is stated twice, the later statement wins; the merge
// policy keeps the history.
//
// app may be nil, in which case the session's app and an empty policy (no
// TTLs) are used. The slices and maps of the result are never nil.
func Rules(app *prompts.App, s Session, now time.Time) Result {
	res, _ := RulesContext(context.Background(), app, s, now)
	return res
}

// RulesContext is Rules reading until ctx ends: the risk screen, whose
// work is linear in the session's text, looks at ctx as it reads and
// stops within a bounded amount of work; the kind's rules and the gate
// after them start only while ctx lasts. An ended ctx gives its error and
// an empty result.
func RulesContext(ctx context.Context, app *prompts.App, s Session, now time.Time) (Result, error) {
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
	// Safety before memory, every kind: the risks are read first, and the
	// kind's rules never read a message of the user's own medium or high
	// risk (withhold); then the result passes the screen's gate.
	k := KindOf(kind)
	unsafe, _, err := screenRisks(&res, k, s, newBudget(ctx))
	if err != nil {
		return Result{}, err
	}
	k.Rules(&res, policy, withhold(s, unsafe), now)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	screenResult(&res, policy, k, s, unsafe, nil)
	return res, nil
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

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// prefix compiles alternatives into one case-insensitive pattern anchored at
// the start. One leading ^ for all of them lets regexp stop after the first
// position instead of searching the whole text.
func prefix(alternatives ...string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:` + strings.Join(alternatives, "|") + `)`)
}

func hasAlnum(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
