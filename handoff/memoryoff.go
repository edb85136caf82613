package handoff

import (
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
)

// screenMemoryOff is the risk screen of a session handed over while its
// user has memory off (docs/safety.md, "Memory off is not safety off").
// Its transcript is never stored, so the extraction cannot read it: the
// screen reads it here, before it is dropped, and what it found (class,
// severity, whose, who found it, the message id and time; never the words)
// travels in the extraction job, which records it as the session's risk
// cues, so that the alert and the pages see it. Nothing else of the
// session is read or kept. The screen is the rules' and the trained
// layer's (extract.Screen); a model's judgement needs the text, which is
// gone by the time a model could be asked.
func screenMemoryOff(app *prompts.App, sessionID string, req Request) []queue.RiskFinding {
	if app == nil || len(req.Messages) == 0 {
		return nil
	}
	s := extract.Session{ID: sessionID, UserID: req.UserID, App: req.App, StartedAt: req.StartedAt, EndedAt: req.EndedAt,
		Timezone: req.Timezone, Messages: req.Messages}
	res := extract.Result{App: app.Name, Memories: []extract.Memory{}, ProfileUpdates: map[string]any{},
		SessionSummary: map[string]any{}, Dropped: []extract.Dropped{}}
	if res.App == "" {
		res.App = req.App
	}
	extract.Screen(&res, app.Policy, s)
	if len(res.Risks) == 0 {
		return nil
	}
	at := make(map[string]time.Time, len(req.Messages))
	for _, m := range req.Messages {
		at[m.ID] = m.At
	}
	out := make([]queue.RiskFinding, 0, len(res.Risks))
	for _, r := range res.Risks {
		when := at[r.MessageID]
		if when.IsZero() {
			when = req.EndedAt
		}
		out = append(out, queue.RiskFinding{Class: r.Class, Severity: r.Severity, MessageID: r.MessageID, Actor: r.Actor,
			Source: r.Source, At: when.UTC()})
	}
	return out
}
