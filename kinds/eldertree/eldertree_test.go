package eldertree_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/eldertree"
	"github.com/mnemo-ai/mnemo/kinds/internal/presettest"
	"github.com/mnemo-ai/mnemo/prompts"
)

func elderEvent(kind, data string) extract.Event {
	return extract.Event{Type: kind, At: presettest.Now, Data: json.RawMessage(data)}
}

func elderSummary(events ...extract.Event) map[string]any {
	s := extract.Session{ID: "s-1", App: "eldertree", Events: events, Messages: []extract.Message{
		{ID: "m1", Role: "user", Content: "My name is Dan, I like fishing and my sponsor is Bob."},
	}}
	return extract.Rules(&prompts.App{Name: "eldertree"}, s, presettest.Now).SessionSummary
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
			with(map[string]any{"urge_intensity": 9, "primary_trigger": "payday", "outcome": "relapsed", "follow_up_needed": eldertree.FollowUpRelapse}),
		},
		{
			"urges without an outcome are an ongoing struggle",
			[]extract.Event{elderEvent("urge", `{"intensity": "6", "trigger": "boredom"}`)},
			with(map[string]any{"urge_intensity": 6, "primary_trigger": "boredom", "outcome": "ongoing_struggle", "follow_up_needed": eldertree.FollowUpOngoing}),
		},
		{
			"an escalation asks for a follow-up",
			[]extract.Event{
				elderEvent("escalation", `{"reason": "crisis words"}`),
				elderEvent("urge", `{"intensity": 5, "outcome": "urge_passed"}`),
			},
			with(map[string]any{"urge_intensity": 5, "outcome": "urge_passed", "follow_up_needed": eldertree.FollowUpEscalation}),
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
			with(map[string]any{"urge_intensity": 10, "outcome": "ongoing_struggle", "follow_up_needed": eldertree.FollowUpOngoing}),
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

// elderSaid runs the Elder Tree rules on user messages alone (no events),
// said on Tuesday 2026-11-24 in UTC.
func elderSaid(said ...string) extract.Result {
	at := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	s := extract.Session{ID: "s-t", App: "eldertree", StartedAt: at, EndedAt: at.Add(30 * time.Minute)}
	for i, text := range said {
		s.Messages = append(s.Messages,
			extract.Message{ID: fmt.Sprintf("u%d", i), Role: "user", Content: text, At: at.Add(time.Duration(i) * time.Minute)},
			extract.Message{ID: fmt.Sprintf("a%d", i), Role: "assistant", Content: "I drank and relapsed; my sponsor is Zed.", At: at.Add(time.Duration(i)*time.Minute + 30*time.Second)})
	}
	return extract.Rules(&prompts.App{Name: "eldertree"}, s, at)
}

func TestElderTreeRelapseFromText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said    string
		relapse bool
		start   string // recovery_start_date, when a day was said
	}{
		{"I drank on Saturday at my cousin's birthday party.", true, "2026-11-21"},
		{"I used again.", true, ""},
		{"I slipped last night.", true, "2026-11-23"},
		{"I relapsed yesterday.", true, "2026-11-23"},
		{"Honestly, I had a drink after work.", true, ""},
		{"I had a few beers with the guys.", true, ""},
		{"I got drunk at the wedding on Saturday.", true, "2026-11-21"},
		{"I didn't want to, but I drank.", true, ""},
		{"I went back to using.", true, ""},
		{"I've relapsed.", true, ""},
		{"I didn't drink.", false, ""},
		{"I did not drink at the party.", false, ""},
		{"I almost drank on Saturday.", false, ""},
		{"I nearly relapsed.", false, ""},
		{"I haven't used in 30 days.", false, ""},
		{"I never relapsed.", false, ""},
		{"Did I relapse if I had one beer?", false, ""},
		{"If I drink, I lose my kids.", false, ""},
		{"I might have a drink tonight.", false, ""},
		{"I'm afraid I'll drink at the party.", false, ""},
		{"I think I slipped.", false, ""},
		{"My brother relapsed.", false, ""},
		{"My sponsor said she drank last week.", false, ""},
		{"He used again.", false, ""},
		{"I drank for twenty years before I got sober.", false, ""},
		{"I used to drink every day.", false, ""},
		{"I used my breathing exercises.", false, ""},
		{"I slipped on the ice.", false, ""},
		{"I drank a lot of water.", false, ""},
		{"I picked up my kids from school.", false, ""},
		{"I had a drink of water.", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			res := elderSaid(tt.said)
			got := res.SessionSummary["outcome"] == aggregate.OutcomeRelapsed
			if got != tt.relapse {
				t.Fatalf("outcome %q; want relapsed %v", res.SessionSummary["outcome"], tt.relapse)
			}
			if tt.relapse && res.SessionSummary["follow_up_needed"] != eldertree.FollowUpRelapse {
				t.Errorf("follow-up %q", res.SessionSummary["follow_up_needed"])
			}
			if start, _ := res.ProfileUpdates["recovery_start_date"].(string); start != tt.start {
				t.Errorf("recovery_start_date %q, want %q", start, tt.start)
			}
		})
	}
}

func TestElderTreeUrgesFromText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said       []string
		intensity  any // nil: null
		trigger    string
		strategies string
		outcome    string
	}{
		{[]string{"I had a strong urge at my cousin's birthday party."}, 7, "cousin's birthday party", "", aggregate.OutcomeOngoing},
		{[]string{"I was craving really bad after the argument with my wife.", "I called my sponsor and it passed."}, 8, "argument with my wife", "called sponsor", aggregate.OutcomeUrgePassed},
		{[]string{"I was a little tempted at the bar.", "I left early and went for a run."}, 3, "bar", "left the situation, went for a run", aggregate.OutcomeOngoing},
		{[]string{"The urge was overwhelming, stress at work is killing me.", "I prayed and did some deep breathing.", "I'm still struggling."}, 9, "stress at work", "prayer, breathing", aggregate.OutcomeOngoing},
		{[]string{"The craving was an 8 out of 10."}, 8, "", "", aggregate.OutcomeOngoing},
		{[]string{"I wanted to drink so badly when I was lonely.", "I went to a meeting and stayed sober."}, 8, "loneliness", "went to a meeting", aggregate.OutcomeUrgePassed},
		{[]string{"Late night again, scrolling my phone, and the craving came back.", "Prayer helped a bit but I'm still struggling."}, nil, "late night", "prayer", aggregate.OutcomeOngoing},
		{[]string{"I had cravings but I didn't drink."}, nil, "", "", aggregate.OutcomeUrgePassed},
		{[]string{"I had a strong urge and then I drank."}, 7, "", "", aggregate.OutcomeRelapsed},
		{[]string{"I didn't have any cravings this week."}, nil, "", "", ""},
		{[]string{"No urges today."}, nil, "", "", ""},
		{[]string{"The urge was not so bad."}, nil, "", "", aggregate.OutcomeOngoing},
		{[]string{"My brother had a strong urge to drink.", "He called his sponsor."}, nil, "", "", ""},
		{[]string{"If I get a craving, I will call my sponsor."}, nil, "", "", ""},
		{[]string{"I'm worried the urges will come back."}, nil, "", "", ""},
		{[]string{"Do you get urges?"}, nil, "", "", ""},
		{[]string{"I should have called my sponsor."}, nil, "", "", ""},
		{[]string{"I didn't call my sponsor."}, nil, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.said, " "), func(t *testing.T) {
			t.Parallel()
			sum := elderSaid(tt.said...).SessionSummary
			if !reflect.DeepEqual(sum["urge_intensity"], tt.intensity) {
				t.Errorf("urge_intensity %#v, want %#v", sum["urge_intensity"], tt.intensity)
			}
			if sum["primary_trigger"] != tt.trigger {
				t.Errorf("primary_trigger %q, want %q", sum["primary_trigger"], tt.trigger)
			}
			if sum["resistance_strategy_used"] != tt.strategies {
				t.Errorf("resistance_strategy_used %q, want %q", sum["resistance_strategy_used"], tt.strategies)
			}
			if sum["outcome"] != tt.outcome {
				t.Errorf("outcome %q, want %q", sum["outcome"], tt.outcome)
			}
		})
	}
}

func TestElderTreeProfileFromText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said []string
		want map[string]any
	}{
		{[]string{"My new sponsor is Linda."}, map[string]any{"has_sponsor": true, "sponsor_name": "Linda"}},
		{[]string{"Linda is my sponsor now."}, map[string]any{"has_sponsor": true, "sponsor_name": "Linda"}},
		{[]string{"I got a new sponsor, Marcus."}, map[string]any{"has_sponsor": true, "sponsor_name": "Marcus"}},
		{[]string{"I found a sponsor."}, map[string]any{"has_sponsor": true}},
		{[]string{"I don't have a sponsor anymore."}, map[string]any{"has_sponsor": false}},
		{[]string{"I fired my sponsor."}, map[string]any{"has_sponsor": false}},
		{[]string{"My sponsor is Linda.", "Actually I don't have a sponsor anymore."}, map[string]any{"has_sponsor": false}},
		{[]string{"My sponsor is great."}, map[string]any{}},
		{[]string{"My sponsor is busy this week."}, map[string]any{}},
		{[]string{"My brother's sponsor is Linda."}, map[string]any{}},
		{[]string{"Should I get a new sponsor?"}, map[string]any{}},
		{[]string{"I might fire my sponsor."}, map[string]any{}},
		{[]string{"I stopped going to meetings."}, map[string]any{"in_fellowship": false}},
		{[]string{"I quit AA."}, map[string]any{"in_fellowship": false}},
		{[]string{"I don't go to meetings anymore."}, map[string]any{"in_fellowship": false}},
		{[]string{"I joined a Tuesday group."}, map[string]any{"in_fellowship": true}},
		{[]string{"I started going to NA."}, map[string]any{"in_fellowship": true, "fellowship_name": "NA"}},
		{[]string{"My wife stopped going to meetings."}, map[string]any{}},
		{[]string{"I'm thinking about quitting AA."}, map[string]any{}},
		{[]string{"If I quit AA, would that be bad?"}, map[string]any{}},
		{[]string{"30 days sober today!"}, map[string]any{"sobriety_days": 30, "recovery_start_date": "2026-10-25"}},
		{[]string{"I'm one month clean."}, map[string]any{"sobriety_days": 31, "recovery_start_date": "2026-10-24", "sobriety_said": "1 month"}}, // a month by the calendar
		{[]string{"I've been sober for 40 days."}, map[string]any{"sobriety_days": 40, "recovery_start_date": "2026-10-15"}},
		{[]string{"I have 90 days clean."}, map[string]any{"sobriety_days": 90, "recovery_start_date": "2026-08-26"}},
		{[]string{"My brother is 30 days sober."}, map[string]any{}},
		{[]string{"I was 30 days sober before the party."}, map[string]any{}},
		{[]string{"I want to be 30 days sober."}, map[string]any{}},
		{[]string{"My sobriety date is March 3."}, map[string]any{"recovery_start_date": "2026-03-03", "sobriety_days": 266}},
		{[]string{"I relapsed on Saturday."}, map[string]any{"recovery_start_date": "2026-11-21", "sobriety_days": 3}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.said, " "), func(t *testing.T) {
			t.Parallel()
			if got := withoutStreak(elderSaid(tt.said...).ProfileUpdates); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("profile updates %v, want %v", got, tt.want)
			}
		})
	}
}

// TestElderTreeEventsWin: when the chat service sends urge events, the
// summary's urge fields are theirs, whatever the text says; the profile is
// still read from the text.
func TestElderTreeEventsWin(t *testing.T) {
	t.Parallel()
	s := extract.Session{App: "eldertree", Messages: []extract.Message{
		// (Not "I drank on Saturday at …": the trained layer reads that as
		// the user's suicidal risk today, and the screen withholds it.)
		{ID: "m1", Role: "user", Content: "I had a drink at my cousin's birthday party on Saturday. I stopped going to AA."},
	}, Events: []extract.Event{elderEvent("urge", `{"intensity": 4, "trigger": "boredom", "outcome": "urge_passed"}`)}}
	got := extract.Rules(&prompts.App{Name: "eldertree"}, s, presettest.Now)
	if got.SessionSummary["outcome"] != aggregate.OutcomeUrgePassed || got.SessionSummary["primary_trigger"] != "boredom" || got.SessionSummary["urge_intensity"] != 4 {
		t.Errorf("summary %v; want the urge event's", got.SessionSummary)
	}
	if len(got.Memories) != 0 || !reflect.DeepEqual(got.ProfileUpdates, map[string]any{"in_fellowship": false}) {
		t.Errorf("memories %+v, profile %v; want no memories and in_fellowship false", got.Memories, got.ProfileUpdates)
	}
}
