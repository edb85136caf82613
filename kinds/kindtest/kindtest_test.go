package kindtest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/internal/workerviews"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"

	_ "github.com/mnemo-ai/mnemo/kinds/all"
	// The one line that adds the sixth kind to this test binary (a blank
	// import elsewhere; named here, where the test reads its batch's name).
	"github.com/mnemo-ai/mnemo/kinds/kindtest"
)

const (
	serviceToken = "service-token-for-the-kind-test"
	adminToken   = "admin-token-for-the-kind-test-01"
)

// worker mounts the API and the views on a fresh database, with the
// extraction workers running, the apps of testdata/apps beside the
// built-in ones and every batch's default schedule, as cmd/worker serves
// them; it returns the server and the workers' dependencies.
func worker(t *testing.T, b storetest.Backend) (*httptest.Server, *jobs.Deps) {
	t.Helper()
	ctx := context.Background()
	st := b.Open(t)
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	apps, err := prompts.Load("testdata/apps")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := seal.ParseKeys("k1:" + base64.StdEncoding.EncodeToString(make([]byte, 32)))
	if err != nil {
		t.Fatal(err)
	}
	schedules, err := jobs.ParseSchedules(nil)
	if err != nil {
		t.Fatal(err)
	}
	deps := &jobs.Deps{Store: st, Apps: apps, Keys: keys, Schedules: schedules}
	q, err := queue.New(st, queue.Config{
		Concurrency:       map[string]int{queue.QueueDefault: 1, queue.QueueExtract: 1, queue.QueueBatch: 1},
		Workers:           jobs.NewWorkers(deps),
		FetchPollInterval: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	deps.Queue = q
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Stop(context.Background()) })
	srv := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: serviceToken}, {Scope: api.ScopeAdmin, Value: adminToken}}})
	srv.Mount(api.Data{Store: st, MaxBodyBytes: 64 << 10, Handoff: handoff.Deps{Queue: q, Apps: apps, Keys: keys}})
	srv.MountViews(workerviews.Config(deps))
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts, deps
}

// request sends body (when not nil) as JSON with token and returns the
// status and the body.
func request(t *testing.T, method, url, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// TestSixthKindEndToEnd: an app of a kind that only this test binary
// registers is handed a session over HTTP, the worker extracts it with the
// kind's rules, and the user's page is the one the kind chose, under its
// heading, holding what the rules kept; the kind's own batch is scheduled
// beside the built-in ones, and once it ran, the page shows its tally.
func TestSixthKindEndToEnd(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ts, deps := worker(t, b)
			start := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
			at := func(min int) string { return start.Add(time.Duration(min) * time.Minute).Format(time.RFC3339) }
			session := map[string]any{"user_id": "u-6", "app": "notes", "started_at": at(0), "ended_at": at(10),
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "Note: water the ferns on Fridays", "at": at(1)},
					{"id": "m2", "role": "assistant", "content": "Noted.", "at": at(2)},
					{"id": "m3", "role": "user", "content": "Thanks, that is all.", "at": at(3)}}}
			if code, body := request(t, "POST", ts.URL+"/v1/sessions/s-6/close", serviceToken, session); code != http.StatusAccepted {
				t.Fatalf("close = %d %s", code, body)
			}

			var got struct {
				Status  string         `json:"status"`
				Summary map[string]any `json:"summary"`
			}
			for deadline := testwait.GiveUpAt(t); ; <-time.After(25 * time.Millisecond) {
				code, body := request(t, "GET", ts.URL+"/v1/sessions/s-6", serviceToken, nil)
				if code == http.StatusOK {
					if err := json.Unmarshal(body, &got); err != nil {
						t.Fatal(err)
					}
					if got.Status == store.StatusProcessed || got.Status == store.StatusFailed {
						break
					}
				}
				if testwait.Past(deadline) {
					t.Fatalf("session not processed in time: %d %s", code, body)
				}
			}
			if got.Status != store.StatusProcessed || got.Summary["summary"] != "2 messages from the user, 1 note" {
				t.Fatalf("session %s, summary %v; want processed by the kind's rules", got.Status, got.Summary)
			}

			code, page := request(t, "GET", ts.URL+"/views/users/u-6", adminToken, nil)
			if code != http.StatusOK || !strings.Contains(string(page), "Notes of the test kind") ||
				!strings.Contains(string(page), "water the ferns on Fridays") {
				t.Fatalf("the user's page = %d; want the kind's heading and its note:\n%s", code, page)
			}
			if tally := section(t, page, "kindtest-tally"); !strings.Contains(tally, "The tally appears after the "+kindtest.TallyBatch+" batch") {
				t.Fatalf("before its batch ran, the tally section = %s; want when it appears", tally)
			}

			// The kind's batch is one of the worker's batches, run as
			// `batch run kindtest-tally` runs it: through the ledger.
			if !slices.Contains(jobs.BatchNames(), kindtest.TallyBatch) {
				t.Fatalf("batches %v; want the kind's %s", jobs.BatchNames(), kindtest.TallyBatch)
			}
			ctx := context.Background()
			if rows, err := jobs.RunBatch(ctx, deps, kindtest.TallyBatch, "", time.Now()); err != nil || rows != 1 {
				t.Fatalf("run %s = %d rows, %v; want the one user's tally", kindtest.TallyBatch, rows, err)
			}
			if runs, err := deps.Store.ListBatchRuns(ctx, kindtest.TallyBatch, 1); err != nil || len(runs) != 1 || runs[0].Outcome != jobs.LedgerOK || runs[0].RowsTouched != 1 {
				t.Fatalf("ledger of %s = %+v, %v; want one ok run of 1 row", kindtest.TallyBatch, runs, err)
			}
			_, page = request(t, "GET", ts.URL+"/views/users/u-6", adminToken, nil)
			tally := section(t, page, "kindtest-tally")
			for _, want := range []string{"<dt>Sessions</dt><dd>1", "<dt>Notes</dt><dd>1"} {
				if !strings.Contains(tally, want) {
					t.Fatalf("after its batch ran, the tally section = %s; want %q", tally, want)
				}
			}
		})
	}
}

// section is the HTML of the page's section whose data-section is attr.
func section(t *testing.T, page []byte, attr string) string {
	t.Helper()
	_, rest, ok := strings.Cut(string(page), `data-section="`+attr+`"`)
	if !ok {
		t.Fatalf("no section %s on the page:\n%s", attr, page)
	}
	s, _, _ := strings.Cut(rest, "</section>")
	return s
}
