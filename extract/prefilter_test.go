package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPrefiltersNeverHideAMatch: whatever the risk and special-category
// patterns match, their prefilters let through. Checked on the phrasings of
// this package's tests that the patterns find and on every user turn of the
// shared companion corpus when it is there.
func TestPrefiltersNeverHideAMatch(t *testing.T) {
	if riskPrefilter.literals == nil || specialPrefilter.literals == nil {
		t.Fatal("no prefilter derived: every sentence would run every pattern")
	}
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
	matched := 0
	for _, text := range texts {
		norm := riskNorm(text)
		for _, p := range riskPatterns {
			if p.re.MatchString(norm) {
				matched++
				if !riskPrefilter.mayMatch(norm) {
					t.Errorf("the risk prefilter hides a match of %s in %q", p.re, text)
				}
			}
		}
		for _, p := range specialPatterns {
			if p.re.MatchString(norm) {
				matched++
				if !specialPrefilter.mayMatch(norm) {
					t.Errorf("the special-category prefilter hides a match of %s in %q", p.re, text)
				}
			}
		}
	}
	if matched < 10 {
		t.Fatalf("only %d matches to check: the test checks nothing", matched)
	}
}
