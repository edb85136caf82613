package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jdkato/prose/v2"
)

// proseTense reads a sentence's tense from prose's tags: "used to" is
// past; otherwise the first finite verb decides: VBD is past, VBP, VBZ and
// MD are present ("have"/"has" + VBN, the present perfect, is present too).
// A sentence with no finite verb is present.
func proseTense(toks []prose.Token) string {
	for k := 0; k+1 < len(toks); k++ {
		if strings.EqualFold(toks[k].Text, "used") && strings.EqualFold(toks[k+1].Text, "to") {
			return "past"
		}
	}
	for _, tok := range toks {
		switch tok.Tag {
		case "VBD":
			return "past"
		case "VBP", "VBZ", "MD":
			return "present"
		}
	}
	return "present"
}

// Lexicon baseline: what a word list does without a tagger, in the manner
// of extract/dates.go's tense words (that list is unexported; this one is
// written for the experiment): "used to", a past form from a list of
// irregular verbs and past auxiliaries, or a word in -ed after a subject
// pronoun makes a sentence past.
var (
	lexPast = set(`was were wasn't weren't did didn't had went got came saw met made took gave bought brought
		left ran ate won lost grew spent taught sang fell broke wrote drove sold told thought found felt heard
		kept knew sent slept stood wore flew began swam paid said became built caught chose drew drank forgot
		hid hung led meant rode rose shook shot stole struck threw understood woke once ago yesterday`)
	lexSubject = set("i we they he she you")
)

func lexiconTense(sentence string) string {
	ws := strings.Fields(strings.ToLower(strings.Map(func(r rune) rune {
		if r == '.' || r == ',' || r == '!' || r == '?' {
			return ' '
		}
		return r
	}, sentence)))
	for k, w := range ws {
		switch {
		case w == "used" && k+1 < len(ws) && ws[k+1] == "to":
			return "past"
		case lexPast[w]:
			return "past"
		case strings.HasSuffix(w, "ed") && len(w) > 3 && k > 0 && lexSubject[ws[k-1]]:
			return "past"
		}
	}
	return "present"
}

type tenseCase struct{ label, text string }

func loadTense(path string) ([]tenseCase, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []tenseCase
	for l := range strings.SplitSeq(string(raw), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		label, text, ok := strings.Cut(l, "\t")
		if !ok || (label != "past" && label != "present") {
			return nil, fmt.Errorf("%s: bad line %q", path, l)
		}
		out = append(out, tenseCase{label, text})
	}
	return out, nil
}

func runTense(w io.Writer, t *tagger, path string) error {
	cases, err := loadTense(path)
	if err != nil {
		return err
	}
	type score struct{ right, pastRight, presentRight, past, present int }
	var ps, ls score
	var wrong []string
	for _, c := range cases {
		toks := t.tag(c.text)
		p, l := proseTense(toks), lexiconTense(c.text)
		for _, x := range []struct {
			got string
			s   *score
		}{{p, &ps}, {l, &ls}} {
			if c.label == "past" {
				x.s.past++
			} else {
				x.s.present++
			}
			if x.got == c.label {
				x.s.right++
				if c.label == "past" {
					x.s.pastRight++
				} else {
					x.s.presentRight++
				}
			}
		}
		if p != c.label {
			var tags []string
			for _, tok := range toks {
				tags = append(tags, tok.Text+"/"+tok.Tag)
			}
			wrong = append(wrong, fmt.Sprintf("  prose says %-7s (label %-7s lexicon %-7s): %s", p, c.label, l, strings.Join(tags, " ")))
		}
	}
	for _, x := range []struct {
		name string
		s    score
	}{{"prose tags", ps}, {"lexicon", ls}} {
		fmt.Fprintf(w, "%-10s accuracy %.2f (%d/%d); past %d/%d, present %d/%d\n", x.name,
			float64(x.s.right)/float64(len(cases)), x.s.right, len(cases), x.s.pastRight, x.s.past, x.s.presentRight, x.s.present)
	}
	fmt.Fprintln(w, "prose's misses:")
	for _, l := range wrong {
		fmt.Fprintln(w, l)
	}
	return nil
}
