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

// Confidence of a memory by where it came from (seed 004). The rules give
// some patterns more ("my name is" is 0.9) and some less (feelings are 0.5).
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
}

// OpKind is what Plan decides for one candidate.
type OpKind string

// The decisions of Plan.
const (
	OpInsert    OpKind = "insert"    // a new key: store Memory
	OpBump      OpKind = "bump"      // the same fact again: update Target with Memory's importance, confidence and expiry
	OpSupersede OpKind = "supersede" // a changed or contradicted fact: deprecate Target, store Memory linked to it
	OpSkip      OpKind = "skip"      // store nothing
)

// Op is one write the merge policy allows, or one it refuses.
//
// Reason is one of: new (insert); confirmed (bump); changed, contradiction
// (supersede); low_confidence, already_applied, duplicate, overridden,
// invalid_key, empty_value, too_long, sensitive:<kind> (skip).
type Op struct {
	Kind   OpKind `json:"kind"`
	Memory Memory `json:"memory"`
	// Target is the ID of the stored memory bumped or superseded.
	Target string `json:"target,omitempty"`
	Reason string `json:"reason"`
	// Confirmations is the target's new count of confirmations, for a bump.
	Confirmations int `json:"confirmations,omitempty"`
}

// Plan is the merge policy: the one gate every memory write passes. It
// decides, for candidates learnt in session sessionID, what to do against
// the user's stored memories:
//
//   - keys are brought into their documented shape (CanonicalKey), so that
//     the LLM's "likes:Ice Cream" meets the rules' "likes:ice_cream";
//   - a candidate that is malformed, too long, sensitive or below
//     p.MinConfidence is skipped;
//   - within the batch, the last candidate of a key wins, and likes:x and
//     dislikes:x count as one key, so the later statement wins;
//   - the same key and value as an active memory bumps it (importance +5, or
//     the candidate's when that is higher, up to 100; confirmations +1;
//     expiry refreshed);
//   - the same key with another value supersedes the active memory, and so
//     does dislikes:x against an active likes:x (and the other way round);
//   - anything else is inserted.
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
		ops = append(ops, planned{Op{Kind: OpSkip, Memory: m, Reason: reason}, i})
	}

	cands := make([]Memory, len(candidates))
	var valid []int
	for i, c := range candidates {
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
		winner[subject(cands[i].Key)] = i
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
			ops = append(ops, planned{decide(byID, c, sessionID, p, now), i})
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
			return Op{Kind: OpSkip, Memory: c, Target: s.ID, Reason: "already_applied"}
		}
	}
	if c.ExpiresAt == nil {
		c.ExpiresAt = TTLFor(p, c.Category, now)
	}

	var changed *Stored
	for i, s := range stored {
		if !active(s) || s.Key != c.Key {
			continue
		}
		if normValue(s.Value) == norm {
			return bump(s, c)
		}
		if changed == nil {
			changed = &stored[i]
		}
	}
	if changed != nil {
		return Op{Kind: OpSupersede, Memory: c, Target: changed.ID, Reason: "changed"}
	}
	if opp := opposite(c.Key); opp != "" {
		for _, s := range stored {
			if active(s) && s.Key == opp {
				return Op{Kind: OpSupersede, Memory: c, Target: s.ID, Reason: "contradiction"}
			}
		}
	}
	return Op{Kind: OpInsert, Memory: c, Reason: "new"}
}

// bump confirms s with c. Importance grows by 5, or to the candidate's when
// that is higher (a decayed memory said again is as important as it is
// new); confidence never falls; expiry is refreshed but never shortened.
func bump(s Stored, c Memory) Op {
	m := c
	m.Value = s.Value // the same fact: keep the wording the user first saw
	if s.Category != "" {
		m.Category = s.Category
	}
	m.Importance = min(100, max(s.Importance+5, c.Importance))
	m.Confidence = max(s.Confidence, c.Confidence)
	if m.ExpiresAt != nil && s.ExpiresAt != nil && s.ExpiresAt.After(*m.ExpiresAt) {
		m.ExpiresAt = s.ExpiresAt
	}
	return Op{Kind: OpBump, Memory: m, Target: s.ID, Reason: "confirmed", Confirmations: s.Confirmations + 1}
}

func active(s Stored) bool { return s.Status == "" || s.Status == StatusActive }

func appliedBy(s Stored, sessionID, messageID string) bool {
	if sessionID != "" {
		return s.SourceSessionID == sessionID || slices.Contains(s.ConfirmedBy, sessionID)
	}
	return messageID != "" && s.SourceMessageID == messageID
}

// opposite is the key that contradicts key: dislikes:x for likes:x and the
// other way round, "" for every other key.
func opposite(key string) string {
	if item, ok := strings.CutPrefix(key, "likes:"); ok {
		return "dislikes:" + item
	}
	if item, ok := strings.CutPrefix(key, "dislikes:"); ok {
		return "likes:" + item
	}
	return ""
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
