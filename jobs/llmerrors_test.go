package jobs_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestModelErrorTextIsNotKept (issue 34 §8): an endpoint's error message
// may echo the request ("content policy violation in: My secret diagnosis
// is …"). Its text went into the job's errors (river_job.errors, kept a
// month), the extraction run, the log and GET /v1/admin/jobs, which gave
// the operator a way to the words of a user the 403 rule keeps from them.
// Now only the status and a fixed reason are kept. A 500 (retried until the
// attempts are spent, then the rules' result) and a 400 (the rules' result
// at once), each with a marker in its message, on both databases: the
// marker is in none of those places, the status is.
func TestModelErrorTextIsNotKept(t *testing.T) {
	t.Parallel()
	const marker = "zebra-diagnosis-4471"
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			for _, tt := range []struct {
				name   string
				status int
				want   string // what the job's errors or the run say instead
			}{
				{"500", http.StatusInternalServerError, "HTTP 500: Internal Server Error"},
				{"400", http.StatusBadRequest, "HTTP 400: Bad Request"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					ctx := context.Background()
					logs := &lockedBuffer{}
					log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
					x := setupModelFailing(t, b, log)
					x.llm.SetDefault(func(llmtest.Request) llmtest.Reply {
						return llmtest.Error(tt.status, "content policy violation in: My secret diagnosis is "+marker)
					})
					id := x.closeSession(t, "s-1", monaSession("u-1"))
					x.waitJob(t, id)

					row, err := x.q.Get(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					errs, _ := json.Marshal(row.Errors)
					runs, err := x.st.ListExtractionRuns(ctx, "s-1")
					if err != nil || len(runs) == 0 {
						t.Fatalf("runs %v, %v", runs, err)
					}
					var said []string
					for _, r := range runs {
						said = append(said, r.Error)
					}
					if tt.status == 500 && (len(row.Errors) == 0 || !strings.Contains(string(errs), tt.want)) {
						t.Errorf("job errors %s; want the attempts' errors naming %q", errs, tt.want)
					}
					if !strings.Contains(strings.Join(said, "\n"), tt.want) {
						t.Errorf("runs' errors %q; want %q", said, tt.want)
					}

					srv := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeAdmin, Value: "admin-token-0123456789"}}, Logger: log})
					srv.Mount(api.Data{Store: x.st, MaxBodyBytes: 64 << 10, Handoff: handoff.Deps{Queue: x.q}})
					req := httptest.NewRequest("GET", "/v1/admin/jobs?state=completed", nil)
					req.Header.Set("Authorization", "Bearer admin-token-0123456789")
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, req)
					if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"id":`) {
						t.Fatalf("GET /v1/admin/jobs = %d %s", rec.Code, rec.Body)
					}

					for where, text := range map[string]string{
						"river_job.errors": string(errs), "the job's metadata": string(row.Metadata),
						"the extraction runs": strings.Join(said, "\n"), "the log": logs.String(),
						"GET /v1/admin/jobs": rec.Body.String(),
					} {
						if strings.Contains(text, marker) || strings.Contains(text, "secret diagnosis") {
							t.Errorf("%s holds the endpoint's message:\n%s", where, text)
						}
					}
				})
			}
		})
	}
}

// setupModelFailing is a worker, started, whose extraction asks a scripted
// model and whose log (the workers' and River's) goes to log.
func setupModelFailing(t *testing.T, b storetest.Backend, log *slog.Logger) *extractBundle {
	t.Helper()
	x := setupExtractWith(t, b, true, false)
	x.deps.Logger = jobs.WithJobLog(log)
	var err error
	if x.deps.LLM, err = llmextract.New(llmextract.Config{BaseURL: x.llm.URL(), APIKey: "test-key", Model: "gpt-4o-mini",
		Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	// A queue of its own, which logs to log as the worker's does.
	if x.q, err = queue.New(x.st, queue.Config{
		Concurrency:       map[string]int{queue.QueueDefault: 1, queue.QueueExtract: 1, queue.QueueBatch: 1},
		Workers:           jobs.NewWorkers(x.deps),
		FetchPollInterval: 50 * time.Millisecond,
		RetryPolicy:       immediateRetry{},
		Logger:            log,
		Middleware:        jobs.Middleware(),
	}); err != nil {
		t.Fatal(err)
	}
	var cancel func()
	x.events, cancel = x.q.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobSnoozed, river.EventKindJobCancelled)
	t.Cleanup(cancel)
	if err := x.q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.q.Stop(context.Background()) })
	return x
}
