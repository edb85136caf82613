package extract

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// adversarialShapes are the texts that made the risk screen quadratic, or
// could (issue 34): each is repeated to the size asked.
var adversarialShapes = []struct{ name, unit string }{
	{"quote", `told me "`},                             // the shape: a quote after each speech verb
	{"quote_risk", `she told me "i want to die" `},     // each quote a finding, attributed
	{"nested_quotes", `he said "she said 'they said `}, // quotes in quotes
	{"one_word", `die `},                               // one word repeated
	{"phrase", `i want to kill myself `},               // a phrasing every 22 bytes, one sentence
	{"pronoun", `she hits me `},                        // abuse by a pronoun: whose blow, read per match
	{"long_word", `a`},                                 // one word, no space
	{"no_spaces", `iwanttodie_`},                       // words run together
	{"sentences", `I want to die. `},                   // many sentences
	{"list_commas", `I like a, b, c, d, e, f and g. `},
	{"commas", `tea, `},
	{"tails", `for good. `},                           // sentences that are tails of the one before
	{"conditions", `if i fail i'll kill myself and `}, // a condition before each phrasing
}

// handoffMessageBytes is the longest message the handoff API accepts
// (handoff.MaxMessageBytes).
const handoffMessageBytes = 32 << 10

// adversarialSession is a session of n bytes of the shape, in user messages
// of at most per bytes.
func adversarialSession(unit string, n, per int) Session {
	text := strings.Repeat(unit, per/len(unit)+1)[:per]
	s := Session{ID: "s-adv", App: "mona"}
	for i := 0; n > 0; i++ {
		m := text[:min(per, n)]
		s.Messages = append(s.Messages, Message{ID: fmt.Sprintf("m%d", i), Role: "user", Content: m})
		n -= len(m)
	}
	return s
}

// nameOnly is a kind of which the risk screen reads the name alone (the
// kinds register themselves from packages this one's tests cannot import).
type nameOnly struct{ Kind }

func (nameOnly) Name() string { return "mona" }

// screenWork is the work (bytes read, budget.spent) of the rules' reading
// of the risks in s (rulesRisks; the trained layer is apart).
func screenWork(t testing.TB, s Session) int64 {
	work := newBudget(context.Background())
	if _, err := rulesRisks(nameOnly{}, s, work); err != nil {
		t.Fatal(err)
	}
	return work.spent
}

// TestRiskScreenWorkIsLinear: the rules' reading of the risks grows with
// the text as the text does on each adversarial shape, whether the text is
// more messages or longer ones. Work is counted in bytes read by the
// patterns and scans (budget), never timed. Before issue 34 each quote
// read the whole sentence before it and each phrasing its whole sentence,
// message and previous turn, again and again: 32 KiB of `told me "` took
// 2.5 s, of `i want to kill myself ` 40 s.
//
// The shape is read at 1 and 4 MiB (a 4 MiB handoff body); every
// shape at 128 and 512 KiB of 32 KiB messages and in one message of 32
// and 128 KiB (MNEMO_ADVERSARIAL_MIB=4 reads every shape at 1 and 4 MiB).
func TestRiskScreenWorkIsLinear(t *testing.T) {
	linear := func(t *testing.T, what string, small, large Session, n int) {
		t.Helper()
		a, b := screenWork(t, small), screenWork(t, large)
		if ratio := float64(b) / float64(a); ratio > 4.5 {
			t.Errorf("%s: %d bytes of work, %.1f times the work of a quarter of it (%d); want at most 4.5", what, b, ratio, a)
		}
		// Work per byte read is bounded: a window, a few frames.
		if perByte := float64(b) / float64(n); perByte > 400 {
			t.Errorf("%s: %.0f bytes of work per byte of text; want at most 400", what, perByte)
		}
	}
	for _, sh := range adversarialShapes {
		t.Run(sh.name, func(t *testing.T) {
			if sh.name == "quote" || os.Getenv("MNEMO_ADVERSARIAL_MIB") == "4" {
				linear(t, "4 MiB in 32 KiB messages", adversarialSession(sh.unit, 1<<20, handoffMessageBytes),
					adversarialSession(sh.unit, 4<<20, handoffMessageBytes), 4<<20)
			}
			if testing.Short() {
				return
			}
			linear(t, "512 KiB in 32 KiB messages", adversarialSession(sh.unit, 128<<10, handoffMessageBytes),
				adversarialSession(sh.unit, 512<<10, handoffMessageBytes), 512<<10)
			linear(t, "one message of 128 KiB", adversarialSession(sh.unit, 32<<10, 32<<10),
				adversarialSession(sh.unit, 128<<10, 128<<10), 128<<10)
		})
	}
}

// errAfter is a context whose Err is Canceled from its nth call on.
type errAfter struct {
	context.Context
	calls, n int64
}

func (c *errAfter) Err() error {
	if atomic.AddInt64(&c.calls, 1) >= c.n {
		return context.Canceled
	}
	return nil
}

// TestRiskScreenStopsWithItsContext: a job attempt whose context ends stops
// reading within stopEvery bytes of work, in a message or between two, and
// RulesContext gives the context's error and no result.
func TestRiskScreenStopsWithItsContext(t *testing.T) {
	s := adversarialSession(`she told me "i want to die" `, 4<<20, handoffMessageBytes)
	for _, n := range []int64{1, 2, 5} {
		ctx := &errAfter{Context: context.Background(), n: n}
		work := newBudget(ctx)
		var res Result
		_, _, err := screenRisks(&res, nameOnly{}, s, work)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at look %d: err %v, want context.Canceled", n, err)
		}
		if limit := n*stopEvery + 2*handoffMessageBytes; work.spent > limit {
			t.Errorf("cancelled at look %d: read %d bytes of work; want at most %d", n, work.spent, limit)
		}
		if len(res.Risks) != 0 {
			t.Errorf("cancelled at look %d: %d risks kept", n, len(res.Risks))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := RulesContext(ctx, nil, s, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	if !errors.Is(err, context.Canceled) || len(res.Memories) != 0 || len(res.Risks) != 0 {
		t.Fatalf("RulesContext with an ended context: err %v, %d memories, %d risks; want context.Canceled and nothing", err, len(res.Memories), len(res.Risks))
	}
}

// TestRiskScansAsTheRegexps: the scans written without a regexp for speed
// find what the regexps they replace find, on random text made of the
// characters and words that matter to them.
func TestRiskScansAsTheRegexps(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	pieces := []string{" ", " ", " ", "  ", ",", ";", ":", "(", ")", "'", "-", "_", "\"", ".", "\n", "\t", "a", "i", "x7", "42",
		"but", "and", "so", "or", "cause", "because", "yet", "though", "song", "songs", "book", "called", "used to", "years ago",
		"when i was young", "in the past", "back when", "told me", "said", "told my sister", "keeps saying", "was like",
		"permanently", "for good", "forever", "i'm", "don't", "well-known", "ünï", "🙂"}
	text := func() string {
		var b strings.Builder
		for range rng.IntN(80) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 3000 {
		s := text()
		spans := riskWordSpans(s)
		want := riskWords.FindAllStringIndex(s, -1)
		if len(spans) != len(want) {
			t.Fatalf("riskWordSpans(%q) = %v; the regexp gives %v", s, spans, want)
		}
		for i := range want {
			if spans[i][0] != want[i][0] || spans[i][1] != want[i][1] {
				t.Fatalf("riskWordSpans(%q) = %v; the regexp gives %v", s, spans, want)
			}
		}
		var ends []int
		for _, l := range clauseBoundary.FindAllStringIndex(s, -1) {
			ends = append(ends, l[1])
		}
		if got := clauseBoundaryEnds(s); !slices.Equal(got, ends) {
			t.Fatalf("clauseBoundaryEnds(%q) = %v; the regexp gives %v", s, got, ends)
		}
		before := strings.TrimSpace(strings.ToLower(s))
		if got, want := speechVerb.MatchString(speechTail(before)), speechVerb.MatchString(before); got != want {
			t.Fatalf("speechVerb on speechTail(%q) = %v; on all of it %v", before, got, want)
		}
		if got, want := speechVerb.FindString(speechTail(before)), speechVerb.FindString(before); got != want {
			t.Fatalf("speechVerb.FindString on speechTail(%q) = %q; on all of it %q", before, got, want)
		}
		var joined []string
		for _, rs := range riskSentences(s) {
			joined = append(joined, rs.text)
			if rs.at >= 0 && s[rs.at:rs.at+len(rs.text)] != rs.text {
				t.Fatalf("riskSentences(%q): %q is not at %d", s, rs.text, rs.at)
			}
		}
		if want := joinTailsReference(splitRiskSentences(s)); !slices.Equal(joined, want) {
			t.Fatalf("riskSentences(%q) = %q; joining each tail in turn gives %q", s, joined, want)
		}
		// inSpan on a long sentence and stretches of it whose ends are
		// at word edges, as judge asks.
		long := s + " " + text() + " " + text() + " " + text() + " " + text()
		edges := []int{0, len(long)}
		for i := 1; i < len(long); i++ {
			if !wordByte(long[i-1]) || !wordByte(long[i]) {
				edges = append(edges, i)
			}
		}
		c := &riskCtx{}
		c.setSentence(long, -1)
		for range 20 {
			lo, hi := edges[rng.IntN(len(edges))], edges[rng.IntN(len(edges))]
			if lo > hi {
				lo, hi = hi, lo
			}
			for _, re := range []*regexp.Regexp{titleContext, historyMarks} {
				if got, want := c.inSpan(re, lo, hi), re.MatchString(long[lo:hi]); got != want {
					t.Fatalf("inSpan(%v, %q) = %v; the regexp on the stretch gives %v", re, long[lo:hi], got, want)
				}
			}
		}
	}
}

// joinTailsReference joins to the sentence before it each sentence that is
// a tail, one at a time, as the screen did before issue 34.
func joinTailsReference(sents []string) []string {
	for i := 1; i < len(sents); i++ {
		if tails[strings.TrimSpace(sents[i])] && strings.TrimSpace(sents[i-1]) != "" {
			sents[i-1] += " " + sents[i]
			sents = append(sents[:i], sents[i+1:]...)
			i--
		}
	}
	return sents
}

// BenchmarkAdversarialInput is the CPU time of the risk screen and of the
// whole of Rules (mona's rules) per MiB of each adversarial shape, in
// 32 KiB messages (docs/benchmarks.md, "Adversarial input"). The CPU time
// is the process's (getrusage), so run it alone.
func BenchmarkAdversarialInput(b *testing.B) {
	for _, sh := range adversarialShapes {
		s := adversarialSession(sh.unit, 1<<20, handoffMessageBytes)
		b.Run(sh.name+"/screen", func(b *testing.B) {
			cpu := cpuSeconds()
			for b.Loop() {
				screenWork(b, s)
			}
			b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/MiB")
		})
	}
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
