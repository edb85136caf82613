package store_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// BenchmarkScrubJobs measures an erasure's scrub of River's job table:
// MNEMO_BENCH_SCRUB_JOBS finished jobs (5000 for the issue 25 figure), one
// in a hundred of them naming, in a log line, one of the erased user's
// MNEMO_BENCH_SCRUB_IDS sessions (1000), the others another user's. It
// reports the scrub's milliseconds; the scrub must delete exactly the jobs
// that name the user. Unset, it is skipped.
//
//	MNEMO_BENCH_SCRUB_JOBS=5000 TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/mnemo?sslmode=disable' \
//	    go test ./store -run '^$' -bench ScrubJobs -benchtime 1x
func BenchmarkScrubJobs(b *testing.B) {
	jobs, _ := strconv.Atoi(os.Getenv("MNEMO_BENCH_SCRUB_JOBS"))
	if jobs <= 0 {
		b.Skip("set MNEMO_BENCH_SCRUB_JOBS to run it")
	}
	ids := 1000
	if n, _ := strconv.Atoi(os.Getenv("MNEMO_BENCH_SCRUB_IDS")); n > 0 {
		ids = n
	}
	for _, bk := range storetest.Backends(b) {
		b.Run(bk.Name, func(b *testing.B) {
			ctx := context.Background()
			var took time.Duration
			for range b.N {
				b.StopTimer()
				st := bk.Open(b)
				if _, err := queue.MigrateRiver(ctx, st); err != nil {
					b.Fatal(err)
				}
				seed := `INSERT INTO river_job (args, kind, max_attempts, metadata, queue, state, finalized_at)
					SELECT jsonb_build_object('session_id', 'o-' || g), 'extract', 5,
						jsonb_build_object('river:log', jsonb_build_array(jsonb_build_object('attempt', 1, 'log',
							'session ' || CASE WHEN g % 100 = 0 THEN 'v-s' || ((g / 100) % $2) ELSE 'o-' || g END || ' processed'))),
						'default', 'completed', now()
					FROM generate_series(1, $1) AS g`
				var err error
				switch s := st.(type) {
				case *store.Postgres:
					_, err = s.Pool().Exec(ctx, seed, jobs, ids)
				case *store.SQLite:
					_, err = s.DB().ExecContext(ctx, `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?1)
						INSERT INTO river_job (args, kind, max_attempts, metadata, queue, state, finalized_at)
						SELECT jsonb(json_object('session_id', 'o-' || n)), 'extract', 5,
							jsonb(json_object('river:log', json_array(json_object('attempt', 1, 'log',
								'session ' || CASE WHEN n % 100 = 0 THEN 'v-s' || ((n / 100) % ?2) ELSE 'o-' || n END || ' processed')))),
							'default', 'completed', CURRENT_TIMESTAMP
						FROM g`, jobs, ids)
				}
				if err != nil {
					b.Fatal(err)
				}
				refs := store.JobRefs{UserID: "v", SessionIDs: make([]string, ids), ExportIDs: []string{}}
				for i := range refs.SessionIDs {
					refs.SessionIDs[i] = fmt.Sprintf("v-s%d", i)
				}
				b.StartTimer()
				t0 := time.Now()
				deleted, running, err := st.ScrubJobs(ctx, refs)
				took += time.Since(t0)
				b.StopTimer()
				if err != nil || running != 0 || deleted != int64(jobs/100) {
					b.Fatalf("scrub deleted %d jobs, %d running (%v); want %d", deleted, running, err, jobs/100)
				}
			}
			b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "scrub-ms")
		})
	}
}
