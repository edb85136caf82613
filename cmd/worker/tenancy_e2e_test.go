package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Tokens of the tenancy tests: bound to Mona, bound to Coach.
const (
	monaServiceToken  = "mona-service-token-for-tests-01"
	coachServiceToken = "coach-service-token-for-tests-1"
)

// tenantCall is one HTTP request to a worker under test: token (none when
// empty), a JSON body when body is not nil, extra headers in pairs ("Host"
// sets the Host header). It answers the status and the raw body.
func tenantCall(t *testing.T, base, token, method, path string, body any, headers ...string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := specClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// TestTenancyEndToEnd runs a worker whose service tokens are bound to Mona
// and to Coach, on each database: Coach's token learns nothing of Mona's
// user — every read, change, export and erase is answered as for a user
// that does not exist, a handoff naming it as for a malformed id — while
// Mona's token works as before. Cross-site
// and non-JSON requests are refused over real HTTP.
func TestTenancyEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := startWorker(t, map[string]string{
				"DATABASE_URL":         url,
				"MNEMO_API_TOKENS":     "service@mona:" + monaServiceToken + ", service@coach:" + coachServiceToken + ",admin:" + adminToken,
				"MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the tenancy tests",
				"MNEMO_POLL_INTERVAL":  "50ms",
				"MNEMO_LOG_LEVEL":      "warn",
				"MNEMO_SHUTDOWN_GRACE": "3s",
			})
			t.Cleanup(func() {
				for _, secret := range []string{monaServiceToken, coachServiceToken, adminToken} {
					if strings.Contains(w.stderr.String(), secret) {
						t.Errorf("the log contains a token")
					}
				}
			})
			base := "http://" + w.addr
			session := func(user, app string) map[string]any {
				return map[string]any{"user_id": user, "app": app, "started_at": at(0), "ended_at": at(20),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": "Hi, my name is Peggy. I love ramen.", "at": at(1)}}}
			}
			if code, res := tenantCall(t, base, monaServiceToken, "POST", "/v1/sessions/s-1/close", session("u-1", "mona")); code != 202 {
				t.Fatalf("Mona's token hands over a Mona session: %d %s", code, res)
			}
			client{t: t, base: base, token: monaServiceToken}.waitProcessed("s-1")
			if code, res := tenantCall(t, base, monaServiceToken, "GET", "/v1/users/u-1/memories", nil); code != 200 || !strings.Contains(res, "Peggy") {
				t.Fatalf("Mona's token reads Mona's memories: %d %s", code, res)
			}

			_, unknown := tenantCall(t, base, coachServiceToken, "GET", "/v1/users/u-nobody/memories", nil)
			for _, c := range []struct {
				method, path string
				body         any
			}{
				{"GET", "/v1/users/u-1/memories", nil},
				{"GET", "/v1/users/u-1/profile", nil},
				{"GET", "/v1/users/u-1/context", nil},
				{"GET", "/v1/users/u-1/cues", nil},
				{"GET", "/v1/users/u-1/analytics", nil},
				{"PATCH", "/v1/users/u-1/profile", map[string]any{"name": "Mallory"}},
				{"PUT", "/v1/users/u-1/settings", map[string]any{"memory_enabled": false}},
				{"DELETE", "/v1/users/u-1/memories?category=fact", nil},
				{"POST", "/v1/users/u-1/export", nil},
				{"DELETE", "/v1/users/u-1", nil},
				{"GET", "/v1/sessions/s-1", nil},
			} {
				code, res := tenantCall(t, base, coachServiceToken, c.method, c.path, c.body)
				if code != 404 || res != unknown || strings.Contains(res, "another app") {
					t.Errorf("Coach's token: %s %s = %d %s; want the unknown user's 404 %s", c.method, c.path, code, res, unknown)
				}
			}
			// Coach sessions naming Mona's user or Mona's session id are
			// answered as a malformed id, word for word.
			_, badUser := tenantCall(t, base, coachServiceToken, "POST", "/v1/sessions/s-2/close", session("-u", "coach"))
			_, badSession := tenantCall(t, base, coachServiceToken, "POST", "/v1/sessions/-s/close", session("u-2", "coach"))
			for _, c := range []struct{ path, user, want string }{
				{"/v1/sessions/s-2/close", "u-1", badUser},
				{"/v1/sessions/s-1/close", "u-2", badSession},
			} {
				if code, res := tenantCall(t, base, coachServiceToken, "POST", c.path, session(c.user, "coach")); code != 422 || res != c.want {
					t.Errorf("Coach's token: POST %s for %s = %d %s; want the malformed id's 422 %s", c.path, c.user, code, res, c.want)
				}
			}
			if code, res := tenantCall(t, base, coachServiceToken, "POST", "/v1/sessions/s-3/close", session("u-3", "mona")); code != 403 {
				t.Errorf("Coach's token hands over a Mona session: %d %s; want 403", code, res)
			}
			if code, res := tenantCall(t, base, monaServiceToken, "GET", "/v1/users/u-1/memories", nil); code != 200 || !strings.Contains(res, "Peggy") {
				t.Fatalf("after Coach's attempts Mona's memories are %d %s", code, res)
			}

			// A browser on another site cannot post, and a body must be JSON.
			if code, res := tenantCall(t, base, monaServiceToken, "POST", "/v1/sessions/s-4/close", session("u-1", "mona"),
				"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"); code != 403 {
				t.Errorf("a cross-site handoff = %d %s; want 403", code, res)
			}
			req, _ := http.NewRequest("POST", base+"/v1/sessions/s-4/close", strings.NewReader(`{"user_id":"u-1"}`))
			req.Header.Set("Authorization", "Bearer "+monaServiceToken)
			req.Header.Set("Content-Type", "text/plain")
			if resp, err := specClient(t).Do(req); err != nil || resp.StatusCode != 415 {
				t.Errorf("a text/plain handoff = %v, %v; want 415", resp, err)
			} else {
				resp.Body.Close()
			}
			// Mona's token erases Mona's user.
			if code, res := tenantCall(t, base, monaServiceToken, "DELETE", "/v1/users/u-1", nil); code != 202 {
				t.Errorf("Mona's token erases Mona's user: %d %s", code, res)
			}
		})
	}
}

// TestOpenModeRefusesForeignHosts: the worker started with no tokens (the
// README's first command) serves loopback names only, so that a web page
// the developer visits cannot reach it by DNS rebinding.
func TestOpenModeRefusesForeignHosts(t *testing.T) {
	t.Parallel()
	w := startWorker(t, map[string]string{"DATABASE_URL": databases(t)["sqlite"], "MNEMO_ENCRYPTION_KEY": "open-mode-test-passphrase",
		"MNEMO_LOG_LEVEL": "warn"})
	base := "http://" + w.addr
	_, port, _ := strings.Cut(w.addr, ":")
	for host, want := range map[string]int{"localhost:" + port: 404, "127.0.0.1:" + port: 404, "rebound.example:" + port: 421} {
		code, res := tenantCall(t, base, "", "GET", "/v1/users/u-nobody/memories", nil, "Host", host)
		if code != want {
			t.Errorf("Host %s: %d %s; want %d", host, code, res, want)
		}
	}
	if code, _ := tenantCall(t, base, "", "GET", "/healthz", nil, "Host", "rebound.example"); code != 200 {
		t.Errorf("healthz with a foreign Host = %d; want 200", code)
	}
}

// TestTokenBoundToAnUnknownApp stops the worker with one line naming the
// setting and the app, never the token.
func TestTokenBoundToAnUnknownApp(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"serve"}, mapEnv(map[string]string{"MNEMO_API_TOKENS": "service@caoch:" + coachServiceToken}),
		strings.NewReader(""), io.Discard, &stderr)
	out := strings.TrimSpace(stderr.String())
	if code != exitUsage || strings.Count(out, "\n") != 0 || !strings.Contains(out, "MNEMO_API_TOKENS") || !strings.Contains(out, `"caoch"`) {
		t.Fatalf("exit %d, stderr %q: want one line naming MNEMO_API_TOKENS and the app caoch", code, out)
	}
	if strings.Contains(out, coachServiceToken) {
		t.Fatalf("the error leaks the token: %s", out)
	}
	for _, spec := range []string{"admin@coach:" + adminToken, "service@:" + coachServiceToken} {
		stderr.Reset()
		if code := run(context.Background(), []string{"serve"}, mapEnv(map[string]string{"MNEMO_API_TOKENS": spec}),
			strings.NewReader(""), io.Discard, &stderr); code != exitUsage || strings.Contains(stderr.String(), spec[strings.Index(spec, ":")+1:]) {
			t.Errorf("MNEMO_API_TOKENS=%s…: exit %d %q", spec[:strings.Index(spec, ":")], code, stderr.String())
		}
	}
}
