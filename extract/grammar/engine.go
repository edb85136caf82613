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
	toSet       = extract.WordSet
	prefix      = extract.Prefix
	hasAlnum    = extract.HasAlnum
	isUser      = extract.IsUser
	sessionZone = extract.SessionZone
	ttlStart    = extract.TTLStart
	subject     = extract.Subject
	equalWords  = extract.EqualWords
	mayOpenDate = extract.MayOpenDate

	articles    = extract.Articles()
	relations   = extract.Relations()
	species     = extract.Species()
	qualifiers  = extract.Qualifiers()
	plainKeys   = extract.PlainKeys()
	numberWords = extract.NumberWords()
	apostrophes = extract.Apostrophes()
)

// slug is the key slug of phrase without the words of drop.
func slug(phrase string, drop map[string]bool) string { return extract.SlugWithout(phrase, drop) }

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
