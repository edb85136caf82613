package extract

import "strings"

// RollingFact is one memory as a rolling summary keeps it.
type RollingFact struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// maxRollingFacts and maxRollingValueRunes keep a rolling summary short.
const (
	maxRollingFacts      = 12
	maxRollingValueRunes = 60
)

// RollingFacts are the memories a rolling summary carries with their values:
// at most maxRollingFacts, each value at most maxRollingValueRunes, none
// whose key or value the merge policy would refuse (sensitive, malformed).
func RollingFacts(mems []Memory) []RollingFact {
	out := []RollingFact{}
	for _, m := range mems {
		if len(out) == maxRollingFacts {
			break
		}
		if invalidCandidate(cleanCandidate(m)) != "" {
			continue
		}
		out = append(out, RollingFact{Key: m.Key, Value: packTruncRunes(strings.Join(strings.Fields(m.Value), " "), maxRollingValueRunes)})
	}
	return out
}

// RollingFactsText renders rolling facts as "name: Priya; lives in:
// Seattle; likes: tea, hiking": the values of one prefix share its label.
func RollingFactsText(facts []RollingFact) string {
	var labels []string
	values := map[string][]string{}
	for _, f := range facts {
		v := packClean(f.Value, maxRollingValueRunes)
		if v == "" || !ValidKey(f.Key) {
			continue
		}
		label := rollingLabel(f.Key)
		if _, ok := values[label]; !ok {
			labels = append(labels, label)
		}
		values[label] = append(values[label], v)
	}
	parts := make([]string, 0, len(labels))
	for _, l := range labels {
		parts = append(parts, l+": "+strings.Join(values[l], ", "))
	}
	return strings.Join(parts, "; ")
}

// rollingLabel is what a key is, in words: "lives in", "likes",
// "favorite color", "sister", "dog".
func rollingLabel(key string) string {
	for _, p := range []string{"likes:", "dislikes:", "hobby:", "event:", "plan:", "goal:", "allergy:"} {
		if strings.HasPrefix(key, p) {
			switch p {
			case "hobby:":
				return "hobbies"
			case "event:":
				return "events"
			case "plan:":
				return "plans"
			case "goal:":
				return "goals"
			case "allergy:":
				return "allergic to"
			}
			return strings.TrimSuffix(p, ":")
		}
	}
	for _, p := range []string{"family:", "pet:"} {
		if rest, ok := strings.CutPrefix(key, p); ok {
			return packHuman(rest)
		}
	}
	return packHuman(key)
}
