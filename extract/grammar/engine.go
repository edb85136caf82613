package grammar

import (
	"regexp"

	"github.com/mnemo-ai/mnemo/extract"
)

// The engine's helpers and word lists under the names the grammar's rules
// use (package extract keeps the one implementation of each).

const (
	prefixWindow = extract.PrefixWindow
	scanLimit    = extract.ScanLimit
)

var (
	toSet             = extract.WordSet
	lowerWords        = extract.LowerWords
	firstWord         = extract.FirstWord
	prefix            = extract.Prefix
	tidy              = extract.Tidy
	hasAlnum          = extract.HasAlnum
	skipInterjections = extract.SkipInterjections
	parseName         = extract.ParseName
	isUser            = extract.IsUser
	clauseStarts      = extract.ClauseStarts
	wordStarts        = extract.WordStarts
	skipLeadingDate   = extract.SkipLeadingDate
	startsWithDate    = extract.StartsWithDate
	sessionZone       = extract.SessionZone
	ttlStart          = extract.TTLStart
	subject           = extract.Subject
	hedged            = extract.Hedged
	withoutHedges     = extract.WithoutHedges
	stripLeading      = extract.StripLeading
	stripTrailing     = extract.StripTrailing
	nameShaped        = extract.NameShaped
	equalWords        = extract.EqualWords

	articles       = extract.Articles()
	relations      = extract.Relations()
	species        = extract.Species()
	qualifiers     = extract.Qualifiers()
	plainKeys      = extract.PlainKeys()
	questionStarts = extract.QuestionStarts()
	interjections  = extract.Interjections()
	nameStops      = extract.NameStops()
	nameReject     = extract.NameRejects()
	numberWords    = extract.NumberWords()
	requestRe      = extract.RequestRe()
	apostrophes    = extract.Apostrophes()
)

// slug is the key slug of phrase without the words of drop.
func slug(phrase string, drop map[string]bool) string { return extract.SlugWithout(phrase, drop) }

// sentence is one sentence of a message, as the rules split it.
type sentence struct {
	text     string
	question bool // it ended with a question mark
}

// splitSentences splits text at line breaks and at runs of . ! ? …
func splitSentences(text string) []sentence {
	var out []sentence
	extract.EachSentence(text, func(s string, q bool) { out = append(out, sentence{text: s, question: q}) })
	return out
}

// dateExpr is where one date expression sits in a text.
type dateExpr struct{ start, end int }

// scanDates are the date expressions of text, in order.
func scanDates(text string) []dateExpr {
	ds := extract.DateSpans(text)
	out := make([]dateExpr, len(ds))
	for i, d := range ds {
		out[i] = dateExpr{d.Start, d.End}
	}
	return out
}

// prefilter is a cheap test that a text may match a regexp.
type prefilter struct{ p extract.Prefilter }

func newPrefilter(re *regexp.Regexp) prefilter { return prefilter{extract.NewPrefilter(re)} }

func (p prefilter) mayMatch(text string) bool { return p.p.MayMatch(text) }

// prefilterSet tests the prefilters in one pass.
type prefilterSet struct{ s extract.PrefilterSet }

func newPrefilterSet(filters []prefilter) prefilterSet {
	ps := make([]extract.Prefilter, len(filters))
	for i, f := range filters {
		ps[i] = f.p
	}
	return prefilterSet{extract.NewPrefilterSet(ps)}
}

func (s prefilterSet) mask(text string) uint64 { return s.s.Mask(text) }
