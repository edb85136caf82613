package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// uiRequest sends method path with auth ("" for none, "Bearer …" or a
// ready-made Basic header) and returns the status, headers and body.
func uiRequest(t *testing.T, base, method, path, auth string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// Redirects are part of what is asserted.
	hc := &http.Client{Transport: spec().Transport(t, nil), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// series is one sample of a Prometheus text exposition.
type series struct {
	name   string
	labels map[string]string
	value  float64
}

var seriesLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)`)
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// parseExposition reads the samples of a text exposition.
func parseExposition(t *testing.T, body []byte) []series {
	t.Helper()
	var out []series
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := seriesLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not an exposition line: %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("value of %q: %v", line, err)
		}
		s := series{name: m[1], labels: map[string]string{}, value: v}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			s.labels[p[1]] = p[2]
		}
		out = append(out, s)
	}
	return out
}

// sample finds the sample of name whose labels include want.
func sample(all []series, name string, want map[string]string) (float64, bool) {
	for _, s := range all {
		if s.name != name {
			continue
		}
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
			}
		}
		if match {
			return s.value, true
		}
	}
	return 0, false
}

// TestOperatorSeesRiverUIAndMetrics is what an operator sees of a worker on
// each database: River UI under /ui/ and Prometheus metrics at /metrics, both
// for admin tokens only; after a session is handed over and processed, the
// job is in the UI with its own log lines, and the metrics count the handoff,
// the job and the extraction and show the queues. Neither the job log nor
// any metric label carries transcript text, and no label names a user or a
// session.
func TestOperatorSeesRiverUIAndMetrics(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			admin, service := "Bearer "+adminToken, "Bearer "+serviceToken

			const userID, sessionID = "u-opsui-4711", "s-opsui-4711"
			private := []string{userID, sessionID, "Peggy", "ramen", "loneliness after the argument"}
			body := map[string]any{
				"user_id": userID, "app": "mona", "started_at": at(0), "ended_at": at(20), "display_name": "Peggy",
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "Hi, my name is Peggy.", "at": at(1)},
					{"id": "m2", "role": "user", "content": "My favorite food is ramen.", "at": at(2)},
					{"id": "m3", "role": "user", "content": "I keep thinking about the loneliness after the argument.", "at": at(3)},
				},
			}
			code, res := c.do("POST", "/v1/sessions/"+sessionID+"/close", body)
			if code != 202 {
				t.Fatalf("close = %d %v", code, res)
			}
			jobList, _ := res["jobs"].([]any)
			if len(jobList) != 1 {
				t.Fatalf("close answered %v", res)
			}
			jobID := int64(jobList[0].(map[string]any)["id"].(float64))
			// A handoff without a token is refused, and counted as such.
			if code, _, _ := uiRequest(t, c.base, "POST", "/v1/sessions/"+sessionID+"/close", ""); code != 401 {
				t.Fatalf("close without a token = %d; want 401", code)
			}
			if s := c.waitProcessed(sessionID); s["status"] != "processed" {
				t.Fatalf("session = %v", s)
			}

			// Admin scope only, for the pages and for the UI's API alike.
			for _, path := range []string{"/ui/", "/ui/jobs", "/ui/api/jobs?state=completed", "/metrics"} {
				for _, c2 := range []struct {
					auth string
					want int
				}{{"", 401}, {"Bearer not-a-token-of-ours-at-all", 401}, {service, 403}, {admin, 200}} {
					code, _, body := uiRequest(t, c.base, "GET", path, c2.auth)
					if code != c2.want {
						t.Fatalf("GET %s with %q = %d; want %d: %s", path, c2.auth, code, c2.want, body)
					}
					if code >= 400 && !strings.Contains(string(body), `"error"`) {
						t.Fatalf("GET %s = %d without the JSON error shape: %s", path, code, body)
					}
				}
			}

			// A browser gets a Basic challenge and may answer it with the token as password.
			code, hdr, _ := uiRequest(t, c.base, "GET", "/ui/", "")
			if code != 401 || !strings.Contains(strings.Join(hdr.Values("WWW-Authenticate"), ","), "Basic") {
				t.Fatalf("GET /ui/ without a token = %d %v; want 401 with a Basic challenge", code, hdr)
			}
			basic := func(token string) string {
				req, _ := http.NewRequest("GET", "/", nil)
				req.SetBasicAuth("operator", token)
				return req.Header.Get("Authorization")
			}
			if code, _, _ := uiRequest(t, c.base, "GET", "/ui/", basic(serviceToken)); code != 403 {
				t.Fatalf("GET /ui/ with the service token as password = %d; want 403", code)
			}
			code, hdr, page := uiRequest(t, c.base, "GET", "/ui/", basic(adminToken))
			if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") || !strings.Contains(string(page), `id="root"`) {
				t.Fatalf("GET /ui/ as admin = %d %s:\n%.400s", code, hdr.Get("Content-Type"), page)
			}
			if hdr.Get("X-Frame-Options") != "DENY" {
				t.Fatalf("the UI may be framed: %v", hdr)
			}
			// The page's script is served under /ui/ too.
			script := regexp.MustCompile(`src="(/ui/assets/[^"]+\.js)"`).FindSubmatch(page)
			if script == nil {
				t.Fatalf("no script under /ui/assets/ in the page:\n%.1000s", page)
			}
			if code, _, js := uiRequest(t, c.base, "GET", string(script[1]), basic(adminToken)); code != 200 || len(js) == 0 {
				t.Fatalf("GET %s = %d (%d bytes)", script[1], code, len(js))
			}
			if code, hdr, _ := uiRequest(t, c.base, "GET", "/ui", admin); code/100 != 3 || hdr.Get("Location") != "/ui/" {
				t.Fatalf("GET /ui = %d to %q; want a redirect to /ui/", code, hdr.Get("Location"))
			}
			// A cross-site page cannot use the operator's browser to act.
			if code, _, _ := uiRequest(t, c.base, "PUT", "/ui/api/queues/extract/pause", basic(adminToken), "Sec-Fetch-Site", "cross-site"); code != 403 {
				t.Fatalf("cross-site pause = %d; want 403", code)
			}

			// The extraction job is in the UI's API, with its log lines. The
			// session is processed a moment before River records the job completed.
			var job struct {
				State    string `json:"state"`
				Metadata struct {
					Log []struct {
						Attempt int    `json:"attempt"`
						Log     string `json:"log"`
					} `json:"river:log"`
				} `json:"metadata"`
			}
			for deadline := testwait.GiveUpAt(t); job.State != "completed"; <-time.After(25 * time.Millisecond) {
				code, _, raw := uiRequest(t, c.base, "GET", fmt.Sprintf("/ui/api/jobs/%d", jobID), admin)
				if err := json.Unmarshal(raw, &job); err != nil || code != 200 {
					t.Fatalf("UI job = %d %v: %s", code, err, raw)
				}
				if testwait.Past(deadline) {
					t.Fatalf("job %d is %s in the UI; want completed", jobID, job.State)
				}
			}
			code, _, raw := uiRequest(t, c.base, "GET", "/ui/api/jobs?state=completed&kinds=extract", admin)
			var list struct {
				Data []struct {
					ID   int64  `json:"id"`
					Kind string `json:"kind"`
				} `json:"data"`
			}
			if err := json.Unmarshal(raw, &list); err != nil || code != 200 {
				t.Fatalf("UI job list = %d %v: %s", code, err, raw)
			}
			found := false
			for _, j := range list.Data {
				found = found || j.ID == jobID
			}
			if !found {
				t.Fatalf("job %d not among the UI's completed extract jobs: %s", jobID, raw)
			}
			if len(job.Metadata.Log) != 1 || job.Metadata.Log[0].Attempt != 1 {
				t.Fatalf("job log = %+v; want one attempt's lines", job.Metadata.Log)
			}
			lines := job.Metadata.Log[0].Log
			for _, want := range []string{"attempt started", "kind=extract", "session processed", "source=rules", "attempt finished", "result=ok"} {
				if !strings.Contains(lines, want) {
					t.Fatalf("job log lacks %q:\n%s", want, lines)
				}
			}
			for _, text := range []string{"Peggy", "ramen", "loneliness", "favorite"} {
				if strings.Contains(lines, text) {
					t.Fatalf("job log carries transcript text %q:\n%s", text, lines)
				}
			}

			// The metrics count what happened; counters reach the registry just
			// after the answer or the job's completion, so poll.
			want := []struct {
				name   string
				labels map[string]string
			}{
				{"mnemo_handoff_requests_total", map[string]string{"endpoint": "close", "code": "202"}},
				{"mnemo_handoff_requests_total", map[string]string{"endpoint": "close", "code": "401"}},
				{"mnemo_jobs_total", map[string]string{"kind": "extract", "outcome": "completed"}},
				{"mnemo_job_duration_seconds_count", map[string]string{"kind": "extract", "outcome": "completed"}},
				{"mnemo_extractions_total", map[string]string{"app": "mona", "source": "rules", "outcome": "ok"}},
				// A new worker back-fills the weekly batches' recent weeks.
				{"mnemo_batch_runs_total", map[string]string{"batch": "weekly-analytics", "outcome": "ok"}},
				{"mnemo_batch_duration_seconds_count", map[string]string{"batch": "weekly-analytics"}},
				{"mnemo_jobs_total", map[string]string{"kind": "batch", "outcome": "completed"}},
			}
			var all []series
			var exposition []byte
			deadline := testwait.GiveUpAt(t)
			for {
				code, hdr, exposition = uiRequest(t, c.base, "GET", "/metrics", admin)
				if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
					t.Fatalf("GET /metrics = %d %s", code, hdr.Get("Content-Type"))
				}
				all = parseExposition(t, exposition)
				missing := ""
				for _, w := range want {
					if v, ok := sample(all, w.name, w.labels); !ok || v < 1 {
						missing = fmt.Sprintf("%s%v", w.name, w.labels)
						break
					}
				}
				if missing == "" {
					break
				}
				if testwait.Past(deadline) {
					t.Fatalf("/metrics never showed %s:\n%s", missing, exposition)
				}
				<-time.After(25 * time.Millisecond)
			}
			if v, _ := sample(all, "mnemo_jobs_total", map[string]string{"kind": "extract", "outcome": "completed"}); v != 1 {
				t.Fatalf("mnemo_jobs_total{kind=extract,outcome=completed} = %v; want 1", v)
			}
			// Gauges read from the database on the scrape.
			for _, q := range []string{"default", "extract", "batch"} {
				for _, name := range []string{"mnemo_queue_available_jobs", "mnemo_queue_running_jobs", "mnemo_queue_paused"} {
					if _, ok := sample(all, name, map[string]string{"queue": q}); !ok {
						t.Fatalf("no %s{queue=%s}:\n%s", name, q, exposition)
					}
				}
			}
			if v, _ := sample(all, "mnemo_queue_available_jobs", map[string]string{"queue": "extract"}); v != 0 {
				t.Fatalf("mnemo_queue_available_jobs{queue=extract} = %v with its only job done; want 0", v)
			}
			if _, ok := sample(all, "mnemo_batch_rows_total", map[string]string{"batch": "weekly-analytics"}); !ok {
				t.Fatalf("no mnemo_batch_rows_total{batch=weekly-analytics}:\n%s", exposition)
			}
			if _, ok := sample(all, "mnemo_batch_missed_periods", map[string]string{"batch": "weekly-analytics"}); !ok {
				t.Fatalf("no mnemo_batch_missed_periods{batch=weekly-analytics}:\n%s", exposition)
			}
			// No label names a user or a session or carries the session's text.
			for _, s := range all {
				for k, v := range s.labels {
					for _, p := range private {
						if strings.Contains(v, p) {
							t.Fatalf("%s has label %s=%q", s.name, k, v)
						}
					}
				}
			}
			for _, p := range private {
				if strings.Contains(string(exposition), p) {
					t.Fatalf("the exposition contains %q", p)
				}
			}
		})
	}
}
