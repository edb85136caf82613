package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
)

// parallelism is RunParallel's goroutines per GOMAXPROCS: sixteen callers
// on a 2-core machine, as several chat-service instances would be.
const parallelism = 8

// serviceToken is the bearer token of the benchmark's chat service.
const serviceToken = "bench-service-token-0123456789"

// BenchmarkHandoff hands over 5 KB Mona sessions, one new session per
// operation, through the HTTP API (http) and through the same calls the
// handler makes without HTTP (inprocess), each on a fresh database.
func BenchmarkHandoff(b *testing.B) {
	for _, bk := range backends() {
		b.Run(bk.name, func(b *testing.B) {
			// The databases and the server outlive the sub-benchmarks' runs
			// of growing b.N, whose cleanups run after each.
			viaHTTP, direct := newEnv(b, bk), newEnv(b, bk)
			c := newClient(b, serveAPI(b, viaHTTP))
			b.Run("http", func(b *testing.B) {
				benchHandoff(b, viaHTTP, c.closeSession)
			})
			b.Run("inprocess", func(b *testing.B) {
				benchHandoff(b, direct, direct.closeSession)
			})
		})
	}
}

// benchHandoff runs closeSession in parallel and reports throughput,
// latency, and the process's CPU time per handoff (for http, client included).
func benchHandoff(b *testing.B, e *env, closeSession func(ctx context.Context, id string, body []byte) error) {
	ctx := context.Background()
	var (
		mu  sync.Mutex
		all latencies
	)
	b.SetParallelism(parallelism)
	u0 := readUsage(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var mine latencies
		for pb.Next() {
			id, body := e.next()
			start := time.Now()
			if err := closeSession(ctx, id, body); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(start))
		}
		mu.Lock()
		all = append(all, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	u := readUsage(b).since(u0)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	all.report(b)
	u.report(b, b.N, "op", b.Elapsed())
}

// BenchmarkHandoffAt80 measures the HTTP handoff's peak rate with as many
// callers as BenchmarkHandoff, in a closed loop, then sends b.N handoffs in
// an open loop at 80 % of that rate and reports their latency from the
// moment each was due, so that a stalled server cannot hide its queue (no
// coordinated omission).
func BenchmarkHandoffAt80(b *testing.B) {
	const (
		warmup  = time.Second
		measure = 3 * time.Second
	)
	// As many callers as BenchmarkHandoff's RunParallel has.
	callers := parallelism * runtime.GOMAXPROCS(0)
	for _, bk := range backends() {
		b.Run(bk.name, func(b *testing.B) {
			e := newEnv(b, bk)
			c := newClient(b, serveAPI(b, e))
			send := func(ctx context.Context) error {
				id, body := e.next()
				return c.closeSession(ctx, id, body)
			}
			ctx := context.Background()
			if _, err := closedLoop(ctx, callers, warmup, send); err != nil {
				b.Fatal(err)
			}
			peak, err := closedLoop(ctx, callers, measure, send)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: peak %.0f req/s with %d callers over %s", bk.name, peak, callers, measure)
			b.Run("http", func(b *testing.B) {
				rate := 0.8 * peak
				u0 := readUsage(b)
				lat, elapsed, err := openLoop(ctx, rate, b.N, send)
				if err != nil {
					b.Fatal(err)
				}
				readUsage(b).since(u0).report(b, b.N, "op", elapsed)
				b.ReportMetric(peak, "peak-req/s")
				b.ReportMetric(rate, "target-req/s")
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
				lat.report(b)
				b.ReportMetric(ms(lat.quantile(1)), "max-ms")
			})
		})
	}
}

// closedLoop runs send from n goroutines for d and returns the rate achieved.
func closedLoop(ctx context.Context, n int, d time.Duration, send func(context.Context) error) (float64, error) {
	var (
		done  atomic.Int64
		wg    sync.WaitGroup
		first atomic.Pointer[error]
	)
	start := time.Now()
	deadline := start.Add(d)
	for range n {
		wg.Go(func() {
			for time.Now().Before(deadline) && first.Load() == nil {
				if err := send(ctx); err != nil {
					first.CompareAndSwap(nil, &err)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if err := first.Load(); err != nil {
		return 0, *err
	}
	return float64(done.Load()) / time.Since(start).Seconds(), nil
}

// openLoop starts n sends at a constant rate, whatever the earlier ones are
// doing, and returns each one's latency from the moment it was due.
func openLoop(ctx context.Context, rate float64, n int, send func(context.Context) error) (latencies, time.Duration, error) {
	lat := make(latencies, n)
	interval := time.Duration(float64(time.Second) / rate)
	var (
		wg    sync.WaitGroup
		first atomic.Pointer[error]
	)
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		// Pacing, not waiting for work: a late tick sends at once and the
		// schedule catches up, so the average rate holds.
		if d := time.Until(due); d > 0 {
			<-time.After(d)
		}
		wg.Go(func() {
			if err := send(ctx); err != nil {
				first.CompareAndSwap(nil, &err)
			}
			lat[i] = time.Since(due)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := first.Load(); err != nil {
		return nil, 0, *err
	}
	return lat, elapsed, nil
}

// next returns a new session id and the body of one of the env's users.
func (e *env) next() (string, []byte) {
	n := e.seq.Add(1)
	return "s-" + strconv.FormatInt(n, 10), e.bodies[n%int64(len(e.bodies))]
}

// serveAPI serves e's API as the worker does, with service-token auth on, on
// a loopback port, and returns its base URL.
func serveAPI(b *testing.B, e *env) string {
	b.Helper()
	log := infoLogger()
	srv := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: serviceToken}}, Logger: log})
	srv.Mount(api.Data{Store: e.st, Handoff: e.handoffDeps(), MaxBodyBytes: 4 << 20})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
		ErrorLog: slog.NewLogLogger(slog.NewTextHandler(os.Stderr, nil), slog.LevelWarn)}
	go func() { _ = hs.Serve(ln) }()
	b.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

// client is a chat service's HTTP client: keep-alive, a connection per caller.
type client struct {
	hc   *http.Client
	base string
}

func newClient(b *testing.B, base string) *client {
	tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: time.Minute, DisableCompression: true}
	b.Cleanup(tr.CloseIdleConnections)
	return &client{hc: &http.Client{Transport: tr, Timeout: time.Minute}, base: base}
}

// closeSession POSTs body as session id's close and expects 202.
func (c *client) closeSession(ctx context.Context, id string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/sessions/"+id+"/close", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+serviceToken)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("close %s: %s: %s", id, resp.Status, msg)
	}
	return nil
}
