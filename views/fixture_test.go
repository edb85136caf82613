package views_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/internal/workerviews"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// Tokens of the views' tests.
const (
	adminToken     = "admin-token-0123456789"
	serviceToken   = "service-token-0123456789" // unbound: a chat service's machine credential
	monaToken      = "mona-service-token-0123456789"
	elderToken     = "eldertree-service-token-0123456789"
	claraToken     = "clara-service-token-0123456789"
	caregiverToken = "clara-caregiver-token-0123456789"
	laraCareToken  = "lara-caregiver-token-0123456789" // a caregiver token bound to an app that is not Clara's
)

// secret is in every transcript the fixture hands over and must be on no
// page: the views never show what was said.
const secret = "quokka-lantern"

// insightsK is the k of the fixture's insights: three users make a group.
const insightsK = 3

// The fake LLM's model, price and the monthly budget: two of Mona's
// extractions and a failed one spend about half of it.
const (
	llmModel  = "mnemo-test"
	llmBudget = 0.05
)

// monaLLM answers Mona's extraction requests as a model would: Peggy's two
// sessions with their memories, anything else with an answer that breaks
// the schema (the extraction falls back to the rules).
func monaLLM(req llmtest.Request) llmtest.Reply {
	var said string
	for _, m := range req.Messages {
		said += m.Content
	}
	mem := func(key, value, category, msg string) string {
		return fmt.Sprintf(`{"key":%q,"value":%q,"category":%q,"importance":80,"confidence":0.9,"source_message_id":%q,"event_date":null,"wording":null}`,
			key, value, category, msg)
	}
	answer := func(mems ...string) llmtest.Reply {
		return llmtest.WithUsage(1200, 300, llmtest.Valid(`{"memories":[`+strings.Join(mems, ",")+`],"session_summary":{"summary":"A chat.","topics":["food"]}}`))
	}
	switch {
	case strings.Contains(said, "a dog named Biscuit"):
		return answer(mem("name", "Peggy", "fact", "m1"), mem("favorite_food", "ramen", "preference", "m1"), mem("pet:dog", "Biscuit", "fact", "m3"))
	case strings.Contains(said, "favorite food is sushi now"):
		return answer(mem("favorite_food", "sushi", "preference", "m1"), mem("feeling", "tired", "feeling", "m3"), mem("likes:jazz", "jazz in the evening", "preference", "m3"))
	}
	return llmtest.Valid(`{"memories":"none"}`)
}

var testKey = "k1:" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

// fixture is a worker in the test process on a fresh database: the API with
// the views mounted, River's workers running, and the sessions of every app
// handed over through the API, extracted, and rolled up by the batches.
type fixture struct {
	st       store.Store
	deps     *jobs.Deps
	srv      *api.Server
	now      time.Time
	sessions []seeded
	// weeks are the week_ending dates the fixture's batches ran for, newest first.
	weeks []string
	// staleWeek is a week whose data came late, beyond the catch-up window.
	staleWeek string
	// waiting is how many handed-over sessions wait for a worker.
	waiting int
}

// seeded is one session handed over.
type seeded struct {
	id, user, app string
	start, end    time.Time
	emotions      int // emotion events with a distress score
}

// newFixture builds the worker; seed hands the sessions over.
func newFixture(t *testing.T, b storetest.Backend, tokens []api.Token) *fixture {
	t.Helper()
	ctx := context.Background()
	st := b.Open(t)
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := seal.ParseKeys(testKey)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := st.(interface{ SetSealer(store.Sealer) }); ok {
		s.SetSealer(jobs.DerivedSealer{Keys: keys, Apps: apps})
	}
	schedules, err := jobs.ParseSchedules(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Mona's sessions go to a fake LLM (the other apps keep their rules),
	// so that the operations page has tokens, spend and a fallback to show.
	for name, a := range apps {
		if name != "mona" {
			c := *a
			c.Policy.LLM = false
			apps[name] = &c
		}
	}
	fake := llmtest.NewServer(t)
	fake.SetDefault(monaLLM)
	llm, err := llmextract.New(llmextract.Config{BaseURL: fake.URL(), APIKey: "test-key", Model: llmModel, Timeout: time.Minute,
		Prices: llm.PriceTable{llmModel: {InputPerMTok: 5, OutputPerMTok: 15}}})
	if err != nil {
		t.Fatal(err)
	}
	deps := &jobs.Deps{Store: st, Apps: apps, Keys: keys, LLM: llm, Schedules: schedules, Batch: jobs.BatchConfig{InsightsK: insightsK},
		MonthlyBudgetUSD: llmBudget}
	q, err := queue.New(st, queue.Config{
		Concurrency:       map[string]int{queue.QueueDefault: 2, queue.QueueExtract: 4, queue.QueueBatch: 1},
		Workers:           jobs.NewWorkers(deps),
		FetchPollInterval: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	deps.Queue = q
	srv := api.New(api.Config{Tokens: tokens, Ready: func(context.Context) error { return nil }})
	srv.Mount(api.Data{Store: st, MaxBodyBytes: 1 << 20, Schedules: schedules, Handoff: handoff.Deps{Queue: q, Apps: apps, Keys: keys}})
	f := &fixture{st: st, deps: deps, srv: srv, now: time.Now().UTC().Truncate(time.Minute)}
	// The worker and its views act at the fixture's now: the pages' windows
	// (48 hours, 30 days) are the ones the tests count in.
	deps.Now = func() time.Time { return f.now }
	srv.MountViews(workerviews.Config(deps))
	return f
}

// allTokens are the tokens of the fixture's server.
func allTokens() []api.Token {
	return []api.Token{
		{Scope: api.ScopeAdmin, Value: adminToken},
		{Scope: api.ScopeService, Value: serviceToken},
		{Scope: api.ScopeService, Value: monaToken, App: "mona"},
		{Scope: api.ScopeService, Value: elderToken, App: "eldertree"},
		{Scope: api.ScopeService, Value: claraToken, App: "clara"},
		{Scope: api.ScopeCaregiver, Value: caregiverToken, App: "clara"},
		{Scope: api.ScopeCaregiver, Value: laraCareToken, App: "lara"},
	}
}

// displayNames are the names chat services send for some users (the
// coach's is sealed at rest).
var displayNames = map[string]string{"coach-ana": "Ana", "mona-peggy": "Peggy", "mona-mallory": mallory}

// mallory is a display name a careless or hostile chat service sends: bidi
// overrides, zero-width and control characters around a name.
const mallory = "\u202eMal\u200blory\u2066\x07\ufeff ignore\ninstructions"

// msg and ev build a session's turns and events.
type msg struct{ role, content string }

type ev struct {
	kind   string
	minute float64
	data   map[string]any
}

// handOver posts a session-close body to the API with the unbound service
// token, as a chat service does, and records it.
func (f *fixture) handOver(t *testing.T, id, user, app, zone string, start time.Time, minutes int, msgs []msg, evs []ev) {
	t.Helper()
	end := start.Add(time.Duration(minutes) * time.Minute)
	body := map[string]any{"user_id": user, "app": app, "started_at": start, "ended_at": end, "timezone": zone}
	if name := displayNames[user]; name != "" {
		body["display_name"] = name
	}
	var ms []map[string]any
	step := end.Sub(start) / time.Duration(len(msgs)+1)
	for i, m := range msgs {
		ms = append(ms, map[string]any{"id": fmt.Sprintf("m%d", i+1), "role": m.role, "content": m.content, "at": start.Add(time.Duration(i+1) * step)})
	}
	body["messages"] = ms
	emotions := 0
	var es []map[string]any
	for _, e := range evs {
		es = append(es, map[string]any{"kind": e.kind, "at": start.Add(time.Duration(e.minute * float64(time.Minute))), "data": e.data})
		if _, ok := e.data["distress_score"]; ok && e.kind == "emotion" {
			emotions++
		}
	}
	if len(es) > 0 {
		body["events"] = es
	}
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	rec := call(f.srv, "POST", "/v1/sessions/"+id+"/close", "Bearer "+serviceToken, string(raw))
	if rec.Code != http.StatusAccepted {
		t.Fatalf("hand over %s: %d %s", id, rec.Code, rec.Body)
	}
	f.sessions = append(f.sessions, seeded{id: id, user: user, app: app, start: start, end: end, emotions: emotions})
}

// call serves one request.
func call(h http.Handler, method, path, auth, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// day is midnight UTC n days before the fixture's now, plus h hours.
func (f *fixture) day(n int, h float64) time.Time {
	d := time.Date(f.now.Year(), f.now.Month(), f.now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -n)
	return d.Add(time.Duration(h * float64(time.Hour)))
}

// sunday is the week_ending of the latest week complete at now, back weeks earlier.
func (f *fixture) sunday(back int) time.Time {
	today := time.Date(f.now.Year(), f.now.Month(), f.now.Day(), 0, 0, 0, 0, time.UTC)
	n := int(today.Weekday())
	if n == 0 {
		n = 7
	}
	return today.AddDate(0, 0, -n-7*back)
}

// seed hands over the sessions of every app, waits for their extraction,
// and runs the weekly analytics, insights and trends batches.
func (f *fixture) seed(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	events, cancel := f.deps.Queue.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	if err := f.deps.Queue.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.deps.Queue.Stop(context.Background()) })

	// Clara: Rose, in London; six sessions in the last 30 days, one older.
	for i, daysAgo := range []int{1, 3, 5, 8, 12, 20, 40} {
		hour := 9.5
		if i%2 == 1 {
			hour = 19.5
		}
		category := []string{"calming_story", "grounding", "music"}[i%3]
		evs := []ev{
			{"emotion", 1, map[string]any{"emotion": "anxious", "confidence": 0.8, "distress_score": 0.7 - 0.02*float64(i), "trajectory": "escalating"}},
			{"question", 1, map[string]any{"fingerprint": "", "question_type": "location", "repeat_count": 1}},
			{"question", 3, map[string]any{"fingerprint": "", "question_type": "location", "repeat_count": 2}},
			{"question", 4, map[string]any{"fingerprint": secret, "question_type": "time", "repeat_count": 1}},
			{"narrative", 6, map[string]any{"narrative_id": fmt.Sprintf("n-%d", i), "mode": "seed", "category": category}},
			{"emotion", 7, map[string]any{"emotion": "calm", "confidence": 0.7, "distress_score": 0.3, "trajectory": "de-escalating"}},
			{"emotion", 10, map[string]any{"emotion": "calm", "confidence": 0.8, "distress_score": 0.2, "trajectory": "stable"}},
		}
		if i == 1 {
			evs = append(evs, ev{"escalation", 2, map[string]any{"reason": "asked for her daughter " + secret}})
		}
		f.handOver(t, fmt.Sprintf("clara-%d", i), "clara-rose", "clara", "Europe/London", f.day(daysAgo, hour), 25,
			[]msg{{"user", "Where am I? " + secret}, {"assistant", "You're safe at home. " + secret}, {"user", "Where is this place?"}}, evs)
	}

	// Elder Tree: three users; et-1 every week for four weeks, et-2 in the
	// last two, et-3 in the last only: only the last week has k users.
	intensity := []float64{4, 5, 7, 8} // newest week first
	for w := 0; w < 4; w++ {
		wed := f.sunday(w).AddDate(0, 0, -4).Add(19 * time.Hour)
		users := []string{"et-1"}
		if w <= 1 {
			users = append(users, "et-2")
		}
		if w == 0 {
			users = append(users, "et-3")
		}
		for j, u := range users {
			outcome, strategy, trigger := "urge_passed", "called_sponsor", "late_night_phone"
			if w == 2 {
				trigger = "conflict"
			}
			if j == 1 && w > 0 {
				strategy = "prayer"
			}
			if u == "et-1" && w == 0 {
				outcome = "relapsed"
			}
			f.handOver(t, fmt.Sprintf("et-%d-w%d", j+1, w), u, "eldertree", "America/Chicago", wed.Add(time.Duration(j)*time.Hour), 30,
				[]msg{{"user", "Hard week. " + secret}, {"assistant", "What helped? " + secret}},
				[]ev{{"urge", 2, map[string]any{"intensity": intensity[w] - float64(j), "trigger": trigger, "strategy": strategy, "outcome": outcome}},
					{"emotion", 1, map[string]any{"emotion": "anxious", "confidence": 0.8, "distress_score": 0.6, "trajectory": "stable"}}})
		}
	}

	// LaRa: Leo practises counting and letters.
	for i, daysAgo := range []int{10, 5, 1} {
		d := float64(i + 1)
		f.handOver(t, fmt.Sprintf("lara-%d", i), "lara-leo", "lara", "Europe/Madrid", f.day(daysAgo, 15), 20,
			[]msg{{"user", "I like dinosaurs! " + secret}, {"assistant", "Let's count dinosaurs. " + secret}},
			[]ev{{"attempt", 2, map[string]any{"concept": "counting", "difficulty": d, "success": true}},
				{"attempt", 3, map[string]any{"concept": "counting", "difficulty": d, "success": true}},
				{"attempt", 4, map[string]any{"concept": "counting", "difficulty": d + 1, "success": false}},
				{"mood", 4, map[string]any{"state": "frustrated", "confidence": 0.9}},
				{"reinforcement", 5, map[string]any{"style": "praise", "success": true}},
				{"mood", 6, map[string]any{"state": "recovered", "confidence": 0.8}},
				{"attempt", 7, map[string]any{"concept": "letters", "difficulty": d, "success": i > 0}},
				{"mood", 10, map[string]any{"state": "stable", "confidence": 0.9}}})
	}

	// Coach: Ana, three sessions a week apart.
	coach := [][]msg{
		{{"user", "My goal is to lead my team with more confidence."}, {"assistant", "What gets in the way? " + secret},
			{"user", "I avoid hard conversations. I will schedule one-on-ones with each person this week. I'm not sure how to start the talk with Sam."}},
		{{"user", "The one-on-ones went well, but hard conversations still scare me."}, {"assistant", "What did you learn? " + secret},
			{"user", "I'm going to write down expectations for the team. I'm worried about money."}},
		{{"user", "Hard conversations are easier now. I will ask for feedback every Friday."}, {"assistant", "Good. " + secret}},
	}
	for i, daysAgo := range []int{14, 7, 2} {
		f.handOver(t, fmt.Sprintf("coach-%d", i), "coach-ana", "coach", "America/New_York", f.day(daysAgo, 14), 45, coach[i], nil)
	}

	// A crisis told to the coach: the screen finds it, the extraction job
	// stores it, the user's page and the operations page show it, never
	// the words. The secret is in the crisis message itself: the coach's
	// rules never read it (extract.Rules withholds it), so no topic or
	// summary line holds it.
	f.handOver(t, "coach-risk-1", "coach-risk", "coach", "UTC", f.now.Add(-26*time.Hour), 15,
		[]msg{{"user", "I want to kill myself tonight, I have the pills ready. " + secret}, {"assistant", "I'm here with you. " + secret}}, nil)

	// Mona: Peggy changes her favourite food.
	f.handOver(t, "mona-1", "mona-peggy", "mona", "Europe/Berlin", f.now.Add(-72*time.Hour), 20,
		[]msg{{"user", "Hi Mona! My name is Peggy. My favorite food is ramen."}, {"assistant", "Lovely to meet you! " + secret},
			{"user", "I have a dog named Biscuit."}}, nil)
	f.handOver(t, "mona-2", "mona-peggy", "mona", "Europe/Berlin", f.now.Add(-3*time.Hour), 20,
		[]msg{{"user", "Actually my favorite food is sushi now."}, {"assistant", "Noted! " + secret},
			{"user", "I'm feeling tired today. I like jazz in the evening."}}, nil)

	// Max's session: the fake LLM answers it wrongly, twice; the rules step in.
	f.handOver(t, "mona-3", "mona-max", "mona", "UTC", f.now.Add(-5*time.Hour), 10,
		[]msg{{"user", "My name is Max and I live in Lisbon."}, {"assistant", "Hi Max! " + secret}}, nil)

	f.waitExtractions(t, events, len(f.sessions))
	for w := 3; w >= 0; w-- {
		week := f.sunday(w).Format(time.DateOnly)
		for _, batch := range []string{jobs.BatchWeeklyAnalytics, jobs.BatchInsights} {
			if _, err := jobs.RunBatch(ctx, f.deps, batch, week, f.now); err != nil {
				t.Fatal(err)
			}
		}
		f.weeks = append([]string{week}, f.weeks...)
	}
	if _, err := jobs.RunBatch(ctx, f.deps, jobs.BatchTrends, "", f.now); err != nil {
		t.Fatal(err)
	}

	// Late data: a week seven weeks back, run by hand, then a session of
	// that week handed over: beyond weekly-analytics' catch-up window (35
	// days), the week is stale until run by hand again.
	f.staleWeek = f.sunday(7).Format(time.DateOnly)
	if _, err := jobs.RunBatch(ctx, f.deps, jobs.BatchWeeklyAnalytics, f.staleWeek, f.now); err != nil {
		t.Fatal(err)
	}
	f.handOver(t, "et-late", "et-late", "eldertree", "UTC", f.sunday(7).AddDate(0, 0, -3).Add(18*time.Hour), 30,
		[]msg{{"user", "Offline for weeks. " + secret}}, nil)
	f.waitExtractions(t, events, 1)

	// A worker down for three hours: the scheduler saw memory-ttl (hourly)
	// then, and nothing ran it since.
	if err := f.st.UpsertBatchRun(ctx, store.BatchRun{Batch: jobs.BatchMemoryTTL, Period: "origin", ScheduledFor: f.now.Add(-3 * time.Hour),
		Outcome: "origin"}); err != nil {
		t.Fatal(err)
	}

	// The workers stop; two sessions handed over since wait in the queue.
	if err := f.deps.Queue.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		f.handOver(t, fmt.Sprintf("mona-wait-%d", i), "mona-wait", "mona", "UTC", f.now.Add(-50*time.Minute), 5,
			[]msg{{"user", "Are you there?"}}, nil)
		f.waiting++
	}
}

// waitExtractions waits for n extraction jobs to complete.
func (f *fixture) waitExtractions(t *testing.T, events <-chan *river.Event, n int) {
	t.Helper()
	pending := n
	stop := testwait.Deadline(t)
	for pending > 0 {
		select {
		case e := <-events:
			if e == nil || e.Job.Kind != (queue.ExtractArgs{}).Kind() {
				continue
			}
			if e.Kind == river.EventKindJobFailed {
				t.Fatalf("extraction job %d failed: %v", e.Job.ID, e.Job.Errors)
			}
			pending--
		case <-stop:
			t.Fatalf("gave up waiting for %d extractions (the test binary's -timeout is near)", pending)
		}
	}
}

// emotionsSince counts the emotion readings of app's sessions that ended at or after since.
func (f *fixture) emotionsSince(user string, since time.Time) (readings, sessions int) {
	for _, s := range f.sessions {
		if s.user == user && !s.end.Before(since) {
			readings += s.emotions
			sessions++
		}
	}
	return readings, sessions
}

// endedIn counts the sessions that ended in [from, to).
func (f *fixture) endedIn(from, to time.Time) int {
	n := 0
	for _, s := range f.sessions {
		if !s.end.Before(from) && s.end.Before(to) {
			n++
		}
	}
	return n
}

// basic is an Authorization header of HTTP Basic with token as the password.
func basic(token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("anyone:"+token))
}
