package main

import (
	"encoding/base64"
	"strings"
	"testing"
)

// caregiverToken is bound to the clara app (MNEMO_API_TOKENS caregiver@clara:…).
const caregiverToken = "caregiver-token-for-tests-0001"

// TestViewsEndToEnd: a worker started with a caregiver token serves the
// views under /views/ on each database: the start page (checked against
// api/openapi.json), a Clara user's page for the caregiver only, the
// operations page for the admin, in a browser's Basic login; and never the
// session's words.
func TestViewsEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := startWorker(t, map[string]string{
				"DATABASE_URL":         url,
				"MNEMO_API_TOKENS":     "service:" + serviceToken + ",admin:" + adminToken + ",caregiver@clara:" + caregiverToken + ",service@clara:" + claraServiceToken,
				"MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the e2e tests",
				"MNEMO_POLL_INTERVAL":  "50ms",
				"MNEMO_LOG_LEVEL":      "warn",
				"MNEMO_SHUTDOWN_GRACE": "3s",
			})
			c := client{t: t, base: "http://" + w.addr, token: claraServiceToken}
			body := map[string]any{"user_id": "u-rose", "app": "clara", "started_at": at(0), "ended_at": at(25), "timezone": "Europe/London",
				"messages": []map[string]any{{"id": "m1", "role": "user", "content": "Where am I? periwinkle-abacus", "at": at(1)}},
				"events": []map[string]any{
					{"kind": "emotion", "at": at(1), "message_id": "m1", "data": map[string]any{"emotion": "anxious", "confidence": 0.8, "distress_score": 0.7, "trajectory": "escalating"}},
					{"kind": "emotion", "at": at(9), "data": map[string]any{"emotion": "calm", "confidence": 0.8, "distress_score": 0.2, "trajectory": "stable"}}}}
			if code, res := c.do("POST", "/v1/sessions/view-1/close", body); code != 202 {
				t.Fatalf("close = %d %v", code, res)
			}
			c.waitProcessed("view-1")

			basic := func(token string) string {
				return "Basic " + base64.StdEncoding.EncodeToString([]byte("someone:"+token))
			}
			if code, h, _ := uiRequest(t, c.base, "GET", "/views/", ""); code != 401 || !strings.Contains(strings.Join(h.Values("WWW-Authenticate"), ","), "Basic") {
				t.Fatalf("GET /views/ without a token = %d %v; want 401 asking for a Basic login", code, h)
			}
			if code, _, page := uiRequest(t, c.base, "GET", "/views/", basic(adminToken)); code != 200 || !strings.Contains(string(page), `href="/views/operations"`) {
				t.Fatalf("GET /views/ as admin = %d", code)
			}
			code, _, page := uiRequest(t, c.base, "GET", "/views/users/u-rose", basic(caregiverToken))
			if code != 200 || !strings.Contains(string(page), `data-chart="clara-30-days"`) || !strings.Contains(string(page), "Europe/London") {
				t.Fatalf("Rose's page for the caregiver = %d:\n%s", code, page)
			}
			if strings.Contains(string(page), "periwinkle-abacus") {
				t.Fatal("Rose's page shows what she said")
			}
			if code, _, _ := uiRequest(t, c.base, "GET", "/views/users/u-rose", basic(adminToken)); code != 403 {
				t.Fatalf("Rose's page for the admin = %d; want 403 (the caregiver's only)", code)
			}
			if code, _, page := uiRequest(t, c.base, "GET", "/views/operations", basic(adminToken)); code != 200 || !strings.Contains(string(page), "Scheduled batches") {
				t.Fatalf("operations = %d", code)
			}
			if code, _, _ := uiRequest(t, c.base, "GET", "/views/operations", basic(caregiverToken)); code != 403 {
				t.Fatalf("operations for the caregiver = %d; want 403", code)
			}
			c.token = caregiverToken
			if code, _ := c.do("GET", "/v1/users/u-rose/trends", nil); code != 403 {
				t.Fatalf("the JSON API for a caregiver token = %d; want 403", code)
			}
			// Nor does the operator read them over JSON (issue 22 item 4).
			for _, tok := range []string{adminToken, serviceToken} {
				c.token = tok
				if code, _ := c.do("GET", "/v1/users/u-rose/trends", nil); code != 403 {
					t.Fatalf("Rose's trends over JSON with a token that is not Clara's own = %d; want 403", code)
				}
			}
		})
	}
}
