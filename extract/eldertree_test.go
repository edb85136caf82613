package extract_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

func elderEvent(kind, data string) extract.Event {
	return extract.Event{Kind: kind, At: rulesNow, Data: json.RawMessage(data)}
}

func elderSummary(events ...extract.Event) map[string]any {
	s := extract.Session{ID: "s-1", App: "eldertree", Events: events, Messages: []extract.Message{
		{ID: "m1", Role: "user", Content: "My name is Dan, I like fishing and my sponsor is Bob."},
	}}
	return extract.Rules(&prompts.App{Name: "eldertree"}, s, rulesNow).SessionSummary
}

func TestElderTreeSummary(t *testing.T) {
	t.Parallel()
	empty := map[string]any{
		"urge_intensity": nil, "primary_trigger": "", "resistance_strategy_used": "", "outcome": "",
		"key_insights": []string{}, "emotional_state_start": "", "emotional_state_end": "", "follow_up_needed": "",
	}
	with := func(changes map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range empty {
			m[k] = v
		}
		for k, v := range changes {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name   string
		events []extract.Event
		want   map[string]any
	}{
		{"no events: nothing invented", nil, empty},
		{
			"urges and emotions",
			[]extract.Event{
				elderEvent("emotion", `{"emotion": "Anxious", "confidence": 0.7}`),
				elderEvent("urge", `{"intensity": 7, "trigger": "loneliness", "strategy": "called sponsor", "outcome": "ongoing_struggle"}`),
				elderEvent("urge", `{"intensity": 4, "trigger": "Loneliness", "strategy": "walked outside", "outcome": "urge_passed"}`),
				elderEvent("urge", `{"intensity": 3, "trigger": "work_stress", "strategy": "Called  sponsor"}`),
				elderEvent("emotion", `{"emotion": "calmer"}`),
			},
			with(map[string]any{
				"urge_intensity": 7, "primary_trigger": "loneliness", "resistance_strategy_used": "called sponsor, walked outside",
				"outcome": "urge_passed", "emotional_state_start": "anxious", "emotional_state_end": "calmer",
			}),
		},
		{
			"a relapse is not hidden by a later urge that passed",
			[]extract.Event{
				elderEvent("urge", `{"intensity": 9, "trigger": "payday", "outcome": "relapsed"}`),
				elderEvent("urge", `{"intensity": 2, "trigger": "payday", "outcome": "urge_passed"}`),
			},
			with(map[string]any{"urge_intensity": 9, "primary_trigger": "payday", "outcome": "relapsed", "follow_up_needed": extract.FollowUpRelapse}),
		},
		{
			"urges without an outcome are an ongoing struggle",
			[]extract.Event{elderEvent("urge", `{"intensity": "6", "trigger": "boredom"}`)},
			with(map[string]any{"urge_intensity": 6, "primary_trigger": "boredom", "outcome": "ongoing_struggle", "follow_up_needed": extract.FollowUpOngoing}),
		},
		{
			"an escalation asks for a follow-up",
			[]extract.Event{
				elderEvent("escalation", `{"reason": "crisis words"}`),
				elderEvent("urge", `{"intensity": 5, "outcome": "urge_passed"}`),
			},
			with(map[string]any{"urge_intensity": 5, "outcome": "urge_passed", "follow_up_needed": extract.FollowUpEscalation}),
		},
		{
			"a tie between triggers goes to the first seen",
			[]extract.Event{
				elderEvent("urge", `{"trigger": "late night phone", "outcome": "urge_passed"}`),
				elderEvent("urge", `{"trigger": "work stress", "outcome": "urge_passed"}`),
			},
			with(map[string]any{"primary_trigger": "late night phone", "outcome": "urge_passed"}),
		},
		{
			"out of range, malformed and sensitive data is ignored",
			[]extract.Event{
				elderEvent("urge", `{"intensity": 15, "trigger": "my password is hunter2", "outcome": "exploded"}`),
				elderEvent("urge", `not json`),
				elderEvent("emotion", `{"emotion": 3}`),
				elderEvent("mood", `{"state": "frustrated"}`),
			},
			with(map[string]any{"urge_intensity": 10, "outcome": "ongoing_struggle", "follow_up_needed": extract.FollowUpOngoing}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := elderSummary(tt.events...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("summary\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// TestElderTreeStoresNoGuesses: the rules never turn Elder Tree text into
// memories or profile fields; only the LLM may, and only with a schema.
func TestElderTreeStoresNoGuesses(t *testing.T) {
	t.Parallel()
	s := extract.Session{App: "eldertree", Messages: []extract.Message{
		{ID: "m1", Role: "user", Content: "My name is Dan and I like fishing. I stopped going to AA."},
	}}
	got := extract.Rules(&prompts.App{Name: "eldertree"}, s, rulesNow)
	if len(got.Memories) != 0 || len(got.ProfileUpdates) != 0 || len(got.Dropped) != 0 {
		t.Errorf("memories %+v, profile %v, dropped %+v; want all empty", got.Memories, got.ProfileUpdates, got.Dropped)
	}
}
