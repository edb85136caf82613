package eval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// AppItem is one thing an app keeps from a session outside its memories:
// a profile field (sobriety_days, sponsor_name, goals), a session summary
// field of a known category (primary_trigger, action_steps, concerns) or a
// record. The apps other than the default kind's keep what they learn there,
// not as memories: an app set is scored on these beside any memories.
type AppItem struct {
	Key   string
	Value string
}

// ProfileScorer is implemented by a kind (in its package under kinds/)
// whose profile says one fact in two fields: ScoredProfile is the profile
// updates as AppItems scores them, each fact once. It must not modify its
// argument; it returns a copy when it drops a field.
type ProfileScorer interface {
	ScoredProfile(profile map[string]any) map[string]any
}

// SummaryScorer is implemented by a kind whose session summary holds things
// to score in shapes the generic walk does not read (a list of objects, a
// key of no category): ScoredSummary calls add with each of them, key and
// value (a text or a list of texts), and returns the summary the generic
// walk scores then, without them. It must not modify its argument.
type SummaryScorer interface {
	ScoredSummary(summary map[string]any, add func(key string, value any)) map[string]any
}

// RecordScorer is implemented by a kind that keeps facts about the user in
// records: ScoredRecords calls add with each such fact, key and value, in
// the records' order. Records that hold no fact (counts, metrics) are left
// out.
type RecordScorer interface {
	ScoredRecords(records []extract.Record, add func(key string, value any))
}

// AppItems are the things app keeps from res beyond its memories (none for
// the default kind, whose memories are all it keeps), each once:
//
//   - every profile update: a text, number or true/false as it is, a list
//     one item per element (goals), an entry with its own key and value
//     under its key (a list of preferences);
//   - the session summary's text and list fields whose key has a category
//     (KeyCategory): the urge's trigger and strategy and the outcome, the
//     follow-up, action steps, open threads, goals, coaching preferences,
//     concerns, anchors. Prose (summaries, notes for the next session,
//     recognition moments, insights), counts, emotions and topic labels have none and are not
//     scored;
//   - what a registered kind hands over itself, when it implements
//     ProfileScorer (one fact said in two fields, scored once),
//     SummaryScorer (summary entries of shapes the walk does not read) or
//     RecordScorer (the facts its records keep).
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
				// A list of keyed entries (preferences: {key, value,
				// at}) is one item per entry, under its own key.
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
	// addValue adds what a kind hands over: its value's text, or each
	// element of a list.
	addValue := func(key string, value any) {
		for _, x := range flatten(plain(value), false) {
			add(key, x)
		}
	}
	// Every registered kind is asked, not only app's: a summary key or a
	// record type is read as the kind that defines it reads it, whichever
	// app's result holds it, so that one result scores the same in any app.
	var kinds []extract.Kind
	for _, name := range extract.KindNames() {
		kinds = append(kinds, extract.KindOf(name))
	}
	profile := res.ProfileUpdates
	for _, k := range kinds {
		if ps, ok := k.(ProfileScorer); ok {
			profile = ps.ScoredProfile(profile)
		}
	}
	fields(profile, true, false)
	summary := res.SessionSummary
	for _, k := range kinds {
		if ss, ok := k.(SummaryScorer); ok {
			summary = ss.ScoredSummary(summary, addValue)
		}
	}
	fields(summary, false, true)
	for _, k := range kinds {
		if rs, ok := k.(RecordScorer); ok {
			rs.ScoredRecords(res.Records, addValue)
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
