package extract

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/prompts"
)

// Confidence of a memory by where it came from (docs/presets.md#confidence).
// The rules give some patterns more ("my name is" is 0.9) and some less
// (feelings are 0.5).
const (
	ConfidenceRules = 0.7
	ConfidenceLLM   = 0.85
	ConfidenceUser  = 1.0
)

// Statuses of a stored memory.
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
)

// Stored is a memory as the store holds it, as far as the merge policy needs
// to know it.
type Stored struct {
	ID            string
	Key           string
	Value         string
	Category      string
	Importance    int
	Confidence    float64
	Status        string // StatusActive (or empty, read as active) or StatusDeprecated
	Confirmations int
	ExpiresAt     *time.Time
	// SourceSessionID and SourceMessageID say where the memory was learnt.
	SourceSessionID string
	SourceMessageID string
	// ConfirmedBy lists the sessions whose bumps this memory already carries
	// (the store keeps them in memory history). Without it a re-run of a
	// session would bump the same memory twice.
	ConfirmedBy []string
	// StatedAt is when the memory was said (the earliest of its
	// confirmations); zero for memories stored before statement times were
	// kept, which count as older than anything said since.
	StatedAt time.Time
}

// OpAction is what Plan decides for one candidate.
type OpAction string

// The decisions of Plan.
const (
	OpInsert    OpAction = "insert"    // a new key: store Memory
	OpBump      OpAction = "bump"      // the same fact again: update Target with Memory's importance, confidence and expiry
	OpSupersede OpAction = "supersede" // a changed or contradicted fact: deprecate Target, store Memory linked to it
	OpOlder     OpAction = "older"     // a statement older than Target, which replaced it: store Memory as history, already replaced by Target
	OpSkip      OpAction = "skip"      // store nothing
)

// Op is one write the merge policy allows, or one it refuses.
//
// Reason is one of: new (insert); confirmed (bump); changed, contradiction
// (supersede); low_confidence, already_applied, duplicate, overridden,
// invalid_key, empty_value, too_long, sensitive:<kind>, no_target (skip);
// ended (supersede, by an ending: see Change).
type Op struct {
	Action OpAction `json:"kind"`
	Memory Memory   `json:"memory"`
	// Target is the ID of the stored memory bumped or superseded.
	Target string `json:"target,omitempty"`
	Reason string `json:"reason"`
	// Confirmations is the target's new count of confirmations, for a bump.
	Confirmations int `json:"confirmations,omitempty"`
	// Prev is the stored memory said just before Memory, whose validity now
	// ends at Memory.StatedAt instead (an older statement that arrived late
	// slots in between Prev and Target), for OpOlder and OpBump.
	Prev string `json:"prev,omitempty"`
	// Said is the candidate as it was said, cleaned (key, value, category),
	// stated (StatedAt, now when it had none) and with its expiry: what a
	// timeline of statements records, where Memory is the merged result.
	Said Memory `json:"-"`
}

// Plan is the merge policy: the one gate every memory write passes. It
// decides, for candidates learnt in session sessionID, what to do against
// the user's stored memories:
//
//   - keys are brought into their documented shape (CanonicalKey), so that
//     the LLM's "likes:Ice Cream" meets the rules' "likes:ice_cream";
//   - a candidate that is malformed, too long, sensitive or below
//     p.MinConfidence is skipped;
//   - within the batch, the last candidate of a key wins (the latest
//     StatedAt, then the later in the list), and likes:x and dislikes:x count
//     as one key, so the later statement wins;
//   - statement time is the order of truth. The stored memories of a key
//     (active and deprecated, likes:x and dislikes:x together) form its
//     timeline, ordered by StatedAt (ties broken by source session, source
//     message, then value, so that any arrival order gives one answer). A
//     candidate is placed into that timeline by its StatedAt (zero: now):
//   - the same key and value as the statement just before it, or as the one
//     just after it, bumps that memory (confirmations +1; importance the
//     higher of +5 and the candidate's plus 5 per earlier confirmation, up to
//     100, which gives the same figure in any order; expiry refreshed; an
//     earlier StatedAt moves the memory's StatedAt back);
//   - newer than every stored statement, another value supersedes the
//     active memory, and so does dislikes:x against an active likes:x (and
//     the other way round);
//   - older than a stored statement with another value, it is kept as
//     history (OpOlder): true from its StatedAt until the next statement's;
//   - anything else is inserted;
//   - a candidate with a Change is first resolved against the active
//     memories (ResolveChange): an ending supersedes the memory it names
//     with a statement that expires when said, a moved date restates it
//     (a bump whose event date is the new one); one that names none is
//     skipped (no_target).
//
// stored should hold the user's active memories and may also hold deprecated
// ones: those are only used to recognise a re-run. A candidate whose key and
// value a stored memory (of any status) already carries from sessionID is
// skipped as already_applied, so running Plan again for the same session
// after its ops were applied plans only skips. This needs the store to
// record the sessions of bumps in ConfirmedBy; with an empty sessionID,
// SourceMessageID stands in.
//
// Expiry is the candidate's, or else TTLFor(p, category, now). The ops are
// sorted by key, then by candidate order, whatever the order of stored.
func Plan(stored []Stored, candidates []Memory, sessionID string, p prompts.Policy, now time.Time) []Op {
	type planned struct {
		op  Op
		idx int
	}
	ops := make([]planned, 0, len(candidates))
	skip := func(i int, m Memory, reason string) {
		ops = append(ops, planned{Op{Action: OpSkip, Memory: m, Reason: reason}, i})
	}

	cands := make([]Memory, len(candidates))
	var valid []int
	for i, c := range candidates {
		if c.Change != nil {
			// A change of a memory the user has: what it says of that
			// memory, or nothing when it names none.
			r, ok := ResolveChange(stored, c, sessionID, now)
			if !ok {
				cands[i] = cleanCandidate(c)
				skip(i, cands[i], SkipNoTarget)
				continue
			}
			c = r
		}
		c = cleanCandidate(c)
		cands[i] = c
		if reason := invalidCandidate(c); reason != "" {
			skip(i, c, reason)
			continue
		}
		if c.Confidence < p.MinConfidence {
			skip(i, c, "low_confidence")
			continue
		}
		valid = append(valid, i)
	}

	winner := make(map[string]int, len(valid))
	for _, i := range valid {
		k := subject(cands[i].Key)
		if w, ok := winner[k]; !ok || !cands[i].StatedAt.Before(cands[w].StatedAt) {
			winner[k] = i
		}
	}
	byID := slices.Clone(stored)
	slices.SortStableFunc(byID, func(a, b Stored) int { return strings.Compare(a.ID, b.ID) })
	for _, i := range valid {
		c := cands[i]
		w := winner[subject(c.Key)]
		switch {
		case w != i && cands[w].Key == c.Key && sameValue(cands[w].Value, c.Value):
			skip(i, c, "duplicate")
		case w != i:
			skip(i, c, "overridden")
		default:
			op := decide(byID, c, sessionID, p, now)
			if c.Change != nil && c.Change.Ends && op.Action == OpSupersede {
				op.Reason = ReasonEnded
			}
			op.Said = c
			if op.Said.StatedAt.IsZero() {
				op.Said.StatedAt = now
			}
			if op.Said.ExpiresAt == nil {
				op.Said.ExpiresAt = TTLFor(p, c.Category, op.Said.StatedAt)
			}
			ops = append(ops, planned{op, i})
		}
	}

	slices.SortStableFunc(ops, func(a, b planned) int {
		return cmp.Or(strings.Compare(a.op.Memory.Key, b.op.Memory.Key), cmp.Compare(a.idx, b.idx))
	})
	out := make([]Op, len(ops))
	for i, o := range ops {
		out[i] = o.op
	}
	return out
}

func decide(stored []Stored, c Memory, sessionID string, p prompts.Policy, now time.Time) Op {
	norm := normValue(c.Value)
	for _, s := range stored {
		if s.Key == c.Key && normValue(s.Value) == norm && appliedBy(s, sessionID, c.SourceMessageID) {
			return Op{Action: OpSkip, Memory: c, Target: s.ID, Reason: "already_applied"}
		}
	}
	if c.StatedAt.IsZero() {
		c.StatedAt = now
	}
	if c.ExpiresAt == nil {
		c.ExpiresAt = TTLFor(p, c.Category, c.StatedAt)
	}

	// The key's timeline, and where the candidate falls in it.
	var line []Stored
	for _, s := range stored {
		if (active(s) || s.Status == StatusDeprecated) && subject(s.Key) == subject(c.Key) {
			line = append(line, s)
		}
	}
	slices.SortFunc(line, func(a, b Stored) int { return comparePoints(pointOf(a), pointOf(b)) })
	at := point{c.StatedAt, sessionID, c.SourceMessageID, norm}
	var prev, next *Stored
	for i := range line {
		if comparePoints(pointOf(line[i]), at) <= 0 {
			prev = &line[i]
		} else if next == nil {
			next = &line[i]
		}
	}
	same := func(s *Stored) bool { return s != nil && s.Key == c.Key && normValue(s.Value) == norm }

	switch {
	case same(prev) && (active(*prev) || next != nil):
		// (A deprecated last statement lost its successor to expiry or to
		// the user's forget: the same words again are a new memory.)
		return bump(*prev, c, "")
	case same(next):
		op := bump(*next, c, "")
		if prev != nil {
			op.Prev = prev.ID // prev now ends where this statement begins
		}
		return op
	case next != nil:
		op := Op{Action: OpOlder, Memory: c, Target: next.ID, Reason: "older"}
		if prev != nil {
			op.Prev = prev.ID
		}
		return op
	case prev != nil && active(*prev):
		reason := "changed"
		if prev.Key != c.Key {
			reason = "contradiction"
		}
		return Op{Action: OpSupersede, Memory: c, Target: prev.ID, Reason: reason}
	}
	return Op{Action: OpInsert, Memory: c, Reason: "new"}
}

// point is a statement's place in its key's timeline.
type point struct {
	at               time.Time
	session, message string
	value            string
}

func pointOf(s Stored) point {
	return point{s.StatedAt, s.SourceSessionID, s.SourceMessageID, normValue(s.Value)}
}

func comparePoints(a, b point) int {
	return cmp.Or(a.at.Compare(b.at), strings.Compare(a.session, b.session),
		strings.Compare(a.message, b.message), strings.Compare(a.value, b.value))
}

// bump confirms s with c. Importance grows by 5, or to the candidate's plus
// 5 for each earlier confirmation when that is higher (a decayed memory said
// again is as important as it is new, and two statements give the same
// figure whichever came first); confidence never falls; expiry is refreshed
// but never shortened. The memory keeps the wording and the statement time
// of the earlier of the two statements.
func bump(s Stored, c Memory, reason string) Op {
	m := c
	m.Value = s.Value // the same fact: keep the wording the user first saw
	if !s.StatedAt.IsZero() && c.StatedAt.Before(s.StatedAt) {
		m.Value = c.Value
	} else {
		m.StatedAt = s.StatedAt
	}
	if s.Category != "" {
		m.Category = s.Category
	}
	m.Importance = min(100, max(s.Importance+5, c.Importance+5*max(s.Confirmations, 1)))
	m.Confidence = max(s.Confidence, c.Confidence)
	if m.ExpiresAt != nil && s.ExpiresAt != nil && s.ExpiresAt.After(*m.ExpiresAt) {
		m.ExpiresAt = s.ExpiresAt
	}
	return Op{Action: OpBump, Memory: m, Target: s.ID, Reason: cmp.Or(reason, "confirmed"), Confirmations: s.Confirmations + 1}
}

func active(s Stored) bool { return s.Status == "" || s.Status == StatusActive }

func appliedBy(s Stored, sessionID, messageID string) bool {
	if sessionID != "" {
		return s.SourceSessionID == sessionID || slices.Contains(s.ConfirmedBy, sessionID)
	}
	return messageID != "" && s.SourceMessageID == messageID
}

var categories = []string{CategoryFact, CategoryPreference, CategoryEvent, CategoryFeeling, CategoryOther}

func cleanCandidate(c Memory) Memory {
	c.Key = strings.TrimSpace(c.Key)
	if k, ok := CanonicalKey(c.Key); ok {
		c.Key = k
	}
	c.Value = strings.Join(strings.Fields(c.Value), " ")
	c.Category = strings.ToLower(strings.TrimSpace(c.Category))
	if !slices.Contains(categories, c.Category) {
		c.Category = CategoryOther
	}
	c.Importance = min(max(c.Importance, 0), 100)
	if math.IsNaN(c.Confidence) {
		c.Confidence = 0
	}
	c.Confidence = min(max(c.Confidence, 0), 1)
	return c
}

func invalidCandidate(c Memory) string {
	switch {
	case !ValidKey(c.Key):
		return "invalid_key"
	case !hasAlnum(c.Value):
		return "empty_value"
	case utf8.RuneCountInString(c.Value) > MaxValueRunes:
		return "too_long"
	}
	// The LLM may copy what the rules would have dropped; the key is checked
	// too, because a slug of digits is still the digits.
	if reason, bad := Sensitive(c.Value); bad {
		return "sensitive:" + reason
	}
	if reason, bad := Sensitive(strings.ReplaceAll(c.Key, "_", " ")); bad {
		return "sensitive:" + reason
	}
	return ""
}

func sameValue(a, b string) bool { return normValue(a) == normValue(b) }

// normValue is what makes two values the same fact: case, punctuation,
// spacing and a leading article do not count ("The Beach!" is "beach").
func normValue(v string) string {
	v = strings.ReplaceAll(apostrophes.Replace(v), "'", "")
	words := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
	if len(words) > 1 && (words[0] == "a" || words[0] == "an" || words[0] == "the") {
		words = words[1:]
	}
	return strings.Join(words, " ")
}
