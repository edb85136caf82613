package api_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestProfileEditsRaiseCues: Elder Tree's cues (docs/presets.md, Elder Tree: cues) are about a significant field
// changing, whoever changed it. A user's PATCH that drops the fellowship and
// an operator's that changes the sponsor raise the same cues an extraction
// would, and the next session's context pack acknowledges them.
func TestProfileEditsRaiseCues(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st := setupWithSchedules(t, b)
			ctx := context.Background()
			for id, app := range map[string]string{"u-sam": "eldertree", "u-kim": "eldertree", "u-peg": "mona"} {
				if err := st.UpsertUser(ctx, store.User{ID: id, App: app, CreatedAt: aggNow, UpdatedAt: aggNow}); err != nil {
					t.Fatal(err)
				}
			}
			cues := func(user string) map[string]map[string]any {
				t.Helper()
				code, res := getJSON(t, srv, token, "GET", "/v1/users/"+user+"/cues", "")
				list, ok := res["cues"].([]any)
				if code != 200 || !ok {
					t.Fatalf("cues of %s = %d %v", user, code, res)
				}
				out := map[string]map[string]any{}
				for _, c := range list {
					cm := c.(map[string]any)
					out[cm["kind"].(string)] = cm
				}
				return out
			}
			pack := func(user string) string {
				t.Helper()
				code, res := getJSON(t, srv, token, "GET", "/v1/users/"+user+"/context", "")
				if code != 200 {
					t.Fatalf("context = %d %v", code, res)
				}
				return res["text"].(string)
			}
			patch := func(bearer, user, query, body string, want int) {
				t.Helper()
				if code, res := getJSON(t, srv, bearer, "PATCH", "/v1/users/"+user+"/profile"+query, body); code != want {
					t.Fatalf("PATCH %s%s %s = %d %v; want %d", user, query, body, code, res, want)
				}
			}

			// The profile as the user first states it: nothing changed yet.
			start := `{"preferred_name":"Sam","has_sponsor":true,"sponsor_name":"Dave","in_fellowship":true,"fellowship_name":"AA Tuesday group"}`
			patch(token, "u-sam", "", start, 200)
			patch(token, "u-kim", "", start, 200)
			if c := cues("u-sam"); len(c) != 0 {
				t.Fatalf("cues after the first profile = %v; want none", c)
			}

			// The user stops going to meetings.
			patch(token, "u-sam", "", `{"in_fellowship":false}`, 200)
			c := cues("u-sam")
			fd := c["fellowship_dropped"]
			if len(c) != 1 || fd == nil || fd["field"] != "in_fellowship" || fd["profile_version"] != float64(2) || fd["session_id"] != nil {
				t.Fatalf("cues after in_fellowship true→false = %v", c)
			}
			if d := fd["detail"].(map[string]any); d["actor"] != "user" || d["fellowship_name"] != "AA Tuesday group" {
				t.Fatalf("fellowship cue detail = %v; want actor user and the fellowship's name", d)
			}
			// The same request again changes nothing and raises nothing more.
			patch(token, "u-sam", "", `{"in_fellowship":false}`, 200)
			if c := cues("u-sam"); len(c) != 1 {
				t.Fatalf("cues after the same PATCH again = %v", c)
			}

			// An operator changes the sponsor; a service token may not act as one.
			patch(token, "u-sam", "?actor=operator", `{"sponsor_name":"Linda"}`, 403)
			patch(adminToken, "u-sam", "?actor=nobody", `{"sponsor_name":"Linda"}`, 400)
			patch(adminToken, "u-sam", "?actor=operator", `{"sponsor_name":"Linda"}`, 200)
			sc := cues("u-sam")["sponsor_change"]
			if sc == nil {
				t.Fatal("no sponsor_change cue after the sponsor changed from Dave to Linda")
			}
			if d := sc["detail"].(map[string]any); d["actor"] != "operator" || d["previous_sponsor_name"] != "Dave" || d["sponsor_name"] != "Linda" {
				t.Fatalf("sponsor cue detail = %v", d)
			}
			code, prof := getJSON(t, srv, token, "GET", "/v1/users/u-sam/profile", "")
			if doc, _ := prof["profile"].(map[string]any); code != 200 || doc["sponsor_name"] != "Linda" || doc["in_fellowship"] != false {
				t.Fatalf("profile = %d %v", code, prof)
			}

			// The next session's pack acknowledges both.
			text := pack("u-sam")
			for _, want := range []string{`Has stopped going to "AA Tuesday group" meetings`, `Sponsor changed from "Dave" to "Linda"`} {
				if !strings.Contains(text, want) {
					t.Errorf("pack lacks %q:\n%s", want, text)
				}
			}

			// Another user's edit of the same version number raises their own cue.
			patch(token, "u-kim", "", `{"in_fellowship":false}`, 200)
			if c := cues("u-kim"); c["fellowship_dropped"] == nil {
				t.Fatalf("u-kim's cues = %v; want their own fellowship_dropped", c)
			}
			// An app without significant fields raises none.
			patch(token, "u-peg", "", `{"in_fellowship":true}`, 200)
			patch(token, "u-peg", "", `{"in_fellowship":false}`, 200)
			if c := cues("u-peg"); len(c) != 0 {
				t.Fatalf("mona cues = %v; want none", c)
			}

			// A fresh start raises no cue and forgets the open ones, which
			// quote the old profile.
			if code, res := getJSON(t, srv, token, "DELETE", "/v1/users/u-sam/profile", ""); code != 204 {
				t.Fatalf("fresh start = %d %v", code, res)
			}
			if c := cues("u-sam"); len(c) != 0 {
				t.Fatalf("cues after a fresh start = %v", c)
			}
			if text := pack("u-sam"); strings.Contains(text, "Dave") || strings.Contains(text, "Linda") || strings.Contains(text, "AA Tuesday") {
				t.Fatalf("the pack after a fresh start still quotes the old profile:\n%s", text)
			}
			// After it, versions start again at 1 and a change is a cue again.
			patch(token, "u-sam", "", start, 200)
			patch(token, "u-sam", "", `{"in_fellowship":false}`, 200)
			if c := cues("u-sam"); c["fellowship_dropped"] == nil || c["fellowship_dropped"]["profile_version"] != float64(2) {
				t.Fatalf("cues after a fresh start and a new change = %v", c)
			}
		})
	}
}
