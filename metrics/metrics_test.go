package metrics_test

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/metrics"
	"github.com/mnemo-ai/mnemo/queue"
)

// brokenQueue is a queue whose database is gone.
type brokenQueue struct{ queue.Queue }

// TestExposition: what the workers and the API report shows up under the
// documented names and labels, and a scrape whose database read fails still
// serves everything else and logs why.
func TestExposition(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	reg := metrics.New(metrics.Config{Queue: brokenQueue{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	reg.Job("extract", "completed", 1500*time.Millisecond)
	reg.Job("extract", "retryable", time.Second)
	reg.Extraction(jobs.ExtractionStat{App: "eldertree", Source: "llm", Outcome: "ok", Model: "gpt-4o-mini",
		InputTokens: 1200, OutputTokens: 300, CostUSD: 0.0025, Took: 2 * time.Second})
	reg.Extraction(jobs.ExtractionStat{App: "mona", Source: "rules", Outcome: "ok"})
	reg.Batch("memory-ttl", "ok", 3*time.Second, 42)
	var skips jobs.SkipMetrics = reg // a batch's skipped users reach the registry
	skips.BatchSkipped("weekly-analytics", "summary", 2)
	reg.Handoff("close", 202)
	reg.Handoff("close", 202)
	reg.Handoff("close", 409)
	var lowered jobs.LoweringMetrics = reg // a risk finding the model lowered reaches the registry
	lowered.RiskLowered("mona", "suicidal", "high", "fiction")
	var risks jobs.RiskMetrics = reg // a risk cue reaches the registry with its source
	risks.Risk("mona", "suicidal", "high", "model")

	rec := httptest.NewRecorder()
	reg.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape = %d: %s", rec.Code, rec.Body.String())
	}
	body := rec.Body.String()
	for _, want := range []string{
		`mnemo_jobs_total{kind="extract",outcome="completed"} 1`,
		`mnemo_jobs_total{kind="extract",outcome="retryable"} 1`,
		`mnemo_job_duration_seconds_sum{kind="extract",outcome="completed"} 1.5`,
		`mnemo_extractions_total{app="eldertree",outcome="ok",source="llm"} 1`,
		`mnemo_extractions_total{app="mona",outcome="ok",source="rules"} 1`,
		`mnemo_extraction_duration_seconds_count{app="eldertree",source="llm"} 1`,
		`mnemo_llm_tokens_total{app="eldertree",direction="input",model="gpt-4o-mini"} 1200`,
		`mnemo_llm_tokens_total{app="eldertree",direction="output",model="gpt-4o-mini"} 300`,
		`mnemo_llm_cost_usd_total{app="eldertree",model="gpt-4o-mini"} 0.0025`,
		`mnemo_batch_runs_total{batch="memory-ttl",outcome="ok"} 1`,
		`mnemo_batch_duration_seconds_sum{batch="memory-ttl"} 3`,
		`mnemo_batch_rows_total{batch="memory-ttl"} 42`,
		`mnemo_batch_users_skipped_total{batch="weekly-analytics",reason="summary"} 2`,
		`mnemo_handoff_requests_total{code="202",endpoint="close"} 2`,
		`mnemo_handoff_requests_total{code="409",endpoint="close"} 1`,
		`mnemo_risk_lowered_total{app="mona",class="suicidal",frame="fiction",severity="high"} 1`,
		`mnemo_risk_cues_total{app="mona",class="suicidal",severity="high",source="model"} 1`,
		"go_goroutines ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
	// Rules extraction asked no model: no token series for it.
	if strings.Contains(body, `mnemo_llm_tokens_total{app="mona"`) {
		t.Error("token series for an extraction that asked no model")
	}
	if strings.Contains(body, "mnemo_queue_available_jobs{") {
		t.Error("queue gauges served from a failed read")
	}
	if !strings.Contains(logs.String(), "queue depths") {
		t.Errorf("the failed read is not logged: %q", logs.String())
	}
}

// TestNegativeUsageDoesNotPanic is issue 22 item 7: a negative token count
// or cost asked a Prometheus counter to go down, which panics in the
// extraction job. It is left out; the run is still counted.
func TestNegativeUsageDoesNotPanic(t *testing.T) {
	t.Parallel()
	reg := metrics.New(metrics.Config{Queue: brokenQueue{}})
	reg.Extraction(jobs.ExtractionStat{App: "mona", Source: "llm", Outcome: "ok", Model: "gpt-4o-mini",
		InputTokens: -1_000_000_000, OutputTokens: -5, CostUSD: -150})
	rec := httptest.NewRecorder()
	reg.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`mnemo_extractions_total{app="mona",outcome="ok",source="llm"} 1`,
		`mnemo_llm_tokens_total{app="mona",direction="input",model="gpt-4o-mini"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
}
