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
	"time"

	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// TestRiskBeforeMemoryEndToEnd hands a Mona session with a distress
// statement over HTTP on each database, to a worker whose mona policy names
// a risk webhook: "I hate my life." leaves no memory and no pack line, a
// risk cue on the session, a count in /metrics and one webhook post with
// ids, class and severity only; the user's denial ("I'm not suicidal") is
// on the session too but never posted; what else was said is remembered.
func TestRiskBeforeMemoryEndToEnd(t *testing.T) {
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

			// Mona as built in, with a risk webhook.
			apps := t.TempDir()
			dir := filepath.Join(apps, "mona")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"policy.json", "system.tmpl", "user.tmpl", "schema.json"} {
				b, err := os.ReadFile(filepath.Join("..", "..", "prompts", "mona", f))
				if err != nil {
					t.Fatal(err)
				}
				if f == "policy.json" {
					b = []byte(strings.Replace(string(b), `"risk_webhook": ""`, `"risk_webhook": "`+hook.URL+`/risk"`, 1))
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			w := startWorker(t, map[string]string{
				"DATABASE_URL":         url,
				"MNEMO_APPS_DIR":       apps,
				"MNEMO_API_TOKENS":     "service:" + serviceToken + ",admin:" + adminToken,
				"MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the risk tests",
				"MNEMO_POLL_INTERVAL":  "50ms",
				"MNEMO_LOG_LEVEL":      "info",
				"MNEMO_SHUTDOWN_GRACE": "3s",
			})
			c := client{t: t, base: "http://" + w.addr}

			const user, session = "u-risk-1", "s-risk-1"
			code, res := c.do("POST", "/v1/sessions/"+session+"/close", map[string]any{
				"user_id": user, "app": "mona", "started_at": at(0), "ended_at": at(10),
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "I hate my life.", "at": at(1)},
					{"id": "m2", "role": "assistant", "content": "I'm so sorry you feel that way. I'm here.", "at": at(2)},
					{"id": "m3", "role": "user", "content": "I'm not suicidal though.", "at": at(3)},
					{"id": "m4", "role": "user", "content": "My name is Robin and I like pizza.", "at": at(4)},
				},
			})
			if code != 202 {
				t.Fatalf("close = %d %v", code, res)
			}
			s := c.waitProcessed(session)

			// The risks on the session: class, severity, message; no text.
			risks, _ := s["risks"].([]any)
			got := map[string]string{}
			for _, r := range risks {
				m := r.(map[string]any)
				got[m["message_id"].(string)] = m["class"].(string) + "/" + m["severity"].(string) + "/" + m["actor"].(string)
			}
			if len(got) != 2 || got["m1"] != "distress/medium/user" || got["m3"] != "suicidal/low/user" {
				t.Errorf("session risks = %v", risks)
			}
			if raw, _ := json.Marshal(s); strings.Contains(string(raw), "hate") {
				t.Errorf("the session view carries the text: %s", raw)
			}

			// No memory of it, and no line in the next session's pack.
			mems := memoriesByKey(t, c, user)
			if mems["name"]["value"] != "Robin" || mems["likes:pizza"] == nil {
				t.Errorf("memories = %v", mems)
			}
			for k, m := range mems {
				if strings.Contains(k, "life") || strings.Contains(m["value"].(string), "life") {
					t.Errorf("remembered %s = %v", k, m["value"])
				}
			}
			code, pack := c.do("GET", "/v1/users/"+user+"/context?budget_tokens=400", nil)
			if text, _ := pack["text"].(string); code != 200 || strings.Contains(strings.ToLower(text), "life") || !strings.Contains(text, "pizza") {
				t.Errorf("context = %d %q", code, pack["text"])
			}

			// One webhook post, for the user's own medium risk only.
			select {
			case body := <-posts:
				var p map[string]any
				if err := json.Unmarshal([]byte(body), &p); err != nil {
					t.Fatal(err)
				}
				want := map[string]any{"user_id": user, "session_id": session, "app": "mona", "class": "distress", "severity": "medium", "message_id": "m1"}
				for k, v := range want {
					if p[k] != v {
						t.Errorf("webhook %s = %v, want %v (%s)", k, p[k], v, body)
					}
				}
				if ts, _ := p["at"].(string); ts != at(1) {
					t.Errorf("webhook at = %v, want %s", p["at"], at(1))
				}
				if strings.Contains(body, "hate") || len(p) != 7 {
					t.Errorf("webhook body %s", body)
				}
			case <-testwait.Deadline(t):
				t.Fatal("the risk webhook was never called")
			}

			// Counted in /metrics, by app, class and severity.
			var exposition []byte
			deadline := testwait.GiveUpAt(t)
			for {
				var code int
				code, _, exposition = uiRequest(t, c.base, "GET", "/metrics", "Bearer "+adminToken)
				all := parseExposition(t, exposition)
				medium, _ := sample(all, "mnemo_risk_cues_total", map[string]string{"app": "mona", "class": "distress", "severity": "medium"})
				low, _ := sample(all, "mnemo_risk_cues_total", map[string]string{"app": "mona", "class": "suicidal", "severity": "low"})
				if code == 200 && medium == 1 && low == 1 {
					break
				}
				if testwait.Past(deadline) {
					t.Fatalf("/metrics never counted the risk cues:\n%s", exposition)
				}
				<-time.After(25 * time.Millisecond)
			}
			select {
			case body := <-posts:
				t.Errorf("a second webhook post: %s", body)
			default:
			}
			if log := w.stderr.String(); strings.Contains(log, "hate my life") || strings.Contains(log, "suicidal though") {
				t.Errorf("the log carries message text")
			}
		})
	}
}
