package mona

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// TestPackMonaChoosesAsBefore: packMona keeps each section's best few as it
// goes instead of sorting every memory; on random users (ties of
// importance and time, blank values, names, preferences beyond five, a
// query or none, the same id twice) it plans exactly what the sort did
// (packMonaRef, the plan before the change).
func TestPackMonaChoosesAsBefore(t *testing.T) {
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 25))
		in := randomPackInput(r, true)
		got, want := packMona(in), packMonaRef(in)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: %d memories, query %q: the plan differs from the sort's:\n got %+v\nwant %+v", seed, len(in.Memories), in.Query, got, want)
		}
	}
}

// TestPackMonaIgnoresTheOrderOfMemories: the store reads the memories in no
// particular order (extract.PackInput.Memories); the pack is the same
// whatever it is.
func TestPackMonaIgnoresTheOrderOfMemories(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 26))
		in := randomPackInput(r, false)
		want := extract.Pack("mona", in, 0)
		for range 3 {
			in.Memories = slices.Clone(in.Memories)
			r.Shuffle(len(in.Memories), func(i, j int) { in.Memories[i], in.Memories[j] = in.Memories[j], in.Memories[i] })
			got := extract.Pack("mona", in, 0)
			if !reflect.DeepEqual(got, want) || !slices.Equal(extract.UsedMemories(got), extract.UsedMemories(want)) {
				t.Fatalf("seed %d: shuffled, the pack is\n%s\n%+v\nwant\n%s\n%+v", seed, got.Text, got.Parts, want.Text, want.Parts)
			}
		}
	}
}

// randomPackInput is a user of up to 60 memories drawn from few values, so
// that ties are common; dupIDs lets two memories share an id.
func randomPackInput(r *rand.Rand, dupIDs bool) extract.PackInput {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	keys := []string{"name", " Name ", "nickname", "likes:jazz", "likes:tea", "favorite_food", "event:trip", "feeling",
		"hobby:cooking", "family:sister", "goal:run", "lives_in", "works_at", "plan:move", "dislikes:rain", "pet:dog"}
	values := []string{"jazz", "tea", "cooking class", "Maya", " ", "\u200b\u200d", "\x01\t", "\ufffd", "running at dawn",
		"Seattle", "rain", "a trip to Rome", "cook", "dogs and tea", "Mnemo", "\u202e"}
	cats := []string{"preference", " Preference", "fact", "event", "feeling", "relationship", "goal", "other"}
	queries := []string{"", "", "do you like jazz and tea?", "cooking tonight", "rain in Seattle", "my dogs"}
	n := r.IntN(61)
	in := extract.PackInput{DisplayName: []string{"", "Ann", "Bob"}[r.IntN(3)], Query: queries[r.IntN(len(queries))], Now: now,
		RollingSummary: []string{"", "12 earlier turns"}[r.IntN(2)]}
	for i := range n {
		id := fmt.Sprintf("m%02d", i)
		if dupIDs && i > 0 && r.IntN(8) == 0 {
			id = in.Memories[r.IntN(i)].ID
		}
		key := keys[r.IntN(len(keys))]
		if r.IntN(2) == 0 {
			key = fmt.Sprintf("%s_%d", key, r.IntN(4))
		}
		m := extract.PackMemory{ID: id, Key: key, Value: values[r.IntN(len(values))], Category: cats[r.IntN(len(cats))],
			Importance: []int{-5, 30, 50, 50, 70, 90, 120}[r.IntN(7)], UpdatedAt: now.Add(-time.Duration(r.IntN(4)) * 24 * time.Hour)}
		if r.IntN(3) == 0 {
			at := now.Add(-time.Duration(r.IntN(14)) * 24 * time.Hour)
			m.LastUsedAt = &at
		}
		if strings.HasPrefix(key, "event:") && r.IntN(2) == 0 {
			m.EventDate = now.AddDate(0, 0, r.IntN(7)-3).Format(time.DateOnly)
		}
		in.Memories = append(in.Memories, m)
	}
	return in
}

// packMonaRef is packMona as it was before it kept each section's best few
// as it goes: every memory sorted. Kept to test that the two agree.
func packMonaRef(in extract.PackInput) *extract.PackPlan {
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
