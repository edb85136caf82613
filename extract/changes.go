package extract

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Change is what a candidate changes of a memory the user already has
// (Memory.Change): the user's words for it, which keys it may touch and
// which of their memories it names.
//
// An ending ("Marcus and I broke up", "I quit the roaster", "my dog died",
// "I don't live in Seattle anymore", "the party got cancelled") becomes a
// statement of the memory's subject whose value is the memory's with the
// word ("Marcus (broke up)") and whose expiry is its own statement time:
// the merge policy supersedes the memory with it (reason ended), so the
// memory's validity ends when the ending was said, and the ending itself
// holds nothing from then on (it is stored expired, as history). A move
// ("the wedding got moved to January 9th") restates the memory with the new
// date: the memory stays, dated anew, and its timeline keeps the old date.
type Change struct {
	// Ends says the memory no longer holds; otherwise the change moves an
	// event's date (the candidate's EventDate and Wording).
	Ends bool `json:"ends,omitempty"`
	// Word is the user's word for the change: "broke up", "quit", "died",
	// "cancelled", "no longer", "used to", "moved".
	Word string `json:"word"`
	// Keys are the keys the changed memory may have: a key ("works_at") or
	// a prefix ending in ':' or '_' ("pet:", "event:").
	Keys []string `json:"keys"`
	// Ref are the words that name the memory ("Marcus", "roaster",
	// "wedding"): every one of them must be a word of its value or key.
	// Empty: the only active memory of Keys.
	Ref string `json:"ref,omitempty"`
}

// Skip reasons of Plan for changes.
const (
	// SkipNoTarget: a change names no memory the user has (in the rules'
	// evaluation, where every session meets an empty store, every change).
	SkipNoTarget = "no_target"
	// ReasonEnded is the reason of the supersede an ending makes.
	ReasonEnded = "ended"
)

// ResolveChange is the candidate c, which carries a Change, as the
// statement it makes about one of stored: for an ending, the memory's key
// and category with its value and the change's word, expiring when said
// (now when c has no StatedAt); for a move, the memory's key, category and
// value with c's date. ok is false when no active memory of the change's
// keys fits its reference (or, with no reference, when not exactly one
// does), unless sessionID already applied the change (a re-run), which
// resolves to what it stored.
func ResolveChange(stored []Stored, c Memory, sessionID string, now time.Time) (Memory, bool) {
	ch := c.Change
	if ch == nil {
		return c, true
	}
	ref := refWords(ch.Ref)
	var fits []Stored
	for _, s := range stored {
		if active(s) && changeKey(ch.Keys, s.Key) && refers(ref, s) && !endingValue(s.Value) {
			fits = append(fits, s)
		}
	}
	if len(fits) == 0 {
		// A re-run: the memory is already ended, by this session.
		for _, s := range stored {
			if changeKey(ch.Keys, s.Key) && appliedBy(s, sessionID, c.SourceMessageID) && refers(ref, s) &&
				(!ch.Ends || strings.HasSuffix(s.Value, " ("+ch.Word+")")) {
				r := c
				r.Key, r.Value, r.Category = s.Key, s.Value, s.Category
				return r, true
			}
		}
		return c, false
	}
	if len(ref) == 0 && len(fits) > 1 {
		return c, false // "we broke up" with two partners known: which?
	}
	t := slices.MaxFunc(fits, func(a, b Stored) int { return a.StatedAt.Compare(b.StatedAt) })
	r := c
	r.Key, r.Category = t.Key, t.Category
	if r.Category == "" {
		r.Category = KeyCategory(t.Key)
	}
	if !ch.Ends {
		r.Value = t.Value
		r.Importance = max(r.Importance, t.Importance)
		return r, true
	}
	r.Value = t.Value + " (" + ch.Word + ")"
	if utf8.RuneCountInString(r.Value) > MaxValueRunes {
		r.Value = ch.Word
	}
	r.Importance = t.Importance
	r.EventDate, r.Wording = "", ""
	at := c.StatedAt
	if at.IsZero() {
		at = now
	}
	at = at.UTC()
	r.ExpiresAt = &at
	return r, true
}

// endingValue reports whether a stored value is an ending's ("Marcus
// (broke up)"): an ending is never itself ended.
func endingValue(v string) bool {
	return strings.HasSuffix(v, ")") && strings.Contains(v, " (")
}

// changeKey reports whether key is one of keys or has one of the
// prefixes among them.
func changeKey(keys []string, key string) bool {
	for _, k := range keys {
		if k == key || (strings.HasSuffix(k, ":") || strings.HasSuffix(k, "_")) && strings.HasPrefix(key, k) {
			return true
		}
	}
	return false
}

// refWords are a reference's words, without articles, possessives and
// pronouns, each folded as normValue folds a value.
func refWords(ref string) []string {
	var out []string
	for _, w := range strings.Fields(normValue(ref)) {
		w = strings.TrimSuffix(w, "s") // "kaylas" of "Kayla's", "dogs"
		if w != "" && !refStop[w] {
			out = append(out, w)
		}
	}
	return out
}

var refStop = WordSet("a an the my our his her their its it him them he she they job work place thing one")

// refers reports whether every reference word is a word of the memory's
// value or key.
func refers(ref []string, s Stored) bool {
	if len(ref) == 0 {
		return true
	}
	have := map[string]bool{}
	tail := s.Key
	if i := strings.IndexByte(tail, ':'); i >= 0 {
		tail = tail[i+1:]
	}
	for _, w := range strings.Fields(normValue(s.Value + " " + strings.ReplaceAll(tail, "_", " "))) {
		have[strings.TrimSuffix(w, "s")] = true
	}
	for _, w := range ref {
		if !have[w] {
			return false
		}
	}
	return true
}
