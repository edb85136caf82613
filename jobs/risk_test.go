package jobs_test

import (
	"context"
	"net/http"
	"net/http/httptest"
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

// A risk cue is counted once, on its first attempt, and never posted: not
// even when the app's policy names a risk_webhook, as the alert is the
// session's (RiskAlertWorker). Denials, someone else's words and lowered
// findings are counted too; a job queued before sources were recorded is
// counted as of an unknown source.
func TestRiskCueCountsAndNeverPosts(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { posts.Add(1) }))
	defer srv.Close()

	counter := &riskCounter{counts: map[string]int{}}
	app := &prompts.App{Name: "mona", Policy: prompts.Policy{RiskWebhook: srv.URL + "/hook"}}
	w := jobs.NewRiskCueWorker(&jobs.Deps{Apps: map[string]*prompts.App{"mona": app}, Metrics: counter})
	at := time.Date(2026, 11, 20, 9, 1, 0, 0, time.UTC)
	args := jobs.RiskCueArgs{UserID: "u1", SessionID: "s1", App: "mona", Class: extract.RiskDistress, Severity: extract.SeverityMedium,
		MessageID: "m1", Actor: extract.ActorUser, At: at, Source: extract.RiskSourceRules, SessionAlert: true}
	work := func(a jobs.RiskCueArgs, attempt int) {
		t.Helper()
		if err := w.Work(context.Background(), &river.Job[jobs.RiskCueArgs]{Args: a, JobRow: &rivertype.JobRow{Attempt: attempt}}); err != nil {
			t.Fatal(err)
		}
	}
	work(args, 1)
	work(args, 2) // a retry counts nothing again
	low := args
	low.Severity, low.MessageID = extract.SeverityLow, "m2"
	other := args
	other.Severity, other.Actor, other.MessageID = extract.SeverityLow, extract.ActorOther, "m3"
	lowered := args
	lowered.MessageID, lowered.Lowered = "m4", extract.FrameFiction
	old := args
	old.MessageID, old.Source, old.Severity = "m5", "", extract.SeverityLow
	for _, a := range []jobs.RiskCueArgs{low, other, lowered, old} {
		work(a, 1)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("the cue jobs posted %d times; the alert is the session's job", n)
	}
	if c := counter.counts; c["mona distress medium rules"] != 2 || c["mona distress low rules"] != 2 || c["mona distress low unknown"] != 1 {
		t.Errorf("counts %v", c)
	}
}
