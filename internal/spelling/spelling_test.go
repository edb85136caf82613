package spelling

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestCorrectChildrensSpelling: the misspellings of issue 33 and of the
// LaRa evaluation set are read as the words meant.
func TestCorrectChildrensSpelling(t *testing.T) {
	c := Default()
	for _, tc := range []struct{ in, want string }{
		{"i dont like speling its borring", "i don't like spelling its boring"},
		{"my favrit is the trisaratops", "my favorite is the triceratops"},
		{"science is my favrit subjekt", "science is my favorite subject"},
		{"my favrite colour is green", "my favorite colour is green"},
		{"i realy like drawing horses", "i really like drawing horses"},
		{"my frend sam is vegan he dosent eat meat", "my friend sam is vegan he doesn't eat meat"},
		{"my favrit toy is a rabbit caled flopsy", "my favorite toy is a rabbit called flopsy"},
		{"i can rite my name in joined up leters", "i can rite my name in joined up letters"},
		{"i did it in asembly", "i did it in assembly"},
		{"i cant run fast and whats 9 times 8", "i can't run fast and what's 9 times 8"},
		{"im Leo", "I'm Leo"},
		{"i like it alot becos its eazy", "i like it a lot because its easy"},
		{"i wont to play", "i want to play"},
		{"i wont go", "i won't go"},
	} {
		if got, _ := c.Correct(tc.in); got != tc.want {
			t.Errorf("Correct(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCorrectLeavesAlone: words of the lists, names, chat, the user's own
// known words, capitals, codes and addresses stay as written.
func TestCorrectLeavesAlone(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		in    string
		known []string
	}{
		{"ok wait i like spelling now", nil},
		{"i can do my 7 times tables now", nil},
		{"hello lara its sofia", nil},                  // a name of the lists, in lower case
		{"my cusin Zarra likes baking", nil},           // a capital: a name
		{"a rabbit called flopsy", nil},                // the word after "called"
		{"my best friend is jaxon", []string{"Jaxon"}}, // known to the user's memory
		{"lol gtg minecraft is sooo good", nil},
		{"my dads email is jack.dad@example.com and the password is footie99", nil},
		{"we said I LOVE IT", nil},
		{"the gruffalo", []string{"gruffalo"}},
		{"my favourite book is the gruffalo", nil}, // too far from any word: a name
		{"i love dinosaurs espeshally t rex", nil}, // too far to be sure
	} {
		got, fixes := c.Correct(tc.in, tc.known...)
		if tc.in == "my cusin Zarra likes baking" {
			if got != "my cousin Zarra likes baking" {
				t.Errorf("Correct(%q) = %q: the capitalised name must stay, cusin be cousin", tc.in, got)
			}
			continue
		}
		if got != tc.in {
			t.Errorf("Correct(%q, %v) = %q %v, want it unchanged", tc.in, tc.known, got, fixes)
		}
	}
}

// TestCorrectNeedsAClearBest: a short word with many neighbours, or two
// equally good corrections, is left as written.
func TestCorrectNeedsAClearBest(t *testing.T) {
	c := New("cat\ncot\ncut\nbeter\nbetter\nbitter\n", "")
	if got, _ := c.Correct("cxt"); got != "cxt" {
		t.Errorf("a three-letter word was corrected to %q", got)
	}
	// "bettr": better (a vowel left out) is cheaper than bitter.
	if got, _ := c.Correct("bettr"); got != "better" {
		t.Errorf("Correct(bettr) = %q, want better", got)
	}
	c = New("paled\npiled\n", "")
	if got, _ := c.Correct("pxled"); got != "pxled" {
		t.Errorf("Correct(pxled) = %q with two corrections of one cost; want it unchanged", got)
	}
}

// TestListsAndLicense: the lists hold what SOURCE.md says and keep their
// copyright notice beside them.
func TestListsAndLicense(t *testing.T) {
	c := Default()
	for _, w := range []string{"triceratops", "spelling", "colour", "color", "favourite", "favorite", "don't", "sofia"} {
		if !c.Known(w) {
			t.Errorf("%q is not in the lists", w)
		}
	}
	if n := c.Words(); n < 60000 {
		t.Errorf("%d words to correct to; the lists hold about 65,000", n)
	}
	for _, line := range strings.Split(commonList+moreList, "\n") {
		if strings.HasSuffix(line, "'s") {
			t.Fatalf("a possessive %q is in the lists", line)
		}
	}
	if !slices.Contains(chatWords, "minecraft") {
		t.Error("chat words lost")
	}
}

// BenchmarkBuild is the cost of building the corrector once: time, and
// the heap it keeps (reported as MB-kept).
func BenchmarkBuild(b *testing.B) {
	var kept uint64
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		c := New(commonList, moreList)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		kept = m1.HeapAlloc - m0.HeapAlloc
		runtime.KeepAlive(c)
	}
	b.ReportMetric(float64(kept)/(1<<20), "MB-kept")
}

// BenchmarkCorrect is the cost of correcting one child's message with
// three misspellings (the corrector built).
func BenchmarkCorrect(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	for b.Loop() {
		c.Correct("i dont like speling its borring, my favrit is the trisaratops")
	}
}

// BenchmarkCorrectClean is a message with no misspelling.
func BenchmarkCorrectClean(b *testing.B) {
	c := Default()
	b.ReportAllocs()
	for b.Loop() {
		c.Correct("ok wait i like spelling now, i can do my 7 times tables")
	}
}
