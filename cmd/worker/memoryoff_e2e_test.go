package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// TestMemoryOffIsNotSafetyOff: an Elder Tree user who turned memory off
// says, in a recovery app, that the pills are ready for tonight. On each
// database the session is processed and keeps nothing of what was said (no
// memory, no transcript, no word of it in any table or file), yet the
// finding is on the session (class, severity, source), and the app's alert
// endpoint receives it, without the words. A memory-off session without a
// crisis leaves no finding and enqueues no risk job.
func TestMemoryOffIsNotSafetyOff(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			posts := make(chan string, 10)
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				posts <- string(b)
			}))
			defer hook.Close()
			c := startMemoryOffWorker(t, url, memoryOffTree(t, hook.URL+"/alert"))
			const user = "u-off-1"
			closeTree := func(id string, min int, lines ...string) map[string]any {
				var msgs []map[string]any
				for i, l := range lines {
					msgs = append(msgs, map[string]any{"id": "m" + string(rune('1'+i)), "role": "user", "content": l, "at": at(min + i)})
				}
				return c.closeAndWait(id, map[string]any{"user_id": user, "app": "eldertree", "started_at": at(min),
					"ended_at": at(min + 10), "messages": msgs})
			}
			closeTree("off-0", 0, "Hello there.")
			before := memoriesByKey(t, c, user)
			if code, _ := c.do("PUT", "/v1/users/"+user+"/settings", map[string]any{"memory_enabled": false}); code != 200 {
				t.Fatalf("settings = %d", code)
			}

			// The crisis, told while memory is off.
			s := closeTree("off-1", 30,
				"I've got the pills ready and I'm going to take them all tonight.",
				"My sponsor is called Marigold and I work at the Willowbrook bakery.")
			if s["status"] != "processed" || s["transcript_retained"] != false {
				t.Fatalf("session = %v", s)
			}
			risks, _ := s["risks"].([]any)
			if len(risks) != 1 {
				t.Fatalf("risks of a memory-off crisis session = %v; want one", risks)
			}
			r := risks[0].(map[string]any)
			for k, want := range map[string]string{"class": "suicidal", "severity": "high", "actor": "user", "message_id": "m1", "source": "rules"} {
				if r[k] != want {
					t.Errorf("risk %s = %v, want %s (%v)", k, r[k], want, r)
				}
			}
			raw, _ := json.Marshal(s)
			for _, word := range []string{"pills", "tonight", "Marigold", "Willowbrook"} {
				if strings.Contains(string(raw), word) {
					t.Errorf("the session view holds %q: %s", word, raw)
				}
			}
			select {
			case body := <-posts:
				if !strings.Contains(body, `"off-1"`) || !strings.Contains(body, `"suicidal"`) || !strings.Contains(body, `"high"`) {
					t.Errorf("alert body %s", body)
				}
				for _, word := range []string{"pills", "tonight", "Marigold", "Willowbrook"} {
					if strings.Contains(body, word) {
						t.Errorf("the alert holds %q: %s", word, body)
					}
				}
			case <-testwait.Deadline(t):
				t.Fatal("the memory-off crisis was never alerted")
			}
			jobs := memoryOffRiskJobs(t, url)
			if jobs == 0 {
				t.Error("no risk job after the crisis")
			}

			// Nothing else was kept: no memory, no word in the database.
			after := memoriesByKey(t, c, user)
			if len(after) != len(before) {
				t.Errorf("memories after a memory-off session: %v (before: %v)", after, before)
			}
			for _, hit := range scanDatabase(t, url, "Marigold", "Willowbrook", "take them all tonight", "pills ready") {
				t.Errorf("memory off kept words: %s", hit)
			}

			// An ordinary memory-off session: no finding, no alert.
			s = closeTree("off-2", 60, "I walked the dog by the river and had a cup of tea.")
			if risks, _ := s["risks"].([]any); len(risks) != 0 {
				t.Errorf("risks of an ordinary memory-off session = %v", risks)
			}
			if got := memoryOffRiskJobs(t, url); got != jobs {
				t.Errorf("risk jobs after an ordinary session = %d, want still %d", got, jobs)
			}
		})
	}
}

// memoryOffRiskJobs counts the jobs of any state whose kind is a risk's alert.
func memoryOffRiskJobs(t *testing.T, url string) int {
	t.Helper()
	n := 0
	for _, j := range jobsJSON(t, url) {
		if strings.HasPrefix(j.Kind, "risk") {
			n++
		}
	}
	return n
}

// memoryOffTree is an apps folder holding Elder Tree as built in, with its
// risk alerts sent to url.
func memoryOffTree(t *testing.T, url string) string {
	t.Helper()
	apps := t.TempDir()
	dir := filepath.Join(apps, "eldertree")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "prompts", "eldertree")
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if f.Name() == "policy.json" {
			b = []byte(strings.Replace(string(b), `"risk_webhook": ""`, `"risk_webhook": "`+url+`"`, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return apps
}

// startMemoryOffWorker starts a worker whose apps folder is apps.
func startMemoryOffWorker(t *testing.T, url, apps string) client {
	t.Helper()
	w := startWorker(t, map[string]string{
		"DATABASE_URL":         url,
		"MNEMO_APPS_DIR":       apps,
		"MNEMO_API_TOKENS":     "service:" + serviceToken + ",admin:" + adminToken,
		"MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the memory-off tests",
		"MNEMO_POLL_INTERVAL":  "50ms",
		"MNEMO_LOG_LEVEL":      "warn",
		"MNEMO_SHUTDOWN_GRACE": "3s",
	})
	return client{t: t, base: "http://" + w.addr}
}
