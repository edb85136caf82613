package bench

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/mnemo-ai/mnemo/internal/pgbouncertest"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// BenchmarkE2E is the end-to-end benchmark of issue 14: a real `worker
// serve` process (built from ./cmd/worker), N Mona sessions handed over by
// HTTP from C concurrent callers, timed until every session is processed.
// Beside it, in the same run, River's own baseline on the same PostgreSQL
// server (a transaction of a 5 KB row plus InsertTx; no-op jobs worked), and
// the statements and round trips per handoff and per extraction counted by a
// pgx tracer on an in-process wiring (the HTTP API and the extraction worker
// on a traced pool). It prints one table at the end.
//
// Run it with -benchtime 1x; each sub-benchmark does its whole run once:
//
//	go test ./bench -run '^$' -bench E2E -benchtime 1x -timeout 60m
//
// Settings (environment):
//
//	MNEMO_BENCH_N         sessions per run (2000)
//	MNEMO_BENCH_C         concurrent HTTP callers, and baseline goroutines (64)
//	MNEMO_BENCH_BACKENDS  postgres,sqlite
//	MNEMO_BENCH_CONFIGS   worker settings to run, ';'-separated; each is
//	                      "default" or space-separated extract=N poll=D
//	                      pool=N (pool: Postgres connections, pool_max_conns)
//	                      cooldown=D, paused, pgbouncer[=N] (Postgres through
//	                      a real PgBouncer in transaction pooling, N server
//	                      connections, 20 by default; MNEMO_PG_POOLER=transaction)
//	                      ("default; extract=128 poll=20ms pool=64")
func BenchmarkE2E(b *testing.B) {
	n := envInt("MNEMO_BENCH_N", 2000)
	c := envInt("MNEMO_BENCH_C", 64)
	backendsWanted := envStr("MNEMO_BENCH_BACKENDS", "postgres,sqlite")
	configs := strings.Split(envStr("MNEMO_BENCH_CONFIGS", "default; extract=128 poll=20ms pool=64"), ";")
	bin := buildWorker(b)
	fmt.Printf("e2e: N=%d sessions, C=%d callers, nproc=%d, GOMAXPROCS=%d\n", n, c, runtime.NumCPU(), runtime.GOMAXPROCS(0))

	var rows []e2eRow
	var base baseline
	pgURL := os.Getenv("TEST_DATABASE_URL")
	if strings.Contains(backendsWanted, "postgres") && pgURL != "" {
		b.Run("baseline/postgres", func(b *testing.B) {
			base = riverBaseline(b, n, c)
		})
		b.Run("statements/postgres", func(b *testing.B) {
			st := countStatements(b, min(n, 500))
			base.stmts = &st
		})
	}
	for _, bkName := range []string{store.DialectPostgres, store.DialectSQLite} {
		if !strings.Contains(backendsWanted, bkName) || (bkName == store.DialectPostgres && pgURL == "") {
			continue
		}
		for _, cfg := range configs {
			cfg = strings.TrimSpace(cfg)
			if cfg == "" {
				continue
			}
			b.Run(bkName+"/"+strings.ReplaceAll(cfg, " ", ","), func(b *testing.B) {
				r := runE2E(b, bin, bkName, cfg, n, c)
				rows = append(rows, r)
			})
		}
	}
	printE2E(os.Stdout, n, c, base, rows)
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envStr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// buildWorker builds ./cmd/worker into a temporary directory.
func buildWorker(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "worker")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/worker")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("build worker: %v", err)
	}
	return bin
}

// e2eRow is one end-to-end run.
type e2eRow struct {
	backend, config string
	handoffRate     float64
	p50, p99        time.Duration
	sessionsRate    float64
	failed          int
	workerCPU       time.Duration
	pgOwnCPU        time.Duration // backends of the run's database
	pgAllCPU        time.Duration // every postgres process on the host
	hostBusy        float64
	pgConns         int
	elapsed         time.Duration
	tuning          string // the worker's "queue tuning" log line
	paced           pacedRun
}

// pacedRun is handoffs sent at a set rate with the extract queue paused.
type pacedRun struct {
	rate, achieved float64
	p50, p99       time.Duration
}

// pacedHandoffs hands over n more sessions ("paced-…") at rate a second,
// open loop, and measures their latency.
func pacedHandoffs(ctx context.Context, b *testing.B, hc *http.Client, base string, bodies [][]byte, n int, rate float64) pacedRun {
	var (
		mu   sync.Mutex
		lat  = make(latencies, 0, n)
		errs atomic.Int64
		wg   sync.WaitGroup
	)
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	for i := range n {
		// Send the i-th request at start + i×interval.
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			<-time.After(d)
		}
		wg.Go(func() {
			id := fmt.Sprintf("paced-%d", i)
			t0 := time.Now()
			if err := postClose(ctx, hc, base, id, bodies[i%len(bodies)]); err != nil {
				if errs.Add(1) == 1 {
					b.Errorf("handoff %s: %v", id, err)
				}
				return
			}
			d := time.Since(t0)
			mu.Lock()
			lat = append(lat, d)
			mu.Unlock()
		})
	}
	wg.Wait()
	took := time.Since(start)
	if errs.Load() > 0 {
		b.Fatalf("%d paced handoffs failed", errs.Load())
	}
	return pacedRun{rate: rate, achieved: float64(n) / took.Seconds(), p50: lat.quantile(0.5), p99: lat.quantile(0.99)}
}

// queueCLI pauses or resumes the extract queue with the worker's own
// command, against the running worker's database. River knows a queue once
// its producer has started, so a pause is tried again until it is.
func queueCLI(b *testing.B, bin string, env []string, action string) {
	var out []byte
	var err error
	for range 200 {
		cmd := exec.Command(bin, "queues", action, "extract")
		cmd.Env = env
		if out, err = cmd.CombinedOutput(); err == nil {
			return
		}
		<-time.After(50 * time.Millisecond)
	}
	b.Fatalf("queues %s extract: %v\n%s", action, err, out)
}

// queueTuning is the settings the worker logged it runs with.
func queueTuning(logPath string) string {
	raw, _ := os.ReadFile(logPath)
	for line := range strings.Lines(string(raw)) {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["msg"] != "queue tuning" {
			continue
		}
		return fmt.Sprintf("concurrency %v; cooldown %v; poll %v; pool %v", m["concurrency"], m["fetch_cooldown"], m["poll_interval"], m["db_pool"])
	}
	return "(no queue tuning line logged)"
}

// runE2E starts `worker serve` on a fresh database with the settings cfg,
// hands over n sessions from c callers and waits until all are processed.
func runE2E(b *testing.B, bin, bk, cfg string, n, c int) e2eRow {
	ctx := context.Background()
	env := append(os.Environ(),
		"MNEMO_ENCRYPTION_KEY="+benchKey,
		"MNEMO_API_TOKENS=service:"+serviceToken,
		"MNEMO_LOG_FORMAT=json",
	)
	paused := false
	pgbouncer := 0 // PgBouncer's server connections; 0: none
	for _, kv := range strings.Fields(cfg) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "default":
		case "paused":
			// The handoff alone: the extract queue is paused while the
			// sessions are handed over, at full speed and then at 80 % of
			// that peak, and resumed afterwards.
			paused = true
		case "extract":
			env = append(env, "MNEMO_CONCURRENCY=extract="+v)
		case "poll":
			env = append(env, "MNEMO_POLL_INTERVAL="+v)
		case "pool":
			env = append(env, "MNEMO_DB_POOL_SIZE="+v)
		case "cooldown":
			env = append(env, "MNEMO_FETCH_COOLDOWN="+v)
		case "pgbouncer":
			// Postgres through a real PgBouncer in transaction pooling,
			// with v server connections (default 20), the worker set for
			// it (MNEMO_PG_POOLER=transaction: poll-only River, no named
			// prepared statements).
			pgbouncer = 20
			if v != "" {
				if pgbouncer, _ = strconv.Atoi(v); pgbouncer < 1 {
					b.Fatalf("config %q: pgbouncer=%q is not a pool size", cfg, v)
				}
			}
			env = append(env, "MNEMO_PG_POOLER=transaction")
		default:
			b.Fatalf("config %q: unknown setting %q", cfg, k)
		}
	}
	var (
		dbURL  string
		count  func() (processed, failed int, err error)
		pgPids func() []int
		admin  *pgxpool.Pool
	)
	switch bk {
	case store.DialectPostgres:
		admin, dbURL = scratchDatabase(b)
		count = func() (int, int, error) {
			var p, f int
			err := admin.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'processed'), count(*) FILTER (WHERE status = 'failed') FROM mnemo_sessions`).Scan(&p, &f)
			return p, f, err
		}
		pgPids = func() []int { return backendPids(ctx, b, admin) }
		if pgbouncer > 0 {
			bin := pgbouncertest.Binary()
			if bin == "" {
				b.Fatalf("config %q: pgbouncer is not installed (apt-get install pgbouncer)", cfg)
			}
			dbURL = pgbouncertest.Start(b, bin, dbURL, "", pgbouncer)
		}
	default:
		if pgbouncer > 0 {
			b.Skipf("config %q: PgBouncer is for Postgres", cfg)
		}
		path := filepath.Join(b.TempDir(), "mnemo.db")
		dbURL = "sqlite://" + path
		var db *sql.DB
		count = func() (int, int, error) {
			if db == nil {
				var err error
				if db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)"); err != nil {
					return 0, 0, err
				}
				db.SetMaxOpenConns(1)
				b.Cleanup(func() { _ = db.Close() })
			}
			var p, f int
			err := db.QueryRowContext(ctx, `SELECT count(CASE WHEN status = 'processed' THEN 1 END), count(CASE WHEN status = 'failed' THEN 1 END) FROM mnemo_sessions`).Scan(&p, &f)
			return p, f, err
		}
		pgPids = func() []int { return nil }
	}
	addr := freeAddr(b)
	env = append(env, "DATABASE_URL="+dbURL, "MNEMO_LISTEN="+addr)
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	logPath := filepath.Join(b.TempDir(), "worker.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	b.Cleanup(stop)
	base := "http://" + addr
	waitReady(b, base, logPath)
	tuning := queueTuning(logPath)
	fmt.Printf("e2e: %s %s: %s\n", bk, cfg, tuning)

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}}
	bodies := newEnvBodies(b)
	if paused {
		queueCLI(b, bin, env, "pause")
	}
	runtime.GC()
	wc0 := procCPU(cmd.Process.Pid)
	own0 := map[int]time.Duration{}
	for _, p := range pgPids() {
		own0[p] = procCPU(p)
	}
	all0 := postgresCPU()
	host0 := readUsage(b)
	start := time.Now()

	// Handoffs: c callers share n sessions.
	var (
		next atomic.Int64
		mu   sync.Mutex
		lat  = make(latencies, 0, n)
		errs atomic.Int64
		wg   sync.WaitGroup
	)
	for range c {
		wg.Go(func() {
			var mine latencies
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					break
				}
				id := fmt.Sprintf("e2e-%d", i)
				t0 := time.Now()
				if err := postClose(ctx, hc, base, id, bodies[i%len(bodies)]); err != nil {
					if errs.Add(1) == 1 {
						b.Errorf("handoff %s: %v", id, err)
					}
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	handoffTook := time.Since(start)
	if errs.Load() > 0 {
		b.Fatalf("%d handoffs failed; worker stderr:\n%s", errs.Load(), tail(logPath))
	}
	total := n
	var paced pacedRun
	if paused {
		// As many sessions again, arriving at 80 % of the peak just measured
		// (open loop: a request is sent on time whether or not the earlier
		// ones were answered), for the latency a service sees below peak.
		paced = pacedHandoffs(ctx, b, hc, base, bodies, n, 0.8*float64(n)/handoffTook.Seconds())
		total = 2 * n
		start = time.Now()
		queueCLI(b, bin, env, "resume")
	}

	// Until every session is processed (or failed), polling with a deadline.
	deadline := time.Now().Add(time.Duration(max(120, n/5)) * time.Second)
	var processed, failed int
	for {
		var err error
		processed, failed, err = count()
		if err != nil {
			b.Fatal(err)
		}
		if processed+failed >= total {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d sessions processed, %d failed, at the deadline; worker stderr:\n%s", processed, total, failed, tail(logPath))
		}
		<-time.After(20 * time.Millisecond)
	}
	elapsed := time.Since(start)
	host := readUsage(b).since(host0)
	wc := procCPU(cmd.Process.Pid) - wc0
	pids := pgPids()
	var own time.Duration
	for _, p := range pids {
		own += procCPU(p) - own0[p]
	}
	all := postgresCPU() - all0
	stop()

	r := e2eRow{backend: bk, config: cfg, handoffRate: float64(n) / handoffTook.Seconds(),
		p50: lat.quantile(0.5), p99: lat.quantile(0.99), sessionsRate: float64(total) / elapsed.Seconds(),
		failed: failed, workerCPU: wc / time.Duration(total), pgOwnCPU: own / time.Duration(total), pgAllCPU: all / time.Duration(total),
		pgConns: len(pids), elapsed: elapsed, tuning: tuning, paced: paced}
	if host.total > 0 {
		r.hostBusy = 100 * float64(host.busy) / float64(host.total)
	}
	b.ReportMetric(r.handoffRate, "handoff-req/s")
	b.ReportMetric(ms(r.p50), "p50-ms")
	b.ReportMetric(ms(r.p99), "p99-ms")
	b.ReportMetric(r.sessionsRate, "sessions/s")
	b.ReportMetric(ms(r.workerCPU), "worker-cpu-ms/session")
	if bk == store.DialectPostgres {
		b.ReportMetric(ms(r.pgOwnCPU), "pg-cpu-ms/session")
	}
	b.ReportMetric(r.hostBusy, "host-busy-%")
	b.ReportMetric(float64(failed), "failed")
	return r
}

// newEnvBodies is users' Mona session bodies, as newEnv makes them.
func newEnvBodies(b *testing.B) [][]byte {
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	out := make([][]byte, 0, users)
	for i := range users {
		body, err := json.Marshal(monaSession(userID(i), t0))
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, body)
	}
	return out
}

func postClose(ctx context.Context, hc *http.Client, base, id string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/sessions/"+id+"/close", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+serviceToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%d: %s", resp.StatusCode, raw)
	}
	return nil
}

func waitReady(b *testing.B, base string, logPath string) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("worker not ready after 60 s; stderr:\n%s", tail(logPath))
		}
		<-time.After(50 * time.Millisecond)
	}
}

// tail is the end of the file at path.
func tail(path string) string {
	raw, _ := os.ReadFile(path)
	s := string(raw)
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}

func freeAddr(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// scratchDatabase creates a database of its own on TEST_DATABASE_URL's
// server, dropped at cleanup, and returns a small pool on it and its URL.
func scratchDatabase(b *testing.B) (*pgxpool.Pool, string) {
	ctx := context.Background()
	raw := os.Getenv("TEST_DATABASE_URL")
	u, err := url.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, raw)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("mnemo_e2e_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), raw)
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	})
	u.Path = "/" + name
	q := u.Query()
	if q.Get("sslmode") == "" {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	dbURL := u.String()
	pool, err := pgxpool.New(ctx, dbURL+"&pool_max_conns=2")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool, dbURL
}

// clockTick is /proc's unit of CPU time (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU is a process's user + system CPU time from /proc/<pid>/stat, 0
// when it is gone.
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(raw), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	// rest starts at field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * clockTick
}

// postgresCPU sums the CPU time of every process named postgres.
func postgresCPU() time.Duration {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		sum += procCPU(pid)
	}
	return sum
}

// baseline is River's own figures on the same server.
type baseline struct {
	txRate, txP50, txP99 float64
	txCPU, txPgCPU       time.Duration
	jobRate              float64
	jobCPU, jobPgCPU     time.Duration
	stmts                *stmtCounts
}

type noopArgs struct{}

func (noopArgs) Kind() string { return "e2e_noop" }

type noopWorker struct {
	river.WorkerDefaults[noopArgs]
}

func (noopWorker) Work(context.Context, *river.Job[noopArgs]) error { return nil }

// riverBaseline measures, on a fresh database with a pool of c
// connections: n transactions each inserting a 5 KB row and a River job
// (InsertTx) from c goroutines; then n no-op jobs worked by a River client
// of 100 workers with a 20 ms fetch cooldown. CPU figures are per operation: this
// process's (getrusage), and the run database's PostgreSQL backends'.
func riverBaseline(b *testing.B, n, c int) baseline {
	ctx := context.Background()
	admin, dbURL := scratchDatabase(b)
	pool, err := pgxpool.New(ctx, dbURL+"&pool_max_conns="+strconv.Itoa(c))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	st := store.PostgresFromPool(pool)
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE scratch (id bigserial PRIMARY KEY, body text NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, noopWorker{})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Workers:           workers,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 100}},
		FetchCooldown:     20 * time.Millisecond,
		FetchPollInterval: 100 * time.Millisecond,
		Logger:            infoLogger(),
	})
	if err != nil {
		b.Fatal(err)
	}
	ownPids := func() []int { return backendPids(ctx, b, admin) }
	pgSample := func() map[int]time.Duration {
		m := map[int]time.Duration{}
		for _, p := range ownPids() {
			m[p] = procCPU(p)
		}
		return m
	}
	pgSince := func(m0 map[int]time.Duration) time.Duration {
		var d time.Duration
		for p, v := range pgSample() {
			d += v - m0[p]
		}
		return d
	}
	body := strings.Repeat("x", 5<<10)
	// Warm the pool so that connection start-up is not measured.
	var wg sync.WaitGroup
	for range c {
		wg.Go(func() { _, _ = pool.Exec(ctx, "SELECT 1") })
	}
	wg.Wait()

	var out baseline
	// (a) transactions: a 5 KB row plus InsertTx.
	runtime.GC()
	u0, pg0 := readUsage(b), pgSample()
	var (
		next atomic.Int64
		mu   sync.Mutex
		lat  = make(latencies, 0, n)
	)
	start := time.Now()
	for range c {
		wg.Go(func() {
			var mine latencies
			for next.Add(1) <= int64(n) {
				t0 := time.Now()
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, `INSERT INTO scratch (body) VALUES ($1)`, body); err != nil {
						return err
					}
					_, err := client.InsertTx(ctx, tx, noopArgs{}, nil)
					return err
				})
				if err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	took := time.Since(start)
	out.txRate = float64(n) / took.Seconds()
	out.txP50, out.txP99 = ms(lat.quantile(0.5)), ms(lat.quantile(0.99))
	out.txCPU = readUsage(b).since(u0).cpu / time.Duration(n)
	out.txPgCPU = pgSince(pg0) / time.Duration(n)

	// (b) n no-op jobs, inserted above, worked.
	events, cancel := client.Subscribe(river.EventKindJobCompleted)
	defer cancel()
	runtime.GC()
	u0, pg0 = readUsage(b), pgSample()
	start = time.Now()
	if err := client.Start(ctx); err != nil {
		b.Fatal(err)
	}
	deadline := time.After(5 * time.Minute)
	for done := 0; done < n; {
		select {
		case <-events:
			done++
		case <-deadline:
			b.Fatalf("%d of %d no-op jobs worked after 5 minutes", done, n)
		}
	}
	took = time.Since(start)
	out.jobRate = float64(n) / took.Seconds()
	out.jobCPU = readUsage(b).since(u0).cpu / time.Duration(n)
	out.jobPgCPU = pgSince(pg0) / time.Duration(n)
	if err := client.Stop(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(out.txRate, "tx/s")
	b.ReportMetric(out.jobRate, "jobs/s")
	return out
}

// stmtCounts are statements and round trips per handoff and per extraction.
type stmtCounts struct {
	n                            int
	handoffStmts, handoffRTs     float64
	extractStmts, extractRTs     float64
	idleStmtsPerSec              float64
	handoffByKind, extractByKind map[string]float64
	extractConcurrency           int
	extractPoll                  time.Duration
}

// countTracer counts what a pgx pool sends: every Query/Exec (Begin and
// Commit among them) is one statement and one round trip; a batch is one
// round trip of its queries; a COPY is one of each.
type countTracer struct {
	on                  atomic.Bool
	queries, batches    atomic.Int64
	batchQueries, copys atomic.Int64
	mu                  sync.Mutex
	kinds               map[string]int
}

func (t *countTracer) kind(sql string) {
	k := "?"
	for line := range strings.Lines(sql) {
		line = strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(line, "-- name: "); ok {
			// River's generated queries: "-- name: JobGetAvailable :many".
			k = "river:" + strings.Fields(name)[0]
			break
		}
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		k = strings.ToUpper(strings.Fields(line)[0])
		break
	}
	t.mu.Lock()
	t.kinds[k]++
	t.mu.Unlock()
}

func (t *countTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if t.on.Load() {
		t.queries.Add(1)
		t.kind(d.SQL)
	}
	return ctx
}
func (t *countTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (t *countTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	if t.on.Load() {
		t.batches.Add(1)
	}
	return ctx
}
func (t *countTracer) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	if t.on.Load() {
		t.batchQueries.Add(1)
		t.kind(d.SQL)
	}
}
func (t *countTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
func (t *countTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	if t.on.Load() {
		t.copys.Add(1)
		t.kind("COPY")
	}
	return ctx
}
func (t *countTracer) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}

// take returns statements, round trips and statements by first word since
// the last take, and resets the counts.
func (t *countTracer) take() (stmts, rts int64, kinds map[string]int) {
	q, bt, bq, cp := t.queries.Swap(0), t.batches.Swap(0), t.batchQueries.Swap(0), t.copys.Swap(0)
	t.mu.Lock()
	kinds, t.kinds = t.kinds, map[string]int{}
	t.mu.Unlock()
	return q + bq + cp, q + bt + cp, kinds
}

func perOp(kinds map[string]int, n int) map[string]float64 {
	out := map[string]float64{}
	for k, v := range kinds {
		out[k] = float64(v) / float64(n)
	}
	return out
}

// countStatements hands n sessions over through the HTTP API served in
// process (no worker running), then extracts them with the rules on an
// extraction worker of 16 slots polling every 50 ms, counting what the
// traced pool sends in each phase; and counts River's idle statements over
// one second with nothing to do.
func countStatements(b *testing.B, n int) stmtCounts {
	ctx := context.Background()
	tr := &countTracer{kinds: map[string]int{}}
	bk := backend{name: store.DialectPostgres, open: func(b *testing.B) store.Store {
		schema := storetest.PostgresSchema(b)
		cfg, err := store.PostgresConfig(os.Getenv("TEST_DATABASE_URL"), schema, 0)
		if err != nil {
			b.Fatal(err)
		}
		cfg.ConnConfig.Tracer = tr
		st, err := store.OpenPostgres(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		if _, err := st.MigrateUp(ctx); err != nil {
			b.Fatal(err)
		}
		migrateRiver(b, st)
		return st
	}}
	e := newEnv(b, bk)
	c := newClient(b, serveAPI(b, e))
	tr.take()
	tr.on.Store(true)
	for range n {
		id, body := e.next()
		if err := c.closeSession(ctx, id, body); err != nil {
			b.Fatal(err)
		}
	}
	tr.on.Store(false)
	out := stmtCounts{n: n, extractConcurrency: 16, extractPoll: 50 * time.Millisecond}
	s, r, k := tr.take()
	out.handoffStmts, out.handoffRTs, out.handoffByKind = float64(s)/float64(n), float64(r)/float64(n), perOp(k, n)

	done := make(chan worked, n*5)
	deps := &jobs.Deps{Store: e.st, Apps: e.apps, Keys: e.keys, Logger: infoLogger()}
	workers := river.NewWorkers()
	river.AddWorker(workers, river.Worker[queue.ExtractArgs](reportingWorker{jobs.NewExtractWorker(deps), done}))
	w, err := queue.New(e.st, queue.Config{
		Concurrency:       map[string]int{queue.QueueExtract: out.extractConcurrency},
		Workers:           workers,
		FetchPollInterval: out.extractPoll,
		JobTimeout:        time.Minute,
		Logger:            infoLogger(),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = w.StopAndCancel(context.Background()) })
	tr.on.Store(true)
	if err := w.Start(ctx); err != nil {
		b.Fatal(err)
	}
	waitWork(b, done, n)
	// River's completer marks jobs completed in batches shortly after; let
	// its last batch be counted: wait until no job is left uncompleted.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left int
		if err := e.st.(*store.Postgres).Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state <> 'completed'`).Scan(&left); err != nil {
			b.Fatal(err)
		}
		if left == 0 || time.Now().After(deadline) {
			break
		}
		<-time.After(20 * time.Millisecond)
	}
	tr.on.Store(false)
	s, r, k = tr.take()
	// The polling query above went through the traced pool too; it is
	// counted under SELECT and is at most a few per run.
	out.extractStmts, out.extractRTs, out.extractByKind = float64(s)/float64(n), float64(r)/float64(n), perOp(k, n)
	// Idle: what River sends with nothing to do, per second.
	tr.on.Store(true)
	<-time.After(time.Second)
	tr.on.Store(false)
	s, _, _ = tr.take()
	out.idleStmtsPerSec = float64(s)
	b.ReportMetric(out.handoffStmts, "stmts/handoff")
	b.ReportMetric(out.handoffRTs, "round-trips/handoff")
	b.ReportMetric(out.extractStmts, "stmts/extraction")
	b.ReportMetric(out.extractRTs, "round-trips/extraction")
	return out
}

func kindsString(m map[string]float64) string {
	type kv struct {
		k string
		v float64
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if all[j].v > all[i].v || (all[j].v == all[i].v && all[j].k < all[i].k) {
				all[i], all[j] = all[j], all[i]
			}
		}
	}
	var parts []string
	for _, p := range all {
		if p.v < 0.005 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", p.k, p.v))
	}
	return strings.Join(parts, ", ")
}

// printE2E prints the run's tables in Markdown.
func printE2E(w io.Writer, n, c int, base baseline, rows []e2eRow) {
	fmt.Fprintf(w, "\n### End to end: %d Mona sessions, %d HTTP callers\n\n", n, c)
	fmt.Fprintln(w, "| backend | settings | handoff req/s | p50 ms | p99 ms | sessions/s | worker CPU ms/session | PG CPU ms/session (own backends) | all postgres CPU ms/session | host busy % | PG conns | failed |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range rows {
		pg, pgAll, conns := "–", "–", "–"
		if r.backend == store.DialectPostgres {
			pg, pgAll, conns = fmt.Sprintf("%.2f", ms(r.pgOwnCPU)), fmt.Sprintf("%.2f", ms(r.pgAllCPU)), strconv.Itoa(r.pgConns)
		}
		fmt.Fprintf(w, "| %s | %s | %.0f | %.1f | %.1f | %.0f | %.2f | %s | %s | %.0f | %s | %d |\n", r.backend, r.config,
			r.handoffRate, ms(r.p50), ms(r.p99), r.sessionsRate, ms(r.workerCPU), pg, pgAll, r.hostBusy, conns, r.failed)
	}
	var pacedRows []e2eRow
	for _, r := range rows {
		if r.paced.rate > 0 {
			pacedRows = append(pacedRows, r)
		}
	}
	if len(pacedRows) > 0 {
		fmt.Fprintln(w, "\nThe handoff alone (`paused`: the extract queue paused while the sessions are handed over, then resumed; sessions/s above is then the drain of both sets):")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| backend | settings | peak req/s | p50 / p99 ms at peak | paced at 80 % of peak, req/s sent | p50 / p99 ms at 80 % |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
		for _, r := range pacedRows {
			fmt.Fprintf(w, "| %s | %s | %.0f | %.1f / %.1f | %.0f | %.1f / %.1f |\n", r.backend, r.config, r.handoffRate, ms(r.p50), ms(r.p99),
				r.paced.achieved, ms(r.paced.p50), ms(r.paced.p99))
		}
	}
	fmt.Fprintln(w, "\nThe settings each worker logged it ran with (\"queue tuning\"):")
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "- %s, %s: %s\n", r.backend, r.config, r.tuning)
	}
	if base.txRate > 0 {
		fmt.Fprintf(w, "\n### River baseline (PostgreSQL, pool %d, %d goroutines)\n\n", c, c)
		fmt.Fprintln(w, "| baseline | rate | p50 ms | p99 ms | client CPU ms/op | PG CPU ms/op |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
		fmt.Fprintf(w, "| tx: INSERT 5 KB row + InsertTx | %.0f tx/s | %.1f | %.1f | %.3f | %.3f |\n", base.txRate, base.txP50, base.txP99, ms(base.txCPU), ms(base.txPgCPU))
		fmt.Fprintf(w, "| no-op jobs worked (100 workers, fetch cooldown 20 ms) | %.0f jobs/s | | | %.3f | %.3f |\n", base.jobRate, ms(base.jobCPU), ms(base.jobPgCPU))
		fmt.Fprintln(w, "\n| backend | settings | handoff ÷ baseline tx | sessions/s ÷ no-op jobs/s |")
		fmt.Fprintln(w, "| --- | --- | --- | --- |")
		for _, r := range rows {
			fmt.Fprintf(w, "| %s | %s | %.0f %% | %.1f %% |\n", r.backend, r.config, 100*r.handoffRate/base.txRate, 100*r.sessionsRate/base.jobRate)
		}
	}
	if s := base.stmts; s != nil {
		fmt.Fprintf(w, "\n### Statements and round trips (PostgreSQL, pgx tracer, %d sessions)\n\n", s.n)
		fmt.Fprintln(w, "| phase | statements | round trips | by first word |")
		fmt.Fprintln(w, "| --- | --- | --- | --- |")
		fmt.Fprintf(w, "| per handoff (HTTP API in process) | %.2f | %.2f | %s |\n", s.handoffStmts, s.handoffRTs, kindsString(s.handoffByKind))
		fmt.Fprintf(w, "| per extraction (rules, %d slots, poll %s; River's fetch and completion included) | %.2f | %.2f | %s |\n",
			s.extractConcurrency, s.extractPoll, s.extractStmts, s.extractRTs, kindsString(s.extractByKind))
		fmt.Fprintf(w, "| River idle, per second | %.0f | | |\n", s.idleStmtsPerSec)
	}
}

// backendPids are the PostgreSQL backends connected to admin's database,
// admin's own aside: whose CPU a run costs the server.
func backendPids(ctx context.Context, b *testing.B, admin *pgxpool.Pool) []int {
	rows, err := admin.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	out := make([]int, len(pids))
	for i, p := range pids {
		out[i] = int(p)
	}
	return out
}
