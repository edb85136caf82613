package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestElderTreeUnconfirmedStreakOverHTTP is issue 32's Elder Tree report,
// replayed on a real worker without an LLM on each database. Two users
// have told their time sober and have a computed week, whose page shows
// the streak as a count. Each then tells of a wedding last Saturday in
// hints only ("I didn't exactly stick to soda water", "a few became a
// lot", "woke up sunday not remembering the drive home"): no relapse is
// recorded, but the next pack and the page show the streak as unconfirmed
// since that Saturday, the pack without a count and asking for a gentle
// check-in. Handing the session over again changes nothing. A later
// session settles it: one user says they stayed sober (the count comes
// back), the other that they drank on Saturday (the streak restarts as a
// told relapse does).
func TestElderTreeUnconfirmedStreakOverHTTP(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, w := startWorkerWithLLM(t, url, nil)
			at := func(day, minute int) string {
				return time.Date(2026, 11, day, 18, minute, 0, 0, time.UTC).Format(time.RFC3339)
			}
			body := func(user string, day int, said ...string) map[string]any {
				var msgs []map[string]any
				for i, text := range said {
					msgs = append(msgs, map[string]any{"id": fmt.Sprintf("m%d", i+1), "role": "user", "content": text, "at": at(day, i+1)})
				}
				return map[string]any{"user_id": user, "app": "eldertree", "timezone": "UTC", "started_at": at(day, 0), "ended_at": at(day, 30), "messages": msgs}
			}
			env := mapEnv(map[string]string{"DATABASE_URL": url, "MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the e2e tests"})
			basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("operator:"+adminToken))
			page := func(user string) string {
				t.Helper()
				code, _, html := uiRequest(t, c.base, "GET", "/views/users/"+user, basic)
				if code != 200 {
					t.Fatalf("page of %s = %d", user, code)
				}
				return string(html)
			}
			pack := func(user string) string {
				t.Helper()
				code, p := c.do("GET", "/v1/users/"+user+"/context", nil)
				text, _ := p["text"].(string)
				if code != 200 {
					t.Fatalf("context of %s = %d %v", user, code, p)
				}
				return text
			}
			profile := func(user string) (map[string]any, any) {
				t.Helper()
				_, p := c.do("GET", "/v1/users/"+user+"/profile", nil)
				doc, _ := p["profile"].(map[string]any)
				return doc, p["version"]
			}
			counted := regexp.MustCompile(`Current streak: \d+ days?`)
			streakFact := regexp.MustCompile(`<dt>Streak</dt><dd>\d+ days`)
			const unconfirmedPack = "Current streak: unconfirmed since Sat 21 Nov 2026"
			const unconfirmedPage = "<dt>Streak</dt><dd>Unconfirmed since Sat 21 Nov 2026"

			users := []string{"u-cleared", "u-relapsed"}
			for _, u := range users {
				c.closeAndWait(u+"-1", body(u, 17, "I've been sober for 428 days."))
			}
			// The week of the first session, computed as the weekly batch does.
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{"batch", "run", "weekly-analytics", "--period", "2026-11-22", "--now", "2026-11-23T12:00:00Z"},
				env, strings.NewReader(""), &out, &errOut); code != 0 {
				t.Fatalf("weekly-analytics: exit %d: %s", code, errOut.String())
			}
			for _, u := range users {
				if got := page(u); !streakFact.MatchString(got) {
					t.Fatalf("%s's page before the hints shows no streak count:\n%s", u, got)
				}
				if got := pack(u); !counted.MatchString(got) {
					t.Fatalf("%s's pack before the hints has no streak count:\n%s", u, got)
				}
			}

			hints := []string{"my cousin's wedding last saturday. open bar. I didn't exactly stick to soda water",
				"a few became a lot. woke up sunday not remembering the drive home"}
			for _, u := range users {
				s := c.closeAndWait(u+"-2", body(u, 24, hints...))
				sum, _ := s["summary"].(map[string]any)
				if sum["outcome"] == "relapsed" {
					t.Fatalf("%s: the hints were recorded as a relapse: %v", u, sum)
				}
				doc, version := profile(u)
				if doc["streak_unconfirmed"] != true || doc["streak_unconfirmed_since"] != "2026-11-21" || doc["recovery_start_date"] != "2025-09-15" {
					t.Fatalf("%s's profile after the hints = %v; want the streak unconfirmed since 2026-11-21 and the start date kept", u, doc)
				}
				got := pack(u)
				if !strings.Contains(got, unconfirmedPack) || !strings.Contains(got, "Do not congratulate") || counted.MatchString(got) {
					t.Errorf("%s's pack after the hints; want the streak unconfirmed since Saturday and no count:\n%s", u, got)
				}
				if got := page(u); !strings.Contains(got, unconfirmedPage) || streakFact.MatchString(got) ||
					!strings.Contains(got, "Streak unconfirmed since Sat 21 Nov 2026") {
					t.Errorf("%s's page after the hints; want the streak unconfirmed since Saturday:\n%s", u, got)
				}
				// The same session handed over again is the same session.
				if code, _ := c.do("POST", "/v1/sessions/"+u+"-2/close", body(u, 24, hints...)); code != 202 {
					t.Fatalf("%s: the same close again = %d", u, code)
				}
				if doc2, version2 := profile(u); fmt.Sprint(doc2) != fmt.Sprint(doc) || version2 != version {
					t.Fatalf("%s: handing the session over again changed the profile: %v v%v → %v v%v", u, doc, version, doc2, version2)
				}
			}

			// Cleared: the count comes back.
			c.closeAndWait("u-cleared-3", body("u-cleared", 26, "No, I stayed sober at the wedding."))
			if got := pack("u-cleared"); strings.Contains(got, "unconfirmed") || !counted.MatchString(got) {
				t.Errorf("u-cleared's pack after staying sober was said; want the count back:\n%s", got)
			}
			if got := page("u-cleared"); strings.Contains(got, "Unconfirmed") || !streakFact.MatchString(got) {
				t.Errorf("u-cleared's page after staying sober was said; want the count back:\n%s", got)
			}

			// Confirmed: the relapse restarts the streak.
			c.closeAndWait("u-relapsed-3", body("u-relapsed", 26, "I drank on Saturday."))
			doc, _ := profile("u-relapsed")
			if doc["recovery_start_date"] != "2026-11-21" || doc["streak_unconfirmed"] != false {
				t.Errorf("u-relapsed's profile after the relapse was told = %v; want the streak restarted on 2026-11-21", doc)
			}
			got := pack("u-relapsed")
			var days int
			_, err := fmt.Sscanf(counted.FindString(got), "Current streak: %d", &days)
			sinceSaturday := int(time.Since(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)).Hours()/24) + 1
			if err != nil || days > sinceSaturday || strings.Contains(got, "unconfirmed") || !strings.Contains(got, "relapsed") ||
				!strings.Contains(got, "A relapse was recorded") {
				t.Errorf("u-relapsed's pack after the relapse was told; want the streak counted from the relapse, at most %d days:\n%s", sinceSaturday, got)
			}
			if got := page("u-relapsed"); strings.Contains(got, "Unconfirmed") {
				t.Errorf("u-relapsed's page after the relapse was told still says unconfirmed:\n%s", got)
			}

			// The words said never reach the log.
			for _, said := range []string{"soda water", "drive home", "a few became a lot"} {
				if strings.Contains(w.stderr.String(), said) {
					t.Errorf("the log holds %q", said)
				}
			}
		})
	}
}
