package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPrefiltersNeverHideAMatch: whatever the risk and special-category
// patterns match, their prefilters let through. Checked on the phrasings of
// this package's tests that the patterns find and on every user turn of the
// shared companion corpus when it is there.
func TestPrefiltersNeverHideAMatch(t *testing.T) {
	if !risks().set.always.none() || specialSet.always != 0 {
		t.Fatal("a risk or special-category pattern has no prefilter: every sentence runs it")
	}
	texts := prefilterTexts(t)
	matched := 0
	for _, text := range texts {
		norm := riskNorm(text)
		for i, p := range risks().patterns {
			if p.re.MatchString(norm) {
				matched++
				if m := risks().set.mask(norm); !m.has(i) {
					t.Errorf("a risk prefilter hides a match of %s in %q", p.re, text)
				}
			}
		}
		for i, p := range specialPatterns {
			if p.re.MatchString(norm) {
				matched++
				if specialSet.mask(norm)&(1<<i) == 0 {
					t.Errorf("a special-category prefilter hides a match of %s in %q", p.re, text)
				}
			}
		}
	}
	if matched < 10 {
		t.Fatalf("only %d matches to check: the test checks nothing", matched)
	}
}

// prefilterTexts are the phrasings of this package's tests that the
// patterns find, and every user turn of the shared companion corpus when it
// is there.
func prefilterTexts(t *testing.T) []string {
	t.Helper()
	texts := []string{
		"I hate my life.", "I want to die", "I've been cutting myself again", "He hits me when he drinks",
		"There's no point anymore", "I can't go on", "I wanna end it all", "I took too many pills",
		"I went to the hospital for my chemo.", "I'm gay.", "I voted for the Green Party", "I pray before bed",
		"I'm considering seeing a doctor about it", "I joined the union at work", "My DNA test results came back",
	}
	if raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpora", "memorybank", "memory_bank_en.json")); err == nil {
		var corpus map[string]struct {
			History map[string][]struct {
				Query string `json:"query"`
			} `json:"history"`
		}
		if err := json.Unmarshal(raw, &corpus); err != nil {
			t.Fatal(err)
		}
		for _, c := range corpus {
			for _, day := range c.History {
				for _, ex := range day {
					texts = append(texts, ex.Query)
				}
			}
		}
	}
	texts = append(texts, "I love hiking.", "My name is Ana", "Tea is more my thing", "Call me Jo", "I LOVE PIZZA",
		"My favorite color is blue", "I'm really into chess", "Coffee is my jam", "I ſtill like ſushi", "I like the Kelvin \u212a",
		"I diſlike tea", "I'm a teacher who diſlikes noiſe", "Tea iſ more my thing", "My favouriteſ are figs")
	return texts
}

// TestCollapseSpacesIsTheRegexp: riskNorm's loop gives what
// regexp.MustCompile(`\s+`).ReplaceAllString gave, on every kind of space,
// those RE2's \s does not hold (no-break, em and ideographic spaces,
// vertical tab) included.
func TestCollapseSpacesIsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`\s+`)
	parts := []string{"", " ", "  ", "\t", "\n", "\r\n", "\f", "\v", "\u00a0", "\u2003", "\u3000", "a", "bé", "x y", "ſ", "\xff"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				s := " " + a + b + c + a + " "
				if got, want := collapseSpaces(s), re.ReplaceAllString(s, " "); got != want {
					t.Fatalf("collapseSpaces(%q) = %q; the regexp gives %q", s, got, want)
				}
			}
		}
	}
}

// TestIndexedPrefilterIsTheLiteralSearch: a prefilter of many literals,
// indexed by their first two bytes, answers as looking for each literal
// in turn does.
func TestIndexedPrefilterIsTheLiteralSearch(t *testing.T) {
	var filters []prefilter
	for _, p := range specialPatterns {
		filters = append(filters, newPrefilter(p.re))
	}
	for _, p := range risks().patterns {
		filters = append(filters, newPrefilter(p.re))
	}
	indexed := 0
	for _, f := range filters {
		if f.pairs != nil {
			indexed++
		}
	}
	if indexed < 2 {
		t.Fatalf("%d indexed prefilters: nothing to compare", indexed)
	}
	texts := []string{"", "a", "i want to die", " i hate my life ", "we went to the hospital", "su", "xsuicid", "suicide",
		"ending it", "é hate", "hat", "cutting-edge", "selfharm", "self-harm!", "i'm in therapy", "therapis", "x"}
	for _, text := range texts {
		for _, f := range filters {
			if f.literals == nil {
				continue // no prefilter: it passes everything
			}
			want := false
			for _, l := range f.literals {
				want = want || strings.Contains(text, l)
			}
			if got := f.mayMatch(text); got != want {
				t.Fatalf("mayMatch(%q) = %v; the literals one by one say %v", text, got, want)
			}
		}
	}
}

// TestRiskSplitIsTheRegexp: the safety screen's sentence split gives what
// the regexp it replaced gave, empty first and last pieces included.
func TestRiskSplitIsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`[.!?\n]+`)
	parts := []string{"", ".", "!?", "\n", "...", " ", "a", "i want to die", "é", "\xff", "3.5"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				s := a + b + c + a
				if got, want := splitRiskSentences(s), re.Split(s, -1); !slices.Equal(got, want) {
					t.Fatalf("splitRiskSentences(%q) = %q; the regexp gives %q", s, got, want)
				}
			}
		}
	}
}

// TestQuotesAsTheRegexp: a sentence mayQuote passes over holds no quote,
// and the quotes are replaced as ReplaceAllString replaces them.
func TestQuotesAsTheRegexp(t *testing.T) {
	parts := []string{"", " ", "\t", "'", `"`, "i'm", " 'i want to die' ", `"i hate my life"`, "don't", "x", "'abc'", "é'", ". "}
	matched := 0
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				s := a + b + c + b
				spans := quoted.FindAllStringIndex(s, -1)
				if spans != nil && !mayQuote(s) {
					t.Fatalf("mayQuote(%q) = false, but the regexp finds %v", s, spans)
				}
				if spans != nil {
					matched++
				}
				if got, want := replaceSpans(s, spans, " _ "), quoted.ReplaceAllString(s, " _ "); got != want {
					t.Fatalf("replaceSpans(%q) = %q; ReplaceAllString gives %q", s, got, want)
				}
			}
		}
	}
	if matched == 0 {
		t.Fatal("no text held a quote: nothing was compared")
	}
}

// TestPrefilterSetIsEachPrefilter: a set's mask holds, for each of its
// prefilters, what that prefilter's mayMatch says, on the test phrasings
// and the corpus in lower case and on fragments of the patterns' words.
func TestPrefilterSetIsEachPrefilter(t *testing.T) {
	sets := []struct {
		name    string
		set     func(string) func(int) bool // the mask of a text, as a bit test
		filters []prefilter
	}{
		{"risk", wideOf(risks().set), prefiltersOf(len(risks().patterns), func(i int) prefilter { return newPrefilter(risks().patterns[i].re) })},
		{"special", narrowOf(specialSet), prefiltersOf(len(specialPatterns), func(i int) prefilter { return newPrefilter(specialPatterns[i].re) })},
	}
	texts := []string{"", "a", "im", "i'm", "my", "my sister", "favourite", "thin", "thing", "suicid", "hospita"}
	for _, text := range prefilterTexts(t) {
		texts = append(texts, strings.ToLower(text), riskNorm(text))
	}
	hits := 0
	for _, s := range sets {
		for _, text := range texts {
			got := s.set(text)
			for i, f := range s.filters {
				want := f.mayMatch(text)
				if got(i) != want {
					t.Fatalf("%s set, prefilter %d, %q: the mask says %v, mayMatch %v", s.name, i, text, !want, want)
				}
				if want {
					hits++
				}
			}
		}
	}
	if hits < 100 {
		t.Fatalf("only %d prefilters passed a text: the test compares little", hits)
	}
}

func wideOf(s wideSet) func(string) func(int) bool {
	return func(text string) func(int) bool {
		m := s.mask(text)
		return m.has
	}
}

func narrowOf(s prefilterSet) func(string) func(int) bool {
	return func(text string) func(int) bool {
		m := s.mask(text)
		return func(i int) bool { return m&(1<<i) != 0 }
	}
}
