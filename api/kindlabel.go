package api

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
)

// KindLabel is how a message names an app kind: its registered name with
// a capital ("Garden" for a kind registered as "garden").
func KindLabel(name string) string {
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}

// KindsLabel names the registered kinds keep accepts, in name order, as a
// message says them ("A", "A or B"); "" when none does.
func KindsLabel(keep func(extract.Kind) bool) string {
	var names []string
	for _, name := range extract.KindNames() {
		if keep(extract.KindOf(name)) {
			names = append(names, KindLabel(name))
		}
	}
	return strings.Join(names, " or ")
}
