package store_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// pgCounter counts every statement pgx sends (BEGIN and COMMIT included),
// a batch's each, in n; and the round trips in rts: a statement sent on its
// own is one, a batch one for all of its statements.
type pgCounter struct{ n, rts *atomic.Int64 }

func (c pgCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	c.rts.Add(1)
	if logStatements {
		fmt.Fprintf(os.Stderr, "stmt: %.110s\n", strings.Join(strings.Fields(d.SQL), " "))
	}
	return ctx
}
func (pgCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c pgCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.rts.Add(1)
	if logStatements {
		fmt.Fprintf(os.Stderr, "batch:\n")
	}
	return ctx
}
func (c pgCounter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.n.Add(1)
	if logStatements {
		fmt.Fprintf(os.Stderr, "stmt:   %.108s\n", strings.Join(strings.Fields(d.SQL), " "))
	}
}
func (pgCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// logStatements prints every Postgres statement counted (MNEMO_LOG_STATEMENTS=1).
var logStatements = os.Getenv("MNEMO_LOG_STATEMENTS") == "1"

// counts are what a counting backend counts: statements (n) and round
// trips (rts; on SQLite, in process, every statement is one).
type counts struct{ n, rts atomic.Int64 }

// countingBackends are the backends with every statement counted in c.
func countingBackends(tb testing.TB, c *counts) map[string]func(testing.TB) store.Store {
	out := map[string]func(testing.TB) store.Store{
		store.DialectSQLite: func(tb testing.TB) store.Store {
			s, err := store.OpenCountingSQLite(context.Background(), filepath.Join(tb.TempDir(), "mnemo.db"), &c.n)
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { _ = s.Close() })
			return s
		},
	}
	if os.Getenv("TEST_DATABASE_URL") != "" {
		out[store.DialectPostgres] = func(tb testing.TB) store.Store {
			cfg, err := store.PostgresConfig(os.Getenv("TEST_DATABASE_URL"), storetest.PostgresSchema(tb), 4)
			if err != nil {
				tb.Fatal(err)
			}
			cfg.ConnConfig.Tracer = pgCounter{&c.n, &c.rts}
			// Named, so that the benchmark finds its own backends.
			cfg.ConnConfig.RuntimeParams["application_name"] = "mnemo-stmts-" + store.NewID()
			s, err := store.OpenPostgres(context.Background(), cfg)
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { _ = s.Close() })
			return s
		}
	}
	return out
}

// backendCPU is the CPU time so far of each PostgreSQL backend of st's
// pool (by its application_name), read from /proc: nil on SQLite, or when
// the server's processes are not readable here.
func backendCPU(tb testing.TB, st store.Store) map[int]time.Duration {
	pg, ok := st.(*store.Postgres)
	if !ok {
		return nil
	}
	ctx := context.Background()
	rows, err := pg.Pool().Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE application_name = current_setting('application_name')`)
	if err != nil {
		tb.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		tb.Fatal(err)
	}
	out := map[int]time.Duration{}
	for _, pid := range pids {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return nil
		}
		// Fields after the command: utime and stime are the 12th and 13th.
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
		if len(f) < 13 {
			return nil
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		k, _ := strconv.ParseInt(f[12], 10, 64)
		out[int(pid)] = time.Duration(u+k) * time.Second / 100 // USER_HZ
	}
	return out
}

// cpuSince is the backends' CPU spent between two backendCPU readings (a
// backend that connected since counts from zero).
func cpuSince(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range after {
		d += t - before[pid]
	}
	return d
}

// monaTurns are ten turns of a Mona session in which the rules find three
// memories.
var monaTurns = []string{
	"Hi Mona! My name is Peggy. I finally have a quiet evening after a really long week at the office.",
	"Hi Peggy, it is lovely to meet you! What made the week so long?",
	"Mostly one big project. We are moving the whole team to a new planning tool, and I am the one who explains it.",
	"That sounds exhausting. How are you holding up with all of it?",
	"Honestly I'm feeling tired. Not sleepy exactly, more like my brain is full.",
	"That full-brain feeling is very real. Would you like to write the open things down?",
	"Something else, please. My favorite food is ramen, the proper kind with a rich broth.",
	"Ramen is a wonderful comfort food. Do you have a favourite place for it?",
	"I like jazz, especially old records. My grandfather left me his collection.",
	"A whole Sunday of ramen sounds like a lovely ritual!",
}

func monaSession(userID string, t0 time.Time) handoff.Request {
	req := handoff.Request{UserID: userID, App: "mona", StartedAt: t0, EndedAt: t0.Add(25 * time.Minute),
		Timezone: "Europe/Berlin", DisplayName: "Peggy"}
	for i, text := range monaTurns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		req.Messages = append(req.Messages, extract.Message{ID: "m" + strconv.Itoa(i+1), Role: role, Content: text,
			At: t0.Add(time.Duration(i) * time.Minute)})
	}
	req.Events = []extract.Event{
		{Type: "emotion", At: t0.Add(4 * time.Minute), MessageID: "m5", Data: json.RawMessage(`{"emotion":"tired","confidence":0.8}`)},
		{Type: "emotion", At: t0.Add(8 * time.Minute), MessageID: "m9", Data: json.RawMessage(`{"emotion":"calm","confidence":0.7}`)},
	}
	return req
}

// sessionRig hands Mona sessions over and extracts them with the rules,
// counting the statements of each.
type sessionRig struct {
	st   store.Store
	c    *counts
	deps *jobs.Deps
	q    queue.Queue
	w    *jobs.ExtractWorker
}

func newSessionRig(tb testing.TB, open func(testing.TB) store.Store, c *counts) *sessionRig {
	ctx := context.Background()
	st := open(tb)
	if _, err := st.MigrateUp(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		tb.Fatal(err)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		tb.Fatal(err)
	}
	keys, err := seal.ParseKeys("k1:" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef")))
	if err != nil {
		tb.Fatal(err)
	}
	q, err := queue.New(st, queue.Config{}) // insert-only: the benchmark works the jobs itself
	if err != nil {
		tb.Fatal(err)
	}
	deps := &jobs.Deps{Store: st, Apps: apps, Keys: keys, Queue: q}
	return &sessionRig{st: st, c: c, deps: deps, q: q, w: jobs.NewExtractWorker(deps)}
}

// tally is the statements and round trips of a handoff and an extraction.
type tally struct{ handoffN, handoffRTs, extractN, extractRTs int64 }

func (t *tally) add(u tally) {
	t.handoffN, t.handoffRTs, t.extractN, t.extractRTs = t.handoffN+u.handoffN, t.handoffRTs+u.handoffRTs,
		t.extractN+u.extractN, t.extractRTs+u.extractRTs
}

// session hands one session over and extracts it; it returns the
// statements and round trips each took.
func (r *sessionRig) session(tb testing.TB, userID, sessionID string, t0 time.Time) tally {
	ctx := context.Background()
	req := monaSession(userID, t0)
	now := time.Now()
	if err := handoff.Validate(sessionID, &req, r.deps.Apps, now); err != nil {
		tb.Fatal(err)
	}
	n0, rt0 := r.c.n.Load(), r.c.rts.Load()
	var res handoff.Result
	err := r.st.InTx(ctx, func(ctx context.Context, tx store.Tx) (err error) {
		res, err = handoff.Close(ctx, tx, handoff.Deps{Queue: r.q, Apps: r.deps.Apps, Keys: r.deps.Keys}, sessionID, req, now)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	n1, rt1 := r.c.n.Load(), r.c.rts.Load()
	job := &river.Job[queue.ExtractArgs]{Args: queue.ExtractArgs{SessionID: sessionID},
		JobRow: &rivertype.JobRow{ID: res.Jobs[0].ID, Attempt: 1, MaxAttempts: 5}}
	if err := r.w.Work(ctx, job); err != nil {
		tb.Fatal(err)
	}
	n2, rt2 := r.c.n.Load(), r.c.rts.Load()
	if r.st.Dialect() == store.DialectSQLite { // in process: a statement is a round trip
		rt0, rt1, rt2 = n0, n1, n2
	}
	return tally{n1 - n0, rt1 - rt0, n2 - n1, rt2 - rt1}
}

// BenchmarkStatementsPerSession reports the statements and round trips
// (BEGIN and COMMIT included, River's insert too) of one handoff and one
// rules-only extraction of a ten-turn Mona session in which the rules find
// three memories, for a new user and for a returning one (a user with ten
// sessions already). The counts do not depend on the machine. On Postgres,
// when the server's processes can be read (a local server), it also reports
// the CPU its backends spent per session (handoff and extraction), which
// does depend on it.
//
//	go test ./store -run '^$' -bench StatementsPerSession -benchtime 50x
func BenchmarkStatementsPerSession(b *testing.B) {
	var c counts
	for name, open := range countingBackends(b, &c) {
		for _, returning := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/returning=%v", name, returning), func(b *testing.B) {
				r := newSessionRig(b, open, &c)
				t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Minute)
				if returning {
					for i := range 10 {
						r.session(b, "u-back", fmt.Sprintf("warm-%d", i), t0.Add(time.Duration(i-20)*time.Hour))
					}
				}
				var sum tally
				cpu0 := backendCPU(b, r.st)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					user := fmt.Sprintf("u-%d", i)
					if returning {
						user = "u-back"
					}
					sum.add(r.session(b, user, fmt.Sprintf("s-%d", i), t0.Add(time.Duration(i)*time.Minute)))
				}
				b.StopTimer()
				per := func(v int64) float64 { return float64(v) / float64(b.N) }
				b.ReportMetric(per(sum.handoffN), "stmts/handoff")
				b.ReportMetric(per(sum.extractN), "stmts/extraction")
				if name == store.DialectPostgres {
					b.ReportMetric(per(sum.handoffRTs), "rts/handoff")
					b.ReportMetric(per(sum.extractRTs), "rts/extraction")
					if cpu0 != nil {
						if cpu1 := backendCPU(b, r.st); cpu1 != nil {
							b.ReportMetric(float64(cpuSince(cpu0, cpu1).Microseconds())/float64(b.N), "pg-cpu-µs/session")
						}
					}
				}
			})
		}
	}
}

// TestStatementsPerSession checks that a Mona session's extraction stores
// what the benchmark counts the statements of (three memories), and logs the
// counts.
func TestStatementsPerSession(t *testing.T) {
	var c counts
	for name, open := range countingBackends(t, &c) {
		t.Run(name, func(t *testing.T) {
			r := newSessionRig(t, open, &c)
			t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Minute)
			n := r.session(t, "u-1", "s-1", t0)
			mems, err := r.st.ListMemories(context.Background(), "u-1", store.MemoryFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(mems) != 3 {
				t.Fatalf("%d memories (%v); want the three the rules find", len(mems), mems)
			}
			t.Logf("%s: %d statements (%d round trips) per handoff, %d (%d) per extraction", name,
				n.handoffN, n.handoffRTs, n.extractN, n.extractRTs)
		})
	}
}

// BenchmarkLongHistory is BenchmarkStatementsPerSession's returning user
// with a long history of other things: history memories, each with one
// statement, under keys the benchmark's sessions never name. An
// extraction reads what its candidates' keys have (extract.KeysToRead), so
// its cost should not grow with them.
//
//	go test ./store -run '^$' -bench LongHistory -benchtime 200x
func BenchmarkLongHistory(b *testing.B) {
	var c counts
	for name, open := range countingBackends(b, &c) {
		for _, history := range []int{0, 5000} {
			b.Run(fmt.Sprintf("%s/history=%d", name, history), func(b *testing.B) {
				ctx := context.Background()
				r := newSessionRig(b, open, &c)
				t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Minute)
				r.session(b, "u-back", "warm", t0.Add(-time.Hour))
				for from := 0; from < history; from += 500 {
					var mems []store.Memory
					var stmts []store.Statement
					for i := from; i < min(from+500, history); i++ {
						at := t0.Add(-time.Duration(history-i) * time.Minute)
						id := fmt.Sprintf("h-%d", i)
						key := fmt.Sprintf("likes:thing %d", i)
						mems = append(mems, store.Memory{ID: id, UserID: "u-back", App: "mona", Key: key, Value: "thing", Category: "preference",
							Importance: 50, Confidence: 0.8, Status: store.MemoryActive, Confirmations: 1, CreatedAt: at, UpdatedAt: at, StatedAt: at})
						stmts = append(stmts, store.Statement{ID: "st-" + id, MemoryID: id, UserID: "u-back", Key: key, Value: "thing",
							Category: "preference", Importance: 50, Confidence: 0.8, StatedAt: at, SessionID: "warm", Weight: 1, CreatedAt: at})
					}
					if err := r.st.InsertMemories(ctx, mems); err != nil {
						b.Fatal(err)
					}
					if err := r.st.InsertStatements(ctx, stmts); err != nil {
						b.Fatal(err)
					}
				}
				cpu0 := backendCPU(b, r.st)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					r.session(b, "u-back", fmt.Sprintf("s-%d", i), t0.Add(time.Duration(i)*time.Minute))
				}
				b.StopTimer()
				if cpu0 != nil {
					if cpu1 := backendCPU(b, r.st); cpu1 != nil {
						b.ReportMetric(float64(cpuSince(cpu0, cpu1).Microseconds())/float64(b.N), "pg-cpu-µs/session")
					}
				}
			})
		}
	}
}
