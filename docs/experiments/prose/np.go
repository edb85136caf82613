package main

import (
	"strings"

	"github.com/jdkato/prose/v2"
)

// tagger tags text with prose's averaged-perceptron tagger. prose v2.0.0
// loads its model from embedded gob data on every NewDocument call unless a
// model is passed in, and exports no constructor for the default model: the
// only way to load it once is to keep the Model of a first document.
type tagger struct {
	model *prose.Model
}

func newTagger() *tagger {
	doc, err := prose.NewDocument("x", prose.WithSegmentation(false), prose.WithExtraction(false))
	if err != nil {
		panic(err)
	}
	return &tagger{model: doc.Model}
}

// tag tokenizes and tags text (no segmentation, no entities).
func (t *tagger) tag(text string) []prose.Token {
	doc, err := prose.NewDocument(text, prose.UsingModel(t.model),
		prose.WithSegmentation(false), prose.WithExtraction(false))
	if err != nil {
		return nil
	}
	return doc.Tokens()
}

// words tokenizes text the way tag does, without tagging.
func words(text string) []string {
	doc, err := prose.NewDocument(text, prose.WithTagging(false),
		prose.WithSegmentation(false), prose.WithExtraction(false))
	if err != nil {
		return nil
	}
	var out []string
	for _, tok := range doc.Tokens() {
		out = append(out, tok.Text)
	}
	return out
}

// locate finds the value's tokens in the source's, case-insensitively:
// the span [i, j), ok false when the value is not said word for word.
func locate(src []prose.Token, val []string) (int, int, bool) {
	if len(val) == 0 {
		return 0, 0, false
	}
	for i := 0; i+len(val) <= len(src); i++ {
		ok := true
		for k, w := range val {
			if !strings.EqualFold(src[i+k].Text, w) {
				ok = false
				break
			}
		}
		if ok {
			return i, i + len(val), true
		}
	}
	return 0, 0, false
}

// Tag classes (Penn Treebank tags, as prose's tagger gives them).
var (
	// badEnd cannot end a noun phrase: a finite verb, a pronoun, a
	// conjunction, a preposition, a determiner, a modal, a wh-word.
	badEnd = set("CC IN DT PDT TO MD PRP PRP$ WDT WP WP$ WRB EX VBZ VBP VBD RP POS , : ( ) `` ''")
	// clauseStart make a value not a complete phrase: a finite verb or a
	// pronoun after its first word ("Elena lives", "Chicago and I").
	clauseStart = set("VBZ VBP VBD MD PRP")
	// trimEnd and trimStart are the tags trimValue takes off a value's
	// ends: function words only. Verbs are left: on chat text the tagger
	// reads many plural nouns as verbs ("shooting landscapes/VBZ").
	trimEnd   = set("CC IN DT PDT TO MD PRP PRP$ WDT WP WP$ WRB EX POS , : ( ) `` ''")
	trimStart = set("CC IN TO MD PRP WDT WP WP$ WRB EX POS , : ( ) `` ''")
	// newClause after a noun open a new clause: "Elena lives".
	newClause = set("VBZ VBD MD")
	// pronounOrDet make no value on their own.
	pronounOrDet = set("PRP PRP$ DT PDT WDT WP EX")
	// npTag may stand inside a noun-phrase chunk.
	npTag = set("DT PDT PRP$ POS CD JJ JJR JJS NN NNS NNP NNPS VBG HYPH")
	// npHead may end one.
	npHead = set("NN NNS NNP NNPS CD")
)

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}

// incomplete reports whether a tagged span is not a complete phrase by
// prose's tags: it ends in a verb, pronoun, conjunction or other function
// word, or holds a finite verb or a pronoun after its first word ("Elena
// Lives", "Chicago and I").
func incomplete(toks []prose.Token) bool {
	if len(toks) == 0 {
		return true
	}
	if badEnd[toks[len(toks)-1].Tag] {
		return true
	}
	for k := 1; k < len(toks); k++ {
		if clauseStart[toks[k].Tag] {
			return true
		}
	}
	return false
}

// span is a located value: the source's tokens and the value's span.
type span struct {
	toks    []prose.Token
	i, j    int
	located bool
}

// find tags the source and locates the value in it; a value not said word
// for word (a rules value rewritten from the words) is tagged on its own.
func (t *tagger) find(source, value string) span {
	src := t.tag(source)
	if i, j, ok := locate(src, words(value)); ok {
		return span{src, i, j, true}
	}
	own := t.tag(value)
	return span{own, 0, len(own), false}
}

func join(toks []prose.Token) string {
	var b strings.Builder
	for k, tok := range toks {
		if k > 0 && !noSpaceBefore(tok.Text) {
			b.WriteByte(' ')
		}
		b.WriteString(tok.Text)
	}
	return b.String()
}

func noSpaceBefore(w string) bool {
	switch strings.ToLower(w) {
	case ",", ".", "!", "?", ";", ":", "'s", "'", "n't", "%", ")", "'re", "'ve", "'m", "'ll", "'d":
		return true
	}
	return false
}

// trimValue is the conservative prose-based trimmer. It cuts the value
// where prose's tags open a new clause: a finite verb after a noun ("Elena
// lives" → "Elena"), or a pronoun after a conjunction ("Chicago and I" →
// "Chicago"). Then it trims function words off both ends by their tags,
// keeping a particle after a verb ("working out"). A value whose tags hold
// nothing but pronouns and determiners is dropped (""); a value with no
// noun by the tags at all is kept as it is: on chat text that is more often
// a tagging error ("I love softball too": softball/RB) than a bad value.
func trimValue(sp span) string {
	toks := sp.toks[sp.i:sp.j]
	for k := 1; k < len(toks); k++ {
		t, prev := toks[k].Tag, toks[k-1].Tag
		if newClause[t] && npHead[prev] || t == "PRP" && prev == "CC" {
			toks = toks[:k]
			break
		}
	}
	for len(toks) > 0 && trimEnd[toks[len(toks)-1].Tag] {
		toks = toks[:len(toks)-1]
	}
	for len(toks) > 0 && trimStart[toks[0].Tag] {
		toks = toks[1:]
	}
	for _, tok := range toks {
		if !pronounOrDet[tok.Tag] {
			return join(toks)
		}
	}
	return ""
}

// chunkValue replaces the value by the noun-phrase chunk of the source that
// holds the value's last noun (prose v2 has no chunker: a chunk is a
// maximal run of npTag tokens, cut back to its last npHead, without a
// leading determiner or possessive). A value with no noun (an activity:
// "hiking", "bake") is trimmed as by trimValue.
func chunkValue(sp span) string {
	head := -1
	for k := sp.j - 1; k >= sp.i; k-- {
		if npHead[sp.toks[k].Tag] {
			head = k
			break
		}
	}
	if head < 0 {
		return trimValue(sp) // an activity or a mis-tagged noun
	}
	a, b := head, head+1
	for a > 0 && npTag[sp.toks[a-1].Tag] {
		a--
	}
	for b < len(sp.toks) && npTag[sp.toks[b].Tag] {
		b++
	}
	for b > head+1 && !npHead[sp.toks[b-1].Tag] {
		b--
	}
	for a < head && (sp.toks[a].Tag == "DT" || sp.toks[a].Tag == "PDT" || sp.toks[a].Tag == "PRP$") {
		a++
	}
	return join(sp.toks[a:b])
}
