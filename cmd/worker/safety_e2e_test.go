package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// safetyCase is one app's crisis session in TestSafetyEndToEnd and what
// each place that tells of it must say.
type safetyCase struct {
	app, user, session string
	// token hands the session over and reads the pack; page reads the
	// user's page (Clara's: the caregiver only).
	token, page string
	// said is the crisis; words are what of it no page, pack, alert or
	// log may hold.
	said  string
	words []string
	// The finding: its class, the class as the page says it, the class
	// as the care note says it, and the app as the note names it.
	class, label, concern, guidance string
}

var safetyCases = []safetyCase{
	{app: "mona", user: "u-safe-mona", session: "s-safe-mona", token: serviceToken, page: adminToken,
		said:  "I've started giving my plants and books away to friends, I won't be needing them much longer.",
		words: []string{"plants", "books", "needing them"},
		class: "suicidal", label: "Suicidal thoughts or plans", concern: "thoughts of suicide or of not wanting to live",
		guidance: "follow Mona's crisis guidance"},
	{app: "coach", user: "u-safe-coach", session: "s-safe-coach", token: serviceToken, page: adminToken,
		said:  "I don't see the point of my goals any more, I want to kill myself tonight and I have the pills ready.",
		words: []string{"kill myself", "pills", "my goals"},
		class: "suicidal", label: "Suicidal thoughts or plans", concern: "thoughts of suicide or of not wanting to live",
		guidance: "follow the coach's crisis guidance"},
	{app: "eldertree", user: "u-safe-tree", session: "s-safe-tree", token: serviceToken, page: adminToken,
		said:  "I've got the pills ready and I'm going to take them all tonight.",
		words: []string{"pills", "take them all"},
		class: "suicidal", label: "Suicidal thoughts or plans", concern: "thoughts of suicide or of not wanting to live",
		guidance: "follow Elder Tree's crisis guidance"},
	{app: "clara", user: "u-safe-clara", session: "s-safe-clara", token: claraServiceToken, page: caregiverToken,
		said:  "I took all my tablets at once.",
		words: []string{"tablets"},
		class: "substance", label: "A substance crisis", concern: "a crisis with alcohol or drugs",
		guidance: "follow Clara's crisis guidance"},
	{app: "lara", user: "u-safe-lara", session: "s-safe-lara", token: serviceToken, page: adminToken,
		said:  "I want to die, nobody at school likes me and I am going to hurt myself.",
		words: []string{"hurt myself", "nobody at school"},
		class: "self_harm", label: "Self-harm", concern: "hurting themselves on purpose",
		guidance: "follow LaRa's crisis guidance for children"},
}

// safetyMany is the session of 1,000 identical crisis messages (Mona's).
const safetyMany, safetyManyUser, safetyManySaid = "s-safe-1000", "u-safe-1000", "I want to kill myself tonight, I have the pills ready."

// TestSafetyEndToEnd is issue 32's "what it must show", on each database,
// with one worker for the five apps: alerts are on for every app by the
// setting (MNEMO_RISK_ALERTS, one receiver each, one secret for all), and
// each receiver answers an alert's first attempt with a 500 and verifies
// every signature and timestamp (riskalert.Verify, alertReceiver). Each
// app's crisis session, handed over through the API, then shows on the
// user's page as the safety section, first, with the finding (Clara's on
// the caregiver's page, above the concerns); opens the next context pack
// with the app's care note; reaches the app's receiver as exactly one
// signed alert, delivered on the retry; and is counted on the operations
// page, where no alert failed. A Mona session of 1,000 identical crisis
// messages sends one alert too. No page, pack, alert or log line holds
// the words.
func TestSafetyEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			receivers := map[string]*alertReceiver{}
			var hooks []string
			for _, sc := range safetyCases {
				r, srv := newAlertReceiver(t, http.StatusInternalServerError, http.StatusOK)
				receivers[sc.app] = r
				hooks = append(hooks, sc.app+"="+srv.URL+"/alerts/"+sc.app)
			}
			w := startWorker(t, map[string]string{
				"DATABASE_URL":             url,
				"MNEMO_RISK_ALERTS":        strings.Join(hooks, ","),
				"MNEMO_RISK_ALERT_SECRETS": "*=" + alertSecret,
				"MNEMO_API_TOKENS": "service:" + serviceToken + ",admin:" + adminToken + ",caregiver@clara:" + caregiverToken +
					",service@clara:" + claraServiceToken,
				"MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the safety tests",
				"MNEMO_POLL_INTERVAL":  "50ms",
				"MNEMO_RETRY_BACKOFF":  "100ms",
				"MNEMO_LOG_LEVEL":      "info",
				"MNEMO_SHUTDOWN_GRACE": "3s",
			})
			addr := "http://" + w.addr
			admin := client{t: t, base: addr, token: adminToken}

			// The hand-offs: each app's crisis session, and Mona's 1,000.
			closeSession := func(token, app, user, session string, said ...string) {
				t.Helper()
				msgs := make([]map[string]any, len(said))
				for i, s := range said {
					msgs[i] = map[string]any{"id": fmt.Sprintf("m%d", i+1), "role": "user", "content": s,
						"at": base.Add(time.Minute + time.Duration(i)*time.Second).Format(time.RFC3339)}
				}
				c := client{t: t, base: addr, token: token}
				if code, res := c.do("POST", "/v1/sessions/"+session+"/close", map[string]any{
					"user_id": user, "app": app, "started_at": at(0), "ended_at": at(30), "messages": msgs}); code != 202 {
					t.Fatalf("close %s = %d %v", session, code, res)
				}
			}
			for _, sc := range safetyCases {
				closeSession(sc.token, sc.app, sc.user, sc.session, "Hello, it's me again.", sc.said)
			}
			many := make([]string, 1000)
			for i := range many {
				many[i] = safetyManySaid
			}
			closeSession(serviceToken, "mona", safetyManyUser, safetyMany, many...)

			// Every alert job done, and every receiver told once.
			testwait.Until(t, "every risk alert delivered", func() (bool, string) {
				code, res := admin.do("GET", "/v1/admin/jobs?kind=risk_alert&limit=100", nil)
				jobs, _ := res["jobs"].([]any)
				states := map[string]int{}
				for _, j := range jobs {
					states[fmt.Sprint(j.(map[string]any)["state"])]++
				}
				return code == 200 && states["completed"] == len(safetyCases)+1 && len(jobs) == len(safetyCases)+1,
					fmt.Sprintf("%d, risk_alert jobs by state %v", code, states)
			})

			log := w.stderr.String()
			for _, sc := range safetyCases {
				t.Run(sc.app, func(t *testing.T) {
					c := client{t: t, base: addr, token: sc.token}
					s := c.waitProcessed(sc.session)
					risks, _ := s["risks"].([]any)
					if s["status"] != "processed" || len(risks) != 1 {
						t.Fatalf("session %s: status %v, risks %v; want processed with one finding", sc.session, s["status"], risks)
					}
					if r := risks[0].(map[string]any); r["class"] != sc.class || r["severity"] != "high" || r["message_id"] != "m2" {
						t.Errorf("the finding = %v; want %s, high, m2", r, sc.class)
					}
					told := map[string]string{}

					// The page: the safety section first, with the finding.
					code, _, raw := uiRequest(t, addr, "GET", "/views/users/"+sc.user, "Bearer "+sc.page)
					page := string(raw)
					told["the page"] = page
					ids := safetySectionIDs(page)
					if code != 200 || len(ids) < 2 || ids[0] != "safety" {
						t.Fatalf("the user's page = %d, sections %v; want the safety section first", code, ids)
					}
					if sc.app == "clara" && ids[1] != "concerns" {
						t.Errorf("the caregiver's page: sections %v; want safety, then concerns", ids)
					}
					sec := safetySectionOf(page, "safety")
					rows := safetyRows(sec)
					want := " | " + sc.label + " | High | rules | Alert sent | 1 | " + sc.session
					if !strings.Contains(sec, `data-section="safety recent"`) || len(rows) != 1 || !strings.HasSuffix(rows[0], want) {
						t.Errorf("the safety section's findings %q; want one ending %q, marked recent:\n%s", rows, want, sec)
					}
					if !strings.Contains(sec, "Risk findings in the last 30 days: the latest on") {
						t.Errorf("the safety section has no notice of the recent finding:\n%s", sec)
					}

					// The pack: the care note first, in the app's words.
					code, pack := c.do("GET", "/v1/users/"+sc.user+"/context", nil)
					text, _ := pack["text"].(string)
					told["the pack"] = text
					opening := extract.PackPreamble + "\n\nCARE NOTE:\n- "
					if code != 200 || !strings.HasPrefix(text, opening) {
						t.Errorf("the context pack = %d, without the care note first:\n%s", code, text)
					} else {
						note, _, _ := strings.Cut(strings.TrimPrefix(text, opening), "\n")
						for _, say := range []string{base.Format("2006-01-02"), sc.concern, sc.guidance} {
							if !strings.Contains(note, say) {
								t.Errorf("the care note %q does not say %q", note, say)
							}
						}
					}

					// The alert: exactly one, signed, on the retry after a 500.
					attempts, delivered := receivers[sc.app].counts()
					key := sc.session + " " + sc.class
					if len(attempts) != 1 && sc.app != "mona" || attempts[key] != 2 {
						t.Errorf("%s's receiver: attempts %v; want 2 for %s (a 500, then delivered), and no other alert", sc.app, attempts, key)
					}
					d := delivered[key]
					if len(d) != 1 {
						t.Fatalf("%s's receiver got %d verified alerts for %s; want exactly one", sc.app, len(d), key)
					}
					if a := d[0]; a.App != sc.app || a.UserID != sc.user || a.Severity != "high" || a.MessageID != "m2" || a.Findings != 1 ||
						!a.At.Equal(base.Add(time.Minute+time.Second)) {
						t.Errorf("the alert %+v; want %s's, %s, high, m2 at %s, 1 finding", a, sc.app, sc.user, base.Add(time.Minute+time.Second))
					}
					b, _ := json.Marshal(d[0])
					told["the alert"] = string(b)

					for where, what := range told {
						for _, word := range sc.words {
							if strings.Contains(strings.ToLower(what), word) {
								t.Errorf("%s holds the user's words %q", where, word)
							}
						}
					}
					for _, word := range append(sc.words, sc.said) {
						if strings.Contains(log, word) {
							t.Errorf("the log holds the user's words %q", word)
						}
					}
				})
			}

			// The 1,000 identical crisis messages: 1,000 findings, one alert.
			c := client{t: t, base: addr}
			s := c.waitProcessed(safetyMany)
			if risks, _ := s["risks"].([]any); len(risks) != 1000 {
				t.Errorf("%s has %d findings; want 1000, one per message", safetyMany, len(risks))
			}
			attempts, delivered := receivers["mona"].counts()
			if d := delivered[safetyMany+" suicidal"]; len(d) != 1 || d[0].Findings != 1000 || d[0].MessageID != "m1" || d[0].UserID != safetyManyUser {
				t.Errorf("the 1,000-message session's alerts: %+v; want exactly one, of 1000 findings, from m1", d)
			}
			if len(attempts) != 2 || attempts[safetyMany+" suicidal"] != 2 {
				t.Errorf("Mona's receiver: attempts %v; want two (a 500, then delivered) for each of its two sessions", attempts)
			}
			code, _, raw := uiRequest(t, addr, "GET", "/views/users/"+safetyManyUser, "Bearer "+adminToken)
			if rows := safetyRows(safetySectionOf(string(raw), "safety")); code != 200 || len(rows) != 1 ||
				!strings.HasSuffix(rows[0], " | Suicidal thoughts or plans | High | rules | Alert sent | 1000 | "+safetyMany) {
				t.Errorf("the 1,000-message user's page = %d, findings %q; want one line of 1000", code, rows)
			}

			// The operations page: the counts by app, class and severity, and
			// no failed alert.
			code, _, raw = uiRequest(t, addr, "GET", "/views/operations", "Bearer "+adminToken)
			ops := string(raw)
			if code != 200 {
				t.Fatalf("operations = %d", code)
			}
			wantRows := []string{
				"clara | A substance crisis (substance) | High | 1 | 1 | 1 | 0",
				"coach | Suicidal thoughts or plans (suicidal) | High | 1 | 1 | 1 | 0",
				"eldertree | Suicidal thoughts or plans (suicidal) | High | 1 | 1 | 1 | 0",
				"lara | Self-harm (self_harm) | High | 1 | 1 | 1 | 0",
				"mona | Suicidal thoughts or plans (suicidal) | High | 1001 | 1001 | 1001 | 0",
			}
			risk := safetySectionOf(ops, "risk")
			if got := safetyRows(risk); strings.Join(got, "\n") != strings.Join(wantRows, "\n") {
				t.Errorf("the operations page's risk findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantRows, "\n"))
			}
			for _, want := range []string{"Last 7 days</dt><dd>1005", "Last 30 days</dt><dd>1005", "Alerting, 30 days</dt><dd>1005", "Lowered, 30 days</dt><dd>0"} {
				if !strings.Contains(risk, want) {
					t.Errorf("the operations page's risk counts lack %q:\n%s", want, risk)
				}
			}
			if failed := safetySectionOf(ops, "failed-alerts"); !strings.Contains(failed, "Failed alerts</dt><dd>0") {
				t.Errorf("the operations page lists failed alerts:\n%s", failed)
			}
			for _, word := range []string{"pills", "kill myself", alertSecret} {
				if strings.Contains(ops, word) {
					t.Errorf("the operations page holds %q", word)
				}
			}
		})
	}
}

var safetySectionRE = regexp.MustCompile(`<section id="([^"]+)"`)

// safetySectionIDs are the ids of a page's sections, in order.
func safetySectionIDs(page string) []string {
	var ids []string
	for _, m := range safetySectionRE.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// safetySectionOf is the HTML of the page's section id, or "".
func safetySectionOf(page, id string) string {
	i := strings.Index(page, `<section id="`+id+`"`)
	if i < 0 {
		return ""
	}
	if j := strings.Index(page[i:], "</section>"); j >= 0 {
		return page[i : i+j]
	}
	return page[i:]
}

var (
	safetyBodyRE = regexp.MustCompile(`(?s)<tbody>(.*?)</tbody>`)
	safetyRowRE  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	safetyCellRE = regexp.MustCompile(`(?s)<td>(.*?)</td>`)
	safetyTagRE  = regexp.MustCompile(`<[^>]+>`)
)

// safetyRows are the rows of a section's tables, each cell's text joined
// by " | ".
func safetyRows(html string) []string {
	var out []string
	for _, tb := range safetyBodyRE.FindAllStringSubmatch(html, -1) {
		for _, row := range safetyRowRE.FindAllStringSubmatch(tb[1], -1) {
			var cells []string
			for _, c := range safetyCellRE.FindAllStringSubmatch(row[1], -1) {
				cells = append(cells, strings.TrimSpace(safetyTagRE.ReplaceAllString(c[1], "")))
			}
			out = append(out, strings.Join(cells, " | "))
		}
	}
	return out
}
