package eval_test

import (
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/eval"
	"github.com/mnemo-ai/mnemo/kinds/lara"
)

// TestAppItems: what an app keeps outside its memories is scored as stored
// items: profile fields (lists one per element, keyed entries under their
// own key), summary fields of a known category, LaRa's preference records;
// summary prose and counts are not, and Mona keeps only its memories.
func TestAppItems(t *testing.T) {
	apps := builtin(t)
	res := extract.Result{
		ProfileUpdates: map[string]any{
			"sobriety_days": 420,
			"has_sponsor":   true,
			"goals":         []string{"Move into product management"},
			"preferences":   []map[string]any{{"key": "likes:math", "value": "math", "at": "2025-01-01T00:00:00Z"}},
		},
		SessionSummary: map[string]any{
			"primary_trigger": "stress at work",
			"summary":         "Date: 2025-01-06. Worked on: the promotion.",
			"coach_notes":     "1 action step",
			"urge_intensity":  7,
			"action_steps":    []any{"Email two product managers"},
			"goals":           []string{"Move into product management"}, // said twice, kept once
		},
		Records: []extract.Record{
			{Type: lara.LaraPreference, Key: "dislikes:broccoli", Data: map[string]any{"value": "broccoli"}},
			{Type: lara.LaraEmotional, Key: "counts", Data: map[string]any{"anxious_count": 2}},
		},
	}
	got := eval.AppItems(apps["coach"], res)
	want := []eval.AppItem{
		{Key: "goals", Value: "Move into product management"},
		{Key: "has_sponsor", Value: "true"},
		{Key: "likes:math", Value: "math"},
		{Key: "sobriety_days", Value: "420"},
		{Key: "action_steps", Value: "Email two product managers"},
		{Key: "primary_trigger", Value: "stress at work"},
		{Key: "dislikes:broccoli", Value: "broccoli"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("AppItems =\n%v\nwant\n%v", got, want)
	}
	if got := eval.AppItems(apps["mona"], res); got != nil {
		t.Errorf("Mona keeps only its memories; AppItems = %v", got)
	}
}

// TestAppSetAttribution: an app item is held to the must-nots of the turn
// that said it, found by its words (the sponsor named last is the one the
// profile keeps), and an item no turn says (has_sponsor = true) only to
// the words of the session's must-nots.
func TestAppSetAttribution(t *testing.T) {
	set := &eval.Set{Name: "t", App: "eldertree", Sessions: []eval.Session{{Persona: "P", Date: "2025-01-06", Turns: []eval.Turn{
		{Index: 0, Text: "My new sponsor is Rick.", Remember: []eval.Gold{{Category: eval.CatSupport, Value: []string{"Rick"}}}},
		{Index: 1, Text: "My sponsor is Walt.", Forbid: []eval.Forbid{{Class: eval.ClassNotAboutUser, Words: []string{"Walt"}}}},
		{Index: 2, Text: "Nice weather.", Forbid: []eval.Forbid{{Class: eval.ClassSensitive, Any: true}}},
	}}}}
	if err := set.Check(); err != nil {
		t.Fatal(err)
	}
	o := eval.Run(builtin(t)["eldertree"], set)
	turns := map[string]int{}
	for _, st := range o.Stored {
		turns[st.Key+"="+st.Value] = st.Turn
	}
	if turns["sponsor_name=Walt"] != 1 || turns["has_sponsor=true"] != eval.TurnSession {
		t.Fatalf("stored %+v; want sponsor_name Walt from turn 1 and has_sponsor true from the session", o.Stored)
	}
	sc := o.Measure()
	if len(sc.Violations) != 1 || sc.Violations[0].Key != "sponsor_name" || sc.Violations[0].Class != eval.ClassNotAboutUser {
		t.Errorf("violations %+v; want only sponsor_name, against turn 1's must-not (not turn 2's any)", sc.Violations)
	}
}
