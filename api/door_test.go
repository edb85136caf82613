package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

const elderClose = `{"user_id":"u-e","app":"eldertree","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "display_name":"Dan",
 "messages":[{"id":"m1","role":"user","content":"I had an urge","at":"2026-11-20T09:00:05Z"}],
 "events":[{"kind":"urge","at":"2026-11-20T09:00:05Z","message_id":"m1","data":{"intensity":7,"trigger":"party","outcome":"urge_passed"}}]}`

const claraClose = `{"user_id":"u-c","app":"clara","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "messages":[],
 "events":[{"kind":"emotion","at":"2026-11-20T09:00:05Z","data":{"emotion":"calm","distress_score":0.2}}]}`

// errorOf reads the one error shape; ok is false when the body is not it.
func errorOf(body []byte) (code, message string, ok bool) {
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Code == "" {
		return "", "", false
	}
	return e.Error.Code, e.Error.Message, true
}

// TestDoorRefusesBadBodies is issue 13's list (items 4–7 and 13) over HTTP
// on both databases: each bad body is refused with its status and the
// field named, nothing is stored, and the good bodies still pass.
func TestDoorRefusesBadBodies(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, _, _ := setupAPI(t, b)
			e := func(old, new string) string { return strings.Replace(elderClose, old, new, 1) }
			c := func(old, new string) string { return strings.Replace(claraClose, old, new, 1) }
			const msgs = `{"user_id":"u-m","app":"mona","messages":[{"id":"t1","role":"user","content":"hi","at":"2026-11-20T09:00:05Z"}]}`
			m := func(old, new string) string { return strings.Replace(msgs, old, new, 1) }
			cases := []struct {
				name, path, body string
				want             int
				field            string // the message starts with it
			}{
				{"intensity 1e400", "/v1/sessions/s-1/close", e(`"intensity":7`, `"intensity":1e400`), 422, "events[0].data.intensity"},
				{"intensity 42", "/v1/sessions/s-1/close", e(`"intensity":7`, `"intensity":42`), 422, "events[0].data.intensity"},
				{"distress_score 1e400", "/v1/sessions/s-2/close", c(`"distress_score":0.2`, `"distress_score":1e400`), 422, "events[0].data.distress_score"},
				{"distress_score 3", "/v1/sessions/s-2/close", c(`"distress_score":0.2`, `"distress_score":3`), 422, "events[0].data.distress_score"},
				{"NUL in display_name", "/v1/sessions/s-1/close", e(`"Dan"`, `"D\u0000an"`), 422, "display_name"},
				{"NUL in event data", "/v1/sessions/s-1/close", e(`"party"`, `"par\u0000ty"`), 422, "events[0].data.trigger"},
				{"NUL in a streamed turn", "/v1/sessions/s-3/messages", m(`"hi"`, `"h\u0000i"`), 422, "messages[0].content"},
				{"USER_ID after user_id", "/v1/sessions/s-1/close", e(`"user_id":"u-e"`, `"user_id":"u-e","USER_ID":"b"`), 422, "USER_ID"},
				{"user_id twice", "/v1/sessions/s-1/close", e(`"user_id":"u-e"`, `"user_id":"a","user_id":"u-e"`), 422, "user_id"},
				{"Messages in another case", "/v1/sessions/s-3/messages", m(`"messages"`, `"Messages"`), 422, "Messages"},
				{"kind urges", "/v1/sessions/s-1/close", e(`"kind":"urge"`, `"kind":"urges"`), 422, "events[0].kind"},
				{"urge_intensity", "/v1/sessions/s-1/close", e(`"intensity":7`, `"urge_intensity":7`), 422, "events[0].data.urge_intensity"},
				{"no messages", "/v1/sessions/s-2/close", strings.Replace(claraClose, `"messages":[],`, "", 1), 422, "messages"},
				{"year 0001", "/v1/sessions/s-1/close", e(`"started_at":"2026-11-20T09:00:00Z"`, `"started_at":"0001-01-01T00:00:00.5Z"`), 422, "started_at"},
				{"missing ended_at", "/v1/sessions/s-1/close", e(`"ended_at":"2026-11-20T09:20:00Z",`, ""), 422, "ended_at"},
				{"not RFC 3339", "/v1/sessions/s-1/close", e(`"at":"2026-11-20T09:00:05Z"}]`, `"at":"20/11/2026"}]`), 422, "messages[0].at"},
				{"epoch number", "/v1/sessions/s-1/close", e(`"ended_at":"2026-11-20T09:20:00Z"`, `"ended_at":1763630400`), 422, "ended_at"},
				{"array body", "/v1/sessions/s-1/close", `[{"user_id":"u-e"}]`, 400, "body"},
				{"not JSON", "/v1/sessions/s-1/close", `{"user_id":`, 400, "body"},
			}
			for _, tc := range cases {
				rec := call(srv, "POST", tc.path, tc.body, "application/json")
				code, msg, ok := errorOf(rec.Body.Bytes())
				if rec.Code != tc.want || !ok || !strings.HasPrefix(msg, tc.field) {
					t.Errorf("%s: %d %s; want %d naming %s", tc.name, rec.Code, rec.Body, tc.want, tc.field)
				}
				if strings.Contains(msg, "[]") && strings.Contains(msg, "interface") || strings.Contains(msg, "handoff.") {
					t.Errorf("%s: the message leaks a Go type: %s", tc.name, msg)
				}
				_ = code
			}
			// Nothing of it was stored: the users are unknown.
			for _, u := range []string{"u-e", "u-c", "u-m", "b", "a"} {
				if rec := call(srv, "GET", "/v1/users/"+u+"/profile", "", ""); rec.Code != http.StatusNotFound {
					t.Errorf("user %s after refused bodies: %d %s", u, rec.Code, rec.Body)
				}
			}
			// The good bodies pass.
			for path, body := range map[string]string{"/v1/sessions/s-1/close": elderClose, "/v1/sessions/s-2/close": claraClose, "/v1/sessions/s-3/messages": msgs} {
				if rec := call(srv, "POST", path, body, "application/json"); rec.Code != http.StatusAccepted {
					t.Fatalf("POST %s: %d %s", path, rec.Code, rec.Body)
				}
			}
			// A profile PATCH is checked the same way, and the pack still answers.
			for _, p := range []struct{ body, field string }{
				{`{"age":1e400}`, "age"}, {`{"age":-1e16}`, "age"}, {`{"sponsor_name":"A\u0000B"}`, "sponsor_name"},
				{`{"a":{"b":[1,{"c":1e999}]}}`, "a.b[1].c"}, {`{"age":40,"age":41}`, "age"}, {`{"N\u0000":1}`, `["N\x00"]`},
			} {
				rec := call(srv, "PATCH", "/v1/users/u-e/profile", p.body, "application/json")
				const want = 422
				_, msg, _ := errorOf(rec.Body.Bytes())
				if rec.Code != want || !strings.HasPrefix(msg, p.field) {
					t.Errorf("PATCH %s: %d %s; want %d naming %s", p.body, rec.Code, rec.Body, want, p.field)
				}
			}
			if rec := call(srv, "GET", "/v1/users/u-e/context?budget_tokens=600", "", ""); rec.Code != http.StatusOK {
				t.Errorf("context after refused patches: %d %s", rec.Code, rec.Body)
			}
			figures.Report(t, "door: %d bad bodies and 6 bad patches refused with the field named, no 5xx", len(cases))
		})
	}
}

// TestDoorStatuses: 413 says the limit, a wrong method is a JSON 405 with
// Allow, an unknown route a JSON 404.
func TestDoorStatuses(t *testing.T) {
	t.Parallel()
	srv, _, _ := setupAPI(t, storetest.Backends(t)[0])
	rec := call(srv, "POST", "/v1/sessions/s-1/close", `{"x":"`+strings.Repeat("a", 70<<10)+`"}`, "application/json")
	if _, msg, ok := errorOf(rec.Body.Bytes()); rec.Code != 413 || !ok || !strings.Contains(msg, "65536 bytes") {
		t.Errorf("too large: %d %s; want 413 saying the limit", rec.Code, rec.Body)
	}
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/v1/sessions/s-1/close", "POST"},
		{"PUT", "/v1/sessions/s-1/messages", "POST"},
		{"DELETE", "/v1/sessions/s-1", "GET"},
		{"POST", "/v1/users/u-1/memories", "DELETE"},
		{"POST", "/v1/users/u-1/profile", "PATCH"},
	} {
		rec := call(srv, c.method, c.path, "", "")
		code, _, ok := errorOf(rec.Body.Bytes())
		if rec.Code != http.StatusMethodNotAllowed || !ok || code != "method_not_allowed" ||
			!strings.Contains(rec.Header().Get("Allow"), c.allow) || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d Allow=%q %s; want a JSON 405 allowing %s", c.method, c.path, rec.Code, rec.Header().Get("Allow"), rec.Body, c.allow)
		}
	}
	rec = call(srv, "GET", "/v1/nothing", "", "")
	if code, _, ok := errorOf(rec.Body.Bytes()); rec.Code != 404 || !ok || code != "not_found" {
		t.Errorf("unknown route: %d %s", rec.Code, rec.Body)
	}
}
