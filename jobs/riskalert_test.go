package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/riskalert"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

const alertSecret = "a-test-secret-of-at-least-32-characters"

type received struct {
	header http.Header
	body   []byte
}

// An alert is posted with ids, class and severity only, signed over its
// body and the time it is sent, so that the receiver's riskalert.Verify
// accepts it; a 503 fails the attempt (River retries), and the retry is
// signed anew; a 400 is final; an app whose alerts were turned off since
// cancels the job; an app with a policy.json risk_webhook and no secret
// gets it unsigned.
func TestRiskAlertIsSignedAndRetried(t *testing.T) {
	var mu sync.Mutex
	var got []received
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{r.Header.Clone(), b})
		mu.Unlock()
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()

	at := time.Date(2026, 11, 20, 9, 1, 0, 0, time.UTC)
	d := &jobs.Deps{Apps: map[string]*prompts.App{"mona": {Name: "mona"}, "coach": {Name: "coach", Policy: prompts.Policy{RiskWebhook: srv.URL + "/policy"}}},
		RiskAlerts: jobs.RiskAlerts{"mona": {URL: srv.URL + "/alerts?token=abc", Secret: []byte(alertSecret), From: "MNEMO_RISK_ALERTS"}}}
	w := jobs.NewRiskAlertWorker(d)
	args := queue.RiskAlertArgs{SessionID: "s1", Class: extract.RiskSuicidal, UserID: "u1", App: "mona", Severity: extract.SeverityHigh,
		MessageID: "m2", At: at, Findings: 3}
	work := func(a queue.RiskAlertArgs, attempt int) error {
		return w.Work(context.Background(), &river.Job[queue.RiskAlertArgs]{Args: a, JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: 12}})
	}

	status.Store(http.StatusServiceUnavailable)
	var cancel *river.JobCancelError
	if err := work(args, 1); err == nil || errors.As(err, &cancel) {
		t.Fatalf("a 503 gave %v; want a failed attempt River retries", err)
	}
	status.Store(http.StatusOK)
	if err := work(args, 2); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("%d posts; want 2", len(got))
	}
	for i, r := range got {
		if err := riskalert.Verify([]byte(alertSecret), r.body, r.header.Get(riskalert.SignatureHeader), time.Now(), 0); err != nil {
			t.Errorf("post %d: %v (%s)", i+1, err, r.header.Get(riskalert.SignatureHeader))
		}
		if r.header.Get("Content-Type") != "application/json" || r.header.Get(riskalert.TypeHeader) != "risk_alert" {
			t.Errorf("post %d headers %v", i+1, r.header)
		}
	}
	var alert riskalert.Alert
	if err := json.Unmarshal(got[1].body, &alert); err != nil {
		t.Fatal(err)
	}
	want := riskalert.Alert{Type: "risk_alert", UserID: "u1", SessionID: "s1", App: "mona", Class: "suicidal", Severity: "high",
		MessageID: "m2", At: at, Findings: 3}
	if alert != want {
		t.Errorf("alert %+v\nwant  %+v", alert, want)
	}
	var fields map[string]any
	_ = json.Unmarshal(got[1].body, &fields)
	if len(fields) != 9 {
		t.Errorf("the body has fields beyond the documented ones: %s", got[1].body)
	}
	if err := riskalert.Verify([]byte("another secret entirely, also long enough"), got[1].body, got[1].header.Get(riskalert.SignatureHeader), time.Now(), 0); err == nil {
		t.Error("the signature verifies with another secret")
	}

	// A 400 is final; a 429 and a 408 are retried.
	for code, final := range map[int]bool{http.StatusBadRequest: true, http.StatusUnauthorized: true, http.StatusTooManyRequests: false, http.StatusRequestTimeout: false} {
		status.Store(int32(code))
		err := work(args, 3)
		if err == nil || errors.As(err, &cancel) != final {
			t.Errorf("a %d gave %v; final %t", code, err, final)
		}
		if err != nil && strings.Contains(err.Error(), "token") {
			t.Errorf("the error names the URL's query: %v", err)
		}
	}
	status.Store(http.StatusOK)

	// Alerts of an app turned off since: cancelled, nothing posted.
	n := len(got)
	off := args
	off.App = "clara"
	if err := work(off, 1); !errors.As(err, &cancel) {
		t.Errorf("an app without alerts gave %v; want a cancelled job", err)
	}
	// A policy.json webhook without a secret: unsigned.
	coach := args
	coach.App = "coach"
	if err := work(coach, 1); err != nil {
		t.Fatal(err)
	}
	if len(got) != n+1 || got[n].header.Get(riskalert.SignatureHeader) != "" {
		t.Errorf("coach's alert: %d posts, signature %q; want one, unsigned", len(got)-n, got[n].header.Get(riskalert.SignatureHeader))
	}
}

// A receiver that redirects gets the alert once: the redirect is not
// followed (the alert and the URL's token never reach the other server, as
// a body or as a Referer), and the attempt fails, so River retries it.
func TestRiskAlertFollowsNoRedirect(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		var posts atomic.Int32
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			posts.Add(1)
			if ref := r.Header.Get("Referer"); ref != "" {
				t.Errorf("the receiver got Referer %q", ref)
			}
			http.Redirect(w, r, other.URL+"/steal", code)
		}))
		d := &jobs.Deps{Apps: map[string]*prompts.App{"mona": {Name: "mona"}},
			RiskAlerts: jobs.RiskAlerts{"mona": {URL: hook.URL + "/hook?token=s3cr3t-token", Secret: []byte(alertSecret)}}}
		args := queue.RiskAlertArgs{SessionID: "s1", Class: extract.RiskDistress, UserID: "u1", App: "mona", Severity: extract.SeverityHigh,
			MessageID: "m1", At: time.Date(2026, 11, 20, 9, 1, 0, 0, time.UTC), Findings: 1}
		err := jobs.NewRiskAlertWorker(d).Work(context.Background(), &river.Job[queue.RiskAlertArgs]{Args: args, JobRow: &rivertype.JobRow{Attempt: 1}})
		var cancel *river.JobCancelError
		if err == nil || errors.As(err, &cancel) {
			t.Errorf("a %d gave %v; want a failed attempt that River retries", code, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("the error names the URL's token: %v", err)
		}
		if posts.Load() != 1 {
			t.Errorf("a %d: the receiver got %d posts; want 1", code, posts.Load())
		}
		hook.Close()
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests; want none", n)
	}
}

// RiskAlerts never shows the secret: not with %v, %+v, %#v or %s, nor in
// a log line.
func TestRiskAlertTargetHidesTheSecret(t *testing.T) {
	a := jobs.RiskAlerts{"mona": {URL: "https://alerts.example.org/mnemo?token=tok-123", Secret: []byte(alertSecret), From: "MNEMO_RISK_ALERTS"}}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		s := fmt.Sprintf(f, a)
		if strings.Contains(s, alertSecret) || strings.Contains(s, "tok-123") || !strings.Contains(s, "alerts.example.org") {
			t.Errorf("%s: %s", f, s)
		}
	}
}

// alertJobs lists the risk_alert jobs of the bundle's queue, by session and class.
func alertJobs(t *testing.T, x *extractBundle) map[string]queue.RiskAlertArgs {
	t.Helper()
	rows, err := x.q.List(context.Background(), queue.ListFilter{Kinds: []string{"risk_alert"}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]queue.RiskAlertArgs{}
	for _, r := range rows {
		var a queue.RiskAlertArgs
		if err := json.Unmarshal(r.EncodedArgs, &a); err != nil {
			t.Fatal(err)
		}
		k := a.SessionID + " " + a.Class
		if _, dup := out[k]; dup {
			t.Errorf("two alert jobs for %s", k)
		}
		out[k] = a
	}
	return out
}

// The extraction enqueues, in its transaction, one alert per session and
// class of the user's own medium and high findings: a crisis said twice and
// a distress statement give two alerts (suicidal, with its first high
// message and 2 findings; distress), a denial none; a second run of the
// extraction (a retried job) adds none; a session of 1,000 identical
// crisis messages gives one alert, of 1,000 findings, beside its 1,000
// cues. An app whose alerts go nowhere gets no alert job; an older cue job
// (queued before alerts were per session) hands its alert to the session's
// one, which is not enqueued twice.
func TestOneRiskAlertPerSessionAndClass(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			x.deps.Queue = x.q
			x.deps.RiskAlerts = jobs.RiskAlerts{"mona": {URL: "http://127.0.0.1:9/alerts", Secret: []byte(alertSecret), From: "MNEMO_RISK_ALERTS"}}
			t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			session := func(user string, said ...string) handoff.Request {
				req := handoff.Request{UserID: user, App: "mona", StartedAt: t0, EndedAt: t0.Add(time.Hour), Timezone: "UTC"}
				for i, s := range said {
					req.Messages = append(req.Messages, extract.Message{ID: fmt.Sprintf("m%d", i+1), Role: "user", Content: s, At: t0.Add(time.Duration(i) * time.Second)})
				}
				return req
			}
			w := jobs.NewExtractWorker(x.deps)
			extractTwice := func(id int64, sid string) {
				for attempt := 1; attempt <= 2; attempt++ {
					if err := w.Work(ctx, &river.Job[queue.ExtractArgs]{JobRow: &rivertype.JobRow{ID: id, Attempt: attempt, MaxAttempts: 5},
						Args: queue.ExtractArgs{SessionID: sid}}); err != nil {
						t.Fatal(err)
					}
				}
			}

			extractTwice(x.closeSession(t, "s-crisis", session("u-1",
				"My name is Robin.",
				"I hate my life.",
				"I've been thinking about ending it all.",
				"I want to kill myself tonight, I have the pills ready.",
				"I'm not suicidal though.")), "s-crisis")
			crisis := make([]string, 1000)
			for i := range crisis {
				crisis[i] = "I want to kill myself tonight, I have the pills ready."
			}
			extractTwice(x.closeSession(t, "s-1000", session("u-2", crisis...)), "s-1000")
			// Coach has no alert URL: no alert job.
			coach := session("u-3", "I want to kill myself tonight, I have the pills ready.")
			coach.App = "coach"
			extractTwice(x.closeSession(t, "s-coach", coach), "s-coach")

			got := alertJobs(t, x)
			want := map[string]string{
				"s-crisis suicidal": "high m3 2 u-1 mona",
				"s-crisis distress": "medium m2 1 u-1 mona",
				"s-1000 suicidal":   "high m1 1000 u-2 mona",
			}
			if len(got) != len(want) {
				t.Errorf("alert jobs %v; want %v", got, want)
			}
			for k, v := range want {
				a := got[k]
				if s := fmt.Sprintf("%s %s %d %s %s", a.Severity, a.MessageID, a.Findings, a.UserID, a.App); s != v {
					t.Errorf("%s: %s; want %s", k, s, v)
				}
			}
			if a := got["s-crisis suicidal"]; !a.At.Equal(t0.Add(2 * time.Second)) {
				t.Errorf("the alert's time %v; want its message's, %v", a.At, t0.Add(2*time.Second))
			}
			cues, err := x.q.List(ctx, queue.ListFilter{Kinds: []string{"risk_cue"}, Limit: 5000})
			if err != nil {
				t.Fatal(err)
			}
			if len(cues) != 4+1000+1 {
				t.Errorf("%d risk_cue jobs; want one per finding, 1,005", len(cues))
			}

			// An older worker's cue job of the crisis: its alert is the session's, already enqueued.
			cue := jobs.NewRiskCueWorker(x.deps)
			old := jobs.RiskCueArgs{UserID: "u-1", SessionID: "s-crisis", App: "mona", Class: extract.RiskSuicidal, Severity: extract.SeverityHigh,
				MessageID: "m4", Actor: extract.ActorUser, At: t0}
			if err := cue.Work(ctx, &river.Job[jobs.RiskCueArgs]{Args: old, JobRow: &rivertype.JobRow{Attempt: 1}}); err != nil {
				t.Fatal(err)
			}
			// One of a session whose alert was never enqueued: it is now.
			old.SessionID = "s-old"
			if err := cue.Work(ctx, &river.Job[jobs.RiskCueArgs]{Args: old, JobRow: &rivertype.JobRow{Attempt: 1}}); err != nil {
				t.Fatal(err)
			}
			got = alertJobs(t, x)
			if len(got) != 4 || got["s-old suicidal"].Severity != "high" || got["s-crisis suicidal"].MessageID != "m3" {
				t.Errorf("after older cue jobs: %v", got)
			}
		})
	}
}

// An alert that fails for good is dead-lettered where the operations page
// finds it (queue.FailedRiskAlerts): one whose receiver answers 503 at
// every attempt is discarded after its last, one refused with a 410 is
// cancelled at once; each listed with its session, class, attempts and
// last error (a status, never the URL), newest first. A delivered alert is
// not listed.
func TestFailedRiskAlertsAreListed(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case strings.HasPrefix(r.URL.Path, "/down"):
					w.WriteHeader(http.StatusServiceUnavailable)
				case strings.HasPrefix(r.URL.Path, "/gone"):
					w.WriteHeader(http.StatusGone)
				}
			}))
			defer srv.Close()
			x := setupExtractWith(t, b, false, false)
			x.deps.Queue = x.q
			x.deps.RiskAlerts = jobs.RiskAlerts{
				"mona":      {URL: srv.URL + "/down?token=tok-123", Secret: []byte(alertSecret)},
				"eldertree": {URL: srv.URL + "/gone", Secret: []byte(alertSecret)},
				"coach":     {URL: srv.URL + "/ok", Secret: []byte(alertSecret)},
			}
			insert := func(app, session string) {
				a := queue.RiskAlertArgs{SessionID: session, Class: extract.RiskSuicidal, UserID: "u-" + session, App: app,
					Severity: extract.SeverityHigh, MessageID: "m1", At: time.Now().UTC(), Findings: 1}
				// Three attempts, not twelve: River's backoff is not what is tested.
				if _, err := x.q.Insert(ctx, a, &river.InsertOpts{MaxAttempts: 3}); err != nil {
					t.Fatal(err)
				}
			}
			insert("mona", "s-down")
			insert("eldertree", "s-gone")
			insert("coach", "s-ok")
			if err := x.q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = x.q.Stop(context.Background()) })

			var failed []queue.FailedRiskAlert
			deadline := testwait.GiveUpAt(t)
			for {
				var err error
				if failed, err = queue.FailedRiskAlerts(ctx, x.q, 0); err != nil {
					t.Fatal(err)
				}
				if len(failed) >= 2 {
					break
				}
				if testwait.Past(deadline) {
					t.Fatalf("failed alerts never listed: %+v", failed)
				}
				<-time.After(20 * time.Millisecond)
			}
			got := map[string]string{}
			for _, f := range failed {
				got[f.Args.SessionID] = fmt.Sprintf("%s %s %s %d %s", f.State, f.Args.App, f.Args.Class, f.Attempts, f.LastError)
				if f.FailedAt.IsZero() {
					t.Errorf("%s: no time it failed", f.Args.SessionID)
				}
				if strings.Contains(f.LastError, "tok-123") || strings.Contains(f.LastError, "/down") {
					t.Errorf("the error shows the URL: %s", f.LastError)
				}
			}
			host := strings.TrimPrefix(srv.URL, "http://")
			want := map[string]string{
				"s-down": "discarded mona suicidal 3 risk alert of mona: " + host + " answered 503",
				"s-gone": "cancelled eldertree suicidal 1 risk alert of eldertree: " + host + " answered 410",
			}
			if len(got) != 2 || got["s-down"] != want["s-down"] || got["s-gone"] != want["s-gone"] {
				t.Errorf("failed alerts %v\nwant %v", got, want)
			}
			if failed[0].JobID < failed[1].JobID {
				t.Errorf("not newest first: %d before %d", failed[0].JobID, failed[1].JobID)
			}
		})
	}
}
