package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// recorder is a jobs.Metrics that keeps what it is told.
type recorder struct {
	mu          sync.Mutex
	jobs        map[string]int // "kind outcome" → attempts
	extractions []jobs.ExtractionStat
	batches     []string
	changed     chan struct{}
}

func newRecorder() *recorder {
	return &recorder{jobs: map[string]int{}, changed: make(chan struct{}, 1)}
}

func (r *recorder) note() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) Job(kind, outcome string, took time.Duration) {
	r.mu.Lock()
	r.jobs[kind+" "+outcome]++
	r.mu.Unlock()
	r.note()
}

func (r *recorder) Extraction(e jobs.ExtractionStat) {
	r.mu.Lock()
	r.extractions = append(r.extractions, e)
	r.mu.Unlock()
	r.note()
}

func (r *recorder) Batch(name, outcome string, took time.Duration, rows int64) {
	r.mu.Lock()
	r.batches = append(r.batches, fmt.Sprintf("%s %s %d", name, outcome, rows))
	r.mu.Unlock()
	r.note()
}

// waitJobs waits until the recorder has seen the job attempt "kind outcome".
func (r *recorder) waitJob(t *testing.T, key string) {
	t.Helper()
	deadline := testwait.Deadline(t)
	for {
		r.mu.Lock()
		n := r.jobs[key]
		r.mu.Unlock()
		if n > 0 {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("no job attempt %q observed; saw %v", key, r.jobs)
		}
	}
}

// setupObserved starts a worker as `serve` does: riverlog middleware, the
// workers' logger teed into the job log, and metrics.
func setupObserved(t *testing.T, b storetest.Backend) (*extractBundle, *recorder) {
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
	rec := newRecorder()
	x := &extractBundle{st: st, llm: llmtest.NewServer(t)}
	x.deps = &jobs.Deps{Store: st, Apps: apps, Keys: keys, Metrics: rec,
		Logger: jobs.WithJobLog(slog.New(slog.DiscardHandler))}
	if x.deps.LLM, err = llmextract.New(llmextract.Config{BaseURL: x.llm.URL(), APIKey: "test-key", Model: "gpt-4o-mini",
		Timeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	x.q, err = queue.New(st, queue.Config{
		Concurrency:       map[string]int{queue.QueueDefault: 2, queue.QueueExtract: 2, queue.QueueBatch: 1},
		Workers:           jobs.NewWorkers(x.deps),
		FetchPollInterval: 50 * time.Millisecond,
		Middleware:        jobs.Middleware(),
	})
	if err != nil {
		t.Fatal(err)
	}
	x.deps.Queue = x.q
	var cancel func()
	x.events, cancel = x.q.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobSnoozed, river.EventKindJobCancelled)
	t.Cleanup(cancel)
	jobs.ObserveJobs(x.q, rec)
	if err := x.q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.q.Stop(context.Background()) })
	return x, rec
}

// jobLog is the riverlog lines River keeps in a job's metadata, by attempt.
func jobLog(t *testing.T, row *rivertype.JobRow) []string {
	t.Helper()
	var md struct {
		Log []struct {
			Attempt int    `json:"attempt"`
			Log     string `json:"log"`
		} `json:"river:log"`
	}
	if err := json.Unmarshal(row.Metadata, &md); err != nil {
		t.Fatalf("job %d metadata: %v", row.ID, err)
	}
	var out []string
	for _, l := range md.Log {
		out = append(out, l.Log)
	}
	return out
}

// TestJobLogAndMetrics: a session whose first LLM call is rate limited is
// snoozed, then extracted. The job keeps each run's log lines (River UI
// shows them): the attempt's start and end and what the worker said about
// the session, with ids and outcomes only, never the transcript. Metrics see
// both runs with their outcomes, the tokens spent, the job's attempts as
// River recorded them, and a batch's rows.
func TestJobLogAndMetrics(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x, rec := setupObserved(t, b)
			answer := strings.Replace(monaAnswer, `{"key":"name"`,
				`{"key":"feeling","value":"tired","category":"feeling","importance":70,"confidence":0.9,"source_message_id":"m3"},{"key":"name"`, 1)
			x.llm.Push(llmtest.Status(429, "1"), llmtest.WithUsage(300, 40, llmtest.Valid(answer)))
			id := x.closeSession(t, "s-log-1", monaSession("u-log-1"))
			if seen := x.waitJob(t, id); len(seen) != 2 || seen[0] != river.EventKindJobSnoozed {
				t.Fatalf("job events %v; want snoozed, then completed", seen)
			}

			row, err := x.q.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			runs := jobLog(t, row)
			if len(runs) != 2 {
				t.Fatalf("job log has %d runs; want the snoozed run and the completed one: %q", len(runs), runs)
			}
			for i, want := range [][]string{
				{"attempt started", "job_id=", "kind=extract", "llm rate limited; snoozing", "session_id=s-log-1", "result=snoozed", "snooze=1s"},
				{"attempt started", "session processed", "session_id=s-log-1", "source=llm", "outcome=ok", "memories=", "attempt finished", "result=ok"},
			} {
				for _, w := range want {
					if !strings.Contains(runs[i], w) {
						t.Errorf("run %d's log lacks %q:\n%s", i+1, w, runs[i])
					}
				}
			}
			all := strings.Join(runs, "\n")
			for _, msg := range monaSession("u-log-1").Messages {
				for _, word := range []string{"Peggy", "ramen", "teal", "hunter2", "tired", msg.Content} {
					if strings.Contains(all, word) {
						t.Fatalf("the job log carries transcript text %q:\n%s", word, all)
					}
				}
			}
			if strings.Contains(all, "u-log-1") {
				t.Fatalf("the job log names the user:\n%s", all)
			}

			rec.waitJob(t, "extract snoozed")
			rec.waitJob(t, "extract completed")
			rec.mu.Lock()
			ex := append([]jobs.ExtractionStat(nil), rec.extractions...)
			rec.mu.Unlock()
			if len(ex) != 2 || ex[0].Outcome != jobs.OutcomeRateLimited || ex[1].Outcome != jobs.OutcomeOK ||
				ex[1].Source != extract.SourceLLM || ex[1].App != "mona" || ex[1].Model != "gpt-4o-mini" ||
				ex[1].InputTokens != 300 || ex[1].OutputTokens != 40 || ex[1].CostUSD <= 0 {
				t.Fatalf("extractions observed: %+v", ex)
			}

			// A batch run reports its outcome and rows.
			x.deps.Schedules, err = jobs.ParseSchedules(nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := jobs.RunBatch(ctx, x.deps, jobs.BatchMemoryTTL, "", time.Now().Add(7*time.Hour)); err != nil {
				t.Fatal(err)
			}
			rec.mu.Lock()
			batches := strings.Join(rec.batches, ",")
			rec.mu.Unlock()
			if batches != "memory-ttl ok 1" { // the six-hour feeling expired
				t.Fatalf("batches observed: %q; want memory-ttl ok with 1 row", batches)
			}
		})
	}
}

// TestQueueDepths counts waiting jobs per queue across the database, as the
// queue-depth gauge reads them on a scrape.
func TestQueueDepths(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := b.Open(t)
			if _, err := queue.MigrateRiver(ctx, st); err != nil {
				t.Fatal(err)
			}
			// An insert-only client, as the CLI has: nothing works the jobs.
			q, err := queue.New(st, queue.Config{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"a", "b"} {
				if _, err := q.Insert(ctx, queue.ExtractArgs{SessionID: s}, nil); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := q.Insert(ctx, echoArgs{N: 1}, nil); err != nil {
				t.Fatal(err)
			}
			depths, err := queue.QueueDepths(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, d := range depths {
				got[d.Queue] = d.Available
			}
			if len(got) != 3 || got[queue.QueueExtract] != 2 || got[queue.QueueDefault] != 1 || got[queue.QueueBatch] != 0 {
				t.Fatalf("queue depths %+v; want extract 2, default 1, batch 0", depths)
			}
		})
	}
}
