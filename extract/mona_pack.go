package extract

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The mona kind's context pack (docs/presets.md, Mona: context pack).

func packMona(in PackInput) packPlan {
	const (
		user = iota
		prefs
		relevant
		summary
	)
	p := newPackPlan(
		packSection{"user", "USER:"},
		packSection{"core_preferences", "CORE PREFERENCES:"},
		packSection{"relevant_memories", "RELEVANT MEMORIES:"},
		packSection{"conversation_summary", "CONVERSATION SUMMARY:"},
	)
	newest := func(a, b PackMemory) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.ID, b.ID))
	}
	var (
		nameMem, nickMem *PackMemory
		rest             []PackMemory
	)
	for _, m := range in.Memories {
		if packClean(m.Value, packValueRunes) == "" {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(m.Key)) {
		case "name":
			if nameMem == nil || newest(m, *nameMem) < 0 {
				nameMem = &m
			}
		case "nickname":
			if nickMem == nil || newest(m, *nickMem) < 0 {
				nickMem = &m
			}
		default:
			rest = append(rest, m)
		}
	}

	// USER: what the user said their name is wins over the account's name.
	var who string
	var ids []string
	name := packQuote(in.DisplayName, packValueRunes)
	if nameMem != nil {
		name = packQuote(nameMem.Value, packValueRunes)
		ids = append(ids, nameMem.ID)
	}
	nick := ""
	if nickMem != nil {
		nick = packQuote(nickMem.Value, packValueRunes)
	}
	switch {
	case name != "" && nick != "" && !strings.EqualFold(name, nick):
		who = "Name: " + name + " (goes by " + nick + ")"
		ids = append(ids, nickMem.ID)
	case name != "":
		who = "Name: " + name
		if nickMem != nil {
			ids = append(ids, nickMem.ID)
		}
	case nick != "":
		who = "Goes by: " + nick
		ids = append(ids, nickMem.ID)
	}
	p.add(packItem{section: user, prio: 0, text: who, ids: ids})

	// Tier 1: the most important preferences, always.
	byImportance := func(a, b PackMemory) int {
		return cmp.Or(cmp.Compare(b.Importance, a.Importance), newest(a, b), cmp.Compare(a.Key, b.Key))
	}
	var core, others []PackMemory
	for _, m := range rest {
		if strings.EqualFold(strings.TrimSpace(m.Category), CategoryPreference) {
			core = append(core, m)
		} else {
			others = append(others, m)
		}
	}
	slices.SortStableFunc(core, byImportance)
	if len(core) > packCorePrefs {
		others = append(others, core[packCorePrefs:]...)
		core = core[:packCorePrefs]
	}
	for _, m := range core {
		p.add(packItem{section: prefs, prio: 10, text: packMonaLine(m, in.Now, in.Location), ids: []string{m.ID}})
	}

	// Tier 2: the others by relevance to the query.
	q := packMonaWords(in.Query)
	type scored struct {
		m     PackMemory
		score int // the design's score × 1000, exact
	}
	ss := make([]scored, len(others))
	for i, m := range others {
		overlap := 0
		for w := range packMonaWords(m.Value + " " + packMonaSubject(m.Key)) {
			if q[w] {
				overlap++
			}
		}
		score := overlap*300 + min(max(m.Importance, 0), 100)*5
		if m.LastUsedAt != nil && in.Now.Sub(*m.LastUsedAt) < 7*24*time.Hour {
			score += 100
		}
		ss[i] = scored{m, score}
	}
	slices.SortStableFunc(ss, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), byImportance(a.m, b.m))
	})
	for i, s := range ss {
		if i >= packRelevant {
			p.capped[relevant]++
			continue
		}
		p.add(packItem{section: relevant, prio: 100, text: packMonaLine(s.m, in.Now, in.Location), ids: []string{s.m.ID}})
	}

	p.add(packCutItem(summary, 1000, "", packClean(in.RollingSummary, packTextRunes)))
	return p
}

// packEventDay renders an event by its own day, counted in calendar days
// in the user's zone: "Coming up (in 3 days, Mon 14 Dec): sister's wedding",
// "Today: …", "3 days ago (Fri 11 Dec): …". ok is false when the event has
// no day of its own.
func packEventDay(day, v string, now time.Time, loc *time.Location) (string, bool) {
	if loc == nil {
		loc = time.UTC
	}
	d, err := time.ParseInLocation(time.DateOnly, day, loc)
	if err != nil {
		return "", false
	}
	n := now.In(loc)
	today := time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, loc)
	// Whole calendar days, robust to a DST change in between.
	diff := int(math.Round(d.Sub(today).Hours() / 24))
	label := d.Format("Mon 2 Jan")
	if d.Year() != today.Year() {
		label = d.Format("Mon 2 Jan 2006")
	}
	switch {
	case diff == 0:
		return "Today: " + v, true
	case diff == 1:
		return "Tomorrow (" + label + "): " + v, true
	case diff > 1:
		return "Coming up (in " + packPlural(diff, "day", "days") + ", " + label + "): " + v, true
	case diff == -1:
		return "Yesterday (" + label + "): " + v, true
	default:
		return "Recently (" + packPlural(-diff, "day", "days") + " ago, " + label + "): " + v, true
	}
}

// packMonaLine renders a memory by the shape of its key.
func packMonaLine(m PackMemory, now time.Time, loc *time.Location) string {
	v := packQuote(m.Value, packValueRunes)
	key := strings.TrimSpace(m.Key)
	category := strings.ToLower(strings.TrimSpace(m.Category))
	switch {
	case key == "feeling" || (category == CategoryFeeling && !strings.HasPrefix(key, "event:")):
		return "Recently feeling: " + v
	case strings.HasPrefix(key, "event:") || (category == CategoryEvent && !strings.HasPrefix(key, "plan:")):
		if line, ok := packEventDay(m.EventDate, v, now, loc); ok {
			return line
		}
		if !m.UpdatedAt.IsZero() && now.Sub(m.UpdatedAt) >= 24*time.Hour {
			return "Recently (" + packPlural(int(now.Sub(m.UpdatedAt)/(24*time.Hour)), "day", "days") + " ago): " + v
		}
		return "Recently: " + v
	case strings.HasPrefix(key, "likes:"):
		return "Likes: " + v
	case strings.HasPrefix(key, "dislikes:"):
		return "Dislikes: " + v
	case strings.HasPrefix(key, "favorite_"):
		return "Favorite " + packLabel(strings.TrimPrefix(key, "favorite_"), "thing") + ": " + v
	case strings.HasPrefix(key, "family:"), strings.HasPrefix(key, "pet:"):
		// "Sister: "Maya"", "Dog: "Biscuit"".
		prefix, rest, _ := strings.Cut(key, ":")
		return packCapital(packLabel(rest, prefix)) + ": " + v
	case strings.HasPrefix(key, "allergy:"):
		return "Allergic to: " + v
	case strings.HasPrefix(key, "hobby:"):
		return "Hobby: " + v
	case strings.HasPrefix(key, "goal:"):
		return "Goal: " + v
	case strings.HasPrefix(key, "plan:"):
		return "Plans: " + v
	case key == "lives_in":
		return "Lives in: " + v
	case key == "works_at":
		return "Works at: " + v
	case key == "studies_at":
		return "Studies at: " + v
	case key == "hometown":
		return "From: " + v
	}
	if k := packLabel(key, ""); k != "" {
		return packCapital(k) + ": " + v
	}
	return v
}

// packCapital is s with its first letter upper case.
func packCapital(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

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

// packMonaSubject is what a key is about, as words.
func packMonaSubject(key string) string {
	for _, prefix := range []string{"favorite_", "likes:", "dislikes:", "event:", "hobby:", "plan:", "goal:", "family:", "pet:", "allergy:"} {
		if s, ok := strings.CutPrefix(key, prefix); ok {
			return strings.ReplaceAll(s, "_", " ")
		}
	}
	return strings.NewReplacer("_", " ", ":", " ").Replace(key)
}

// packMonaStop are words too common to say that a memory is relevant.
var packMonaStop = toSet("a an the and or but if of to in on at for with from by about as is are was were be been am i i'm im me my mine you your we our it its this that these those do does did what who how when where why which can could would should will just so not no yes hi hello hey ok okay really very too also there their they them he she his her him have has had get got like want know think tell today now up out all some any more much")

// packMonaWords are the content words of s: lower case, split on anything but
// letters and digits, stop words and single characters left out, a plural
// "s" or an "-ing" removed ("cooking" meets "cook").
func packMonaWords(s string) map[string]bool {
	s = packTruncRunes(s, packTextRunes)
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if utf8.RuneCountInString(w) < 2 || packMonaStop[w] {
			continue
		}
		switch {
		case len(w) > 5 && strings.HasSuffix(w, "ing"):
			w = w[:len(w)-3]
		case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

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
