package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/riskalert"
	"github.com/mnemo-ai/mnemo/store"
)

// RiskAlertTarget is where one app's risk alerts go.
type RiskAlertTarget struct {
	// URL receives the alerts (http or https); empty sends none.
	URL string
	// Secret signs them (riskalert.Sign); empty sends them unsigned, which
	// only an app's policy.json risk_webhook without a secret does.
	Secret []byte
	// From says who set the URL: "MNEMO_RISK_ALERTS" or "policy.json".
	From string
}

// Host is the URL's host, which is what a log may say of it (a path or a
// query may hold a token).
func (t RiskAlertTarget) Host() string {
	u, err := url.Parse(t.URL)
	if err != nil {
		return ""
	}
	return u.Host
}

// String never shows the secret, nor more of the URL than its host.
func (t RiskAlertTarget) String() string {
	if t.URL == "" {
		return "off"
	}
	return fmt.Sprintf("%s (from %s, signed %t)", t.Host(), t.From, len(t.Secret) > 0)
}

// GoString is String, so that %#v shows no secret either.
func (t RiskAlertTarget) GoString() string { return t.String() }

// LogValue is String, for slog.
func (t RiskAlertTarget) LogValue() slog.Value { return slog.StringValue(t.String()) }

// RiskAlerts is where each app's risk alerts go, by app name.
type RiskAlerts map[string]RiskAlertTarget

// riskAlertTarget is where app's alerts go: d.RiskAlerts' entry, or, for a
// Deps built without it, the app's policy.json risk_webhook, unsigned.
func (d *Deps) riskAlertTarget(app string) RiskAlertTarget {
	if t, ok := d.RiskAlerts[app]; ok {
		return t
	}
	if a := d.Apps[app]; a != nil && a.Policy.RiskWebhook != "" {
		return RiskAlertTarget{URL: a.Policy.RiskWebhook, From: "policy.json"}
	}
	return RiskAlertTarget{}
}

// sessionAlerts are the alerts of a session's findings: one per class of
// the user's own medium and high findings (Alerting; the lowered ones are
// not among risks), with the strongest severity, the first message of that
// severity and its time, and how many findings of the class alert. In the
// order each class first appears.
func sessionAlerts(sess store.Session, in extract.Session, risks []extract.Risk) []queue.RiskAlertArgs {
	var out []queue.RiskAlertArgs
	at := map[string]int{}
	for _, r := range risks {
		if !Alerting(r.Severity, r.Actor) {
			continue
		}
		i, ok := at[r.Class]
		if !ok {
			i = len(out)
			at[r.Class] = i
			out = append(out, queue.RiskAlertArgs{SessionID: sess.ID, Class: r.Class, UserID: sess.UserID, App: sess.App})
		}
		a := &out[i]
		a.Findings++
		if a.MessageID == "" || alertRank(r.Severity) > alertRank(a.Severity) {
			a.Severity, a.MessageID, a.At = r.Severity, r.MessageID, statedAt(in, r.MessageID)
		}
	}
	return out
}

// alertRank orders the severities that alert.
func alertRank(severity string) int {
	switch severity {
	case extract.SeverityHigh:
		return 2
	case extract.SeverityMedium:
		return 1
	}
	return 0
}

// alertClient posts risk alerts; a slow endpoint fails the attempt, which
// River retries with its backoff. It follows no redirect: an alert goes to
// the URL the operator set and nowhere else, and a redirect would re-post
// it with that URL (and any token in it) as the Referer.
var alertClient = &http.Client{Timeout: 10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// RiskAlertWorker posts a session's alert of one class to the app's alert
// URL, signed with its secret.
type RiskAlertWorker struct {
	river.WorkerDefaults[queue.RiskAlertArgs]
	deps *Deps
}

// NewRiskAlertWorker returns the risk alert worker.
func NewRiskAlertWorker(d *Deps) *RiskAlertWorker { return &RiskAlertWorker{deps: d} }

// Work posts the alert (riskalert.Alert), signed anew at each attempt with
// the current time (riskalert.SignatureHeader). A 2xx answer delivers it. A
// 4xx other than 408 and 429 is final: the job is cancelled, and listed
// with the failed alerts (queue.FailedRiskAlerts). Anything else, a
// redirect or no answer included, fails the attempt, which River retries
// with backoff until the last attempt, when the job is discarded (and
// listed with the failed alerts). An app with no alert URL any more
// cancels it.
func (w *RiskAlertWorker) Work(ctx context.Context, job *river.Job[queue.RiskAlertArgs]) error {
	d, a := w.deps, job.Args
	log := d.log().With(slog.String("app", a.App), slog.String("session_id", a.SessionID), slog.String("class", a.Class),
		slog.Int("attempt", job.Attempt))
	t := d.riskAlertTarget(a.App)
	if t.URL == "" {
		log.WarnContext(ctx, "risk alert not sent: the app's alerts are off now")
		return river.JobCancel(errors.New("risk alert of " + a.App + " not sent: no alert URL"))
	}
	body, err := json.Marshal(riskalert.Alert{Type: riskalert.Type, UserID: a.UserID, SessionID: a.SessionID, App: a.App,
		Class: a.Class, Severity: a.Severity, MessageID: a.MessageID, At: a.At.UTC(), Findings: a.Findings})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return river.JobCancel(errors.New("risk alert of " + a.App + ": the alert URL cannot be used"))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mnemo-risk-alert")
	req.Header.Set(riskalert.TypeHeader, riskalert.Type)
	if len(t.Secret) > 0 {
		// The receiver's clock, not a test's: signed with the time it is sent.
		req.Header.Set(riskalert.SignatureHeader, riskalert.Sign(t.Secret, body, time.Now()))
	}
	resp, err := alertClient.Do(req)
	if err != nil {
		// The error names the URL, which may carry a token: say the host only.
		log.WarnContext(ctx, "risk alert: receiver unreachable; River retries", slog.String("host", t.Host()),
			slog.Bool("last_attempt", job.MaxAttempts > 0 && job.Attempt >= job.MaxAttempts))
		return errors.New("risk alert of " + a.App + ": " + t.Host() + " unreachable")
	}
	resp.Body.Close()
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		log.InfoContext(ctx, "risk alert delivered", slog.String("severity", a.Severity), slog.String("host", t.Host()))
		return nil
	case code >= 300 && code < 400:
		// Not followed: the operator sets the final URL (its Location is not
		// logged, as it may carry a token too).
		log.ErrorContext(ctx, "risk alert redirected, which is not followed; set the final URL", slog.Int("status", code))
	case code >= 400 && code < 500 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests:
		log.ErrorContext(ctx, "risk alert refused by the receiver; not retried", slog.Int("status", code))
		return river.JobCancel(errors.New("risk alert of " + a.App + ": " + t.Host() + " answered " + strconv.Itoa(code)))
	default:
		log.WarnContext(ctx, "risk alert failed; River retries", slog.Int("status", code))
	}
	if job.MaxAttempts > 0 && job.Attempt >= job.MaxAttempts {
		log.ErrorContext(ctx, "risk alert failed for good: discarded, listed with the failed alerts on the operations page", slog.Int("status", code))
	}
	return errors.New("risk alert of " + a.App + ": " + t.Host() + " answered " + strconv.Itoa(code))
}
