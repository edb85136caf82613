package coach

// The tests read the engine's types unqualified, as they did in package
// extract.
import (
	. "github.com/mnemo-ai/mnemo/extract"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Requests about how to be coached are coaching preferences; talk that
// only looks like them is not.
func TestCoachRequestsArePreferences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said string
		want []string
	}{
		{"Challenge me directly, I don't need hand-holding.", []string{"No hand-holding", "Challenge me directly"}},
		{"Keep it short.", []string{"Keep it short"}},
		{"Please don't give me lists.", []string{"Don't give me lists"}},
		{"I want you to push me harder.", []string{"Push me harder"}},
		{"Honestly, I need tough love.", []string{"Tough love"}},
		{"Just tell me straight.", []string{"Tell me straight"}},
		{"I'd rather you listen than lecture me.", []string{"Listen"}},
		{"Could you be a little lighter?", []string{"Be a little lighter"}},
		{"Push back when my plan is fuzzy.", []string{"Push back when my plan is fuzzy"}},
		{"Keep going.", nil},
		{"I'd rather stay home tonight.", nil},
		{"Could you be there at five?", nil},
		{"Pizza is good for me.", nil},
		{"Don't worry about it.", nil},
		{"Give me a second.", nil},
		{"Tell me more about that.", nil},
		{"My sister keeps it short with her boss.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			got := coachStrs(coachRun(coachSession(tt.said)).ProfileUpdates["coach_preferences"])
			if !slices.Equal(got, tt.want) {
				t.Errorf("coach preferences %q, want %q", got, tt.want)
			}
		})
	}
}

// coachLater is a session at the given day after coachT0 with the earlier
// summaries given, newest first.
func coachLater(days int, past []PastSummary, said ...string) Session {
	s := coachSession(said...)
	s.ID = "s-later"
	s.StartedAt = s.StartedAt.AddDate(0, 0, days)
	s.EndedAt = s.EndedAt.AddDate(0, 0, days)
	for i := range s.Messages {
		s.Messages[i].At = s.Messages[i].At.AddDate(0, 0, days)
	}
	s.History.Summaries = past
	return s
}

// A reported completion closes the earlier session's matching action step:
// the summary names it in completed_steps and the next pack no longer lists
// it among the open ones; a completion of something else closes nothing.
func TestCoachCompletionClosesStep(t *testing.T) {
	t.Parallel()
	first := coachRun(coachSession("I will send the application to Acme by Friday. I will finish the resume draft. I will call my mentor."))
	if got := coachStrs(first.SessionSummary["action_steps"]); len(got) != 3 {
		t.Fatalf("precondition: action steps %q", got)
	}
	past := []PastSummary{{SessionID: "s-coach", At: coachT0.Add(45 * time.Minute), Data: first.SessionSummary}}
	tests := []struct {
		said string
		want []string
	}{
		{"I sent the application!", []string{"Send the application to Acme by Friday"}},
		{"Done with the resume draft, finally.", []string{"Finish the resume draft"}},
		{"The resume draft is finished.", []string{"Finish the resume draft"}},
		{"I sent my mom flowers.", nil},
		{"I didn't send the application.", nil},
		{"I called my sister.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			res := coachRun(coachLater(7, past, tt.said))
			got, _ := res.SessionSummary["completed_steps"].([]string)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("completed_steps %q, want %q", got, tt.want)
			}
			pack := Pack("coach", PackInput{Now: coachT0.AddDate(0, 0, 8), Summaries: []PastSummary{
				{SessionID: "s-later", At: coachT0.AddDate(0, 0, 7), Data: res.SessionSummary}, past[0]}}, 400).Text
			for _, st := range tt.want {
				if strings.Contains(pack, st) {
					t.Errorf("the closed step %q is still in the pack:\n%s", st, pack)
				}
			}
			if !strings.Contains(pack, "Call my mentor") {
				t.Errorf("the open step is gone from the pack:\n%s", pack)
			}
		})
	}
}

// Near-duplicate open threads and goals fold into one, in the newest
// wording, within a session, across sessions and in the pack.
func TestCoachNearDuplicatesFold(t *testing.T) {
	t.Parallel()
	res := coachRun(coachSession("I'm not sure whether to ask for a raise.", "I wonder whether I should ask for a raise.",
		"I'm not sure how to open chapter 4.", "I'm not sure how to open chapter 5."))
	if got, want := coachStrs(res.SessionSummary["open_threads"]), []string{"Whether I should ask for a raise", "How to open chapter 4", "How to open chapter 5"}; !slices.Equal(got, want) {
		t.Errorf("open threads %q, want %q", got, want)
	}
	first := coachRun(coachSession("My goal is to run a marathon."))
	later := coachRun(coachLater(7, []PastSummary{{SessionID: "s-coach", At: coachT0, Data: first.SessionSummary}},
		"My goal is to run a full marathon.", "I want to save money."))
	if got, want := later.ProfileUpdates["goals"], []string{"Save money", "Run a full marathon"}; !reflect.DeepEqual(got, want) {
		t.Errorf("goals %q, want %q", got, want)
	}
	pack := Pack("coach", PackInput{Now: coachT0.AddDate(0, 0, 9), Summaries: []PastSummary{
		{SessionID: "b", At: coachT0.AddDate(0, 0, 8), Data: map[string]any{"open_threads": []any{"Whether I should ask for a raise?"}}},
		{SessionID: "a", At: coachT0, Data: map[string]any{"open_threads": []any{"Whether to ask for a raise"}}}}}, 400).Text
	if n := strings.Count(pack, "raise"); n != 1 {
		t.Errorf("the raise thread is named %d times in the pack:\n%s", n, pack)
	}
}

// A goal correction replaces the goal it names, in the same session and
// across sessions, rather than adding one beside it.
func TestCoachGoalCorrection(t *testing.T) {
	t.Parallel()
	same := coachRun(coachSession("My goal is to get the promotion this year.", "Scratch the promotion, I want to move into product management."))
	if got, want := same.ProfileUpdates["goals"], []string{"Move into product management"}; !reflect.DeepEqual(got, want) {
		t.Errorf("goals %q, want %q", got, want)
	}
	first := coachRun(coachSession("My goal is to get the promotion this year. I want to run a marathon."))
	later := coachRun(coachLater(7, []PastSummary{{SessionID: "s-coach", At: coachT0, Data: first.SessionSummary}},
		"Scratch the promotion, I want to move into product management."))
	if got, want := later.ProfileUpdates["goals"], []string{"Move into product management", "Run a marathon"}; !reflect.DeepEqual(got, want) {
		t.Errorf("goals %q, want %q", got, want)
	}
	// The profile's goals from before summaries kept theirs are corrected too.
	legacy := coachLater(7, []PastSummary{{SessionID: "old", At: coachT0, Data: map[string]any{"action_steps": []any{}}}},
		"The promotion is off the table.")
	legacy.History.Profile = map[string]any{"goals": []any{"Get the promotion", "Learn Spanish"}}
	if got, want := coachRun(legacy).ProfileUpdates["goals"], []string{"Learn Spanish"}; !reflect.DeepEqual(got, want) {
		t.Errorf("legacy goals %q, want %q", got, want)
	}
	// Not a correction.
	keep := coachRun(coachSession("My goal is to get the promotion.", "Forget it, let's talk about my week."))
	if got, want := keep.ProfileUpdates["goals"], []string{"Get the promotion"}; !reflect.DeepEqual(got, want) {
		t.Errorf("goals %q, want %q", got, want)
	}
}

// Every completion the user reports is the session's done_this_session,
// closing a known step or not, with or without "I"; plans and other
// past talk are none.
func TestCoachReportedDone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said string
		want []string
	}{
		{"Mailed the signed contract on Tuesday!", []string{"Mailed the signed contract on Tuesday"}},
		{"I finally signed up for the pottery class.", []string{"Signed up for the pottery class"}},
		{"Booked a dentist appointment for March.", []string{"Booked a dentist appointment for March"}},
		{"I need to email the landlord.", nil},
		{"I worked late again.", nil},
		{"Needed the break, honestly.", nil},
		{"I didn't send the email.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			got := coachStrs(coachRun(coachSession(tt.said)).SessionSummary["done_this_session"])
			if !slices.Equal(got, tt.want) {
				t.Errorf("done_this_session %q, want %q", got, tt.want)
			}
		})
	}
}

// coachLastWord is a session of said whose last message is the user's: a
// question there is left open unless it was put to the coach.
func coachLastWord(said ...string) Session {
	s := coachSession(said...)
	s.Messages = s.Messages[:len(s.Messages)-1]
	return s
}

// TestCoachIssue33: the coach's sessions of issue 33. A next step said as
// "next step is …" with a day is an action step with its due date; a
// question to the coach is no open thread; a topic is a whole noun phrase;
// "I finished the outline AND the draft" a week later closes "Write the
// outline", and finished, done and sent close steps.
func TestCoachIssue33(t *testing.T) {
	t.Parallel()
	first := coachRun(coachLastWord(
		"My freelance work dried up last month, so I want to launch a newsletter.",
		"I will write the outline by Friday.",
		"Next step is to set up the Substack page by Wednesday.",
		"be blunt: am I stalling?"))
	sum := first.SessionSummary
	if steps := coachStrs(sum["action_steps"]); !slices.Contains(steps, "Set up the Substack page by Wednesday") {
		t.Errorf("action steps %q; want the Substack page", steps)
	}
	due := ObjectList(sum["due_dates"])
	if !slices.ContainsFunc(due, func(d map[string]any) bool {
		return d["step"] == "Set up the Substack page by Wednesday" && d["due"] == "2026-11-25"
	}) {
		t.Errorf("due dates %v; want the Substack page due Wednesday 2026-11-25", due)
	}
	if th := coachStrs(sum["open_threads"]); len(th) != 0 {
		t.Errorf("open threads %q; a question to the coach is none", th)
	}
	if topics := coachStrs(sum["topics"]); slices.ContainsFunc(topics, func(s string) bool { return strings.Contains(s, "dried") }) {
		t.Errorf("topics %q; a topic is a noun phrase", topics)
	}
	if topics := coachStrs(coachRun(coachSession("My freelance work dried up last month.")).SessionSummary["topics"]); !slices.Equal(topics, []string{"freelance work"}) {
		t.Errorf("topics %q; want the noun phrase freelance work", topics)
	}
	text := Pack("coach", PackInput{Summaries: []PastSummary{{SessionID: "s-coach", At: coachT0, Data: sum}}, Now: coachT0.Add(time.Hour)}, 400).Text
	if !strings.Contains(text, `"Set up the Substack page by Wednesday" (due Wed 2026-11-25)`) {
		t.Errorf("the pack does not give the step's due day:\n%s", text)
	}

	past := []PastSummary{{SessionID: "s-coach", At: coachT0, Data: sum}}
	second := coachRun(coachLater(7, past, "I finished the outline AND the draft."))
	if got := coachStrs(second.SessionSummary["completed_steps"]); !slices.Contains(got, "Write the outline by Friday") {
		t.Errorf("completed steps %q; want the outline closed", got)
	}
	if got := coachStrs(second.SessionSummary["done_this_session"]); !slices.Contains(got, "Finished the draft") {
		t.Errorf("done this session %q; want the draft too", got)
	}
	for _, said := range []string{"Done with the Substack page.", "Substack page done!", "I set up the Substack page.", "The Substack page is finished."} {
		got := coachStrs(coachRun(coachLater(7, past, said)).SessionSummary["completed_steps"])
		if !slices.Contains(got, "Set up the Substack page by Wednesday") {
			t.Errorf("%q: completed steps %q; want the Substack page closed", said, got)
		}
	}
	sent := coachRun(coachSession("I'll send the pitch to three editors."))
	got := coachStrs(coachRun(coachLater(7, []PastSummary{{SessionID: "s-coach", At: coachT0, Data: sent.SessionSummary}}, "Sent the pitch!")).SessionSummary["completed_steps"])
	if !slices.Contains(got, "Send the pitch to three editors") {
		t.Errorf("'Sent the pitch!': completed steps %q; want the pitch closed", got)
	}

	for _, said := range []string{"I hit send on the pitch.", "The pitch went out on Monday.", "Pitch is out."} {
		got := coachStrs(coachRun(coachLater(7, []PastSummary{{SessionID: "s-coach", At: coachT0, Data: sent.SessionSummary}}, said)).SessionSummary["completed_steps"])
		if !slices.Contains(got, "Send the pitch to three editors") {
			t.Errorf("%q: completed steps %q; want the pitch closed", said, got)
		}
	}
	for _, said := range []string{"Outline: done.", "Finally got the outline done.", "Knocked out the outline yesterday."} {
		if got := coachStrs(coachRun(coachLater(7, past, said)).SessionSummary["completed_steps"]); !slices.Contains(got, "Write the outline by Friday") {
			t.Errorf("%q: completed steps %q; want the outline closed", said, got)
		}
	}
	if got := coachRun(coachLater(7, past, "I didn't finish the outline.")).SessionSummary["completed_steps"]; got != nil {
		t.Errorf("'I didn't finish the outline.': completed steps %v; want none", got)
	}
	for said, want := range map[string]string{
		"Next step: draft the welcome email.":       "Draft the welcome email",
		"Action item: email Sarah about the rates.": "Email Sarah about the rates",
		"Plan for this week: email three editors.":  "Email three editors",
		"My plan is to post twice a week.":          "Post twice a week",
	} {
		if got := coachStrs(coachRun(coachSession(said)).SessionSummary["action_steps"]); !slices.Equal(got, []string{want}) {
			t.Errorf("%q: action steps %q, want %q", said, got, want)
		}
	}

	// Questions: the user's own stay open threads; those put to the coach do not.
	for said, open := range map[string]bool{
		"How do I price my services?":                true,
		"Should I quit my job?":                      true,
		"be blunt: am I stalling?":                   false,
		"Honestly, do you think I'm ready to pitch?": false,
		"Am I overthinking this?":                    false,
	} {
		th := coachStrs(coachRun(coachLastWord(said)).SessionSummary["open_threads"])
		if (len(th) > 0) != open {
			t.Errorf("%q: open threads %q; want open %v", said, th, open)
		}
	}
}
