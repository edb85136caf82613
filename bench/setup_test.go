package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// benchKey is a raw 32-byte key: a passphrase would add a PBKDF2 derivation
// at start-up, never per request, so it would change nothing measured here.
var benchKey = "k1:" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

// backend opens a fresh, migrated database (Mnemo's and River's tables).
type backend struct {
	name string
	open func(b *testing.B) store.Store
}

func backends() []backend {
	return []backend{{store.DialectSQLite, openSQLite}, {store.DialectPostgres, openPostgres}}
}

func openSQLite(b *testing.B) store.Store {
	st := storetest.SQLite(b)
	migrateRiver(b, st)
	return st
}

// openPostgres opens a schema of its own with the pool the worker opens in
// production (pgx's default size), not storetest's fixed 8 connections.
func openPostgres(b *testing.B) store.Store {
	url := os.Getenv("TEST_DATABASE_URL")
	if url == "" {
		b.Skip("TEST_DATABASE_URL not set: Postgres skipped")
	}
	schema := storetest.PostgresSchema(b)
	// MNEMO_BENCH_POOL sets the pool's size, as MNEMO_DB_POOL_SIZE does the
	// worker's; unset, pgx's default.
	var pool int32
	if v := os.Getenv("MNEMO_BENCH_POOL"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("MNEMO_BENCH_POOL=%q: want a positive number", v)
		}
		pool = int32(n)
	}
	cfg, err := store.PostgresConfig(url, schema, pool)
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.OpenPostgres(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	if _, err := st.MigrateUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	migrateRiver(b, st)
	b.Logf("postgres pool: %d connections", st.Pool().Config().MaxConns)
	return st
}

func migrateRiver(b *testing.B, st store.Store) {
	if _, err := queue.MigrateRiver(context.Background(), st); err != nil {
		b.Fatal(err)
	}
}

// env is one database with what a handoff needs: an insert-only queue, so
// that no worker competes with the requests being measured.
type env struct {
	st    store.Store
	queue queue.Queue
	apps  map[string]*prompts.App
	keys  *seal.Keyring
	// bodies are session-close bodies of distinct users, ready to send.
	bodies [][]byte
	// seq numbers the sessions handed over.
	seq atomic.Int64
}

// users is how many distinct users the sessions of a benchmark belong to.
const users = 256

func newEnv(b *testing.B, bk backend) *env {
	b.Helper()
	st := bk.open(b)
	apps, err := prompts.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	keys, err := seal.ParseKeys(benchKey)
	if err != nil {
		b.Fatal(err)
	}
	q, err := queue.New(st, queue.Config{Logger: infoLogger()})
	if err != nil {
		b.Fatal(err)
	}
	e := &env{st: st, queue: q, apps: apps, keys: keys}
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	for i := range users {
		body, err := json.Marshal(monaSession(userID(i), t0))
		if err != nil {
			b.Fatal(err)
		}
		e.bodies = append(e.bodies, body)
	}
	return e
}

func userID(i int) string { return "u-" + strconv.Itoa(i%users) }

func (e *env) handoffDeps() handoff.Deps {
	return handoff.Deps{Queue: e.queue, Apps: e.apps, Keys: e.keys}
}

// closeSession is what the HTTP handler does with a body, without HTTP.
func (e *env) closeSession(ctx context.Context, id string, body []byte) error {
	_, err := e.handOver(ctx, id, body)
	return err
}

// handOver decodes and validates body, stores the session with its
// extraction job in one transaction, and returns the job's id.
func (e *env) handOver(ctx context.Context, id string, body []byte) (int64, error) {
	req, err := handoff.Decode(body)
	if err != nil {
		return 0, err
	}
	now := time.Now().UTC()
	if err := handoff.Validate(id, &req, e.apps, now); err != nil {
		return 0, err
	}
	d := e.handoffDeps()
	var res handoff.Result
	err = e.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		res, err = handoff.Close(ctx, tx, d, id, req, now)
		return err
	})
	if err != nil {
		return 0, err
	}
	return res.Jobs[0].ID, nil
}

// infoLogger logs what production logs, at production's level and format,
// into nothing: its cost is part of what is measured.
func infoLogger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// warnCounter is a slog handler that counts warnings and errors: River's
// complaints (a leader election timing out, say) mean the host was too busy
// for what is measured, and are reported as a metric rather than printed
// amid the results.
type warnCounter struct{ n *atomic.Int64 }

func (h warnCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h warnCounter) Handle(context.Context, slog.Record) error {
	h.n.Add(1)
	return nil
}
func (h warnCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h warnCounter) WithGroup(string) slog.Handler      { return h }

// monaTurns is a twenty-message Mona session of about 5 KB of text, with
// enough said about the user for both extractors to find memories.
var monaTurns = [20]string{
	"Hi Mona! My name is Peggy. I finally have a quiet evening after a really long week at the office, and I thought it would be nice to talk to someone who is not asking me for a status update or a spreadsheet. My phone has been buzzing all day and I have finally put it in a drawer.",
	"Hi Peggy, it is lovely to meet you! A quiet evening sounds well deserved after a week like that. What made it so long? Was it one big project, or lots of small things piling up on top of each other? Either way, you are allowed to put it all down for tonight and just breathe.",
	"Mostly one big project. We are moving the whole team to a new planning tool, and I am the one who has to explain it to everybody, answer the same questions ten times a day, and still do my actual job somehow. My manager means well, but she keeps adding little tasks to my list every morning.",
	"That sounds exhausting, especially being the person everyone comes to with questions. It can be rewarding to be the expert, but it also means you never get a moment to yourself. How are you holding up with all of it? And are you getting any support from your manager, or is it all on your shoulders?",
	"Honestly I'm feeling tired. Not sleepy exactly, more like my brain is full. I keep thinking about the things I forgot to answer today, even now that I am home on the sofa with a cup of tea in my hands. I wish I could switch my head off as easily as I switch off my laptop.",
	"That full-brain feeling is very real. Sometimes it helps to write the open things down so your mind can let go of them until tomorrow. Would you like to do that, or would you rather talk about something else entirely? Either is fine with me; tonight is about whatever helps you unwind.",
	"Something else, please. Let's talk about food. My favorite food is ramen, the proper kind with a rich broth that has been cooking for hours, a soft egg, and far too much spring onion on top of everything. I could honestly eat it three times a week, even in summer.",
	"Ramen is a wonderful comfort food, and a long-simmered broth really is something special. Do you have a favourite place you go to for it, or do you like to make it yourself at home on the weekends? Homemade ramen is quite a project, so I would be impressed if you do.",
	"There is a tiny place near the station that I love, but I have started to make it myself too. It takes the whole Sunday, but the flat smells amazing afterwards and my neighbours always ask what I am cooking. One of them even brought me a bowl to fill last time, which made me laugh.",
	"A whole Sunday of ramen sounds like a lovely ritual, and your neighbours are lucky to get the smell for free! What else do you enjoy doing on weekends when you are not simmering broth for eight hours straight?",
	"I like jazz, especially old records. My grandfather left me his collection, so on Sundays I put on a record while the broth cooks. Coltrane and Ella Fitzgerald mostly, and sometimes some Chet Baker late at night. The records crackle a little, but I think that is part of the charm.",
	"What a beautiful thing to have inherited. Listening to your grandfather's records while you cook sounds like a way of spending time with him too. Do you have a record from his collection that means the most to you?",
	"Yes, Ella and Louis together. He used to play it every Christmas morning while he made pancakes for all of us. When I hear the first song I can almost smell the pancakes and hear him singing along, badly. My sister still teases me that I inherited his singing voice as well.",
	"That is such a warm memory, Peggy. Music has a way of bringing back whole rooms and people, doesn't it? It sounds like he was a lot of fun to be around, even if his singing was not quite up to Louis's standard.",
	"He really was. Anyway, next month I'm going on a trip to Lisbon with my sister. We have been planning it for a year. I want to eat pastel de nata every single day and walk up all the hills until my legs give up.",
	"Lisbon with your sister sounds wonderful! The hills are no joke, but the views from the top are worth it, and the pastries help with the climbing. Have you two travelled together before, or is this your first trip?",
	"It is our first trip together since we were kids. I am a bit nervous, we are very different. She plans every hour and I like to wander around without any plan at all. But I think it will be good for both of us.",
	"Different travel styles can actually balance each other out: she makes sure you see the important things, and you make sure there is room for surprises. Maybe you could agree on one free afternoon for wandering?",
	"That is a good idea, I will suggest it. Thank you, Mona, this was nice. I feel a bit calmer now. I think I will put on a record, finish my tea and go to bed early tonight instead of checking my mail again.",
	"I am so glad you feel calmer, Peggy. Enjoy the record and the tea, and try to leave the mail until tomorrow. Sleep well, and I would love to hear about the Lisbon plans, and the ramen, whenever you want to chat.",
}

// monaSession is a twenty-message Mona session of userID that started at t0,
// with two emotion events.
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
		{Type: "emotion", At: t0.Add(18 * time.Minute), MessageID: "m19", Data: json.RawMessage(`{"emotion":"calm","confidence":0.7}`)},
	}
	return req
}

// monaAnswer is the fake LLM's answer to every Mona session.
const monaAnswer = `{"memories":[
 {"key":"name","value":"Peggy","category":"fact","importance":90,"confidence":0.95,"source_message_id":"m1","event_date":null,"wording":null},
 {"key":"favorite_food","value":"ramen","category":"preference","importance":80,"confidence":0.9,"source_message_id":"m7","event_date":null,"wording":null},
 {"key":"likes:jazz","value":"jazz records","category":"preference","importance":70,"confidence":0.9,"source_message_id":"m11","event_date":null,"wording":null},
 {"key":"event:lisbon-trip","value":"trip to Lisbon with her sister","category":"event","importance":75,"confidence":0.85,"source_message_id":"m15","event_date":"2026-12-01","wording":"next month"},
 {"key":"feeling","value":"tired","category":"feeling","importance":50,"confidence":0.8,"source_message_id":"m5","event_date":null,"wording":null}],
 "session_summary":{"summary":"Peggy unwound after a long week leading a tool migration, talked about ramen, her grandfather's jazz records and an upcoming trip to Lisbon with her sister.","topics":["work","food","music","travel"]}}`

// latencies summarises per-operation durations.
type latencies []time.Duration

// quantile is the nearest-rank q-quantile, 0 < q ≤ 1.
func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// report adds the latency metrics of l to b.
func (l latencies) report(b *testing.B) {
	b.ReportMetric(ms(l.quantile(0.50)), "p50-ms")
	b.ReportMetric(ms(l.quantile(0.99)), "p99-ms")
}

// usage is CPU use: this process's (user and system) and the whole host's
// in clock ticks, busy and total, read from /proc/stat where there is one.
type usage struct {
	cpu         time.Duration
	busy, total uint64
}

// readUsage samples the CPU use so far.
func readUsage(b *testing.B) usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	u := usage{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return u
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return u
	}
	for i, f := range fields[1:] {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return usage{cpu: u.cpu}
		}
		// Guest time is counted in user and nice already.
		if i >= 8 {
			break
		}
		u.total += n
		// idle and iowait
		if i != 3 && i != 4 {
			u.busy += n
		}
	}
	return u
}

// since is the use between u0 and u.
func (u usage) since(u0 usage) usage {
	return usage{cpu: u.cpu - u0.cpu, busy: u.busy - u0.busy, total: u.total - u0.total}
}

func (u usage) plus(v usage) usage {
	return usage{cpu: u.cpu + v.cpu, busy: u.busy + v.busy, total: u.total + v.total}
}

// report adds this process's CPU time per operation, its share of the
// host's CPU over wall time elapsed, and how busy the whole host was (for
// both, 100 is every core): the machine is shared, and the difference is
// other processes — the Postgres server and the fake LLM among them.
func (u usage) report(b *testing.B, ops int, unit string, elapsed time.Duration) {
	b.ReportMetric(ms(u.cpu)/float64(ops), "cpu-ms/"+unit)
	b.ReportMetric(100*u.cpu.Seconds()/(elapsed.Seconds()*float64(runtime.NumCPU())), "proc-cpu-%")
	if u.total > 0 {
		b.ReportMetric(100*float64(u.busy)/float64(u.total), "host-busy-%")
	}
}
