package eldertree_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/eldertree"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Sobriety told in words becomes sobriety_days and recovery_start_date,
// counted back from the day it was said (elderSaid's session is Tuesday
// 2026-11-24); a reset later in the session supersedes what came before.
func TestElderTreeSobrietyInWords(t *testing.T) {
	t.Parallel()
	sober := func(days int, start string) map[string]any {
		return map[string]any{"sobriety_days": days, "recovery_start_date": start}
	}
	stated := func(days int, start, said string) map[string]any {
		return map[string]any{"sobriety_days": days, "recovery_start_date": start, "sobriety_said": said}
	}
	tests := []struct {
		said []string
		want map[string]any
	}{
		// Months and years by the calendar (issue 33): 14 months before
		// 24 November 2026 is 24 September 2025, 426 days.
		{[]string{"14 months sober and grateful for it."}, stated(426, "2025-09-24", "14 months")},
		{[]string{"Two years clean this week!"}, map[string]any{}}, // "this week" is no count's end: not read
		{[]string{"Two years clean."}, stated(730, "2024-11-24", "2 years")},
		// An explicit day count wins over months, said after them or before.
		{[]string{"14 months sober today. day 428 actually"}, sober(427, "2025-09-23")},
		{[]string{"day 428", "14 months sober"}, sober(427, "2025-09-23")},
		{[]string{"day 30", "14 months sober"}, stated(426, "2025-09-24", "14 months")}, // no agreement: the later statement
		{[]string{"14 months sober (day 428)"}, sober(427, "2025-09-23")},
		{[]string{"14 months sober - 428 days to be exact"}, sober(428, "2025-09-22")},
		{[]string{"2 years clean (day 740)"}, sober(739, "2024-11-15")},
		{[]string{"14 months sober, 3 days since my last craving"}, stated(426, "2025-09-24", "14 months")},
		// Years and months together.
		{[]string{"a year and two months sober"}, stated(426, "2025-09-24", "14 months")},
		{[]string{"a year and a half sober"}, stated(549, "2025-05-24", "18 months")},
		{[]string{"Two and a half years clean."}, stated(914, "2024-05-24", "30 months")},
		{[]string{"day 428"}, sober(427, "2025-09-23")},
		{[]string{"It's day 30 today."}, sober(29, "2026-10-26")},
		{[]string{"I'm on day 12 sober."}, sober(11, "2026-11-13")},
		{[]string{"14 months sober.", "Well, it was. Day 4 sober again."}, sober(3, "2026-11-21")},
		{[]string{"I'm back to day one."}, sober(0, "2026-11-24")},
		{[]string{"I had to reset my date."}, sober(0, "2026-11-24")},
		{[]string{"I've been clean since March 3."}, sober(266, "2026-03-03")},
		{[]string{"14 months clean from heroin."}, map[string]any{"sobriety_days": 426, "recovery_start_date": "2025-09-24", "sobriety_said": "14 months", "addiction_type": "heroin"}},
		// A relapse with a day: the start moves to it. "Last week" may be any
		// day of it: its last day keeps the streak from being overstated.
		{[]string{"I relapsed last week."}, sober(2, "2026-11-22")},
		{[]string{"I've been sober for 400 days.", "I relapsed last week."}, sober(2, "2026-11-22")},
		// Other orders and wordings (elderSoberSpan, follow).
		{[]string{"Eleven months clean as of yesterday, can you believe it."}, stated(335, "2025-12-24", "11 months")},
		{[]string{"Been off the booze 6 weeks now."}, map[string]any{"sobriety_days": 42, "recovery_start_date": "2026-10-13", "addiction_type": "alcohol"}},
		{[]string{"I'm 3 months out from my last drink."}, stated(92, "2026-08-24", "3 months")},
		{[]string{"Sixty days alcohol-free!"}, sober(60, "2026-09-25")},
		{[]string{"Still sober.", "47 days."}, sober(47, "2026-10-08")},
		{[]string{"Sober 40 days from pills, first real stretch."}, map[string]any{"sobriety_days": 40, "recovery_start_date": "2026-10-15", "addiction_type": "pills"}},
		// Not a count of the user's days sober.
		{[]string{"I've been off work 5 days with a cold."}, map[string]any{}},
		{[]string{"My cousin has been clean 8 years."}, map[string]any{}},
		{[]string{"I'll be sober for two years this March."}, map[string]any{}},
		{[]string{"Work was rough.", "3 days."}, map[string]any{}},
		{[]string{"Day 3 of the conference was rough."}, map[string]any{}},
		{[]string{"My brother is on day 30."}, map[string]any{}},
		{[]string{"I'll be 90 days sober on Friday."}, map[string]any{}},
		{[]string{"I was 14 months sober before the party."}, map[string]any{}},
		{[]string{"Is day 3 the hardest?"}, map[string]any{}},
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

// A reset told in a later session moves recovery_start_date later and
// sobriety_days down: the profile takes the new values and a relapse cue is
// raised for the next session.
func TestElderTreeResetRaisesRelapseCue(t *testing.T) {
	t.Parallel()
	before := elderSaid("day 428").ProfileUpdates
	after := elderSaid("Day 4 sober again.").ProfileUpdates
	diff := extract.ProfileDiff(before, after)
	if diff["recovery_start_date"] != "2026-11-21" || diff["sobriety_days"] != 3 {
		t.Fatalf("diff %v; want the reset's start date and days", diff)
	}
	cues := eldertree.Cues(before, after, map[string]any{}, nil, []string{"sobriety_days", "recovery_start_date"}, time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC))
	if len(cues) != 1 || cues[0].Type != extract.CueRelapse || cues[0].Detail["before"] != 427 {
		t.Fatalf("cues %+v; want one relapse cue from 427 days", cues)
	}
}

// Step work: the step worked now, and a step finished (and the next one
// then worked, unless the session said which).
func TestElderTreeStepWork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said []string
		want map[string]any
	}{
		{[]string{"Working step 4 with my sponsor."}, map[string]any{"current_step": 4}},
		{[]string{"I'm on my fourth step."}, map[string]any{"current_step": 4}},
		{[]string{"I just started step 5."}, map[string]any{"current_step": 5}},
		{[]string{"I finished my fourth step!"}, map[string]any{"step_4_completed": true, "current_step": 5}},
		{[]string{"I'm done with step 3 and I'm working on step 4 now."}, map[string]any{"step_3_completed": true, "current_step": 4}},
		{[]string{"I completed step 12."}, map[string]any{"step_12_completed": true}},
		{[]string{"I haven't finished step 4."}, map[string]any{}},
		{[]string{"My sponsee is working step 4."}, map[string]any{}},
		{[]string{"I took the first step toward fixing my marriage."}, map[string]any{}},
		{[]string{"I did the second step of the recipe."}, map[string]any{}},
		{[]string{"Should I start step 5?"}, map[string]any{}},
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

// The user's name and what they recover from are read from their words;
// triggers they name go to the summary.
func TestElderTreeIdentityAndTriggers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said     []string
		want     map[string]any
		triggers []string
	}{
		{[]string{"Hi, I'm Dan and I'm an alcoholic."}, map[string]any{"preferred_name": "Dan", "addiction_type": "alcohol"}, nil},
		{[]string{"My name is Rosa. I'm addicted to painkillers."}, map[string]any{"preferred_name": "Rosa", "addiction_type": "opioids"}, nil},
		// An addiction told as a condition frames the trained layer's
		// reading of "pills" (extract.addictionNamed): nothing is withheld.
		{[]string{"My name is Rosa. I'm addicted to pills."}, map[string]any{"preferred_name": "Rosa", "addiction_type": "pills"}, nil},
		{[]string{"I'm a recovering meth addict."}, map[string]any{"addiction_type": "methamphetamine"}, nil},
		{[]string{"My gambling addiction cost me a lot."}, map[string]any{"addiction_type": "gambling"}, nil},
		{[]string{"I'm Tired."}, map[string]any{}, nil},
		{[]string{"I'm Catholic, so prayer helps."}, map[string]any{}, nil},
		{[]string{"I'm not an alcoholic."}, map[string]any{}, nil},
		{[]string{"My dad was addicted to heroin."}, map[string]any{}, nil},
		{[]string{"Payday is a big trigger for me."}, map[string]any{}, []string{"payday"}},
		{[]string{"My triggers are stress, payday and loneliness."}, map[string]any{}, []string{"stress", "payday", "loneliness"}},
		{[]string{"Loneliness triggers me.", "I get triggered by conflict with my boss."}, map[string]any{}, []string{"loneliness", "conflict with my boss"}},
		{[]string{"It is a trigger."}, map[string]any{}, nil},
		// Other frames: a substance as "my thing", a fragment, "off X"; a
		// trigger left-dislocated, "risky for me", "my danger zone".
		{[]string{"Pills were my thing for a decade."}, map[string]any{"addiction_type": "pills"}, nil},
		{[]string{"Coke and booze both."}, map[string]any{"addiction_type": "cocaine"}, nil},
		{[]string{"Crack is what I keep going back to."}, map[string]any{"addiction_type": "crack cocaine"}, nil},
		{[]string{"My uncle's thing was whiskey."}, map[string]any{}, nil},
		{[]string{"Weekends, that's my trigger."}, map[string]any{}, []string{"weekends"}},
		{[]string{"Bars are risky for me."}, map[string]any{}, []string{"bars"}},
		{[]string{"Sundays are still my danger zone."}, map[string]any{}, []string{"sundays"}},
		{[]string{"Mornings are the hardest for me."}, map[string]any{}, []string{"mornings"}},
		{[]string{"My sister is the worst."}, map[string]any{}, nil},
		{[]string{"Today was the worst."}, map[string]any{}, nil},
		{[]string{"That isn't a trigger for me."}, map[string]any{}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.said, " "), func(t *testing.T) {
			t.Parallel()
			res := elderSaid(tt.said...)
			if !reflect.DeepEqual(res.ProfileUpdates, tt.want) {
				t.Errorf("profile updates %v, want %v", res.ProfileUpdates, tt.want)
			}
			got, _ := res.SessionSummary["triggers"].([]string)
			if !slices.Equal(got, tt.triggers) {
				t.Errorf("triggers %q, want %q", got, tt.triggers)
			}
		})
	}
}

// Name, substance and triggers told in sessions reach the pack's USER
// CONTEXT, even with no known_triggers in the profile.
func TestElderTreeUserContextFromWords(t *testing.T) {
	t.Parallel()
	first := elderSaid("Hi, I'm Dan and I'm an alcoholic. Payday is a big trigger for me.", "Loneliness triggers me.")
	second := elderSaid("I wanted to drink so badly after payday.")
	at := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	in := extract.PackInput{Profile: first.ProfileUpdates, Now: at.Add(48 * time.Hour), Summaries: []extract.PastSummary{
		{SessionID: "s2", At: at.Add(24 * time.Hour), Data: second.SessionSummary},
		{SessionID: "s1", At: at, Data: first.SessionSummary},
	}}
	got := extract.Pack("eldertree", in, 600)
	ctx, _, _ := strings.Cut(got.Text, "RECENT MOMENTUM")
	for _, want := range []string{`"Dan" is in recovery from "alcohol"`, `Key triggers: "payday", "loneliness"`} {
		if !strings.Contains(ctx, want) {
			t.Errorf("USER CONTEXT lacks %q:\n%s", want, got.Text)
		}
	}
}

// A risky event ahead becomes the summary's upcoming_events, dated for its
// day, a follow-up, and a risky_event cue the next session's pack names
// with its date: before the day, ask about a plan; after it, how it went.
func TestElderTreeRiskyEventAhead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said string
		want []map[string]any
	}{
		{"Next Friday I have a work happy hour.", []map[string]any{{"date": "2026-11-27", "event": "work happy hour"}}},
		{"My cousin's wedding on Saturday, open bar.", []map[string]any{{"date": "2026-11-28", "event": "cousin's wedding with an open bar"}}},
		{"Should I go to the office party on Thursday?", []map[string]any{{"date": "2026-11-26", "event": "office party"}}},
		{"We're going out for drinks with the team tomorrow.", []map[string]any{{"date": "2026-11-25", "event": "drinks"}}},
		{"I've got a bachelor party in two weeks.", []map[string]any{{"date": "2026-12-08", "event": "bachelor party"}}},
		{"The anniversary of my dad's death is hard. It's on Sunday.", []map[string]any{{"date": "2026-11-29", "event": "anniversary"}}},
		{"I went to a party on Saturday.", nil},
		{"I drank on Saturday at my cousin's birthday party.", nil},
		{"I was invited to a wedding next Saturday.", []map[string]any{{"date": "2026-11-28", "event": "wedding"}}},
		{"I'm skipping the party on Friday.", nil},
		{"My brother has a party next week.", nil},
		{"I have a protein bar tomorrow.", nil},
		{"I love weddings.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			sum := elderSaid(tt.said).SessionSummary
			got, _ := sum["upcoming_events"].([]map[string]any)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("upcoming_events %v, want %v", got, tt.want)
			}
			if tt.want != nil && sum["follow_up_needed"] != eldertree.FollowUpRiskyEvent {
				t.Errorf("follow_up_needed %q", sum["follow_up_needed"])
			}
		})
	}

	sum := elderSaid("Next Friday I have a work happy hour.").SessionSummary
	said := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	cues := eldertree.Cues(map[string]any{}, map[string]any{}, sum, nil, []string{"sobriety_days"}, said)
	if len(cues) != 1 || cues[0].Type != extract.CueRiskyEvent || cues[0].Field != "2026-11-27" || cues[0].Detail["event"] != "work happy hour" {
		t.Fatalf("cues %+v; want one risky_event cue for 2026-11-27", cues)
	}
	pack := func(now time.Time) string {
		in := extract.PackInput{Now: now, Profile: map[string]any{"preferred_name": "Dan"},
			Cues: []extract.PackCue{{Type: cues[0].Type, Field: cues[0].Field, Detail: cues[0].Detail, At: said}}}
		return extract.Pack("eldertree", in, 600).Text
	}
	if got := pack(said.Add(24 * time.Hour)); !strings.Contains(got, `Risky event ahead on Fri 27 Nov 2026: "work happy hour"; ask how they plan to handle it.`) {
		t.Errorf("pack before the day:\n%s", got)
	}
	if got := pack(said.Add(5 * 24 * time.Hour)); !strings.Contains(got, `Risky event on Fri 27 Nov 2026: "work happy hour"; ask how it went.`) {
		t.Errorf("pack after the day:\n%s", got)
	}
	if got := pack(said.Add(30 * 24 * time.Hour)); strings.Contains(got, "happy hour") {
		t.Errorf("pack a month later still names the event:\n%s", got)
	}
}

// The rules' Elder Tree result still fits the preset's answer schema.
func TestElderTreeWordsFitSchema(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	res := elderSaid("Hi, I'm Dan and I'm an alcoholic.", "Day 4 sober again.", "I finished my fourth step.")
	if err := apps["eldertree"].Validate(map[string]any{"profile_updates": jsonRound(t, res.ProfileUpdates),
		"session_summary": map[string]any{"urge_intensity": 3, "primary_trigger": "payday", "resistance_strategy_used": "called sponsor",
			"outcome": "urge_passed", "key_insights": []any{}, "emotional_state_start": "anxious", "emotional_state_end": "calm",
			"follow_up_needed": "Ask about step 5."}}); err != nil {
		t.Errorf("profile updates %v do not fit the schema: %v", res.ProfileUpdates, err)
	}
}

// jsonRound is v as encoding/json reads it back.
func jsonRound(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
