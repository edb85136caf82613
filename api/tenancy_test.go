package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// Tokens of the tenancy tests: one bound to Mona, one bound to Coach, one
// unbound.
const (
	monaToken  = "mona-service-token-0123456789"
	coachToken = "coach-service-token-0123456789"
)

// request is one call of the tenancy tests: bearer token (none when empty),
// body (sent with ct), extra headers in pairs.
func request(srv http.Handler, method, path, bearer, body, ct string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	served(nil, srv, rec, req)
	return rec
}

func TestParseBoundTokens(t *testing.T) {
	t.Parallel()
	toks, err := api.ParseTokens("service@coach:0123456789abcdef, service:fedcba9876543210,admin:abcdefabcdef0123")
	if err != nil || len(toks) != 3 || toks[0] != (api.Token{Scope: "service", Value: "0123456789abcdef", App: "coach"}) ||
		toks[1].App != "" || toks[2].App != "" {
		t.Fatalf("ParseTokens = %+v, %v", toks, err)
	}
	for _, bad := range []string{"admin@coach:0123456789abcdef", "service@:0123456789abcdef", "service@Co ach:0123456789abcdef", "root@coach:0123456789abcdef"} {
		_, err := api.ParseTokens(bad)
		if err == nil {
			t.Errorf("ParseTokens(%q) accepted", bad)
			continue
		}
		if strings.Contains(err.Error(), "0123456789abcdef") {
			t.Errorf("ParseTokens(%q) error leaks the token: %v", bad, err)
		}
	}
}

// TestOpenModeServesLoopbackHostsOnly: without tokens a DNS name that a web
// page made resolve to 127.0.0.1 (rebinding) is not served; loopback names
// are, with any port, and probes answer whatever the Host.
func TestOpenModeServesLoopbackHostsOnly(t *testing.T) {
	t.Parallel()
	open := api.New(api.Config{Ready: func(context.Context) error { return nil }})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	open.Handle("GET /v1/thing", api.ScopeService, ok)
	open.Handle("POST /v1/thing", api.ScopeService, ok)
	for host, want := range map[string]int{
		"localhost:8080": 200, "127.0.0.1:8080": 200, "[::1]:8080": 200, "localhost": 200, "127.0.0.1": 200,
		"LOCALHOST:9": 200, "127.0.0.2:8080": 200,
		"evil.example": 421, "evil.example:8080": 421, "127.0.0.1.nip.io:8080": 421, "localhost.evil.example": 421,
		"": 421, "0.0.0.0:8080": 421, "10.0.0.1:8080": 421,
	} {
		for _, method := range []string{"GET", "POST"} {
			body, ct := "", ""
			if method == "POST" {
				body, ct = "{}", "application/json"
			}
			rec := request(open, method, "/v1/thing", "", body, ct, "Host", host)
			if rec.Code != want {
				t.Errorf("%s with Host %q = %d; want %d", method, host, rec.Code, want)
			}
			if rec.Code != 200 && !strings.Contains(rec.Body.String(), `"error":{"code":"misdirected_request"`) {
				t.Errorf("Host %q: %s is not the JSON error shape", host, rec.Body)
			}
		}
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if rec := request(open, "GET", path, "", "", "", "Host", "evil.example"); rec.Code != 200 {
			t.Errorf("GET %s with a foreign Host = %d; probes answer any Host", path, rec.Code)
		}
	}
	// With tokens the Host is not checked: a token is the protection.
	closed := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: token}}})
	closed.Handle("GET /v1/thing", api.ScopeService, ok)
	if rec := request(closed, "GET", "/v1/thing", token, "", "", "Host", "mnemo.internal:8080"); rec.Code != 200 {
		t.Errorf("a token and a DNS Host = %d; want 200", rec.Code)
	}
}

// TestCrossSiteRequestsCannotChangeState: a page on another site cannot make
// the developer's browser post to Mnemo; same-origin requests and clients that
// send no browser headers can.
func TestCrossSiteRequestsCannotChangeState(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	open := api.New(api.Config{})
	closed := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: token}}})
	for _, srv := range []*api.Server{open, closed} {
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			srv.Handle(m+" /v1/thing", api.ScopeService, ok)
		}
	}
	cases := []struct {
		method  string
		headers []string
		want    int
	}{
		{"POST", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"PUT", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"PATCH", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"DELETE", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		// Another port of localhost is the same site, not the same origin.
		{"POST", []string{"Sec-Fetch-Site", "same-site", "Origin", "http://localhost:3000"}, 403},
		{"POST", []string{"Origin", "https://evil.example"}, 403},
		{"DELETE", []string{"Origin", "http://localhost:3000"}, 403},
		{"POST", []string{"Origin", "null"}, 403},
		{"POST", []string{"Sec-Fetch-Site", "same-origin", "Origin", "http://localhost:8080"}, 200},
		{"POST", []string{"Origin", "http://localhost:8080"}, 200},
		{"POST", []string{"Sec-Fetch-Site", "none"}, 200},
		{"POST", nil, 200},
		{"DELETE", nil, 200},
		{"GET", []string{"Sec-Fetch-Site", "same-origin"}, 200},
		{"GET", nil, 200},
	}
	// Reading is not state-changing: with tokens a page of another site
	// cannot read (its browser has no token to send); in open mode it is
	// refused as its writes are (TestOpenModeRefusesCrossSiteReads).
	closedOnly := []struct {
		method  string
		headers []string
		want    int
	}{
		{"GET", []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}, 200},
	}
	for i, srv := range []*api.Server{open, closed} {
		all := cases
		if srv == closed {
			all = append(all, closedOnly...)
		}
		for _, c := range all {
			body, ct := "", ""
			if c.method == "POST" || c.method == "PUT" || c.method == "PATCH" {
				body, ct = "{}", "application/json"
			}
			rec := request(srv, c.method, "/v1/thing", token, body, ct, append([]string{"Host", "localhost:8080"}, c.headers...)...)
			if rec.Code != c.want {
				t.Errorf("server %d: %s %v = %d; want %d", i, c.method, c.headers, rec.Code, c.want)
			}
			if rec.Code == 403 && !strings.Contains(rec.Body.String(), `"error":{"code":"cross_site"`) {
				t.Errorf("%s %v: %s is not the JSON error shape", c.method, c.headers, rec.Body)
			}
		}
	}
}

// TestBodiesMustBeJSON: a body without a JSON media type is refused before it
// is read (a browser form or text/plain fetch sends one without a preflight);
// the profile's merge patch may say so in its media type.
func TestBodiesMustBeJSON(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPI(t, b)
			for _, ct := range []string{"", "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
				"multipart/form-data; boundary=x", "application/jsonp", "application/json-seq", "json"} {
				rec := request(srv, "POST", "/v1/sessions/s-1/close", token, body, ct)
				if rec.Code != http.StatusUnsupportedMediaType || !strings.Contains(rec.Body.String(), `"error":{"code":"unsupported_media_type"`) {
					t.Errorf("close with Content-Type %q = %d %s; want 415", ct, rec.Code, rec.Body)
				}
			}
			if _, err := st.GetUser(context.Background(), "u-1"); err == nil {
				t.Fatal("a refused body wrote a user")
			}
			if rec := request(srv, "POST", "/v1/sessions/s-1/close", token, body, "application/json; charset=utf-8"); rec.Code != 202 {
				t.Fatalf("close with application/json; charset=utf-8 = %d %s", rec.Code, rec.Body)
			}
			patch := `{"name":"John","city":null}`
			for _, ct := range []string{"application/merge-patch+json", "application/json", "Application/Merge-Patch+JSON; charset=utf-8"} {
				if rec := request(srv, "PATCH", "/v1/users/u-1/profile", token, patch, ct); rec.Code != 200 {
					t.Errorf("PATCH profile as %q = %d %s; want 200", ct, rec.Code, rec.Body)
				}
			}
			if rec := request(srv, "PATCH", "/v1/users/u-1/profile", token, patch, "text/plain"); rec.Code != 415 {
				t.Errorf("PATCH profile as text/plain = %d; want 415", rec.Code)
			}
			if rec := request(srv, "PUT", "/v1/users/u-1/settings", token, `{"memory_enabled":true}`, ""); rec.Code != 415 {
				t.Errorf("PUT settings without a Content-Type = %d; want 415", rec.Code)
			}
			// Routes without a body need no Content-Type.
			if rec := request(srv, "POST", "/v1/users/u-1/export", token, "", ""); rec.Code != 202 {
				t.Errorf("export without a body = %d %s; want 202", rec.Code, rec.Body)
			}
		})
	}
}

// TestUIKeepsWorkingSameOrigin: River UI's own requests (fetch with a text
// body, same-origin) still reach it; another site's do not.
func TestUIKeepsWorkingSameOrigin(t *testing.T) {
	t.Parallel()
	srv := uiServer(t)
	same := []string{"Host", "localhost:8080", "Origin", "http://localhost:8080", "Sec-Fetch-Site", "same-origin"}
	if rec := request(srv, "POST", "/ui/api/jobs/cancel", "", `{"ids":["1"]}`, "text/plain;charset=UTF-8",
		append(same, "Authorization", basicAuth(uiAdminToken))...); rec.Code != 200 {
		t.Errorf("River UI's own POST = %d %s; want 200", rec.Code, rec.Body)
	}
	if rec := request(srv, "POST", "/ui/api/jobs/cancel", "", `{"ids":["1"]}`, "text/plain;charset=UTF-8",
		"Host", "localhost:8080", "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site", "Authorization", basicAuth(uiAdminToken)); rec.Code != 403 {
		t.Errorf("a cross-site POST to River UI = %d; want 403", rec.Code)
	}
}

// TestBoundTokensSeeOnlyTheirApp: a service token bound to Coach cannot read,
// change, export, erase or hand over a Mona user or session, and is answered
// exactly as for a user that does not exist; the Mona token and an unbound
// token can.
func TestBoundTokensSeeOnlyTheirApp(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
			srv, st, _ := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
				cfg.Tokens = append(cfg.Tokens, api.Token{Scope: api.ScopeService, Value: monaToken, App: "mona"},
					api.Token{Scope: api.ScopeService, Value: coachToken, App: "coach"})
				data.Now = func() time.Time { return now }
			})
			ctx := context.Background()
			if rec := request(srv, "POST", "/v1/sessions/s-1/close", monaToken, body, "application/json"); rec.Code != 202 {
				t.Fatalf("Mona's token hands over a Mona session: %d %s", rec.Code, rec.Body)
			}
			week := store.AggregateRow{UserID: "u-1", App: "mona", WeekEnding: "2026-11-15", Data: json.RawMessage(`{}`), UpdatedAt: now}
			if err := st.UpsertWeekly(ctx, []store.AggregateRow{week}); err != nil {
				t.Fatal(err)
			}
			mem := store.Memory{ID: "mem-1", UserID: "u-1", App: "mona", Key: "name", Value: "John", Category: "fact", Importance: 50,
				Confidence: 0.9, Status: store.MemoryActive, CreatedAt: now, UpdatedAt: now, StatedAt: now}
			if err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.InsertMemory(ctx, mem) }); err != nil {
				t.Fatal(err)
			}
			if rec := request(srv, "PATCH", "/v1/users/u-1/profile", monaToken, `{"name":"John"}`, "application/merge-patch+json"); rec.Code != 200 {
				t.Fatalf("Mona's token edits Mona's profile: %d %s", rec.Code, rec.Body)
			}
			exp := request(srv, "POST", "/v1/users/u-1/export", monaToken, "", "")
			var started struct {
				ExportID string `json:"export_id"`
				URL      string `json:"url"`
			}
			if err := json.Unmarshal(exp.Body.Bytes(), &started); exp.Code != 202 || err != nil {
				t.Fatalf("Mona's export = %d %s", exp.Code, exp.Body)
			}
			if started.URL == "" {
				started.URL = "/v1/exports/" + started.ExportID
			}

			// The answer to a user that does not exist, for the same route.
			unknown := func(method, path, body, ct string) string {
				rec := request(srv, method, strings.Replace(path, "u-1", "u-nobody", 1), coachToken, body, ct)
				if rec.Code != 404 {
					t.Fatalf("%s %s for an unknown user = %d %s; want 404", method, path, rec.Code, rec.Body)
				}
				return rec.Body.String()
			}
			reads := []struct{ method, path, body, ct string }{
				{"GET", "/v1/users/u-1/memories", "", ""},
				{"GET", "/v1/users/u-1/memories?status=all", "", ""},
				{"GET", "/v1/users/u-1/profile", "", ""},
				{"GET", "/v1/users/u-1/profile?as_of=2026-11-20T12:00:00Z", "", ""},
				{"GET", "/v1/users/u-1/context", "", ""},
				{"GET", "/v1/users/u-1/cues?all=true", "", ""},
				{"GET", "/v1/users/u-1/analytics", "", ""},
				{"GET", "/v1/users/u-1/analytics?week_ending=2026-11-15", "", ""},
				{"GET", "/v1/users/u-1/trends", "", ""},
				{"PATCH", "/v1/users/u-1/profile", `{"name":"Mallory"}`, "application/merge-patch+json"},
				{"PUT", "/v1/users/u-1/settings", `{"memory_enabled":false}`, "application/json"},
				{"DELETE", "/v1/users/u-1/memories/mem-1", "", ""},
				{"DELETE", "/v1/users/u-1/memories?category=fact", "", ""},
				{"POST", "/v1/users/u-1/export", "", ""},
				{"DELETE", "/v1/users/u-1/profile", "", ""},
				{"DELETE", "/v1/users/u-1", "", ""},
			}
			for _, c := range reads {
				want := unknown(c.method, c.path, c.body, c.ct)
				rec := request(srv, c.method, c.path, coachToken, c.body, c.ct)
				if rec.Code != 404 || rec.Body.String() != want {
					t.Errorf("Coach's token: %s %s = %d %s; want the unknown user's 404 %s", c.method, c.path, rec.Code, rec.Body, want)
				}
			}
			// Another app's session and export are not there either.
			missing := request(srv, "GET", "/v1/sessions/s-nobody", coachToken, "", "").Body.String()
			if rec := request(srv, "GET", "/v1/sessions/s-1", coachToken, "", ""); rec.Code != 404 || rec.Body.String() != missing {
				t.Errorf("Coach's token reads Mona's session: %d %s", rec.Code, rec.Body)
			}
			if rec := request(srv, "GET", started.URL, coachToken, "", ""); rec.Code != 404 || rec.Body.String() != unknown("GET", "/v1/users/u-1/memories", "", "") {
				t.Errorf("Coach's token reads Mona's export: %d %s", rec.Code, rec.Body)
			}

			// Handing over: a session of another app is refused outright; a
			// Coach session naming Mona's user, or Mona's session id, is
			// answered word for word as a malformed id (docs/api.md, "Users
			// and apps"), to a bound token and an unbound one alike.
			if rec := request(srv, "POST", "/v1/sessions/s-2/close", coachToken, body, "application/json"); rec.Code != 403 {
				t.Errorf("Coach's token hands over a Mona session: %d %s; want 403", rec.Code, rec.Body)
			}
			coachBody := strings.Replace(body, `"mona"`, `"coach"`, 1)
			msgs := `{"user_id":"u-1","app":"coach","messages":[{"id":"m1","role":"user","content":"hi","at":"2026-11-20T09:00:05Z"}]}`
			malformed := func(path, body string) string {
				rec := request(srv, "POST", path, coachToken, body, "application/json")
				if rec.Code != 422 {
					t.Fatalf("a malformed id: POST %s = %d %s; want 422", path, rec.Code, rec.Body)
				}
				return rec.Body.String()
			}
			badUser := malformed("/v1/sessions/s-9/close", strings.Replace(coachBody, `"u-1"`, `"-u"`, 1))
			badSession := malformed("/v1/sessions/-s/close", coachBody)
			for _, c := range []struct{ token, path, body, want string }{
				{coachToken, "/v1/sessions/s-2/close", coachBody, badUser},
				{coachToken, "/v1/sessions/s-1/close", strings.Replace(coachBody, `"u-1"`, `"u-2"`, 1), badSession},
				{coachToken, "/v1/sessions/s-3/messages", msgs, badUser},
				{coachToken, "/v1/sessions/s-1/messages", strings.Replace(msgs, `"u-1"`, `"u-2"`, 1), badSession},
				{token, "/v1/sessions/s-2/close", coachBody, badUser},
				{token, "/v1/sessions/s-3/messages", msgs, badUser},
			} {
				rec := request(srv, "POST", c.path, c.token, c.body, "application/json")
				if rec.Code != 422 || rec.Body.String() != c.want {
					t.Errorf("POST %s naming Mona's user or session = %d %s; want a malformed id's 422 %s", c.path, rec.Code, rec.Body, c.want)
				}
			}

			// Nothing of Mona's user changed or went.
			if u, err := st.GetUser(ctx, "u-1"); err != nil || u.App != "mona" || u.MemoryDisabled {
				t.Fatalf("Mona's user after Coach's attempts: %+v, %v", u, err)
			}
			if _, err := st.GetMemory(ctx, "u-1", "mem-1"); err != nil {
				t.Fatalf("Coach's token forgot Mona's memory: %v", err)
			}
			if _, err := st.GetSession(ctx, "s-2"); err == nil {
				t.Fatal("a refused handoff stored a session")
			}

			// Mona's token and the unbound one reach Mona's user.
			for _, tok := range []string{monaToken, token} {
				for _, path := range []string{"/v1/users/u-1/memories", "/v1/users/u-1/profile", "/v1/users/u-1/context",
					"/v1/users/u-1/analytics", "/v1/sessions/s-1", started.URL} {
					if rec := request(srv, "GET", path, tok, "", ""); rec.Code != 200 && rec.Code != 202 {
						t.Errorf("GET %s with Mona's or the unbound token = %d %s", path, rec.Code, rec.Body)
					}
				}
			}
			if rec := request(srv, "DELETE", "/v1/users/u-1", monaToken, "", ""); rec.Code != 202 {
				t.Errorf("Mona's token erases Mona's user: %d %s", rec.Code, rec.Body)
			}
		})
	}
}

// TestOpenModeRefusesCrossSiteReads: without tokens, an <img> on any page
// the developer visits (Sec-Fetch-Site: cross-site) read the context pack
// and so marked the user's memories used. Such reads are refused now, on
// both databases, and nothing is marked; the same read from a client that
// is not a browser page of another site still answers.
func TestOpenModeRefusesCrossSiteReads(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPIWith(t, b, func(cfg *api.Config, _ *api.Data) { cfg.Tokens = nil })
			used := seedMemory(t, st)
			for _, site := range []string{"cross-site", "same-site"} {
				for _, path := range []string{"/v1/users/u-1/context", "/v1/users/u-1/memories", "/v1/users/u-1/cues"} {
					rec := request(srv, "GET", path, "", "", "", "Host", "localhost:8080", "Sec-Fetch-Site", site)
					code, msg, _ := errorOf(rec.Body.Bytes())
					if rec.Code != http.StatusForbidden || code != "cross_site" || !strings.Contains(msg, "MNEMO_API_TOKENS") {
						t.Errorf("GET %s from a %s page = %d %s; want 403 cross_site", path, site, rec.Code, rec.Body)
					}
					if strings.Contains(rec.Body.String(), "Priya") {
						t.Errorf("GET %s from a %s page answered the memory", path, site)
					}
				}
			}
			if used() {
				t.Fatal("a refused cross-site read marked the memory used")
			}
			for _, site := range []string{"", "same-origin", "none"} {
				rec := request(srv, "GET", "/v1/users/u-1/context", "", "", "", "Host", "localhost:8080", "Sec-Fetch-Site", site)
				if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Priya") {
					t.Fatalf("GET context with Sec-Fetch-Site %q = %d %s; want 200 with the pack", site, rec.Code, rec.Body)
				}
			}
			if !used() {
				t.Fatal("the pack did not mark its memory used: the check above proves nothing")
			}
			if rec := request(srv, "GET", "/healthz", "", "", "", "Host", "localhost:8080", "Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusOK {
				t.Errorf("healthz from another site = %d; probes answer", rec.Code)
			}
		})
	}
}
