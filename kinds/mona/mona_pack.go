package mona

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
)

// The mona kind's context pack (docs/presets.md, Mona: context pack).

// Caps on how many candidates a section considers.
const (
	packCorePrefs = 5  // tier 1: the most important preferences
	packRelevant  = 10 // tier 2: the best of the other memories
)

// packMona plans the pack of mona (docs/presets.md, Mona: context pack):
// USER (name memory or DisplayName, and nickname), CORE PREFERENCES (the
// five most important preference memories), RELEVANT MEMORIES (the ten best
// of the others by the design's score: 0.3 per word shared with Query,
// importance/100 × 0.5, 0.1 when used in the last seven days; feelings and
// events as "Recently" lines) and CONVERSATION SUMMARY (the rolling
// summary).
func packMona(in extract.PackInput) *extract.PackPlan {
	const (
		user = iota
		prefs
		relevant
		summary
	)
	p := extract.NewPackPlan(
		extract.PackSection{Name: "user", Header: "USER:"},
		extract.PackSection{Name: "core_preferences", Header: "CORE PREFERENCES:"},
		extract.PackSection{Name: "relevant_memories", Header: "RELEVANT MEMORIES:"},
		extract.PackSection{Name: "conversation_summary", Header: "CONVERSATION SUMMARY:"},
	)
	newest := func(a, b extract.PackMemory) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.ID, b.ID))
	}
	var (
		nameMem, nickMem *extract.PackMemory
		rest             []extract.PackMemory
	)
	for _, m := range in.Memories {
		if extract.PlainText(m.Value, extract.PackValueRunes) == "" {
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
	name := extract.PackQuote(in.DisplayName, extract.PackValueRunes)
	if nameMem != nil {
		name = extract.PackQuote(nameMem.Value, extract.PackValueRunes)
		ids = append(ids, nameMem.ID)
	}
	nick := ""
	if nickMem != nil {
		nick = extract.PackQuote(nickMem.Value, extract.PackValueRunes)
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
	p.Add(extract.PackItem{Section: user, Prio: 0, Text: who, MemoryIDs: ids})

	// Tier 1: the most important preferences, always.
	byImportance := func(a, b extract.PackMemory) int {
		return cmp.Or(cmp.Compare(b.Importance, a.Importance), newest(a, b), cmp.Compare(a.Key, b.Key))
	}
	var core, others []extract.PackMemory
	for _, m := range rest {
		if strings.EqualFold(strings.TrimSpace(m.Category), extract.CategoryPreference) {
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
		p.Add(extract.PackItem{Section: prefs, Prio: 10, Text: packMonaLine(m, in.Now, in.Location), MemoryIDs: []string{m.ID}})
	}

	// Tier 2: the others by relevance to the query.
	q := packMonaWords(in.Query)
	type scored struct {
		m     extract.PackMemory
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
			p.Capped(relevant)
			continue
		}
		p.Add(extract.PackItem{Section: relevant, Prio: 100, Text: packMonaLine(s.m, in.Now, in.Location), MemoryIDs: []string{s.m.ID}})
	}

	p.AddCut(summary, 1000, "", extract.PlainText(in.RollingSummary, extract.PackTextRunes))
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
		return "Coming up (in " + extract.Count(diff, "day", "days") + ", " + label + "): " + v, true
	case diff == -1:
		return "Yesterday (" + label + "): " + v, true
	default:
		return "Recently (" + extract.Count(-diff, "day", "days") + " ago, " + label + "): " + v, true
	}
}

// packMonaLine renders a memory by the shape of its key.
func packMonaLine(m extract.PackMemory, now time.Time, loc *time.Location) string {
	v := extract.PackQuote(m.Value, extract.PackValueRunes)
	key := strings.TrimSpace(m.Key)
	category := strings.ToLower(strings.TrimSpace(m.Category))
	switch {
	case key == "feeling" || (category == extract.CategoryFeeling && !strings.HasPrefix(key, "event:")):
		return "Recently feeling: " + v
	case strings.HasPrefix(key, "event:") || (category == extract.CategoryEvent && !strings.HasPrefix(key, "plan:")):
		if line, ok := packEventDay(m.EventDate, v, now, loc); ok {
			return line
		}
		if !m.UpdatedAt.IsZero() && now.Sub(m.UpdatedAt) >= 24*time.Hour {
			return "Recently (" + extract.Count(int(now.Sub(m.UpdatedAt)/(24*time.Hour)), "day", "days") + " ago): " + v
		}
		return "Recently: " + v
	case strings.HasPrefix(key, "likes:"):
		return "Likes: " + v
	case strings.HasPrefix(key, "dislikes:"):
		return "Dislikes: " + v
	case strings.HasPrefix(key, "favorite_"):
		return "Favorite " + extract.PackKeyLabel(strings.TrimPrefix(key, "favorite_"), "thing") + ": " + v
	case strings.HasPrefix(key, "family:"), strings.HasPrefix(key, "pet:"):
		// "Sister: "Maya"", "Dog: "Biscuit"".
		prefix, rest, _ := strings.Cut(key, ":")
		return packCapital(extract.PackKeyLabel(rest, prefix)) + ": " + v
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
	if k := extract.PackKeyLabel(key, ""); k != "" {
		return packCapital(k) + ": " + v
	}
	return v
}

// packCapital is s with its first letter upper case.
func packCapital(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
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
var packMonaStop = extract.WordSet("a an the and or but if of to in on at for with from by about as is are was were be been am i i'm im me my mine you your we our it its this that these those do does did what who how when where why which can could would should will just so not no yes hi hello hey ok okay really very too also there their they them he she his her him have has had get got like want know think tell today now up out all some any more much")

// packMonaWords are the content words of s: lower case, split on anything but
// letters and digits, stop words and single characters left out, a plural
// "s" or an "-ing" removed ("cooking" meets "cook").
func packMonaWords(s string) map[string]bool {
	s = extract.TruncateRunes(s, extract.PackTextRunes)
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
