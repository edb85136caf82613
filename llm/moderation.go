package llm

import (
	"context"
	"errors"

	openai "github.com/sashabaranov/go-openai"
)

// ModerationModel is the model Moderate asks.
const ModerationModel = openai.ModerationOmniLatest

// The moderation categories Moderate reports, by the endpoint's names.
const (
	ModSelfHarm              = "self-harm"
	ModSelfHarmIntent        = "self-harm/intent"
	ModSelfHarmInstructions  = "self-harm/instructions"
	ModViolence              = "violence"
	ModViolenceGraphic       = "violence/graphic"
	ModHarassment            = "harassment"
	ModHarassmentThreatening = "harassment/threatening"
)

// ModerationCategory is what the endpoint said of one category: whether it
// flagged it, and its score in [0, 1].
type ModerationCategory struct {
	Flagged bool
	Score   float64
}

// Moderation is what the moderation endpoint said of one text: the
// categories of self-harm, violence and harassment (the Mod* names); the
// others are not kept.
type Moderation struct {
	Flagged    bool
	Categories map[string]ModerationCategory
}

// Moderate asks the provider's moderation endpoint (POST /moderations at
// the client's base URL, model ModerationModel) about one text, within the
// client's timeout. The endpoint is not the chat model: the call goes
// through no rate limiter of the model's and adds nothing to a Usage (the
// provider does not bill it in tokens). Errors are classified as Ask's
// are (*RateLimitError, *TransientError, *PermanentError); an answer
// without a result is an *InvalidAnswerError. Nothing of the text is in
// an error.
func (l *Client) Moderate(ctx context.Context, text string) (Moderation, error) {
	info := &callInfo{}
	callCtx, cancel := context.WithTimeout(context.WithValue(ctx, callInfoKey{}, info), l.timeout)
	defer cancel()
	resp, err := l.client.Moderations(callCtx, openai.ModerationRequest{Input: text, Model: ModerationModel})
	if err != nil {
		return Moderation{}, l.classify(ctx, callCtx, info, err)
	}
	if len(resp.Results) == 0 {
		return Moderation{}, &InvalidAnswerError{App: "moderation", Err: errors.New("the answer holds no result")}
	}
	r := resp.Results[0]
	c, s := r.Categories, r.CategoryScores
	return Moderation{Flagged: r.Flagged, Categories: map[string]ModerationCategory{
		ModSelfHarm:              {c.SelfHarm, float64(s.SelfHarm)},
		ModSelfHarmIntent:        {c.SelfHarmIntent, float64(s.SelfHarmIntent)},
		ModSelfHarmInstructions:  {c.SelfHarmInstructions, float64(s.SelfHarmInstructions)},
		ModViolence:              {c.Violence, float64(s.Violence)},
		ModViolenceGraphic:       {c.ViolenceGraphic, float64(s.ViolenceGraphic)},
		ModHarassment:            {c.Harassment, float64(s.Harassment)},
		ModHarassmentThreatening: {c.HarassmentThreatening, float64(s.HarassmentThreatening)},
	}}, nil
}
