package eval

import (
	"context"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Extractor turns one session into what the extraction job would hand to
// the merge policy. It answers as the job does: the rules, or a model's
// answer completed by the rules, or the rules standing in for a model that
// failed (Result.Source says which). An error ends the run (a cancelled
// context); a model's failure is a fallback, not an error.
type Extractor func(ctx context.Context, app *prompts.App, s extract.Session, now time.Time) (extract.Result, error)

// RulesExtractor is the deterministic extractor, extract.Rules.
func RulesExtractor(_ context.Context, app *prompts.App, s extract.Session, now time.Time) (extract.Result, error) {
	return extract.Rules(app, s, now), nil
}

// Options configure a run. The zero value runs the rules.
type Options struct {
	// Extract is the extractor; nil is RulesExtractor.
	Extract Extractor
	// Price prices a session's model usage in US dollars (nil: no cost).
	Price func(extract.Usage) float64
}

func (o Options) extractor() Extractor {
	if o.Extract == nil {
		return RulesExtractor
	}
	return o.Extract
}

// Spend is what a run cost: sessions, who answered them, tokens, dollars
// and the time an extraction took.
type Spend struct {
	Sessions     int     `json:"sessions"`
	LLM          int     `json:"llm_sessions"`      // answered by the model
	Fallbacks    int     `json:"fallback_sessions"` // the model failed; the rules answered
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// Latency of one session's extraction, in milliseconds.
	MeanMS float64 `json:"latency_mean_ms"`
	P95MS  float64 `json:"latency_p95_ms"`
	MaxMS  float64 `json:"latency_max_ms"`

	durations []time.Duration
}

// count adds one session's result and how long it took.
func (s *Spend) count(res extract.Result, took time.Duration, price func(extract.Usage) float64) {
	s.Sessions++
	switch res.Source {
	case extract.SourceLLM:
		s.LLM++
	case extract.SourceFallback:
		s.Fallbacks++
	}
	s.Calls += res.Usage.Calls
	s.InputTokens += res.Usage.InputTokens
	s.OutputTokens += res.Usage.OutputTokens
	if price != nil {
		s.CostUSD += price(res.Usage)
	}
	s.durations = append(s.durations, took)
	s.summarise()
}

// Add counts o into s.
func (s *Spend) Add(o Spend) {
	s.Sessions += o.Sessions
	s.LLM += o.LLM
	s.Fallbacks += o.Fallbacks
	s.Calls += o.Calls
	s.InputTokens += o.InputTokens
	s.OutputTokens += o.OutputTokens
	s.CostUSD += o.CostUSD
	s.durations = append(s.durations, o.durations...)
	s.summarise()
}

func (s *Spend) summarise() {
	if len(s.durations) == 0 {
		return
	}
	d := slices.Clone(s.durations)
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	s.MeanMS = ms(sum / time.Duration(len(d)))
	s.P95MS = ms(d[(len(d)*95+99)/100-1])
	s.MaxMS = ms(d[len(d)-1])
}

// extractSession runs one session through the extractor and the merge policy
// (against an empty store) and returns the operations that would write and
// the extractor's result.
func extractSession(ctx context.Context, app *prompts.App, es extract.Session, opts Options, spend *Spend) ([]extract.Op, extract.Result, error) {
	started := time.Now()
	res, err := opts.extractor()(ctx, app, es, es.EndedAt)
	if err != nil {
		return nil, res, err
	}
	spend.count(res, time.Since(started), opts.Price)
	var ops []extract.Op
	for _, op := range extract.Plan(nil, res.Memories, es.ID, app.Policy, es.EndedAt) {
		if op.Action != extract.OpSkip {
			ops = append(ops, op)
		}
	}
	return ops, res, nil
}

// Elapsed is the time of every session's extraction together.
func (s Spend) Elapsed() time.Duration {
	var sum time.Duration
	for _, d := range s.durations {
		sum += d
	}
	return sum
}
