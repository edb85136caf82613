package views_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/internal/workerviews"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
	"github.com/mnemo-ai/mnemo/views"
)

// TestViews seeds a worker on each database through the API, the
// extraction jobs and the batches, then checks who may see which page,
// what the pages show, that no page shows what was said, and (browser.go)
// that headless Chromium renders every page without a console error.
func TestViews(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, b, allTokens())
			f.seed(t)
			t.Run("Access", func(t *testing.T) { testAccess(t, f) })
			t.Run("Pages", func(t *testing.T) { testPages(t, f) })
			t.Run("Browser", func(t *testing.T) { testBrowser(t, f, b.Name) })
		})
	}
}

func testAccess(t *testing.T, f *fixture) {
	cases := []struct {
		path, auth string
		want       int
	}{
		{"/views/", "", 401},
		{"/views/", "Bearer not-a-token-0123456789", 401},
		{"/views/static/views.css", "", 200},
		{"/views/", "Bearer " + adminToken, 200},
		{"/views/operations", "Bearer " + adminToken, 200},
		{"/views/operations", basic(adminToken), 200},
		{"/views/operations", "Bearer " + monaToken, 403},
		{"/views/operations", "Bearer " + caregiverToken, 403},
		{"/views/operations", "Bearer " + serviceToken, 403},
		{"/views/insights", "Bearer " + adminToken, 200},
		{"/views/insights", "Bearer " + elderToken, 403},
		{"/views/insights", basic(caregiverToken), 403},
		// Clara's pages: the caregiver only.
		{"/views/users/clara-rose", "Bearer " + caregiverToken, 200},
		{"/views/users/clara-rose", basic(caregiverToken), 200},
		{"/views/users/clara-rose", "Bearer " + adminToken, 403},
		{"/views/users/clara-rose", "Bearer " + claraToken, 403},
		{"/views/users/clara-rose", "Bearer " + serviceToken, 403},
		{"/views/users/clara-rose", "Bearer " + monaToken, 404},
		{"/views/users/clara-rose", "Bearer " + laraCareToken, 404},
		// Other apps: admin, or a token bound to the user's app.
		{"/views/users/mona-peggy", "Bearer " + adminToken, 200},
		{"/views/users/mona-peggy", basic(monaToken), 200},
		{"/views/users/mona-peggy", "Bearer " + elderToken, 404},
		{"/views/users/mona-peggy", "Bearer " + caregiverToken, 404},
		{"/views/users/mona-peggy", "Bearer " + serviceToken, 403},
		{"/views/users/lara-leo", "Bearer " + laraCareToken, 403},
		{"/views/users/lara-leo", "Bearer " + adminToken, 200},
		{"/views/users/et-1", "Bearer " + elderToken, 200},
		{"/views/users/coach-ana", "Bearer " + adminToken, 200},
		{"/views/users/nobody", "Bearer " + adminToken, 404},
		{"/views/users?id=mona-peggy", "Bearer " + adminToken, 303},
		{"/views/nowhere", "Bearer " + adminToken, 404},
		// A caregiver token reaches nothing but its views.
		{"/v1/users/clara-rose/trends", "Bearer " + caregiverToken, 403},
		{"/v1/users/clara-rose/memories", "Bearer " + caregiverToken, 403},
		{"/v1/admin/insights?app=eldertree&week_ending=" + f.weeks[0], "Bearer " + caregiverToken, 403},
	}
	for _, c := range cases {
		rec := call(f.srv, "GET", c.path, c.auth, "")
		if rec.Code != c.want {
			t.Errorf("GET %s with %.24q = %d; want %d", c.path, c.auth, rec.Code, c.want)
			continue
		}
		if strings.HasPrefix(c.path, "/views/") && !strings.HasPrefix(c.path, "/views/static/") {
			if ct := rec.Header().Get("Content-Type"); c.want != 303 && !strings.HasPrefix(ct, "text/html") {
				t.Errorf("GET %s: Content-Type %q; want an HTML page, errors too", c.path, ct)
			}
			if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("GET %s: CSP %q", c.path, csp)
			}
		}
		if c.want == 401 && !strings.Contains(strings.Join(rec.Header().Values("WWW-Authenticate"), ","), "Basic") {
			t.Errorf("GET %s: a 401 without a Basic challenge: a browser would not ask for the token", c.path)
		}
		if c.want == 200 && strings.HasPrefix(c.path, "/views/users/") && rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: Cache-Control %q; a user's page must not be cached", c.path, rec.Header().Get("Cache-Control"))
		}
	}
	if rec := call(f.srv, "POST", "/views/operations", "Bearer "+adminToken, ""); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /views/operations = %d; want 405", rec.Code)
	}
	open := api.New(api.Config{Ready: func(context.Context) error { return nil }})
	open.MountViews(workerviews.Config(f.deps))
	req := httptest.NewRequest("GET", "/views/users/clara-rose", nil)
	req.Host = "localhost:8080"
	rec := httptest.NewRecorder()
	open.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("open mode (no tokens, loopback): Clara's page = %d; want 200", rec.Code)
	}
}

// page gets a page that must answer 200.
func page(t *testing.T, f *fixture, path, token string) string {
	t.Helper()
	rec := call(f.srv, "GET", path, "Bearer "+token, "")
	if rec.Code != 200 {
		t.Fatalf("GET %s = %d: %s", path, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

var (
	pointRE = regexp.MustCompile(`<(?:circle|rect) data-point data-series="[^"]*" data-x="[^"]*" data-y="([^"]*)"`)
	figRE   = regexp.MustCompile(`(?s)<figure [^>]*data-chart="([^"]+)">(.*?)</figure>`)
)

// charts reads every chart of a page: its data points' y values by chart id.
func charts(body string) map[string][]float64 {
	out := map[string][]float64{}
	for _, m := range figRE.FindAllStringSubmatch(body, -1) {
		ys := []float64{}
		for _, p := range pointRE.FindAllStringSubmatch(m[2], -1) {
			v, _ := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSuffix(p[1], "%"), "$"), 64)
			ys = append(ys, v)
		}
		out[m[1]] = ys
	}
	return out
}

func sum(ys []float64) float64 {
	s := 0.0
	for _, y := range ys {
		s += y
	}
	return s
}

func wantPoints(t *testing.T, path string, cs map[string][]float64, id string, n int) {
	t.Helper()
	ys, ok := cs[id]
	if !ok {
		t.Errorf("%s: no chart %s", path, id)
		return
	}
	if len(ys) != n {
		t.Errorf("%s: chart %s has %d data points; want %d", path, id, len(ys), n)
	}
}

func wantText(t *testing.T, path, body string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(body, s) {
			t.Errorf("%s lacks %q", path, s)
		}
	}
}

func testPages(t *testing.T, f *fixture) {
	pages := map[string]string{}
	get := func(path, token string) (string, map[string][]float64) {
		body := page(t, f, path, token)
		pages[path] = body
		return body, charts(body)
	}

	// Clara: the caregiver's view, in Rose's zone.
	path := "/views/users/clara-rose"
	body, cs := get(path, caregiverToken)
	readings, sessions := f.emotionsSince("clara-rose", f.now.Add(-30*24*time.Hour))
	if readings != 18 || sessions != 6 {
		t.Fatalf("fixture: %d readings in %d sessions", readings, sessions)
	}
	wantPoints(t, path, cs, "clara-30-days", readings)
	for i := 1; i <= 5; i++ {
		wantPoints(t, path, cs, "clara-session-"+strconv.Itoa(i), 3)
	}
	if _, ok := cs["clara-session-6"]; ok {
		t.Errorf("%s: more than five session timelines", path)
	}
	wantPoints(t, path, cs, "clara-morning-evening", 3)
	wantPoints(t, path, cs, "clara-narratives", 3)
	wantPoints(t, path, cs, "clara-question-types", 2)
	wantText(t, path, body, "Times are shown in Europe/London", "calming_story", "Chronic repetition", `data-kind="clara"`)

	// Elder Tree: et-1's four weeks.
	path = "/views/users/et-1"
	body, cs = get(path, elderToken)
	wantPoints(t, path, cs, "eldertree-intensity", 4)
	if ys := cs["eldertree-intensity"]; len(ys) == 4 && (ys[0] != 8 || ys[3] != 4) {
		t.Errorf("%s: intensities %v; want 8 (oldest) … 4 (newest)", path, ys)
	}
	wantPoints(t, path, cs, "eldertree-streak", 4)
	wantText(t, path, body, "late_night_phone", "called_sponsor", "Relapse", "America/Chicago")

	// LaRa.
	path = "/views/users/lara-leo"
	body, cs = get(path, adminToken)
	wantPoints(t, path, cs, "lara-mastery", 2)
	wantPoints(t, path, cs, "lara-progress", 6) // two topics in three sessions
	wantText(t, path, body, "dinosaurs", "Frustration moments", "praise")
	if strings.Contains(body, "is anxious") || strings.Contains(body, "is frustrated") {
		t.Errorf("%s labels the child", path)
	}

	// Coach: sealed summaries and profile, opened for the page.
	path = "/views/users/coach-ana"
	body, cs = get(path, adminToken)
	wantPoints(t, path, cs, "coach-sessions", 6)
	wantText(t, path, body, "Lead my team with more confidence", "Ask for feedback every Friday", "<h1>Ana · coach</h1>")
	if strings.Contains(body, "sealed:v1") {
		t.Errorf("%s shows a sealed value", path)
	}

	// Safety: a crisis a day ago puts the safety section first; a user
	// without a finding has it last, saying so.
	path = "/views/users/coach-risk"
	body, _ = get(path, adminToken)
	if ids := sectionIDs(body); len(ids) < 2 || ids[0] != views.SafetyID {
		t.Errorf("%s: sections %v; want the safety section first", path, ids)
	}
	wantText(t, path, sectionOf(t, body, views.SafetyID), `data-section="safety recent"`, "Suicidal thoughts or plans", "High", "rules", "No alert: alerts are off for this app", "coach-risk-1")
	path = "/views/users/coach-ana"
	if ids := sectionIDs(pages[path]); len(ids) == 0 || ids[len(ids)-1] != views.SafetyID {
		t.Errorf("%s: sections %v; want the safety section last", path, ids)
	}
	wantText(t, path, sectionOf(t, pages[path], views.SafetyID), "No risk finding in this user&#39;s sessions.")

	// Mona: every value but the forgotten, with its history.
	path = "/views/users/mona-peggy"
	body, cs = get(path, monaToken)
	mems, err := f.st.ListMemories(context.Background(), "mona-peggy", store.MemoryFilter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) < 4 {
		t.Fatalf("fixture: Peggy has %d memories", len(mems))
	}
	wantPoints(t, path, cs, "mona-timeline", len(mems))
	wantText(t, path, body, "sushi", "ramen (deprecated", "Biscuit", "Times are shown in Europe/Berlin")

	// Insights: the newest week has k users, the others are suppressed.
	path = "/views/insights"
	body, cs = get(path, adminToken)
	wantText(t, path, body, `data-section="insights-eldertree"`, "Active users", "late_night_phone")
	if strings.Contains(body, `data-section="insights-eldertree suppressed"`) {
		t.Errorf("%s: the newest week (%d users) is shown suppressed", path, insightsK)
	}
	wantPoints(t, path, cs, "insights-history-eldertree", 2) // users and sessions of the one week shown
	if n := strings.Count(body, "suppressed (fewer than 3 users)"); n != 3 {
		t.Errorf("%s: %d suppressed weeks in the history table; want 3", path, n)
	}
	path = "/views/insights?week_ending=" + f.weeks[1]
	body, _ = get(path, adminToken)
	wantText(t, path, body, `data-section="insights-eldertree suppressed"`, "Suppressed: fewer than 3 users")
	if strings.Contains(body, "late_night_phone") {
		t.Errorf("%s: a suppressed week shows a trigger", path)
	}

	// Operations: counts match what was handed over.
	path = "/views/operations"
	body, cs = get(path, adminToken)
	hourEnd := f.now.Truncate(time.Hour).Add(time.Hour)
	if got, want := sum(cs["ops-sessions-hour"]), f.endedIn(hourEnd.Add(-48*time.Hour), hourEnd); int(got) != want {
		t.Errorf("%s: %v sessions in the hour chart; want %d", path, got, want)
	}
	dayEnd := time.Date(f.now.Year(), f.now.Month(), f.now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	if got, want := sum(cs["ops-sessions-day"]), f.endedIn(dayEnd.AddDate(0, 0, -30), dayEnd); int(got) != want {
		t.Errorf("%s: %v sessions in the day chart; want %d", path, got, want)
	}
	wantPoints(t, path, cs, "ops-sessions-day", 30)
	wantPoints(t, path, cs, "ops-extraction", 3*14)
	if got, want := sum(cs["ops-extraction"]), len(f.sessions)-f.waiting; int(got) != want {
		t.Errorf("%s: %v extractions charted; want %d", path, got, want)
	}
	if m := regexp.MustCompile(`<td><a href="/ui/queues/extract">extract</a></td><td>(\d+)</td><td>0</td><td>no</td><td>(\d+ s|\d+ min)[^<]*, extract\)</td>`).FindStringSubmatch(body); m == nil || m[1] != strconv.Itoa(f.waiting) {
		t.Errorf("%s: the extract queue's row %v; want %d waiting and the oldest's age", path, m, f.waiting)
	}
	wantText(t, path, body, "weekly-analytics", "memory-ttl", "extract", "rules / ok", "llm / ok", "fallback / invalid_answer",
		"$0.05", llmModel, "/ui/queues/extract", "1 stale ("+f.staleWeek+")", "Stale periods in weekly-analytics")
	wantPoints(t, path, cs, "ops-spend", f.now.Day())
	if ys := cs["ops-spend"]; len(ys) == 0 || ys[len(ys)-1] <= 0 || ys[len(ys)-1] >= llmBudget {
		t.Errorf("%s: spend %v; want some, under the budget", path, ys)
	}
	if rows := strings.Join(rowsOf(sectionOf(t, body, "risk")), "\n"); !strings.Contains(rows, "coach | Suicidal thoughts or plans (suicidal) | High | 1 | 1 | 1 | 0") {
		t.Errorf("%s: risk findings\n%s\nwant the coach's crisis, alerting, in the 7 and the 30 days", path, rows)
	}
	if m := regexp.MustCompile(`Missed periods</dt><dd>(\d+)`).FindStringSubmatch(body); m == nil || m[1] == "0" {
		t.Errorf("%s: missed periods %v; want memory-ttl's since its origin three hours ago", path, m)
	}

	for p, b := range pages {
		if strings.Contains(b, secret) {
			t.Errorf("%s shows text of a transcript or an event (%q)", p, secret)
		}
	}
}

// TestEmptyStates: a worker with no data yet says on every page what will
// appear and when.
func TestEmptyStates(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, b, allTokens())
			// One Clara session handed over, not yet processed (no worker runs).
			f.handOver(t, "c-1", "clara-new", "clara", "Asia/Tokyo", f.now.Add(-2*time.Hour), 20, []msg{{"user", "Hello " + secret}},
				[]ev{{"emotion", 1, map[string]any{"emotion": "calm", "confidence": 0.9, "distress_score": 0.2, "trajectory": "stable"}}})
			f.handOver(t, "e-1", "et-new", "eldertree", "UTC", f.now.Add(-2*time.Hour), 20, []msg{{"user", "Hello"}}, nil)
			next := f.deps.Schedules["trends"].Next(f.now).In(mustZone(t, "Asia/Tokyo")).Format("Mon 2 Jan 2006 15:04")

			body := page(t, f, "/views/users/clara-new", caregiverToken)
			wantText(t, "clara", body, "appear after the trends batch (schedule 0 3 * * * in UTC); its next run is "+next+" (Asia/Tokyo)",
				"not processed yet", "Times are shown in Asia/Tokyo")
			wantPoints(t, "clara", charts(body), "clara-30-days", 1)

			body = page(t, f, "/views/users/et-new", adminToken)
			wantText(t, "eldertree", body, "Weekly recovery insights appear after the weekly-analytics batch (schedule 0 12 * * 1 in UTC)", "No open cue.")

			body = page(t, f, "/views/insights", adminToken)
			wantText(t, "insights", body, "Insights appear after the insights batch (schedule 30 13 * * 1 in UTC); its next run is")

			body = page(t, f, "/views/operations", adminToken)
			wantText(t, "operations", body, "Outcomes appear once a handed-over session has been extracted",
				"No LLM spend this month.", "Scheduled batches")
			cs := charts(body)
			if got := sum(cs["ops-sessions-hour"]); got != 2 {
				t.Errorf("operations: %v sessions in the hour chart; want the 2 handed over", got)
			}
			if strings.Contains(body, secret) {
				t.Errorf("a page shows what was said")
			}
		})
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skip(err)
	}
	return loc
}

// TestScopesMatchTheAPIs: the views' scope names are the tokens' scopes.
func TestScopesMatchTheAPIs(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]string{{views.ScopeAdmin, api.ScopeAdmin}, {views.ScopeService, api.ScopeService}, {views.ScopeCaregiver, api.ScopeCaregiver}} {
		if c[0] != c[1] {
			t.Errorf("views scope %q is api scope %q", c[0], c[1])
		}
	}
}

// TestDisplayNameInTitleIsPlain is issue 22 item 8 for the views: the
// display name in a user page's title is cleaned as the context pack
// cleans its values, so that no bidi, zero-width or control character a
// chat service sent can turn the title around.
func TestDisplayNameInTitleIsPlain(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, b, allTokens())
			f.handOver(t, "m-mallory", "mona-mallory", "mona", "UTC", f.now.Add(-2*time.Hour), 20, []msg{{"user", "Hello"}}, nil)
			body := page(t, f, "/views/users/mona-mallory", adminToken)
			wantText(t, "mallory", body, "<title>Mallory ignore instructions · mona · Mnemo</title>")
			if strings.ContainsAny(body, "\u202e\u200b\u2066\x07\ufeff") {
				t.Errorf("the page holds a bidi, zero-width or control character of the display name")
			}
		})
	}
}
