package bench

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/store"
)

// The scale benchmarks of issue 25: what Mnemo costs as its data grows.
// Each fills a fresh database with `worker gen` (a scratch database on the
// PostgreSQL server of TEST_DATABASE_URL, or a SQLite file) and drives
// real `worker` processes built from ./cmd/worker. They are long: each
// runs only when MNEMO_BENCH_SCALE=1, and is run with -benchtime 1x:
//
//	MNEMO_BENCH_SCALE=1 TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' \
//	    go test ./bench -run '^$' -bench 'Scale' -benchtime 1x -timeout 120m
//
// MNEMO_BENCH_BACKENDS (postgres,sqlite) picks the databases. The results
// are in docs/benchmarks.md, "Cost against data size (issue 25)".

// scaleKey is the key every process of a scale run shares.
const scaleKey = "scale:a passphrase for the scale benchmarks"

func scaleEnabled(b *testing.B) {
	if os.Getenv("MNEMO_BENCH_SCALE") != "1" {
		b.Skip("a long benchmark: set MNEMO_BENCH_SCALE=1 to run it")
	}
}

// scaleDB is one fresh database of a scale run.
type scaleDB struct {
	backend string
	url     string
	pool    *pgxpool.Pool // Postgres
	path    string        // SQLite
	env     []string
	bin     string
}

// scaleBackends are the backends a scale run asks for and has.
func scaleBackends() []string {
	var out []string
	want := envStr("MNEMO_BENCH_BACKENDS", "postgres,sqlite")
	for _, bk := range []string{store.DialectPostgres, store.DialectSQLite} {
		if strings.Contains(want, bk) && (bk != store.DialectPostgres || os.Getenv("TEST_DATABASE_URL") != "") {
			out = append(out, bk)
		}
	}
	return out
}

func newScaleDB(b *testing.B, bin, backend string) *scaleDB {
	d := &scaleDB{backend: backend, bin: bin}
	if backend == store.DialectPostgres {
		d.pool, d.url = scratchDatabase(b)
	} else {
		d.path = filepath.Join(b.TempDir(), "mnemo.db")
		d.url = "sqlite://" + d.path
	}
	d.env = append(os.Environ(), "DATABASE_URL="+d.url, "MNEMO_ENCRYPTION_KEY="+scaleKey, "MNEMO_LOG_LEVEL=warn", "MNEMO_LOG_FORMAT=json")
	return d
}

// worker runs `worker args…` to its end and returns its stdout; it fails
// the benchmark on an error.
func (d *scaleDB) worker(b *testing.B, args ...string) string {
	b.Helper()
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		b.Fatalf("worker %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// gen runs `worker gen` and prints its summary line.
func (d *scaleDB) gen(b *testing.B, args ...string) {
	b.Helper()
	t0 := time.Now()
	out := d.worker(b, append([]string{"gen"}, args...)...)
	fmt.Printf("%s: %s  [%s]\n", d.backend, strings.TrimSpace(out), time.Since(t0).Round(time.Millisecond))
}

// query reads one number from the database.
func (d *scaleDB) query(b *testing.B, q string, args ...any) int64 {
	b.Helper()
	var n int64
	ctx := context.Background()
	if d.pool != nil {
		if err := d.pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		return n
	}
	db, err := sql.Open("sqlite", "file:"+d.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	q = strings.NewReplacer("$1", "?1", "$2", "?2", "$3", "?3").Replace(q)
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			args[i] = t.UTC().Format("2006-01-02T15:04:05.000000Z") // the store's SQLite layout
		}
	}
	if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		b.Fatalf("%s: %v", q, err)
	}
	return n
}

// serving is a `worker serve` process.
type serving struct {
	base string
	cmd  *exec.Cmd
	log  string
}

func (d *scaleDB) serve(b *testing.B, extra ...string) *serving {
	b.Helper()
	addr := freeAddr(b)
	cmd := exec.Command(d.bin, "serve")
	cmd.Env = append(append(d.env, "MNEMO_LISTEN="+addr), extra...)
	logPath := filepath.Join(b.TempDir(), "serve.log")
	f, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = f
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &serving{base: "http://" + addr, cmd: cmd, log: logPath}
	b.Cleanup(func() { s.stop(); f.Close() })
	waitReady(b, s.base, logPath)
	return s
}

func (s *serving) stop() {
	if s.cmd.ProcessState != nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// get times one GET and fails on a status other than 200.
func get(b *testing.B, hc *http.Client, url string) time.Duration {
	t0 := time.Now()
	resp, err := hc.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(t0)
	if resp.StatusCode != 200 {
		b.Fatalf("GET %s = %d", url, resp.StatusCode)
	}
	return d
}

// BenchmarkScalePack is the context pack over HTTP from a real `worker
// serve` for Mona users with 10, 1 000 and 10 000 memory keys and 1 000
// sessions each (MNEMO_BENCH_PACK_SESSIONS) over a year:
// MNEMO_BENCH_PACK_N (300) sequential requests per size, spread over
// MNEMO_BENCH_PACK_USERS (3) users of that size, after 20 of warm-up.
// Aim (issue 25): p99 at 10 000 ≤ 3 × p99 at 10.
func BenchmarkScalePack(b *testing.B) {
	scaleEnabled(b)
	bin := buildWorker(b)
	n := envInt("MNEMO_BENCH_PACK_N", 300)
	users := envInt("MNEMO_BENCH_PACK_USERS", 3)
	sessions := envInt("MNEMO_BENCH_PACK_SESSIONS", 1000)
	sizes := []int{10, 1000, 10000}
	var table []string
	for _, bk := range scaleBackends() {
		b.Run(bk, func(b *testing.B) {
			d := newScaleDB(b, bin, bk)
			for _, k := range sizes {
				d.gen(b, "--app", "mona", "--users", fmt.Sprint(users), "--sessions", fmt.Sprint(sessions), "--memories", fmt.Sprint(k),
					"--span", "8760h", "--prefix", fmt.Sprintf("k%d", k), "--seed", "25")
			}
			s := d.serve(b)
			hc := &http.Client{Timeout: 30 * time.Second}
			var p99s []time.Duration
			for _, k := range sizes {
				active := d.query(b, `SELECT count(*) FROM mnemo_memories WHERE user_id = $1 AND status = 'active'`, fmt.Sprintf("k%d-mona-0", k))
				all := d.query(b, `SELECT count(*) FROM mnemo_memories WHERE user_id = $1`, fmt.Sprintf("k%d-mona-0", k))
				url := func(i int) string { return fmt.Sprintf("%s/v1/users/k%d-mona-%d/context", s.base, k, i%users) }
				for i := range 20 {
					get(b, hc, url(i))
				}
				var l latencies
				for i := range n {
					l = append(l, get(b, hc, url(i)))
				}
				p99s = append(p99s, l.quantile(0.99))
				row := fmt.Sprintf("| %s | %d | %d | %d | %d | %.1f | %.1f | %.1f |", bk, k, all, active, sessions, ms(l.quantile(0.5)), ms(l.quantile(0.99)), ms(slicesMax(l)))
				fmt.Println(row)
				table = append(table, row)
			}
			fmt.Printf("%s: p99(10k)/p99(10) = %.2f (aim ≤ 3)\n", bk, float64(p99s[2])/float64(p99s[0]))
		})
	}
	fmt.Println("| database | keys | memories (all) | active | sessions | p50 ms | p99 ms | max ms |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range table {
		fmt.Println(r)
	}
	fmt.Printf("nproc %d, GOMAXPROCS %d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
}

func slicesMax(l latencies) time.Duration {
	var m time.Duration
	for _, d := range l {
		m = max(m, d)
	}
	return m
}

// timedRun is one `worker …` process timed by /usr/bin/time -v.
type timedRun struct {
	out    string
	wall   time.Duration
	maxRSS int64 // kB
	err    error
}

// timed runs `worker args…` under /usr/bin/time -v (the process alone,
// without go test around it); kill, when positive, sends it SIGKILL after
// that long.
func (d *scaleDB) timed(b *testing.B, kill time.Duration, args ...string) timedRun {
	b.Helper()
	cmd := exec.Command("/usr/bin/time", append([]string{"-v", d.bin}, args...)...)
	cmd.Env = d.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if kill > 0 {
		timer := time.AfterFunc(kill, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		defer timer.Stop()
	}
	err := cmd.Wait()
	r := timedRun{out: out.String(), wall: time.Since(t0), err: err}
	for _, line := range strings.Split(errOut.String(), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Maximum resident set size (kbytes):"); ok {
			fmt.Sscan(strings.TrimSpace(v), &r.maxRSS)
		}
	}
	if err != nil && kill <= 0 {
		b.Fatalf("worker %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return r
}

// scaleBatches are the scheduled batches of issue 25's batch figures, in
// the order they run (insights reads the weekly analytics).
var scaleBatches = []string{"weekly-analytics", "insights", "trends", "emotional-decay", "preference-decay", "mastery-decay"}

// BenchmarkScaleBatches runs the scheduled batches over users with a week
// of sessions each (one a day): for each size of MNEMO_BENCH_BATCH_USERS
// (10000,100000 on Postgres; MNEMO_BENCH_BATCH_USERS_SQLITE, 10000, on
// SQLite) a fresh database gets that many users of each preset whose
// kind has batches (eldertree: weekly analytics, insights; clara: trends;
// lara: the decays), then each batch runs as `worker batch run NAME` under
// /usr/bin/time -v: wall time, rows written, rows/s, peak RSS. On the
// largest size of each database it then times weekly-analytics whole,
// kills a run of it with SIGKILL half way through, runs it again (it
// continues after the last page the killed run committed: the ledger's
// cursor) and once more (a finished period runs whole), and compares what
// each left with what one uninterrupted run left. MNEMO_BENCH_BATCHES (a
// comma-separated list) runs only those batches, over only the presets
// they read.
func BenchmarkScaleBatches(b *testing.B) {
	scaleEnabled(b)
	bin := buildWorker(b)
	now := "2026-11-23T12:00:00Z" // a Monday: the week ending on Sunday the 22nd
	genNow := "2026-11-23T00:00:00Z"
	var table, resumes []string
	batches := scaleBatches
	if only := os.Getenv("MNEMO_BENCH_BATCHES"); only != "" {
		batches = strings.Split(only, ",")
	}
	for _, bk := range scaleBackends() {
		sizes := envStr("MNEMO_BENCH_BATCH_USERS", "10000,100000")
		if bk == store.DialectSQLite {
			sizes = envStr("MNEMO_BENCH_BATCH_USERS_SQLITE", "10000")
		}
		list := strings.Split(sizes, ",")
		for si, size := range list {
			b.Run(fmt.Sprintf("%s/%s", bk, size), func(b *testing.B) {
				d := newScaleDB(b, bin, bk)
				for _, app := range scaleBatchApps(batches) {
					d.gen(b, "--app", app, "--users", size, "--sessions", "7", "--memories", "5", "--span", "168h",
						"--now", genNow, "--seed", "25")
				}
				for _, batch := range batches {
					r := d.timed(b, 0, "batch", "run", batch, "--now", now)
					var rows int64
					fmt.Sscanf(strings.TrimSpace(r.out), batch+": %d rows", &rows)
					row := fmt.Sprintf("| %s | %s | %s | %.1f | %d | %.0f | %.0f |", bk, size, batch, r.wall.Seconds(), rows,
						float64(rows)/r.wall.Seconds(), float64(r.maxRSS)/1024)
					fmt.Println(row)
					table = append(table, row)
				}
				if si != len(list)-1 || !slices.Contains(batches, "weekly-analytics") {
					return
				}
				// Resumable: one run's result, then a run killed half way
				// (SIGKILL) and run again, which continues after the last
				// page the killed one committed (the ledger's cursor).
				n1, h1 := d.weeklyDigest(b)
				d.exec(b, `DELETE FROM mnemo_weekly_analytics`, `DELETE FROM mnemo_batch_runs WHERE batch = 'weekly-analytics'`)
				full := d.timed(b, 0, "batch", "run", "weekly-analytics", "--now", now)
				d.exec(b, `DELETE FROM mnemo_weekly_analytics`, `DELETE FROM mnemo_batch_runs WHERE batch = 'weekly-analytics'`)
				killed := d.timed(b, full.wall/2, "batch", "run", "weekly-analytics", "--now", now)
				partial := d.query(b, `SELECT count(*) FROM mnemo_weekly_analytics`)
				cursor := d.query(b, `SELECT count(*) FROM mnemo_batch_runs WHERE batch = 'weekly-analytics' AND outcome = 'running' AND page_cursor IS NOT NULL`)
				again := d.timed(b, 0, "batch", "run", "weekly-analytics", "--now", now)
				n2, h2 := d.weeklyDigest(b)
				// Run twice = one run: the finished period runs whole again.
				twice := d.timed(b, 0, "batch", "run", "weekly-analytics", "--now", now)
				n3, h3 := d.weeklyDigest(b)
				row := fmt.Sprintf("| %s | %s | %.1f | %.1f (%v) | %d | %v | %.1f | %.2f | %.1f | %v |", bk, size, full.wall.Seconds(), killed.wall.Seconds(),
					killed.err, partial, cursor == 1, again.wall.Seconds(), again.wall.Seconds()/full.wall.Seconds(), twice.wall.Seconds(),
					n1 == n2 && h1 == h2 && n2 == n3 && h2 == h3)
				fmt.Printf("resume: one run left %d rows (hash %x), after the kill and the next run %d (%x), after one more %d (%x)\n", n1, h1, n2, h2, n3, h3)
				fmt.Println(row)
				resumes = append(resumes, row)
			})
		}
	}
	fmt.Println("| database | users per preset | batch | wall s | rows | rows/s | peak RSS MB |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range table {
		fmt.Println(r)
	}
	fmt.Println("| database | users per preset | whole run s | killed after s | rows it left | cursor kept | next run s | next / whole | run again s | same rows |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range resumes {
		fmt.Println(r)
	}
}

// scaleBatchApps are the presets whose users the batches read, in gen's
// order: Elder Tree (weekly analytics, insights), Clara (trends), Lara
// (the decays).
func scaleBatchApps(batches []string) []string {
	var out []string
	for _, app := range []string{"eldertree", "clara", "lara"} {
		for _, bt := range batches {
			var of string
			switch bt {
			case "weekly-analytics", "insights":
				of = "eldertree"
			case "trends":
				of = "clara"
			default:
				of = "lara"
			}
			if of == app && !slices.Contains(out, app) {
				out = append(out, app)
			}
		}
	}
	return out
}

// exec runs statements on the database, in order.
func (d *scaleDB) exec(b *testing.B, stmts ...string) {
	b.Helper()
	ctx := context.Background()
	if d.pool != nil {
		for _, q := range stmts {
			if _, err := d.pool.Exec(ctx, q); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
		return
	}
	db, err := sql.Open("sqlite", "file:"+d.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
}

// weeklyDigest is how many weekly analytics rows the database holds and an
// FNV-1a hash of them all (user, week, data), in key order.
func (d *scaleDB) weeklyDigest(b *testing.B) (int64, uint64) {
	b.Helper()
	const q = `SELECT user_id, week_ending, CAST(data AS text) FROM mnemo_weekly_analytics ORDER BY user_id, week_ending`
	h := fnv.New64a()
	var n int64
	add := func(user, week, data string) {
		n++
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", user, week, data)
	}
	ctx := context.Background()
	// pgx's rows and database/sql's are read alike.
	var rows interface {
		Next() bool
		Scan(...any) error
		Err() error
	}
	if d.pool != nil {
		r, err := d.pool.Query(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		rows = r
	} else {
		db, err := sql.Open("sqlite", "file:"+d.path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		r, err := db.QueryContext(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		rows = r
	}
	for rows.Next() {
		var user, week, data string
		if err := rows.Scan(&user, &week, &data); err != nil {
			b.Fatal(err)
		}
		add(user, week, data)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n, h.Sum64()
}

// BenchmarkScaleExpiry runs the sweeps that take rows out by age over a
// database of about ten million rows: MNEMO_BENCH_EXPIRY_USERS (1600)
// Mona users with a session a day for two years, none of it swept yet
// (gen --unswept --retain-all): memories past their category's TTL still
// active, every transcript past its retention still stored, and the
// bookkeeping older than the 400 days retention keeps. Then memory-ttl,
// buffer-cleanup (transcripts) and retention run as `worker batch run`
// under /usr/bin/time -v, each to its end: rows and rows/s. Postgres only
// unless MNEMO_BENCH_BACKENDS names sqlite. Aim (issue 25): ≥ 100 000
// rows/s on Postgres.
func BenchmarkScaleExpiry(b *testing.B) {
	scaleEnabled(b)
	bin := buildWorker(b)
	users := envStr("MNEMO_BENCH_EXPIRY_USERS", "1600")
	now := "2026-11-27T00:00:00Z"
	var table []string
	for _, bk := range scaleBackends() {
		if bk == store.DialectSQLite && !strings.Contains(os.Getenv("MNEMO_BENCH_BACKENDS"), "sqlite") {
			continue
		}
		b.Run(bk, func(b *testing.B) {
			d := newScaleDB(b, bin, bk)
			d.gen(b, "--app", "mona", "--users", users, "--sessions", "730", "--memories", "600", "--span", "17520h",
				"--now", now, "--seed", "25", "--unswept", "--retain-all")
			total := int64(0)
			for _, t := range []string{"mnemo_sessions", "mnemo_transcript_chunks", "mnemo_session_summaries", "mnemo_extraction_runs",
				"mnemo_memories", "mnemo_memory_statements", "mnemo_memory_history", "river_job"} {
				total += d.query(b, "SELECT count(*) FROM "+t)
			}
			due := d.query(b, `SELECT count(*) FROM mnemo_memories WHERE status = 'active' AND expires_at <= $1`, mustTime(b, now))
			fmt.Printf("%s: %d rows in the database, %d memories past their TTL\n", bk, total, due)
			for _, batch := range []string{"memory-ttl", "buffer-cleanup", "retention"} {
				r := d.timed(b, 0, "batch", "run", batch, "--now", now)
				var rows int64
				fmt.Sscanf(strings.TrimSpace(r.out), batch+": %d rows", &rows)
				row := fmt.Sprintf("| %s | %d | %s | %.1f | %d | %.0f | %.0f |", bk, total, batch, r.wall.Seconds(), rows,
					float64(rows)/r.wall.Seconds(), float64(r.maxRSS)/1024)
				fmt.Println(row)
				table = append(table, row)
			}
		})
	}
	fmt.Println("| database | rows in the database | batch | wall s | rows | rows/s | peak RSS MB |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range table {
		fmt.Println(r)
	}
}

func mustTime(b *testing.B, s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkScaleErase erases a Mona user with 10 000 memory keys and
// 1 000 sessions (DELETE /v1/users/{id} on a real `worker serve`) while
// a chat service process hands other users' sessions over at
// MNEMO_BENCH_ERASE_RATE (20) a second: the erasure's duration (from the
// request to its job completed: rows deleted, River's jobs scrubbed, the
// vacuum or checkpoint after), and the handoffs' p50/p99 in the window
// before it (15 s of the load's handoffs stored) and while it ran. 1 000
// other users with 30 sessions each are there beside it, and
// MNEMO_BENCH_ERASE_JOBS (0) more finished jobs in River's table. The load starts
// once the batches the worker runs first, for the history the generator
// wrote, have finished.
func BenchmarkScaleErase(b *testing.B) {
	scaleEnabled(b)
	bin := buildWorker(b)
	rate := float64(envInt("MNEMO_BENCH_ERASE_RATE", 20))
	var table []string
	for _, bk := range scaleBackends() {
		b.Run(bk, func(b *testing.B) {
			d := newScaleDB(b, bin, bk)
			d.gen(b, "--app", "mona", "--users", "1", "--sessions", "1000", "--memories", "10000", "--span", "8760h", "--prefix", "erase", "--seed", "25")
			d.gen(b, "--app", "mona", "--users", "1000", "--sessions", "30", "--memories", "20", "--span", "8760h", "--prefix", "other", "--seed", "25")
			const victim = "erase-mona-0"
			if n := envInt("MNEMO_BENCH_ERASE_JOBS", 0); n > 0 {
				d.exec(b, finishedJobs(bk, n))
			}
			rows := int64(0)
			for _, t := range []string{"mnemo_sessions", "mnemo_session_summaries", "mnemo_extraction_runs", "mnemo_memories",
				"mnemo_memory_statements", "mnemo_memory_history"} {
				rows += d.query(b, "SELECT count(*) FROM "+t+" WHERE user_id = $1", victim)
			}
			s := d.serve(b, "MNEMO_API_TOKENS=service:"+serviceToken)
			// The worker catches up on the batches the generated history
			// missed when it starts; the handoffs are measured after.
			testwait.Until(b, "the batches caught up on start", func() (bool, string) {
				n := d.query(b, `SELECT count(*) FROM river_job WHERE kind = 'batch' AND state NOT IN ('completed', 'discarded', 'cancelled')`)
				return n == 0, fmt.Sprintf("%d batch jobs not finished", n)
			})
			// The windows before and after the erasure are counted in
			// handoffs stored, not timed: about 15 s and 2 s of the load.
			handed := func(n int64) {
				want := d.query(b, `SELECT count(*) FROM mnemo_sessions`) + n
				testwait.Until(b, "the chat service's handoffs", func() (bool, string) {
					got := d.query(b, `SELECT count(*) FROM mnemo_sessions`)
					return got >= want, fmt.Sprintf("%d of %d sessions", got, want)
				})
			}
			load := startHandoffLoad(b, s.base, rate)
			t0 := time.Now()
			handed(int64(15 * rate))
			t1 := time.Now()
			req, _ := http.NewRequest(http.MethodDelete, s.base+"/v1/users/"+victim, nil)
			req.Header.Set("Authorization", "Bearer "+serviceToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				b.Fatalf("DELETE = %d", resp.StatusCode)
			}
			testwait.Until(b, "the erasure", func() (bool, string) {
				done := d.query(b, `SELECT count(*) FROM river_job WHERE kind = 'erase' AND state = 'completed'`) > 0
				return done, tail(s.log)
			})
			t2 := time.Now()
			handed(int64(2 * rate))
			res := load.stop(b)
			before, during := res.dueIn(t0.Add(2*time.Second), t1), res.dueIn(t1, t2)
			if left := d.query(b, `SELECT count(*) FROM mnemo_memories WHERE user_id = $1`, victim); left != 0 {
				b.Fatalf("%d memories of the erased user left", left)
			}
			row := fmt.Sprintf("| %s | %d | %.2f | %d | %.1f | %.1f | %.1f | %d | %.1f | %.1f | %.1f |", bk, rows, t2.Sub(t1).Seconds(),
				len(before), ms(before.quantile(0.5)), ms(before.quantile(0.99)), ms(slicesMax(before)),
				len(during), ms(during.quantile(0.5)), ms(during.quantile(0.99)), ms(slicesMax(during)))
			fmt.Println(row)
			table = append(table, row)
		})
	}
	fmt.Println("| database | user's rows | erase s | handoffs before | p50 ms | p99 ms | max ms | handoffs during | p50 ms | p99 ms | max ms |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range table {
		fmt.Println(r)
	}
}

// finishedJobs is a statement adding n completed extraction jobs of other
// users to River's table, as a month of a large installation leaves them,
// one in a hundred with a log line naming the erased user: what an
// erasure's scrub reads.
func finishedJobs(backend string, n int) string {
	if backend == store.DialectPostgres {
		return fmt.Sprintf(`INSERT INTO river_job (args, kind, max_attempts, metadata, queue, state, finalized_at)
			SELECT jsonb_build_object('session_id', 'old-' || g), 'extract', 5,
				jsonb_build_object('river:log', jsonb_build_array(jsonb_build_object('attempt', 1, 'log',
					'user ' || CASE WHEN g %% 100 = 0 THEN 'erase-mona-0' ELSE 'old-' || g END || ' processed'))),
				'extract', 'completed', now()
			FROM generate_series(1, %d) AS g`, n)
	}
	return fmt.Sprintf(`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < %d)
		INSERT INTO river_job (args, kind, max_attempts, metadata, queue, state, finalized_at)
		SELECT jsonb(json_object('session_id', 'old-' || n)), 'extract', 5,
			jsonb(json_object('river:log', json_array(json_object('attempt', 1, 'log',
				'user ' || CASE WHEN n %% 100 = 0 THEN 'erase-mona-0' ELSE 'old-' || n END || ' processed')))),
			'extract', 'completed', CURRENT_TIMESTAMP
		FROM g`, n)
}

// BenchmarkScaleStorage is the storage a user-year takes, per preset:
// MNEMO_BENCH_STORAGE_USERS (200) users of the preset with
// MNEMO_BENCH_STORAGE_SESSIONS (156: three a week) sessions over a year
// and 200 memory keys, in a fresh database each; then, on Postgres,
// pg_total_relation_size of every table (heap, TOAST and indexes) after
// VACUUM ANALYZE and, on SQLite, the pages of every table and index
// (dbstat) after VACUUM, divided by the users.
func BenchmarkScaleStorage(b *testing.B) {
	scaleEnabled(b)
	bin := buildWorker(b)
	users := envInt("MNEMO_BENCH_STORAGE_USERS", 200)
	sessions := envInt("MNEMO_BENCH_STORAGE_SESSIONS", 156)
	var table []string
	for _, bk := range scaleBackends() {
		for _, app := range []string{"mona", "clara", "eldertree", "lara", "coach"} {
			b.Run(bk+"/"+app, func(b *testing.B) {
				d := newScaleDB(b, bin, bk)
				d.gen(b, "--app", app, "--users", fmt.Sprint(users), "--sessions", fmt.Sprint(sessions), "--memories", "200",
					"--span", "8760h", "--seed", "25")
				sizes := map[string]int64{}
				ctx := context.Background()
				if d.pool != nil {
					if _, err := d.pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
						b.Fatal(err)
					}
					rows, err := d.pool.Query(ctx, `SELECT relname, pg_total_relation_size(c.oid) FROM pg_class c
						WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`)
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next() {
						var name string
						var n int64
						if err := rows.Scan(&name, &n); err != nil {
							b.Fatal(err)
						}
						sizes[name] = n
					}
					rows.Close()
				} else {
					db, err := sql.Open("sqlite", "file:"+d.path)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := db.Exec("VACUUM"); err != nil {
						b.Fatal(err)
					}
					// Each index is counted with its table.
					rows, err := db.Query(`SELECT COALESCE(m.tbl_name, s.name), sum(s.pgsize) FROM dbstat s
						LEFT JOIN sqlite_master m ON m.name = s.name GROUP BY 1`)
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next() {
						var name string
						var n int64
						if err := rows.Scan(&name, &n); err != nil {
							b.Fatal(err)
						}
						sizes[name] += n
					}
					rows.Close()
					db.Close()
				}
				var total int64
				type sized struct {
					name string
					n    int64
				}
				var list []sized
				for name, n := range sizes {
					total += n
					if n >= 64<<10 {
						list = append(list, sized{name, n})
					}
				}
				slices.SortFunc(list, func(a, b sized) int { return cmp.Compare(b.n, a.n) })
				var parts []string
				for _, s := range list {
					parts = append(parts, fmt.Sprintf("%s %.1f", strings.TrimPrefix(s.name, "mnemo_"), float64(s.n)/float64(users)/1024))
				}
				row := fmt.Sprintf("| %s | %s | %d | %.1f | %s |", bk, app, sessions, float64(total)/float64(users)/1024, strings.Join(parts, ", "))
				fmt.Println(row)
				table = append(table, row)
			})
		}
	}
	fmt.Println("| database | preset | sessions a year | KB per user-year | KB per user-year by table (≥ 64 KB in all) |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, r := range table {
		fmt.Println(r)
	}
}
