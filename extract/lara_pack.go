package extract

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-ai/mnemo/internal/num"
)

// The lara kind's context pack (docs/presets.md, LaRa: context pack).

// packFeelingWords are words that would make a line an emotional label. A
// LaRa value holding one is never rendered (no emotional labels:
// docs/presets.md, LaRa: emotional counts).
var packFeelingWords = toSet("anxious anxiety anxiously frustrated frustration frustrating sad sadness angry anger angrily upset scared afraid fear fearful worried worry nervous stressed stress overwhelmed depressed depression lonely mad panic panicked panicky meltdown tantrum crying cried unhappy miserable irritable agitated distressed distress dysregulated emotional emotion emotions mood moody")

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

func packLara(in PackInput) packPlan {
	const (
		learner = iota
		learning
		reinforcement
		prefs
	)
	p := newPackPlan(
		packSection{"learner", "LEARNER:"},
		packSection{"learning_state", "LEARNING STATE:"},
		packSection{"reinforcement", "REINFORCEMENT:"},
		packSection{"preferences", "PREFERENCES:"},
	)
	// safe is s, or "" when s would be an emotional label; such a candidate
	// counts as left out.
	safe := func(section int, s string) string {
		if s == "" {
			return ""
		}
		if !packLaraSafe(s) {
			p.capped[section]++
			return ""
		}
		return s
	}
	name := cmp.Or(packQuote(in.DisplayName, packValueRunes), packValue(in.Profile["preferred_name"]), packValue(in.Profile["name"]))
	if name = safe(learner, name); name != "" {
		p.add(packItem{section: learner, prio: 0, text: "Name: " + name})
	}

	records := slices.Clone(in.Records)
	slices.SortStableFunc(records, func(a, b Record) int {
		return cmp.Or(packLaraTime(b.Data).Compare(packLaraTime(a.Data)), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key, b.Key))
	})
	concepts := 0
	style := ""
	var likes []packPref
	prefSeen := map[string]bool{}
	for _, r := range records {
		if r.Delete {
			continue
		}
		switch packKind(r.Kind) {
		case "learning":
			line := packLaraConcept(r)
			if line == "" {
				continue
			}
			if line = safe(learning, line); line == "" {
				continue
			}
			if concepts >= packConcepts {
				p.capped[learning]++
				continue
			}
			p.add(packItem{section: learning, prio: 10, text: line})
			concepts++
		case "reinforcement_state":
			if style != "" {
				continue
			}
			s := packValue(packFirst(r.Data, "style", "reinforcement_style", "current_style"))
			style = safe(reinforcement, cmp.Or(s, packQuote(packHuman(r.Key), packValueRunes)))
		case "preference":
			for _, pr := range packLaraPrefs(r) {
				k := fmt.Sprint(pr.like) + labelKey(pr.item)
				if labelKey(pr.item) == "" || prefSeen[k] {
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
		p.add(packItem{section: reinforcement, prio: 30, text: "Style: " + style})
	}
	like := &packGroup{one: "Likes", many: "Likes", sep: ", "}
	dislike := &packGroup{one: "Dislikes", many: "Dislikes", sep: ", "}
	if len(likes) > packLaraPrefMax {
		p.capped[prefs] += len(likes) - packLaraPrefMax
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
			p.add(packItem{section: prefs, prio: 40, group: g, text: l.item})
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
func packLaraConcept(r Record) string {
	concept := cmp.Or(packValue(packFirst(r.Data, "concept", "concept_name")), packQuote(packHuman(r.Key), packValueRunes))
	if concept == "" {
		return ""
	}
	var facts []string
	if m, ok := num.Float(packFirst(r.Data, "mastery_level", "mastery")); ok && m >= 0 && m <= 1000 {
		facts = append(facts, "mastery "+strconv.FormatFloat(math.Round(m*10)/10, 'f', -1, 64)+" of 5")
	}
	if d, ok := num.Float(packFirst(r.Data, "current_difficulty", "difficulty")); ok && d >= 0 && d <= 1000 {
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
	if t, ok := date(packFirst(d, "last_practiced", "last_seen", "last_used_at", "last_updated", "updated_at")); ok {
		return t
	}
	return time.Time{}
}

// packLaraPrefs reads a preference record in any of its shapes: a
// likes:/dislikes: key, a favorite_<thing> or other key with a polarity, or
// the likes and dislikes lists of the design (docs/presets.md, LaRa:
// preferences).
func packLaraPrefs(r Record) []packPref {
	type pr = packPref
	var out []pr
	for _, s := range packStrings(r.Data["likes"]) {
		out = append(out, pr{true, s})
	}
	for _, s := range packStrings(r.Data["dislikes"]) {
		out = append(out, pr{false, s})
	}
	if len(out) > 0 {
		return out
	}
	item := packValue(packFirst(r.Data, "item", "value"))
	key := strings.TrimSpace(r.Key)
	if thing, ok := strings.CutPrefix(key, "favorite_"); ok && item != "" {
		item += " (favorite " + packLabel(thing, "thing") + ")"
	}
	switch {
	case strings.HasPrefix(key, "likes:"):
		return []pr{{true, cmp.Or(item, packQuote(packHuman(strings.TrimPrefix(key, "likes:")), packValueRunes))}}
	case strings.HasPrefix(key, "dislikes:"):
		return []pr{{false, cmp.Or(item, packQuote(packHuman(strings.TrimPrefix(key, "dislikes:")), packValueRunes))}}
	}
	item = cmp.Or(item, packQuote(packHuman(key), packValueRunes))
	switch packKind(text(packFirst(r.Data, "polarity", "kind", "type"))) {
	case "like", "likes":
		return []pr{{true, item}}
	case "dislike", "dislikes":
		return []pr{{false, item}}
	}
	return nil
}
