package lara

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-ai/mnemo/extract"

	"github.com/mnemo-ai/mnemo/internal/num"
)

// The lara kind's context pack (docs/presets.md, LaRa: context pack).

// packFeelingWords are words that would make a line an emotional label. A
// LaRa value holding one is never rendered (no emotional labels:
// docs/presets.md, LaRa: emotional counts).
var packFeelingWords = extract.WordSet("anxious anxiety anxiously frustrated frustration frustrating sad sadness angry anger angrily upset scared afraid fear fearful worried worry nervous stressed stress overwhelmed depressed depression lonely mad panic panicked panicky meltdown tantrum crying cried unhappy miserable irritable agitated distressed distress dysregulated emotional emotion emotions mood moody")

func packLaraSafe(s string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r)
	}) {
		if packFeelingWords[w] {
			return false
		}
	}
	return true
}

// Caps on how many candidates a section considers.
const (
	packConcepts    = 6  // concepts
	packLaraPrefMax = 20 // likes and dislikes together
)

// packLara plans the pack of lara (docs/presets.md, LaRa: context pack):
// structured state only: LEARNER (name), LEARNING STATE (concepts with
// mastery and difficulty, most recently practised first, then the skills the
// child said they have: "Says they can: 7 times tables"), REINFORCEMENT
// (style) and PREFERENCES (at most 20 likes and dislikes). Emotional
// records, summaries and memories are never read, and any value holding an
// emotional word is left out.
func packLara(in extract.PackInput) *extract.PackPlan {
	const (
		learner = iota
		learning
		reinforcement
		prefs
	)
	p := extract.NewPackPlan(
		extract.PackSection{Name: "learner", Header: "LEARNER:"},
		extract.PackSection{Name: "learning_state", Header: "LEARNING STATE:"},
		extract.PackSection{Name: "reinforcement", Header: "REINFORCEMENT:"},
		extract.PackSection{Name: "preferences", Header: "PREFERENCES:"},
	)
	// safe is s, or "" when s would be an emotional label; such a candidate
	// counts as left out.
	safe := func(section int, s string) string {
		if s == "" {
			return ""
		}
		if !packLaraSafe(s) {
			p.Capped(section)
			return ""
		}
		return s
	}
	name := cmp.Or(extract.PackQuote(in.DisplayName, extract.PackValueRunes), extract.PackValue(in.Profile["preferred_name"]), extract.PackValue(in.Profile["name"]))
	if name = safe(learner, name); name != "" {
		p.Add(extract.PackItem{Section: learner, Prio: 0, Text: "Name: " + name})
	}

	records := slices.Clone(in.Records)
	slices.SortStableFunc(records, func(a, b extract.Record) int {
		return cmp.Or(packLaraTime(b.Data).Compare(packLaraTime(a.Data)), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Key, b.Key))
	})
	concepts, skills := 0, 0
	said := &extract.PackGroup{One: "Says they can", Many: "Says they can", Sep: ", "}
	style := ""
	var likes []packPref
	prefSeen := map[string]bool{}
	for _, r := range records {
		if r.Delete {
			continue
		}
		switch packKind(r.Type) {
		case "learning":
			line := packLaraConcept(r)
			if line == "" {
				continue
			}
			if line = safe(learning, line); line == "" {
				continue
			}
			if concepts >= packConcepts {
				p.Capped(learning)
				continue
			}
			p.Add(extract.PackItem{Section: learning, Prio: 10, Text: line})
			concepts++
		case LaraSkill:
			// What the child said they can do, apart from the measured mastery.
			c := extract.PackValue(r.Data["concept"])
			if c = safe(learning, c); c == "" {
				continue
			}
			if skills >= packConcepts {
				p.Capped(learning)
				continue
			}
			p.Add(extract.PackItem{Section: learning, Prio: 20, Group: said, Text: c})
			skills++
		case "reinforcement_state":
			if style != "" {
				continue
			}
			s := extract.PackValue(extract.PackFirst(r.Data, "style", "reinforcement_style", "current_style"))
			style = safe(reinforcement, cmp.Or(s, extract.PackQuote(extract.PackKeyWords(r.Key), extract.PackValueRunes)))
		case "preference":
			for _, pr := range packLaraPrefs(r) {
				k := fmt.Sprint(pr.like) + extract.LabelKey(pr.item)
				if extract.LabelKey(pr.item) == "" || prefSeen[k] {
					continue
				}
				prefSeen[k] = true
				if safe(prefs, pr.item) == "" {
					continue
				}
				likes = append(likes, pr)
			}
		}
		// Emotional records and every other kind are never rendered.
	}
	if style != "" {
		p.Add(extract.PackItem{Section: reinforcement, Prio: 30, Text: "Style: " + style})
	}
	like := &extract.PackGroup{One: "Likes", Many: "Likes", Sep: ", "}
	dislike := &extract.PackGroup{One: "Dislikes", Many: "Dislikes", Sep: ", "}
	if len(likes) > packLaraPrefMax {
		for range len(likes) - packLaraPrefMax {
			p.Capped(prefs)
		}
		likes = likes[:packLaraPrefMax]
	}
	// Likes before dislikes, each in the order above (most recent first).
	n := 0
	for _, want := range []bool{true, false} {
		for _, l := range likes {
			if l.like != want {
				continue
			}
			g := like
			if !want {
				g = dislike
			}
			p.Add(extract.PackItem{Section: prefs, Prio: 40, Group: g, Text: l.item})
			n++
		}
	}
	return p
}

// packPref is a like or a dislike.
type packPref struct {
	like bool
	item string
}

// packLaraConcept renders a learning record: its concept, mastery and difficulty.
func packLaraConcept(r extract.Record) string {
	concept := cmp.Or(extract.PackValue(extract.PackFirst(r.Data, "concept", "concept_name")), extract.PackQuote(extract.PackKeyWords(r.Key), extract.PackValueRunes))
	if concept == "" {
		return ""
	}
	var facts []string
	if m, ok := num.Float(extract.PackFirst(r.Data, "mastery_level", "mastery")); ok && m >= 0 && m <= 1000 {
		facts = append(facts, "mastery "+strconv.FormatFloat(math.Round(m*10)/10, 'f', -1, 64)+" of 5")
	}
	if d, ok := num.Float(extract.PackFirst(r.Data, "current_difficulty", "difficulty")); ok && d >= 0 && d <= 1000 {
		facts = append(facts, "difficulty "+strconv.FormatFloat(math.Round(d*10)/10, 'f', -1, 64))
	} else if d, ok := num.Float(r.Data["highest_difficulty"]); ok && d >= 0 && d <= 1000 {
		facts = append(facts, "highest difficulty "+strconv.FormatFloat(math.Round(d*10)/10, 'f', -1, 64))
	}
	if len(facts) == 0 {
		return concept
	}
	return concept + ": " + strings.Join(facts, ", ")
}

// packLaraTime is when a record was last practised, used or updated.
func packLaraTime(d map[string]any) time.Time {
	if t, ok := extract.Date(extract.PackFirst(d, "last_practiced", "last_seen", "last_used_at", "last_updated", "updated_at")); ok {
		return t
	}
	return time.Time{}
}

// packLaraPrefs reads a preference record in any of its shapes: a
// likes:/dislikes: key, a favorite_<thing> or other key with a polarity, or
// the likes and dislikes lists of the design (docs/presets.md, LaRa:
// preferences).
func packLaraPrefs(r extract.Record) []packPref {
	type pr = packPref
	var out []pr
	for _, s := range extract.PackStrings(r.Data["likes"]) {
		out = append(out, pr{true, s})
	}
	for _, s := range extract.PackStrings(r.Data["dislikes"]) {
		out = append(out, pr{false, s})
	}
	if len(out) > 0 {
		return out
	}
	item := extract.PackValue(extract.PackFirst(r.Data, "item", "value"))
	key := strings.TrimSpace(r.Key)
	if thing, ok := strings.CutPrefix(key, "favorite_"); ok && item != "" {
		item += " (favorite " + extract.PackKeyLabel(thing, "thing") + ")"
	}
	switch {
	case strings.HasPrefix(key, "likes:"):
		return []pr{{true, cmp.Or(item, extract.PackQuote(extract.PackKeyWords(strings.TrimPrefix(key, "likes:")), extract.PackValueRunes))}}
	case strings.HasPrefix(key, "dislikes:"):
		return []pr{{false, cmp.Or(item, extract.PackQuote(extract.PackKeyWords(strings.TrimPrefix(key, "dislikes:")), extract.PackValueRunes))}}
	}
	item = cmp.Or(item, extract.PackQuote(extract.PackKeyWords(key), extract.PackValueRunes))
	switch packKind(extract.Text(extract.PackFirst(r.Data, "polarity", "kind", "type"))) {
	case "like", "likes":
		return []pr{{true, item}}
	case "dislike", "dislikes":
		return []pr{{false, item}}
	}
	return nil
}

// packKind is a record's or a value's kind, as the pack compares it.
func packKind(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
