package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// RiskMetrics is what a Metrics may also count: every risk cue recorded,
// lowered ones included, by app, class, severity and source (one of
// extract's RiskSource constants, or "unknown"). A Metrics without it
// counts none.
type RiskMetrics interface {
	Risk(app, class, severity, source string)
}

// LoweringMetrics is what a Metrics may also count: every risk finding
// the model lowered with a frame code (extract.Lowering), by app, the
// finding's class and severity, and the frame. Counted once, when the
// extraction that recorded it commits.
type LoweringMetrics interface {
	RiskLowered(app, fromClass, fromSeverity, frame string)
}

// RiskCueArgs is the job of one recorded risk cue: it counts the cue once
// and, when the app's policy names a risk_webhook and the cue is the
// user's own of medium or high severity and not lowered, posts it there
// with River's retries. It carries ids, class, severity, source and frame
// only: never text, never the URL (read from the policy when the job runs).
type RiskCueArgs struct {
	UserID    string    `json:"user_id"`
	SessionID string    `json:"session_id"`
	App       string    `json:"app"`
	Class     string    `json:"class"`
	Severity  string    `json:"severity"`
	MessageID string    `json:"message_id"`
	Actor     string    `json:"actor"`
	At        time.Time `json:"at"`
	// Source is who found it (extract.RiskSourceRules, …); empty in a job
	// enqueued before sources were recorded.
	Source string `json:"source,omitempty"`
	// Lowered is the frame code the model lowered the finding with
	// (extract.Lowering): the cue is counted, never posted.
	Lowered string `json:"lowered,omitempty"`
}

// Kind is the River job kind.
func (RiskCueArgs) Kind() string { return "risk_cue" }

// InsertOpts: the default queue, unique per session and message.
func (RiskCueArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue.QueueDefault, MaxAttempts: 12, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RiskWebhookBody is what a risk webhook receives.
type RiskWebhookBody struct {
	UserID    string    `json:"user_id"`
	SessionID string    `json:"session_id"`
	App       string    `json:"app"`
	Class     string    `json:"class"`
	Severity  string    `json:"severity"`
	MessageID string    `json:"message_id"`
	At        time.Time `json:"at"`
}

// recordRisks stores a session's risks as cues inside the extraction
// transaction and enqueues a RiskCueArgs job for each in it, so that a cue
// is counted and posted exactly when it is committed. The findings the
// model lowered (docs/safety.md, "Sources and the policy") are stored
// too, as cues whose detail names the frame in "lowered", and counted, but
// never posted. Each cue's detail holds the class, severity, message id,
// actor and source; never the text. With no queue (a test's Deps), the
// cues are counted at once and nothing is posted.
func recordRisks(ctx context.Context, tx store.Tx, d *Deps, sess store.Session, in extract.Session, risks []extract.Risk, lowered []extract.Lowering, now time.Time) error {
	cues := make([]RiskCueArgs, 0, len(risks)+len(lowered))
	for _, r := range risks {
		cues = append(cues, RiskCueArgs{Class: r.Class, Severity: r.Severity, MessageID: r.MessageID, Actor: r.Actor, Source: r.Source})
	}
	for _, l := range lowered {
		cues = append(cues, RiskCueArgs{Class: l.FromClass, Severity: l.FromSeverity, MessageID: l.MessageID, Actor: l.Actor,
			Source: l.Source, Lowered: l.Frame})
	}
	for _, a := range cues {
		a.UserID, a.SessionID, a.App, a.At = sess.UserID, sess.ID, sess.App, statedAt(in, a.MessageID)
		fields := map[string]string{"class": a.Class, "severity": a.Severity, "message_id": a.MessageID, "actor": a.Actor}
		if a.Source != "" {
			fields["source"] = a.Source
		}
		if a.Lowered != "" {
			fields["lowered"] = a.Lowered
		}
		detail, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		if err := tx.InsertCue(ctx, store.Cue{UserID: sess.UserID, App: sess.App, Type: memory.CueRisk, Field: a.MessageID,
			Detail: detail, SessionID: sess.ID, CreatedAt: now}); err != nil {
			return err
		}
		if d.Queue == nil {
			d.countRisk(a)
			continue
		}
		if _, err := d.Queue.InsertTx(ctx, tx, a, nil); err != nil {
			return fmt.Errorf("enqueue risk cue: %w", err)
		}
	}
	return nil
}

// recordLowerings stores, inside the extraction transaction, each screen
// finding the model lowered (extract.CombineRisks): message id, classes,
// severities and frame, never the text. It returns those it recorded now
// (not those a re-run of the session had recorded before), to be counted
// once the transaction commits.
func recordLowerings(ctx context.Context, tx store.Tx, sess store.Session, lowered []extract.Lowering, now time.Time) ([]extract.Lowering, error) {
	var out []extract.Lowering
	for _, l := range lowered {
		ok, err := tx.InsertRiskLowering(ctx, store.RiskLowering{UserID: sess.UserID, App: sess.App, SessionID: sess.ID,
			MessageID: l.MessageID, FromClass: l.FromClass, FromSeverity: l.FromSeverity, ToClass: l.ToClass,
			ToSeverity: l.ToSeverity, Frame: l.Frame, CreatedAt: now})
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, l)
		}
	}
	return out, nil
}

func (d *Deps) countLowerings(app string, lowered []extract.Lowering) {
	m, ok := d.metrics().(LoweringMetrics)
	if !ok {
		return
	}
	for _, l := range lowered {
		m.RiskLowered(app, l.FromClass, l.FromSeverity, l.Frame)
	}
}

func (d *Deps) countRisk(a RiskCueArgs) {
	if m, ok := d.metrics().(RiskMetrics); ok {
		m.Risk(a.App, a.Class, a.Severity, riskSourceLabel(a.Source))
	}
}

// riskSourceLabel keeps the source label to the known sources: anything
// else (a job enqueued before sources were recorded) is "unknown".
func riskSourceLabel(source string) string {
	switch source {
	case extract.RiskSourceRules, extract.RiskSourceTrained, extract.RiskSourceModel:
		return source
	}
	return "unknown"
}

// webhookClient posts risk cues; a slow endpoint fails the attempt, which
// River retries with its backoff. It follows no redirect: a cue goes to the
// URL the operator set and nowhere else, and a redirect would re-post it
// with that URL (and any token in it) as the Referer.
var webhookClient = &http.Client{Timeout: 10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// RiskCueWorker counts a risk cue and posts it to the app's webhook.
type RiskCueWorker struct {
	river.WorkerDefaults[RiskCueArgs]
	deps *Deps
}

// NewRiskCueWorker returns the risk cue worker.
func NewRiskCueWorker(d *Deps) *RiskCueWorker { return &RiskCueWorker{deps: d} }

// Work counts the cue on its first attempt and posts it when the policy
// asks and the model did not lower it. A 4xx answer other than 408 and 429 is final; anything else that is
// not 2xx, a redirect included, is retried.
func (w *RiskCueWorker) Work(ctx context.Context, job *river.Job[RiskCueArgs]) error {
	d, a := w.deps, job.Args
	if job.Attempt == 1 {
		d.countRisk(a)
	}
	app := d.Apps[a.App]
	if app == nil || app.Policy.RiskWebhook == "" || a.Lowered != "" || !Alerting(a.Severity, a.Actor) {
		return nil
	}
	return postRisk(ctx, d, app, a)
}

// Alerting reports whether a risk of severity and actor is posted to a
// webhook: the user's own, medium or high. A denial ("I don't want to die")
// and someone else's words are visible on the session and counted, never
// posted.
func Alerting(severity, actor string) bool {
	return actor == extract.ActorUser && (severity == extract.SeverityHigh || severity == extract.SeverityMedium)
}

func postRisk(ctx context.Context, d *Deps, app *prompts.App, a RiskCueArgs) error {
	body, err := json.Marshal(RiskWebhookBody{UserID: a.UserID, SessionID: a.SessionID, App: a.App, Class: a.Class,
		Severity: a.Severity, MessageID: a.MessageID, At: a.At.UTC()})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, app.Policy.RiskWebhook, bytes.NewReader(body))
	if err != nil {
		return river.JobCancel(fmt.Errorf("risk webhook of %s: %w", a.App, err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mnemo-risk-webhook")
	resp, err := webhookClient.Do(req)
	if err != nil {
		// The error names the URL, which may carry a token: log the app only.
		d.log().WarnContext(ctx, "risk webhook unreachable; retrying", slog.String("app", a.App))
		return errors.New("risk webhook of " + a.App + " unreachable")
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		// Not followed: the operator sets the final URL (its Location is not
		// logged, as it may carry a token too).
		d.log().ErrorContext(ctx, "risk webhook redirected the cue, which is not followed; set the final URL", slog.String("app", a.App), slog.Int("status", resp.StatusCode))
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests:
		d.log().ErrorContext(ctx, "risk webhook refused the cue", slog.String("app", a.App), slog.Int("status", resp.StatusCode))
		return river.JobCancel(errors.New("risk webhook of " + a.App + " answered " + strconv.Itoa(resp.StatusCode)))
	}
	return errors.New("risk webhook of " + a.App + " answered " + strconv.Itoa(resp.StatusCode))
}
