package bench

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmtest"
	"github.com/mnemo-ai/mnemo/jobs"
)

const (
	// slowLatency is the fake LLM's answer time at "real" latency.
	slowLatency = 2 * time.Second
	// slowConcurrency is the extract workers, and so the sessions in flight.
	slowConcurrency = 200
)

// BenchmarkExtractionAt2s is BenchmarkExtraction at a real LLM's latency:
// the fake LLM (a process of its own) answers in 2 s, 200 extract workers
// (200 sessions in flight), batches of three waves (600 sessions). The
// ideal is sessions × 2 s ÷ 200, 100 jobs/s.
func BenchmarkExtractionAt2s(b *testing.B) {
	url := fakeLLMProcess(b, slowLatency)
	for _, bk := range backends() {
		b.Run(bk.name, func(b *testing.B) {
			// What NewLLM builds for LLMConfig.Concurrency 200, counting dials.
			var dials atomic.Int64
			tr := extract.NewPooledTransport(slowConcurrency)
			dial := tr.DialContext
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return dial(ctx, network, addr)
			}
			b.Cleanup(tr.CloseIdleConnections)
			llm, err := extract.NewLLM(extract.LLMConfig{BaseURL: url, APIKey: "bench-key", Model: "gpt-4o-mini",
				Timeout: 30 * time.Second, Logger: infoLogger(), Concurrency: slowConcurrency, HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				b.Fatal(err)
			}
			// Three waves of 200 by default; MNEMO_BENCH_WAVES sets how many
			// (more waves let the jobs fall out of step, as in a steady stream).
			waves := 3
			if v := os.Getenv("MNEMO_BENCH_WAVES"); v != "" {
				if w, err := strconv.Atoi(v); err == nil && w > 0 {
					waves = w
				}
			}
			n := waves * slowConcurrency
			rate := benchExtractionAt(b, bk, llm, slowConcurrency, n)
			ideal := float64(slowConcurrency) / slowLatency.Seconds()
			b.ReportMetric(ideal, "ideal-jobs/s")
			b.ReportMetric(100*rate/ideal, "%-of-ideal")
			b.ReportMetric(float64(dials.Load())/float64(b.N*n), "llm-dials/job")
		})
	}
}

// providerRPM is the fake provider's limit in BenchmarkExtractionRateLimited.
const providerRPM = 1200

// BenchmarkExtractionRateLimited drains a backlog of 1.5 minutes' worth of
// sessions (1 800) through 200 workers against a fake provider that answers
// in 2 s and refuses with 429 (at once, with the Retry-After of its window)
// any request beyond 1 200 in the last 60 s. With rpm=off the worker only
// snoozes on 429s; with rpm=1140 (95 % of the provider's limit) it keeps
// under the limit itself. One operation is the whole drain (-benchtime 1x).
// Reported: the drain rate per minute and as % of the provider's, the 429s
// the provider sent, and the jobs snoozed.
func BenchmarkExtractionRateLimited(b *testing.B) {
	for _, bk := range backends() {
		for _, rpm := range []int{0, providerRPM * 95 / 100} {
			name := "rpm=off"
			if rpm > 0 {
				name = "rpm=" + strconv.Itoa(rpm)
			}
			b.Run(bk.name+"/"+name, func(b *testing.B) {
				p := newLimitedProvider(b, providerRPM, slowLatency)
				llm, err := extract.NewLLM(extract.LLMConfig{BaseURL: p.server.URL(), APIKey: "bench-key", Model: "gpt-4o-mini",
					Timeout: 30 * time.Second, Logger: infoLogger(), Concurrency: slowConcurrency, RequestsPerMinute: rpm})
				if err != nil {
					b.Fatal(err)
				}
				benchDrain(b, bk, llm, p, providerRPM*3/2)
			})
		}
	}
}

// limitedProvider is a fake provider with a sliding 60 s window of rpm requests.
type limitedProvider struct {
	server *llmtest.Server
	mu     sync.Mutex
	window []time.Time // arrivals accepted in the last minute, oldest first
	ok     atomic.Int64
	limit  atomic.Int64 // 429s sent
}

func newLimitedProvider(b *testing.B, rpm int, latency time.Duration) *limitedProvider {
	p := &limitedProvider{server: llmtest.NewServer(b)}
	p.server.SetDefault(func(llmtest.Request) llmtest.Reply {
		p.mu.Lock()
		defer p.mu.Unlock()
		now := time.Now()
		for len(p.window) > 0 && now.Sub(p.window[0]) >= time.Minute {
			p.window = p.window[1:]
		}
		if len(p.window) >= rpm {
			p.limit.Add(1)
			retry := p.window[0].Add(time.Minute).Sub(now)
			return llmtest.Status(http.StatusTooManyRequests, strconv.FormatFloat(retry.Seconds(), 'f', 3, 64))
		}
		p.window = append(p.window, now)
		p.ok.Add(1)
		return llmtest.Delay(latency, llmtest.Valid(monaAnswer))
	})
	return p
}

// benchDrain hands n sessions over untimed, then times a worker draining
// them, snoozes and all.
func benchDrain(b *testing.B, bk backend, llm *extract.LLM, p *limitedProvider, n int) {
	b.StopTimer()
	ctx := context.Background()
	e := newEnv(b, bk)
	deps := &jobs.Deps{Store: e.st, Apps: e.apps, Keys: e.keys, LLM: llm, Logger: infoLogger()}
	var snoozes, processed int
	for range b.N {
		for range n {
			id, body := e.next()
			if _, err := e.handOver(ctx, id, body); err != nil {
				b.Fatal(err)
			}
		}
		done := make(chan worked, 4*n)
		workers := river.NewWorkers()
		river.AddWorker(workers, river.Worker[jobs.ExtractArgs](reportingWorker{jobs.NewExtractWorker(deps), done}))
		w, err := jobs.New(e.st, jobs.Config{
			Concurrency:       map[string]int{jobs.QueueExtract: slowConcurrency},
			Workers:           workers,
			FetchPollInterval: pollInterval,
			JobTimeout:        5 * time.Minute,
			Logger:            slog.New(slog.DiscardHandler),
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := w.Start(ctx); err != nil {
			b.Fatal(err)
		}
		deadline := time.After(15 * time.Minute)
		for ok := 0; ok < n; {
			select {
			case r := <-done:
				var snooze *river.JobSnoozeError
				switch {
				case r.err == nil:
					ok++
				case errors.As(r.err, &snooze):
					snoozes++
				default:
					b.Fatalf("extraction failed: %v", r.err)
				}
			case <-deadline:
				b.Fatalf("%d of %d sessions still unprocessed after 15 minutes", n-ok, n)
			}
		}
		b.StopTimer()
		processed += n
		if err := w.StopAndCancel(ctx); err != nil {
			b.Fatal(err)
		}
	}
	perMin := float64(processed) / b.Elapsed().Minutes()
	b.ReportMetric(perMin, "jobs/min")
	b.ReportMetric(100*perMin/providerRPM, "%-of-provider-rpm")
	b.ReportMetric(float64(p.limit.Load()), "429s")
	b.ReportMetric(float64(snoozes), "snoozes")
	b.ReportMetric(float64(p.ok.Load())/float64(processed), "llm-calls/job")
}
