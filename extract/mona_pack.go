package extract

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The mona kind's context pack (seed 004).

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
	name := packClean(in.DisplayName, packValueRunes)
	if nameMem != nil {
		name = packClean(nameMem.Value, packValueRunes)
		ids = append(ids, nameMem.ID)
	}
	nick := ""
	if nickMem != nil {
		nick = packClean(nickMem.Value, packValueRunes)
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
		p.add(packItem{section: prefs, prio: 10, text: packMonaLine(m, in.Now), ids: []string{m.ID}})
	}

	// Tier 2: the others by relevance to the query.
	q := packMonaWords(in.Query)
	type scored struct {
		m     PackMemory
		score int // the seed's score × 1000, exact
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
		p.add(packItem{section: relevant, prio: 100, text: packMonaLine(s.m, in.Now), ids: []string{s.m.ID}})
	}

	p.add(packItem{section: summary, prio: 1000, text: packClean(in.RollingSummary, packTextRunes), cut: true})
	return p
}

// packMonaLine renders a memory by the shape of its key.
func packMonaLine(m PackMemory, now time.Time) string {
	v := packClean(m.Value, packValueRunes)
	key := strings.TrimSpace(m.Key)
	category := strings.ToLower(strings.TrimSpace(m.Category))
	switch {
	case key == "feeling" || (category == CategoryFeeling && !strings.HasPrefix(key, "event:")):
		return "Recently feeling: " + v
	case strings.HasPrefix(key, "event:") || category == CategoryEvent:
		if !m.UpdatedAt.IsZero() && now.Sub(m.UpdatedAt) >= 24*time.Hour {
			return "Recently (" + packPlural(int(now.Sub(m.UpdatedAt)/(24*time.Hour)), "day", "days") + " ago): " + v
		}
		return "Recently: " + v
	case strings.HasPrefix(key, "likes:"):
		return "Likes: " + v
	case strings.HasPrefix(key, "dislikes:"):
		return "Dislikes: " + v
	case strings.HasPrefix(key, "favorite_"):
		return "Favorite " + packHuman(strings.TrimPrefix(key, "favorite_")) + ": " + v
	}
	k := packHuman(key)
	if k == "" {
		return v
	}
	r, size := utf8.DecodeRuneInString(k)
	return string(unicode.ToUpper(r)) + k[size:] + ": " + v
}

// packHuman is a key as words: "pet_name" is "pet name".
func packHuman(key string) string {
	return packClean(strings.NewReplacer("_", " ", ":", " ").Replace(key), packValueRunes)
}

// packMonaSubject is what a key is about, as words.
func packMonaSubject(key string) string {
	for _, prefix := range []string{"favorite_", "likes:", "dislikes:", "event:"} {
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
