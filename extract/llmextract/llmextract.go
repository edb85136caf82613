// Package llmextract extracts a session with a chat model: it asks the llm
// client about the session as the extract engine plans it, then hands the
// answers back to the engine, which turns them into a Result. Run is the one
// way the job, the resummarize batch, the extract command and the evaluation
// call the model: the model's result completed with the kind's rules, or the
// rules' result standing in.
//
// It lives beside extract, not in it, because it is the only place that
// joins the engine (which knows no HTTP and no wall clock) to the client.
package llmextract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Config configures an Extractor: the llm.Config fields of its client and
// the two bounds of an extraction.
type Config struct {
	// BaseURL, APIKey, Model, Timeout, Temperature, Prices, HTTPClient,
	// Logger, Now, Concurrency, RequestsPerMinute, TokensPerMinute and
	// LimitMaxWait are the client's (see llm.Config).
	BaseURL           string
	APIKey            string
	Model             string
	Timeout           time.Duration
	Temperature       float32
	Prices            llm.PriceTable
	HTTPClient        *http.Client
	Logger            *slog.Logger
	Now               func() time.Time
	Concurrency       int
	RequestsPerMinute int
	TokensPerMinute   int
	LimitMaxWait      time.Duration
	// MaxInputTokens caps the transcript tokens of one call. When both it and
	// the app's policy set a cap, the smaller applies; 0 leaves the policy's.
	MaxInputTokens int
	// MaxMemories is the most memories kept of one answer (of all its parts
	// together); the rest are cut (see Extract). 0 is extract.DefaultMaxMemories.
	MaxMemories int
	// RiskModel is the second looks at the risk screen's findings on the
	// rules path (see Escalate); the zero value takes none.
	RiskModel RiskModel
}

// Extractor extracts memories, profile updates and summaries with a chat
// model. It is safe for concurrent use.
type Extractor struct {
	client  *llm.Client
	maxIn   int
	maxMems int
	risk    RiskModel
	riskApp *prompts.App // the risk check (prompts.RiskCheck)
}

// New checks cfg and returns an extractor. It makes no call.
func New(cfg Config) (*Extractor, error) {
	if cfg.MaxInputTokens < 0 {
		return nil, fmt.Errorf("llm config: max input tokens %d is negative", cfg.MaxInputTokens)
	}
	if cfg.MaxMemories < 0 {
		return nil, fmt.Errorf("llm config: max memories %d is negative", cfg.MaxMemories)
	}
	c, err := llm.New(llm.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Timeout: cfg.Timeout,
		Temperature: cfg.Temperature, Prices: cfg.Prices, HTTPClient: cfg.HTTPClient, Logger: cfg.Logger, Now: cfg.Now,
		Concurrency: cfg.Concurrency, RequestsPerMinute: cfg.RequestsPerMinute, TokensPerMinute: cfg.TokensPerMinute,
		LimitMaxWait: cfg.LimitMaxWait})
	if err != nil {
		return nil, err
	}
	maxMems := cfg.MaxMemories
	if maxMems == 0 {
		maxMems = extract.DefaultMaxMemories
	}
	riskApp, err := prompts.RiskCheck()
	if err != nil {
		return nil, err
	}
	return &Extractor{client: c, maxIn: cfg.MaxInputTokens, maxMems: maxMems, risk: cfg.RiskModel, riskApp: riskApp}, nil
}

// Model is the configured model.
func (x *Extractor) Model() string { return x.client.Model() }

// MaxMemories is the most memories kept of one answer (Config.MaxMemories).
func (x *Extractor) MaxMemories() int { return x.maxMems }

// Limiter is the rate limiter of the model's calls; nil without limits.
func (x *Extractor) Limiter() *llm.Limiter { return x.client.Limiter() }

// Cost prices u with the configured price table, in US dollars.
func (x *Extractor) Cost(u extract.Usage) float64 { return x.client.Cost(llm.Usage(u)) }

// Run extracts s as every caller of the model does: rules is the rules'
// result for s (extract.Rules). An app whose policy allows no model gets
// rules as they are. Otherwise the model's result (Extract) is completed with
// the kind's rules (Kind.CompleteLLM) and returned. When the model fails, Run
// returns rules with Source "fallback" and the Usage spent, and the error,
// for the caller to decide between a retry and the fallback (see
// llm.IsTransient, llm.RetryAfter).
func (x *Extractor) Run(ctx context.Context, app *prompts.App, s extract.Session, rules extract.Result) (extract.Result, error) {
	if !app.Policy.LLM {
		return rules, nil
	}
	got, err := x.Extract(ctx, app, s)
	if err != nil {
		rules.Source, rules.Usage = extract.SourceFallback, got.Usage
		return rules, err
	}
	return extract.KindOfApp(app).CompleteLLM(got, rules), nil
}

// Extract asks the model for app's answer about s and turns it into a Result
// with Source "llm" (see extract.ModelResult).
//
// Each answer is got with llm.Client.Ask: read, validated against the app's
// schema whatever the endpoint promised, with one repair round. A transcript
// over the input budget (Config.MaxInputTokens or the app's policy) is split
// (extract.PlanModelPrompt) and each part extracted in turn, the model seeing
// the summary of the part before; the answers are then merged
// (extract.MergeModelAnswers). Of more than Config.MaxMemories memories, the
// most important are kept; Result.Cut counts the others.
//
// Errors are classified for the job layer: *llm.RateLimitError,
// *llm.TransientError (see llm.IsTransient and llm.RetryAfter),
// *llm.InvalidAnswerError after a failed repair round, and
// *llm.PermanentError for everything a retry cannot fix. On error the Result
// carries only the Usage spent so far.
func (x *Extractor) Extract(ctx context.Context, app *prompts.App, s extract.Session) (extract.Result, error) {
	if app == nil {
		return extract.Result{}, &llm.PermanentError{Err: errors.New("extract: no app")}
	}
	res := extract.Result{App: app.Name, Source: extract.SourceLLM, PromptVersion: app.PromptVersion, Usage: extract.Usage{Model: x.client.Model()}}
	if !app.Policy.LLM {
		return res, &llm.PermanentError{Err: fmt.Errorf("extract: app %s does not allow LLM extraction", app.Name)}
	}
	system, err := app.RenderSystem()
	if err != nil {
		return res, &llm.PermanentError{Err: err}
	}
	plan, err := extract.PlanModelPrompt(app, s, x.maxIn)
	if err != nil {
		return res, &llm.PermanentError{Err: err}
	}
	parts := plan.Parts()
	answers := make([]map[string]any, 0, parts)
	var earlier map[string]any
	for i := range parts {
		user, err := app.RenderUser(plan.UserData(i, earlier))
		if err != nil {
			return res, &llm.PermanentError{Err: err}
		}
		u := llm.Usage(res.Usage)
		ans, err := x.client.Ask(ctx, app, system, user, &u)
		res.Usage = extract.Usage(u)
		if err != nil {
			if parts > 1 {
				err = fmt.Errorf("part %d of %d: %w", i+1, parts, err)
			}
			return res, err
		}
		answers = append(answers, ans)
		earlier, _ = ans["session_summary"].(map[string]any)
	}

	merged := extract.MergeModelAnswers(app, answers)
	if err := app.Validate(merged); err != nil {
		// Each part was valid; a merge that is not is a defect, reported as
		// an answer that cannot be used.
		return res, &llm.InvalidAnswerError{App: app.Name, Err: fmt.Errorf("merged answer of %d parts: %w", parts, err)}
	}
	raw, err := json.Marshal(merged)
	if err != nil {
		return res, &llm.PermanentError{Err: fmt.Errorf("encode answer: %w", err)}
	}
	out := extract.ModelResult(app, s, merged, x.maxMems)
	out.Raw, out.Usage = raw, res.Usage
	return out, nil
}
