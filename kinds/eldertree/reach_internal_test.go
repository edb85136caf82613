package eldertree

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// longSentences are one-sentence messages of many clauses, the shapes that
// made every clause read the rest of its sentence (issue 34 §1): a clause
// per "and then", per "and I", per comma.
var longSentences = []string{"we went to the park and then to the shop ", "I like tea and I love jazz and ", "tea, "}

// TestClausesReadABoundedWindow: however long a sentence, each clause reads
// at most elderReach bytes past it and before it, so that reading a
// sentence is linear in its length, not in its length squared.
func TestClausesReadABoundedWindow(t *testing.T) {
	at := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	for _, unit := range longSentences {
		sent := strings.Repeat(unit, 64<<10/len(unit)) + "day 428 actually."
		cs := elderClauses(sent, at)
		if len(cs) < 100 {
			t.Fatalf("%q: %d clauses", unit, len(cs))
		}
		var read int
		for _, c := range cs {
			if len(c.tail) > len(c.text)+elderReach+32 || len(c.sent) > len(c.text)+2*elderReach+64 {
				t.Fatalf("%q: a clause of %d bytes reads a tail of %d and a sentence of %d", unit, len(c.text), len(c.tail), len(c.sent))
			}
			read += len(c.tail) + len(c.sent)
		}
		if read > 8*len(sent)+4*elderReach*len(cs) {
			t.Errorf("%q: %d bytes of %d-byte sentence read", unit, read, len(sent))
		}
	}
	// What a short sentence says beside a clause is still read.
	cs := elderClauses("14 months sober today and day 428 actually.", at)
	if len(cs) == 0 || !strings.Contains(cs[0].tail, "day 428") || !strings.Contains(cs[len(cs)-1].sent, "14 months") {
		t.Errorf("clauses %+v lost their sentence", cs)
	}
}

// BenchmarkLongSentence: the Elder Tree rules on one message of 32 KiB made
// of one sentence of many clauses (go test ./kinds/eldertree -run '^$'
// -bench LongSentence -benchtime 3x).
func BenchmarkLongSentence(b *testing.B) {
	at := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	for _, unit := range longSentences {
		text := strings.Repeat(unit, 32<<10/len(unit)) + "done."
		s := extract.Session{ID: "s", App: "eldertree", StartedAt: at, EndedAt: at.Add(time.Minute),
			Messages: []extract.Message{{ID: "u0", Role: "user", Content: text, At: at}}}
		b.Run(fmt.Sprintf("%q", strings.TrimSpace(unit)), func(b *testing.B) {
			for b.Loop() {
				extract.Rules(&prompts.App{Name: "eldertree"}, s, at)
			}
		})
	}
}
