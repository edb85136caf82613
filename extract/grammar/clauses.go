package grammar

import "strings"

// reverseWindow bounds the clause read as "pizza is my favorite food".
const reverseWindow = 256

var (
	// clauseEnds end a value at a word that starts a new clause.
	clauseEnds = toSet("but because cause cuz since when whenever while though although so especially except unless until till whereas which who lol haha btw than")
	// subjects after "and"/"or"/"then" mean a new clause rather than a list:
	// "pizza and pasta" is one value, "pizza and I like pasta" is not.
	subjects = toSet("i i'm im i've ive i'd i'll my it it's that this she he they we you but then also now")
	joiners  = toSet("and or then plus")
)

const hardStops = `,;:()[]{}|—–!?`

// cutClause returns the clause at the start of rest: up to hard punctuation,
// a clause-ending word, or "and"/"or" followed by a new subject. tooLong
// reports that it did not end within scanLimit bytes.
func cutClause(rest string) (clause string, tooLong bool) {
	limit := min(len(rest), scanLimit)
	for i := 0; i < limit; {
		j := strings.IndexByte(rest[i:limit], ' ')
		if j < 0 {
			j = limit
		} else {
			j += i
		}
		w := rest[i:j]
		if k := strings.IndexAny(w, hardStops); k >= 0 {
			return tidy(rest[:i+k]), false
		}
		lw := strings.ToLower(strings.TrimRight(w, ".'"))
		if clauseEnds[lw] && (i > 0 || lw != "so") && !(lw == "while" && i >= 2 && strings.EqualFold(rest[i-2:i-1], "a")) { // "so tired": an intensifier, not "so …"; "in a while" ends nothing
			return tidy(rest[:i]), false
		}
		if joiners[lw] && j < limit {
			if next, _ := firstWord(rest[:limit], j+1); subjects[next] || joiners[next] {
				return tidy(rest[:i]), false
			}
		}
		i = j + 1
	}
	if len(rest) > scanLimit {
		return "", true
	}
	return tidy(rest), false
}
