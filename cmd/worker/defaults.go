package main

import (
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

// Where a tuning value came from.
const (
	fromMachine = "machine"
	fromSetting = "setting"
)

// Tuning is how hard the worker drives its queues and its database: the jobs
// worked at once per queue, River's fetch cooldown and poll interval, and the
// Postgres pool. Each value is derived from the machine and the mode
// (machineDefaults) unless a setting names it.
type Tuning struct {
	// Concurrency is River's MaxWorkers per queue.
	Concurrency map[string]int
	// FetchCooldown is the least time between two fetches of one queue: a
	// queue works at most Concurrency ÷ FetchCooldown short jobs a second.
	FetchCooldown time.Duration
	// PollInterval is how often an idle queue looks for jobs no
	// notification announced.
	PollInterval time.Duration
	// PoolSize is the Postgres pool's most connections; 0 on SQLite (one
	// connection, one writer).
	PoolSize int
	// Source says where each value came from, fromMachine or fromSetting, by
	// "concurrency.QUEUE", "fetch-cooldown", "poll-interval" and "pool-size".
	Source map[string]string
	// Cores and LLM are what the machine defaults were derived from.
	Cores int
	LLM   bool
}

// machineDefaults derives the tuning from the cores and the mode, so that no
// default caps throughput below what the host and the database can do:
//
//   - extract queue: rules-only extraction computes little now (about 2.5 ms
//     of the worker's CPU a session on a 2-core host) and most of a job's
//     time is database round trips and the commit's flush, so 16 per core
//     (at least 32, at most 512) on Postgres: on 2 cores 32 gave 406 and
//     423 sessions/s where 16 gave 331 and 321 (docs/benchmarks.md); SQLite
//     has one connection and one writer, so a few jobs (2 per core, at least
//     4) keep it busy and more only queue. An LLM extraction waits on the
//     network and holds no database connection while it waits (the call
//     comes before apply's transaction), so hundreds in flight are normal:
//     256 on Postgres (or the rules' figure, when that is more), 128 on
//     SQLite.
//   - default queue (profile folds, rolling summaries, erasure): 2 per core
//     (at least 4); batch queue: 1 (batches are serial by design).
//   - fetch cooldown: River's 100 ms caps a queue at MaxWorkers ÷ 0.1 s
//     (16 workers: 160 jobs/s whatever the machine); 20 ms on Postgres, 10 ms
//     on SQLite, where a fetch is a cheap in-process write.
//   - poll interval: Postgres wakes fetches by LISTEN/NOTIFY, so polling is
//     only the fallback: 1 s (River's default). Behind PgBouncer in
//     transaction pooling (MNEMO_PG_POOLER=transaction) there is no
//     LISTEN and polling is all: 200 ms (pollOnlyInterval), a fetch per
//     queue five times a second per worker, for a pick-up within 200 ms. SQLite's notifications are
//     themselves polled; 100 ms bounds an idle worker's pick-up latency.
//   - Postgres pool: 4 connections per core, from 8 to 64 (pgx's default is
//     one per core, at least 4: it queued handoffs at high concurrency);
//     the cap leaves room in a default max_connections of 100 for a second
//     worker and the operator.
//
// pollOnlyInterval is the derived poll interval when River polls only.
const pollOnlyInterval = 200 * time.Millisecond

func machineDefaults(cores int, dialect string, llm bool) Tuning {
	cores = max(cores, 1)
	t := Tuning{Cores: cores, LLM: llm, Concurrency: map[string]int{
		queue.QueueDefault: max(4, 2*cores),
		queue.QueueBatch:   1,
	}, Source: map[string]string{}}
	if dialect == store.DialectPostgres {
		t.Concurrency[queue.QueueExtract] = min(512, max(32, 16*cores))
		if llm {
			t.Concurrency[queue.QueueExtract] = max(256, t.Concurrency[queue.QueueExtract])
		}
		t.FetchCooldown = 20 * time.Millisecond
		t.PollInterval = time.Second
		t.PoolSize = min(64, max(8, 4*cores))
	} else {
		t.Concurrency[queue.QueueExtract] = max(4, 2*cores)
		if llm {
			t.Concurrency[queue.QueueExtract] = 128
		}
		t.FetchCooldown = 10 * time.Millisecond
		t.PollInterval = 100 * time.Millisecond
	}
	for q := range t.Concurrency {
		t.Source["concurrency."+q] = fromMachine
	}
	for _, k := range []string{"fetch-cooldown", "poll-interval", "pool-size"} {
		t.Source[k] = fromMachine
	}
	return t
}

// explicitTuning is what the settings name; zero values are unset.
type explicitTuning struct {
	concurrency   map[string]int
	fetchCooldown time.Duration
	pollInterval  time.Duration
	poolSize      int
	// pollOnly is set behind a pooler in transaction mode, where River
	// has no LISTEN/NOTIFY to wake its fetches.
	pollOnly bool
}

// resolveTuning lays the explicit settings over the machine defaults. An
// explicit value always wins; a derived fetch cooldown longer than an
// explicit poll interval shrinks to it (River requires cooldown ≤ poll), and
// a derived poll interval shorter than an explicit cooldown grows to it.
func resolveTuning(cores int, dialect string, llm bool, x explicitTuning) (Tuning, error) {
	t := machineDefaults(cores, dialect, llm)
	for q, n := range x.concurrency {
		t.Concurrency[q] = n
		t.Source["concurrency."+q] = fromSetting
	}
	if x.fetchCooldown > 0 {
		t.FetchCooldown, t.Source["fetch-cooldown"] = x.fetchCooldown, fromSetting
	}
	if x.pollInterval > 0 {
		t.PollInterval, t.Source["poll-interval"] = x.pollInterval, fromSetting
	} else if x.pollOnly {
		t.PollInterval = pollOnlyInterval
	}
	if t.FetchCooldown > t.PollInterval {
		switch {
		case x.fetchCooldown > 0 && x.pollInterval > 0:
			return t, settingError("fetch-cooldown", "%s exceeds MNEMO_POLL_INTERVAL (%s)", t.FetchCooldown, t.PollInterval)
		case x.fetchCooldown > 0:
			t.PollInterval = t.FetchCooldown
		default:
			t.FetchCooldown = t.PollInterval
		}
	}
	if dialect != store.DialectPostgres {
		t.PoolSize = 0
		delete(t.Source, "pool-size")
	} else if x.poolSize > 0 {
		t.PoolSize, t.Source["pool-size"] = x.poolSize, fromSetting
	}
	return t, nil
}

// urlPoolSize is pool_max_conns of a postgres:// URL (pgx's own setting), or 0.
func urlPoolSize(databaseURL string) (int, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return 0, nil // parseDatabaseURL reports it
	}
	v := u.Query().Get("pool_max_conns")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("pool_max_conns %q is not a positive number", v)
	}
	return n, nil
}

// withPoolSize sets pool_max_conns on a postgres:// URL, which pgx reads as
// the pool's size.
func withPoolSize(databaseURL string, n int) string {
	u, err := url.Parse(databaseURL)
	if err != nil || n <= 0 {
		return databaseURL
	}
	q := u.Query()
	q.Set("pool_max_conns", strconv.Itoa(n))
	u.RawQuery = q.Encode()
	return u.String()
}

// logValues renders the tuning for the start log: each value with where it
// came from, e.g. "default=4 (machine), extract=64 (setting), batch=1 (machine)".
func (t Tuning) logValues() (concurrency, cooldown, poll, pool string) {
	var parts []string
	for _, q := range queueOrder(t.Concurrency) {
		parts = append(parts, fmt.Sprintf("%s=%d (%s)", q, t.Concurrency[q], t.Source["concurrency."+q]))
	}
	concurrency = strings.Join(parts, ", ")
	cooldown = fmt.Sprintf("%s (%s)", t.FetchCooldown, t.Source["fetch-cooldown"])
	poll = fmt.Sprintf("%s (%s)", t.PollInterval, t.Source["poll-interval"])
	pool = "1 (SQLite: one connection)"
	if t.PoolSize > 0 {
		pool = fmt.Sprintf("%d (%s)", t.PoolSize, t.Source["pool-size"])
	}
	return
}

// queueOrder is Mnemo's queues first, in a fixed order, then any other.
func queueOrder(m map[string]int) []string {
	out := []string{}
	known := []string{queue.QueueDefault, queue.QueueExtract, queue.QueueBatch}
	for _, q := range known {
		if _, ok := m[q]; ok {
			out = append(out, q)
		}
	}
	var rest []string
	for q := range m {
		if q != queue.QueueDefault && q != queue.QueueExtract && q != queue.QueueBatch {
			rest = append(rest, q)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// machineCores is the CPUs this process may use: GOMAXPROCS, which follows
// the container's CPU quota.
func machineCores() int { return runtime.GOMAXPROCS(0) }
