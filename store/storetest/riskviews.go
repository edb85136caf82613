package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, riskViewCases...)
}

// riskCue stores a risk cue of user's session for message field, recorded
// at at, with detail's fields.
func riskCue(t *testing.T, s store.Store, app, user, session, field string, at time.Time, detail map[string]string) {
	t.Helper()
	raw, err := json.Marshal(detail)
	must(t, err)
	must(t, s.InsertCue(context.Background(), store.Cue{UserID: user, App: app, Type: store.CueRisk, Field: field, Detail: raw,
		SessionID: session, CreatedAt: at}))
}

// riskDetail is a risk cue's detail as the extraction job writes it.
func riskDetail(class, severity, source, actor, lowered string) map[string]string {
	d := map[string]string{"class": class, "severity": severity, "message_id": "m", "actor": actor, "source": source}
	if lowered != "" {
		d["lowered"] = lowered
	}
	return d
}

// riskViewCases cover the reads of the views' risk findings: a user's
// safety section and the operations page's counts and lowered findings.
var riskViewCases = []testCase{
	{"ViewUserRisksGroupsASessionsFindings", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		v := viewReader(t, s)
		none, err := v.ViewUserRisks(ctx, "u-1", 10)
		must(t, err)
		if none == nil || len(none) != 0 {
			t.Fatalf("no findings: %v; want an empty list", none)
		}
		viewSession(t, s, appA, "u-1", "s-1", T0)
		viewSession(t, s, appA, "u-1", "s-2", T0.Add(24*time.Hour))
		viewSession(t, s, appA, "u-2", "s-3", T0)
		// s-1: the same finding in three messages, one lowered, someone
		// else's words; s-2, later: one finding of a class, recorded
		// before sources and actors were (no such fields).
		for i := 1; i < 3; i++ {
			riskCue(t, s, appA, "u-1", "s-1", fmt.Sprintf("m-%d", i), T0.Add(time.Duration(i)*time.Second), riskDetail("suicidal", "high", "rules", "user", ""))
		}
		// The first of the three resolved.
		raw, err := json.Marshal(riskDetail("suicidal", "high", "rules", "user", ""))
		must(t, err)
		must(t, s.InsertCue(ctx, store.Cue{UserID: "u-1", App: appA, Type: store.CueRisk, Field: "m-0", Detail: raw, SessionID: "s-1",
			CreatedAt: T0, ResolvedAt: ptr(T0.Add(time.Hour))}))
		riskCue(t, s, appA, "u-1", "s-1", "m-4", T0, riskDetail("distress", "medium", "rules", "user", "fiction"))
		riskCue(t, s, appA, "u-1", "s-1", "m-5", T0, riskDetail("abuse", "low", "trained", "other", ""))
		riskCue(t, s, appA, "u-1", "s-2", "m-1", T0.Add(24*time.Hour), map[string]string{"class": "hopelessness", "severity": "medium"})
		// Not risk findings, or another user's.
		must(t, s.InsertCue(ctx, store.Cue{UserID: "u-1", App: appA, Type: "relapse", Field: "sobriety", Detail: json.RawMessage(`{"class":"x"}`),
			SessionID: "s-2", CreatedAt: T0.Add(48 * time.Hour)}))
		riskCue(t, s, appA, "u-2", "s-3", "m-1", T0.Add(72*time.Hour), riskDetail("suicidal", "high", "model", "user", ""))
		got, err := v.ViewUserRisks(ctx, "u-1", 10)
		must(t, err)
		want := []store.RiskGroup{
			{SessionID: "s-2", Class: "hopelessness", Severity: "medium", Findings: 1, Unresolved: 1, FirstAt: T0.Add(24 * time.Hour), LastAt: T0.Add(24 * time.Hour)},
			{SessionID: "s-1", Class: "suicidal", Severity: "high", Source: "rules", Actor: "user", Findings: 3, Unresolved: 2, FirstAt: T0, LastAt: T0.Add(2 * time.Second)},
			{SessionID: "s-1", Class: "abuse", Severity: "low", Source: "trained", Actor: "other", Findings: 1, Unresolved: 1, FirstAt: T0, LastAt: T0},
			{SessionID: "s-1", Class: "distress", Severity: "medium", Source: "rules", Actor: "user", Frame: "fiction", Findings: 1, Unresolved: 1, FirstAt: T0, LastAt: T0},
		}
		sameRiskGroups(t, got, want)
		top, err := v.ViewUserRisks(ctx, "u-1", 2)
		must(t, err)
		sameRiskGroups(t, top, want[:2])
		if _, err := v.ViewUserRisks(ctx, "u-1", 0); err == nil {
			t.Fatal("limit 0 accepted")
		}
	}},
	{"ViewRiskCountsByDayAndFinding", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		v := viewReader(t, s)
		viewSession(t, s, appA, "u-a", "s-a", T0)
		viewSession(t, s, appB, "u-b", "s-b", T0)
		// T0 is 2026-11-20 09:00 UTC.
		riskCue(t, s, appA, "u-a", "s-a", "m-1", T0, riskDetail("suicidal", "high", "rules", "user", ""))
		riskCue(t, s, appA, "u-a", "s-a", "m-2", T0.Add(time.Hour), riskDetail("suicidal", "high", "rules", "user", ""))
		riskCue(t, s, appA, "u-a", "s-a", "m-3", T0.Add(-9*time.Hour-1), riskDetail("suicidal", "high", "rules", "user", "")) // 19th, 23:59:59.999…
		riskCue(t, s, appA, "u-a", "s-a", "m-4", T0, riskDetail("distress", "medium", "model", "user", "hyperbole"))
		riskCue(t, s, appB, "u-b", "s-b", "m-1", T0, riskDetail("abuse", "medium", "trained", "other", ""))
		riskCue(t, s, appB, "u-b", "s-b", "m-2", T0.Add(-10*24*time.Hour), riskDetail("abuse", "medium", "trained", "user", "")) // outside
		riskCue(t, s, appB, "u-b", "s-b", "m-3", T0.Add(3*24*time.Hour), riskDetail("abuse", "medium", "trained", "user", ""))   // outside
		must(t, s.InsertCue(ctx, store.Cue{UserID: "u-a", App: appA, Type: "relapse", Field: "x", Detail: json.RawMessage(`{"class":"suicidal","severity":"high"}`),
			SessionID: "s-a", CreatedAt: T0}))

		got, err := v.ViewRiskCounts(ctx, T0.Add(-2*24*time.Hour), T0.Add(2*24*time.Hour))
		must(t, err)
		day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
		want := []store.RiskCount{
			{Day: day(19), App: appA, Class: "suicidal", Severity: "high", Actor: "user", Source: "rules", Count: 1},
			{Day: day(20), App: appA, Class: "distress", Severity: "medium", Actor: "user", Source: "model", Frame: "hyperbole", Count: 1},
			{Day: day(20), App: appA, Class: "suicidal", Severity: "high", Actor: "user", Source: "rules", Count: 2},
			{Day: day(20), App: appB, Class: "abuse", Severity: "medium", Actor: "other", Source: "trained", Count: 1},
		}
		if len(got) != len(want) {
			t.Fatalf("counts %+v; want %+v", got, want)
		}
		for i := range want {
			g := got[i]
			if !g.Day.Equal(want[i].Day) {
				t.Fatalf("count %d day %v; want %v", i, g.Day, want[i].Day)
			}
			g.Day = want[i].Day
			if g != want[i] {
				t.Fatalf("count %d = %+v; want %+v", i, g, want[i])
			}
		}
		empty, err := v.ViewRiskCounts(ctx, T0.Add(365*24*time.Hour), T0.Add(366*24*time.Hour))
		must(t, err)
		if empty == nil || len(empty) != 0 {
			t.Fatalf("a window without findings: %v; want an empty list", empty)
		}
	}},
	{"ViewRiskLoweringsNewestFirst", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		v := viewReader(t, s)
		viewSession(t, s, appA, "u-a", "s-a", T0)
		viewSession(t, s, appC, "u-c", "s-c", T0)
		low := func(id, app, user, session, msg string, at time.Time) {
			_, err := s.InsertRiskLowering(ctx, store.RiskLowering{ID: id, UserID: user, App: app, SessionID: session, MessageID: msg,
				FromClass: "suicidal", FromSeverity: "medium", ToClass: "none", Frame: "fiction", CreatedAt: at})
			must(t, err)
		}
		low("l-1", appA, "u-a", "s-a", "m-1", T0)
		low("l-2", appA, "u-a", "s-a", "m-2", T0.Add(time.Hour))
		low("l-3", appC, "u-c", "s-c", "m-1", T0.Add(2*time.Hour))
		low("l-4", appC, "u-c", "s-c", "m-2", T0.Add(-40*24*time.Hour)) // outside
		got, err := v.ViewRiskLowerings(ctx, T0.Add(-30*24*time.Hour), T0.Add(24*time.Hour), 10)
		must(t, err)
		var ids []string
		for _, l := range got {
			ids = append(ids, l.ID)
		}
		if strings.Join(ids, " ") != "l-3 l-2 l-1" {
			t.Fatalf("lowerings %v; want l-3 l-2 l-1 (newest first, the window only)", ids)
		}
		if l := got[0]; l.App != appC || l.SessionID != "s-c" || l.MessageID != "m-1" || l.FromClass != "suicidal" || l.FromSeverity != "medium" ||
			l.ToClass != "none" || l.ToSeverity != "" || l.Frame != "fiction" || !l.CreatedAt.Equal(T0.Add(2*time.Hour)) {
			t.Fatalf("lowering read back as %+v", l)
		}
		two, err := v.ViewRiskLowerings(ctx, T0.Add(-30*24*time.Hour), T0.Add(24*time.Hour), 2)
		must(t, err)
		if len(two) != 2 || two[0].ID != "l-3" {
			t.Fatalf("limit 2: %+v", two)
		}
		if _, err := v.ViewRiskLowerings(ctx, T0, T0.Add(time.Hour), -1); err == nil {
			t.Fatal("limit -1 accepted")
		}
	}},
}

func sameRiskGroups(t *testing.T, got, want []store.RiskGroup) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("groups %+v; want %+v", got, want)
	}
	for i := range want {
		g := got[i]
		if !g.FirstAt.Equal(want[i].FirstAt) || !g.LastAt.Equal(want[i].LastAt) {
			t.Fatalf("group %d recorded %v … %v; want %v … %v", i, g.FirstAt, g.LastAt, want[i].FirstAt, want[i].LastAt)
		}
		g.FirstAt, g.LastAt = want[i].FirstAt, want[i].LastAt
		if g != want[i] {
			t.Fatalf("group %d = %+v; want %+v (all: %+v)", i, g, want[i], got)
		}
	}
}
