package eval

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/eldertree"
	"github.com/mnemo-ai/mnemo/prompts"
)

// AppItem is one thing an app keeps from a session outside its memories:
// a profile field (Elder Tree's sobriety_days and sponsor_name, the coach's
// goals), a session summary field of a known category (Elder Tree's
// primary_trigger, the coach's action_steps, Clara's concerns) or a LaRa
// preference record. The apps other than Mona keep what they learn there,
// not as memories: an app set is scored on these beside any memories.
type AppItem struct {
	Key   string
	Value string
}

// AppItems are the things app keeps from res beyond its memories (none for
// Mona, whose memories are all it keeps), each once:
//
//   - every profile update: a text, number or true/false as it is, a list
//     one item per element (goals), an entry with its own key and value
//     under its key (LaRa's preferences);
//   - the session summary's text and list fields whose key has a category
//     (KeyCategory): the urge's trigger and strategy and the outcome, the
//     follow-up, action steps, open threads, goals, coaching preferences,
//     concerns, anchors. Prose (summary, coach_notes, recognition_moment,
//     key_insights), counts, emotions and topic labels have none and are not
//     scored;
//   - LaRa's preference records (likes:…, dislikes:…) and learning records
//     (mastery:<concept>); its emotional and reinforcement counts are no
//     fact about the child.
func AppItems(app *prompts.App, res extract.Result) []AppItem {
	if extract.KindOfApp(app) == extract.KindOf("") { // the default kind's are memories
		return nil
	}
	var out []AppItem
	seen := map[string]bool{}
	add := func(key, value string) {
		value = strings.TrimSpace(value)
		id := KeyCategory(key) + "\x00" + strings.ToLower(value)
		if value == "" || seen[id] {
			return
		}
		seen[id] = true
		out = append(out, AppItem{Key: key, Value: value})
	}
	fields := func(m map[string]any, scalars, known bool) {
		for _, k := range sortedKeys(m) {
			if known && KeyCategory(k) == CatOther {
				continue
			}
			v := plain(m[k])
			if list, ok := v.([]any); ok {
				// A list of keyed entries (LaRa's preferences: {key,
				// value, at}) is one item per entry, under its own key.
				var rest []any
				for _, e := range list {
					entry, _ := e.(map[string]any)
					ek, _ := entry["key"].(string)
					ev, _ := entry["value"].(string)
					if ek != "" && ev != "" {
						add(ek, ev)
					} else {
						rest = append(rest, e)
					}
				}
				v = rest
			}
			for _, x := range flatten(v, scalars) {
				add(k, x)
			}
		}
	}
	profile := res.ProfileUpdates
	if _, ok := profile["sobriety_days"]; ok {
		// recovery_start_date is sobriety_days said as a date (the rules
		// set both from one statement): one fact, scored once, by the
		// count the user said.
		profile = maps.Clone(profile)
		delete(profile, "recovery_start_date")
	}
	fields(profile, true, false)
	summary := res.SessionSummary
	if evs, ok := summary["upcoming_events"]; ok {
		// Elder Tree's risky events ahead are what its follow-up is about:
		// the fixed sentence that points to them says no event, the list
		// holds each event's label.
		summary = maps.Clone(summary)
		if summary["follow_up_needed"] == eldertree.FollowUpRiskyEvent {
			delete(summary, "follow_up_needed")
		}
		if list, ok := plain(evs).([]any); ok {
			for _, e := range list {
				if o, ok := e.(map[string]any); ok {
					ev, _ := o["event"].(string)
					add("follow_up:risky_event", ev)
				}
			}
		}
	}
	if ts, ok := summary["triggers"]; ok {
		// Elder Tree's summary lists every trigger named under "triggers",
		// a key keyPrefixes does not know (its profile's is
		// known_triggers): scored as the triggers they are.
		summary = maps.Clone(summary)
		delete(summary, "triggers")
		for _, t := range flatten(plain(ts), false) {
			add("known_triggers", t)
		}
	}
	fields(summary, false, true)
	for _, r := range res.Records {
		switch r.Kind {
		case extract.LaraPreference:
			v, _ := r.Data["value"].(string)
			add(r.Key, v)
		case extract.LaraLearning:
			add("mastery:"+r.Key, strings.ReplaceAll(r.Key, "_", " "))
		}
	}
	return out
}

// plain is v as JSON decodes it (typed lists and maps become []any and
// map[string]any, numbers float64), so that flatten sees one shape.
func plain(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return v
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// flatten is a field's values as text: a string, a list's elements, and
// with scalars also numbers and booleans (a profile's sobriety_days,
// has_sponsor). An object is its JSON.
func flatten(v any, scalars bool) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, flatten(e, true)...)
		}
		return out
	case bool:
		if scalars {
			return []string{strconv.FormatBool(x)}
		}
	case float64, float32, int, int64, json.Number:
		if scalars {
			return []string{fmt.Sprint(x)}
		}
	default:
		if raw, err := json.Marshal(x); err == nil && scalars {
			return []string{string(raw)}
		}
	}
	return nil
}

// sourceTurn is the user turn an app item was learnt from, which the app
// does not say: of the turns whose words hold more than half of the item's
// value's content words, the last that holds the most ("Rick" of
// sponsor_name; a correction said later wins), else TurnSession (a number the rules computed:
// "14 months sober" is sobriety_days 420).
func sourceTurn(ses Session, it AppItem) int {
	want := Tokens(it.Value)
	if len(want) == 0 {
		return TurnSession
	}
	best, bestN := TurnSession, 0
	for _, t := range ses.Turns {
		have := tokenSet(t.Text)
		n := 0
		for _, w := range want {
			if have[w] {
				n++
			}
		}
		if 2*n > len(want) && n >= bestN {
			best, bestN = t.Index, n
		}
	}
	return best
}
