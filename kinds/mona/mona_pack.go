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
	// packNotes bounds the notes (note: keys, prompts.Policy.Notes) that
	// fill the places tier 2 leaves free: a note comes after every keyed
	// memory.
	packNotes = 3
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
	// A user may hold thousands of memories, of which the pack tells at
	// most seventeen: each section keeps its best few as it goes (packTop)
	// instead of sorting them all, and a memory is looked at by its index.
	mems := in.Memories
	newest := func(a, b *extract.PackMemory) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.ID, b.ID))
	}
	byImportance := func(a, b *extract.PackMemory) int {
		return cmp.Or(cmp.Compare(b.Importance, a.Importance), newest(a, b), cmp.Compare(a.Key, b.Key))
	}
	var (
		nameMem, nickMem *extract.PackMemory
		// The preferences (tier 1), the others and the notes, as indices
		// into mems, in the order of mems.
		pref, others, notes []int
	)
	for i := range mems {
		m := &mems[i]
		if packBlank(m.Value) {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(m.Key)) {
		case "name":
			if nameMem == nil || newest(m, nameMem) < 0 {
				nameMem = m
			}
		case "nickname":
			if nickMem == nil || newest(m, nickMem) < 0 {
				nickMem = m
			}
		default:
			if strings.HasPrefix(strings.TrimSpace(m.Key), "note:") {
				notes = append(notes, i)
				continue
			}
			if strings.EqualFold(strings.TrimSpace(m.Category), extract.CategoryPreference) {
				pref = append(pref, i)
			} else {
				others = append(others, i)
			}
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

	// Tier 1: the most important preferences, always; ties (one id twice)
	// keep the order of mems, as a stable sort does.
	core := packTop(pref, packCorePrefs, func(a, b int) int {
		return cmp.Or(byImportance(&mems[a], &mems[b]), cmp.Compare(a, b))
	})
	for _, i := range core {
		p.Add(extract.PackItem{Section: prefs, Prio: 10, Text: packMonaLine(mems[i], in.Now, in.Location), MemoryIDs: []string{mems[i].ID}})
	}
	// The preferences beyond the first five compete with the others, after
	// them on a tie (in the order of mems, as a stable sort leaves them).
	if len(pref) > len(core) {
		chosen := make(map[int]bool, len(core))
		for _, i := range core {
			chosen[i] = true
		}
		for _, i := range pref {
			if !chosen[i] {
				others = append(others, i)
			}
		}
	}

	// Tier 2: the others by relevance to the query: the design's score ×
	// 1000, exact.
	q := packMonaWords(in.Query)
	scoreOf := func(m *extract.PackMemory) int {
		overlap := 0
		if len(q) > 0 { // no query: no word is shared
			for w := range packMonaWords(m.Value + " " + packMonaSubject(m.Key)) {
				if q[w] {
					overlap++
				}
			}
		}
		s := overlap*300 + min(max(m.Importance, 0), 100)*5
		if m.LastUsedAt != nil && in.Now.Sub(*m.LastUsedAt) < 7*24*time.Hour {
			s += 100
		}
		return s
	}
	score := make([]int, len(others))
	for k, i := range others {
		score[k] = scoreOf(&mems[i])
	}
	ks := make([]int, len(others))
	for k := range ks {
		ks[k] = k
	}
	best := packTop(ks, packRelevant, func(a, b int) int {
		return cmp.Or(cmp.Compare(score[b], score[a]), byImportance(&mems[others[a]], &mems[others[b]]), cmp.Compare(a, b))
	})
	for _, k := range best {
		m := mems[others[k]]
		p.Add(extract.PackItem{Section: relevant, Prio: 100, Text: packMonaLine(m, in.Now, in.Location), MemoryIDs: []string{m.ID}})
	}
	// Notes fill the places the keyed memories leave, after them: only
	// when every memory was read (a memory a bounded read left out may be
	// a keyed one that ranks first).
	free := 0
	if in.UnreadMemories == 0 {
		free = min(packNotes, packRelevant-len(best))
	}
	noteScore := make(map[int]int, len(notes))
	for _, i := range notes {
		noteScore[i] = scoreOf(&mems[i])
	}
	var shown []int
	if free > 0 {
		shown = packTop(notes, free, func(a, b int) int {
			return cmp.Or(cmp.Compare(noteScore[b], noteScore[a]), byImportance(&mems[a], &mems[b]), cmp.Compare(a, b))
		})
	}
	for _, i := range shown {
		p.Add(extract.PackItem{Section: relevant, Prio: 200, Text: packMonaLine(mems[i], in.Now, in.Location), MemoryIDs: []string{mems[i].ID}})
	}
	// The memories a bounded read left out are others no better than the
	// ten (packBound).
	for range len(others) - len(best) + len(notes) - len(shown) + in.UnreadMemories {
		p.Capped(relevant)
	}

	p.AddCut(summary, 1000, "", extract.PlainText(in.RollingSummary, extract.PackTextRunes))
	return p
}

// packBound is what packMona may tell of a user's memories
// (extract.PackBound): the name and nickname; the five most important
// preferences; of the others, the ten best by score. A memory of score
// importance×5 alone (no word shared with the query, not used in the last
// seven days) comes after every one more important, or as important and
// newer, as the score is a nondecreasing function of the importance and
// byImportance breaks its ties: so the fifteen most important memories
// that are neither name nor nickname hold ten others (at most five are the
// core preferences) that beat every memory left out, and a read that holds
// them, the preferences' top five, the memories used in the last seven
// days and those that share a word with the query holds the pack.
func packBound(query string, now time.Time) extract.PackBound {
	b := extract.PackBound{
		Keys:      []string{"name", "nickname"},
		UsedSince: now.Add(-7 * 24 * time.Hour),
		Top: []extract.PackTop{
			{Category: extract.CategoryPreference, N: packCorePrefs},
			{N: packCorePrefs + packRelevant},
		},
	}
	// A memory's words are stems of its lower-cased words (packMonaWords),
	// and a stem is a prefix of its word: a memory that shares one contains
	// it.
	for w := range packMonaWords(query) {
		b.Words = append(b.Words, w)
	}
	slices.Sort(b.Words)
	return b
}

// packTop is the first n of xs in the order of compare, which must be a
// total order (0 for equal elements only): the first n of xs sorted, kept
// as it goes instead of sorting all of xs.
func packTop(xs []int, n int, compare func(a, b int) int) []int {
	top := make([]int, 0, n+1)
	for _, x := range xs {
		if len(top) == n && compare(x, top[n-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, x, compare)
		top = slices.Insert(top, at, x)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}

// packBlank reports whether a value is blank: PlainText leaves nothing of
// it (extract.PackBlank, which the bounded read of PackBound knows too).
func packBlank(s string) bool { return extract.PackBlank(s) }

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
	case strings.HasPrefix(key, "job:"):
		return "Also works at: " + v
	case strings.HasPrefix(key, "owns:"):
		return "Owns: " + v // "drives a 2012 Civic"
	case strings.HasPrefix(key, "note:"):
		return "Note: " + v // "swims every morning", in the user's terms
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
	for _, prefix := range []string{"favorite_", "likes:", "dislikes:", "event:", "hobby:", "plan:", "goal:", "family:", "pet:", "allergy:", "owns:", "job:", "note:"} {
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
