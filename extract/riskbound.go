package extract

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
)

// The risk screen's cost is linear in the text it reads (issue 34): a
// phrasing is judged on a bounded stretch of its sentence around it, the
// frames read on a whole sentence, message or previous turn are read once
// each, and the reading stops soon after its context ends.

// riskWindow bounds, in bytes, the text before and after a phrasing (or a
// quote) that its judgement reads: the clause, the nearest subject, a
// condition, a negation, what follows. Without it each of the n phrasings of
// a sentence with no stop would read the whole sentence, n² in all.
const riskWindow = 256

// windowStart is where the window before at starts in s: 0 when at is
// within riskWindow of the start, else the first word start within the
// window (a long word is cut).
func windowStart(s string, at int) int {
	if at <= riskWindow {
		return 0
	}
	lo := at - riskWindow
	if i := strings.IndexByte(s[lo:at], ' '); i >= 0 {
		return lo + i + 1
	}
	return lo
}

// windowEnd is where the window after at ends in s: len(s) when the rest is
// within riskWindow, else the last word end within the window.
func windowEnd(s string, at int) int {
	if len(s)-at <= riskWindow {
		return len(s)
	}
	hi := at + riskWindow
	if i := strings.LastIndexByte(s[at:hi], ' '); i > 0 {
		return at + i
	}
	return hi
}

// budget counts the work of one reading of the risks, in bytes read by
// the patterns and scans, and checks its context every stopEvery bytes: a
// cancelled job attempt stops within that much work.
type budget struct {
	ctx   context.Context
	spent int64
	next  int64
	err   error
}

// stopEvery is how much work (bytes read) passes between two looks at the
// context.
const stopEvery = 256 << 10

func newBudget(ctx context.Context) *budget {
	if ctx == nil {
		ctx = context.Background()
	}
	return &budget{ctx: ctx, next: stopEvery, err: ctx.Err()}
}

// spend counts n bytes read and reports whether the reading goes on.
func (b *budget) spend(n int) bool {
	if b == nil {
		return true
	}
	b.spent += int64(n)
	if b.err == nil && b.spent >= b.next {
		b.next = b.spent + stopEvery
		b.err = b.ctx.Err()
	}
	return b.err == nil
}

// check looks at the context now, whatever the work since the last look.
func (b *budget) check() error {
	if b != nil && b.err == nil {
		b.err = b.ctx.Err()
	}
	if b == nil {
		return nil
	}
	return b.err
}

// done reports whether the reading must stop (its context ended).
func (b *budget) done() bool { return b != nil && b.err != nil }

// frames memoises a frame's answer on one text (a message, a turn, a
// sentence): the same regexp is asked about the same text once.
type frames map[*regexp.Regexp]bool

func (f *frames) on(re *regexp.Regexp, text string, b *budget) bool {
	if v, ok := (*f)[re]; ok {
		return v
	}
	if *f == nil {
		*f = frames{}
	}
	b.spend(len(text))
	v := re.MatchString(text)
	(*f)[re] = v
	return v
}

// inMsg reports whether re matches the message, read once per message.
func (c *riskCtx) inMsg(re *regexp.Regexp) bool { return c.msgFrames.on(re, c.msg, c.work) }

// inPrev reports whether re matches the previous turn, read once per
// message.
func (c *riskCtx) inPrev(re *regexp.Regexp) bool {
	return c.prevFrames.on(re, c.previous(), c.work)
}

// inSent reports whether re matches the sentence being judged
// (sentenceRisks sets it), read once per sentence.
func (c *riskCtx) inSent(re *regexp.Regexp) bool {
	return c.sentFrames.on(re, c.sent, c.work)
}

// setSentence starts the memo of a new sentence, which starts at at in
// the message (-1: no part of it).
func (c *riskCtx) setSentence(sent string, at int) {
	c.sent, c.sentFrames, c.sentSpans, c.sentAt = sent, nil, nil, at
}

// spend counts n bytes of work on the message.
func (c *riskCtx) spend(n int) bool { return c.work.spend(n) }

// maxFinding is the strongest finding there is: once a message holds it,
// nothing more it says can change its reading.
func maxFinding(f RiskFinding) bool {
	return f.Severity == SeverityHigh && f.Actor == ActorUser && classRank(f.Class) == len(RiskClasses)
}

// mentionsBefore is, for the message, the last person or animal named
// before each word (mentioned's reading of the text before it), computed
// once per message in one pass.
type mentionsBefore struct {
	ends []int // the end of each word of the message
	last []int // the referent named by word i or the nearest before it
}

func (c *riskCtx) lastMentionBefore(at int) int {
	if c.mentions == nil {
		c.spend(len(c.msg))
		locs := riskWordSpans(c.msg)
		words := make([]string, len(locs))
		m := &mentionsBefore{ends: make([]int, len(locs)), last: make([]int, len(locs))}
		for i, l := range locs {
			words[i], m.ends[i] = c.msg[l[0]:l[1]], l[1]
		}
		ref := referentNone
		for i := range words {
			if r := mentionOf(words, i); r != referentNone {
				ref = r
			}
			m.last[i] = ref
		}
		c.mentions = m
	}
	// The words that end by at: binary search on their ends.
	lo, hi := 0, len(c.mentions.ends)
	for lo < hi {
		mid := (lo + hi) / 2
		if c.mentions.ends[mid] <= at {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return referentNone
	}
	return c.mentions.last[lo-1]
}

// memo of answers that hold for the whole message or previous turn.
func (c *riskCtx) prevMentioned() int {
	if !c.prevMentionDone {
		c.prevMentionDone = true
		c.spend(len(c.previous()))
		c.prevMention = mentioned(c.previous(), true)
	}
	return c.prevMention
}

func (c *riskCtx) personNamed() bool {
	if c.personNamedMemo == 0 {
		c.spend(len(c.msg) + len(c.previous()))
		c.personNamedMemo = 1
		if namesPerson(c.msg) || namesPerson(c.previous()) {
			c.personNamedMemo = 2
		}
	}
	return c.personNamedMemo == 2
}

// speechTail is the end of before that speechVerb can match: its last run
// of RE2 word characters and spaces. Every word of the verb is made of
// them, and the character before the run is neither, so the verb matches
// before exactly when it matches the run, which is read instead of the
// text before the quote.
func speechTail(before string) string {
	i := len(before)
	for i > 0 {
		c := before[i-1]
		if wordByte(c) || c == ' ' || c >= '\t' && c <= '\r' && c != '\v' {
			i--
			continue
		}
		break
	}
	return before[i:]
}

// riskWordSpans is riskWords.FindAllStringIndex(s, -1) in one pass over
// the bytes, without the regexp: a word is a letter a-z followed by
// letters, apostrophes and hyphens, or a run of digits.
func riskWordSpans(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		switch {
		case c >= 'a' && c <= 'z':
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '\'' || s[j] == '-') {
				j++
			}
		case c >= '0' && c <= '9':
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
		default:
			i = j
			continue
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// riskWordsOf is riskWords.FindAllString(s, -1) (riskWordSpans).
func riskWordsOf(s string) []string {
	spans := riskWordSpans(s)
	if len(spans) == 0 {
		return nil
	}
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = s[sp[0]:sp[1]]
	}
	return out
}

// clauseBoundaryEnds is the end of each of clauseBoundary's matches in s,
// as FindAllStringIndex finds them (leftmost first, none overlapping), in
// one pass without the regexp.
func clauseBoundaryEnds(s string) []int {
	var out []int
	for i := 0; i < len(s); {
		switch s[i] {
		case ',', ';', ':', '(', ')':
			out = append(out, i+1)
			i++
			continue
		case ' ', '\t', '\n', '\f', '\r':
			if n := boundaryWord(s[i+1:]); n > 0 {
				i += 1 + n + 1
				out = append(out, i)
				continue
			}
		}
		i++
	}
	return out
}

// boundaryWord is the length of the conjunction clauseBoundary knows that
// starts s and is followed by an RE2 space, or 0.
func boundaryWord(s string) int {
	for _, w := range [...]string{"but", "and", "because", "cause", "so", "though", "although", "yet", "or"} {
		if len(s) > len(w) && s[:len(w)] == w && strings.IndexByte(" \t\n\f\r", s[len(w)]) >= 0 {
			return len(w)
		}
	}
	return 0
}

// spanEdge is how much of each end of a stretch inSpan reads again alone:
// more than twice the longest match of the frames it is used for
// (titleContext, historyMarks).
const spanEdge = 96

// inSpan reports whether re, a frame made of whole words (no ^, $ or
// punctuation in it), matches the sentence being judged between lo and hi
// (clause or the text after a phrasing), as re.MatchString(sent[lo:hi])
// would, with lo and hi at word edges. The sentence's matches are found
// once; a match of the stretch that is not one of them (it overlaps one
// that crosses an end) lies near that end, which is read alone.
func (c *riskCtx) inSpan(re *regexp.Regexp, lo, hi int) bool {
	if c.sentSpans == nil {
		c.sentSpans = map[*regexp.Regexp][][]int{}
	}
	spans, ok := c.sentSpans[re]
	if !ok {
		c.spend(len(c.sent))
		spans = re.FindAllStringIndex(c.sent, -1)
		c.sentSpans[re] = spans
	}
	// The matches are in order and apart: the first that starts at lo
	// or after ends first.
	i, _ := slices.BinarySearchFunc(spans, lo, func(sp []int, lo int) int { return cmp.Compare(sp[0], lo) })
	if i < len(spans) && spans[i][1] <= hi {
		return true
	}
	// Otherwise the stretch holds a match of its own only where one of
	// the sentence's crosses an end, or where an end cuts a word.
	atLo := i > 0 && spans[i-1][1] > lo || lo > 0 && lo < len(c.sent) && wordByte(c.sent[lo-1]) && wordByte(c.sent[lo])
	atHi := i < len(spans) && spans[i][0] < hi || hi > 0 && hi < len(c.sent) && wordByte(c.sent[hi-1]) && wordByte(c.sent[hi])
	switch {
	case !atLo && !atHi:
		return false
	case hi-lo <= 2*spanEdge:
		c.spend(hi - lo)
		return re.MatchString(c.sent[lo:hi])
	}
	// Each end is cut at a space, so that a word is never read in part.
	if atLo {
		head := c.sent[lo : lo+spanEdge]
		head = head[:max(strings.LastIndexByte(head, ' '), 0)]
		c.spend(len(head))
		if re.MatchString(head) {
			return true
		}
	}
	if j := strings.IndexByte(c.sent[hi-spanEdge:hi], ' '); atHi && j >= 0 {
		tail := c.sent[hi-spanEdge+j+1 : hi]
		c.spend(len(tail))
		return re.MatchString(tail)
	}
	return false
}

// wordByte reports whether c is an RE2 word character (\w).
func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
