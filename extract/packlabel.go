package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of a label made of a key's words.
const (
	packLabelWords = 3
	packLabelRunes = 30
)

// packLabel is a key (or the part of one after its prefix) as a label of
// the pack's own: its words, when they are at most packLabelWords words of
// letters and digits and at most packLabelRunes long; else fallback. A key
// is a model's words too, and only a short name of a thing is a label.
func packLabel(key, fallback string) string {
	k := packHuman(key)
	if k == "" || utf8.RuneCountInString(k) > packLabelRunes || len(strings.Fields(k)) > packLabelWords ||
		strings.ContainsFunc(k, func(r rune) bool { return r != ' ' && !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		return fallback
	}
	return k
}

// packHuman is a key as words: "pet_name" is "pet name".
func packHuman(key string) string {
	return packClean(strings.NewReplacer("_", " ", ":", " ").Replace(key), packValueRunes)
}
