package queue

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// RiskAlertArgs is the job that alerts a person to one session's risk
// findings of one class: the user's own, medium or high, not lowered, of
// which it carries the strongest (Severity) and its first message. It is
// unique by session and class, so the extraction that enqueues it in its
// transaction, a re-run of it, and a session of a thousand identical
// crisis messages all give one alert. It carries ids, class and severity
// only: never text, never the URL or the secret (read when it runs).
// Package jobs works it (RiskAlertWorker); it lives here so that the views
// can list the failed ones (FailedRiskAlerts) without importing jobs.
type RiskAlertArgs struct {
	SessionID string    `json:"session_id" river:"unique"`
	Class     string    `json:"class" river:"unique"`
	UserID    string    `json:"user_id"`
	App       string    `json:"app"`
	Severity  string    `json:"severity"`
	MessageID string    `json:"message_id"`
	At        time.Time `json:"at"`
	// Findings is how many of the session's messages had a finding of the
	// class that alerts.
	Findings int `json:"findings"`
}

// Kind is the River job kind.
func (RiskAlertArgs) Kind() string { return "risk_alert" }

// RiskAlertMaxAttempts is how many times an alert is tried before it is
// discarded (dead-lettered): with River's backoff (attempt⁴ seconds) the
// last try is about 11 hours after the first.
const RiskAlertMaxAttempts = 12

// InsertOpts: the default queue, unique per session and class (in every
// state but cancelled and discarded: a failed alert may be enqueued again).
func (RiskAlertArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDefault, MaxAttempts: RiskAlertMaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// FailedRiskAlert is an alert that failed for good: discarded after its
// last attempt, or cancelled when the receiver refused it (a 4xx other than
// 408 and 429) or its app has no alert URL any more.
type FailedRiskAlert struct {
	JobID int64
	// State is "discarded" or "cancelled".
	State    string
	Args     RiskAlertArgs
	Attempts int
	// FailedAt is when it was given up; LastError the last attempt's error
	// (a status code or "unreachable"; never a URL or a secret).
	FailedAt  time.Time
	LastError string
}

// FailedRiskAlerts lists the alerts that failed for good, newest first, at
// most limit (0: 100). River keeps such jobs for its retention period
// (Config.FailedRetention); `worker jobs retry ID` sends one again.
func FailedRiskAlerts(ctx context.Context, q Queue, limit int) ([]FailedRiskAlert, error) {
	rows, err := q.List(ctx, ListFilter{Kinds: []string{RiskAlertArgs{}.Kind()},
		States: []rivertype.JobState{rivertype.JobStateDiscarded, rivertype.JobStateCancelled}, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]FailedRiskAlert, 0, len(rows))
	for _, r := range rows {
		f := FailedRiskAlert{JobID: r.ID, State: string(r.State), Attempts: r.Attempt}
		if err := json.Unmarshal(r.EncodedArgs, &f.Args); err != nil {
			continue // not an alert this worker wrote
		}
		if r.FinalizedAt != nil {
			f.FailedAt = r.FinalizedAt.UTC()
		}
		if n := len(r.Errors); n > 0 {
			f.LastError = strings.TrimPrefix(r.Errors[n-1].Error, "JobCancelError: ")
		}
		out = append(out, f)
	}
	return out, nil
}

// RiskAlertKey names one alert: a session and a risk class.
type RiskAlertKey struct{ SessionID, Class string }

// RiskAlertStates reads the state of the risk_alert job of each session
// and class among sessions, in one query: the newest job of a key (a
// failed alert enqueued again has two). A key without a job is absent.
// It reads states, ids and args (ids and class only), never any text.
// limit bounds the jobs read (0: 100), newest first.
func RiskAlertStates(ctx context.Context, q Queue, sessions []string, limit int) (map[RiskAlertKey]rivertype.JobState, error) {
	out := map[RiskAlertKey]rivertype.JobState{}
	if len(sessions) == 0 {
		return out, nil
	}
	rows, err := q.List(ctx, ListFilter{Kinds: []string{RiskAlertArgs{}.Kind()}, ArgIn: &ArgIn{Field: "session_id", Values: sessions}, Limit: limit})
	if err != nil {
		return nil, err
	}
	for _, r := range rows { // newest first
		var a RiskAlertArgs
		if err := json.Unmarshal(r.EncodedArgs, &a); err != nil {
			continue // not an alert this worker wrote
		}
		k := RiskAlertKey{a.SessionID, a.Class}
		if _, ok := out[k]; !ok {
			out[k] = r.State
		}
	}
	return out, nil
}
