package spelling

import (
	"slices"
)

// The deletion index (the SymSpell idea): every word of the list is stored
// under each string its prefix leaves after deleting up to maxEdits
// letters. A misspelt word whose prefix is within maxEdits edits of a
// word's prefix shares one of those strings with it, so the candidates for a
// word are found by looking up the deletions of its own prefix, with no scan
// of the list. Candidates are then checked on the whole word.
//
// The index is a sorted slice of (hash of the deletion, word number) pairs
// packed in a uint64: about 8 bytes an entry and no pointers, so the
// garbage collector never walks it. Two deletions with the same 32-bit hash
// only bring an extra candidate, which the check on the whole word refuses.

const (
	maxEdits  = 2 // the largest edit distance corrected
	prefixLen = 7 // the letters of a word that are indexed
)

type index struct {
	entries []uint64 // hash<<32 | word number, sorted
}

// buildIndex indexes words (lower-case, letters only).
func buildIndex(words []string) index {
	entries := make([]uint64, 0, len(words)*24)
	var seen []uint32
	for i, w := range words {
		seen = seen[:0]
		deletions(prefix(w), func(h uint32) {
			if !slices.Contains(seen, h) {
				seen = append(seen, h)
				entries = append(entries, uint64(h)<<32|uint64(i))
			}
		})
	}
	slices.Sort(entries)
	return index{entries: slices.Clip(entries)}
}

// candidates calls f with the number of every word that may be within
// maxEdits of w (each once, in the list's order; checking them is the
// caller's).
func (x index) candidates(w string, f func(i uint32)) {
	var found []uint32
	deletions(prefix(w), func(h uint32) {
		lo := uint64(h) << 32
		at, _ := slices.BinarySearch(x.entries, lo)
		for ; at < len(x.entries) && x.entries[at]>>32 == uint64(h); at++ {
			found = append(found, uint32(x.entries[at]))
		}
	})
	slices.Sort(found)
	for _, i := range slices.Compact(found) {
		f(i)
	}
}

func prefix(w string) string {
	if len(w) > prefixLen {
		return w[:prefixLen]
	}
	return w
}

// deletions calls f with the hash of s and of every string s leaves after
// deleting one to maxEdits of its letters (a string may come more than
// once). It allocates nothing: the hash skips the deleted positions.
func deletions(s string, f func(uint32)) {
	n := len(s)
	f(hashSkip(s, -1, -1))
	for i := range n {
		f(hashSkip(s, i, -1))
		if maxEdits >= 2 {
			for j := i + 1; j < n; j++ {
				f(hashSkip(s, i, j))
			}
		}
	}
}

// hashSkip is the FNV-1a hash of s without its bytes at i and j (-1: none),
// folded to 32 bits.
func hashSkip(s string, i, j int) uint32 {
	h := uint64(14695981039346656037)
	for k := 0; k < len(s); k++ {
		if k == i || k == j {
			continue
		}
		h ^= uint64(s[k])
		h *= 1099511628211
	}
	return uint32(h ^ h>>32)
}
