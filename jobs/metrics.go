package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/store"
)

// Metrics receives what the workers observe, for an exporter such as
// Prometheus. Implementations are safe for concurrent use. Nothing passed to
// it identifies a user or a session or carries text: whatever it turns into a
// label stays bounded and private.
type Metrics interface {
	// Job is one attempt of a job as River recorded it: its kind, its outcome
	// (completed, retryable, discarded, cancelled, snoozed or interrupted)
	// and how long the worker ran.
	Job(kind, outcome string, took time.Duration)
	// Extraction is one recorded extraction run.
	Extraction(e ExtractionStat)
	// Batch is one batch run: its outcome (LedgerOK or LedgerError), how long
	// it took and the rows it touched.
	Batch(name, outcome string, took time.Duration, rows int64)
}

// SkipMetrics is implemented by a Metrics that counts the users batch runs
// skipped because they could not read their data (see the Skip* reasons):
// mnemo_batch_users_skipped_total{batch,reason}.
type SkipMetrics interface {
	// BatchSkipped is called once per run and reason with how many users
	// the run skipped for it.
	BatchSkipped(name, reason string, users int64)
}

// ExtractionStat is what metrics may know of an extraction run: no ids, no
// error text.
type ExtractionStat struct {
	App     string
	Source  string // extract.SourceLLM, SourceRules or SourceFallback
	Outcome string // one of the Outcome* constants
	// Model is empty when no LLM was asked.
	Model        string
	InputTokens  int
	OutputTokens int
	CostUSD      float64
	Took         time.Duration
}

// nopMetrics observes nothing.
type nopMetrics struct{}

func (nopMetrics) Job(string, string, time.Duration)          {}
func (nopMetrics) Extraction(ExtractionStat)                  {}
func (nopMetrics) Batch(string, string, time.Duration, int64) {}

func (d *Deps) metrics() Metrics {
	if d.Metrics != nil {
		return d.Metrics
	}
	return nopMetrics{}
}

// observeRun reports a recorded extraction run.
func (d *Deps) observeRun(run store.ExtractionRun) {
	d.metrics().Extraction(ExtractionStat{App: run.App, Source: run.Source, Outcome: run.Outcome, Model: run.Model,
		InputTokens: run.InputTokens, OutputTokens: run.OutputTokens, CostUSD: run.CostUSD,
		Took: time.Duration(run.DurationMS) * time.Millisecond})
}

// jobEvents are the events that end a job attempt.
var jobEvents = []river.EventKind{river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled,
	river.EventKindJobSnoozed, river.EventKindJobInterrupted}

// ObserveJobs reports every job attempt this process works to m, with the
// outcome River recorded for it, until the queue stops. The queue must be
// one that works jobs (Config.Concurrency set); call it before Start.
func ObserveJobs(q queue.Queue, m Metrics) {
	var events <-chan *river.Event
	if big, ok := q.(interface {
		SubscribeBuffered(size int, kinds ...river.EventKind) <-chan *river.Event
	}); ok {
		events = big.SubscribeBuffered(subscribeBuffer, jobEvents...)
	} else {
		events, _ = q.Subscribe(jobEvents...)
	}
	go func() {
		// River closes the channel when the client stops.
		for ev := range events {
			if ev.Job == nil {
				continue
			}
			var took time.Duration
			if ev.JobStats != nil {
				took = ev.JobStats.RunDuration
			}
			m.Job(ev.Job.Kind, eventOutcome(ev), took)
		}
	}()
}

// subscribeBuffer is the event buffer of ObserveJobs: River drops events
// that find a subscriber's buffer full, and completes jobs in batches.
const subscribeBuffer = 10_000

// eventOutcome names how a job attempt ended.
func eventOutcome(ev *river.Event) string {
	switch ev.Kind {
	case river.EventKindJobCompleted:
		return "completed"
	case river.EventKindJobCancelled:
		return "cancelled"
	case river.EventKindJobSnoozed:
		return "snoozed"
	case river.EventKindJobInterrupted:
		return "interrupted"
	}
	return string(ev.Job.State) // a failure: retryable or discarded
}

// MissedPeriods counts, per batch, the periods that are due and not yet in
// the ledger: what the next scheduler tick would enqueue. A count that stays
// above zero means no worker is ticking.
func MissedPeriods(ctx context.Context, d *Deps) (map[string]int, error) {
	reg, err := d.batches()
	if err != nil {
		return nil, err
	}
	for _, name := range reg.Names() {
		if d.Schedules[name] == nil {
			return nil, fmt.Errorf("missed periods: batch %s has no schedule", name)
		}
	}
	states, err := States(ctx, d, d.now())
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(states))
	for _, s := range states {
		out[s.Name] = len(s.Missed)
	}
	return out, nil
}
