package jobs_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// BenchmarkExtractionLongHistory is issue 25's extraction aim: the cost of
// extracting a session for a user with 10,000 memories, one of whose keys
// (the name) was said in 1,000 sessions, against a new user's. Each
// iteration extracts one Mona session (rules: name, favorite food) of a
// new user and one of the returning user, alternately, sessions a day
// apart. It reports each one's ms/op and their ratio (aim: ≤ 1.5), and
// on Postgres the statements each sent (counted by a pgx tracer: queries,
// pipelined statements, BEGIN and COMMIT). The user's history is seeded
// through the store API before the clock starts; a warm-up extraction of
// each user (the returning user's folds the 1,000 statements, reported as
// fold-ms) is not timed.
//
//	go test ./jobs -run '^$' -bench ExtractionLongHistory -benchtime 200x
//	TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/mnemo?sslmode=disable' go test ./jobs -run '^$' -bench ExtractionLongHistory -benchtime 200x
func BenchmarkExtractionLongHistory(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchLongHistory(b, storetest.SQLite(b), nil) })
	if os.Getenv("TEST_DATABASE_URL") == "" {
		return
	}
	b.Run("postgres", func(b *testing.B) {
		var n atomic.Int64
		cfg, err := store.PostgresConfig(os.Getenv("TEST_DATABASE_URL"), storetest.PostgresSchema(b), 8)
		if err != nil {
			b.Fatal(err)
		}
		cfg.ConnConfig.Tracer = statementCounter{&n}
		st, err := store.OpenPostgres(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		if _, err := st.MigrateUp(context.Background()); err != nil {
			b.Fatal(err)
		}
		benchLongHistory(b, st, &n)
	})
}

const (
	historyMemories = 10_000
	historySaid     = 1_000
)

func benchLongHistory(b *testing.B, st store.Store, statements *atomic.Int64) {
	ctx := context.Background()
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		b.Fatal(err)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	keys, err := seal.ParseKeys(testKey)
	if err != nil {
		b.Fatal(err)
	}
	deps := &jobs.Deps{Store: st, Apps: apps, Keys: keys}
	q, err := queue.New(st, queue.Config{})
	if err != nil {
		b.Fatal(err)
	}
	deps.Queue = q
	w := jobs.NewExtractWorker(deps)

	now := time.Now().UTC().Truncate(time.Minute)
	// Sessions a day apart, the last 31 days ago (older than the fold's
	// age), the history before them.
	first := now.AddDate(0, 0, -(b.N + 31))
	t0 := time.Now()
	seedHistory(b, st, "u-old", first, historyMemories, historySaid)
	// A returning user with a short history (10 memories, the name said in
	// 10 sessions): what a returning user's session costs whatever its
	// history (its statements written, its memories confirmed), against
	// which the long history's cost is the cost of data size alone.
	seedHistory(b, st, "u-short", first, 10, 10)
	b.Logf("seeded in %s", time.Since(t0))

	extractOne := func(id, user string, at time.Time) time.Duration {
		req := handoff.Request{UserID: user, App: "mona", StartedAt: at, EndedAt: at.Add(10 * time.Minute), Timezone: "Europe/Berlin",
			Messages: []extract.Message{
				{ID: "m1", Role: "user", Content: "Hi! My name is Peggy.", At: at.Add(time.Minute)},
				{ID: "m2", Role: "user", Content: "My favorite food is ramen.", At: at.Add(2 * time.Minute)},
			}}
		if err := handoff.Validate(id, &req, apps, time.Now()); err != nil {
			b.Fatal(err)
		}
		var res handoff.Result
		if err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) (err error) {
			res, err = handoff.Close(ctx, tx, handoff.Deps{Queue: q, Apps: apps, Keys: keys}, id, req, time.Now())
			return err
		}); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := w.Work(ctx, &river.Job[queue.ExtractArgs]{JobRow: &rivertype.JobRow{ID: res.Jobs[0].ID, Attempt: 1, MaxAttempts: 5},
			Args: queue.ExtractArgs{SessionID: id}}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	counted := func(f func() time.Duration) (time.Duration, int64) {
		if statements == nil {
			return f(), 0
		}
		before := statements.Load()
		d := f()
		return d, statements.Load() - before
	}

	// Warm-up: the returning user's first extraction folds its long run.
	fold := extractOne("old-warm", "u-old", first.Add(-12*time.Hour))
	extractOne("new-warm", "u-new-warm", first.Add(-12*time.Hour))
	extractOne("short-warm", "u-short", first.Add(-12*time.Hour))
	sts, err := st.ListStatements(ctx, "u-old", []string{"name"})
	if err != nil {
		b.Fatal(err)
	}
	if len(sts) > 2*historyFoldKeep {
		b.Fatalf("%d statements of the name after the warm-up; want the long run folded", len(sts))
	}

	var newTook, oldTook, shortTook time.Duration
	var newStmts, oldStmts, shortStmts int64
	b.ResetTimer()
	for i := range b.N {
		at := first.Add(time.Duration(i) * 24 * time.Hour)
		d, n := counted(func() time.Duration { return extractOne(fmt.Sprintf("new-%06d", i), fmt.Sprintf("u-new-%06d", i), at) })
		newTook, newStmts = newTook+d, newStmts+n
		d, n = counted(func() time.Duration { return extractOne(fmt.Sprintf("old-%06d", i), "u-old", at.Add(time.Hour)) })
		oldTook, oldStmts = oldTook+d, oldStmts+n
		d, n = counted(func() time.Duration { return extractOne(fmt.Sprintf("short-%06d", i), "u-short", at.Add(2*time.Hour)) })
		shortTook, shortStmts = shortTook+d, shortStmts+n
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(newTook), "new-ms/op")
	b.ReportMetric(ms(oldTook), "returning-ms/op")
	b.ReportMetric(ms(shortTook), "short-ms/op")
	b.ReportMetric(float64(oldTook)/float64(newTook), "ratio")
	b.ReportMetric(float64(oldTook)/float64(shortTook), "ratio-short")
	b.ReportMetric(float64(fold.Microseconds())/1000, "fold-ms")
	if statements != nil {
		b.ReportMetric(float64(newStmts)/float64(b.N), "new-stmts/op")
		b.ReportMetric(float64(oldStmts)/float64(b.N), "returning-stmts/op")
		b.ReportMetric(float64(shortStmts)/float64(b.N), "short-stmts/op")
	}
	if sts, err = st.ListStatements(ctx, "u-old", []string{"name"}); err != nil || len(sts) > 2*historyFoldKeep+1 {
		b.Fatalf("%d statements of the name after %d sessions (%v); want at most %d", len(sts), b.N, err, 2*historyFoldKeep+1)
	}
}

const historyFoldKeep = 16 // jobs' foldKeep

// seedHistory stores, through the store API, a Mona user with memories
// (10,000 in the benchmark's long history) of one statement each, and a
// name said in said sessions (1,000), one a day, ending before before.
func seedHistory(b *testing.B, st store.Store, user string, before time.Time, memories, said int) {
	ctx := context.Background()
	since := before.AddDate(0, 0, -said-1)
	if err := st.UpsertUser(ctx, store.User{ID: user, App: "mona", Timezone: "Europe/Berlin", CreatedAt: since, UpdatedAt: since}); err != nil {
		b.Fatal(err)
	}
	var mems []store.Memory
	var stmts []store.Statement
	for i := range memories {
		at := since.Add(time.Duration(i) * time.Hour)
		m := store.Memory{ID: store.NewID(), UserID: user, App: "mona", Key: fmt.Sprintf("likes:thing %05d", i), Value: "yes",
			Category: extract.CategoryPreference, Importance: 50, Confidence: 0.8, Status: store.MemoryActive, Confirmations: 1,
			SourceSessionID: fmt.Sprintf("h-%04d", i%said), SourceMessageID: "m1", StatedAt: at, CreatedAt: at, UpdatedAt: at}
		mems = append(mems, m)
		stmts = append(stmts, store.Statement{MemoryID: m.ID, UserID: user, Key: m.Key, Value: m.Value, Category: m.Category,
			Importance: m.Importance, Confidence: m.Confidence, StatedAt: at, SessionID: m.SourceSessionID, MessageID: "m1", Weight: 1, CreatedAt: at})
	}
	name := store.Memory{ID: store.NewID(), UserID: user, App: "mona", Key: "name", Value: "Peggy", Category: extract.CategoryFact,
		Importance: 100, Confidence: 0.9, Status: store.MemoryActive, Confirmations: said, SourceSessionID: "h-0000",
		SourceMessageID: "m1", StatedAt: since, CreatedAt: since, UpdatedAt: since}
	mems = append(mems, name)
	for i := range said {
		at := since.AddDate(0, 0, i)
		stmts = append(stmts, store.Statement{MemoryID: name.ID, UserID: user, Key: "name", Value: "Peggy", Category: name.Category,
			Importance: 90, Confidence: 0.9, StatedAt: at, SessionID: fmt.Sprintf("h-%04d", i), MessageID: "m1", Weight: 1, CreatedAt: at})
	}
	// In slices of 40 rows: SQLite binds a statement of thousands of
	// numbered parameters slowly.
	for i := 0; i < len(mems); i += 40 {
		if err := st.InsertMemories(ctx, mems[i:min(len(mems), i+40)]); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < len(stmts); i += 40 {
		if err := st.InsertStatements(ctx, stmts[i:min(len(stmts), i+40)]); err != nil {
			b.Fatal(err)
		}
	}
}

// statementCounter counts the statements a pgx pool sends: queries,
// statements of a pipeline, and COPYs.
type statementCounter struct{ n *atomic.Int64 }

func (c statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c statementCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (c statementCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	c.n.Add(1)
}
func (statementCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
func (c statementCounter) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (statementCounter) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
