package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/queue"
)

// cliResult is what one run of the worker's CLI gave.
type cliResult struct {
	code        int
	out, errOut string
}

// cli runs `worker ARGS…` in-process against the database at url.
func cli(t *testing.T, url string, args ...string) cliResult {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, mapEnv(map[string]string{"DATABASE_URL": url}), strings.NewReader(""), &out, &errOut)
	return cliResult{code: code, out: out.String(), errOut: errOut.String()}
}

// runOK runs the CLI and fails the test unless it exits 0.
func runOK(t *testing.T, url string, args ...string) string {
	t.Helper()
	r := cli(t, url, args...)
	if r.code != 0 {
		t.Fatalf("worker %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.out, r.errOut)
	}
	return r.out
}

// jobsJSON runs `jobs list --json` with args and decodes its lines.
func jobsJSON(t *testing.T, url string, args ...string) map[int64]api.Job {
	t.Helper()
	out := map[int64]api.Job{}
	for line := range strings.Lines(runOK(t, url, append([]string{"jobs", "list", "--json"}, args...)...)) {
		var j api.Job
		if err := json.Unmarshal([]byte(line), &j); err != nil {
			t.Fatalf("jobs list --json line %q: %v", line, err)
		}
		out[j.ID] = j
	}
	return out
}

// waitJobs polls `jobs list` until every id is in state.
func waitJobs(t *testing.T, url, state string, ids ...int64) {
	t.Helper()
	deadline := testwait.GiveUpAt(t)
	for {
		got := jobsJSON(t, url, "--state", state)
		missing := slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { _, ok := got[id]; return ok })
		if len(missing) == 0 {
			return
		}
		if testwait.Past(deadline) {
			t.Fatalf("jobs %v never became %s; the jobs now: %s", missing, state, runOK(t, url, "jobs", "list"))
		}
		<-time.After(50 * time.Millisecond)
	}
}

// legacyArgs is a job kind no Mnemo worker knows, as an older release might
// have left behind.
type legacyArgs struct{}

func (legacyArgs) Kind() string { return "legacy_reindex" }

const (
	oldKey = "old:the passphrase before rotation"
	newKey = "new:the passphrase after rotation"
)

// opsWorker starts a worker with the given encryption keys.
func opsWorker(t *testing.T, url, keys string) (*started, client) {
	t.Helper()
	w := startWorker(t, map[string]string{"DATABASE_URL": url, "MNEMO_API_TOKENS": "service:" + serviceToken,
		"MNEMO_ENCRYPTION_KEY": keys, "MNEMO_POLL_INTERVAL": "50ms", "MNEMO_LOG_LEVEL": "warn"})
	return w, client{t: t, base: "http://" + w.addr}
}

// TestOperatorRetriesPausesAndCancels is an on-call operator's evening on
// each database. A worker was started after a key rotation without the old
// key, so rolling summaries of sessions buffered under the old key fail until
// discarded, beside a job of a kind this release no longer has. The operator
// finds them with `jobs list`, pauses the default queue, restarts the worker
// with both keys, retries one job by id and the rest of the kind in bulk,
// cancels one, sees that the paused queue holds them while the extract queue
// keeps working, and resumes it: the retried jobs complete, the cancelled
// and the unknown kind's do not.
func TestOperatorRetriesPausesAndCancels(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Turns buffered under the old key; five are fewer than Mona's
			// rolling-summary interval, so no job is enqueued yet.
			w, c := opsWorker(t, url, oldKey)
			start := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Second)
			sessions := []string{"r-1", "r-2", "r-3"}
			for _, s := range sessions {
				var msgs []map[string]any
				for i := range 5 {
					msgs = append(msgs, map[string]any{"id": fmt.Sprintf("%s-m%d", s, i), "role": "user",
						"content": "I like walking by the river.", "at": start.Add(time.Duration(i) * time.Second).Format(time.RFC3339)})
				}
				if code, res := c.do("POST", "/v1/sessions/"+s+"/messages", map[string]any{"user_id": "u-" + s, "app": "mona", "messages": msgs}); code != 202 {
					t.Fatalf("append to %s = %d %v", s, code, res)
				}
			}
			if code := w.stop(t); code != 0 {
				t.Fatalf("first worker exit %d", code)
			}

			// The worker without the old key: the jobs fail on their only attempt.
			w, _ = opsWorker(t, url, newKey)
			q, err := queue.New(openTestStore(t, url), queue.Config{})
			if err != nil {
				t.Fatal(err)
			}
			insert := func(args river.JobArgs) int64 {
				ins, err := q.Insert(context.Background(), args, &river.InsertOpts{MaxAttempts: 1})
				if err != nil {
					t.Fatal(err)
				}
				return ins.ID
			}
			var rolling []int64
			for _, s := range sessions {
				rolling = append(rolling, insert(queue.RollingSummaryArgs{SessionID: s, Upto: 5}))
			}
			legacy := insert(legacyArgs{})
			waitJobs(t, url, "discarded", append(slices.Clone(rolling), legacy)...)
			if code := w.stop(t); code != 0 {
				t.Fatalf("second worker exit %d", code)
			}

			// What the operator sees.
			table := runOK(t, url, "jobs", "list", "--state", "discarded")
			t.Logf("jobs list --state discarded:\n%s", table)
			lines := strings.Split(strings.TrimSpace(table), "\n")
			if len(lines) != 5 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[0], "LAST ERROR") {
				t.Fatalf("jobs list --state discarded:\n%s", table)
			}
			for _, l := range lines[1:] {
				switch {
				case strings.Contains(l, "rolling_summary"):
					if !strings.Contains(l, "default") || !strings.Contains(l, "discarded") || !strings.Contains(l, " 1/1 ") || !strings.Contains(l, "open buffered turn") {
						t.Errorf("rolling summary row %q: want queue, state, attempts 1/1 and the error", l)
					}
				case strings.Contains(l, "legacy_reindex"):
					if !strings.Contains(l, "not registered") {
						t.Errorf("legacy row %q: want the unknown-kind error", l)
					}
				default:
					t.Errorf("unexpected row %q", l)
				}
			}
			if got := jobsJSON(t, url, "--state", "discarded", "--kind", "legacy_reindex"); len(got) != 1 {
				t.Fatalf("--kind legacy_reindex listed %v", got)
			}
			if r := cli(t, url, "jobs", "list", "--state", "lost"); r.code != exitUsage || !strings.Contains(r.errOut, "discarded") {
				t.Fatalf("an unknown state: exit %d, %q; want %d naming the valid states", r.code, r.errOut, exitUsage)
			}

			// Hold the default queue while the worker comes back with both keys.
			if out := runOK(t, url, "queues", "pause", "default"); out != "paused queue default\n" {
				t.Fatalf("pause said %q", out)
			}
			if out := runOK(t, url, "queues", "pause", "default"); !strings.Contains(out, "already paused") {
				t.Fatalf("second pause said %q", out)
			}
			if r := cli(t, url, "queues", "pause", "nightly"); r.code != 1 || !strings.Contains(r.errOut, `no queue "nightly"`) || !strings.Contains(r.errOut, "extract") {
				t.Fatalf("pausing an unknown queue: exit %d, %q; want 1 naming the known queues", r.code, r.errOut)
			}
			queues := runOK(t, url, "queues", "list")
			t.Logf("queues list:\n%s", queues)
			if !hasLine(queues, "default", "since ") || !hasLine(queues, "extract", " no ") {
				t.Fatalf("queues list:\n%s", queues)
			}
			_, c = opsWorker(t, url, newKey+","+oldKey)

			// One by id, with a wrong id beside it.
			r := cli(t, url, "jobs", "retry", fmt.Sprint(rolling[0]), "999999")
			if r.code != 1 || r.out != fmt.Sprintf("job %d (rolling_summary): discarded, now available\n", rolling[0]) ||
				!strings.Contains(r.errOut, "job 999999: not found") {
				t.Fatalf("retry by id: exit %d\nstdout %q\nstderr %q", r.code, r.out, r.errOut)
			}
			// The rest of the kind in bulk; a window they finished before retries none.
			if out := runOK(t, url, "jobs", "retry", "--state", "discarded", "--kind", "rolling_summary", "--since", "1ms"); out != "retried 0 jobs\n" {
				t.Fatalf("bulk retry within 1ms said %q", out)
			}
			if out := runOK(t, url, "jobs", "retry", "--state", "discarded", "--kind", "rolling_summary", "--since", "1h"); out != "retried 2 jobs\n" {
				t.Fatalf("bulk retry said %q", out)
			}
			if out := runOK(t, url, "jobs", "cancel", fmt.Sprint(rolling[2])); out != fmt.Sprintf("job %d (rolling_summary): available, now cancelled\n", rolling[2]) {
				t.Fatalf("cancel said %q", out)
			}
			if r := cli(t, url, "jobs", "cancel", fmt.Sprint(legacy)); r.code != 1 || !strings.Contains(r.errOut, "already discarded") {
				t.Fatalf("cancelling a discarded job: exit %d, %q", r.code, r.errOut)
			}

			// The extract queue works while the paused default queue holds the retried jobs.
			code, _ := c.do("POST", "/v1/sessions/c-1/close", map[string]any{"user_id": "u-c", "app": "mona",
				"started_at": start.Format(time.RFC3339), "ended_at": start.Add(5 * time.Minute).Format(time.RFC3339),
				"messages": []map[string]any{{"id": "m1", "role": "user", "content": "My name is Ada.", "at": start.Add(time.Minute).Format(time.RFC3339)}}})
			if code != 202 {
				t.Fatalf("close = %d", code)
			}
			c.waitProcessed("c-1")
			held := jobsJSON(t, url, "--kind", "rolling_summary")
			for i, id := range rolling {
				want := "available"
				if i == 2 {
					want = "cancelled"
				}
				if held[id].State != want {
					t.Fatalf("job %d is %s while the queue is paused; want %s", id, held[id].State, want)
				}
			}

			if out := runOK(t, url, "queues", "resume", "default"); out != "resumed queue default\n" {
				t.Fatalf("resume said %q", out)
			}
			waitJobs(t, url, "completed", rolling[0], rolling[1])
			done := jobsJSON(t, url, "--kind", "rolling_summary,legacy_reindex")
			if done[rolling[0]].Attempt != 2 || done[rolling[2]].State != "cancelled" || done[legacy].State != "discarded" {
				t.Fatalf("after resume: %+v", done)
			}
			for _, s := range sessions {
				_, res := c.do("GET", "/v1/sessions/"+s, nil)
				rs, _ := res["rolling_summary"].(map[string]any)
				if s == "r-3" {
					if rs != nil {
						t.Fatalf("the cancelled job's session has a rolling summary: %v", rs)
					}
				} else if rs == nil || rs["messages_covered"] != float64(5) {
					t.Fatalf("session %s after the retried job: %v", s, res)
				}
			}
		})
	}
}

// hasLine reports whether a line of text starts with first and contains rest.
func hasLine(text, first, rest string) bool {
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, first+" ") && strings.Contains(line, rest) {
			return true
		}
	}
	return false
}

// TestOpsCommandsRefuseBadArguments checks that a mistyped operator command
// fails with a usage error before it touches the database.
func TestOpsCommandsRefuseBadArguments(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"jobs"}, "want list, retry or cancel"},
		{[]string{"jobs", "rerun"}, "unknown jobs action"},
		{[]string{"jobs", "list", "--state", "failed"}, "want one of available, cancelled, completed, discarded, pending, retryable, running, scheduled"},
		{[]string{"jobs", "list", "--limit", "0"}, "--limit"},
		{[]string{"jobs", "list", "--since", "1h"}, "does not take --since"},
		{[]string{"jobs", "list", "extract"}, "flags only"},
		{[]string{"jobs", "retry"}, "wants job ids, or --state"},
		{[]string{"jobs", "retry", "12", "--state", "discarded"}, "not both"},
		{[]string{"jobs", "retry", "12", "--kind", "extract"}, "--kind"},
		{[]string{"jobs", "retry", "twelve"}, `job id "twelve"`},
		{[]string{"jobs", "retry", "--state", "completed"}, "discarded, cancelled or retryable"},
		{[]string{"jobs", "retry", "--state", "discarded", "--since", "yesterday"}, "90m, 24h or 7d"},
		{[]string{"jobs", "cancel"}, "wants job ids"},
		{[]string{"jobs", "cancel", "0"}, "not a positive integer"},
		{[]string{"queues"}, "want list, pause NAME or resume NAME"},
		{[]string{"queues", "pause"}, "one queue name"},
		{[]string{"queues", "resume", "a", "b"}, "one queue name"},
		{[]string{"queues", "drain", "a"}, "unknown queues action"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := cli(t, "sqlite://"+filepath.Join(dir, "mnemo.db"), c.args...)
			if r.code != exitUsage || !strings.Contains(r.errOut, c.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.errOut, exitUsage, c.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("a refused command touched the database directory: %v", entries)
			}
		})
	}
}

// TestOpsCommandsOnAnUnmigratedDatabase tells the operator to migrate
// rather than failing on a missing table.
func TestOpsCommandsOnAnUnmigratedDatabase(t *testing.T) {
	t.Parallel()
	url := "sqlite://" + filepath.Join(t.TempDir(), "mnemo.db")
	for _, args := range [][]string{{"jobs", "list"}, {"queues", "list"}} {
		if r := cli(t, url, args...); r.code != 1 || !strings.Contains(r.errOut, "worker migrate up") {
			t.Fatalf("%v on an empty database: exit %d, %q", args, r.code, r.errOut)
		}
	}
	runOK(t, url, "migrate", "up")
	if out := runOK(t, url, "jobs", "list"); out != "no jobs\n" {
		t.Fatalf("jobs list on a fresh database said %q", out)
	}
}
