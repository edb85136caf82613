package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/riskalert"
)

// alertSecret signs the alerts of the end-to-end tests.
const alertSecret = "e2e-alert-secret-0123456789abcdef0123456789"

// alertReceiver is a receiver as docs/safety.md asks for: it verifies each
// alert's signature and timestamp (riskalert.Verify) before anything else,
// answers the first attempt of each alert (session and class) with
// firstStatus, and later ones with thenStatus.
type alertReceiver struct {
	t                       *testing.T
	firstStatus, thenStatus int

	mu        sync.Mutex
	attempts  map[string]int               // by session and class
	delivered map[string][]riskalert.Alert // answered 2xx
	last      struct {
		header string
		body   []byte
	}
}

func newAlertReceiver(t *testing.T, firstStatus, thenStatus int) (*alertReceiver, *httptest.Server) {
	a := &alertReceiver{t: t, firstStatus: firstStatus, thenStatus: thenStatus, attempts: map[string]int{}, delivered: map[string][]riskalert.Alert{}}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return a, srv
}

func (a *alertReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	sig := r.Header.Get(riskalert.SignatureHeader)
	if err := riskalert.Verify([]byte(alertSecret), body, sig, time.Now(), riskalert.Tolerance); err != nil {
		a.t.Errorf("an alert that does not verify: %v (%s: %q)", err, riskalert.SignatureHeader, sig)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var alert riskalert.Alert
	if err := json.Unmarshal(body, &alert); err != nil || r.Header.Get(riskalert.TypeHeader) != riskalert.Type || alert.Type != riskalert.Type {
		a.t.Errorf("not an alert: %s %s", r.Header.Get(riskalert.TypeHeader), body)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	key := alert.SessionID + " " + alert.Class
	a.attempts[key]++
	status := a.thenStatus
	if a.attempts[key] == 1 {
		status = a.firstStatus
	}
	if status/100 == 2 {
		a.delivered[key] = append(a.delivered[key], alert)
		a.last.header, a.last.body = sig, body
	}
	w.WriteHeader(status)
}

// counts returns the attempts and the deliveries of each alert.
func (a *alertReceiver) counts() (attempts map[string]int, delivered map[string][]riskalert.Alert) {
	a.mu.Lock()
	defer a.mu.Unlock()
	attempts, delivered = map[string]int{}, map[string][]riskalert.Alert{}
	for k, v := range a.attempts {
		attempts[k] = v
	}
	for k, v := range a.delivered {
		delivered[k] = append([]riskalert.Alert(nil), v...)
	}
	return attempts, delivered
}

// presetWithWebhook writes the built-in preset app, its policy naming the
// risk webhook hook, into the apps folder apps.
func presetWithWebhook(t *testing.T, apps, app, hook string) {
	t.Helper()
	dir := filepath.Join(apps, app)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "prompts", app)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "policy.json" {
			if !strings.Contains(string(b), `"risk_webhook": ""`) {
				t.Fatalf("precondition: %s's policy has no empty risk_webhook", app)
			}
			b = []byte(strings.Replace(string(b), `"risk_webhook": ""`, `"risk_webhook": "`+hook+`"`, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// logLines returns the worker's JSON log lines whose message is msg.
func logLines(t *testing.T, log, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == msg {
			out = append(out, line)
		}
	}
	return out
}

// TestRiskAlertEndToEnd runs a worker on each database with alerts turned
// on for mona by the setting (MNEMO_RISK_ALERTS, the URL carrying a token)
// and for coach by an overriding preset's policy.json, signed with one
// secret for every app (MNEMO_RISK_ALERT_SECRETS). Mona's receiver fails
// each alert's first attempt with a 500 and verifies every signature and
// timestamp. A crisis session (a crisis said twice, a denial) gets exactly
// one alert, suicidal and high, delivered on the retry; a session of 1,000
// identical crisis messages gets one alert too, of 1,000 findings, beside
// its 1,000 risk cues; a replay of a delivered alert six minutes later does
// not verify. Coach's receiver refuses with a 410: the alert fails for
// good and the operations page lists it. The worker logs where each app's
// alerts go (the host only) and that the coach preset is overridden, never
// the secret nor the URL's token.
func TestRiskAlertEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mona, monaHook := newAlertReceiver(t, http.StatusInternalServerError, http.StatusOK)
			coach, coachHook := newAlertReceiver(t, http.StatusGone, http.StatusGone)
			apps := t.TempDir()
			presetWithWebhook(t, apps, "coach", coachHook.URL+"/coach-alerts")
			w := startWorker(t, map[string]string{
				"DATABASE_URL":             url,
				"MNEMO_APPS_DIR":           apps,
				"MNEMO_RISK_ALERTS":        "mona=" + monaHook.URL + "/alerts?token=tok-in-the-url",
				"MNEMO_RISK_ALERT_SECRETS": "*=" + alertSecret,
				"MNEMO_API_TOKENS":         "service:" + serviceToken + ",admin:" + adminToken,
				"MNEMO_ENCRYPTION_KEY":     "e2e:a passphrase for the risk alert tests",
				"MNEMO_POLL_INTERVAL":      "50ms",
				"MNEMO_LOG_LEVEL":          "info",
				"MNEMO_SHUTDOWN_GRACE":     "3s",
			})
			c := client{t: t, base: "http://" + w.addr}
			admin := client{t: t, base: c.base, token: adminToken}

			closeSession := func(app, user, session string, said ...string) {
				t.Helper()
				msgs := make([]map[string]any, len(said))
				for i, s := range said {
					msgs[i] = map[string]any{"id": fmt.Sprintf("m%d", i+1), "role": "user", "content": s,
						"at": base.Add(time.Minute + time.Duration(i)*time.Second).Format(time.RFC3339)}
				}
				code, res := c.do("POST", "/v1/sessions/"+session+"/close", map[string]any{
					"user_id": user, "app": app, "started_at": at(0), "ended_at": at(60), "messages": msgs})
				if code != 202 {
					t.Fatalf("close %s = %d %v", session, code, res)
				}
			}
			closeSession("mona", "u-crisis", "s-crisis",
				"My name is Robin.",
				"I've been thinking about ending it all.",
				"I want to kill myself tonight, I have the pills ready.",
				"I'm not suicidal though.")
			crisis := make([]string, 1000)
			for i := range crisis {
				crisis[i] = "I want to kill myself tonight, I have the pills ready."
			}
			closeSession("mona", "u-many", "s-1000", crisis...)
			closeSession("coach", "u-coach", "s-refused", "I want to kill myself tonight, I have the pills ready.")
			for _, s := range []string{"s-crisis", "s-1000", "s-refused"} {
				c.waitProcessed(s)
			}

			// Wait until every alert job is done: delivered, or failed for good.
			deadline := testwait.GiveUpAt(t)
			var jobs []any
			for {
				code, res := admin.do("GET", "/v1/admin/jobs?kind=risk_alert&limit=100", nil)
				jobs, _ = res["jobs"].([]any)
				states := map[string]int{}
				for _, j := range jobs {
					states[j.(map[string]any)["state"].(string)]++
				}
				if code == 200 && states["completed"] == 2 && states["cancelled"] == 1 {
					break
				}
				if testwait.Past(deadline) {
					t.Fatalf("risk alert jobs never finished: %d %v", code, res)
				}
				<-time.After(25 * time.Millisecond)
			}
			if len(jobs) != 3 {
				t.Errorf("%d risk alert jobs; want 3 (one per session and class)", len(jobs))
			}

			// Mona: each alert once, after a failed first attempt.
			attempts, delivered := mona.counts()
			if len(attempts) != 2 || attempts["s-crisis suicidal"] != 2 || attempts["s-1000 suicidal"] != 2 {
				t.Errorf("attempts %v; want two per alert (a 500, then delivered), for s-crisis and s-1000 only", attempts)
			}
			if d := delivered["s-crisis suicidal"]; len(d) != 1 || d[0].Severity != "high" || d[0].MessageID != "m2" || d[0].Findings != 2 ||
				d[0].UserID != "u-crisis" || d[0].App != "mona" || !d[0].At.Equal(base.Add(time.Minute+time.Second)) {
				t.Errorf("the crisis session's alert: %+v; want one, high, m2 at %s, 2 findings", d, base.Add(time.Minute+time.Second))
			}
			if d := delivered["s-1000 suicidal"]; len(d) != 1 || d[0].Severity != "high" || d[0].MessageID != "m1" || d[0].Findings != 1000 {
				t.Errorf("the 1,000-message session's alert: %+v; want one, high, m1, 1000 findings", d)
			}
			code, s := c.do("GET", "/v1/sessions/s-1000", nil)
			if risks, _ := s["risks"].([]any); code != 200 || len(risks) != 1000 {
				t.Errorf("s-1000 has %d risk cues; want one per message, 1000", len(risks))
			}
			// A receiver refuses the delivered alert replayed six minutes later.
			mona.mu.Lock()
			sig, body := mona.last.header, mona.last.body
			mona.mu.Unlock()
			if err := riskalert.Verify([]byte(alertSecret), body, sig, time.Now().Add(6*time.Minute), riskalert.Tolerance); !errors.Is(err, riskalert.ErrTooOld) {
				t.Errorf("a replay 6 minutes later: %v; want ErrTooOld", err)
			}

			// Coach: refused, so failed for good, and listed on the operations page.
			if attempts, delivered := coach.counts(); attempts["s-refused suicidal"] != 1 || len(delivered) != 0 {
				t.Errorf("coach's receiver: attempts %v, delivered %v; want one refused attempt", attempts, delivered)
			}
			code, _, page := uiRequest(t, c.base, "GET", "/views/operations", "Bearer "+adminToken)
			html := string(page)
			i := strings.Index(html, `data-section="ops-failed-alerts"`)
			if code != 200 || i < 0 {
				t.Fatalf("operations = %d, failed alerts section at %d", code, i)
			}
			section := html[i:]
			if end := strings.Index(section, "</section>"); end > 0 {
				section = section[:end]
			}
			for _, want := range []string{"s-refused", "coach", "suicidal", "high", "answered 410"} {
				if !strings.Contains(section, want) {
					t.Errorf("the failed alerts section lacks %q:\n%s", want, section)
				}
			}
			for _, not := range []string{"s-crisis", "s-1000"} {
				if strings.Contains(section, not) {
					t.Errorf("the failed alerts section lists %s, which was delivered", not)
				}
			}

			// The start log: where alerts go, the override; no secret, no token.
			log := w.stderr.String()
			where := map[string]string{}
			for _, l := range logLines(t, log, "risk alerts") {
				where[fmt.Sprint(l["app"])] = fmt.Sprintf("%v %v %v", l["to"], l["from"], l["signed"])
			}
			monaHost := strings.TrimPrefix(monaHook.URL, "http://")
			coachHost := strings.TrimPrefix(coachHook.URL, "http://")
			if where["mona"] != monaHost+" MNEMO_RISK_ALERTS true" || where["coach"] != coachHost+" policy.json true" || len(where) != 2 {
				t.Errorf("risk alerts logged as %v", where)
			}
			off := map[string]bool{}
			for _, l := range logLines(t, log, "risk alerts off") {
				off[fmt.Sprint(l["app"])] = true
			}
			if !off["clara"] || !off["eldertree"] || !off["lara"] || off["mona"] {
				t.Errorf("apps logged with alerts off: %v", off)
			}
			overridden := logLines(t, log, "preset overridden by MNEMO_APPS_DIR: the built-in one is not used")
			if len(overridden) != 1 || overridden[0]["app"] != "coach" {
				t.Errorf("overridden presets logged: %v", overridden)
			}
			for _, secret := range []string{alertSecret, "tok-in-the-url", "kill myself", "ending it all"} {
				if strings.Contains(log, secret) {
					t.Errorf("the log carries %q", secret)
				}
			}
		})
	}
}
