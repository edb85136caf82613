package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

const (
	// extractConcurrency is the extract queue's workers in the benchmarks.
	extractConcurrency = 50
	// llmLatency is the fake LLM's answer time.
	llmLatency = 500 * time.Millisecond
	// batch is the sessions extracted per benchmark operation: enough for
	// the workers to be busy for several LLM round trips.
	batch = 4 * extractConcurrency
	// pollInterval is the worker's fetch poll interval.
	pollInterval = 50 * time.Millisecond
)

// BenchmarkExtraction extracts batches of handed-over Mona sessions with a
// fake LLM that answers in llmLatency, run in a process of its own. One
// operation is one batch; jobs/s is compared with the ideal,
// extractConcurrency ÷ llmLatency. cpu-ms/job is this process's CPU time
// per extraction: the worker, River, the LLM client, and SQLite's engine
// (in-process) — not the LLM and not the Postgres server.
func BenchmarkExtraction(b *testing.B) {
	url := fakeLLMProcess(b, llmLatency)
	for _, bk := range backends() {
		b.Run(bk.name, func(b *testing.B) {
			// The worker's client (LLMConfig.HTTPClient nil) uses
			// llm.NewTransport; this one is the same and counts the
			// connections it opens.
			var dials atomic.Int64
			tr := llm.NewTransport()
			dial := tr.DialContext
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return dial(ctx, network, addr)
			}
			b.Cleanup(tr.CloseIdleConnections)
			llm, err := llmextract.New(llmextract.Config{BaseURL: url, APIKey: "bench-key", Model: "gpt-4o-mini",
				Timeout: 30 * time.Second, Logger: infoLogger(), HTTPClient: &http.Client{Transport: tr}})
			if err != nil {
				b.Fatal(err)
			}
			rate := benchExtraction(b, bk, llm)
			ideal := float64(extractConcurrency) / llmLatency.Seconds()
			b.ReportMetric(ideal, "ideal-jobs/s")
			b.ReportMetric(100*rate/ideal, "%-of-ideal")
			b.ReportMetric(float64(dials.Load())/float64(b.N*batch), "llm-dials/job")
		})
	}
}

// BenchmarkExtractionRules extracts batches with the rules alone (no LLM
// configured): the worker's own cost per extraction, with nothing to wait for.
func BenchmarkExtractionRules(b *testing.B) {
	for _, bk := range backends() {
		b.Run(bk.name, func(b *testing.B) {
			benchExtraction(b, bk, nil)
		})
	}
}

// benchExtraction works b.N batches of sessions on a fresh database. Each
// batch is handed over untimed, then a worker is started for it and the
// clock runs until the last job's work has returned. It reports and returns
// jobs/s, and reports the jobs' work time (LLM call included) and this
// process's CPU time per job.
func benchExtraction(b *testing.B, bk backend, llm *llmextract.Extractor) float64 {
	return benchExtractionAt(b, bk, llm, extractConcurrency, batch)
}

// benchExtractionAt is benchExtraction with conc workers and batches of n sessions.
func benchExtractionAt(b *testing.B, bk backend, llm *llmextract.Extractor, conc, batch int) float64 {
	b.StopTimer()
	ctx := context.Background()
	e := newEnv(b, bk)
	deps := &jobs.Deps{Store: e.st, Apps: e.apps, Keys: e.keys, LLM: llm, Logger: infoLogger()}
	want := extract.SourceRules
	if llm != nil {
		want = extract.SourceLLM
	}
	var (
		used  usage
		work  latencies
		warns atomic.Int64
	)
	for range b.N {
		sessions := make([]string, batch)
		for i := range sessions {
			id, body := e.next()
			if _, err := e.handOver(ctx, id, body); err != nil {
				b.Fatal(err)
			}
			sessions[i] = id
		}
		// Room for every attempt: a worker never blocks on reporting.
		done := make(chan worked, batch*5)
		workers := river.NewWorkers()
		river.AddWorker(workers, river.Worker[queue.ExtractArgs](reportingWorker{jobs.NewExtractWorker(deps), done}))
		w, err := queue.New(e.st, queue.Config{
			Concurrency:       map[string]int{queue.QueueExtract: conc},
			Workers:           workers,
			FetchPollInterval: pollInterval,
			JobTimeout:        time.Minute,
			Logger:            slog.New(warnCounter{&warns}),
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = w.StopAndCancel(context.Background()) })
		runtime.GC()
		u0 := readUsage(b)
		b.StartTimer()
		if err := w.Start(ctx); err != nil {
			b.Fatal(err)
		}
		work = append(work, waitWork(b, done, batch)...)
		b.StopTimer()
		used = used.plus(readUsage(b).since(u0))
		if err := w.Stop(ctx); err != nil {
			b.Fatal(err)
		}
		checkSources(b, e.st, sessions, want)
	}
	n := b.N * batch
	rate := float64(n) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "jobs/s")
	b.ReportMetric(ms(work.quantile(0.5)), "work-p50-ms")
	b.ReportMetric(ms(work.quantile(0.99)), "work-p99-ms")
	used.report(b, n, "job", b.Elapsed())
	b.ReportMetric(float64(warns.Load()), "river-warnings")
	return rate
}

// worked is one extraction job's work, as it returned.
type worked struct {
	took time.Duration
	err  error
}

// reportingWorker is the extraction worker, reporting each job the moment
// its work returns: the session is processed then, while River's completer
// marks jobs completed in batches, up to 250 ms later.
type reportingWorker struct {
	*jobs.ExtractWorker
	done chan<- worked
}

func (w reportingWorker) Work(ctx context.Context, job *river.Job[queue.ExtractArgs]) error {
	start := time.Now()
	err := w.ExtractWorker.Work(ctx, job)
	w.done <- worked{took: time.Since(start), err: err}
	return err
}

// waitWork waits until n jobs' work has returned without error and returns
// how long each took. Any error fails the benchmark: a retried job measures
// something else.
func waitWork(b *testing.B, done <-chan worked, n int) latencies {
	took := make(latencies, 0, n)
	deadline := time.After(5 * time.Minute)
	for len(took) < n {
		select {
		case w := <-done:
			if w.err != nil {
				b.Fatalf("extraction failed: %v", w.err)
			}
			took = append(took, w.took)
		case <-deadline:
			b.Fatalf("%d of %d jobs still unfinished after 5 minutes", n-len(took), n)
		}
	}
	return took
}

// checkSources fails the benchmark when an extraction did not take the path
// being measured (an LLM failure falling back to the rules, say).
func checkSources(b *testing.B, st store.Store, sessions []string, want string) {
	ctx := context.Background()
	for _, id := range sessions {
		runs, err := st.ListExtractionRuns(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		if len(runs) != 1 || runs[0].Source != want {
			b.Fatalf("session %s: %d runs, the first from %q; want one from %q", id, len(runs), firstSource(runs), want)
		}
	}
}

func firstSource(runs []store.ExtractionRun) string {
	if len(runs) == 0 {
		return ""
	}
	return runs[0].Source
}

// fakeLLMEnv tells this test binary to serve the fake LLM instead of testing.
const fakeLLMEnv = "MNEMO_BENCH_FAKE_LLM"

// TestFakeLLMProcess is not a test: run by fakeLLMProcess in a child
// process, it serves the fake LLM until its standard input closes.
func TestFakeLLMProcess(t *testing.T) {
	latency := os.Getenv(fakeLLMEnv)
	if latency == "" {
		t.Skip("the extraction benchmarks' fake LLM; they start it")
	}
	d, err := time.ParseDuration(latency)
	if err != nil {
		t.Fatal(err)
	}
	s := llmtest.NewServer(t, llmtest.Latency(d))
	s.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Valid(monaAnswer) })
	fmt.Println("fake-llm-url", s.URL())
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// fakeLLMProcess starts this test binary as the fake LLM with the given
// latency, in a process of its own so that its CPU time is not the worker's,
// and returns its base URL. It stops when the benchmark ends.
func fakeLLMProcess(b *testing.B, latency time.Duration) string {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestFakeLLMProcess$", "-test.timeout=0")
	cmd.Env = append(os.Environ(), fakeLLMEnv+"="+latency.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	b.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "fake-llm-url "); ok {
			go func() {
				_, _ = io.Copy(io.Discard, stdout)
				_ = cmd.Wait()
				close(exited)
			}()
			return url
		}
	}
	_ = cmd.Wait()
	close(exited)
	b.Fatal("the fake LLM process exited without serving")
	return ""
}
