package extract

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// A prefilter is a cheap necessary condition for a set of regular
// expressions: a list of literals such that every match of any of them
// contains at least one. Text that contains none cannot match, and the
// expressions need not run. It is derived from the expressions' syntax, so
// it cannot fall out of step with them; when some expression has no such
// literals (it could match without any fixed text), there is no prefilter
// and everything runs.
type prefilter struct {
	literals []string // lower case; nil: no prefilter, run everything
	// byPair indexes a prefilter of many literals by their first two
	// bytes, and pairs says which pairs begin one (bit b<<8|c): the text
	// is read once, instead of once per literal. nil for a few literals.
	byPair map[uint16][]string
	pairs  *[1024]uint64
}

// indexFrom is the number of literals from which a prefilter is indexed.
const indexFrom = 8

// newPrefilter derives the prefilter of res, which are matched against
// lower-cased text.
func newPrefilter(res ...*regexp.Regexp) prefilter {
	var all []string
	for _, re := range res {
		tree, err := syntax.Parse(re.String(), syntax.Perl)
		if err != nil {
			return prefilter{}
		}
		lits, ok := required(tree.Simplify())
		if !ok || len(lits) == 0 {
			return prefilter{}
		}
		all = append(all, lits...)
	}
	slices.Sort(all)
	p := prefilter{literals: slices.Compact(all)}
	if len(p.literals) >= indexFrom {
		p.byPair, p.pairs = map[uint16][]string{}, new([1024]uint64)
		for _, l := range p.literals { // at least minLiteral runes: two bytes or more
			k := uint16(l[0])<<8 | uint16(l[1])
			p.byPair[k] = append(p.byPair[k], l)
			p.pairs[k>>6] |= 1 << (k & 63)
		}
	}
	return p
}

// mayMatch reports whether text (lower case) may match.
func (p prefilter) mayMatch(text string) bool {
	if p.literals == nil {
		return true
	}
	if p.pairs == nil {
		for _, l := range p.literals {
			if strings.Contains(text, l) {
				return true
			}
		}
		return false
	}
	for i := 0; i+1 < len(text); i++ {
		k := uint16(text[i])<<8 | uint16(text[i+1])
		if p.pairs[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, l := range p.byPair[k] {
			if strings.HasPrefix(text[i:], l) {
				return true
			}
		}
	}
	return false
}

// minLiteral is the shortest literal worth requiring: shorter ones are in
// almost every text and filter nothing.
const minLiteral = 2

// required returns literals one of which every match of re contains, or
// false when there are none.
func required(re *syntax.Regexp) ([]string, bool) {
	if set, ok := exact(re); ok {
		return usable(set)
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil, false
	case syntax.OpConcat:
		// Any one part's literals will do, a part being a run of children
		// that match a small set of exact strings (the parser splits
		// "std|sti" into s, t, d|i) or one other child; the longest
		// literals filter best.
		var best []string
		found := false
		consider := func(lits []string, ok bool) {
			if ok && (!found || shortest(lits) > shortest(best)) {
				best, found = lits, true
			}
		}
		var run []string
		inRun := false
		for _, sub := range re.Sub {
			if set, ok := exact(sub); ok {
				if !inRun {
					run, inRun = []string{""}, true
				}
				if run, ok = product(run, set); !ok {
					inRun = false
				}
				continue
			}
			if inRun {
				consider(usable(run))
				inRun = false
			}
			consider(required(sub))
		}
		if inRun {
			consider(usable(run))
		}
		return best, found
	case syntax.OpAlternate:
		// A match matches one of the alternatives: it holds one of the
		// literals of whichever it matched.
		var all []string
		for _, sub := range re.Sub {
			lits, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, true
	}
	return nil, false
}

// maxExact bounds the exact strings a node may stand for.
const maxExact = 64

// exact is the finite set of strings re matches (zero-width assertions
// match ""), when it is small.
func exact(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText:
		return []string{""}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) == 8 {
					return nil, false
				}
				out = append(out, strings.ToLower(string(r)))
			}
		}
		return out, true
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		set, ok := exact(re.Sub[0])
		return append(set, ""), ok
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := exact(sub)
			if !ok || len(all)+len(set) > maxExact {
				return nil, false
			}
			all = append(all, set...)
		}
		return all, true
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			set, ok := exact(sub)
			if !ok {
				return nil, false
			}
			if out, ok = product(out, set); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// product is every a+b, when there are at most maxExact.
func product(as, bs []string) ([]string, bool) {
	if len(as)*len(bs) > maxExact {
		return nil, false
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = append(out, a+b)
		}
	}
	return out, true
}

// usable is set as required literals, when each is long enough to filter.
func usable(set []string) ([]string, bool) {
	if len(set) == 0 {
		return nil, false
	}
	for _, s := range set {
		if len([]rune(s)) < minLiteral {
			return nil, false
		}
	}
	return set, true
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// A prefilterSet answers for up to 64 prefilters at once, from one reading
// of the text: bit i of mask is prefilter i's mayMatch. A sentence holds
// the words of few patterns, and reading it once for all of them costs
// less than once for each.
type prefilterSet struct {
	always uint64 // the prefilters with no literals: they pass everything
	byPair map[uint16][]setLiteral
	pairs  *[1024]uint64
}

// setLiteral is a literal and the prefilters it belongs to.
type setLiteral struct {
	lit  string
	mask uint64
}

// newPrefilterSet combines filters, which must be at most 64.
func newPrefilterSet(filters []prefilter) prefilterSet {
	if len(filters) > 64 {
		panic("extract: a prefilter set holds at most 64 prefilters")
	}
	owners := map[string]uint64{}
	s := prefilterSet{byPair: map[uint16][]setLiteral{}, pairs: new([1024]uint64)}
	for i, f := range filters {
		if f.literals == nil {
			s.always |= 1 << i
		}
		for _, l := range f.literals {
			owners[l] |= 1 << i
		}
	}
	lits := make([]string, 0, len(owners))
	for l := range owners {
		lits = append(lits, l)
	}
	slices.Sort(lits)
	for _, l := range lits { // at least minLiteral runes: two bytes or more
		k := uint16(l[0])<<8 | uint16(l[1])
		s.byPair[k] = append(s.byPair[k], setLiteral{l, owners[l]})
		s.pairs[k>>6] |= 1 << (k & 63)
	}
	return s
}

// mask reports, for each prefilter of the set, whether text (lower case)
// may match it.
func (s prefilterSet) mask(text string) uint64 {
	m := s.always
	for i := 0; i+1 < len(text); i++ {
		k := uint16(text[i])<<8 | uint16(text[i+1])
		if s.pairs[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, l := range s.byPair[k] {
			if m&l.mask != l.mask && strings.HasPrefix(text[i:], l.lit) {
				m |= l.mask
			}
		}
	}
	return m
}

// wideBits is a mask of up to 768 prefilters: bit i of word i/64.
type wideBits [12]uint64

// has reports whether bit i is set.
func (b *wideBits) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// set sets bit i.
func (b *wideBits) set(i int) { b[i>>6] |= 1 << (i & 63) }

// none reports whether no bit is set.
func (b *wideBits) none() bool {
	var or uint64
	for _, w := range b {
		or |= w
	}
	return or == 0
}

// meets reports whether b and o share a bit.
func (b *wideBits) meets(o *wideBits) bool {
	var and uint64
	for i, w := range b {
		and |= w & o[i]
	}
	return and != 0
}

// A wideSet is a prefilterSet for up to 768 prefilters (the risk screen's
// lexicons outgrew 64): the same one reading of the text, a literal's
// owners kept per 64-bit word so that most literals test one word.
type wideSet struct {
	always wideBits
	byPair map[uint16][]wideLiteral
	pairs  *[1024]uint64
}

// wideLiteral is a literal and its owners in one word of the mask.
type wideLiteral struct {
	lit  string
	word int
	mask uint64
}

// newWideSet combines filters, which must be at most 768.
func newWideSet(filters []prefilter) wideSet {
	if len(filters) > 64*len(wideBits{}) {
		panic("extract: a wide prefilter set holds at most 768 prefilters")
	}
	owners := map[string]*wideBits{}
	s := wideSet{byPair: map[uint16][]wideLiteral{}, pairs: new([1024]uint64)}
	for i, f := range filters {
		if f.literals == nil {
			s.always.set(i)
		}
		for _, l := range f.literals {
			if owners[l] == nil {
				owners[l] = new(wideBits)
			}
			owners[l].set(i)
		}
	}
	lits := make([]string, 0, len(owners))
	for l := range owners {
		lits = append(lits, l)
	}
	slices.Sort(lits)
	for _, l := range lits { // at least minLiteral runes: two bytes or more
		k := uint16(l[0])<<8 | uint16(l[1])
		for w, m := range owners[l] {
			if m != 0 {
				s.byPair[k] = append(s.byPair[k], wideLiteral{l, w, m})
			}
		}
		s.pairs[k>>6] |= 1 << (k & 63)
	}
	return s
}

// mask reports, for each prefilter of the set, whether text (lower case)
// may match it.
func (s *wideSet) mask(text string) wideBits {
	m := s.always
	for i := 0; i+1 < len(text); i++ {
		k := uint16(text[i])<<8 | uint16(text[i+1])
		if s.pairs[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, l := range s.byPair[k] {
			if m[l.word]&l.mask != l.mask && strings.HasPrefix(text[i:], l.lit) {
				m[l.word] |= l.mask
			}
		}
	}
	return m
}
