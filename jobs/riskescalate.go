package jobs

import (
	"cmp"
	"context"
	"errors"
	"log/slog"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// escalateRisk gives a result of the rules the model's second look at the
// risk screen's flagged and grey messages (llmextract.Extractor.Escalate,
// MNEMO_RISK_MODEL; docs/safety.md, "Escalation to a model"), when a model
// is configured with a second look, the app's policy allows a model, the
// result is not the model's own (whose answer judged the risks in the
// same call) and the month's budget is not spent. What it found joins
// res under the one policy; its tokens and cost are added to run, like
// extraction's, so that the run, the monthly budget and the metrics count
// them. A failed call leaves the screen's findings and never fails the
// job: it is logged, without any text.
func (w *ExtractWorker) escalateRisk(ctx context.Context, app *prompts.App, in extract.Session, res *extract.Result, run *store.ExtractionRun) {
	d := w.deps
	if d.LLM == nil || !d.LLM.RiskModel().On() || !app.Policy.LLM || res.Source == extract.SourceLLM ||
		run.Outcome == OutcomeBudgetExceeded {
		return
	}
	esc, err := d.LLM.Escalate(ctx, app, in, res)
	if esc.Usage.Calls > 0 {
		run.Model = cmp.Or(run.Model, d.LLM.Model())
		run.InputTokens += esc.Usage.InputTokens
		run.OutputTokens += esc.Usage.OutputTokens
		run.CostUSD += d.LLM.Cost(esc.Usage)
	}
	if esc.Asked == 0 {
		return
	}
	attrs := []any{slog.String("session_id", in.ID), slog.String("app", app.Name), slog.String("risk_model", d.LLM.RiskModel().String()),
		slog.Int("messages", esc.Asked), slog.Int("entries", esc.Entries), slog.Int("input_tokens", esc.Usage.InputTokens),
		slog.Int("output_tokens", esc.Usage.OutputTokens)}
	if err != nil {
		d.log().WarnContext(ctx, "risk escalation failed; the screen's findings stand",
			append(attrs, slog.String("outcome", escalationOutcome(err)))...)
		return
	}
	d.log().InfoContext(ctx, "risk escalation", attrs...)
}

// escalationOutcome names why a second look failed, as the run outcomes
// do, without the error's text (an endpoint's message may echo a request).
func escalationOutcome(err error) string {
	switch {
	case errors.As(err, new(*llm.RateLimitError)), errors.As(err, new(*llm.LimitWaitError)):
		return OutcomeRateLimited
	case llm.IsTransient(err):
		return OutcomeTransient
	}
	return fallbackOutcome(err)
}
