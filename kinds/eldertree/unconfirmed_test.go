package eldertree_test

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/eldertree"
	"github.com/mnemo-ai/mnemo/prompts"
)

// withoutStreak is a profile update without the unconfirmed streak's
// fields, for the tests of other fields (TestElderTreeUnconfirmedStreak
// tests these).
func withoutStreak(p map[string]any) map[string]any {
	p = maps.Clone(p)
	delete(p, eldertree.FieldStreakUnconfirmed)
	delete(p, eldertree.FieldStreakUnconfirmedSince)
	return p
}

// streakOf is what a session said of the streak: "unconfirmed since
// <day>", "settled" (streak_unconfirmed false) or "" (nothing).
func streakOf(res extract.Result) string {
	switch res.ProfileUpdates[eldertree.FieldStreakUnconfirmed] {
	case true:
		since, _ := res.ProfileUpdates[eldertree.FieldStreakUnconfirmedSince].(string)
		return "unconfirmed since " + since
	case false:
		return "settled"
	}
	return ""
}

// A hint at drinking or using without saying it leaves the streak
// unconfirmed since the day the hint is about (said on Tuesday
// 2026-11-24): a date in the sentence, else one said just before, else
// that day. It is no relapse: the outcome and the start date stay.
func TestElderTreeUnconfirmedStreak(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said []string
		want string
	}{
		// Issue 32's session: the wedding was last Saturday.
		{[]string{"my cousin's wedding last saturday. open bar. I didn't exactly stick to soda water",
			"a few became a lot. woke up sunday not remembering the drive home"}, "unconfirmed since 2026-11-21"},
		{[]string{"I didn't exactly stick to soda water."}, "unconfirmed since 2026-11-24"},
		{[]string{"A few became a lot."}, "unconfirmed since 2026-11-24"},
		{[]string{"One drink turned into five at the office party last week."}, "unconfirmed since 2026-11-22"},
		{[]string{"Woke up not remembering the drive home."}, "unconfirmed since 2026-11-24"},
		{[]string{"I woke up on Sunday not remembering how I got home."}, "unconfirmed since 2026-11-22"},
		{[]string{"Last night is a blur."}, "unconfirmed since 2026-11-23"},
		{[]string{"I blacked out on Friday."}, "unconfirmed since 2026-11-20"},
		{[]string{"I've got a bottle stashed in the car just in case."}, "unconfirmed since 2026-11-24"},
		{[]string{"I hid a flask in my desk drawer."}, "unconfirmed since 2026-11-24"},
		{[]string{"I don't want to talk about counting days."}, "unconfirmed since 2026-11-24"},
		{[]string{"Can we not talk about my streak?"}, "unconfirmed since 2026-11-24"},
		{[]string{"Honestly I wasn't exactly sober at the game on Saturday."}, "unconfirmed since 2026-11-21"},
		{[]string{"The work party was on Friday.", "Let's just say I didn't stick to soda water."}, "unconfirmed since 2026-11-20"},
		// The earliest day of the session's hints.
		{[]string{"I've got a bottle stashed in the car just in case.", "Last night is a blur."}, "unconfirmed since 2026-11-23"},

		// Not a hint.
		{[]string{"I stuck to soda water all night."}, "settled"},
		{[]string{"A few of us went for coffee."}, ""},
		{[]string{"My friend woke up not remembering anything after his surgery."}, ""},
		{[]string{"I woke up not remembering anything after my surgery."}, ""},
		{[]string{"I keep a bottle of water in the car."}, ""},
		{[]string{"I keep a water bottle in the car just in case."}, ""},
		{[]string{"I don't want to talk about my sister."}, ""},
		{[]string{"If I didn't stick to soda water I'd be in trouble."}, ""},
		{[]string{"I'm scared a few will become a lot."}, ""},
		{[]string{"I used to black out every weekend."}, ""},
		{[]string{"Years ago I woke up not remembering the drive home."}, ""},
		{[]string{"My dad blacked out at the wedding."}, ""},
		{[]string{"My brother didn't stick to soda water."}, ""},
		{[]string{"I poured out the bottle I had stashed."}, ""},
		{[]string{"I woke up not remembering my dream."}, ""},
		{[]string{"Did a few become a lot?"}, ""},
		{[]string{"I never blacked out."}, ""},

		// A plain statement settles it; the last statement of the session
		// wins, and a relapse anywhere.
		{[]string{"No, I stayed sober at the wedding."}, "settled"},
		{[]string{"I didn't drink at the wedding."}, "settled"},
		{[]string{"I haven't had a drink since the wedding."}, "settled"},
		{[]string{"I'm still sober."}, "settled"},
		{[]string{"Day 434 today."}, "settled"},
		{[]string{"I drank on Saturday."}, "settled"},
		{[]string{"I didn't drink today."}, ""},
		{[]string{"A few became a lot.", "Just kidding, I stuck to soda water all night."}, "settled"},
		{[]string{"I stayed sober at the wedding, but I've got a bottle stashed in the car just in case."}, "unconfirmed since 2026-11-24"},
		{[]string{"I didn't exactly stick to soda water.", "OK. I drank on Saturday."}, "settled"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.said, " / "), func(t *testing.T) {
			t.Parallel()
			res := elderSaid(tt.said...)
			if got := streakOf(res); got != tt.want {
				t.Errorf("streak %q, want %q (profile updates %v)", got, tt.want, res.ProfileUpdates)
			}
			if !strings.HasPrefix(tt.want, "unconfirmed") {
				return
			}
			// A hint is no relapse, and asks for a gentle check-in.
			if res.SessionSummary["outcome"] == aggregate.OutcomeRelapsed || res.ProfileUpdates["recovery_start_date"] != nil {
				t.Errorf("a hint told a relapse: summary %v, profile %v", res.SessionSummary, res.ProfileUpdates)
			}
			if res.SessionSummary["follow_up_needed"] != eldertree.FollowUpUnconfirmed {
				t.Errorf("follow-up %q, want the check-in", res.SessionSummary["follow_up_needed"])
			}
		})
	}
}

// A relapse told after a hint is the existing relapse: the outcome is
// relapsed and the streak starts again on the day said.
func TestElderTreeUnconfirmedThenRelapse(t *testing.T) {
	t.Parallel()
	res := elderSaid("I didn't exactly stick to soda water.", "OK. I drank on Saturday.")
	if res.SessionSummary["outcome"] != aggregate.OutcomeRelapsed || res.ProfileUpdates["recovery_start_date"] != "2026-11-21" ||
		res.ProfileUpdates[eldertree.FieldStreakUnconfirmed] != false {
		t.Errorf("summary %v, profile %v; want a relapse on 2026-11-21 and the streak settled", res.SessionSummary, res.ProfileUpdates)
	}
}

// The pack tells the companion the streak is unconfirmed, without a count,
// until a later statement settles it: a plain statement of staying sober
// brings the count back, a relapse restarts it.
func TestElderTreeUnconfirmedStreakInPack(t *testing.T) {
	t.Parallel()
	said := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	hint := elderSaid("my cousin's wedding last saturday. open bar. I didn't exactly stick to soda water",
		"a few became a lot. woke up sunday not remembering the drive home")
	profile := map[string]any{"recovery_start_date": "2025-09-20", "sobriety_days": 430}
	maps.Copy(profile, hint.ProfileUpdates)
	sums := []extract.PastSummary{{SessionID: "s-hint", At: said, Data: hint.SessionSummary}}
	pack := func(profile map[string]any, sums []extract.PastSummary) string {
		return extract.Pack("eldertree", extract.PackInput{Profile: profile, Summaries: sums, Now: said.Add(24 * time.Hour)}, 600).Text
	}

	got := pack(profile, sums)
	if !strings.Contains(got, "Current streak: unconfirmed since Sat 21 Nov 2026") || !strings.Contains(got, "Do not congratulate them") {
		t.Errorf("pack after the hints lacks the unconfirmed streak:\n%s", got)
	}
	if strings.Contains(got, "431 days") || strings.Contains(got, "Current streak: 4") {
		t.Errorf("pack after the hints still counts the streak:\n%s", got)
	}
	if strings.Count(got, "Check in gently") != 0 || strings.Count(got, "check in gently") != 1 {
		t.Errorf("pack says the check-in other than once, in the streak's line:\n%s", got)
	}

	// Cleared in a later session.
	clear := elderSaid("No, I stayed sober at the wedding.")
	cleared := maps.Clone(profile)
	maps.Copy(cleared, clear.ProfileUpdates)
	later := append([]extract.PastSummary{{SessionID: "s-clear", At: said.Add(2 * time.Hour), Data: clear.SessionSummary}}, sums...)
	got = pack(cleared, later)
	if !strings.Contains(got, "Current streak: 431 days") || strings.Contains(got, "unconfirmed") || strings.Contains(got, "hints at drinking") {
		t.Errorf("pack after a plain statement of staying sober:\n%s", got)
	}

	// Confirmed in a later session: the relapse restarts the streak.
	relapse := elderSaid("I drank on Saturday.")
	confirmed := maps.Clone(profile)
	maps.Copy(confirmed, relapse.ProfileUpdates)
	later = append([]extract.PastSummary{{SessionID: "s-relapse", At: said.Add(2 * time.Hour), Data: relapse.SessionSummary}}, sums...)
	got = pack(confirmed, later)
	if !strings.Contains(got, "Current streak: 1 day") || strings.Contains(got, "unconfirmed") || !strings.Contains(got, "relapsed") {
		t.Errorf("pack after the relapse was told:\n%s", got)
	}

	// A profile that still says unconfirmed, but whose streak started
	// again since (a reset said elsewhere), counts from the new start.
	reset := maps.Clone(profile)
	reset["recovery_start_date"] = "2026-11-23"
	if got = pack(reset, sums); !strings.Contains(got, "Current streak: 2 days") || strings.Contains(got, "unconfirmed") {
		t.Errorf("pack after a reset:\n%s", got)
	}
}

// On the LLM path the rules' reading of the streak stands when the
// model's answer says nothing of it, and a relapse the model found
// settles it.
func TestElderTreeUnconfirmedStreakWithLLM(t *testing.T) {
	t.Parallel()
	rules := elderSaid("a few became a lot. woke up sunday not remembering the drive home")
	answer := extract.Result{ProfileUpdates: map[string]any{"current_step": 4}, SessionSummary: map[string]any{"outcome": aggregate.OutcomeOngoing}}
	got := eldertree.ElderTree.CompleteLLM(answer, rules)
	if got.ProfileUpdates[eldertree.FieldStreakUnconfirmed] != true || got.ProfileUpdates[eldertree.FieldStreakUnconfirmedSince] != "2026-11-22" ||
		got.ProfileUpdates["current_step"] != 4 {
		t.Errorf("profile %v; want the model's step and the rules' unconfirmed streak since 2026-11-22", got.ProfileUpdates)
	}
	if _, touched := answer.ProfileUpdates[eldertree.FieldStreakUnconfirmed]; touched {
		t.Error("CompleteLLM wrote into the model's answer")
	}
	answer.SessionSummary = map[string]any{"outcome": aggregate.OutcomeRelapsed}
	if got = eldertree.ElderTree.CompleteLLM(answer, rules); got.ProfileUpdates[eldertree.FieldStreakUnconfirmed] != false {
		t.Errorf("profile %v; want the streak settled by the model's relapse", got.ProfileUpdates)
	}
}

// The fields fit the preset's answer schema, so a model may state them too.
func TestElderTreeUnconfirmedStreakFitsSchema(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []extract.Result{elderSaid("I didn't exactly stick to soda water last saturday."), elderSaid("No, I stayed sober.")} {
		if err := apps["eldertree"].Validate(map[string]any{"profile_updates": jsonRound(t, res.ProfileUpdates),
			"session_summary": map[string]any{"urge_intensity": nil, "primary_trigger": nil, "resistance_strategy_used": nil,
				"outcome": "ongoing_struggle", "key_insights": []any{}, "emotional_state_start": "uneasy", "emotional_state_end": "calmer",
				"follow_up_needed": eldertree.FollowUpUnconfirmed}}); err != nil {
			t.Errorf("profile updates %v do not fit the schema: %v", res.ProfileUpdates, err)
		}
	}
}
