package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// The batch benchmarks seed hundreds of thousands of rows, so they run only
// when asked for by name (-bench), never under plain `go test` or CI, and
// only on Postgres: the aims are about a Postgres deployment.
//
//	TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	    go test ./bench -run '^$' -bench 'WeeklyAnalytics|TTLExpiry' -benchtime 1x -timeout 60m

// Weekly analytics fixture: Elder Tree users with ten processed sessions
// each in the week ending weeklyWeek.
const (
	weeklyApp             = "eldertree"
	weeklyWeek            = "2026-11-15" // a Sunday
	weeklySessionsPerUser = 10
	// weeklyCheckUsers is how many users' rows are compared between the
	// batch and the single statement after each run.
	weeklyCheckUsers = 300
)

// weeklyNow is the batch's clock: the Monday after the week, after its run.
var weeklyNow = time.Date(2026, 11, 16, 12, 30, 0, 0, time.UTC)

// weeklyDefaultSizes are the user counts measured; MNEMO_BENCH_WEEKLY_USERS
// (comma-separated) replaces them, for a box where 100 k users take too long
// to seed.
var weeklyDefaultSizes = []int{10_000, 100_000}

var (
	weeklyZones      = []string{"UTC", "America/Chicago", "Europe/Berlin", "Asia/Tokyo", "America/New_York", "Australia/Sydney"}
	weeklyTriggers   = []string{"stress", "loneliness", "boredom", "payday", "conflict at home", "social media"}
	weeklyStrategies = []string{"called sponsor", "went for a walk", "breathing exercise", "attended a meeting", "played a game"}
	weeklyOutcomes   = []string{"urge_passed", "urge_passed", "ongoing_struggle", "urge_passed", "relapsed"}
)

// weeklyResult is one size's measured times, for the linearity check.
type weeklyResult struct{ batch, sql time.Duration }

// BenchmarkWeeklyAnalytics runs the weekly-analytics batch (RunBatch, as the
// worker runs it) over N Elder Tree users × 10 processed sessions of one
// week, then, in the same run and on the same data, the comparable core of
// the aggregation as one set-based SQL statement into a scratch table with
// the same keys, indexes and upsert. Seeding (COPY) is outside the timer and
// done once per size. It reports both times, their ratio, sessions/s, and
// this process's peak RSS during the batch; a growth=… sub-benchmark
// reports how the times grow with the data.
func BenchmarkWeeklyAnalytics(b *testing.B) {
	url := os.Getenv("TEST_DATABASE_URL")
	if url == "" {
		b.Skip("TEST_DATABASE_URL not set: the batch benchmarks need Postgres")
	}
	sizes := weeklySizes(b)
	results := map[int]weeklyResult{}
	for _, n := range sizes {
		// The fixture outlives the sub-benchmark's runs of growing b.N,
		// whose cleanups run after each; it is dropped once its size is done.
		fx := &weeklyFixture{users: n, sessions: n * weeklySessionsPerUser}
		b.Run("users="+strconv.Itoa(n), func(b *testing.B) {
			b.StopTimer()
			if fx.st == nil {
				seedWeekly(outliving{b, &fx.cleanups}, fx, url)
			}
			results[n] = benchWeekly(b, fx)
		})
		fx.close()
	}
	// How the times grow with the data, as a result line of its own: a
	// parent benchmark's log is not printed.
	for i := 1; i < len(sizes); i++ {
		lo, hi := results[sizes[i-1]], results[sizes[i]]
		if lo.batch == 0 || hi.batch == 0 {
			continue
		}
		b.Run(fmt.Sprintf("growth=%d-%d", sizes[i-1], sizes[i]), func(b *testing.B) {
			data := float64(sizes[i]) / float64(sizes[i-1])
			b.ReportMetric(data, "data-x")
			b.ReportMetric(hi.batch.Seconds()/lo.batch.Seconds(), "batch-time-x")
			b.ReportMetric(hi.sql.Seconds()/lo.sql.Seconds(), "sql-time-x")
			b.ReportMetric(1.2*data, "aim-max-x")
		})
	}
}

// weeklySizes reads MNEMO_BENCH_WEEKLY_USERS, or the defaults.
func weeklySizes(b *testing.B) []int {
	v := os.Getenv("MNEMO_BENCH_WEEKLY_USERS")
	if v == "" {
		return weeklyDefaultSizes
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("MNEMO_BENCH_WEEKLY_USERS=%q: want positive user counts separated by commas", v)
		}
		out = append(out, n)
	}
	return out
}

// outliving is a testing.TB whose failures belong to the running
// sub-benchmark but whose cleanups are left to the caller, so that what it
// sets up survives the sub-benchmark's repeated runs.
type outliving struct {
	testing.TB
	cleanups *[]func()
}

func (o outliving) Cleanup(f func()) { *o.cleanups = append(*o.cleanups, f) }

// weeklyFixture is a seeded schema and a store on it; close drops them.
type weeklyFixture struct {
	st       *store.Postgres
	pool     *pgxpool.Pool
	users    int
	sessions int
	deps     *jobs.Deps
	cleanups []func()
}

func (fx *weeklyFixture) close() {
	for i := len(fx.cleanups) - 1; i >= 0; i-- {
		fx.cleanups[i]()
	}
	fx.cleanups = nil
}

// seedWeekly creates a fresh schema with n users' week of sessions, their
// newest summaries, one urge event per session and a profile per user, by
// COPY, then vacuums and analyses it so that neither the batch nor the
// statement pays for the first reads of freshly loaded pages.
func seedWeekly(tb outliving, fx *weeklyFixture, url string) {
	n := fx.users
	ctx := context.Background()
	start := time.Now()
	schema := storetest.PostgresSchema(tb)
	cfg, err := store.PostgresConfig(url, schema, 0) // the worker's pool: pgx's default size
	if err != nil {
		tb.Fatal(err)
	}
	st, err := store.OpenPostgres(ctx, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	if _, err := st.MigrateUp(ctx); err != nil {
		tb.Fatal(err)
	}
	fx.pool = st.Pool()
	seedWeeklyRows(tb, fx.pool, n)
	if _, err := fx.pool.Exec(ctx, "VACUUM (ANALYZE) mnemo_users, mnemo_profiles, mnemo_sessions, mnemo_session_summaries, mnemo_session_events"); err != nil {
		tb.Fatal(err)
	}
	// The single statement's target: the batch's table, its keys, indexes
	// and foreign key, so that both pay the same for their writes.
	for _, q := range []string{
		"CREATE TABLE bench_weekly_sql (LIKE mnemo_weekly_analytics INCLUDING ALL)",
		"ALTER TABLE bench_weekly_sql ADD FOREIGN KEY (user_id) REFERENCES mnemo_users (id) ON DELETE CASCADE",
	} {
		if _, err := fx.pool.Exec(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	apps, err := prompts.Builtin()
	if err != nil {
		tb.Fatal(err)
	}
	scheds, err := jobs.ParseSchedules(nil)
	if err != nil {
		tb.Fatal(err)
	}
	fx.deps = &jobs.Deps{Store: st, Apps: apps, Schedules: scheds, Logger: infoLogger()}
	fx.st = st
	tb.Logf("seeded %d users × %d sessions (+ summaries, urge events, profiles) in %s", n, weeklySessionsPerUser, time.Since(start).Round(time.Second))
}

func weeklyUserID(i int) string { return fmt.Sprintf("et-%07d", i) }

// weeklySession is session j of user i: its times and what its summary and
// urge event say. Every value is a function of (i, j), so any run seeds the
// same data.
type weeklySession struct {
	id                      string
	start, end              time.Time
	intensity               int
	summaryIntensity        bool // false: the summary's urge_intensity is null and the event's counts
	trigger, strat1, strat2 string
	outcome                 string
	summaryJSON, eventJSON  []byte
	summaryAt, eventAt      time.Time
	messageCount            int
}

func newWeeklySession(i, j int) weeklySession {
	// Sessions fall between Monday 08:00 and Sunday 05:00 UTC, inside the
	// week in every zone of weeklyZones.
	start := time.Date(2026, 11, 9, 8, 0, 0, 0, time.UTC).Add(time.Duration(j*14+i%7) * time.Hour)
	s := weeklySession{
		id:               fmt.Sprintf("%s-%02d", weeklyUserID(i), j),
		start:            start,
		end:              start.Add(time.Duration(20+(i*7+j*3)%26) * time.Minute),
		intensity:        (i + 3*j) % 11,
		summaryIntensity: (i+j)%17 != 0,
		trigger:          weeklyTriggers[(i+j)%len(weeklyTriggers)],
		strat1:           weeklyStrategies[(i+j)%len(weeklyStrategies)],
		strat2:           weeklyStrategies[(i+2*j+1)%len(weeklyStrategies)],
		outcome:          weeklyOutcomes[(i*3+j)%len(weeklyOutcomes)],
		messageCount:     12 + (i+j)%20,
	}
	s.eventAt = start.Add(5 * time.Minute)
	s.summaryAt = s.end.Add(time.Minute)
	strategies := s.strat1
	if s.strat2 != s.strat1 {
		strategies += ", " + s.strat2
	}
	intensity := "null"
	if s.summaryIntensity {
		intensity = strconv.Itoa(s.intensity)
	}
	s.summaryJSON = fmt.Appendf(nil, `{"urge_intensity":%s,"primary_trigger":%q,"resistance_strategy_used":%q,"outcome":%q,"key_insights":[],"emotional_state_start":"anxious","emotional_state_end":"calm","follow_up_needed":""}`,
		intensity, s.trigger, strategies, s.outcome)
	s.eventJSON = fmt.Appendf(nil, `{"intensity":%d,"trigger":%q,"strategy":%q,"outcome":%q}`, s.intensity, s.trigger, s.strat1, s.outcome)
	return s
}

// weeklyProfile is user i's Elder Tree profile: a current step, the steps
// before it completed, and for half the users a recovery start date.
func weeklyProfile(i int) []byte {
	step := 1 + i%12
	var sb strings.Builder
	fmt.Fprintf(&sb, `{"current_step":%d`, step)
	for k := 1; k < step; k++ {
		fmt.Fprintf(&sb, `,"step_%d_completed":true`, k)
	}
	if i%2 == 0 {
		fmt.Fprintf(&sb, `,"recovery_start_date":"2026-10-%02d"`, 1+i%28)
	}
	sb.WriteString("}")
	return []byte(sb.String())
}

// seedWeeklyRows COPYs the fixture, the tables in parallel on connections
// whose foreign-key triggers are off (the rows are consistent by
// construction): a benchmark's seeding is not what it measures.
func seedWeeklyRows(tb testing.TB, pool *pgxpool.Pool, n int) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type table struct {
		name string
		cols []string
		rows int
		row  func(k int) []any
	}
	sessions := n * weeklySessionsPerUser
	tables := []table{
		{"mnemo_users", []string{"id", "app", "timezone", "created_at", "updated_at"}, n, func(i int) []any {
			return []any{weeklyUserID(i), weeklyApp, weeklyZones[i%len(weeklyZones)], created, created}
		}},
		{"mnemo_profiles", []string{"user_id", "app", "doc", "version", "updated_at"}, n, func(i int) []any {
			return []any{weeklyUserID(i), weeklyApp, weeklyProfile(i), 1, created}
		}},
		{"mnemo_sessions", []string{"id", "user_id", "app", "status", "started_at", "ended_at", "timezone", "message_count", "closed_at", "processed_at", "updated_at"},
			sessions, func(k int) []any {
				i, j := k/weeklySessionsPerUser, k%weeklySessionsPerUser
				s := newWeeklySession(i, j)
				return []any{s.id, weeklyUserID(i), weeklyApp, store.StatusProcessed, s.start, s.end, weeklyZones[i%len(weeklyZones)], s.messageCount, s.end, s.summaryAt, s.summaryAt}
			}},
		{"mnemo_session_summaries", []string{"session_id", "prompt_version", "user_id", "app", "source", "data", "created_at"}, sessions, func(k int) []any {
			i, j := k/weeklySessionsPerUser, k%weeklySessionsPerUser
			s := newWeeklySession(i, j)
			return []any{s.id, "eldertree-v1", weeklyUserID(i), weeklyApp, "rules", s.summaryJSON, s.summaryAt}
		}},
		{"mnemo_session_events", []string{"session_id", "seq", "user_id", "kind", "at", "message_id", "data"}, sessions, func(k int) []any {
			i, j := k/weeklySessionsPerUser, k%weeklySessionsPerUser
			s := newWeeklySession(i, j)
			return []any{s.id, 0, weeklyUserID(i), "urge", s.eventAt, "m3", s.eventJSON}
		}},
	}
	var (
		wg   sync.WaitGroup
		errs = make([]error, len(tables))
		// Two loaders: the server does the work, on two cores.
		slots = make(chan struct{}, 2)
	)
	for ti, t := range tables {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			errs[ti] = copyTable(context.Background(), pool, t.name, t.cols, t.rows, t.row)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// copyTable COPYs rows generated one at a time into table, with the
// connection's triggers (foreign-key checks) off.
func copyTable(ctx context.Context, pool *pgxpool.Pool, table string, cols []string, rows int, row func(k int) []any) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET session_replication_role = replica"); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	defer func() { _, _ = conn.Exec(ctx, "RESET session_replication_role") }()
	k := 0
	n, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		if k == rows {
			return nil, nil
		}
		k++
		return row(k - 1), nil
	}))
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	if n != int64(rows) {
		return fmt.Errorf("copy %s: %d rows of %d", table, n, rows)
	}
	return nil
}

// benchWeekly times b.N runs of the batch and of the single statement on
// the fixture, each on empty result tables, and checks that they agree.
func benchWeekly(b *testing.B, fx *weeklyFixture) weeklyResult {
	ctx := context.Background()
	b.StopTimer()
	var batchTime, sqlTime time.Duration
	var peak float64
	u0 := readUsage(b)
	for range b.N {
		for _, q := range []string{"TRUNCATE mnemo_weekly_analytics", "TRUNCATE bench_weekly_sql"} {
			if _, err := fx.pool.Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		debug.FreeOSMemory()
		rss := watchRSS()
		start := time.Now()
		b.StartTimer()
		rows, err := jobs.RunBatch(ctx, fx.deps, jobs.BatchWeeklyAnalytics, weeklyWeek, weeklyNow)
		b.StopTimer()
		batchTime += time.Since(start)
		peak = max(peak, rss.stop())
		if err != nil {
			b.Fatal(err)
		}
		if rows != int64(fx.users) {
			b.Fatalf("the batch wrote %d rows; want one per user, %d", rows, fx.users)
		}
		start = time.Now()
		tag, err := fx.pool.Exec(ctx, weeklySQL, weeklyWeek, weeklyApp, weeklyLookback(), weeklyNow)
		sqlTime += time.Since(start)
		if err != nil {
			b.Fatalf("single statement: %v", err)
		}
		if tag.RowsAffected() != int64(fx.users) {
			b.Fatalf("the single statement wrote %d rows; want %d", tag.RowsAffected(), fx.users)
		}
		checkWeeklyAgree(b, fx)
	}
	used := readUsage(b).since(u0)
	per := func(d time.Duration) time.Duration { return d / time.Duration(b.N) }
	b.ReportMetric(per(batchTime).Seconds(), "batch-s")
	b.ReportMetric(per(sqlTime).Seconds(), "sql-s")
	b.ReportMetric(batchTime.Seconds()/sqlTime.Seconds(), "batch/sql")
	b.ReportMetric(float64(fx.sessions)/per(batchTime).Seconds(), "sessions/s")
	b.ReportMetric(float64(fx.users)/per(batchTime).Seconds(), "users/s")
	if peak > 0 {
		b.ReportMetric(peak, "peak-rss-MB")
	}
	if used.total > 0 {
		b.ReportMetric(100*float64(used.busy)/float64(used.total), "host-busy-%")
	}
	return weeklyResult{batch: per(batchTime), sql: per(sqlTime)}
}

// weeklyLookback is where the batch's window starts for weeklyWeek: it
// reads 97 days back, for the streak.
func weeklyLookback() time.Time {
	end, _ := time.Parse(time.DateOnly, weeklyWeek)
	return end.AddDate(0, 0, -97)
}

// weeklySQL is the comparable core of the weekly analytics as one set-based
// statement: per user and the week in the user's zone, sessions, minutes,
// average urge intensity (the newest summary's, else the strongest urge
// event's), outcomes (summary, else events), trigger counts and strategy
// uses and successes (the summary's labels, snake_cased), vulnerability
// hour buckets and weekdays of the urge events in local time, zone
// violations, urge intensity by weekday, step progress and the streak from
// the last relapse or recovery_start_date; upserted by (user, week). It
// leaves out what the Go code adds on top: the event fallback for triggers
// and strategies, the top-5 cut and the list ordering.
//
// $1 week ending (text), $2 app, $3 lookback start, $4 updated_at.
const weeklySQL = `
WITH wk AS (
	SELECT u.id AS user_id, u.timezone AS tz, COALESCE(p.doc, '{}'::jsonb) AS profile,
	       ($1::text::date - 6)::timestamp AT TIME ZONE u.timezone AS wstart,
	       ($1::text::date + 1)::timestamp AT TIME ZONE u.timezone AS wend
	FROM mnemo_users u LEFT JOIN mnemo_profiles p ON p.user_id = u.id
	WHERE u.app = $2
),
sess AS (
	SELECT s.id, s.user_id, s.started_at, s.ended_at, w.tz, s.ended_at >= w.wstart AS in_week, sm.data AS summary
	FROM mnemo_sessions s
	JOIN wk w ON w.user_id = s.user_id
	LEFT JOIN mnemo_session_summaries sm ON sm.session_id = s.id
	  AND NOT EXISTS (SELECT 1 FROM mnemo_session_summaries n WHERE n.session_id = sm.session_id AND n.created_at > sm.created_at)
	WHERE s.app = $2 AND s.ended_at >= $3 AND s.ended_at < w.wend
),
ev AS (
	SELECT e.session_id, e.seq, e.kind, e.at, e.data, s.user_id, s.tz, s.in_week
	FROM mnemo_session_events e JOIN sess s ON s.id = e.session_id
	WHERE e.kind IN ('urge', 'zone')
),
per_session AS (
	SELECT s.id, s.user_id, s.tz, s.in_week, s.started_at, s.ended_at, s.summary,
	  COALESCE(CASE WHEN jsonb_typeof(s.summary->'urge_intensity') = 'number'
	                THEN least(greatest((s.summary->>'urge_intensity')::float8, 0), 10) END, x.max_intensity) AS intensity,
	  COALESCE(CASE WHEN lower(trim(s.summary->>'outcome')) IN ('urge_passed', 'relapsed', 'ongoing_struggle')
	                THEN lower(trim(s.summary->>'outcome')) END, x.outcome) AS outcome,
	  COALESCE(x.first_urge, s.started_at) AS first_urge
	FROM sess s LEFT JOIN (
		SELECT session_id,
		  max(least(greatest((data->>'intensity')::float8, 0), 10)) FILTER (WHERE jsonb_typeof(data->'intensity') = 'number') AS max_intensity,
		  CASE WHEN bool_or(lower(trim(data->>'outcome')) = 'relapsed') THEN 'relapsed'
		       ELSE COALESCE((array_agg(lower(trim(data->>'outcome')) ORDER BY seq DESC)
		                      FILTER (WHERE lower(trim(data->>'outcome')) IN ('urge_passed', 'ongoing_struggle')))[1], 'ongoing_struggle') END AS outcome,
		  (array_agg(at ORDER BY seq))[1] AS first_urge
		FROM ev WHERE kind = 'urge' GROUP BY session_id
	) x ON x.session_id = s.id
),
main AS (
	SELECT user_id,
	  count(*) FILTER (WHERE in_week) AS sessions,
	  COALESCE(round(extract(epoch FROM sum(ended_at - started_at) FILTER (WHERE in_week AND ended_at > started_at)) / 60), 0)::int AS minutes,
	  round((avg(intensity) FILTER (WHERE in_week))::numeric, 1) AS avg_intensity,
	  count(intensity) FILTER (WHERE in_week) AS urge_sessions,
	  count(*) FILTER (WHERE in_week AND outcome = 'urge_passed') AS passed,
	  count(*) FILTER (WHERE in_week AND outcome = 'relapsed') AS relapsed,
	  count(*) FILTER (WHERE in_week AND outcome = 'ongoing_struggle') AS ongoing,
	  max(ended_at) FILTER (WHERE outcome = 'relapsed') AS last_relapse,
	  min(started_at) AS first_start
	FROM per_session GROUP BY user_id
),
trig AS (
	SELECT user_id, jsonb_object_agg(t, n) AS triggers FROM (
		SELECT p.user_id, l.t, count(*) AS n
		FROM per_session p
		CROSS JOIN LATERAL string_to_table(translate(p.summary->>'primary_trigger', E';\n', ',,'), ',') AS raw(v)
		CROSS JOIN LATERAL (SELECT trim(both '_' FROM regexp_replace(lower(raw.v), '[^[:alnum:]]+', '_', 'g')) AS t) l
		WHERE p.in_week AND l.t <> ''
		GROUP BY 1, 2) x
	GROUP BY user_id
),
strat AS (
	SELECT user_id, jsonb_agg(jsonb_build_object('strategy', st, 'uses', n, 'successes', k, 'success_rate', round(k::numeric / n, 2))
	                          ORDER BY round(k::numeric / n, 2) DESC, n DESC, st) AS strategies
	FROM (
		SELECT p.user_id, l.st, count(*) AS n, count(*) FILTER (WHERE p.outcome = 'urge_passed') AS k
		FROM per_session p
		CROSS JOIN LATERAL string_to_table(translate(p.summary->>'resistance_strategy_used', E';\n', ',,'), ',') AS raw(v)
		CROSS JOIN LATERAL (SELECT trim(both '_' FROM regexp_replace(lower(raw.v), '[^[:alnum:]]+', '_', 'g')) AS st) l
		WHERE p.in_week AND l.st <> ''
		GROUP BY 1, 2) x
	GROUP BY user_id
),
vt AS (
	SELECT p.user_id, COALESCE(e.at, p.started_at) AT TIME ZONE p.tz AS t
	FROM per_session p LEFT JOIN ev e ON e.session_id = p.id AND e.kind = 'urge'
	WHERE p.in_week
),
times AS (
	SELECT user_id, jsonb_object_agg(b, n) AS times FROM (
		SELECT user_id, CASE WHEN h BETWEEN 5 AND 11 THEN 'morning' WHEN h BETWEEN 12 AND 16 THEN 'afternoon'
		                     WHEN h BETWEEN 17 AND 21 THEN 'evening' WHEN h >= 22 OR h < 2 THEN 'late_night' ELSE 'night' END AS b,
		       count(*) AS n
		FROM (SELECT user_id, extract(hour FROM t)::int AS h FROM vt) y GROUP BY 1, 2) x
	GROUP BY user_id
),
days AS (
	SELECT user_id, jsonb_object_agg(d, n) AS days FROM (
		SELECT user_id, trim(lower(to_char(t, 'Day'))) AS d, count(*) AS n FROM vt GROUP BY 1, 2) x
	GROUP BY user_id
),
by_weekday AS (
	SELECT user_id, jsonb_agg(jsonb_build_object('day', d, 'sum', round(s::numeric, 3), 'sessions', n) ORDER BY dow) AS days FROM (
		SELECT user_id, extract(isodow FROM first_urge AT TIME ZONE tz) AS dow, trim(lower(to_char(first_urge AT TIME ZONE tz, 'Day'))) AS d,
		       sum(intensity) AS s, count(*) AS n
		FROM per_session WHERE in_week AND intensity IS NOT NULL GROUP BY 1, 2, 3) x
	GROUP BY user_id
),
zones AS (
	SELECT user_id, count(*) FILTER (WHERE lower(data->>'zone') = 'red') AS red, count(*) FILTER (WHERE lower(data->>'zone') = 'yellow') AS yellow
	FROM ev WHERE kind = 'zone' AND in_week GROUP BY user_id
)
INSERT INTO bench_weekly_sql (user_id, app, week_ending, data, updated_at)
SELECT m.user_id, $2, $1::text, jsonb_build_object(
	'week_ending', $1::text,
	'total_sessions_completed', m.sessions,
	'total_minutes', m.minutes,
	'total_mining_minutes', m.minutes,
	'average_urge_intensity', m.avg_intensity,
	'urge_sessions', m.urge_sessions,
	'streak_length', greatest($1::text::date - COALESCE(
		greatest((m.last_relapse AT TIME ZONE w.tz)::date,
		         CASE WHEN w.profile->>'recovery_start_date' ~ '^\d{4}-\d{2}-\d{2}' THEN left(w.profile->>'recovery_start_date', 10)::date END),
		(m.first_start AT TIME ZONE w.tz)::date), 0),
	'common_triggers', COALESCE(t.triggers, '{}'::jsonb),
	'successful_strategies', COALESCE(st.strategies, '[]'::jsonb),
	'vulnerability_times', COALESCE(ti.times, '{}'::jsonb),
	'vulnerability_days', COALESCE(d.days, '{}'::jsonb),
	'step_work_progress', jsonb_build_object(
		'current_step', CASE WHEN jsonb_typeof(w.profile->'current_step') = 'number' AND (w.profile->>'current_step')::numeric IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
		                     THEN (w.profile->>'current_step')::int END,
		'steps_completed', (SELECT count(*) FROM generate_series(1, 12) i WHERE w.profile->('step_' || i || '_completed') = 'true'::jsonb)),
	'zone_violations', jsonb_build_object('red', COALESCE(z.red, 0), 'yellow', COALESCE(z.yellow, 0)),
	'relapses', m.relapsed,
	'outcomes', jsonb_build_object('urge_passed', m.passed, 'relapsed', m.relapsed, 'ongoing_struggle', m.ongoing),
	'urge_by_weekday', COALESCE(bw.days, '[]'::jsonb)), $4
FROM main m
JOIN wk w ON w.user_id = m.user_id
LEFT JOIN trig t ON t.user_id = m.user_id
LEFT JOIN strat st ON st.user_id = m.user_id
LEFT JOIN times ti ON ti.user_id = m.user_id
LEFT JOIN days d ON d.user_id = m.user_id
LEFT JOIN by_weekday bw ON bw.user_id = m.user_id
LEFT JOIN zones z ON z.user_id = m.user_id
WHERE m.sessions > 0
ON CONFLICT (user_id, week_ending) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`

// weeklySQLRow is what checkWeeklyAgree reads of the statement's rows.
type weeklySQLRow struct {
	TotalSessionsCompleted int            `json:"total_sessions_completed"`
	TotalMinutes           int            `json:"total_minutes"`
	AverageUrgeIntensity   *float64       `json:"average_urge_intensity"`
	UrgeSessions           int            `json:"urge_sessions"`
	StreakLength           int            `json:"streak_length"`
	CommonTriggers         map[string]int `json:"common_triggers"`
	SuccessfulStrategies   []struct {
		Strategy  string `json:"strategy"`
		Uses      int    `json:"uses"`
		Successes int    `json:"successes"`
	} `json:"successful_strategies"`
	VulnerabilityTimes map[string]int               `json:"vulnerability_times"`
	VulnerabilityDays  map[string]int               `json:"vulnerability_days"`
	StepWorkProgress   aggregate.StepProgress       `json:"step_work_progress"`
	Outcomes           aggregate.OutcomeCounts      `json:"outcomes"`
	UrgeByWeekday      []aggregate.WeekdayIntensity `json:"urge_by_weekday"`
}

// checkWeeklyAgree compares the batch's and the statement's rows of the
// first weeklyCheckUsers users field by field: the statement is only a fair
// yardstick if it computes the same numbers.
func checkWeeklyAgree(b *testing.B, fx *weeklyFixture) {
	ctx := context.Background()
	rows, err := fx.pool.Query(ctx, `SELECT g.user_id, g.data, s.data FROM mnemo_weekly_analytics g
		JOIN bench_weekly_sql s ON s.user_id = g.user_id AND s.week_ending = g.week_ending
		WHERE g.week_ending = $1 ORDER BY g.user_id LIMIT $2`, weeklyWeek, weeklyCheckUsers)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	checked := 0
	for rows.Next() {
		var (
			id             string
			goData, sqData []byte
			g              aggregate.WeeklyAnalytics
			s              weeklySQLRow
		)
		if err := rows.Scan(&id, &goData, &sqData); err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(goData, &g); err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(sqData, &s); err != nil {
			b.Fatal(err)
		}
		var diffs []string
		diff := func(field string, got, want any) {
			if fmt.Sprint(got) != fmt.Sprint(want) {
				diffs = append(diffs, fmt.Sprintf("%s: batch %v, statement %v", field, want, got))
			}
		}
		diff("sessions", s.TotalSessionsCompleted, g.TotalSessionsCompleted)
		diff("minutes", s.TotalMinutes, g.TotalMinutes)
		diff("average urge", fmtPtr(s.AverageUrgeIntensity), fmtPtr(g.AverageUrgeIntensity))
		diff("urge sessions", s.UrgeSessions, g.UrgeSessions)
		diff("streak", s.StreakLength, g.StreakLength)
		diff("outcomes", s.Outcomes, g.Outcomes)
		diff("current step", fmtIntPtr(s.StepWorkProgress.CurrentStep), fmtIntPtr(g.StepWorkProgress.CurrentStep))
		diff("steps completed", s.StepWorkProgress.StepsCompleted, g.StepWorkProgress.StepsCompleted)
		for _, t := range g.CommonTriggers {
			diff("trigger "+t.Trigger, s.CommonTriggers[t.Trigger], t.Count)
		}
		if len(g.CommonTriggers) < aggregate.TopTriggers {
			diff("triggers", len(s.CommonTriggers), len(g.CommonTriggers))
		}
		strategies := map[string][2]int{}
		for _, st := range s.SuccessfulStrategies {
			strategies[st.Strategy] = [2]int{st.Uses, st.Successes}
		}
		diff("strategies", len(strategies), len(g.SuccessfulStrategies))
		for _, st := range g.SuccessfulStrategies {
			diff("strategy "+st.Strategy, strategies[st.Strategy], [2]int{st.Uses, st.Successes})
		}
		for _, t := range g.VulnerabilityTimes {
			diff("time "+t.Time, s.VulnerabilityTimes[t.Time], t.Frequency)
		}
		for _, d := range g.VulnerabilityDays {
			diff("day "+d.Day, s.VulnerabilityDays[d.Day], d.Frequency)
		}
		diff("urge by weekday", s.UrgeByWeekday, g.UrgeByWeekday)
		if len(diffs) > 0 {
			b.Fatalf("user %s: the batch and the single statement disagree:\n%s", id, strings.Join(diffs, "\n"))
		}
		checked++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	if checked < min(weeklyCheckUsers, fx.users) {
		b.Fatalf("compared %d users' rows; want %d", checked, min(weeklyCheckUsers, fx.users))
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64)
}

func fmtIntPtr(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}

// TTL expiry fixture and load.
const (
	ttlMemories = 1_000_000
	ttlUsers    = 10_000
	// ttlRate is the handoff load, in sessions per second, during the expiry.
	ttlRate = 150
	// ttlMaxHandoffs bounds the load however long the expiry takes.
	ttlMaxHandoffs = ttlRate * 900
	// ttlWarmup and ttlBaseline are how long the same load runs before the
	// expiry: first unmeasured, then measured for the handoff's latency on
	// its own.
	ttlWarmup   = 2 * time.Second
	ttlBaseline = 5 * time.Second
)

// BenchmarkTTLExpiryUnderLoad seeds 1 M active memories of 10 k users whose
// expiry has passed and serves the handoff API as the worker does (one
// store and pool for the API and the batches, an insert-only queue, real
// HTTP on loopback). A chat service in a process of its own, so that this
// process's memory is the worker's, sends it 5 KB Mona handoffs at a
// constant rate in an open loop, and the memory-ttl batch runs meanwhile.
// It reports expired rows/s, the handoffs' latency (from the moment each was
// due) while the expiry ran and in the seconds before it, the pool's
// acquire waits, and this process's peak RSS during the expiry.
func BenchmarkTTLExpiryUnderLoad(b *testing.B) {
	if os.Getenv("TEST_DATABASE_URL") == "" {
		b.Skip("TEST_DATABASE_URL not set: the batch benchmarks need Postgres")
	}
	ctx := context.Background()
	b.StopTimer()
	e := newEnv(b, backend{store.DialectPostgres, openPostgres})
	pg, ok := e.st.(*store.Postgres)
	if !ok {
		b.Fatalf("store %T is not Postgres", e.st)
	}
	pool := pg.Pool()
	now := time.Now().UTC()
	start := time.Now()
	seedMemories(b, pool, now)
	b.Logf("seeded %d expired memories of %d users in %s", ttlMemories, ttlUsers, time.Since(start).Round(time.Second))
	base := serveAPI(b, e)
	scheds, err := jobs.ParseSchedules(nil)
	if err != nil {
		b.Fatal(err)
	}
	deps := &jobs.Deps{Store: e.st, Apps: e.apps, Keys: e.keys, Queue: e.queue, Schedules: scheds, Logger: infoLogger()}

	var (
		took               time.Duration
		during, baseline   latencies
		expired            int64
		peak               float64
		acquires           int64
		acquireWait        time.Duration
		baseAcquires       int64
		baseAcquireWait    time.Duration
		sentDuring, failed int
	)
	u0 := readUsage(b)
	for i := range b.N {
		if i > 0 {
			reactivateMemories(b, pool)
		}
		load := startHandoffLoad(b, base, ttlRate)
		<-time.After(ttlWarmup)
		sb0 := pool.Stat()
		baseFrom := time.Now()
		<-time.After(ttlBaseline)
		baseTo := time.Now()
		sb1 := pool.Stat()
		baseAcquires += sb1.AcquireCount() - sb0.AcquireCount()
		baseAcquireWait += sb1.EmptyAcquireWaitTime() - sb0.EmptyAcquireWaitTime()
		runtime.GC()
		debug.FreeOSMemory()
		rss := watchRSS()
		st0 := pool.Stat()
		from := time.Now()
		b.StartTimer()
		n, err := jobs.RunBatch(ctx, deps, jobs.BatchMemoryTTL, "", time.Now())
		b.StopTimer()
		to := time.Now()
		st1 := pool.Stat()
		peak = max(peak, rss.stop())
		res := load.stop(b)
		if err != nil {
			b.Fatal(err)
		}
		if n != ttlMemories {
			b.Fatalf("the batch expired %d memories; want %d", n, ttlMemories)
		}
		var active int64
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM mnemo_memories WHERE status = 'active'").Scan(&active); err != nil || active != 0 {
			b.Fatalf("%d memories still active after the batch (%v)", active, err)
		}
		took += to.Sub(from)
		expired += n
		acquires += st1.AcquireCount() - st0.AcquireCount()
		acquireWait += st1.EmptyAcquireWaitTime() - st0.EmptyAcquireWaitTime()
		baseline = append(baseline, res.dueIn(baseFrom, baseTo)...)
		lat := res.dueIn(from, to)
		during = append(during, lat...)
		sentDuring += len(lat)
		failed += res.failed
	}
	used := readUsage(b).since(u0)
	if failed > 0 {
		b.Fatalf("%d handoffs failed", failed)
	}
	b.ReportMetric(float64(expired)/took.Seconds(), "rows/s")
	b.ReportMetric(took.Seconds()/float64(b.N), "expiry-s")
	b.ReportMetric(float64(sentDuring)/took.Seconds(), "handoff-req/s")
	b.ReportMetric(ms(during.quantile(0.5)), "handoff-p50-ms")
	b.ReportMetric(ms(during.quantile(0.99)), "handoff-p99-ms")
	b.ReportMetric(ms(during.quantile(1)), "handoff-max-ms")
	b.ReportMetric(ms(baseline.quantile(0.5)), "idle-p50-ms")
	b.ReportMetric(ms(baseline.quantile(0.99)), "idle-p99-ms")
	if acquires > 0 {
		b.ReportMetric(ms(acquireWait)/float64(acquires), "pool-wait-ms/acquire")
	}
	if baseAcquires > 0 {
		b.ReportMetric(ms(baseAcquireWait)/float64(baseAcquires), "idle-pool-wait-ms/acquire")
	}
	if peak > 0 {
		b.ReportMetric(peak, "peak-rss-MB")
	}
	if used.total > 0 {
		b.ReportMetric(100*float64(used.busy)/float64(used.total), "host-busy-%")
	}
}

// BenchmarkTTLExpiryAlone runs the memory-ttl batch over the same 1 M
// expired memories with nothing else on the worker: what the expiry costs
// by itself, against which BenchmarkTTLExpiryUnderLoad shows the load's
// effect.
func BenchmarkTTLExpiryAlone(b *testing.B) {
	if os.Getenv("TEST_DATABASE_URL") == "" {
		b.Skip("TEST_DATABASE_URL not set: the batch benchmarks need Postgres")
	}
	ctx := context.Background()
	b.StopTimer()
	st := openPostgres(b)
	pool := st.(*store.Postgres).Pool()
	seedMemories(b, pool, time.Now().UTC())
	scheds, err := jobs.ParseSchedules(nil)
	if err != nil {
		b.Fatal(err)
	}
	deps := &jobs.Deps{Store: st, Schedules: scheds, Logger: infoLogger()}
	var (
		took    time.Duration
		expired int64
		peak    float64
	)
	u0 := readUsage(b)
	for i := range b.N {
		if i > 0 {
			reactivateMemories(b, pool)
		}
		runtime.GC()
		debug.FreeOSMemory()
		rss := watchRSS()
		from := time.Now()
		b.StartTimer()
		n, err := jobs.RunBatch(ctx, deps, jobs.BatchMemoryTTL, "", time.Now())
		b.StopTimer()
		took += time.Since(from)
		peak = max(peak, rss.stop())
		if err != nil {
			b.Fatal(err)
		}
		if n != ttlMemories {
			b.Fatalf("the batch expired %d memories; want %d", n, ttlMemories)
		}
		expired += n
	}
	used := readUsage(b).since(u0)
	b.ReportMetric(float64(expired)/took.Seconds(), "rows/s")
	b.ReportMetric(took.Seconds()/float64(b.N), "expiry-s")
	if peak > 0 {
		b.ReportMetric(peak, "peak-rss-MB")
	}
	if used.total > 0 {
		b.ReportMetric(100*float64(used.busy)/float64(used.total), "host-busy-%")
	}
}

// seedMemories COPYs ttlUsers Mona users and ttlMemories active memories,
// a hundred per user, that expired over the 30 days before now, roughly in
// the order they were written (one TTL per category), then vacuums them.
func seedMemories(b *testing.B, pool *pgxpool.Pool, now time.Time) {
	ctx := context.Background()
	created := now.AddDate(0, -3, 0)
	span := 30 * 24 * time.Hour
	err := copyTable(ctx, pool, "mnemo_users", []string{"id", "app", "timezone", "created_at", "updated_at"}, ttlUsers, func(i int) []any {
		return []any{fmt.Sprintf("ttl-u-%05d", i), "mona", "Europe/Berlin", created, created}
	})
	if err != nil {
		b.Fatal(err)
	}
	err = copyTable(ctx, pool, "mnemo_memories",
		[]string{"id", "user_id", "app", "key", "value", "category", "importance", "confidence", "status", "source_session_id", "confirmations", "expires_at", "created_at", "updated_at"},
		ttlMemories, func(k int) []any {
			// In expiry order, with up to an hour of jitter.
			exp := now.Add(-span - time.Minute).Add(time.Duration(k) * (span / ttlMemories)).Add(-time.Duration((k*7919)%3600) * time.Second)
			made := exp.Add(-7 * 24 * time.Hour)
			return []any{store.NewID(), fmt.Sprintf("ttl-u-%05d", k%ttlUsers), "mona", fmt.Sprintf("event:e%03d", k/ttlUsers),
				"an upcoming event the user mentioned", "event", 60, 0.8, store.MemoryActive, "s-seed", 1, exp, made, made}
		})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) mnemo_users, mnemo_memories"); err != nil {
		b.Fatal(err)
	}
}

// reactivateMemories undoes an expiry run for the next run of b.N.
func reactivateMemories(b *testing.B, pool *pgxpool.Pool) {
	ctx := context.Background()
	for _, q := range []string{
		"UPDATE mnemo_memories SET status = 'active'",
		"DELETE FROM mnemo_memory_history",
		"VACUUM (ANALYZE) mnemo_memories, mnemo_memory_history",
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// steadySend is one handoff of an open-loop load: when it was due, how long
// it took from then, and whether it failed.
type steadySend struct {
	due  time.Time
	took time.Duration
	err  error
}

// steadyResult is what an open-loop load sent.
type steadyResult struct {
	sent   []steadySend
	failed int
}

// dueIn is the latencies of the handoffs due in [from, to].
func (r steadyResult) dueIn(from, to time.Time) latencies {
	var out latencies
	for _, s := range r.sent {
		if !s.due.Before(from) && !s.due.After(to) {
			out = append(out, s.took)
		}
	}
	return out
}

// steadyLoad sends at rate per second in an open loop until stop is closed
// or max sends were due: each send starts when it is due, whether or not
// earlier ones returned, and its latency counts from then, so that a
// stalled server cannot hide its queue. It waits for the sends in flight.
func steadyLoad(ctx context.Context, rate float64, limit int, stop <-chan struct{}, send func(context.Context) error) steadyResult {
	interval := time.Duration(float64(time.Second) / rate)
	var (
		mu  sync.Mutex
		res steadyResult
		wg  sync.WaitGroup
	)
	start := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i := 0; i < limit; i++ {
		due := start.Add(time.Duration(i) * interval)
		timer.Reset(time.Until(due))
		select {
		case <-stop:
			i = limit
			continue
		case <-timer.C:
		}
		wg.Go(func() {
			err := send(ctx)
			took := time.Since(due)
			mu.Lock()
			res.sent = append(res.sent, steadySend{due: due, took: took, err: err})
			if err != nil {
				res.failed++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return res
}

// handoffLoadEnv tells this test binary to be the chat service sending the
// TTL benchmark's handoffs: "base-url rate".
const handoffLoadEnv = "MNEMO_BENCH_HANDOFF_LOAD"

// TestHandoffLoadProcess is not a test: run by startHandoffLoad in a child
// process, it sends 5 KB Mona handoffs to the API at a constant rate until
// its standard input closes (at most ttlMaxHandoffs), then prints one line
// per handoff: when it was due (Unix ns), its latency (ns), and "ok" or the
// error.
func TestHandoffLoadProcess(t *testing.T) {
	spec := os.Getenv(handoffLoadEnv)
	if spec == "" {
		t.Skip("the TTL benchmark's chat service; it starts it")
	}
	base, rateText, ok := strings.Cut(spec, " ")
	rate, err := strconv.ParseFloat(rateText, 64)
	if !ok || err != nil || rate <= 0 {
		t.Fatalf("%s=%q: want \"base-url rate\"", handoffLoadEnv, spec)
	}
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	bodies := make([][]byte, users)
	for i := range bodies {
		if bodies[i], err = json.Marshal(monaSession(userID(i), t0)); err != nil {
			t.Fatal(err)
		}
	}
	tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: time.Minute, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &client{hc: &http.Client{Transport: tr, Timeout: 5 * time.Minute}, base: base}
	prefix := "ttl-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
	var seq atomic.Int64
	send := func(ctx context.Context) error {
		n := seq.Add(1)
		return c.closeSession(ctx, prefix+strconv.FormatInt(n, 10), bodies[n%int64(len(bodies))])
	}
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	fmt.Println("handoff-load-started")
	res := steadyLoad(context.Background(), rate, ttlMaxHandoffs, stop, send)
	out := bufio.NewWriter(os.Stdout)
	for _, s := range res.sent {
		status := "ok"
		if s.err != nil {
			status = strings.ReplaceAll(s.err.Error(), "\n", " ")
		}
		fmt.Fprintf(out, "sent %d %d %s\n", s.due.UnixNano(), s.took.Nanoseconds(), status)
	}
	fmt.Fprintln(out, "handoff-load-done")
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
}

// handoffLoad is the chat service's process.
type handoffLoad struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Scanner
}

// startHandoffLoad starts this test binary as the chat service, sending to
// base at rate handoffs per second, and returns once it sends.
func startHandoffLoad(b *testing.B, base string, rate float64) *handoffLoad {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHandoffLoadProcess$", "-test.timeout=0")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %g", handoffLoadEnv, base, rate))
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
	l := &handoffLoad{cmd: cmd, stdin: stdin, stdout: bufio.NewScanner(stdout)}
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for l.stdout.Scan() {
		if l.stdout.Text() == "handoff-load-started" {
			return l
		}
	}
	b.Fatal("the chat service process exited before sending")
	return nil
}

// stop tells the chat service to stop, waits for its handoffs in flight,
// and reads what it sent.
func (l *handoffLoad) stop(b *testing.B) steadyResult {
	b.Helper()
	_ = l.stdin.Close()
	var (
		res  steadyResult
		done bool
	)
	for l.stdout.Scan() {
		line := l.stdout.Text()
		if line == "handoff-load-done" {
			done = true
			continue
		}
		f := strings.SplitN(line, " ", 4)
		if len(f) != 4 || f[0] != "sent" {
			continue // the test binary's own output
		}
		due, err1 := strconv.ParseInt(f[1], 10, 64)
		took, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("chat service: %q", line)
		}
		s := steadySend{due: time.Unix(0, due), took: time.Duration(took)}
		if f[3] != "ok" {
			s.err = errors.New(f[3])
			res.failed++
		}
		res.sent = append(res.sent, s)
	}
	if err := l.cmd.Wait(); err != nil || !done {
		b.Fatalf("the chat service process ended early (%v)", err)
	}
	for _, s := range res.sent {
		if s.err != nil {
			b.Errorf("handoff failed: %v", s.err)
			break
		}
	}
	return res
}

// rssWatch measures this process's peak resident set size over a stretch
// of work: the kernel's high-water mark, reset at the start where Linux
// allows, and a 10 ms sample of the current size as a floor.
type rssWatch struct {
	reset bool
	max   atomic.Int64 // kB
	stopc chan struct{}
	done  chan struct{}
}

func watchRSS() *rssWatch {
	w := &rssWatch{stopc: make(chan struct{}), done: make(chan struct{})}
	// "5" resets VmHWM to the current RSS (Linux ≥ 4.0).
	w.reset = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	go func() {
		defer close(w.done)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			if kb, ok := procStatusKB("VmRSS"); ok && kb > w.max.Load() {
				w.max.Store(kb)
			}
			select {
			case <-w.stopc:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// stop ends the watch and returns the peak in MB (0 where /proc is missing).
func (w *rssWatch) stop() float64 {
	close(w.stopc)
	<-w.done
	peak := w.max.Load()
	if w.reset {
		if hwm, ok := procStatusKB("VmHWM"); ok {
			peak = max(peak, hwm)
		}
	}
	return float64(peak) / 1024
}

// procStatusKB reads a "Name:  123 kB" line of /proc/self/status.
func procStatusKB(name string) (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		v, ok := strings.CutPrefix(s.Text(), name+":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		return n, err == nil
	}
	return 0, false
}
