package grammar

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMemoryPrefiltersNeverHideAMatch: whatever the memory patterns match,
// their prefilters let through. Checked on the phrasings of this package's
// tests that the patterns find and on every user turn of the shared
// companion corpus when it is there.
func TestMemoryPrefiltersNeverHideAMatch(t *testing.T) {
	mined := 0
	for _, text := range prefilterTexts(t) {
		// The memory patterns, tried at every word of the text as
		// written, shouted and in lower case; memoryMask reads ASCII text
		// only (TestCaseFoldsMineAsTheirLetters has the rest), and a
		// sentence holds at least the words of the text at any of its
		// words.
		for _, v := range []string{text, strings.ToUpper(text), strings.ToLower(text)} {
			for _, at := range wordStarts(v) {
				rest := v[at:]
				for i, p := range patterns {
					if p.re.MatchString(rest) {
						mined++
						if memoryMask(rest)&(1<<i) == 0 {
							t.Errorf("a memory pattern's prefilter hides a match of %s in %q", p.re, rest)
						}
					}
				}
				if comparisonRe.MatchString(rest) && memoryMask(rest)&comparisonBit == 0 {
					t.Errorf("the comparison prefilter hides a match in %q", rest)
				}
			}
		}
	}
	if mined < 10 {
		t.Fatalf("only %d memory-pattern matches to check: the test checks nothing", mined)
	}
}

// TestMemoryPrefilterSetIsEachPrefilter: the memory set's mask holds, for
// each of its prefilters, what that prefilter's mayMatch says.
func TestMemoryPrefilterSetIsEachPrefilter(t *testing.T) {
	filters := append(slices.Clone(patternPre), comparisonPre)
	texts := []string{"", "a", "im", "i'm", "my", "my sister", "favourite", "thin", "thing", "suicid", "hospita"}
	for _, text := range prefilterTexts(t) {
		texts = append(texts, strings.ToLower(text))
	}
	hits := 0
	for _, text := range texts {
		m := memorySet.mask(text)
		for i, f := range filters {
			want := f.mayMatch(text)
			if got := m&(1<<i) != 0; got != want {
				t.Fatalf("memory set, prefilter %d, %q: the mask says %v, mayMatch %v", i, text, got, want)
			}
			if want {
				hits++
			}
		}
	}
	if hits < 100 {
		t.Fatalf("only %d prefilters passed a text: the test compares little", hits)
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
	if raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpora", "memorybank", "memory_bank_en.json")); err == nil {
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

// TestLooksMineableAsEveryWordStart: looksMineable, which scans its sentence
// once for "fav" and "my ", answers as matchAt tried at every word start
// does, on the test phrasings and the corpus, as written, shouted and in
// lower case, and with the two words just inside and outside the clause
// window.
func TestLooksMineableAsEveryWordStart(t *testing.T) {
	texts := prefilterTexts(t)
	pad := strings.Repeat("word ", reverseWindow/5)
	for _, tail := range []string{"pizza is my favorite food", "tea is more my thing", "my", "fav"} {
		for cut := 0; cut < 12; cut++ {
			texts = append(texts, pad[cut:]+tail, "I said "+pad[cut:]+tail)
		}
	}
	yes := 0
	for _, text := range texts {
		for _, v := range []string{text, strings.ToUpper(text), strings.ToLower(text)} {
			for _, sent := range splitSentences(v) {
				want := false
				for _, p := range wordStarts(sent.text) {
					if _, ok, _ := matchAt(sent.text[p:], false, ^uint64(0)); ok {
						want = true
						break
					}
				}
				if got := looksMineable(sent.text); got != want {
					t.Fatalf("looksMineable(%q) = %v; matchAt at every word says %v", sent.text, got, want)
				}
				if want {
					yes++
				}
			}
		}
	}
	if yes < 10 {
		t.Fatalf("only %d mineable sentences: the test compares nothing", yes)
	}
}

// TestCaseFoldsMineAsTheirLetters: a pattern's words written with a
// letter's case fold that lower-casing does not undo (U+017F, the long s,
// which (?i) takes for "s") are mined as the plain words are: the
// prefilters, which read lower-cased text, step aside for such text.
func TestCaseFoldsMineAsTheirLetters(t *testing.T) {
	for _, plain := range []string{"I'm considering moving to Spain.", "I'm passionate about jazz.", "I was born in Oslo."} {
		folded := strings.ReplaceAll(plain, "s", "\u017f")
		want, _ := mineMessage(plain)
		got, _ := mineMessage(folded)
		if len(want) == 0 {
			t.Fatalf("%q mines nothing: the test checks nothing", plain)
		}
		if len(got) != len(want) || got[0].Key != want[0].Key {
			t.Errorf("%q mines %+v; %q mines %+v", folded, got, plain, want)
		}
	}
}
