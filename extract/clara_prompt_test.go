package extract_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/clara"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Caregiver concerns never enter the model's prompt: not those earlier
// sessions recorded (the user's history), not those the rules find in this
// session, and not on a later part of a long session.
func TestClaraConcernsNeverEnterThePrompt(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	earlier := extract.Rules(&prompts.App{Name: "clara"}, extract.Session{ID: "s-0", App: "clara", StartedAt: at.Add(-24 * time.Hour),
		EndedAt: at.Add(-23 * time.Hour), Messages: []extract.Message{
			{ID: "m1", Role: "user", Content: "I can't remember if I took my pills. A stranger was at the door.", At: at.Add(-24 * time.Hour)}}}, at)
	if len(clara.ClaraConcernsOf(earlier.SessionSummary["concerns"])) != 2 {
		t.Fatalf("precondition: earlier concerns %v", earlier.SessionSummary["concerns"])
	}
	s := extract.Session{ID: "s-1", UserID: "u-1", App: "clara", StartedAt: at, EndedAt: at.Add(20 * time.Minute),
		Messages: []extract.Message{
			{ID: "m1", Role: "user", Content: "Good morning, is it Friday?", At: at.Add(time.Minute)},
			{ID: "m2", Role: "assistant", Content: "Yes, it's Friday.", At: at.Add(2 * time.Minute)},
			{ID: "m3", Role: "user", Content: "I fell in the kitchen.", At: at.Add(3 * time.Minute)},
		},
		History: extract.History{
			Summaries: []extract.PastSummary{{SessionID: "s-0", At: at.Add(-23 * time.Hour), Data: earlier.SessionSummary}},
			Records:   []extract.Record{{Type: "concern", Key: "s-0", Data: map[string]any{"concerns": earlier.SessionSummary["concerns"]}}},
		}}
	b := setupLLM(t)
	b.server.Push(llmtest.Valid(`{"session_summary":{"summary":"She asked what day it was.","key_topics":["time_confusion"],"emotional_arc":"","notable_anchors":[]},"risks":[]}`))
	if _, err := b.extract(t, "clara", s); err != nil {
		t.Fatal(err)
	}
	reqs := b.server.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var prompt strings.Builder
	for _, m := range reqs[0].Messages {
		prompt.WriteString(m.Content)
	}
	text := prompt.String()
	if !strings.Contains(text, "is it Friday") {
		t.Fatalf("precondition: the transcript is not in the prompt:\n%s", text)
	}
	for _, c := range append(clara.ClaraConcerns, "concerns", "spoke of", "pills", "stranger was") {
		if strings.Contains(text, c) {
			t.Errorf("the prompt holds %q:\n%s", c, text)
		}
	}
}
