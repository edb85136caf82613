package views_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
	"github.com/mnemo-ai/mnemo/views"
)

// safetyWorld is a store with users of every app and their risk findings,
// written as the extraction job writes them, and the views over it.
type safetyWorld struct {
	st  store.Store
	q   queue.Queue
	h   *views.Handler
	now time.Time
}

func newSafetyWorld(t *testing.T, b storetest.Backend) *safetyWorld {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	w := &safetyWorld{st: b.Open(t), now: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)}
	if _, err := queue.MigrateRiver(context.Background(), w.st); err != nil {
		t.Fatal(err)
	}
	if w.q, err = queue.New(w.st, queue.Config{}); err != nil { // insert-only: it works no job
		t.Fatal(err)
	}
	w.h, err = views.New(views.Config{Store: w.st, Apps: apps, Queue: w.q, Now: func() time.Time { return w.now }})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// session stores a user of app and a session of theirs that ended daysAgo.
func (w *safetyWorld) session(t *testing.T, app, user, id string, daysAgo float64) {
	t.Helper()
	ctx := context.Background()
	end := w.now.Add(-time.Duration(daysAgo * float64(24*time.Hour)))
	if err := w.st.UpsertUser(ctx, store.User{ID: user, App: app, Timezone: "Europe/Berlin", CreatedAt: end, UpdatedAt: end}); err != nil {
		t.Fatal(err)
	}
	if err := w.st.CreateSession(ctx, store.Session{ID: id, UserID: user, App: app, Status: store.StatusProcessed, StartedAt: end.Add(-20 * time.Minute),
		EndedAt: end, Timezone: "Europe/Berlin", BodySHA256: "x", ClosedAt: &end, UpdatedAt: end}); err != nil {
		t.Fatal(err)
	}
}

// finding stores a risk finding of a session's message as the extraction
// job does, recorded daysAgo; a "text" field holding the secret stands for
// words that must never reach a page, however a cue came to hold them.
func (w *safetyWorld) finding(t *testing.T, app, user, session, msg string, daysAgo float64, class, severity, source, actor, lowered string) {
	t.Helper()
	d := map[string]string{"class": class, "severity": severity, "message_id": msg, "actor": actor, "source": source, "text": secret}
	if lowered != "" {
		d["lowered"] = lowered
	}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	at := w.now.Add(-time.Duration(daysAgo * float64(24*time.Hour)))
	if err := w.st.InsertCue(context.Background(), store.Cue{UserID: user, App: app, Type: memory.CueRisk, Field: msg, Detail: raw,
		SessionID: session, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if lowered != "" {
		if _, err := w.st.InsertRiskLowering(context.Background(), store.RiskLowering{UserID: user, App: app, SessionID: session, MessageID: msg,
			FromClass: class, FromSeverity: severity, ToClass: extract.RiskNone, Frame: lowered, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
}

// alert enqueues the risk alert of a session and class, as the extraction
// job does when alerts are on for the app, and puts it in state, as the
// worker would have (sent, retried, given up).
func (w *safetyWorld) alert(t *testing.T, app, user, session, class string, state rivertype.JobState) {
	t.Helper()
	ctx := context.Background()
	ins, err := w.q.Insert(ctx, queue.RiskAlertArgs{SessionID: session, Class: class, UserID: user, App: app, Severity: extract.SeverityHigh,
		MessageID: "m1", At: w.now, Findings: 1}, nil)
	if err != nil || ins.Duplicate {
		t.Fatalf("enqueue the alert of %s %s: %v (duplicate %v)", session, class, err, ins.Duplicate)
	}
	finalized := "NULL"
	switch state {
	case rivertype.JobStateCompleted, rivertype.JobStateDiscarded, rivertype.JobStateCancelled:
		finalized = "CURRENT_TIMESTAMP"
	}
	q := fmt.Sprintf("UPDATE river_job SET state = '%s', finalized_at = %s WHERE id = %d", state, finalized, ins.ID)
	switch db := w.st.Raw().(type) {
	case *pgxpool.Pool:
		_, err = db.Exec(ctx, q)
	case *sql.DB:
		_, err = db.ExecContext(ctx, q)
	default:
		err = fmt.Errorf("store %T", db)
	}
	if err != nil {
		t.Fatalf("put the alert of %s %s in %s: %v", session, class, state, err)
	}
}

// get renders a page for viewer v; it must answer 200.
func (w *safetyWorld) get(t *testing.T, path string, v views.Viewer) string {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req = req.WithContext(views.WithViewer(req.Context(), v))
	rec := httptest.NewRecorder()
	w.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d: %s", path, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

var sectionRE = regexp.MustCompile(`<section id="([^"]+)"`)

// sectionIDs lists a page's sections in order.
func sectionIDs(body string) []string {
	var ids []string
	for _, m := range sectionRE.FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// sectionOf is the HTML of the section with id.
func sectionOf(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `<section id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no section %s in the page", id)
	}
	j := strings.Index(body[i:], "</section>")
	return body[i : i+j]
}

// rowsOf are the rows of a section's tables, each cell's text joined by " | ".
func rowsOf(html string) []string {
	var out []string
	for _, tr := range regexp.MustCompile(`(?s)<tbody>(.*?)</tbody>`).FindAllStringSubmatch(html, -1) {
		for _, row := range regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(tr[1], -1) {
			var cells []string
			for _, c := range regexp.MustCompile(`(?s)<td>(.*?)</td>`).FindAllStringSubmatch(row[1], -1) {
				cells = append(cells, regexp.MustCompile(`<[^>]+>`).ReplaceAllString(c[1], ""))
			}
			out = append(out, strings.Join(cells, " | "))
		}
	}
	return out
}

// TestSafetySection: every app's user page shows the user's risk findings
// (date, risk in plain words, severity, source, its alert sent, pending,
// failed or off for the app as its job's state says, or lowered with the
// frame; never the words), newest first, first on the page when one is of
// the last 30 days and last otherwise; the caregiver's page always has
// them and the concerns at the top; the operations page counts them by
// app, class and severity over 7 and 30 days and lists the lowered ones
// with their sessions. On both databases.
func TestSafetySection(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			w := newSafetyWorld(t, b)
			open := views.Viewer{Open: true}
			admin := views.Viewer{Scope: views.ScopeAdmin}

			// Recent: a crisis said in three messages, a lowered finding, an
			// older one 40 days ago.
			w.session(t, "mona", "mona-ann", "mona-old", 40)
			w.session(t, "mona", "mona-ann", "mona-new", 2)
			w.finding(t, "mona", "mona-ann", "mona-old", "m1", 40, extract.RiskDistress, extract.SeverityMedium, extract.RiskSourceRules, extract.ActorUser, "")
			for _, m := range []string{"m1", "m2", "m3"} {
				w.finding(t, "mona", "mona-ann", "mona-new", m, 2, extract.RiskSuicidal, extract.SeverityHigh, extract.RiskSourceRules, extract.ActorUser, "")
			}
			w.finding(t, "mona", "mona-ann", "mona-new", "m4", 2, extract.RiskSelfHarm, extract.SeverityMedium, extract.RiskSourceModel, extract.ActorUser, extract.FrameFiction)
			w.finding(t, "mona", "mona-ann", "mona-new", "m5", 2, extract.RiskAbuse, extract.SeverityLow, extract.RiskSourceTrained, extract.ActorOther, "")
			// Only old findings, or none.
			w.session(t, "eldertree", "et-old", "et-s1", 45)
			w.finding(t, "eldertree", "et-old", "et-s1", "m1", 45, extract.RiskSubstance, extract.SeverityHigh, extract.RiskSourceTrained, extract.ActorUser, "")
			w.session(t, "lara", "lara-none", "lara-s1", 1)
			w.session(t, "coach", "coach-lowered", "coach-s1", 6)
			w.finding(t, "coach", "coach-lowered", "coach-s1", "m2", 6, extract.RiskHopelessness, extract.SeverityMedium, extract.RiskSourceRules, extract.ActorUser, extract.FrameHyperbole)
			// The caregiver's page: safety and concerns at the top, recent or not.
			w.session(t, "clara", "clara-ida", "clara-s1", 3)
			w.finding(t, "clara", "clara-ida", "clara-s1", "m1", 3, extract.RiskSuicidal, extract.SeverityHigh, extract.RiskSourceRules, extract.ActorUser, "")
			w.session(t, "clara", "clara-old", "clara-s2", 50)
			w.finding(t, "clara", "clara-old", "clara-s2", "m1", 50, extract.RiskDistress, extract.SeverityMedium, extract.RiskSourceRules, extract.ActorUser, "")
			// The alerts, as the worker left them: mona-new's suicidal one
			// failed, was enqueued again and sent (the newest job counts);
			// mona-old's is being retried; clara-old's was refused; none
			// for clara-ida (alerts off for the app) or et-old (older than
			// the jobs are kept). Another user's alert is not read.
			w.alert(t, "mona", "mona-ann", "mona-new", extract.RiskSuicidal, rivertype.JobStateDiscarded)
			w.alert(t, "mona", "mona-ann", "mona-new", extract.RiskSuicidal, rivertype.JobStateCompleted)
			w.alert(t, "mona", "mona-ann", "mona-old", extract.RiskDistress, rivertype.JobStateRetryable)
			w.alert(t, "clara", "clara-old", "clara-s2", extract.RiskDistress, rivertype.JobStateCancelled)
			w.alert(t, "mona", "mona-bob", "mona-bob-s1", extract.RiskSuicidal, rivertype.JobStateDiscarded)

			pages := map[string]string{}

			body := w.get(t, "/views/users/mona-ann", admin)
			pages["mona-ann"] = body
			if ids := sectionIDs(body); len(ids) < 2 || ids[0] != views.SafetyID {
				t.Errorf("mona-ann: sections %v; want the safety section first (a finding 2 days ago)", ids)
			}
			sec := sectionOf(t, body, views.SafetyID)
			wantText(t, "mona-ann", sec, `data-section="safety recent"`, "Risk findings in the last 30 days: the latest on Sat 5 Dec 2026 (Suicidal thoughts or plans, high severity).",
				"Findings in the last 30 days</dt><dd>5", "Alerting</dt><dd>3", "Lowered by a model</dt><dd>1")
			rows := rowsOf(sec)
			want := []string{
				"Sat 5 Dec 2026 13:00 | Suicidal thoughts or plans | High | rules | Alert sent | 3 | mona-new",
				"Sat 5 Dec 2026 13:00 | Self-harm | Medium | model | Lowered by a model: fiction or a story (fiction) | 1 | mona-new",
				"Sat 5 Dec 2026 13:00 | Abuse or threats by someone | Low | trained layer | Not alerted: someone else&#39;s words, reported | 1 | mona-new",
				"Wed 28 Oct 2026 13:00 | Severe distress | Medium | rules | Alert pending | 1 | mona-old",
			}
			if strings.Join(rows, "\n") != strings.Join(want, "\n") {
				t.Errorf("mona-ann's findings:\n%s\nwant, newest first, a session's alike findings on one line:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
			}

			body = w.get(t, "/views/users/et-old", admin)
			pages["et-old"] = body
			ids := sectionIDs(body)
			if len(ids) < 2 || ids[len(ids)-1] != views.SafetyID {
				t.Errorf("et-old: sections %v; want the safety section last (its one finding is 45 days old)", ids)
			}
			sec = sectionOf(t, body, views.SafetyID)
			wantText(t, "et-old", sec, `data-section="safety"`, "A substance crisis", "Findings in the last 30 days</dt><dd>0",
				"Alert not known: alert jobs are kept 30 days")
			if strings.Contains(sec, `class="notice"`) {
				t.Errorf("et-old: a notice for a finding 45 days old")
			}

			body = w.get(t, "/views/users/lara-none", admin)
			pages["lara-none"] = body
			ids = sectionIDs(body)
			if len(ids) < 2 || ids[len(ids)-1] != views.SafetyID {
				t.Errorf("lara-none: sections %v; want the safety section last", ids)
			}
			wantText(t, "lara-none", sectionOf(t, body, views.SafetyID), "No risk finding in this user&#39;s sessions.")

			body = w.get(t, "/views/users/coach-lowered", admin)
			pages["coach-lowered"] = body
			if ids := sectionIDs(body); ids[0] != views.SafetyID {
				t.Errorf("coach-lowered: sections %v; want the safety section first (a lowered finding is a finding)", ids)
			}
			wantText(t, "coach-lowered", sectionOf(t, body, views.SafetyID), "Hopelessness", "Lowered by a model: a figure of speech (hyperbole)", "Alerting</dt><dd>0")

			for _, user := range []string{"clara-ida", "clara-old"} {
				body = w.get(t, "/views/users/"+user, views.Viewer{Scope: views.ScopeCaregiver, App: "clara"})
				pages[user] = body
				if ids := sectionIDs(body); len(ids) < 3 || ids[0] != views.SafetyID || ids[1] != "concerns" {
					t.Errorf("%s: sections %v; want safety, then concerns, at the top", user, ids)
				}
			}
			wantText(t, "clara-ida", sectionOf(t, pages["clara-ida"], views.SafetyID), "Suicidal thoughts or plans", "No alert: alerts are off for this app")
			wantText(t, "clara-old", sectionOf(t, pages["clara-old"], views.SafetyID), "Severe distress", `data-section="safety"`, "Alert failed")

			// The operations page: by app, class and severity, 7 and 30 days.
			body = w.get(t, "/views/operations", open)
			pages["operations"] = body
			sec = sectionOf(t, body, "risk")
			rows = rowsOf(sec)
			wantRows := []string{
				"clara | Suicidal thoughts or plans (suicidal) | High | 1 | 1 | 1 | 0",
				"coach | Hopelessness (hopelessness) | Medium | 1 | 1 | 0 | 1",
				"mona | Suicidal thoughts or plans (suicidal) | High | 3 | 3 | 3 | 0",
				"mona | Self-harm (self_harm) | Medium | 1 | 1 | 0 | 1",
				"mona | Abuse or threats by someone (abuse) | Low | 1 | 1 | 0 | 0",
				// The lowered findings, newest first, with their sessions.
				"Sat 5 Dec 2026 12:00 | mona | mona-new | m4 | Self-harm, medium | not a risk | fiction or a story (fiction)",
				"Tue 1 Dec 2026 12:00 | coach | coach-s1 | m2 | Hopelessness, medium | not a risk | a figure of speech (hyperbole)",
			}
			if strings.Join(rows, "\n") != strings.Join(wantRows, "\n") {
				t.Errorf("operations' risk findings:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(wantRows, "\n"))
			}
			wantText(t, "operations", sec, "Last 7 days</dt><dd>7", "Last 30 days</dt><dd>7", "Alerting, 30 days</dt><dd>4", "Lowered, 30 days</dt><dd>2",
				"2 findings were lowered by a model in the last 30 days")
			// A week on, the findings of 2, 3 and 6 days ago leave the 7 days, not the 30.
			w.now = w.now.Add(7 * 24 * time.Hour)
			sec = sectionOf(t, w.get(t, "/views/operations", open), "risk")
			wantText(t, "operations a week on", sec, "Last 7 days</dt><dd>0", "Last 30 days</dt><dd>7")
			w.now = w.now.Add(-7 * 24 * time.Hour)

			for name, p := range pages {
				if strings.Contains(p, secret) {
					t.Errorf("%s shows words of a message (%q)", name, secret)
				}
			}
		})
	}
}

// TestSafetyAlertingIsTheJobsRule: what the pages call alerted is what the
// risk alert job alerts (a finding not lowered).
func TestSafetyAlertingIsTheJobsRule(t *testing.T) {
	t.Parallel()
	for _, sev := range []string{extract.SeverityHigh, extract.SeverityMedium, extract.SeverityLow, ""} {
		for _, actor := range []string{extract.ActorUser, extract.ActorOther, ""} {
			if got, want := views.RiskAlerting(sev, actor), jobs.Alerting(sev, actor); got != want {
				t.Errorf("severity %q actor %q: the pages say alerted %v, the job %v", sev, actor, got, want)
			}
		}
	}
	if memory.CueRisk != store.CueRisk {
		t.Errorf("memory.CueRisk %q, store.CueRisk %q: the views would read no finding", memory.CueRisk, store.CueRisk)
	}
}

// TestSafetyBadInput: a page for a user that does not exist is a clear 404.
func TestSafetyBadInput(t *testing.T) {
	t.Parallel()
	w := newSafetyWorld(t, storetest.Backends(t)[0])
	req := httptest.NewRequest("GET", "/views/users/nobody", nil)
	req = req.WithContext(views.WithViewer(req.Context(), views.Viewer{Open: true}))
	rec := httptest.NewRecorder()
	w.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "There is no such user.") {
		t.Errorf("GET a user that does not exist = %d %s", rec.Code, rec.Body)
	}
}
