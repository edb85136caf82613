package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

const adminToken = "admin-token-0123456789"

// opsArgs is a job that fails while its worker is told to fail.
type opsArgs struct {
	N int `json:"n"`
}

func (opsArgs) Kind() string { return "ops_test" }

// otherArgs is a job of another kind that fails the same way.
type otherArgs struct{}

func (otherArgs) Kind() string { return "ops_other" }

// blockArgs is a job that runs until it is cancelled.
type blockArgs struct{}

func (blockArgs) Kind() string { return "ops_block" }

// failingWorker fails, with a stack trace under its first line, until ok is set.
type failingWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	ok *atomic.Bool
}

func (w *failingWorker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	if w.ok.Load() {
		return nil
	}
	return errors.New("upstream unavailable\ngoroutine 7 [running]:\nmain.secretFrame()")
}

// blockWorker runs until its context ends and says when it started.
type blockWorker struct {
	river.WorkerDefaults[blockArgs]
	started chan int64
}

func (w *blockWorker) Work(ctx context.Context, job *river.Job[blockArgs]) error {
	w.started <- job.ID
	<-ctx.Done()
	return ctx.Err()
}

type adminBundle struct {
	srv     *api.Server
	queue   queue.Queue
	ok      *atomic.Bool
	started chan int64
	// skew moves the API's clock.
	skew *atomic.Int64
}

// setupAdmin serves the admin routes over a running River client whose
// "ops" queue works the test kinds.
func setupAdmin(t *testing.T, b storetest.Backend) *adminBundle {
	t.Helper()
	ctx := context.Background()
	st := b.Open(t)
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	tb := &adminBundle{ok: &atomic.Bool{}, started: make(chan int64, 1), skew: &atomic.Int64{}}
	workers := river.NewWorkers()
	river.AddWorker(workers, &failingWorker[opsArgs]{ok: tb.ok})
	river.AddWorker(workers, &failingWorker[otherArgs]{ok: tb.ok})
	river.AddWorker(workers, &blockWorker{started: tb.started})
	q, err := queue.New(st, queue.Config{Concurrency: map[string]int{"ops": 4}, Workers: workers, FetchPollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = q.StopAndCancel(stopCtx)
	})
	tb.queue = q
	tb.srv = api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: token}, {Scope: api.ScopeAdmin, Value: adminToken}}})
	tb.srv.Mount(api.Data{Store: st, MaxBodyBytes: 64 << 10, Handoff: handoff.Deps{Queue: q},
		Now: func() time.Time { return time.Now().Add(time.Duration(tb.skew.Load())) }})
	return tb
}

// admin calls a route with the admin token and decodes the JSON answer.
func (tb *adminBundle) admin(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+adminToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	served(t, tb.srv, rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %q", method, path, rec.Body.String())
	}
	return rec.Code, out
}

func (tb *adminBundle) insert(t *testing.T, args river.JobArgs, opts *river.InsertOpts) int64 {
	t.Helper()
	opts.Queue = "ops"
	ins, err := tb.queue.Insert(context.Background(), args, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ins.ID
}

// waitState polls until the job is in state.
func (tb *adminBundle) waitState(t *testing.T, id int64, state rivertype.JobState) {
	t.Helper()
	deadline := testwait.GiveUpAt(t)
	for {
		row, err := tb.queue.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if row.State == state {
			return
		}
		if testwait.Past(deadline) {
			t.Fatalf("job %d is %s; want %s", id, row.State, state)
		}
		<-time.After(20 * time.Millisecond)
	}
}

func jobList(t *testing.T, res map[string]any) []map[string]any {
	t.Helper()
	list, ok := res["jobs"].([]any)
	if !ok {
		t.Fatalf("no jobs list in %v", res)
	}
	out := make([]map[string]any, len(list))
	for i, j := range list {
		out[i] = j.(map[string]any)
	}
	return out
}

func errorCode(res map[string]any) string {
	e, _ := res["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func TestAdminRoutesNeedAdminScope(t *testing.T) {
	t.Parallel()
	tb := setupAdmin(t, storetest.Backends(t)[0])
	routes := []struct{ method, path, body string }{
		{"GET", "/v1/admin/jobs", ""},
		{"POST", "/v1/admin/jobs/retry", `{"state":"discarded"}`},
		{"POST", "/v1/admin/jobs/1/retry", ""},
		{"POST", "/v1/admin/jobs/1/cancel", ""},
		{"GET", "/v1/admin/queues", ""},
		{"POST", "/v1/admin/queues/ops/pause", ""},
		{"POST", "/v1/admin/queues/ops/resume", ""},
	}
	for _, r := range routes {
		for _, c := range []struct {
			token string
			want  int
		}{{"", http.StatusUnauthorized}, {"not-a-token-at-all-0000", http.StatusUnauthorized}, {token, http.StatusForbidden}} {
			req := httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
			if r.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			rec := httptest.NewRecorder()
			served(t, tb.srv, rec, req)
			if rec.Code != c.want {
				t.Errorf("%s %s with token %q = %d; want %d", r.method, r.path, c.token, rec.Code, c.want)
			}
		}
		if code, res := tb.admin(t, r.method, r.path, r.body); code == 401 || code == 403 || code >= 500 {
			t.Errorf("%s %s with the admin token = %d %v", r.method, r.path, code, res)
		}
	}
}

// TestAdminJobs walks an operator through the job routes on both databases:
// list discarded jobs, retry one, retry the rest of a kind in bulk within a
// window, cancel, and the errors for bad input and unknown jobs.
func TestAdminJobs(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			tb := setupAdmin(t, b)
			var ids []int64
			for n := range 3 {
				ids = append(ids, tb.insert(t, opsArgs{N: n}, &river.InsertOpts{MaxAttempts: 1}))
			}
			other := tb.insert(t, otherArgs{}, &river.InsertOpts{MaxAttempts: 1})
			for _, id := range append(slices.Clone(ids), other) {
				tb.waitState(t, id, rivertype.JobStateDiscarded)
			}

			// Listing: filtered, limited, and showing nothing but the job's bookkeeping.
			code, res := tb.admin(t, "GET", "/v1/admin/jobs?state=discarded&kind=ops_test", "")
			list := jobList(t, res)
			if code != 200 || len(list) != 3 {
				t.Fatalf("discarded ops_test jobs = %d, %d jobs; want 3: %v", code, len(list), res)
			}
			want := []string{"attempt", "attempted_at", "created_at", "errors", "finalized_at", "id", "kind", "max_attempts", "queue", "scheduled_at", "state"}
			for _, j := range list {
				keys := make([]string, 0, len(j))
				for k := range j {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if !slices.Equal(keys, want) {
					t.Fatalf("job fields %v; want exactly %v", keys, want)
				}
				errs, _ := j["errors"].([]any)
				if len(errs) != 1 || errs[0].(map[string]any)["message"] != "upstream unavailable" || j["finalized_at"] == nil {
					t.Fatalf("job %v: want one error, its first line only, and a finalized_at", j)
				}
			}
			if _, res := tb.admin(t, "GET", "/v1/admin/jobs?state=discarded,retryable&limit=2", ""); len(jobList(t, res)) != 2 {
				t.Fatalf("limit=2 gave %v", res)
			}
			if _, res := tb.admin(t, "GET", "/v1/admin/jobs?queue=elsewhere", ""); len(jobList(t, res)) != 0 {
				t.Fatalf("queue=elsewhere gave %v", res)
			}
			for _, q := range []string{"state=broken", "limit=0", "limit=ten", "limit=20000", "color=red"} {
				code, res := tb.admin(t, "GET", "/v1/admin/jobs?"+q, "")
				if code != 400 || errorCode(res) != "bad_request" {
					t.Errorf("?%s = %d %v; want 400", q, code, res)
				}
			}
			if _, res := tb.admin(t, "GET", "/v1/admin/jobs?state=broken", ""); !strings.Contains(fmt.Sprint(res), "discarded") {
				t.Errorf("an unknown state's error does not list the valid ones: %v", res)
			}

			// One job retried by id runs again and completes.
			tb.ok.Store(true)
			code, res = tb.admin(t, "POST", fmt.Sprintf("/v1/admin/jobs/%d/retry", ids[0]), "")
			if code != 200 || res["state"] != "available" || res["max_attempts"] != float64(2) {
				t.Fatalf("retry = %d %v; want the job available with one more attempt", code, res)
			}
			tb.waitState(t, ids[0], rivertype.JobStateCompleted)
			for path, want := range map[string]int{"/v1/admin/jobs/999999/retry": 404, "/v1/admin/jobs/abc/retry": 400,
				"/v1/admin/jobs/999999/cancel": 404, "/v1/admin/jobs/-3/cancel": 400} {
				if code, res := tb.admin(t, "POST", path, ""); code != want {
					t.Errorf("POST %s = %d %v; want %d", path, code, res, want)
				}
			}

			// Bulk: a window the jobs finished before retries nothing; a
			// wider one retries the rest of the kind and leaves the other kind.
			tb.skew.Store(int64(2 * time.Hour))
			if code, res := tb.admin(t, "POST", "/v1/admin/jobs/retry", `{"state":"discarded","kind":"ops_test","since":"1h"}`); code != 200 || res["retried"] != float64(0) {
				t.Fatalf("bulk retry of jobs finished over 1h ago (by the API's clock) = %d %v; want 0", code, res)
			}
			tb.skew.Store(0)
			if code, res := tb.admin(t, "POST", "/v1/admin/jobs/retry", `{"state":"discarded","kind":"ops_test","since":"1d"}`); code != 200 || res["retried"] != float64(2) {
				t.Fatalf("bulk retry = %d %v; want 2", code, res)
			}
			tb.waitState(t, ids[1], rivertype.JobStateCompleted)
			tb.waitState(t, ids[2], rivertype.JobStateCompleted)
			if row, err := tb.queue.Get(context.Background(), other); err != nil || row.State != rivertype.JobStateDiscarded {
				t.Fatalf("the other kind's job: %v, %v; want it left discarded", row, err)
			}
			for _, body := range []string{``, `{}`, `not json`, `{"state":"completed"}`, `{"state":"discarded","since":"soon"}`,
				`{"state":"discarded","since":"-1h"}`, `{"state":"discarded","color":"red"}`, `{"state":"discarded,cancelled"}`} {
				if code, res := tb.admin(t, "POST", "/v1/admin/jobs/retry", body); code != 400 || errorCode(res) != "bad_request" {
					t.Errorf("bulk retry with %q = %d %v; want 400", body, code, res)
				}
			}

			// Cancel: a scheduled job is cancelled at once, and again changes
			// nothing; a completed one cannot be.
			later := tb.insert(t, opsArgs{N: 9}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)})
			for range 2 {
				code, res := tb.admin(t, "POST", fmt.Sprintf("/v1/admin/jobs/%d/cancel", later), "")
				if code != 200 || res["state"] != "cancelled" || res["finalized_at"] == nil {
					t.Fatalf("cancel = %d %v", code, res)
				}
			}
			if code, res := tb.admin(t, "POST", fmt.Sprintf("/v1/admin/jobs/%d/cancel", ids[0]), ""); code != 409 || errorCode(res) != "conflict" {
				t.Fatalf("cancel of a completed job = %d %v; want 409", code, res)
			}

			// A running job cannot be retried; cancelling it stops its worker.
			running := tb.insert(t, blockArgs{}, &river.InsertOpts{MaxAttempts: 1})
			select {
			case <-tb.started:
			case <-testwait.Deadline(t):
				t.Fatal("the blocking job never started")
			}
			if code, res := tb.admin(t, "POST", fmt.Sprintf("/v1/admin/jobs/%d/retry", running), ""); code != 409 {
				t.Fatalf("retry of a running job = %d %v; want 409", code, res)
			}
			if code, res := tb.admin(t, "POST", fmt.Sprintf("/v1/admin/jobs/%d/cancel", running), ""); code != 202 || res["state"] != "running" {
				t.Fatalf("cancel of a running job = %d %v; want 202 while it stops", code, res)
			}
			tb.waitState(t, running, rivertype.JobStateCancelled)
		})
	}
}

// TestAdminQueues lists, pauses and resumes a queue, and answers 404 for an
// unknown one.
func TestAdminQueues(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			tb := setupAdmin(t, b)
			// River registers a queue when its producer starts.
			var ops map[string]any
			deadline := testwait.GiveUpAt(t)
			for ops == nil {
				code, res := tb.admin(t, "GET", "/v1/admin/queues", "")
				list, _ := res["queues"].([]any)
				if code != 200 || list == nil {
					t.Fatalf("queues = %d %v", code, res)
				}
				for _, q := range list {
					if q.(map[string]any)["name"] == "ops" {
						ops = q.(map[string]any)
					}
				}
				if testwait.Past(deadline) {
					t.Fatalf("queue ops never listed: %v", res)
				}
				<-time.After(20 * time.Millisecond)
			}
			if ops["paused"] != false || ops["paused_at"] != nil {
				t.Fatalf("ops = %v; want it running", ops)
			}
			code, res := tb.admin(t, "POST", "/v1/admin/queues/ops/pause", "")
			if code != 200 || res["name"] != "ops" || res["paused"] != true || res["paused_at"] == nil {
				t.Fatalf("pause = %d %v", code, res)
			}
			code, res = tb.admin(t, "POST", "/v1/admin/queues/ops/resume", "")
			if code != 200 || res["paused"] != false {
				t.Fatalf("resume = %d %v", code, res)
			}
			for _, path := range []string{"/v1/admin/queues/nope/pause", "/v1/admin/queues/nope/resume"} {
				if code, res := tb.admin(t, "POST", path, ""); code != 404 || errorCode(res) != "not_found" {
					t.Errorf("POST %s = %d %v; want 404", path, code, res)
				}
			}
		})
	}
}

// TestAdminRefusesControlCharacters: a kind or queue holding a NUL (which
// Postgres cannot hold in text) or another control character is the
// operator's mistake, a 400 that says so, on either database.
func TestAdminRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			tb := setupAdmin(t, b)
			for _, c := range []struct{ method, path, body string }{
				{"GET", "/v1/admin/jobs?kind=%00", ""},
				{"GET", "/v1/admin/jobs?kind=ops_test,a%00b", ""},
				{"GET", "/v1/admin/jobs?queue=ops%00", ""},
				{"GET", "/v1/admin/jobs?kind=%1b%5b2J", ""},
				{"GET", "/v1/admin/jobs?kind=%ff", ""},
				{"POST", "/v1/admin/jobs/retry", `{"state":"discarded","kind":"\u0000"}`},
				{"POST", "/v1/admin/queues/ops%00/pause", ""},
				{"POST", "/v1/admin/queues/ops%00/resume", ""},
			} {
				code, res := tb.admin(t, c.method, c.path, c.body)
				e, _ := res["error"].(map[string]any)
				msg, _ := e["message"].(string)
				if code != 400 || errorCode(res) != "bad_request" || !strings.Contains(msg, "control characters") {
					t.Errorf("%s %s %s = %d %v; want 400 naming the control character", c.method, c.path, c.body, code, res)
				}
			}
			if code, res := tb.admin(t, "GET", "/v1/admin/jobs?kind=ops_test", ""); code != 200 {
				t.Errorf("a plain kind = %d %v", code, res)
			}
		})
	}
}
