package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
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

// RiskCueArgs is the job of one recorded risk cue: it counts the cue once.
// The alert a person gets is not the cue's: it is one RiskAlertArgs job per
// session and class (riskalert.go). It carries ids, class, severity,
// source and frame only: never text.
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
	// (extract.Lowering): the cue is counted, never alerted.
	Lowered string `json:"lowered,omitempty"`
	// SessionAlert is set in every cue job enqueued since alerts are one per
	// session and class: the job only counts. A job without it was queued by
	// an older worker, whose cue jobs posted the alert themselves: it hands
	// its alert to a RiskAlertArgs job (unique per session and class).
	SessionAlert bool `json:"session_alert,omitempty"`
}

// Kind is the River job kind.
func (RiskCueArgs) Kind() string { return "risk_cue" }

// InsertOpts: the default queue, unique per session and message.
func (RiskCueArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue.QueueDefault, MaxAttempts: 12, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// recordRisks stores a session's risks as cues inside the extraction
// transaction and enqueues a RiskCueArgs job for each in it, so that a cue
// is counted exactly when it is committed; when the app's alerts go
// somewhere (RiskAlerts), it enqueues in the same transaction one
// RiskAlertArgs job per class of the user's own medium and high findings
// (sessionAlerts). The findings the model lowered (docs/safety.md,
// "Sources and the policy") are stored too, as cues whose detail names the
// frame in "lowered", and counted, but never alerted. Each cue's detail
// holds the class, severity, message id, actor and source; never the
// text. With no queue (a test's Deps), the cues are counted at once and
// nothing is alerted.
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
		a.SessionAlert = true
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
	if d.Queue == nil || d.riskAlertTarget(sess.App).URL == "" {
		return nil
	}
	for _, a := range sessionAlerts(sess, in, risks) {
		if _, err := d.Queue.InsertTx(ctx, tx, a, nil); err != nil {
			return fmt.Errorf("enqueue risk alert: %w", err)
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

// RiskCueWorker counts a risk cue.
type RiskCueWorker struct {
	river.WorkerDefaults[RiskCueArgs]
	deps *Deps
}

// NewRiskCueWorker returns the risk cue worker.
func NewRiskCueWorker(d *Deps) *RiskCueWorker { return &RiskCueWorker{deps: d} }

// Work counts the cue on its first attempt. A cue job an older worker
// queued (without SessionAlert) that would have posted its alert enqueues
// the session's alert of its class instead, unique per session and class.
func (w *RiskCueWorker) Work(ctx context.Context, job *river.Job[RiskCueArgs]) error {
	d, a := w.deps, job.Args
	if job.Attempt == 1 {
		d.countRisk(a)
	}
	if a.SessionAlert || a.Lowered != "" || !Alerting(a.Severity, a.Actor) || d.Queue == nil || d.riskAlertTarget(a.App).URL == "" {
		return nil
	}
	_, err := d.Queue.Insert(ctx, queue.RiskAlertArgs{SessionID: a.SessionID, Class: a.Class, UserID: a.UserID, App: a.App,
		Severity: a.Severity, MessageID: a.MessageID, At: a.At, Findings: 1}, nil)
	return err
}

// Alerting reports whether a risk of severity and actor is alerted: the
// user's own, medium or high. A denial ("I don't want to die") and someone
// else's words are visible on the session and counted, never alerted.
func Alerting(severity, actor string) bool {
	return actor == extract.ActorUser && (severity == extract.SeverityHigh || severity == extract.SeverityMedium)
}
