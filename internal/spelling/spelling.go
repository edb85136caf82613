// Package spelling corrects the spelling of children's messages before the
// rules read them ("i dont like speling its borring" is read as "i don't
// like spelling its boring"). A word is corrected only when it is not an
// English word of the lists (SCOWL, as Debian ships it: SOURCE.md,
// LICENSE), not a name, not a word of chat (lol, minecraft), not a word the
// caller says is known (what the user's memory already holds), and one
// correction within two edits is clearly the best by the weighted cost of
// cost.go. Anything else is left as written.
//
// The lists are embedded; the deletion index (index.go) over them is built
// once, on first use (Default).
package spelling

import (
	_ "embed"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
)

//go:embed common.txt
var commonList string

//go:embed more.txt
var moreList string

// Fix is one word corrected: From as written, To as read.
type Fix struct{ From, To string }

// Corrector holds the word lists and their index. It is safe for
// concurrent use.
type Corrector struct {
	words    []string          // correction targets: lower-case words, letters only
	common   []bool            // words[i] is among the commoner words (common.txt)
	known    map[string]bool   // every lower-case word, contraction and chat word
	names    map[string]bool   // proper nouns, lower-cased
	bare     map[string]string // contractions without their apostrophe: "dont" → "don't"
	index    index
	maxWords int
}

var (
	defaultOnce sync.Once
	defaultC    *Corrector
)

// Default is the corrector over the embedded lists, built on first use
// (about 0.3 s and 17 MB: docs/benchmarks.md, "Spelling").
func Default() *Corrector {
	defaultOnce.Do(func() { defaultC = New(commonList, moreList) })
	return defaultC
}

// New builds a corrector from word lists, one entry a line; the entries of
// the first list are the commoner words. An entry that starts with a
// capital letter is a proper noun, never a correction.
func New(lists ...string) *Corrector {
	c := &Corrector{known: map[string]bool{}, names: map[string]bool{}, bare: map[string]string{}}
	for n, list := range lists {
		for line := range strings.Lines(list) {
			w := strings.TrimSpace(line)
			if w == "" {
				continue
			}
			if r := rune(w[0]); unicode.IsUpper(r) {
				if strings.ContainsRune(w, '\'') { // I'm, I'll
					lw := strings.ToLower(w)
					c.known[lw] = true
					c.bare[strings.ReplaceAll(lw, "'", "")] = lw
				} else {
					c.names[strings.ToLower(w)] = true
				}
				continue
			}
			if strings.ContainsRune(w, '\'') {
				c.known[w] = true
				c.bare[strings.ReplaceAll(w, "'", "")] = w
				continue
			}
			if c.known[w] {
				continue
			}
			c.known[w] = true
			if len(w) >= 3 {
				c.words = append(c.words, w)
				c.common = append(c.common, n == 0)
			}
		}
	}
	for _, w := range chatWords {
		c.known[w] = true
	}
	for b, w := range bareIs {
		c.bare[b] = w
	}
	// A bare form that is a word of its own ("cant", "wont", "ill", "its")
	// is left to the pronoun rule or as it is.
	for b := range c.bare {
		if c.known[b] {
			delete(c.bare, b)
		}
	}
	c.index = buildIndex(c.words)
	return c
}

// Words is how many words the corrector corrects to.
func (c *Corrector) Words() int { return len(c.words) }

// IndexEntries is the size of the deletion index (8 bytes an entry).
func (c *Corrector) IndexEntries() int { return len(c.index.entries) }

// Known reports whether w (any case) is a word, name or chat word of the
// lists.
func (c *Corrector) Known(w string) bool {
	lw := strings.ToLower(w)
	return c.known[lw] || c.names[lw]
}

// Correct returns text with its misspelt words corrected, and the
// corrections. known are words that must stay as they are (the user's own
// names and words, already stored); their case does not matter. Only
// words written in lower-case letters are corrected: a word with a capital
// (a name, "LOVE"), a digit or another sign stays as it is, and so does the
// word after "called", "named" or "I'm".
func (c *Corrector) Correct(text string, known ...string) (string, []Fix) {
	var out strings.Builder
	var fixes []Fix
	keep := func(w string) bool {
		return slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, w) })
	}
	prev, prev2 := "", ""
	i := 0
	for i < len(text) {
		j := i
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		if j == i {
			out.WriteByte(text[i])
			i++
			continue
		}
		// A token: letters, digits and apostrophes. One that touches a
		// sign of an address, a handle or a code (@ . / _ -) is left whole.
		w := text[i:j]
		touching := (i > 0 && strings.IndexByte("@./_-#", text[i-1]) >= 0 && i > 1 && isWordByte(text[i-2])) ||
			(j < len(text) && strings.IndexByte("@/_#", text[j]) >= 0) ||
			(j+1 < len(text) && text[j] == '.' && isWordByte(text[j+1]))
		to := w
		if !touching && !keep(w) && !nameCues[prev] && !(prev == "is" && prev2 == "name") {
			to = c.word(w, prev)
			if to == "won't" && strings.HasPrefix(text[j:], " to ") {
				to = "want" // "i wont to play"
			}
		}
		if to != w {
			fixes = append(fixes, Fix{From: w, To: to})
		}
		out.WriteString(to)
		prev2, prev = prev, strings.ToLower(w)
		i = j
	}
	return out.String(), fixes
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '\'' || b >= 0x80
}

// word is w corrected, or w.
func (c *Corrector) word(w, prev string) string {
	for k := 0; k < len(w); k++ {
		if w[k] < 'a' || w[k] > 'z' {
			if w[k] == '\'' {
				continue
			}
			return w // a capital, a digit or a letter outside a-z
		}
	}
	if pronouns[prev] {
		switch w {
		case "cant":
			return "can't"
		case "wont":
			return "won't"
		}
	}
	if to, ok := bareIs[w]; ok {
		return to
	}
	if c.known[w] || c.names[w] {
		return w
	}
	if to, ok := c.bare[w]; ok {
		if to == "i'm" || strings.HasPrefix(to, "i'") {
			return "I" + to[1:]
		}
		return to
	}
	if strings.ContainsRune(w, '\'') || len(w) < 4 || repeats(w) {
		return w
	}
	return c.best(w)
}

// repeats reports a letter three times in a row ("sooo", "yayyy"): a word
// stretched on purpose, no misspelling.
func repeats(w string) bool {
	for k := 2; k < len(w); k++ {
		if w[k] == w[k-1] && w[k] == w[k-2] {
			return true
		}
	}
	return false
}

// maxCost is the most a correction of a word of n letters may cost: short
// words have too many neighbours to be corrected far.
func maxCost(n int) float64 {
	switch {
	case n <= 4:
		return 0.6
	case n <= 6:
		return 1.2
	}
	return 1.5
}

// best is the cheapest correction of w, or w when there is none, or when
// two corrections cost the same and neither is the commoner word.
func (c *Corrector) best(w string) string {
	limit := maxCost(len(w))
	type cand struct {
		word   string
		cost   float64
		common bool
	}
	var top, second cand
	var rows scratch
	top.cost, second.cost = limit+1, limit+1
	c.index.candidates(w, func(i uint32) {
		t := c.words[i]
		if d := len(t) - len(w); d > maxEdits || d < -maxEdits {
			return
		}
		// The first letter a child gets right; a silent first letter
		// ("nife" for knife) is the one exception.
		if t[0] != w[0] && !(len(t) > 1 && t[1] == w[0] && strings.IndexByte("kwh", t[0]) >= 0) {
			return
		}
		wc, edits := rows.cost(w, t, limit)
		wc = math.Round(wc*100) / 100 // sums of the same costs compare equal
		if edits > maxEdits || wc > limit {
			return
		}
		x := cand{t, wc, c.common[i]}
		if better(x.cost, x.common, x.word, top.cost, top.common, top.word) {
			top, second = x, top
		} else if better(x.cost, x.common, x.word, second.cost, second.common, second.word) {
			second = x
		}
	})
	if top.word == "" {
		return w
	}
	if second.word != "" && second.cost == top.cost && second.common == top.common {
		return w // no clear best
	}
	return top.word
}

// better orders candidates: the lower cost, then a common word first, then
// the word itself (so that the order does not depend on the index).
func better(c1 float64, common1 bool, w1 string, c2 float64, common2 bool, w2 string) bool {
	if c1 != c2 {
		return c1 < c2
	}
	if common1 != common2 {
		return common1
	}
	return w2 == "" || w1 < w2
}
