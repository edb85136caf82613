package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestProfilePatchIsBounded: a PATCH of 200 000 keys was written whole (37 s
// on Postgres, SQLite's writer held 16 s) and the profile answered 91 MB.
// The profile is now bounded in fields, depth, value size and total size,
// checked on the merged result before anything is written, each refusal
// naming its limit and setting; and an app that declares its profile fields
// (Elder Tree's current_step is 1 to 12) has them checked. On both
// databases, nothing of a refused PATCH is kept.
func TestProfilePatchIsBounded(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPIWith(t, b, func(_ *api.Config, data *api.Data) {
				data.Profile = api.ProfileLimits{MaxFields: 4, MaxDepth: 2, MaxValueBytes: 64, MaxBytes: 200}
			})
			if rec := call(srv, "POST", "/v1/sessions/s-1/close", body, "application/json"); rec.Code != 202 {
				t.Fatalf("close: %d %s", rec.Code, rec.Body)
			}
			if rec := call(srv, "POST", "/v1/sessions/s-e/close", elderClose, "application/json"); rec.Code != 202 {
				t.Fatalf("close: %d %s", rec.Code, rec.Body)
			}
			patch := func(user, body string) (int, string, string) {
				rec := call(srv, "PATCH", "/v1/users/"+user+"/profile", body, "application/merge-patch+json")
				code, msg, _ := errorOf(rec.Body.Bytes())
				return rec.Code, code, msg
			}
			if status, _, msg := patch("u-1", `{"a":1,"b":"two","c":[3]}`); status != 200 {
				t.Fatalf("a small patch = %d %s", status, msg)
			}
			version := func(user string) int {
				p, err := st.GetProfile(context.Background(), user)
				if err != nil {
					t.Fatal(err)
				}
				return p.Version
			}
			before := version("u-1")
			long := strings.Repeat("x", 70)
			cases := []struct {
				name, user, body string
				status           int
				want             string // in the message
			}{
				{"fields, merged", "u-1", `{"d":1,"e":2}`, 422, "5 fields; at most 4 are allowed (MNEMO_PROFILE_MAX_FIELDS)"},
				{"fields in the patch", "u-1", `{"a":null,"b":null,"c":null,"d":1,"e":2}`, 422, "MNEMO_PROFILE_MAX_FIELDS"},
				{"depth", "u-1", `{"a":{"b":{"c":[1]}}}`, 422, "a: nested 3 deep; a profile value nests at most 2 deep (MNEMO_PROFILE_MAX_DEPTH)"},
				{"value size", "u-1", `{"b":"` + long + `"}`, 422, "b: its value is 72 bytes; a profile value is at most 64 bytes (MNEMO_PROFILE_MAX_VALUE_BYTES)"},
				{"total size", "u-1", `{"a":"` + long[:60] + `","b":"` + long[:60] + `","c":"` + long[:60] + `"}`, 413, "a profile is at most 200 bytes (MNEMO_PROFILE_MAX_BYTES)"},
				{"current_step 999", "u-e", `{"current_step":999}`, 422, "/current_step"},
				{"current_step as text", "u-e", `{"current_step":"4"}`, 422, "/current_step"},
				{"an undeclared field", "u-e", `{"favourite_colour":"red"}`, 422, "eldertree's profile fields"},
			}
			for _, c := range cases {
				status, code, msg := patch(c.user, c.body)
				if status != c.status || code == "" || !strings.Contains(msg, c.want) {
					t.Errorf("%s: %d %s %q; want %d naming %q", c.name, status, code, msg, c.status, c.want)
				}
			}
			if v := version("u-1"); v != before {
				t.Fatalf("refused patches wrote version %d over %d", v, before)
			}
			if _, err := st.GetProfile(context.Background(), "u-e"); err == nil {
				t.Fatal("a refused patch wrote Elder Tree's profile")
			}
			// Within the bounds: removing fields makes room on the merged
			// result, and Elder Tree's declared fields pass.
			if status, _, msg := patch("u-1", `{"a":null,"b":null,"d":4,"e":{"f":[1]}}`); status != 200 {
				t.Errorf("a patch that removes as it adds = %d %s", status, msg)
			}
			if status, _, msg := patch("u-e", `{"current_step":4,"sponsor_name":"Dave","step_1_completed":true}`); status != 200 {
				t.Errorf("Elder Tree's declared fields = %d %s", status, msg)
			}
			rec := call(srv, "GET", "/v1/users/u-e/context", "", "")
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Step 4") {
				t.Errorf("the pack after a valid step: %d %s", rec.Code, rec.Body)
			}
		})
	}
}

// TestProfilePatchOfManyKeys: the PATCH, 200 000 keys in a body
// under the 4 MB limit, is refused with the limit named before a write,
// under the default bounds.
func TestProfilePatchOfManyKeys(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, _ := setupAPIWith(t, b, func(_ *api.Config, data *api.Data) { data.MaxBodyBytes = 4 << 20 })
			if rec := call(srv, "POST", "/v1/sessions/s-1/close", body, "application/json"); rec.Code != 202 {
				t.Fatalf("close: %d %s", rec.Code, rec.Body)
			}
			keys := make(map[string]int, 200_000)
			for i := range 200_000 {
				keys[fmt.Sprintf("k%06d", i)] = i
			}
			raw, _ := json.Marshal(keys)
			rec := call(srv, "PATCH", "/v1/users/u-1/profile", string(raw), "application/json")
			if _, msg, _ := errorOf(rec.Body.Bytes()); rec.Code != 422 || !strings.Contains(msg, "MNEMO_PROFILE_MAX_FIELDS") {
				t.Fatalf("a PATCH of 200 000 keys (%d bytes) = %d %.300s; want 422 naming MNEMO_PROFILE_MAX_FIELDS", len(raw), rec.Code, rec.Body)
			}
			if _, err := st.GetProfile(context.Background(), "u-1"); err == nil {
				t.Fatal("the refused PATCH wrote a profile")
			}
		})
	}
}
