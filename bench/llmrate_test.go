package bench

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// slowLatency is the fake LLM's answer time at "real" latency.
	slowLatency = 2 * time.Second
	// slowConcurrency is the extract workers, and so the sessions in flight.
	slowConcurrency = 200
)

// BenchmarkExtractionAt2s is BenchmarkExtraction at a real LLM's latency:
// the fake LLM (a process of its own) answers in 2 s, and 200 extract
// workers keep 200 sessions in flight. The ideal is 200 ÷ 2 s = 100 jobs/s.
//
// MNEMO_BENCH_MODE chooses what is measured:
//
//   - stream (the default): one operation is one backlog of
//     MNEMO_BENCH_SESSIONS sessions (3 000; rounded up to a multiple of
//     200, at least 600) handed over untimed, then worked by one worker
//     until the last job's work returns. The steady state is measured
//     apart from the ramp and the tail: from the 200th job's work returned
//     (the ramp: the worker's start, its first fetch, the first 200
//     sessions all started at once) to the (n−200)th (from then on the
//     queue is empty and the tail drains). Throughout the steady window
//     every slot a job frees finds another job queued: 200 sessions are in
//     flight as far as the worker allows. jobs/s and %-of-ideal are the
//     steady window's completions over its length; the work times (and
//     their parts: before, during and after the LLM call; the reads, the
//     wait for the transaction's connection, the transaction), the share
//     of slot time spent in Work, the CPU and the host's busy share are
//     the steady window's too; ramp-s, tail-s and overall-jobs/s (every
//     session over the whole run) are reported beside them. River's fetch
//     settings are those worker serve derives in LLM mode
//     (cmd/worker/defaults.go): cooldown 10 ms and poll 100 ms on SQLite,
//     20 ms and 1 s on Postgres, unless MNEMO_BENCH_COOLDOWN or
//     MNEMO_BENCH_POLL set them. MNEMO_BENCH_CPUPROFILE names a file (a
//     new one) for a CPU profile of the steady window.
//   - waves: the measurement of commit 4d0695c: batches of
//     MNEMO_BENCH_WAVES × 200 sessions (three waves by default), each
//     worked by a worker of its own started for it, fetch cooldown and
//     poll 50 ms; %-of-ideal is over the whole batch, ramp and tail
//     included.
func BenchmarkExtractionAt2s(b *testing.B) {
	url := fakeLLMProcess(b, slowLatency)
	for _, bk := range backends() {
		b.Run(bk.name, func(b *testing.B) {
			// What NewLLM builds for LLMConfig.Concurrency 200, counting
			// dials and timing each call as the worker sees it.
			var dials atomic.Int64
			tr := llm.NewPooledTransport(slowConcurrency)
			dial := tr.DialContext
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return dial(ctx, network, addr)
			}
			b.Cleanup(tr.CloseIdleConnections)
			calls := timedTransport{next: tr}
			llm, err := llmextract.New(llmextract.Config{BaseURL: url, APIKey: "bench-key", Model: "gpt-4o-mini",
				Timeout: 30 * time.Second, Logger: infoLogger(), Concurrency: slowConcurrency, HTTPClient: &http.Client{Transport: calls}})
			if err != nil {
				b.Fatal(err)
			}
			ideal := float64(slowConcurrency) / slowLatency.Seconds()
			b.ReportMetric(ideal, "ideal-jobs/s")
			b.ReportMetric(load1(), "load1-start")
			var n int
			switch mode := os.Getenv("MNEMO_BENCH_MODE"); mode {
			case "", "stream":
				var rate float64
				rate, n = benchStream(b, bk, llm)
				b.ReportMetric(100*rate/ideal, "%-of-ideal")
			case "waves":
				// Three waves of 200 by default; MNEMO_BENCH_WAVES sets how
				// many (more waves let the jobs fall out of step).
				n = envInt("MNEMO_BENCH_WAVES", 3) * slowConcurrency
				rate := benchExtractionAt(b, bk, llm, slowConcurrency, n)
				b.ReportMetric(100*rate/ideal, "%-of-ideal")
				n *= b.N
			default:
				b.Fatalf("MNEMO_BENCH_MODE=%q: want stream or waves", mode)
			}
			b.ReportMetric(float64(dials.Load())/float64(n), "llm-dials/job")
		})
	}
}

// envDuration is the positive duration the environment variable name holds, or def.
func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive duration such as 20ms", name, v)
	}
	return d
}

// load1 is the host's one-minute load average, or 0 where it cannot be read.
func load1() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(raw) + " 0")[0], 64)
	return f
}

// timedTransport times the LLM calls as the worker's client sees them,
// from the request handed to the transport to the response's body read,
// for the job whose context the request carries (see spanWorker).
type timedTransport struct{ next http.RoundTripper }

func (t timedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	jt, _ := req.Context().Value(jobTimingKey{}).(*jobTiming)
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	if err != nil || jt == nil {
		return resp, err
	}
	resp.Body = &timedBody{ReadCloser: resp.Body, done: func() { jt.called(start, time.Now()) }}
	return resp, nil
}

type timedBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.done)
	}
	return n, err
}

func (b *timedBody) Close() error {
	b.once.Do(b.done)
	return b.ReadCloser.Close()
}

// jobTiming is when one job's LLM calls began and ended (the first call's
// start, the last call's end), and how long its reads outside a
// transaction and its transactions took, and of those the wait until the
// transaction's function ran (a connection, BEGIN) (see timedStore).
type jobTiming struct {
	mu                sync.Mutex
	call              span
	reads, txWait, tx time.Duration
}

func timingOf(ctx context.Context) *jobTiming {
	jt, _ := ctx.Value(jobTimingKey{}).(*jobTiming)
	return jt
}

// since adds the time since start to what field picks of jt, unless jt is nil.
func (jt *jobTiming) since(start time.Time, field func(*jobTiming) *time.Duration) {
	if jt == nil {
		return
	}
	took := time.Since(start)
	jt.mu.Lock()
	*field(jt) += took
	jt.mu.Unlock()
}

func reads(jt *jobTiming) *time.Duration   { return &jt.reads }
func txWait(jt *jobTiming) *time.Duration  { return &jt.txWait }
func txTotal(jt *jobTiming) *time.Duration { return &jt.tx }

// timedStore is the store, timing for the job whose context a call carries
// what the extraction worker does outside the LLM call: the reads before
// it (session, transcript, events: GetSessionInput, or one by one) and the
// transaction after it.
type timedStore struct{ store.Store }

func (s timedStore) GetSessionInput(ctx context.Context, id string) (store.SessionInput, error) {
	defer timingOf(ctx).since(time.Now(), reads)
	return s.Store.GetSessionInput(ctx, id)
}

func (s timedStore) GetSession(ctx context.Context, id string) (store.Session, error) {
	defer timingOf(ctx).since(time.Now(), reads)
	return s.Store.GetSession(ctx, id)
}

func (s timedStore) ListChunks(ctx context.Context, sessionID string) ([]store.Chunk, error) {
	defer timingOf(ctx).since(time.Now(), reads)
	return s.Store.ListChunks(ctx, sessionID)
}

func (s timedStore) ListEvents(ctx context.Context, sessionID string) ([]store.Event, error) {
	defer timingOf(ctx).since(time.Now(), reads)
	return s.Store.ListEvents(ctx, sessionID)
}

func (s timedStore) InTx(ctx context.Context, fn func(ctx context.Context, tx store.Tx) error) error {
	jt := timingOf(ctx)
	if jt == nil {
		return s.Store.InTx(ctx, fn)
	}
	start := time.Now()
	var began time.Time
	err := s.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		if began.IsZero() {
			began = time.Now()
			jt.since(start, txWait)
		}
		return fn(ctx, tx)
	})
	jt.since(start, txTotal)
	return err
}

type jobTimingKey struct{}

func (jt *jobTiming) called(start, end time.Time) {
	jt.mu.Lock()
	defer jt.mu.Unlock()
	if jt.call.start.IsZero() {
		jt.call.start = start
	}
	jt.call.end = end
}

// span is when something started and ended.
type span struct{ start, end time.Time }

// spanWorker is the extraction worker, reporting each job's work (its
// start and end, and its LLM call's) the moment it returns.
type spanWorker struct {
	*jobs.ExtractWorker
	done chan<- spanDone
}

type spanDone struct {
	work, call        span
	reads, txWait, tx time.Duration
	err               error
}

func (w spanWorker) Work(ctx context.Context, job *river.Job[queue.ExtractArgs]) error {
	jt := &jobTiming{}
	start := time.Now()
	err := w.ExtractWorker.Work(context.WithValue(ctx, jobTimingKey{}, jt), job)
	end := time.Now()
	jt.mu.Lock()
	d := spanDone{span{start, end}, jt.call, jt.reads, jt.txWait, jt.tx, err}
	jt.mu.Unlock()
	w.done <- d
	return err
}

// streamRun is what one stream operation measured.
type streamRun struct {
	n                  int           // sessions
	ramp, steady, tail time.Duration // start → 200th, 200th → (n−200)th, (n−200)th → nth job's work returned
	used               usage         // in the steady window
	// Of the jobs whose work returned in the steady window: the work, and
	// its parts before, during and after the LLM call; the reads before it
	// and the transaction after it (and its wait until its function ran).
	work, pre, llm, post latencies
	reads, txWait, tx    latencies
	busy                 time.Duration // slot time spent in Work within the steady window
	// rampPre is the part before the LLM call of the ramp's jobs, which all
	// start at once.
	rampPre latencies
}

// benchStream works b.N backlogs of sessions (see BenchmarkExtractionAt2s)
// and returns the steady rate and the sessions worked.
func benchStream(b *testing.B, bk backend, llm *llmextract.Extractor) (float64, int) {
	b.StopTimer()
	ctx := context.Background()
	e := newEnv(b, bk)
	deps := &jobs.Deps{Store: timedStore{e.st}, Apps: e.apps, Keys: e.keys, LLM: llm, Logger: infoLogger()}
	n := envInt("MNEMO_BENCH_SESSIONS", 3000)
	n = (n + slowConcurrency - 1) / slowConcurrency * slowConcurrency
	n = max(n, 3*slowConcurrency)
	cooldown, poll := 10*time.Millisecond, 100*time.Millisecond // worker serve's derived SQLite settings
	if bk.name == store.DialectPostgres {
		cooldown, poll = 20*time.Millisecond, time.Second
	}
	cooldown = envDuration(b, "MNEMO_BENCH_COOLDOWN", cooldown)
	poll = max(envDuration(b, "MNEMO_BENCH_POLL", poll), cooldown)
	var (
		runs  []streamRun
		warns atomic.Int64
	)
	for range b.N {
		sessions := handOverMany(b, e, n)
		done := make(chan spanDone, n*5)
		workers := river.NewWorkers()
		river.AddWorker(workers, river.Worker[queue.ExtractArgs](spanWorker{jobs.NewExtractWorker(deps), done}))
		w, err := queue.New(e.st, queue.Config{
			Concurrency:       map[string]int{queue.QueueExtract: slowConcurrency},
			Workers:           workers,
			FetchCooldown:     cooldown,
			FetchPollInterval: poll,
			JobTimeout:        time.Minute,
			Logger:            slog.New(warnCounter{&warns}),
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = w.StopAndCancel(context.Background()) })
		runtime.GC()
		b.StartTimer()
		t0 := time.Now()
		if err := w.Start(ctx); err != nil {
			b.Fatal(err)
		}
		// The steady window opens when the ramp's last job returns and
		// closes when the queue's last job is fetched: the usage is read
		// as those jobs report.
		var (
			spans    = make([]spanDone, 0, n)
			u0, u1   usage
			deadline = time.After(10 * time.Minute)
		)
		for len(spans) < n {
			select {
			case d := <-done:
				if d.err != nil {
					b.Fatalf("extraction failed: %v", d.err)
				}
				spans = append(spans, d)
				switch len(spans) {
				case slowConcurrency:
					u0 = readUsage(b)
					startProfile(b)
				case n - slowConcurrency:
					pprof.StopCPUProfile()
					u1 = readUsage(b)
				}
			case <-deadline:
				b.Fatalf("%d of %d jobs still unfinished after 10 minutes", n-len(spans), n)
			}
		}
		b.StopTimer()
		if err := w.Stop(ctx); err != nil {
			b.Fatal(err)
		}
		runs = append(runs, measureStream(t0, spans, u1.since(u0)))
		checkSources(b, e.st, sessions, extract.SourceLLM)
	}

	var (
		all                  streamRun
		rampJobs, steadyJobs int
	)
	for _, r := range runs {
		all.n += r.n
		all.ramp += r.ramp
		all.steady += r.steady
		all.tail += r.tail
		all.used = all.used.plus(r.used)
		all.work = append(all.work, r.work...)
		all.pre = append(all.pre, r.pre...)
		all.llm = append(all.llm, r.llm...)
		all.post = append(all.post, r.post...)
		all.reads = append(all.reads, r.reads...)
		all.txWait = append(all.txWait, r.txWait...)
		all.tx = append(all.tx, r.tx...)
		all.busy += r.busy
		all.rampPre = append(all.rampPre, r.rampPre...)
		rampJobs += slowConcurrency
		steadyJobs += r.n - 2*slowConcurrency
	}
	steadyRate := float64(steadyJobs) / all.steady.Seconds()
	b.ReportMetric(steadyRate, "jobs/s")
	b.ReportMetric(float64(rampJobs)/all.ramp.Seconds(), "ramp-jobs/s")
	b.ReportMetric(all.ramp.Seconds()/float64(len(runs)), "ramp-s")
	b.ReportMetric(ms(all.rampPre.mean()), "ramp-pre-llm-mean-ms")
	b.ReportMetric(all.tail.Seconds()/float64(len(runs)), "tail-s")
	b.ReportMetric(float64(all.n)/b.Elapsed().Seconds(), "overall-jobs/s")
	b.ReportMetric(ms(all.work.quantile(0.5)), "work-p50-ms")
	b.ReportMetric(ms(all.work.quantile(0.99)), "work-p99-ms")
	// Work's parts: reads and rules before the LLM call (and the prompt),
	// the call as the client sees it, its answer's checks and the apply after.
	b.ReportMetric(ms(all.work.mean()), "work-mean-ms")
	b.ReportMetric(ms(all.pre.mean()), "pre-llm-mean-ms")
	b.ReportMetric(ms(all.llm.mean()), "llm-call-mean-ms")
	b.ReportMetric(ms(all.post.mean()), "post-llm-mean-ms")
	b.ReportMetric(ms(all.reads.mean()), "reads-mean-ms")
	b.ReportMetric(ms(all.txWait.mean()), "tx-wait-mean-ms")
	b.ReportMetric(ms(all.tx.mean()), "tx-mean-ms")
	// The slots' share of the steady window spent in Work: the rest is
	// River's (a slot freed waiting for its fetch).
	b.ReportMetric(100*all.busy.Seconds()/(all.steady.Seconds()*slowConcurrency), "slots-busy-%")
	all.used.report(b, steadyJobs, "job", all.steady)
	b.ReportMetric(float64(warns.Load()), "river-warnings")
	return steadyRate, all.n
}

// startProfile starts a CPU profile of this process (the worker; the fake
// LLM is a process of its own) into the file MNEMO_BENCH_CPUPROFILE names,
// if it names one: the steady window's (the first operation's only).
func startProfile(b *testing.B) {
	path := os.Getenv("MNEMO_BENCH_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return // an earlier operation's
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close() })
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
}

// measureStream reads one stream run's jobs (see streamRun), t0 being the
// worker's start.
func measureStream(t0 time.Time, jobs []spanDone, used usage) streamRun {
	n := len(jobs)
	ends := make([]time.Time, n)
	for i, j := range jobs {
		ends[i] = j.work.end
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	open, closed := ends[slowConcurrency-1], ends[n-slowConcurrency-1]
	r := streamRun{n: n, ramp: open.Sub(t0), steady: closed.Sub(open), tail: ends[n-1].Sub(closed), used: used}
	for _, j := range jobs {
		w := j.work
		if !w.end.After(open) && !j.call.start.IsZero() {
			r.rampPre = append(r.rampPre, j.call.start.Sub(w.start))
		}
		if w.end.After(open) && !w.end.After(closed) {
			r.work = append(r.work, w.end.Sub(w.start))
			if !j.call.start.IsZero() {
				r.pre = append(r.pre, j.call.start.Sub(w.start))
				r.llm = append(r.llm, j.call.end.Sub(j.call.start))
				r.post = append(r.post, w.end.Sub(j.call.end))
			}
			r.reads = append(r.reads, j.reads)
			r.txWait = append(r.txWait, j.txWait)
			r.tx = append(r.tx, j.tx)
		}
		if lo, hi := later(w.start, open), earlier(w.end, closed); hi.After(lo) {
			r.busy += hi.Sub(lo)
		}
	}
	return r
}

// mean is the average of l, 0 when empty.
func (l latencies) mean() time.Duration {
	if len(l) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range l {
		sum += d
	}
	return sum / time.Duration(len(l))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// handOverMany hands n sessions over from a few goroutines and returns their ids.
func handOverMany(b *testing.B, e *env, n int) []string {
	ctx := context.Background()
	sessions := make([]string, n)
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		fail atomic.Pointer[error]
	)
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || fail.Load() != nil {
					return
				}
				id, body := e.next()
				if _, err := e.handOver(ctx, id, body); err != nil {
					fail.Store(&err)
					return
				}
				sessions[i] = id
			}
		})
	}
	wg.Wait()
	if err := fail.Load(); err != nil {
		b.Fatal(*err)
	}
	return sessions
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
				llm, err := llmextract.New(llmextract.Config{BaseURL: p.server.URL(), APIKey: "bench-key", Model: "gpt-4o-mini",
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
func benchDrain(b *testing.B, bk backend, llm *llmextract.Extractor, p *limitedProvider, n int) {
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
		river.AddWorker(workers, river.Worker[queue.ExtractArgs](reportingWorker{jobs.NewExtractWorker(deps), done}))
		w, err := queue.New(e.st, queue.Config{
			Concurrency:       map[string]int{queue.QueueExtract: slowConcurrency},
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
