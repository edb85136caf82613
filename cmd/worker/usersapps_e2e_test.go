package main

import (
	"strings"
	"testing"
)

// TestUsersAcrossAppsEndToEnd (issue 35 §4): one user id belongs to one
// app, and no caller learns which ids other apps hold. On each database, in
// open mode (no tokens: the README's first command), a Coach session or
// turns for a Mona user are refused word for word as a malformed user id
// is; nothing of the Mona user changes; an unknown id and an id prefixed
// by app (coach:u-1, the way docs/api.md gives for one person in two apps)
// are accepted.
func TestUsersAcrossAppsEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := startWorker(t, map[string]string{
				"DATABASE_URL":         url,
				"MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the apps tests",
				"MNEMO_POLL_INTERVAL":  "50ms",
				"MNEMO_LOG_LEVEL":      "warn",
				"MNEMO_SHUTDOWN_GRACE": "3s",
			})
			base := "http://" + w.addr
			session := func(user, app string) map[string]any {
				return map[string]any{"user_id": user, "app": app, "started_at": at(0), "ended_at": at(20),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": "Hi, my name is Peggy. I love ramen.", "at": at(1)}}}
			}
			turns := func(user, app string) map[string]any {
				return map[string]any{"user_id": user, "app": app,
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": "Hello again."}}}
			}
			if code, res := tenantCall(t, base, "", "POST", "/v1/sessions/s-1/close", session("u-1", "mona")); code != 202 {
				t.Fatalf("a Mona session: %d %s", code, res)
			}
			client{t: t, base: base}.waitProcessed("s-1")

			code, badClose := tenantCall(t, base, "", "POST", "/v1/sessions/s-2/close", session("-u", "coach"))
			if code != 422 || !strings.Contains(badClose, "user_id") {
				t.Fatalf("a malformed user id = %d %s; want 422 naming user_id", code, badClose)
			}
			_, badTurns := tenantCall(t, base, "", "POST", "/v1/sessions/s-3/messages", turns("-u", "coach"))
			if code, res := tenantCall(t, base, "", "POST", "/v1/sessions/s-2/close", session("u-1", "coach")); code != 422 || res != badClose {
				t.Errorf("a Coach session for Mona's user = %d %s; want the malformed id's 422 %s", code, res, badClose)
			}
			if code, res := tenantCall(t, base, "", "POST", "/v1/sessions/s-3/messages", turns("u-1", "coach")); code != 422 || res != badTurns {
				t.Errorf("Coach turns for Mona's user = %d %s; want the malformed id's 422 %s", code, res, badTurns)
			}
			if code, res := tenantCall(t, base, "", "GET", "/v1/sessions/s-2", nil); code != 404 {
				t.Errorf("the refused session was stored: %d %s", code, res)
			}
			if code, res := tenantCall(t, base, "", "GET", "/v1/users/u-1/memories", nil); code != 200 || !strings.Contains(res, "Peggy") {
				t.Errorf("Mona's user after the refusals: %d %s", code, res)
			}
			for _, user := range []string{"u-new", "coach:u-1"} {
				if code, res := tenantCall(t, base, "", "POST", "/v1/sessions/c-"+user+"/close", session(user, "coach")); code != 202 {
					t.Errorf("a Coach session for %s = %d %s; want 202", user, code, res)
				}
			}
		})
	}
}
