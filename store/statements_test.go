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
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// pgCounter counts every statement pgx sends (BEGIN and COMMIT included).
type pgCounter struct{ n *atomic.Int64 }

func (c pgCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	if logStatements {
		fmt.Fprintf(os.Stderr, "stmt: %.110s\n", strings.Join(strings.Fields(d.SQL), " "))
	}
	return ctx
}
func (pgCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// logStatements prints every Postgres statement counted (MNEMO_LOG_STATEMENTS=1).
var logStatements = os.Getenv("MNEMO_LOG_STATEMENTS") == "1"

// countingBackends are the backends with every statement counted in n.
func countingBackends(tb testing.TB, n *atomic.Int64) map[string]func(testing.TB) store.Store {
	out := map[string]func(testing.TB) store.Store{
		store.DialectSQLite: func(tb testing.TB) store.Store {
			s, err := store.OpenCountingSQLite(context.Background(), filepath.Join(tb.TempDir(), "mnemo.db"), n)
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
			cfg.ConnConfig.Tracer = pgCounter{n}
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
		{Kind: "emotion", At: t0.Add(4 * time.Minute), MessageID: "m5", Data: json.RawMessage(`{"emotion":"tired","confidence":0.8}`)},
		{Kind: "emotion", At: t0.Add(8 * time.Minute), MessageID: "m9", Data: json.RawMessage(`{"emotion":"calm","confidence":0.7}`)},
	}
	return req
}

// sessionRig hands Mona sessions over and extracts them with the rules,
// counting the statements of each.
type sessionRig struct {
	st   store.Store
	n    *atomic.Int64
	deps *jobs.Deps
	q    jobs.Queue
	w    *jobs.ExtractWorker
}

func newSessionRig(tb testing.TB, open func(testing.TB) store.Store, n *atomic.Int64) *sessionRig {
	ctx := context.Background()
	st := open(tb)
	if _, err := st.MigrateUp(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := jobs.MigrateRiver(ctx, st); err != nil {
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
	q, err := jobs.New(st, jobs.Config{}) // insert-only: the benchmark works the jobs itself
	if err != nil {
		tb.Fatal(err)
	}
	deps := &jobs.Deps{Store: st, Apps: apps, Keys: keys, Queue: q}
	return &sessionRig{st: st, n: n, deps: deps, q: q, w: jobs.NewExtractWorker(deps)}
}

// session hands one session over and extracts it; it returns the
// statements each took.
func (r *sessionRig) session(tb testing.TB, userID, sessionID string, t0 time.Time) (handoffN, extractN int64) {
	ctx := context.Background()
	req := monaSession(userID, t0)
	now := time.Now()
	if err := handoff.Validate(sessionID, &req, r.deps.Apps, now); err != nil {
		tb.Fatal(err)
	}
	before := r.n.Load()
	var res handoff.Result
	err := r.st.InTx(ctx, func(ctx context.Context, tx store.Tx) (err error) {
		res, err = handoff.Close(ctx, tx, handoff.Deps{Queue: r.q, Apps: r.deps.Apps, Keys: r.deps.Keys}, sessionID, req, now)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	mid := r.n.Load()
	job := &river.Job[jobs.ExtractArgs]{Args: jobs.ExtractArgs{SessionID: sessionID},
		JobRow: &rivertype.JobRow{ID: res.Jobs[0].ID, Attempt: 1, MaxAttempts: 5}}
	if err := r.w.Work(ctx, job); err != nil {
		tb.Fatal(err)
	}
	return mid - before, r.n.Load() - mid
}

// BenchmarkStatementsPerSession reports the statements (round trips: BEGIN
// and COMMIT included, River's insert too) of one handoff and one rules-only
// extraction of a ten-turn Mona session in which the rules find three
// memories, for a new user and for a returning one (a user with ten
// sessions already). The counts do not depend on the machine.
//
//	go test ./store -run '^$' -bench StatementsPerSession -benchtime 50x
func BenchmarkStatementsPerSession(b *testing.B) {
	var n atomic.Int64
	for name, open := range countingBackends(b, &n) {
		for _, returning := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/returning=%v", name, returning), func(b *testing.B) {
				r := newSessionRig(b, open, &n)
				t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Minute)
				if returning {
					for i := range 10 {
						r.session(b, "u-back", fmt.Sprintf("warm-%d", i), t0.Add(time.Duration(i-20)*time.Hour))
					}
				}
				var hs, xs int64
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					user := fmt.Sprintf("u-%d", i)
					if returning {
						user = "u-back"
					}
					h, x := r.session(b, user, fmt.Sprintf("s-%d", i), t0.Add(time.Duration(i)*time.Minute))
					hs, xs = hs+h, xs+x
				}
				b.ReportMetric(float64(hs)/float64(b.N), "stmts/handoff")
				b.ReportMetric(float64(xs)/float64(b.N), "stmts/extraction")
			})
		}
	}
}

// TestStatementsPerSession checks that a Mona session's extraction stores
// what the benchmark counts the statements of (three memories), and logs the
// counts.
func TestStatementsPerSession(t *testing.T) {
	var n atomic.Int64
	for name, open := range countingBackends(t, &n) {
		t.Run(name, func(t *testing.T) {
			r := newSessionRig(t, open, &n)
			t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Minute)
			h, x := r.session(t, "u-1", "s-1", t0)
			mems, err := r.st.ListMemories(context.Background(), "u-1", store.MemoryFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(mems) != 3 {
				t.Fatalf("%d memories (%v); want the three the rules find", len(mems), mems)
			}
			t.Logf("%s: %d statements per handoff, %d per extraction", name, h, x)
		})
	}
}
