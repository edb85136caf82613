package extract

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// PackBounder is implemented by a kind whose pack tells a few of a user's
// memories, chosen by rules a database can bound: the caller may then read
// only the memories the bound names instead of all of them, when the read
// proves that it holds every memory the pack could tell (see PackBound),
// and passes the number of the others as PackInput.UnreadMemories. A kind
// without the method is given every active memory.
type PackBounder interface {
	// PackBound is which of a user's memories the pack of a request with
	// query at now may tell.
	PackBound(query string, now time.Time) PackBound
}

// PackBound names the memories a kind's pack may tell. It is the kind's
// promise: the pack of PackInput whose Memories are any subset S of the
// user's memories (active, unexpired, not forgotten) that holds
//
//   - every memory whose key is one of Keys (strings.ToLower of the key
//     with its spaces trimmed is);
//   - every memory last used at or after UsedSince (when not zero);
//   - every memory whose value or key, lower-cased by strings.ToLower,
//     contains one of Words;
//   - for each Top, at least Top.N memories of its category (all
//     categories when ""; a memory is of category c when its category, its
//     spaces trimmed, strings.EqualFold c) whose key is none of Keys and
//     whose value is not blank (PackBlank) and that come before every
//     memory left out of S by importance (highest first), then update
//     (newest first), ties excluded; or every memory of the category;
//
// with UnreadMemories the number of memories left out of S, none of them
// blank, is the pack of all of them. Keys and Top categories are lower-case
// ASCII.
type PackBound struct {
	Keys      []string
	UsedSince time.Time
	Words     []string
	Top       []PackTop
}

// PackTop is one "most important memories" list of a PackBound.
type PackTop struct {
	Category string
	N        int
}

// PackBlank reports whether PlainText(s, …) is empty: whether s holds no
// character that PlainText keeps. (The first character it keeps is never a
// zero-width joiner, which is in Cf, and a cut never empties a text.)
func PackBlank(s string) bool {
	for _, r := range s {
		if r != utf8.RuneError && !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}
