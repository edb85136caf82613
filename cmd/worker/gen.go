package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// `worker gen` fills the configured database with synthetic users of one
// app, quickly: COPY on Postgres, multi-row INSERTs in large transactions
// on SQLite. It writes what the worker would have written had those users
// handed their sessions over one by one: sessions, events, summaries,
// extraction runs, memories with their statements and audit rows, the
// profile and its history, records, cues, retained transcripts and River's
// finished jobs of the last 30 days. The vocabulary (memory keys, values
// and categories, records, summaries, events, jobs) is the app's own: gen
// first hands the app's demo sessions to an embedded worker on a scratch
// SQLite database and learns from what it wrote there, so that no preset's
// contents are written down here. Everything but the sealed bytes follows
// from --seed. See docs/benchmarks.md, "Generating a large database".

type genFlags struct {
	app        string
	users      int
	sessions   int
	memories   int
	span       time.Duration
	seed       uint64
	prefix     string
	now        string
	unswept    bool
	retainAll  bool
	batchUsers int
}

func registerGenFlags(fs *flag.FlagSet) {
	f := &genFlags{}
	fs.StringVar(&f.app, "app", "", "the app (preset) the users belong to (required)")
	fs.IntVar(&f.users, "users", 10, "how many users")
	fs.IntVar(&f.sessions, "sessions", 20, "sessions per user, spread over --span")
	fs.IntVar(&f.memories, "memories", 20, "memory keys per user (one of them is said in every session); superseded values add memories")
	fs.DurationVar(&f.span, "span", 30*24*time.Hour, "the time the sessions are spread over, ending at --now")
	fs.Uint64Var(&f.seed, "seed", 1, "the seed: the same seed, flags and app give the same rows (sealed bytes aside)")
	fs.StringVar(&f.prefix, "prefix", "gen", "user ids are PREFIX-APP-N; another prefix adds users beside those already generated")
	fs.StringVar(&f.now, "now", "", "the time the generated history ends, RFC 3339 (default: the clock)")
	fs.BoolVar(&f.unswept, "unswept", false, "leave memories past their TTL active and transcripts past their retention in place, as if memory-ttl and retention had not run yet")
	fs.BoolVar(&f.retainAll, "retain-all", false, "keep every session's sealed transcript, retained until its end plus the app's retention (with --unswept: past-retention rows for the retention sweep)")
	fs.IntVar(&f.batchUsers, "batch-users", 0, "users per transaction (default: about 20 000 sessions' worth)")
	cmdFlags.Store(fs, f)
}

// genCmd runs `worker gen`.
func genCmd(ctx context.Context, e *env) error {
	f := flagsOf[genFlags](e.flags)
	if f.app == "" {
		return usageError{errors.New("--app is required")}
	}
	if f.users < 1 || f.sessions < 1 || f.memories < 1 {
		return usageError{errors.New("--users, --sessions and --memories must be at least 1")}
	}
	now := time.Now().UTC().Truncate(time.Second)
	if f.now != "" {
		t, err := time.Parse(time.RFC3339, f.now)
		if err != nil {
			return usageError{fmt.Errorf("--now %q is not RFC 3339", f.now)}
		}
		now = t.UTC()
	}
	log := e.log
	sys, err := build(ctx, e.cfg, log, false)
	if err != nil {
		return err
	}
	defer sys.store.Close()
	app := sys.deps.Apps[f.app]
	if app == nil {
		return usageError{fmt.Errorf("app %q is not configured (have %s)", f.app, strings.Join(prompts.Names(sys.deps.Apps), ", "))}
	}
	start := time.Now()
	tpl, err := learnTemplate(ctx, e, f.app)
	if err != nil {
		return fmt.Errorf("learn the %s template: %w", f.app, err)
	}
	fmt.Fprintf(e.stderr, "gen: learnt %s from %d demo sessions: %d memory keys, %d records, %d summaries, %d jobs a session (%s)\n",
		f.app, len(tpl.sessions), len(tpl.memories), len(tpl.records), len(tpl.summaries), len(tpl.sessions[0].jobs),
		time.Since(start).Round(time.Millisecond))
	g := &generator{f: f, app: app, tpl: tpl, now: now, sealer: jobs.DerivedSealer{Keys: sys.deps.Keys, Apps: sys.deps.Apps}, sys: sys}
	// Two sinks: one is written to the database while gen fills the other.
	var sinks [2]genSink
	for i := range sinks {
		switch sys.store.Dialect() {
		case store.DialectPostgres:
			sinks[i], err = newPGSink(ctx, sys.store)
		default:
			sinks[i], err = newSQLiteSink(ctx, sys.store)
		}
		if err != nil {
			return err
		}
	}
	sink := sinks[0]
	if g.nextJobID, err = sink.nextJobID(ctx); err != nil {
		return err
	}
	per := f.batchUsers
	if per <= 0 {
		per = max(1, 20000/f.sessions)
	}
	start = time.Now()
	var total int64
	type flushed struct {
		n     int64
		err   error
		users int
	}
	var pending chan flushed
	wait := func() error {
		if pending == nil {
			return nil
		}
		r := <-pending
		pending = nil
		if r.err != nil {
			return r.err
		}
		total += r.n
		if d := time.Since(start); d > 0 {
			fmt.Fprintf(e.stderr, "gen: %d/%d users, %d rows, %.0f rows/s\n", r.users, f.users, total, float64(total)/d.Seconds())
		}
		return nil
	}
	for b, u0 := 0, 0; u0 < f.users; b, u0 = b+1, u0+per {
		sink := sinks[b%2]
		for u := u0; u < min(f.users, u0+per); u++ {
			if err := g.user(u, sink); err != nil {
				return err
			}
		}
		if err := wait(); err != nil {
			return err
		}
		pending = make(chan flushed, 1)
		go func(ch chan flushed, users int) {
			n, err := sink.flush(ctx)
			ch <- flushed{n, err, users}
		}(pending, min(f.users, u0+per))
	}
	if err := wait(); err != nil {
		return err
	}
	if err := sink.finish(ctx, g.nextJobID, g.counts); err != nil {
		return err
	}
	d := time.Since(start)
	counts := make([]string, 0, len(genTables))
	for _, t := range genTables {
		if n := g.counts[t.name]; n > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", strings.TrimPrefix(t.name, "mnemo_"), n))
		}
	}
	fmt.Fprintf(e.stdout, "gen: %d %s users, %d sessions each over %s: %d rows in %s (%.0f rows/s): %s\n", f.users, f.app, f.sessions,
		f.span, total, d.Round(time.Millisecond), float64(total)/max(d.Seconds(), 1e-9), strings.Join(counts, ", "))
	return nil
}

// genTemplate is what an app's demo sessions left in a scratch database:
// the vocabulary generated users are made of.
type genTemplate struct {
	sessions  []genTplSession
	memories  []store.Memory // one per key, in key order
	records   []store.Record
	summaries []store.Summary
	cues      []store.Cue
	profile   json.RawMessage // nil when the app keeps none
	// histPerSession is how many profile changes a session recorded.
	histPerSession float64
}

// genTplSession is one demo session: its request (times from a zero
// start), its events, what its extraction run recorded and its jobs.
type genTplSession struct {
	id       string
	userID   string
	duration time.Duration
	req      handoff.Request
	events   []store.Event // At relative to the zero time
	run      store.ExtractionRun
	jobs     []genTplJob
	messages int
}

type genTplJob struct {
	kind, queue  string
	args, meta   string
	maxAttempts  int
	priority     int
	attemptDelay time.Duration
}

// learnTemplate hands the demo sessions of app to an embedded worker on a
// scratch SQLite database and reads back what the worker wrote.
func learnTemplate(ctx context.Context, e *env, appName string) (*genTemplate, error) {
	users, err := demoUsers()
	if err != nil {
		return nil, err
	}
	var samples []demoSession
	for _, u := range users {
		if u[0].App == appName {
			samples = append(samples, u...)
		}
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("the %s preset has no demo sessions to learn from", appName)
	}
	dir, err := os.MkdirTemp("", "mnemo-gen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg := e.cfg
	cfg.Dialect, cfg.SQLitePath, cfg.DatabaseURL = store.DialectSQLite, filepath.Join(dir, "tpl.db"), ""
	cfg.EncryptionKey = "tpl:mnemo gen template key"
	cfg.LLMModel = ""
	cfg.PoolSize = 0
	log := newLogger(Config{LogLevel: "error", LogFormat: "text"}, e.stderr)
	sys, err := build(ctx, cfg, log, true)
	if err != nil {
		return nil, err
	}
	defer sys.store.Close()
	if err := sys.queue.Start(ctx); err != nil {
		return nil, err
	}
	defer func() { _ = sys.queue.Stop(context.WithoutCancel(ctx)) }()
	now := time.Now().UTC()
	tpl := &genTemplate{}
	st := sys.store
	seenKey := map[string]bool{}
	userSeen := map[string]bool{}
	hist := 0
	for _, s := range samples {
		req := s.request(now)
		if err := handoff.Validate(s.SessionID, &req, sys.deps.Apps, now); err != nil {
			return nil, fmt.Errorf("demo session %s: %w", s.SessionID, err)
		}
		err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			_, err := handoff.Close(ctx, tx, handoff.Deps{Queue: sys.queue, Apps: sys.deps.Apps, Keys: sys.deps.Keys}, s.SessionID, req, now)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("hand over %s: %w", s.SessionID, err)
		}
		if err := waitProcessed(ctx, st, s.SessionID); err != nil {
			return nil, err
		}
		ts := genTplSession{id: s.SessionID, userID: s.UserID, duration: req.EndedAt.Sub(req.StartedAt), messages: len(req.Messages)}
		// Times relative to the session's start.
		shift := req.StartedAt.Sub(time.Time{})
		ts.req = req
		evs, err := st.ListEvents(ctx, s.SessionID)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			ev.At = ev.At.Add(-shift)
			ts.events = append(ts.events, ev)
		}
		runs, err := st.ListExtractionRuns(ctx, s.SessionID)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			if r.Final {
				ts.run = r
			}
		}
		tpl.sessions = append(tpl.sessions, ts)
		userSeen[s.UserID] = true
	}
	// River's jobs of each session: what a finished job's row holds.
	ids := make([]string, len(tpl.sessions))
	for i, ts := range tpl.sessions {
		ids[i] = ts.id
	}
	jobsBySession, err := templateJobs(ctx, st, ids)
	if err != nil {
		return nil, err
	}
	for i := range tpl.sessions {
		tpl.sessions[i].jobs = jobsBySession[tpl.sessions[i].id]
	}
	for _, uid := range slices.Sorted(maps.Keys(userSeen)) {
		mems, err := st.ListMemories(ctx, uid, store.MemoryFilter{All: true})
		if err != nil {
			return nil, err
		}
		for _, m := range mems {
			if m.Status == store.MemoryForgotten || seenKey[m.Key] {
				continue
			}
			seenKey[m.Key] = true
			tpl.memories = append(tpl.memories, m)
		}
		recs, err := st.ListRecords(ctx, uid, nil)
		if err != nil {
			return nil, err
		}
		tpl.records = append(tpl.records, recs...)
		sums, err := st.ListSummaries(ctx, uid, 1000)
		if err != nil {
			return nil, err
		}
		tpl.summaries = append(tpl.summaries, sums...)
		cues, err := st.ListCues(ctx, uid, false)
		if err != nil {
			return nil, err
		}
		tpl.cues = append(tpl.cues, cues...)
		if p, err := st.GetProfile(ctx, uid); err == nil && tpl.profile == nil {
			tpl.profile = p.Doc
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		h, err := st.ListProfileHistory(ctx, uid)
		if err != nil {
			return nil, err
		}
		hist += len(h)
	}
	slices.SortFunc(tpl.memories, func(a, b store.Memory) int { return strings.Compare(a.Key, b.Key) })
	tpl.histPerSession = float64(hist) / float64(len(tpl.sessions))
	return tpl, nil
}

// genTables are the tables gen writes, in the order their foreign keys
// need.
var genTables = []struct {
	name string
	cols []string
}{
	{"mnemo_users", []string{"id", "app", "display_name", "timezone", "memory_disabled", "created_at", "updated_at"}},
	{"mnemo_sessions", []string{"id", "user_id", "app", "status", "started_at", "ended_at", "timezone", "message_count", "body_sha256",
		"jobs", "transcript_retained", "retain_until", "closed_at", "processed_at", "updated_at"}},
	{"mnemo_transcript_chunks", []string{"session_id", "seq", "user_id", "key_id", "nonce", "ciphertext", "sha256", "created_at"}},
	{"mnemo_session_events", []string{"session_id", "seq", "user_id", "kind", "at", "message_id", "data"}},
	{"mnemo_session_summaries", []string{"session_id", "prompt_version", "user_id", "app", "source", "data", "created_at"}},
	{"mnemo_extraction_runs", []string{"id", "session_id", "user_id", "app", "model", "prompt_version", "source", "outcome",
		"input_tokens", "output_tokens", "cost_usd", "duration_ms", "attempt", "final", "error", "created_at"}},
	{"mnemo_memories", []string{"id", "user_id", "app", "key", "value", "category", "importance", "confidence", "status",
		"supersedes_id", "source_session_id", "source_message_id", "confirmations", "expires_at", "last_used_at", "created_at",
		"updated_at", "stated_at", "invalidated_at", "invalidated_by", "event_date", "wording"}},
	{"mnemo_memory_statements", []string{"id", "memory_id", "user_id", "key", "value", "category", "importance", "confidence",
		"expires_at", "stated_at", "session_id", "message_id", "weight", "event_date", "wording", "created_at"}},
	{"mnemo_memory_history", []string{"id", "memory_id", "user_id", "action", "actor", "session_id", "at", "key"}},
	{"mnemo_profiles", []string{"user_id", "app", "doc", "version", "updated_at", "stated"}},
	{"mnemo_profile_history", []string{"user_id", "version", "doc", "changed", "actor", "session_id", "at", "stated_at", "older", "said"}},
	{"mnemo_records", []string{"user_id", "app", "kind", "key", "data", "session_id", "updated_at", "stated_at"}},
	{"mnemo_cues", []string{"id", "user_id", "app", "kind", "field", "detail", "session_id", "created_at", "resolved_at"}},
	{"river_job", []string{"id", "state", "attempt", "max_attempts", "attempted_at", "created_at", "finalized_at", "scheduled_at",
		"priority", "args", "kind", "metadata", "queue"}},
}

// genSink takes rows (of genTables, in column order; a json.RawMessage
// for a JSON column, a time.Time or *time.Time for a time) and writes them
// at flush, in one transaction.
type genSink interface {
	add(table int, row []any)
	flush(ctx context.Context) (int64, error)
	nextJobID(ctx context.Context) (int64, error)
	finish(ctx context.Context, nextJobID int64, written map[string]int64) error
}

// generator makes one user's rows at a time.
type generator struct {
	f         *genFlags
	app       *prompts.App
	tpl       *genTemplate
	now       time.Time
	sealer    jobs.DerivedSealer
	sys       *system
	nextJobID int64
	counts    map[string]int64
}

const (
	tUsers = iota
	tSessions
	tChunks
	tEvents
	tSummaries
	tRuns
	tMemories
	tStatements
	tHistory
	tProfiles
	tProfileHistory
	tRecords
	tCues
	tRiver
)

// riverRetention is how long River keeps a finished job (the worker's
// CompletedRetention).
const riverRetention = 30 * 24 * time.Hour

type genSession struct {
	id                 string
	start, end, done   time.Time
	tpl                *genTplSession
	summary, statement int
}

// key is one memory key's timeline: the sessions it was said in and the
// value said each time.
type genStatement struct {
	session int
	version int
}

func (g *generator) add(sink genSink, t int, row ...any) {
	if g.counts == nil {
		g.counts = map[string]int64{}
	}
	g.counts[genTables[t].name]++
	sink.add(t, row)
}

// id is a UUIDv7 (as store.NewID makes) of time at, its random bits from r.
func id(r *rand.Rand, at time.Time) string {
	var u uuid.UUID
	ms := uint64(at.UnixMilli())
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	binary.BigEndian.PutUint64(u[8:], r.Uint64())
	binary.BigEndian.PutUint16(u[6:], uint16(r.Uint32()))
	u[6] = u[6]&0x0f | 0x70
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

func (g *generator) sealJSON(id string, raw json.RawMessage) (json.RawMessage, error) {
	if !g.sealer.Sealed(g.app.Name) {
		return raw, nil
	}
	s, err := g.sealer.Seal(id, raw)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"sealed": "sealed:v1:" + s})
}

func (g *generator) sealText(id, text string) (string, error) {
	if text == "" || !g.sealer.Sealed(g.app.Name) {
		return text, nil
	}
	s, err := g.sealer.Seal(id, []byte(text))
	if err != nil {
		return "", err
	}
	return "sealed:v1:" + s, nil
}

// user writes user u's rows to sink.
func (g *generator) user(u int, sink genSink) error {
	f, tpl, app := g.f, g.tpl, g.app
	uid := fmt.Sprintf("%s-%s-%d", f.prefix, app.Name, u)
	h := sha256.Sum256([]byte(uid))
	r := rand.New(rand.NewPCG(f.seed, binary.BigEndian.Uint64(h[:8])))
	from := g.now.Add(-f.span)
	// Sessions, oldest first, each at a random point of its slot of the span.
	slot := f.span / time.Duration(f.sessions)
	sess := make([]genSession, f.sessions)
	for i := range sess {
		t := &tpl.sessions[i%len(tpl.sessions)]
		start := from.Add(slot*time.Duration(i) + time.Duration(r.Int64N(int64(max(slot-t.duration, 1))))).Truncate(time.Second)
		end := start.Add(t.duration)
		sess[i] = genSession{start: start, end: end, done: end.Add(time.Duration(500+r.IntN(4000)) * time.Millisecond), tpl: t}
		sess[i].id = id(r, start)
	}
	first, last := sess[0], sess[len(sess)-1]
	display, err := g.sealText("user:"+uid+":display_name", first.tpl.req.DisplayName)
	if err != nil {
		return err
	}
	tz := first.tpl.req.Timezone
	if tz == "" {
		tz = "UTC"
	}
	g.add(sink, tUsers, uid, app.Name, display, tz, false, first.start, last.done)

	retention := time.Duration(app.Policy.TranscriptRetention)
	for i := range sess {
		s := &sess[i]
		t := s.tpl
		var jobs []store.JobRef
		var jobRows [][]any
		for _, j := range t.jobs {
			jid := g.nextJobID
			g.nextJobID++
			jobs = append(jobs, store.JobRef{ID: jid, Kind: j.kind})
			if g.now.Sub(s.done) < riverRetention {
				args := strings.ReplaceAll(strings.ReplaceAll(j.args, t.id, s.id), t.userID, uid)
				attempted := s.end.Add(j.attemptDelay)
				jobRows = append(jobRows, []any{jid, "completed", 1, j.maxAttempts, attempted, s.end, s.done, s.end, j.priority,
					json.RawMessage(args), j.kind, json.RawMessage(j.meta), j.queue})
			}
		}
		jobsJSON, _ := json.Marshal(jobs)
		sum := sha256.Sum256([]byte(s.id))
		retained := f.retainAll || retention > 0 && (f.unswept || s.done.Add(retention).After(g.now))
		var until *time.Time
		if retained {
			u := s.done.Add(retention)
			until = &u
		}
		g.add(sink, tSessions, s.id, uid, app.Name, store.StatusProcessed, s.start, s.end, tz, t.messages, hex.EncodeToString(sum[:]),
			json.RawMessage(jobsJSON), retained, until, s.end, s.done, s.done)
		if retained {
			msgs := slices.Clone(t.req.Messages)
			for k := range msgs {
				msgs[k].At = s.start.Add(msgs[k].At.Sub(t.req.StartedAt))
			}
			plain, _ := json.Marshal(msgs)
			chunks, err := g.sys.deps.Keys.Seal(s.id, plain, 0)
			if err != nil {
				return err
			}
			for _, c := range chunks {
				g.add(sink, tChunks, s.id, c.Seq, uid, c.KeyID, c.Nonce, c.Ciphertext, c.SHA256, s.end)
			}
		}
		for _, ev := range t.events {
			g.add(sink, tEvents, s.id, ev.Seq, uid, ev.Type, s.start.Add(ev.At.Sub(time.Time{})), ev.MessageID, ev.Data)
		}
		if len(tpl.summaries) > 0 {
			ts := tpl.summaries[i%len(tpl.summaries)]
			data, err := g.sealJSON("summary:"+s.id+":"+app.PromptVersion, ts.Data)
			if err != nil {
				return err
			}
			g.add(sink, tSummaries, s.id, app.PromptVersion, uid, app.Name, ts.Source, data, s.done)
		}
		run := t.run
		g.add(sink, tRuns, id(r, s.done), s.id, uid, app.Name, run.Model, app.PromptVersion, run.Source, run.Outcome,
			run.InputTokens, run.OutputTokens, run.CostUSD, run.DurationMS, 1, true, "", s.done)
		for _, row := range jobRows {
			g.add(sink, tRiver, row...)
		}
	}
	if err := g.memories(r, uid, sess, sink); err != nil {
		return err
	}
	if tpl.profile != nil {
		if err := g.profile(r, uid, sess, sink); err != nil {
			return err
		}
	}
	for _, rec := range tpl.records {
		g.add(sink, tRecords, uid, app.Name, rec.Type, rec.Key, rec.Data, last.id, last.done, last.end)
	}
	seen := map[[2]string]bool{}
	for _, c := range tpl.cues {
		if seen[[2]string{c.Type, c.Field}] {
			continue
		}
		seen[[2]string{c.Type, c.Field}] = true
		g.add(sink, tCues, id(r, last.done), uid, app.Name, c.Type, c.Field, c.Detail, last.id, last.done, (*time.Time)(nil))
	}
	return nil
}

// memories writes the user's memories, their statements and audit rows.
// Key 0 is said in every session; every other key first in a session of
// its own (keys spread evenly over the sessions), then again in up to two
// later ones. One restatement in seven says a new value: the old memory is
// superseded. A memory past its category's TTL is expired, as memory-ttl
// leaves it, unless --unswept.
func (g *generator) memories(r *rand.Rand, uid string, sess []genSession, sink genSink) error {
	f, tpl, app := g.f, g.tpl, g.app
	if len(tpl.memories) == 0 {
		return nil
	}
	n := len(sess)
	for k := 0; k < f.memories; k++ {
		m := tpl.memories[k%len(tpl.memories)]
		key, value := m.Key, m.Value
		if round := k / len(tpl.memories); round > 0 {
			key = fmt.Sprintf("%s_%d", m.Key, round)
		}
		var said []genStatement
		if k == 0 {
			v := 0
			for s := range n {
				if s > 0 && r.IntN(50) == 0 {
					v++
				}
				said = append(said, genStatement{s, v})
			}
		} else {
			s0 := int(int64(k) * int64(n) / int64(f.memories))
			said = append(said, genStatement{s0, 0})
			v := 0
			for range r.IntN(3) {
				s := s0 + 1 + r.IntN(max(1, n-s0))
				if s >= n || s <= said[len(said)-1].session {
					continue
				}
				if r.IntN(7) == 0 {
					v++
				}
				said = append(said, genStatement{s, v})
			}
		}
		ttl, hasTTL := app.Policy.MemoryTTL[m.Category]
		// Runs of one value make memories.
		type run struct{ from, to int } // indexes into said
		var runs []run
		for i := range said {
			if i == 0 || said[i].version != said[i-1].version {
				runs = append(runs, run{i, i})
			}
			runs[len(runs)-1].to = i
		}
		ids := make([]string, len(runs))
		for j, rn := range runs {
			ids[j] = id(r, sess[said[rn.from].session].done)
		}
		for j, rn := range runs {
			val := value
			if v := said[rn.from].version; v > 0 {
				val = fmt.Sprintf("%s (%d)", value, v+1)
			}
			if k >= len(tpl.memories) {
				val = fmt.Sprintf("%s %d", val, k/len(tpl.memories)+1)
			}
			firstS, lastS := sess[said[rn.from].session], sess[said[rn.to].session]
			stated := firstS.end.Add(-time.Minute)
			lastStated := lastS.end.Add(-time.Minute)
			var expires *time.Time
			if hasTTL {
				e := lastStated.Add(time.Duration(ttl))
				expires = &e
			}
			status, updated := store.MemoryActive, lastS.done
			var invalidated *time.Time
			invalidatedBy, supersedes := "", ""
			if j > 0 {
				supersedes = ids[j-1]
			}
			if j+1 < len(runs) {
				next := sess[said[runs[j+1].from].session]
				status, updated = store.MemoryDeprecated, next.done
				at := next.end.Add(-time.Minute)
				invalidated, invalidatedBy = &at, ids[j+1]
			} else if expires != nil && !expires.After(g.now) && !f.unswept {
				status, updated = store.MemoryExpired, expires.Add(time.Minute)
			}
			g.add(sink, tMemories, ids[j], uid, app.Name, key, val, m.Category, m.Importance, m.Confidence, status, supersedes,
				firstS.id, "m1", rn.to-rn.from+1, expires, (*time.Time)(nil), firstS.done, updated, stated, invalidated,
				invalidatedBy, m.EventDate, m.Wording)
			for i := rn.from; i <= rn.to; i++ {
				s := sess[said[i].session]
				at := s.end.Add(-time.Minute)
				var exp *time.Time
				if hasTTL {
					e := at.Add(time.Duration(ttl))
					exp = &e
				}
				g.add(sink, tStatements, id(r, s.done), ids[j], uid, key, val, m.Category, m.Importance, m.Confidence, exp, at,
					s.id, "m1", 1, m.EventDate, m.Wording, s.done)
			}
			g.add(sink, tHistory, id(r, firstS.done), ids[j], uid, "insert", "extraction", firstS.id, firstS.done, "")
			if j > 0 {
				g.add(sink, tHistory, id(r, firstS.done), ids[j-1], uid, "deprecate", "extraction", firstS.id, firstS.done, "")
			}
			if status == store.MemoryExpired {
				g.add(sink, tHistory, id(r, updated), ids[j], uid, "expire", "ttl", "", updated, "")
			}
		}
	}
	return nil
}

// profile writes the user's profile and its history: a change in as many
// sessions as the demo's recorded one.
func (g *generator) profile(r *rand.Rand, uid string, sess []genSession, sink genSink) error {
	tpl, app := g.tpl, g.app
	var doc map[string]any
	if err := json.Unmarshal(tpl.profile, &doc); err != nil {
		return err
	}
	version := 0
	acc := 0.0
	for i, s := range sess {
		acc += tpl.histPerSession
		if acc < 1 && i > 0 {
			continue
		}
		acc = max(acc-1, 0)
		version++
		row := func(col string, raw json.RawMessage) (json.RawMessage, error) {
			return g.sealJSON(fmt.Sprintf("profile_history:%s:%d:%s", uid, version, col), raw)
		}
		d, err := row("doc", tpl.profile)
		if err != nil {
			return err
		}
		changed := json.RawMessage("{}")
		if version == 1 {
			changed = tpl.profile
		}
		c, err := row("changed", changed)
		if err != nil {
			return err
		}
		o, err := row("older", json.RawMessage("{}"))
		if err != nil {
			return err
		}
		sd, err := row("said", tpl.profile)
		if err != nil {
			return err
		}
		g.add(sink, tProfileHistory, uid, version, d, c, "extraction", s.id, s.done, s.end, o, sd)
	}
	last := sess[len(sess)-1]
	stated := map[string]store.FieldStatement{}
	for k := range doc {
		stated[k] = store.FieldStatement{At: last.end, By: last.id}
	}
	st, _ := json.Marshal(stated)
	d, err := g.sealJSON("profile:"+uid, tpl.profile)
	if err != nil {
		return err
	}
	g.add(sink, tProfiles, uid, app.Name, d, version, last.done, json.RawMessage(st))
	return nil
}
