package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
)

// Moderate asks the moderation model about the text and reads the
// categories of self-harm, violence and harassment; its failures are
// classified as a chat call's, without the text.
func TestModerate(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer(t)
	c, err := llm.New(llm.Config{BaseURL: s.URL(), APIKey: "k", Model: "gpt-4o-mini", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const text = "I am going to do it tonight"

	s.PushModeration(llmtest.Moderation(map[string]float64{"self-harm/intent": 0.93, "self-harm": 0.7, "violence": 0.2}))
	m, err := c.Moderate(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Flagged || m.Categories[llm.ModSelfHarmIntent] != (llm.ModerationCategory{Flagged: true, Score: m.Categories[llm.ModSelfHarmIntent].Score}) ||
		m.Categories[llm.ModSelfHarmIntent].Score < 0.9 || m.Categories[llm.ModViolence].Flagged || len(m.Categories) != 7 {
		t.Errorf("moderation %+v", m)
	}
	reqs := s.ModerationRequests()
	if len(reqs) != 1 || reqs[0].Model != "omni-moderation-latest" || reqs[0].Input != text || s.Calls() != 0 {
		t.Errorf("requests %+v, chat calls %d", reqs, s.Calls())
	}

	for _, tt := range []struct {
		name  string
		reply llmtest.Reply
		check func(error) bool
	}{
		{"rate limited", llmtest.Status(http.StatusTooManyRequests, "7"), func(err error) bool {
			wait, ok := llm.RetryAfter(err)
			return ok && wait == 7*time.Second
		}},
		{"server error", llmtest.Status(http.StatusInternalServerError, ""), llm.IsTransient},
		{"slow", llmtest.Delay(2*time.Second, llmtest.Moderation(nil)), llm.IsTransient},
		{"no endpoint", llmtest.Error(http.StatusNotFound, "not found"), func(err error) bool { return errors.As(err, new(*llm.PermanentError)) }},
		{"malformed", llmtest.Content(`{"results": [`), func(err error) bool { return err != nil }},
		{"no result", llmtest.Content(`{"id":"x","results":[]}`), func(err error) bool { return errors.As(err, new(*llm.InvalidAnswerError)) }},
	} {
		s.PushModeration(tt.reply)
		_, err := c.Moderate(ctx, text)
		if !tt.check(err) {
			t.Errorf("%s: error %v", tt.name, err)
		}
		if err != nil && strings.Contains(err.Error(), text) {
			t.Errorf("%s: the error quotes the text: %v", tt.name, err)
		}
	}
}
