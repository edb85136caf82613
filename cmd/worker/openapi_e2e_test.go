package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/api/apispec"
	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// spec checks every exchange the end-to-end tests have with a worker (the
// client helper, tenantCall, uiRequest, rawGet, …) against api/openapi.json.
// It is loaded on first use: the test binary also runs as the worker.
var spec = sync.OnceValue(apispec.MustRecorder)

// specClient is an http.Client whose every exchange is checked against
// api/openapi.json, a mismatch failing t.
func specClient(t testing.TB) *http.Client { return spec().Client(t) }

// notExercised are the documented operations this package's tests do not
// reach, each with why. Empty: every operation of the document is
// exercised against a real worker and checked.
var notExercised = map[string]string{}

// checkSpecCoverage, after a run of every test of the package, fails it
// when a documented operation was not exercised against a worker (and is
// not in notExercised), or one listed there was. It prints what was
// checked with -v, and writes it to $MNEMO_OPENAPI_REPORT when set.
func checkSpecCoverage() int {
	rec := spec()
	if !rec.Used() {
		return 0
	}
	if testing.Verbose() {
		fmt.Print("operations checked against api/openapi.json, with the statuses seen:\n" + rec.Report())
	}
	if err := rec.WriteReport(os.Getenv("MNEMO_OPENAPI_REPORT")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Only a run of every test says anything about coverage.
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return 0
		}
	}
	if testing.Short() {
		return 0
	}
	code := 0
	missing := rec.Unexercised()
	for _, key := range missing {
		if _, ok := notExercised[key]; !ok {
			fmt.Fprintf(os.Stderr, "FAIL: %s is in api/openapi.json but no end-to-end test exercised it; exercise it or list it in notExercised with why\n", key)
			code = 1
		}
	}
	for key := range notExercised {
		if !slices.Contains(missing, key) {
			fmt.Fprintf(os.Stderr, "FAIL: %s is listed in notExercised but was exercised; take it off the list\n", key)
			code = 1
		}
	}
	return code
}

// TestOpenAPIEndToEnd exercises, on each database, what the other
// end-to-end tests leave out: the document itself, readiness, and the
// operator's job and queue routes, with a real worker whose extract queue is
// paused, a job cancelled and retried, and the queue resumed. Every
// exchange is checked against api/openapi.json (specClient).
func TestOpenAPIEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			admin := client{t: t, base: c.base, token: adminToken}

			// The document, for anyone; readiness.
			resp, err := specClient(t).Get(c.base + "/openapi.json")
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(doc) != string(api.OpenAPI()) {
				t.Fatalf("GET /openapi.json = %d, %d bytes; want the embedded document", resp.StatusCode, len(doc))
			}
			if code, res := c.do("GET", "/readyz", nil); code != 200 || res["status"] != "ready" {
				t.Fatalf("readyz = %d %v", code, res)
			}

			// River registers a queue once its producer runs.
			testwait.Until(t, "the extract queue", func() (bool, string) {
				code, res := admin.do("GET", "/v1/admin/queues", nil)
				return code == 200 && strings.Contains(fmt.Sprint(res["queues"]), "name:extract"), fmt.Sprint(code, res)
			})
			if code, res := c.do("GET", "/v1/admin/queues", nil); code != 403 {
				t.Fatalf("queues with a service token = %d %v; want 403", code, res)
			}
			if code, res := admin.do("POST", "/v1/admin/queues/extract/pause", nil); code != 200 || res["paused"] != true {
				t.Fatalf("pause = %d %v", code, res)
			}
			if code, _ := admin.do("POST", "/v1/admin/queues/no-such-queue/pause", nil); code != 404 {
				t.Fatalf("pause of an unknown queue = %d; want 404", code)
			}

			// A session handed over while extraction is paused: its job waits.
			body := map[string]any{"user_id": "u-spec", "app": "mona", "started_at": at(0), "ended_at": at(5),
				"messages": []map[string]any{{"id": "m1", "role": "user", "content": "My name is Ines.", "at": at(1)}}}
			code, res := c.do("POST", "/v1/sessions/spec-1/close", body)
			jobs, _ := res["jobs"].([]any)
			if code != 202 || len(jobs) != 1 {
				t.Fatalf("close = %d %v", code, res)
			}
			id := fmt.Sprint(jobs[0].(map[string]any)["id"])
			if code, res := admin.do("GET", "/v1/admin/jobs?kind=extract&state=available,running,completed&limit=10", nil); code != 200 || !strings.Contains(fmt.Sprint(res["jobs"]), "kind:extract") {
				t.Fatalf("jobs = %d %v", code, res)
			}
			if code, _ := admin.do("GET", "/v1/admin/jobs?color=red", nil); code != 400 {
				t.Fatalf("jobs with an unknown parameter = %d; want 400", code)
			}
			// The pause may reach the producer after it fetched the job: then
			// the job runs, and cancel is 202 or 409, retry 409 or 200.
			if code, res := admin.do("POST", "/v1/admin/jobs/"+id+"/cancel", nil); code != 200 && code != 202 && code != 409 {
				t.Fatalf("cancel = %d %v", code, res)
			}
			if code, res := admin.do("POST", "/v1/admin/jobs/"+id+"/retry", nil); code != 200 && code != 409 {
				t.Fatalf("retry = %d %v", code, res)
			}
			if code, _ := admin.do("POST", "/v1/admin/jobs/99999999/retry", nil); code != 404 {
				t.Fatalf("retry of an unknown job = %d; want 404", code)
			}
			if code, _ := admin.do("POST", "/v1/admin/jobs/not-a-number/cancel", nil); code != 400 {
				t.Fatalf("cancel of a malformed id = %d; want 400", code)
			}
			if code, res := admin.do("POST", "/v1/admin/jobs/retry", map[string]any{"state": "discarded", "kind": "extract", "since": "24h"}); code != 200 || res["retried"] == nil {
				t.Fatalf("bulk retry = %d %v", code, res)
			}
			if code, _ := admin.do("POST", "/v1/admin/jobs/retry", map[string]any{"state": "completed"}); code != 400 {
				t.Fatalf("bulk retry of completed jobs = %d; want 400", code)
			}
			if code, res := admin.do("POST", "/v1/admin/queues/extract/resume", nil); code != 200 || res["paused"] != false {
				t.Fatalf("resume = %d %v", code, res)
			}
			// A job that was running when cancelled ends cancelled, after the
			// retry above: retry it again until the session is processed.
			testwait.Until(t, "the session processed after the queue resumed", func() (bool, string) {
				_, s := c.do("GET", "/v1/sessions/spec-1", nil)
				if s["status"] == "processed" {
					return true, ""
				}
				if _, res := admin.do("GET", "/v1/admin/jobs?state=cancelled&kind=extract", nil); strings.Contains(fmt.Sprint(res["jobs"]), "id:"+id+" ") {
					admin.do("POST", "/v1/admin/jobs/"+id+"/retry", nil)
				}
				return false, fmt.Sprint(s["status"])
			})

			// What no route serves answers the document's shapes too.
			if code, _ := c.do("GET", "/v1/nothing", nil); code != 404 {
				t.Fatalf("an unknown path = %d; want 404", code)
			}
			if code, _ := c.do("PUT", "/v1/users/u-spec/memories", nil); code != 405 {
				t.Fatalf("a wrong method = %d; want 405", code)
			}
		})
	}
}
