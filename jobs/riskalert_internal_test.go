package jobs

import (
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
)

// sessionAlerts keeps, per class, the strongest of the user's own medium
// and high findings and its first message, whatever the order they come
// in; it never lowers (a medium after a high leaves the high) and leaves
// out denials and someone else's words.
func TestSessionAlertsTakeTheStrongest(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	in := extract.Session{EndedAt: t0.Add(time.Hour)}
	for i := 1; i <= 6; i++ {
		in.Messages = append(in.Messages, extract.Message{ID: "m" + string(rune('0'+i)), Role: "user", At: t0.Add(time.Duration(i) * time.Minute)})
	}
	risks := []extract.Risk{
		{MessageID: "m1", Class: extract.RiskSuicidal, Severity: extract.SeverityMedium, Actor: extract.ActorUser},
		{MessageID: "m2", Class: extract.RiskSuicidal, Severity: extract.SeverityLow, Actor: extract.ActorUser},
		{MessageID: "m3", Class: extract.RiskSuicidal, Severity: extract.SeverityHigh, Actor: extract.ActorUser},
		{MessageID: "m4", Class: extract.RiskSuicidal, Severity: extract.SeverityMedium, Actor: extract.ActorUser},
		{MessageID: "m5", Class: extract.RiskSuicidal, Severity: extract.SeverityHigh, Actor: extract.ActorUser},
		{MessageID: "m6", Class: extract.RiskDistress, Severity: extract.SeverityHigh, Actor: extract.ActorOther},
	}
	got := sessionAlerts(store.Session{ID: "s", UserID: "u", App: "mona"}, in, risks)
	if len(got) != 1 {
		t.Fatalf("alerts %+v; want one (someone else's distress does not alert)", got)
	}
	a := got[0]
	if a.Class != "suicidal" || a.Severity != "high" || a.MessageID != "m3" || a.Findings != 4 || !a.At.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("alert %+v; want suicidal, high, m3 at %v, 4 findings", a, t0.Add(3*time.Minute))
	}
}
