package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
)

type riskCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *riskCounter) Job(string, string, time.Duration)          {}
func (c *riskCounter) Extraction(jobs.ExtractionStat)             {}
func (c *riskCounter) Batch(string, string, time.Duration, int64) {}
func (c *riskCounter) Risk(app, class, severity, source string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[app+" "+class+" "+severity+" "+source]++
}

// A risk cue is counted once and posted to the app's webhook with ids,
// class and severity only; a failing endpoint is retried, a refusing one
// is not; denials and someone else's words are never posted.
func TestRiskCueWebhook(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s", r.Method, r.Header.Get("Content-Type"))
		}
		bodies = append(bodies, string(b))
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()

	counter := &riskCounter{counts: map[string]int{}}
	app := &prompts.App{Name: "mona", Policy: prompts.Policy{RiskWebhook: srv.URL + "/hook"}}
	w := jobs.NewRiskCueWorker(&jobs.Deps{Apps: map[string]*prompts.App{"mona": app}, Metrics: counter})
	at := time.Date(2026, 11, 20, 9, 1, 0, 0, time.UTC)
	args := jobs.RiskCueArgs{UserID: "u1", SessionID: "s1", App: "mona", Class: extract.RiskDistress,
		Severity: extract.SeverityMedium, MessageID: "m1", Actor: extract.ActorUser, At: at, Source: extract.RiskSourceRules}
	work := func(a jobs.RiskCueArgs, attempt int) error {
		return w.Work(context.Background(), &river.Job[jobs.RiskCueArgs]{Args: a, JobRow: &rivertype.JobRow{Attempt: attempt}})
	}

	if err := work(args, 1); err != nil {
		t.Fatal(err)
	}
	var got jobs.RiskWebhookBody
	if err := json.Unmarshal([]byte(bodies[0]), &got); err != nil {
		t.Fatal(err)
	}
	want := jobs.RiskWebhookBody{UserID: "u1", SessionID: "s1", App: "mona", Class: "distress", Severity: "medium", MessageID: "m1", At: at}
	if got != want {
		t.Errorf("posted %+v, want %+v", got, want)
	}
	for _, k := range []string{"actor", "text", "content"} {
		if strings.Contains(bodies[0], `"`+k+`"`) {
			t.Errorf("body has %s: %s", k, bodies[0])
		}
	}

	// A 503 fails the attempt (River retries); the retry posts again but
	// does not count the cue again.
	status.Store(http.StatusServiceUnavailable)
	if err := work(args, 2); err == nil {
		t.Error("a 503 was taken as delivered")
	}
	status.Store(http.StatusOK)
	if err := work(args, 3); err != nil {
		t.Fatal(err)
	}
	// A 400 is final.
	status.Store(http.StatusBadRequest)
	var cancel *river.JobCancelError
	if err := work(args, 4); !errors.As(err, &cancel) {
		t.Errorf("a 400 gave %v, want a cancelled job", err)
	}
	status.Store(http.StatusOK)

	// A denial, a friend's words and a finding the model lowered with a
	// frame are counted, not posted; a job queued before sources were
	// recorded is counted as of an unknown source.
	posted := len(bodies)
	low := args
	low.Severity, low.MessageID = extract.SeverityLow, "m2"
	other := args
	other.Severity, other.Actor, other.MessageID = extract.SeverityLow, extract.ActorOther, "m3"
	lowered := args
	lowered.MessageID, lowered.Lowered = "m4", extract.FrameFiction
	old := args
	old.MessageID, old.Source, old.Severity = "m5", "", extract.SeverityLow
	for _, a := range []jobs.RiskCueArgs{low, other, lowered, old} {
		if err := work(a, 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(bodies) != posted {
		t.Errorf("low or lowered risks were posted: %v", bodies[posted:])
	}
	if c := counter.counts; c["mona distress medium rules"] != 2 || c["mona distress low rules"] != 2 || c["mona distress low unknown"] != 1 {
		t.Errorf("counts %v", c)
	}
}

// A webhook that redirects gets the cue once: the redirect is not followed
// (the cue and the URL's token never reach the other server, as a body or
// as a Referer), and the attempt fails, so River retries it.
func TestRiskCueWebhookFollowsNoRedirect(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if ref := r.Header.Get("Referer"); ref != "" {
			t.Errorf("the redirect target got Referer %q", ref)
		}
	}))
	defer other.Close()
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		var posts atomic.Int32
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			posts.Add(1)
			if ref := r.Header.Get("Referer"); ref != "" {
				t.Errorf("the webhook got Referer %q", ref)
			}
			http.Redirect(w, r, other.URL+"/steal", code)
		}))
		app := &prompts.App{Name: "mona", Policy: prompts.Policy{RiskWebhook: hook.URL + "/hook?token=s3cr3t-token"}}
		w := jobs.NewRiskCueWorker(&jobs.Deps{Apps: map[string]*prompts.App{"mona": app}, Metrics: &riskCounter{counts: map[string]int{}}})
		args := jobs.RiskCueArgs{UserID: "u1", SessionID: "s1", App: "mona", Class: extract.RiskDistress,
			Severity: extract.SeverityHigh, MessageID: "m1", Actor: extract.ActorUser, At: time.Date(2026, 11, 20, 9, 1, 0, 0, time.UTC)}
		err := w.Work(context.Background(), &river.Job[jobs.RiskCueArgs]{Args: args, JobRow: &rivertype.JobRow{Attempt: 1}})
		var cancel *river.JobCancelError
		if err == nil || errors.As(err, &cancel) {
			t.Errorf("a %d gave %v; want a failed attempt that River retries", code, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("the error names the URL's token: %v", err)
		}
		if posts.Load() != 1 {
			t.Errorf("a %d: the webhook got %d posts; want 1", code, posts.Load())
		}
		hook.Close()
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests; want none", n)
	}
}
