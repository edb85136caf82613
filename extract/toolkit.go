package extract

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The rule toolkit: what the kinds outside this package (kinds/<name>) use
// of the engine's rules. Each is a thin, documented door onto the engine's
// own helper, so that the engine keeps one implementation.

// StraightApostrophes is s with its curly apostrophes made straight, as the
// rules' word lists expect.
func StraightApostrophes(s string) string { return apostrophes.Replace(s) }

// HasAlnum reports whether s holds a letter or a digit.
func HasAlnum(s string) bool { return hasAlnum(s) }

// IsUser reports whether a message's role is the user's.
func IsUser(role string) bool { return isUser(role) }

// SessionEnd is when s ended: EndedAt, or else its last known time.
func SessionEnd(s Session) time.Time { return sessionEnd(s) }

// SessionZone is a session's zone; an empty, "Local" or unknown name is UTC.
func SessionZone(name string) *time.Location { return sessionZone(name) }

// EventData decodes an event's data as a JSON object; an empty map when it
// is not one.
func EventData(raw json.RawMessage) map[string]any { return eventData(raw) }

// LabelKey is what makes two labels the same: "work_stress", "Work stress"
// and "work-stress" give one key.
func LabelKey(s string) string { return labelKey(s) }

// ObjectList reads a list of JSON objects as the rules write it
// ([]map[string]any) or as stored JSON decodes it ([]any); anything else,
// and any element that is not an object, gives nothing.
func ObjectList(v any) []map[string]any { return objectList(v) }

// Count writes n with its noun; one is used for n == 1.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// SessionMinutes is the session's length in whole minutes, rounded; 0 when
// its start or end is unknown.
func SessionMinutes(s Session) int {
	start := s.StartedAt
	if start.IsZero() {
		for _, m := range s.Messages {
			if !m.At.IsZero() && (start.IsZero() || m.At.Before(start)) {
				start = m.At
			}
		}
	}
	end := sessionEnd(s)
	if start.IsZero() || end.IsZero() || !end.After(start) {
		return 0
	}
	return int(math.Round(end.Sub(start).Minutes()))
}

// Text is a string value of decoded JSON, trimmed; "" for anything else.
func Text(v any) string { return text(v) }

// Label is a short label of event data (a trigger, a topic, an emotion):
// trimmed, lower-cased, spaces collapsed, cut to MaxValueRunes; "" for a
// value that is no string or looks sensitive (the chat service may have
// copied it from what the user typed).
func Label(v any) string { return label(v) }

// Prefix is a case-insensitive pattern that matches one of alternatives at
// the start of a string.
func Prefix(alternatives ...string) *regexp.Regexp { return prefix(alternatives...) }

// WordSet is the set of the space-separated words of words.
func WordSet(words string) map[string]bool { return toSet(words) }

// The context pack toolkit: a kind's Pack plans sections of candidate
// items, which the engine fits into the budget (Pack).

// Longest values a pack renders, in runes: a short value, and a text (a
// rolling summary, a recognition moment).
const (
	PackValueRunes = packValueRunes
	PackTextRunes  = packTextRunes
)

// PackSessions is how many of the newest summaries a pack reads.
const PackSessions = packSessions

// PackSection is one section of a kind's pack, in display order.
type PackSection struct {
	Name   string // as in PackPart
	Header string // the line above its items
}

// PackGroup gathers consecutive items of a section under one label, joined
// on the label's line by Sep ("- Key triggers: a, b") or, when Nested,
// below it as "  * " lines. Many may hold %d, the number of items.
type PackGroup struct {
	One, Many string
	Nested    bool
	Sep       string
}

// PackItem is one candidate line of a section (or one member of a group's
// line); items of a lower Prio are added first.
type PackItem struct {
	Section int
	Prio    int
	Group   *PackGroup
	Text    string
	// MemoryIDs are the memories the item renders (UsedMemories).
	MemoryIDs []string
}

// PackPlan is a kind's pack before it is fitted into a budget.
type PackPlan struct {
	p      packPlan
	groups map[*PackGroup]*packGroup
}

// NewPackPlan is an empty plan of sections.
func NewPackPlan(sections ...PackSection) *PackPlan {
	ss := make([]packSection, len(sections))
	for i, s := range sections {
		ss[i] = packSection{name: s.Name, header: s.Header}
	}
	return &PackPlan{p: newPackPlan(ss...), groups: map[*PackGroup]*packGroup{}}
}

// planOf is the plan of a kind inside this package.
func planOf(p packPlan) *PackPlan { return &PackPlan{p: p} }

// Add adds an item; one with no text is no item.
func (p *PackPlan) Add(it PackItem) {
	var g *packGroup
	if it.Group != nil {
		if g = p.groups[it.Group]; g == nil {
			g = &packGroup{one: it.Group.One, many: it.Group.Many, nested: it.Group.Nested, sep: it.Group.Sep}
			p.groups[it.Group] = g
		}
	}
	p.p.add(packItem{section: it.Section, prio: it.Prio, group: g, text: it.Text, ids: it.MemoryIDs})
}

// AddCut adds an item of section whose text is lead followed by value
// quoted, which may be cut at a token boundary to fit.
func (p *PackPlan) AddCut(section, prio int, lead, value string) {
	p.p.add(packCutItem(section, prio, lead, value))
}

// Capped counts a candidate of section left out by the kind's own cap.
func (p *PackPlan) Capped(section int) { p.p.capped[section]++ }

// PackValue is a stored value as a pack writes it: a string cleaned
// (PlainText) and quoted, a number or a yes/no as is; "" for anything else.
func PackValue(v any) string { return packValue(v) }

// PackQuote is s cleaned (PlainText, at most max runes) and quoted; "" when
// nothing is left.
func PackQuote(s string, max int) string { return packQuote(s, max) }

// PackStrings is the non-empty values of a stored list (or of one string),
// each as PackValue writes it.
func PackStrings(v any) []string { return packStrings(v) }

// PackDate is t's calendar date, or "undated".
func PackDate(t time.Time) string { return packDate(t) }

// Civil is the calendar day y-m-d, at midnight UTC.
func Civil(y int, m time.Month, d int) time.Time { return civil(y, m, d) }

// IsWeekday reports whether a lower-case word is a day of the week's name.
func IsWeekday(w string) bool { return weekdays[w] != 0 || w == "sunday" }

// NumberWord is the number a lower-case word names ("a", "one" … "twelve").
func NumberWord(w string) (int, bool) { n, ok := numberWords[w]; return n, ok }

// IsArticle reports whether a lower-case word is an article or a
// possessive that may open a noun phrase ("a", "the", "my", …).
func IsArticle(w string) bool { return articles[w] }

// Date reads a stored civil date (YYYY-MM-DD) or RFC 3339 time.
func Date(v any) (time.Time, bool) { return date(v) }

// UpcomingEvents reads a stored list of risky events ahead.
func UpcomingEvents(v any) []UpcomingEvent { return upcomingEvents(v) }

// PackInt reads a stored whole number.
func PackInt(v any) (int, bool) { return packInt(v) }

// PackCivilDays is the number of calendar days from a to b, each read in
// its own location.
func PackCivilDays(a, b time.Time) int { return packCivilDays(a, b) }

// RiskyText reports whether text holds a risk phrasing (RiskOf's
// lexicons), whoever's and however negated.
func RiskyText(text string) bool { _, ok := riskyText(text); return ok }

// RiskNorm folds text as the risk patterns read it: typographic quotes and
// apostrophes to ASCII, lower case, contractions typed without their
// apostrophe.
func RiskNorm(text string) string { return riskNorm(text) }

// PackFirst is the first of keys that m holds with a non-empty value; nil
// when none.
func PackFirst(m map[string]any, keys ...string) any { return packFirst(m, keys...) }

// PackKeyWords is a key as words ("likes:ice_cream" is "likes ice
// cream"), cleaned.
func PackKeyWords(key string) string { return packHuman(key) }

// PackKeyLabel is a key as a short label of words, or fallback when it is
// too long or holds more than letters and digits.
func PackKeyLabel(key, fallback string) string { return packLabel(key, fallback) }

// Slug turns a phrase into the snake_case tail of a key; withoutArticles
// leaves out "a", "the", "my" and the like.
func Slug(phrase string, withoutArticles bool) string {
	if withoutArticles {
		return slug(phrase, articles)
	}
	return slug(phrase, nil)
}

// TruncateRunes is s cut to at most n runes.
func TruncateRunes(s string, n int) string { return packTruncRunes(s, n) }

// The doors below are the engine's word lists and helpers that the general
// memory grammar (extract/grammar) reads; it imports this package, never the
// other way round.

// PrefixWindow bounds the text a pattern's prefix is matched against, and
// the text scanned for a date that opens a clause.
const PrefixWindow = prefixWindow

// ScanLimit bounds how far a value is scanned for its end.
const ScanLimit = scanLimit

// SlugWithout is phrase as a key slug, without the words of drop (nil keeps
// every word).
func SlugWithout(phrase string, drop map[string]bool) string { return slug(phrase, drop) }

// Articles are the words a slug drops in front of a thing ("a", "the", "my", …).
func Articles() map[string]bool { return articles }

// Relations maps the words for a relative to the family: key's canonical word.
func Relations() map[string]string { return relations }

// Species maps the words for a pet to the pet: key's canonical word.
func Species() map[string]string { return species }

// Qualifiers are the words that start the part of an item qualifying its head.
func Qualifiers() map[string]bool { return qualifiers }

// EqualWords reports whether the words of a equal the first len(a) of b.
func EqualWords(a, b []string) bool { return equalWords(a, b) }

// PlainKeys are the memory keys without a prefix (name, lives_in, …).
func PlainKeys() map[string]bool { return plainKeys }

// NumberWords maps "one" … "twelve" and the like to their numbers.
func NumberWords() map[string]int { return numberWords }

// MayOpenDate reports whether the lower-case word w may open a date
// expression.
func MayOpenDate(w string) bool { return mayOpenDate(w) }

// Apostrophes folds typographic quotes into ASCII ones.
func Apostrophes() *strings.Replacer { return apostrophes }

// TTLStart is when the lifetime of m, said at said in loc, starts.
func TTLStart(m Memory, said time.Time, loc *time.Location) time.Time { return ttlStart(m, said, loc) }

// DateSpan is where one date expression sits in a text, in bytes.
type DateSpan struct{ Start, End int }

// DateSpans are the date expressions of text, in order.
func DateSpans(text string) []DateSpan {
	es := scanDates(text)
	out := make([]DateSpan, len(es))
	for i, e := range es {
		out[i] = DateSpan{e.start, e.end}
	}
	return out
}

// Prefilter is a cheap test that a text may match a regexp: the literals
// every match must hold.
type Prefilter struct{ p prefilter }

// NewPrefilter is re's prefilter.
func NewPrefilter(re *regexp.Regexp) Prefilter { return Prefilter{newPrefilter(re)} }

// MayMatch reports whether text (lower case) may match.
func (p Prefilter) MayMatch(text string) bool { return p.p.mayMatch(text) }

// PrefilterSet tests up to 64 prefilters in one pass.
type PrefilterSet struct{ s prefilterSet }

// NewPrefilterSet is the set of filters, in their order.
func NewPrefilterSet(filters []Prefilter) PrefilterSet {
	ps := make([]prefilter, len(filters))
	for i, f := range filters {
		ps[i] = f.p
	}
	return PrefilterSet{newPrefilterSet(ps)}
}

// Mask has bit i set when filter i may match text (lower case).
func (s PrefilterSet) Mask(text string) uint64 { return s.s.mask(text) }
