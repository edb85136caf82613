// Package metrics exposes Mnemo's Prometheus metrics from a registry of its
// own: jobs by kind and outcome, job and batch durations, queue depth and
// missed batch periods (read from the database on every scrape), extraction
// outcomes, LLM tokens and cost, handoff requests by status, and risk cues by
// class, severity and source.
//
// No label carries a user id, a session id or any text from a session: label
// values are job kinds, queue, app, batch and model names, outcomes and HTTP
// status codes.
package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/queue"
)

const namespace = "mnemo"

// Config configures a Registry.
type Config struct {
	// Queue is read on every scrape for the queue gauges; nil leaves them out.
	Queue queue.Queue
	// Deps gives the batch schedules and ledger, read on every scrape for
	// missed periods; nil leaves them out.
	Deps *jobs.Deps
	// Logger receives errors of the reads done on a scrape.
	Logger *slog.Logger
	// ScrapeTimeout bounds those reads (default 5 s).
	ScrapeTimeout time.Duration
}

// Registry holds Mnemo's metrics. It implements jobs.Metrics and api.Metrics.
type Registry struct {
	reg *prometheus.Registry
	log *slog.Logger

	jobs               *prometheus.CounterVec
	jobDuration        *prometheus.HistogramVec
	extractions        *prometheus.CounterVec
	extractionDuration *prometheus.HistogramVec
	llmTokens          *prometheus.CounterVec
	llmCost            *prometheus.CounterVec
	batches            *prometheus.CounterVec
	batchDuration      *prometheus.HistogramVec
	batchRows          *prometheus.CounterVec
	batchSkipped       *prometheus.CounterVec
	handoffs           *prometheus.CounterVec
	risks              *prometheus.CounterVec
	riskLowered        *prometheus.CounterVec
}

var (
	_ jobs.Metrics         = (*Registry)(nil)
	_ jobs.RiskMetrics     = (*Registry)(nil)
	_ jobs.LoweringMetrics = (*Registry)(nil)
)

// New builds the registry and its collectors, the Go runtime's and the
// process's among them.
func New(cfg Config) *Registry {
	r := &Registry{reg: prometheus.NewRegistry(), log: cfg.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets}, labels)
	}
	r.jobs = counter("jobs_total",
		"Job attempts worked by this process, by kind and by the outcome River recorded (completed, retryable, discarded, cancelled, snoozed, interrupted).",
		"kind", "outcome")
	r.jobDuration = histogram("job_duration_seconds", "How long job attempts ran, by kind and outcome.",
		[]float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900}, "kind", "outcome")
	r.extractions = counter("extractions_total",
		"Extraction runs recorded, by app, source (llm, rules, fallback) and outcome.", "app", "source", "outcome")
	r.extractionDuration = histogram("extraction_duration_seconds", "How long extraction runs took, by app and source.",
		[]float64{0.01, 0.1, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120}, "app", "source")
	r.llmTokens = counter("llm_tokens_total", "LLM tokens spent on extraction, by app, model and direction (input, output).",
		"app", "model", "direction")
	r.llmCost = counter("llm_cost_usd_total", "Estimated LLM spend on extraction in US dollars, by app and model.", "app", "model")
	r.batches = counter("batch_runs_total", "Batch runs, by batch and outcome (ok, error).", "batch", "outcome")
	r.batchDuration = histogram("batch_duration_seconds", "How long batch runs took, by batch.",
		[]float64{0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 1800, 3600}, "batch")
	r.batchRows = counter("batch_rows_total", "Rows touched by batch runs, by batch.", "batch")
	r.batchSkipped = counter("batch_users_skipped_total", "Users a batch run skipped because their data could not be read, by batch and reason.", "batch", "reason")
	r.handoffs = counter("handoff_requests_total",
		"Handoff requests (close, messages) by the HTTP status they were answered with.", "endpoint", "code")

	r.risks = counter("risk_cues_total",
		"Risk cues recorded (distress and crisis statements, never their text; those the model lowered included), by app, class, severity and source (rules, trained, model; unknown for a cue queued before sources were recorded).",
		"app", "class", "severity", "source")
	r.riskLowered = counter("risk_lowered_total",
		"Risk findings the model lowered with a frame code (topic, fiction, hyperbole, past, other_person), by app, the finding's class and severity, and frame.",
		"app", "class", "severity", "frame")

	r.reg.MustRegister(r.jobs, r.jobDuration, r.extractions, r.extractionDuration, r.llmTokens, r.llmCost,
		r.batches, r.batchDuration, r.batchRows, r.batchSkipped, r.handoffs, r.risks, r.riskLowered,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&scraped{queue: cfg.Queue, deps: cfg.Deps, log: r.log, timeout: cfg.ScrapeTimeout})
	return r
}

// Handler serves the exposition. A read that fails on a scrape leaves its
// metrics out and is logged; the rest is still served.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		ErrorLog:      promLogger{r.log},
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      r.reg,
	})
}

// Gatherer gives the registry to tests and to other exporters.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Job implements jobs.Metrics.
func (r *Registry) Job(kind, outcome string, took time.Duration) {
	r.jobs.WithLabelValues(kind, outcome).Inc()
	r.jobDuration.WithLabelValues(kind, outcome).Observe(took.Seconds())
}

// Extraction implements jobs.Metrics.
func (r *Registry) Extraction(e jobs.ExtractionStat) {
	r.extractions.WithLabelValues(e.App, e.Source, e.Outcome).Inc()
	r.extractionDuration.WithLabelValues(e.App, e.Source).Observe(e.Took.Seconds())
	if e.Model == "" {
		return
	}
	// A counter that is asked to go down panics: what no count can be is
	// left out (the extractor already refuses such a usage).
	r.llmTokens.WithLabelValues(e.App, e.Model, "input").Add(float64(max(e.InputTokens, 0)))
	r.llmTokens.WithLabelValues(e.App, e.Model, "output").Add(float64(max(e.OutputTokens, 0)))
	if e.CostUSD >= 0 && !math.IsInf(e.CostUSD, 1) {
		r.llmCost.WithLabelValues(e.App, e.Model).Add(e.CostUSD)
	}
}

// Batch implements jobs.Metrics.
func (r *Registry) Batch(name, outcome string, took time.Duration, rows int64) {
	r.batches.WithLabelValues(name, outcome).Inc()
	r.batchDuration.WithLabelValues(name).Observe(took.Seconds())
	r.batchRows.WithLabelValues(name).Add(float64(rows))
}

// BatchSkipped implements jobs.SkipMetrics.
func (r *Registry) BatchSkipped(name, reason string, users int64) {
	r.batchSkipped.WithLabelValues(name, reason).Add(float64(users))
}

// Risk implements jobs.RiskMetrics.
func (r *Registry) Risk(app, class, severity, source string) {
	r.risks.WithLabelValues(app, class, severity, source).Inc()
}

// RiskLowered implements jobs.LoweringMetrics.
func (r *Registry) RiskLowered(app, fromClass, fromSeverity, frame string) {
	r.riskLowered.WithLabelValues(app, fromClass, fromSeverity, frame).Inc()
}

// Handoff implements api.Metrics.
func (r *Registry) Handoff(endpoint string, status int) {
	r.handoffs.WithLabelValues(endpoint, strconv.Itoa(status)).Inc()
}

var (
	queueAvailable = prometheus.NewDesc(namespace+"_queue_available_jobs",
		"Jobs available to work now, per queue, across every worker on the database (read on scrape).", []string{"queue"}, nil)
	queueRunning = prometheus.NewDesc(namespace+"_queue_running_jobs",
		"Jobs being worked, per queue, across every worker on the database (read on scrape).", []string{"queue"}, nil)
	queuePaused = prometheus.NewDesc(namespace+"_queue_paused",
		"1 when the queue is paused (read on scrape).", []string{"queue"}, nil)
	batchMissed = prometheus.NewDesc(namespace+"_batch_missed_periods",
		"Batch periods due and not yet enqueued, per batch (read on scrape); above zero for long means no worker ticks the scheduler.",
		[]string{"batch"}, nil)
)

// scraped reads the database on every scrape.
type scraped struct {
	queue   queue.Queue
	deps    *jobs.Deps
	log     *slog.Logger
	timeout time.Duration
}

func (s *scraped) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueAvailable
	ch <- queueRunning
	ch <- queuePaused
	ch <- batchMissed
}

func (s *scraped) Collect(ch chan<- prometheus.Metric) {
	timeout := s.timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if s.queue != nil {
		depths, err := queue.QueueDepths(ctx, s.queue)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(queueAvailable, fmt.Errorf("read queue depths: %w", err))
		}
		for _, d := range depths {
			ch <- prometheus.MustNewConstMetric(queueAvailable, prometheus.GaugeValue, float64(d.Available), d.Queue)
			ch <- prometheus.MustNewConstMetric(queueRunning, prometheus.GaugeValue, float64(d.Running), d.Queue)
			ch <- prometheus.MustNewConstMetric(queuePaused, prometheus.GaugeValue, boolValue(d.Paused), d.Queue)
		}
	}
	if s.deps != nil {
		missed, err := jobs.MissedPeriods(ctx, s.deps)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(batchMissed, fmt.Errorf("read missed batch periods: %w", err))
		}
		for name, n := range missed {
			ch <- prometheus.MustNewConstMetric(batchMissed, prometheus.GaugeValue, float64(n), name)
		}
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// promLogger hands promhttp's errors to slog.
type promLogger struct{ log *slog.Logger }

func (l promLogger) Println(v ...any) {
	l.log.Warn("metrics scrape", slog.String("error", fmt.Sprint(v...)))
}
