package views

import (
	"context"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo/queue"
)

// opsFailedAlertsShown is the most failed alerts the operations page lists.
const opsFailedAlertsShown = 50

// opsFailedAlerts lists the risk alerts that failed for good (River's
// discarded and cancelled risk_alert jobs, queue.FailedRiskAlerts), newest
// first: a person was not told of a crisis, so the operator should be.
func (h *Handler) opsFailedAlerts(ctx context.Context) (Section, error) {
	sec := Section{ID: "failed-alerts", Title: "Failed risk alerts", Attr: "ops-failed-alerts",
		Intro: "Risk alerts that never reached their receiver: discarded after their last attempt, or refused by it (a 4xx). Send one again with worker jobs retry ID once the receiver is fixed."}
	if h.cfg.Queue == nil {
		sec.Empty = "No job queue in this process."
		return sec, nil
	}
	failed, err := queue.FailedRiskAlerts(ctx, h.cfg.Queue, opsFailedAlertsShown)
	if err != nil {
		return sec, err
	}
	sec.Facts = []Fact{{Label: "Failed alerts", Value: strconv.Itoa(len(failed)), Note: "kept 30 days"}}
	t := VTable{Caption: "Failed risk alerts", Head: []string{"Job", "Failed", "App", "Session", "Class", "Severity", "Attempts", "Last error"},
		Empty: "None: every risk alert was delivered or is still being tried."}
	for _, f := range failed {
		t.Rows = append(t.Rows, []string{strconv.FormatInt(f.JobID, 10), TimeIn(f.FailedAt, time.UTC), f.Args.App, f.Args.SessionID,
			f.Args.Class, f.Args.Severity, strconv.Itoa(f.Attempts), OrDash(f.LastError)})
		if h.cfg.UIPrefix != "" {
			t.RowLinks = append(t.RowLinks, h.cfg.UIPrefix+"/jobs/"+strconv.FormatInt(f.JobID, 10))
		}
	}
	sec.Tables = []VTable{t}
	if len(failed) > 0 {
		sec.Notice = strconv.Itoa(len(failed)) + " risk alert(s) failed for good: the people they were for were not told."
	}
	return sec, nil
}
